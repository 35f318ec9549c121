"""Reading text, JSON and JSON Lines input files so that every way they can be bad is one clear error.

Each function raises :class:`~negkit.errors.InputFormatError` naming the file (and the line where there is one)
for a missing file, a folder, unreadable bytes, bytes that are not UTF-8, malformed JSON or the wrong kind of
JSON value (``expected a JSON object, found an array``), a missing field (``missing field 'x'``); never a Python
exception. Values quoted in messages are cut short (:func:`negkit.errors.quoted`).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import stat
import zlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

from negkit.errors import InputFormatError, NegkitError


def open_input(path: str | os.PathLike[str], what: str = "file", missing: str | None = None) -> BinaryIO:
    """``path`` opened for reading bytes. A missing file (``missing``: the message, default ``no such WHAT``), a
    folder, a device (``/dev/zero`` would never end) or an unreadable file is an :class:`InputFormatError`; a pipe
    (``<(command)``) is read like a file."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputFormatError(path, None, missing or f"no such {what}") from None
    except OSError as error:
        raise InputFormatError(path, None, f"cannot read: {error.strerror or error}") from None
    if stat.S_ISDIR(mode):
        raise InputFormatError(path, None, f"is a folder, expected a {what}")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise InputFormatError(path, None, f"is a device, expected a {what}")
    try:
        return open(path, "rb")
    except OSError as error:
        raise InputFormatError(path, None, f"cannot read: {error.strerror or error}") from None


def read_bytes(path: str | os.PathLike[str], what: str = "file") -> bytes:
    """The bytes of ``path`` (errors as :func:`open_input`)."""
    with open_input(path, what) as handle:
        try:
            return handle.read()
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
        raise InputFormatError(path, None, f"expected a JSON object ({what}), found {json_kind(data)}")
    return data


def iter_lines(path: str | os.PathLike[str], what: str = "text file") -> Iterator[tuple[int, str]]:
    """``(line number, text)`` for every line of a UTF-8 text file (gzip-compressed when its name ends ``.gz``), read
    line by line (line ends kept; a leading byte-order mark dropped). A missing file, a folder or bytes that are not UTF-8 raise :class:`InputFormatError`
    (with the line for bad bytes)."""
    with open_input(path, what, missing="no such file") as raw_handle:
        handle: Any = gzip.GzipFile(fileobj=raw_handle) if str(path).endswith(".gz") else raw_handle
        for line_number, raw in enumerate(_gzip_checked(handle, path), start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                bad = raw[error.start : error.start + 4]
                raise InputFormatError(path, line_number, f"not UTF-8 text: bytes {bad!r}") from None
            yield line_number, line[1:] if line_number == 1 and line.startswith("\ufeff") else line


def _gzip_checked(lines: Iterable[bytes], path: str | os.PathLike[str]) -> Iterator[bytes]:
    """The lines of a (possibly gzip) file; a damaged or cut gzip stream is an :class:`InputFormatError`."""
    iterator = iter(lines)
    while True:
        try:
            line = next(iterator)
        except StopIteration:
            return
        except (gzip.BadGzipFile, EOFError, zlib.error) as error:
            raise InputFormatError(path, None, f"not a readable gzip file: {error}") from None
        yield line


def iter_jsonl(path: str | os.PathLike[str]) -> Iterator[tuple[int, Any]]:
    """``(line number, decoded value)`` for every non-blank line of a JSON Lines file.

    A missing file, a folder, bytes that are not UTF-8 and a line that is not JSON each raise
    :class:`InputFormatError` with the line; a file whose last line has no line feed is read normally.
    """
    for line_number, line in iter_lines(path, "JSON Lines file"):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputFormatError(path, line_number, f"not valid JSON ({error.msg}, column {error.colno})") from None
        except RecursionError:
            raise InputFormatError(path, line_number, "JSON nested too deeply") from None
        if "\\u" in line:  # only an escape can make a lone surrogate
            surrogate = _lone_surrogate(value)
            if surrogate is not None:
                raise InputFormatError(
                    path,
                    line_number,
                    f"the escape \\u{ord(surrogate):04x} is half of a UTF-16 "
                    "surrogate pair, not a character (a text cut in the middle of a character?)",
                )
        yield line_number, value


def _lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate in a decoded JSON value's strings (keys included), or None."""
    if isinstance(value, str):
        return next((character for character in value if "\ud800" <= character <= "\udfff"), None)
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    if isinstance(value, list):
        for element in value:
            found = _lone_surrogate(element)
            if found is not None:
                return found
    return None


#: How a decoded JSON value is named in messages (JSON's names, not Python's).
_JSON_KINDS: tuple[tuple[type, str], ...] = (
    (bool, "true or false"),
    (dict, "an object"),
    (list, "an array"),
    (str, "a string"),
    (int, "a number"),
    (float, "a number"),
)


def json_kind(value: Any) -> str:
    """What ``value`` is, in JSON's words (``an array``, ``a string``, ``null``, ...), for error messages."""
    if value is None:
        return "null"
    return next((name for kind, name in _JSON_KINDS if isinstance(value, kind)), type(value).__name__)


def json_object(path: str | os.PathLike[str], line: int | None, value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object; else an :class:`InputFormatError` ``FILE:LINE: expected a JSON object,
    found an array`` (``line`` None when the file has no lines, e.g. a hub data set)."""
    if not isinstance(value, dict):
        raise InputFormatError(path, line, f"expected a JSON object, found {json_kind(value)}")
    return value


def require_fields(
    path: str | os.PathLike[str], line: int | None, record: Mapping[str, Any], fields: Iterable[str]
) -> None:
    """Raise ``FILE:LINE: missing field 'a'`` (or ``missing fields 'a', 'b'``, in the order of ``fields``) when
    ``record`` lacks any of ``fields``."""
    missing = [name for name in fields if name not in record]
    if missing:
        names = ", ".join(repr(name) for name in missing)
        raise InputFormatError(path, line, f"missing field{'s' if len(missing) > 1 else ''} {names}")


def iter_json_objects(
    path: str | os.PathLike[str], required: Iterable[str] = ()
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line of a JSON Lines file whose lines must each be a JSON
    object holding the ``required`` fields.

    Every way a line can be bad is one :class:`InputFormatError` ``FILE:LINE: problem``: the errors of
    :func:`iter_jsonl`, a value that is not an object (:func:`json_object`) and a missing field
    (:func:`require_fields`).
    """
    fields = tuple(required)
    for line_number, value in iter_jsonl(path):
        record = json_object(path, line_number, value)
        require_fields(path, line_number, record, fields)
        yield line_number, record


def iter_parquet(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(row number, record)`` of a parquet file (rows numbered from 1); a file that is not parquet, is cut
    short or damaged is an :class:`InputFormatError`."""
    try:
        import pyarrow  # optional library, imported when used
        import pyarrow.parquet as parquet  # optional library, imported when used
    except ImportError:
        raise NegkitError(f"{path}: reading parquet needs pyarrow (pip install 'negkit[hub]')") from None
    if not Path(path).is_file():
        read_bytes(path, "parquet file")  # raises the right error for a missing file or a folder
    try:
        rows = parquet.read_table(path).to_pylist()
    except (pyarrow.ArrowException, OSError, ValueError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        first = first.replace(f"'{path}'", "").replace(str(path), "FILE")
        raise InputFormatError(path, None, f"not a readable parquet file ({first[:200]})") from None
    yield from enumerate(rows, start=1)


def iter_csv(path: str | os.PathLike[str], delimiter: str = ",") -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of every row of a CSV file, the header row included (line numbers of the file,
    so a quoted field spanning lines is numbered by its last line); bad bytes or a malformed row (an unclosed
    quote, a field over the csv module's size limit) are an :class:`InputFormatError` naming the line."""
    text = read_text(path, "CSV file")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise InputFormatError(path, reader.line_num, f"malformed CSV ({error})") from None
        yield reader.line_num, fields
