"""NegNLI: the NLI pairs with negation of Hossain et al. (2020), from MNLI, SNLI (3-way) and RTE (2-way).

Each file (``MNLI.txt``, ``SNLI.txt``, ``RTE.txt``) is tab-separated with the header ``index, Text, Hypothesis,
gold_label`` and one pair per line, no quoting. The released files are Windows-1252 text with CRLF line ends (a
few accented letters and curly quotes); negkit reads UTF-8 when the bytes are UTF-8 and Windows-1252 otherwise.
Labels: ``contradiction`` / ``entailment`` / ``neutral`` (MNLI, SNLI), ``entailment`` / ``not_entailment`` (RTE).

The rows come in threes made from one original pair: negation added to the premise (row ``3k``), to the
hypothesis (``3k + 1``), to both (``3k + 2``); the reader checks that a triple shares its texts that way
(premise of ``3k`` = premise of ``3k + 2``, hypothesis of ``3k + 1`` = hypothesis of ``3k + 2``) and then gives
its three items the same ``premise_id`` (the unit intervals resample) and ``condition`` (``premise``,
``hypothesis``, ``both``: where negation was added). Rows outside such a triple are units of their own.

A line is read against the declared row type :class:`NegNLIRow` (:class:`RTERow` for RTE's labels;
:func:`negkit.kit.data.rows.validate_rows`); the reader keeps what is the file's: the encoding, the header, one cell
per column, an index given once. Malformed lines raise :class:`~negkit.errors.InputFormatError` naming the file and
the line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator, field_validator, model_validator

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import read_bytes
from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.kit.data.rows import DataRow, validate_rows

HEADER = ("index", "Text", "Hypothesis", "gold_label")
#: Where negation was added, by the row's place in its triple.
TRIPLE_CONDITIONS: tuple[str, str, str] = ("premise", "hypothesis", "both")


def _decode(path: Path, data: bytes) -> str:
    """UTF-8 when the bytes are UTF-8, else Windows-1252 (the released files); a byte neither reads names its line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            raise InputFormatError(
                path, line, f"neither UTF-8 nor Windows-1252 text: byte {data[error.start : error.start + 1]!r}"
            ) from None
    return text[1:] if text.startswith("\ufeff") else text


def _whole_number(value: Any) -> Any:
    """A cell of digits as its number (``"007"``: 7); anything else is not a whole number."""
    if isinstance(value, str):
        if not value.isdigit():
            raise ValueError(f"{quoted(value, 40)} is not a whole number")
        try:
            return int(value)
        except ValueError:
            raise ValueError(f"{quoted(value, 40)} is not a whole number") from None
    return value


class NegNLIRow(DataRow):
    """One line of a NegNLI file (cells stripped): a whole-number ``index``, a non-blank premise (``Text``) and
    ``Hypothesis``, and a ``gold_label`` among :attr:`LABELS` (any case; kept lower-cased)."""

    LABELS: ClassVar[tuple[str, ...]] = NLI_LABELS

    index: Annotated[int, BeforeValidator(_whole_number)]
    Text: str
    Hypothesis: str
    gold_label: str

    @field_validator("gold_label")
    @classmethod
    def _known_label(cls, label: str) -> str:
        if label.lower() not in cls.LABELS:
            raise ValueError(f"unknown label {quoted(label, 40)} (expected one of {', '.join(cls.LABELS)})")
        return label.lower()

    @model_validator(mode="after")
    def _texts(self) -> NegNLIRow:
        if not self.Text or not self.Hypothesis:
            raise ValueError("empty 'Text' (premise) or 'Hypothesis'")
        return self


class RTERow(NegNLIRow):
    """A line of ``RTE.txt``: two-way labels."""

    LABELS: ClassVar[tuple[str, ...]] = ("entailment", "not_entailment")


#: Task suffix -> (file name, the labels of that file, in the order negkit reports them).
NEGNLI_SOURCES: dict[str, tuple[str, tuple[str, ...]]] = {
    "mnli": ("MNLI.txt", NegNLIRow.LABELS),
    "snli": ("SNLI.txt", NegNLIRow.LABELS),
    "rte": ("RTE.txt", RTERow.LABELS),
}
#: Task suffix -> the row type of its file.
ROW_TYPES: dict[str, type[NegNLIRow]] = {"mnli": NegNLIRow, "snli": NegNLIRow, "rte": RTERow}


def _cells(path: Path, lines: list[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """``(line, {column: stripped cell})`` for the data lines after the header (blank lines skipped); a line without
    one cell per column is an error."""
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        fields = text.split("\t")
        if len(fields) != len(HEADER):
            raise InputFormatError(path, number, f"expected {len(HEADER)} tab-separated fields, found {len(fields)}")
        yield number, {name: field.strip() for name, field in zip(HEADER, fields)}


def read_negnli(path: str | Path, source: str | None = None) -> list[NLIItem]:
    """Read one NegNLI file; ``source`` (``mnli``, ``snli``, ``rte``) defaults to the file's stem. Item ids are
    ``negnli-SOURCE-INDEX`` (the file's ``index`` column), the suite ``negnli-SOURCE``."""
    path = Path(path)
    source = (source or path.stem).lower()
    if source not in NEGNLI_SOURCES:
        raise InputFormatError(
            path, None, f"unknown NegNLI source {source!r} (expected one of {', '.join(NEGNLI_SOURCES)})"
        )
    row_type = ROW_TYPES[source]
    lines = _decode(path, read_bytes(path, "NegNLI file")).splitlines()
    if not lines or tuple(field.strip() for field in lines[0].split("\t")) != HEADER:
        raise InputFormatError(path, 1, f"expected the header {' / '.join(HEADER)} (tab-separated)")
    items: list[NLIItem] = []
    seen: set[int] = set()
    for number, row in validate_rows(_cells(path, lines), row_type, path, cells=True):
        if row.index in seen:
            raise InputFormatError(path, number, f"index {row.index} appears twice")
        seen.add(row.index)
        items.append(
            NLIItem(
                item_id=f"negnli-{source}-{row.index}",
                premise=row.Text,
                hypothesis=row.Hypothesis,
                label=row.gold_label,
                suite=f"negnli-{source}",
                row=row.index,
            )
        )
    if not items:
        raise InputFormatError(path, None, "no pairs")
    return _with_triples(items, source)


def _with_triples(items: list[NLIItem], source: str) -> list[NLIItem]:
    """Give the three items of each original pair one ``premise_id`` and their ``condition`` (see the module doc)."""
    result: list[NLIItem] = []
    position = 0
    while position < len(items):
        triple = items[position : position + 3]
        if len(triple) == 3 and triple[0].premise == triple[2].premise and triple[1].hypothesis == triple[2].hypothesis:
            unit = f"negnli-{source}-t{triple[0].row}"
            result += [
                replace(item, premise_id=unit, condition=condition)
                for item, condition in zip(triple, TRIPLE_CONDITIONS)
            ]
            position += 3
        else:
            result.append(replace(items[position], premise_id=items[position].item_id))
            position += 1
    return result
