"""ZipCrypto members decrypted in C (negkit.io.zipcrypto) equal what zipfile reads, and fail the way zipfile fails.

The zips here are written by a small ZipCrypto writer of this file (the cipher of PKWARE's APPNOTE, section 6.1),
over invented text; the real check reads members of TIND's published zip both ways."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

import pytest
from conftest import shared_data_path

from negkit.io import zipcrypto
from negkit.io.zipcrypto import read_encrypted_member

pytestmark = pytest.mark.skipif(
    zipcrypto.FAST_DECRYPTER is None, reason="fast-zip-decryption is not installed (the zip extra)"
)

TEXT = ("A kite is a toy.\tT\nA kite is not a spoon.\tT\n" * 40).encode("utf-8")


def _crc_step(crc: int, byte: int) -> int:
    """One byte of the CRC-32 register update, without zlib's inversions."""
    return zlib.crc32(bytes([byte]), crc ^ 0xFFFFFFFF) ^ 0xFFFFFFFF


def zipcrypto_encrypt(data: bytes, password: bytes, check_byte: int) -> bytes:
    """The 12-byte encryption header (11 fixed filler bytes, then ``check_byte``) and ``data``, encrypted."""
    keys = [0x12345678, 0x23456789, 0x34567890]

    def update(byte: int) -> None:
        keys[0] = _crc_step(keys[0], byte)
        keys[1] = ((keys[1] + (keys[0] & 0xFF)) * 134775813 + 1) & 0xFFFFFFFF
        keys[2] = _crc_step(keys[2], keys[1] >> 24)

    for byte in password:
        update(byte)
    out = bytearray()
    for byte in bytes(range(7, 18)) + bytes([check_byte]) + data:
        temp = (keys[2] | 2) & 0xFFFF
        out.append(byte ^ (((temp * (temp ^ 1)) >> 8) & 0xFF))
        update(byte)
    return bytes(out)


def write_zipcrypto_zip(path: Path, members: dict[str, bytes], password: bytes, deflate: bool, descriptor: bool):
    """A zip whose members are ZipCrypto-encrypted (stored or deflated; sizes after the data when ``descriptor``)."""
    local, central = bytearray(), bytearray()
    dos_time, dos_date = (13 << 11) | (45 << 5) | 10, ((2026 - 1980) << 9) | (12 << 5) | 5
    for name, data in members.items():
        crc = zlib.crc32(data)
        packed = data
        if deflate:
            compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
            packed = compressor.compress(data) + compressor.flush()
        check = (dos_time >> 8) & 0xFF if descriptor else crc >> 24
        body = zipcrypto_encrypt(packed, password, check)
        flags, method = 0x1 | (0x8 if descriptor else 0), 8 if deflate else 0
        offset, encoded = len(local), name.encode()
        sizes = (0, 0, 0) if descriptor else (crc, len(body), len(data))
        local += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, flags, method, dos_time, dos_date, *sizes, len(encoded), 0)
        local += encoded + body
        if descriptor:
            local += struct.pack("<4s3L", b"PK\x07\x08", crc, len(body), len(data))
        central += struct.pack(
            "<4s6H3L5H2L",
            b"PK\x01\x02",
            20,
            20,
            flags,
            method,
            dos_time,
            dos_date,
            crc,
            len(body),
            len(data),
            len(encoded),
            0,
            0,
            0,
            0,
            0,
            offset,
        )
        central += encoded
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(local), 0)
    path.write_bytes(bytes(local) + bytes(central) + end)


@pytest.mark.parametrize("deflate", [False, True], ids=["stored", "deflated"])
@pytest.mark.parametrize("descriptor", [False, True], ids=["sizes-before", "data-descriptor"])
def test_members_read_as_zipfile_reads_them(tmp_path, deflate, descriptor):
    archive_path = tmp_path / "invented.zip"
    members = {"release/#03.Pattern.txt": TEXT, "release/example_count.txt": b"03 - 14 | 6 2 6", "empty.txt": b""}
    write_zipcrypto_zip(archive_path, members, b"secret", deflate, descriptor)
    with zipfile.ZipFile(archive_path) as archive:
        archive.setpassword(b"secret")
        for info in archive.infolist():
            assert read_encrypted_member(archive_path, info, b"secret") == archive.read(info) == members[info.filename]
            with pytest.raises(RuntimeError, match="Bad password"):
                read_encrypted_member(archive_path, info, b"wrong")


def test_damaged_and_cut_members_fail_as_zipfile_fails(tmp_path):
    archive_path = tmp_path / "invented.zip"
    write_zipcrypto_zip(archive_path, {"a.txt": TEXT}, b"secret", deflate=True, descriptor=False)
    with zipfile.ZipFile(archive_path) as archive:
        info = archive.getinfo("a.txt")
    data = bytearray(archive_path.read_bytes())
    data[30 + len("a.txt") + 40] ^= 0xFF  # a byte inside the compressed text
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(bytes(data))
    with pytest.raises((zipfile.BadZipFile, zlib.error)):
        read_encrypted_member(damaged, info, b"secret")
    cut = tmp_path / "cut.zip"
    cut.write_bytes(archive_path.read_bytes()[: 30 + len("a.txt") + 20])
    with pytest.raises(EOFError, match="ends inside"):
        read_encrypted_member(cut, info, b"secret")
    not_a_header = tmp_path / "moved.zip"
    not_a_header.write_bytes(b"\0" * 4 + archive_path.read_bytes())
    with pytest.raises(zipfile.BadZipFile, match="Bad magic number"):
        read_encrypted_member(not_a_header, info, b"secret")


def test_what_it_cannot_read_quickly_is_left_to_zipfile(tmp_path, monkeypatch):
    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(plain, "w", compression=zipfile.ZIP_BZIP2) as archive:
        archive.writestr("a.txt", TEXT)
    with zipfile.ZipFile(plain) as archive:
        assert read_encrypted_member(plain, archive.getinfo("a.txt"), b"") is None  # not encrypted
    encrypted = tmp_path / "encrypted.zip"
    write_zipcrypto_zip(encrypted, {"a.txt": TEXT}, b"secret", deflate=True, descriptor=False)
    monkeypatch.setattr(zipcrypto, "FAST_DECRYPTER", None)  # fast-zip-decryption not installed
    with zipfile.ZipFile(encrypted) as archive:
        assert read_encrypted_member(encrypted, archive.getinfo("a.txt"), b"secret") is None


def test_members_of_the_published_tind_zip_read_as_zipfile_reads_them():
    """Two members of TIND's release (the password is published: ``hitz``); the sentences stay in memory."""
    release = Path(shared_data_path("tind", "raw-public.zip"))
    with zipfile.ZipFile(release) as archive:
        archive.setpassword(b"hitz")
        infos = sorted((info for info in archive.infolist() if not info.is_dir()), key=lambda info: info.file_size)
        for info in (infos[0], infos[len(infos) // 2]):
            assert read_encrypted_member(release, info, b"hitz") == archive.read(info)
