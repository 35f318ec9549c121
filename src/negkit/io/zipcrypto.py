"""Reading a member of a ZipCrypto-encrypted zip ("traditional PKWARE encryption") quickly.

The standard library decrypts ZipCrypto one byte at a time in Python (some 2 seconds for TIND's 20 MB release);
``fast-zip-decryption`` (the ``zip`` extra) gives the same cipher in C. :func:`read_encrypted_member` uses that
decrypter on the member's bytes and checks them as :mod:`zipfile` does (the password check byte, then the CRC-32),
without patching :mod:`zipfile` for the rest of the process. Where the extension is not installed, or the member is
not a ZipCrypto member that is stored or deflated, it returns ``None`` and the caller reads it with :mod:`zipfile`.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

try:  # the C decrypter of fast-zip-decryption; its importable name carries an underscore
    from _zipdecrypter import StandardZipDecrypter  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - exercised by monkeypatching FAST_DECRYPTER in the tests
    StandardZipDecrypter = None

#: The C decrypter class (``None`` when fast-zip-decryption is not installed): ``decrypter(password)`` has
#: ``decrypt_bytes(data)``.
FAST_DECRYPTER: Any = StandardZipDecrypter

_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_LOCAL_SIGNATURE = b"PK\x03\x04"
_ENCRYPTED = 0x1
_DATA_DESCRIPTOR = 0x8
_ENCRYPTION_HEADER = 12


def read_encrypted_member(path: str | Path, info: zipfile.ZipInfo, password: bytes) -> bytes | None:
    """The decrypted, decompressed bytes of the ZipCrypto member ``info`` of the zip at ``path``; ``None`` when
    this cannot read it quickly (no C decrypter, not encrypted, or compressed other than stored/deflated).

    Raises what :meth:`zipfile.ZipFile.read` raises: ``RuntimeError`` for a wrong password,
    :class:`zipfile.BadZipFile` for a damaged header or CRC, ``zlib.error`` and ``EOFError`` for cut data."""
    if FAST_DECRYPTER is None or not info.flag_bits & _ENCRYPTED:
        return None
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        return None
    with open(path, "rb") as archive:
        archive.seek(info.header_offset)
        header = archive.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size or header[:4] != _LOCAL_SIGNATURE:
            raise zipfile.BadZipFile(f"Bad magic number for file header of {info.filename!r}")
        name_length, extra_length = _LOCAL_HEADER.unpack(header)[-2:]
        archive.seek(name_length + extra_length, 1)
        data = archive.read(info.compress_size)
    if len(data) < info.compress_size or len(data) < _ENCRYPTION_HEADER:
        raise EOFError(f"{info.filename}: the zip ends inside this member")
    plain: bytes = FAST_DECRYPTER(password).decrypt_bytes(data)
    if plain[_ENCRYPTION_HEADER - 1] != _check_byte(info):
        raise RuntimeError(f"Bad password for file {info.filename!r}")
    body = plain[_ENCRYPTION_HEADER:]
    if info.compress_type == zipfile.ZIP_DEFLATED:
        body = zlib.decompress(body, -zlib.MAX_WBITS)
    if zlib.crc32(body) != info.CRC:
        raise zipfile.BadZipFile(f"Bad CRC-32 for file {info.filename!r}")
    return body


def _check_byte(info: zipfile.ZipInfo) -> int:
    """The last byte of the encryption header: the high byte of the CRC, or of the DOS time when the sizes and CRC
    follow the data (a data descriptor)."""
    if info.flag_bits & _DATA_DESCRIPTOR:
        hour, minute, second = info.date_time[3:6]
        return (((hour << 11) | (minute << 5) | (second // 2)) >> 8) & 0xFF
    return (info.CRC >> 24) & 0xFF
