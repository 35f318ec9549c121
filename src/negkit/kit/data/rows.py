"""Declared row types: a benchmark states what one row of its data file is as a pydantic model, and
:func:`read_rows` reads the file against it.

A row type subclasses :class:`DataRow` and names its fields with their types: ``Literal`` for the allowed labels,
:data:`Text` for a non-blank string, :data:`Choices` for the answers of a question, ``Annotated[int,
index_of("choices")]`` for the index of one of them, :data:`Strings` for a list of strings, any pydantic type or
constraint otherwise. Fields the file has and the row does not name are ignored.

:func:`read_rows` reads JSON Lines (``.jsonl``; a ``.json`` file holding one object per line is read the same way),
JSON (``.json``: an array of objects, or an object holding one), CSV (``.csv``) and TSV (``.tsv``), the format from
the name unless given; JSON values must have the declared types as they are, while CSV and TSV cells (text) are
converted (``"2"`` for an ``int``). Every way a row can be bad is one :class:`~negkit.errors.InputFormatError`
``FILE:LINE: field 'label': expected 'yes' or 'no', found 'maybe'`` (``column`` in CSV and TSV), naming the first
problem of the row with the offending value quoted; a file without rows is ``FILE: no items`` (unless allowed).
:func:`rows_reader` makes a benchmark's reader from a file name, a row type and a function from a row to an item;
:func:`validate_rows` reads records that come from elsewhere (a parquet file, a hub data set) against a row type.
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Generic, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import iter_csv, iter_json_objects, iter_lines, json_kind, read_text
from negkit.kit.validation import validation_problem

#: Formats :func:`read_rows` reads, and the file name endings that select them (a ``.gz`` ending is dropped first).
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".tsv": "tsv"}


class DataRow(BaseModel):
    """The base of a declared row type (fields the file has and the row does not name are ignored)."""

    model_config = ConfigDict(extra="ignore", frozen=True)


R = TypeVar("R", bound=BaseModel)
T = TypeVar("T")


def _text(value: Any) -> Any:
    if isinstance(value, str) and not value.strip():
        raise ValueError(f"expected a non-empty text, found {quoted(value)}")
    return value


def _list_literal(value: Any) -> Any:
    """A CSV or TSV cell's list literal, JSON or Python (``["a", "b"]``, ``['a', 'b']``), as a list."""
    if not isinstance(value, str):
        return value
    try:
        return ast.literal_eval(value.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ValueError(f"{quoted(value, 40)} is not a list literal") from None


def _strings(value: Any) -> Any:
    parsed = _list_literal(value)
    return tuple(parsed) if isinstance(parsed, list) else parsed


def _choices(value: Any) -> tuple[str, ...]:
    parsed = _list_literal(value)
    if not isinstance(parsed, (list, tuple)) or len(parsed) < 2 or not all(isinstance(v, str) and v for v in parsed):
        raise ValueError(f"expected a list of at least two non-empty strings, found {quoted(value, 40)}")
    if len(set(parsed)) != len(parsed):
        raise ValueError(f"{quoted(value, 40)} repeats a choice")
    return tuple(parsed)


#: A string that is not empty or blank, kept as written.
Text = Annotated[str, BeforeValidator(_text)]
#: The answers of a question: at least two distinct non-empty strings (in a CSV or TSV cell, a list literal).
Choices = Annotated[tuple[str, ...], BeforeValidator(_choices)]
#: A list of strings (in a CSV or TSV cell, a list literal); ``Annotated[Strings, Field(min_length=1)]`` for a
#: non-empty one.
Strings = Annotated[tuple[str, ...], BeforeValidator(_strings)]


def index_of(field: str) -> WrapValidator:
    """``Annotated[int, index_of("choices")]``: the 0-based index of one of the items of the row's ``field`` (a
    field declared before this one)."""

    def check(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> int:
        index = handler(value)
        options = info.data.get(field)
        if options is not None and not 0 <= index < len(options):
            raise ValueError(f"{quoted(value, 20)} is not the index of one of the {len(options)} {field}")
        return int(index)

    return WrapValidator(check)


def read_rows(
    path: str | os.PathLike[str],
    row_type: type[R],
    format: str | None = None,
    key: str | None = None,
    allow_empty: bool = False,
) -> Iterator[tuple[int, R]]:
    """``(line, row)`` for every row of a data file read against ``row_type`` (see the module documentation).

    ``format`` (``jsonl``, ``json``, ``csv``, ``tsv``; default: from the file name) overrides the name; ``key``
    names the list of rows in a JSON object (default: its only list of objects); ``allow_empty``: a file without
    rows is no error. Lines are 1-based: a JSON row's is the line
    where its object starts, a CSV row's the line where it ends."""
    kind = format or _format_of(path)
    empty = True
    for line, row in validate_rows(_records(path, kind, key, row_type), row_type, path, kind in ("csv", "tsv")):
        empty = False
        yield line, row
    if empty and not allow_empty:
        raise InputFormatError(path, None, "no items")


def validate_rows(
    records: Iterable[tuple[int, Any]], row_type: type[R], source: str | os.PathLike[str], cells: bool = False
) -> Iterator[tuple[int, R]]:
    """``(line, row)`` for ``(line, record)`` pairs read elsewhere (a parquet file, a hub data set), each read
    against ``row_type`` as :func:`read_rows` reads a file's: a bad record is one error naming ``source`` and the
    line. ``cells``: the values are a table's text cells (converted; ``column`` in the errors), else typed values
    (taken as they are; ``field``)."""
    noun = "column" if cells else "field"
    for line, record in records:
        try:
            row = row_type.model_validate(record, strict=not cells)
        except ValidationError as error:
            raise InputFormatError(source, line, validation_problem(error, record, noun)) from None
        yield line, row


@dataclass(frozen=True)
class RowsReader(Generic[R, T]):
    """A benchmark's reader made by :func:`rows_reader`: called with the data set folder (or the file itself) and a
    split, it gives the items of ``file``; ``files(folder, split)`` names the file it reads."""

    file: str
    row_type: type[R]
    to_item: Callable[[R], T]
    format: str | None = None

    def __call__(self, path: str | os.PathLike[str], split: str = "test") -> list[T]:
        return [self.to_item(row) for _, row in read_rows(data_file(path, self.file), self.row_type, self.format)]

    def files(self, folder: Path, split: str) -> list[Path]:
        return [Path(folder) / self.file]


def rows_reader(file: str, row_type: type[R], to_item: Callable[[R], T], format: str | None = None) -> RowsReader[R, T]:
    """The reader of a benchmark whose items are the rows of one file (``file`` in the data set folder): each row,
    read against ``row_type`` (:func:`read_rows`), becomes ``to_item(row)``."""
    return RowsReader(file, row_type, to_item, format)


def _records(
    path: str | os.PathLike[str], kind: str, key: str | None, row_type: type[BaseModel]
) -> Iterator[tuple[int, Any]]:
    """The records of the file, each with its line, before they are read against ``row_type``."""
    required = [field.alias or name for name, field in row_type.model_fields.items() if field.is_required()]
    if kind == "jsonl":
        return iter_json_objects(path)
    if kind == "json":
        return _json_records(path, key)
    if kind == "csv":
        return _header_rows(path, iter_csv(path), required)
    if kind == "tsv":
        lines = ((line, text.rstrip("\r\n").split("\t")) for line, text in iter_lines(path, "TSV file"))
        return _header_rows(path, lines, required)
    raise ValueError(f"unknown format {kind!r} (expected one of jsonl, json, csv, tsv)")


def data_file(path: str | os.PathLike[str], file: str) -> Path:
    """``path`` when it is a file, else the ``file`` in the folder ``path``."""
    return Path(path) / file if Path(path).is_dir() else Path(path)


def _format_of(path: str | os.PathLike[str]) -> str:
    if os.path.isdir(path):
        raise InputFormatError(path, None, "is a folder, expected a data file")
    name = str(path).lower().removesuffix(".gz")
    for ending, kind in FORMATS.items():
        if name.endswith(ending):
            return kind
    raise InputFormatError(path, None, f"cannot tell the format from the name (expected {', '.join(FORMATS)})")


def _header_rows(
    path: str | os.PathLike[str], rows: Iterator[tuple[int, list[str]]], required: list[str]
) -> Iterator[tuple[int, dict[str, str]]]:
    """The data rows of a CSV or TSV file as ``{column: cell}``, under the first row's names (blank rows skipped);
    a header without a ``required`` column is an error on its line."""
    first = next(rows, None)
    if first is None:
        return
    header = [name.strip() for name in first[1]]
    missing = [name for name in required if name not in header]
    if missing:
        raise InputFormatError(path, first[0], f"missing column(s): {', '.join(missing)}")
    for line, values in rows:
        if not any(value.strip() for value in values):
            continue
        if len(values) != len(header):
            raise InputFormatError(path, line, f"expected {len(header)} columns, found {len(values)}")
        yield line, dict(zip(header, values))


_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _skip(text: str, position: int) -> int:
    """The position of the first character at or after ``position`` that is not JSON white space."""
    match = _SPACE.match(text, position)
    return match.end() if match else position


def _json_records(path: str | os.PathLike[str], key: str | None) -> Iterator[tuple[int, Any]]:
    """The objects of a JSON array (or of the list ``key`` of a JSON object, by default its only non-empty list of
    objects), each with the line where it starts; a ``.json`` file of one object per line is read as JSON Lines."""
    text = read_text(path, "JSON file")
    if not text.strip():
        return
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        if error.msg == "Extra data" and key is None:
            yield from iter_json_objects(path)
            return
        raise InputFormatError(path, error.lineno, f"not valid JSON ({error.msg}, column {error.colno})") from None
    except RecursionError:
        raise InputFormatError(path, None, "JSON nested too deeply") from None
    if isinstance(document, dict):
        lists = [name for name, value in document.items() if _objects(value)]
        if key is None and not lists:  # one row on one line: JSON Lines
            yield from iter_json_objects(path)
            return
        name = key if key is not None else lists[0] if len(lists) == 1 else None
        if name is None or not isinstance(document.get(name), list):
            wanted = f"a list {key!r}" if key else "one list of objects"
            raise InputFormatError(path, None, f"expected an object holding {wanted}, found keys {sorted(document)}")
        start = _value_start(text, name)
    elif isinstance(document, list) and key is None:
        start = _skip(text, 0)
    else:
        raise InputFormatError(
            path, None, f"expected an array of objects or an object holding one, found {json_kind(document)}"
        )
    yield from _array_items(path, text, start)


def _objects(value: Any) -> bool:
    """Whether ``value`` is a non-empty list of JSON objects (rows, not a row's list of strings)."""
    return isinstance(value, list) and bool(value) and all(isinstance(item, dict) for item in value)


def _value_start(text: str, name: str) -> int:
    """Where the value of the top-level object's (last) key ``name`` starts in a valid JSON text."""
    position, found = _skip(text, 0) + 1, 0
    while text[position := _skip(text, position)] != "}":
        key, position = _DECODER.raw_decode(text, position)
        position = _skip(text, position) + 1  # past the colon
        position = _skip(text, position)
        found = position if key == name else found
        position = _skip(text, _DECODER.raw_decode(text, position)[1])
        position += text[position] == ","
    return found


def _array_items(path: str | os.PathLike[str], text: str, start: int) -> Iterator[tuple[int, Any]]:
    """Each element of the valid JSON array starting at ``start``, with the 1-based line where it starts; an element
    that is not an object is an error."""
    position, line, counted = start + 1, 1, 0
    while text[position := _skip(text, position)] != "]":
        line, counted = line + text.count("\n", counted, position), position
        value, position = _DECODER.raw_decode(text, position)
        if not isinstance(value, dict):
            raise InputFormatError(path, line, f"expected a JSON object, found {json_kind(value)}")
        yield line, value
        position = _skip(text, position)
        position += text[position] == ","
