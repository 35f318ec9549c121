"""Reading text, JSON and JSON Lines input files so that every way they can be bad is one clear error.

Each function raises :class:`~negkit.errors.InputFormatError` naming the file (and the line where there is one)
for a missing file, a folder, unreadable bytes, bytes that are not UTF-8, malformed JSON or the wrong kind of
JSON value; never a Python exception. Values quoted in messages are cut short (:func:`negkit.errors.quoted`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError


def read_bytes(path: str | os.PathLike[str], what: str = "file") -> bytes:
    """The bytes of ``path``; a missing file, a folder or an unreadable file is an :class:`InputFormatError`."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise InputFormatError(path, None, f"no such {what}") from None
    except IsADirectoryError:
        raise InputFormatError(path, None, f"is a folder, expected a {what}") from None
    except OSError as error:
        raise InputFormatError(path, None, f"cannot read: {error.strerror or error}") from None


def decode_utf8(data: bytes, path: str | os.PathLike[str]) -> str:
    """``data`` decoded as UTF-8 (a leading byte-order mark dropped); bad bytes name their line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        bad = data[error.start : error.start + 4]
        raise InputFormatError(path, line, f"not UTF-8 text: bytes {bad!r} at byte offset {error.start}") from None
    return text[1:] if text.startswith("\ufeff") else text


def read_text(path: str | os.PathLike[str], what: str = "text file") -> str:
    """The UTF-8 text of ``path`` (see :func:`read_bytes` and :func:`decode_utf8`)."""
    return decode_utf8(read_bytes(path, what), path)


def read_json_object(path: str | os.PathLike[str], what: str = "JSON object") -> dict[str, Any]:
    """A JSON file holding one object; a syntax error names its line."""
    text = read_text(path, f"JSON file ({what})")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputFormatError(path, error.lineno, f"not valid JSON ({error.msg}; expected a {what})") from None
    except RecursionError:
        raise InputFormatError(path, None, f"JSON nested too deeply (expected a {what})") from None
    if not isinstance(data, dict):
        raise InputFormatError(path, None, f"expected a JSON object ({what}), found {type(data).__name__}")
    return data


def iter_jsonl(path: str | os.PathLike[str]) -> Iterator[tuple[int, Any]]:
    """``(line number, decoded value)`` for every non-blank line of a JSON Lines file.

    A missing file, a folder, bytes that are not UTF-8 and a line that is not JSON each raise
    :class:`InputFormatError` with the line; a file whose last line has no line feed is read normally.
    """
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        raise InputFormatError(path, None, "no such file") from None
    except IsADirectoryError:
        raise InputFormatError(path, None, "is a folder, expected a JSON Lines file") from None
    except OSError as error:
        raise InputFormatError(path, None, f"cannot read: {error.strerror or error}") from None
    with handle:
        for line_number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                bad = raw[error.start : error.start + 4]
                raise InputFormatError(path, line_number, f"not UTF-8 text: bytes {bad!r}") from None
            if line_number == 1 and line.startswith("\ufeff"):
                line = line[1:]
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputFormatError(path, line_number, f"not valid JSON ({error.msg}, column {error.colno})") from None
            except RecursionError:
                raise InputFormatError(path, line_number, "JSON nested too deeply") from None
            yield line_number, value
