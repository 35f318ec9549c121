"""NLI items and the CSV helpers their readers share.

:class:`NLIItem` is a premise/hypothesis pair with its gold label; a benchmark with more annotations subclasses it.
The helpers read a CSV file row by row with clear errors: every malformed row raises
:class:`~negkit.errors.InputFormatError` naming the file, the line and the offending column.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import iter_csv

#: The three NLI labels, in the order negkit reports them.
NLI_LABELS: tuple[str, str, str] = ("contradiction", "entailment", "neutral")
#: One of them, as a field of a declared row type (:mod:`negkit.kit.data.rows`).
NLILabel = Literal["contradiction", "entailment", "neutral"]


@dataclass(frozen=True)
class NLIItem:
    """One premise/hypothesis pair with its gold label (one of :data:`NLI_LABELS`, or a benchmark's own labels).

    ``premise_id`` groups the pairs that share a premise (a benchmark's resampling unit where it sets one);
    ``condition`` names the variant a pair belongs to when a benchmark builds several from one base pair, and
    ``row`` is the base pair's row (-1: none). A benchmark with more annotations subclasses this type.
    """

    item_id: str
    premise: str
    hypothesis: str
    label: str
    suite: str
    premise_id: str = ""
    condition: str = ""
    row: int = -1


def csv_rows(path: Path) -> Iterator[tuple[int, Mapping[str, str], list[str]]]:
    """Yield ``(line_number, row, header)`` for each data row; line numbers are those of the file."""
    if not path.is_file():
        raise InputFormatError(path, None, "no such file" if not path.exists() else "not a file")
    rows = iter_csv(path)
    first = next(rows, None)
    if first is None:
        raise InputFormatError(path, 1, "empty file (expected a CSV header)")
    header = first[1]
    for line, values in rows:
        if not any(value.strip() for value in values):
            continue
        if len(values) != len(header):
            raise InputFormatError(path, line, f"expected {len(header)} columns, found {len(values)}")
        yield line, dict(zip(header, values)), header


def require_columns(path: Path, header: list[str], columns: tuple[str, ...] | list[str]) -> None:
    missing = [column for column in columns if column not in header]
    if missing:
        raise InputFormatError(path, 1, f"missing column(s): {', '.join(missing)}")


def nli_label(path: Path, line: int, column: str, value: str) -> str:
    label = value.strip().lower()
    if label not in NLI_LABELS:
        raise InputFormatError(
            path, line, f"column {column!r}: unknown label {quoted(value)} (expected one of {NLI_LABELS})"
        )
    return label


def count_cell(path: Path, line: int, column: str, value: str, blank_allowed: bool) -> int:
    """Parse a non-negative count (``1.0`` is accepted); blank is 0 when allowed."""
    text = value.strip()
    if not text:
        if blank_allowed:
            return 0
        raise InputFormatError(path, line, f"column {column!r}: empty value (expected 0 or 1)")
    try:
        number = float(text)
    except ValueError:
        raise InputFormatError(path, line, f"column {column!r}: {quoted(value)} is not a number") from None
    if number < 0 or number != int(number):
        raise InputFormatError(path, line, f"column {column!r}: {quoted(value)} is not a non-negative count")
    return int(number)


def flag_cell(path: Path, line: int, column: str, value: str, blank_allowed: bool) -> bool:
    """Parse a 0/1 flag (counts above 1 are accepted as set); blank is False when allowed."""
    return count_cell(path, line, column, value, blank_allowed) > 0


#: SICK's columns (the SemEval-2014 release): the pair, its relatedness and its 3-way judgement.
SICK_COLUMNS: tuple[str, ...] = ("pair_ID", "sentence_A", "sentence_B", "entailment_judgment")


def read_sick(path: str | Path) -> list[NLIItem]:
    """SICK's tab-separated pairs (``pair_ID, sentence_A, sentence_B, relatedness_score, entailment_judgment``) as
    NLI items (``premise_id``: sentence A, which several pairs share with different labels). Training data only:
    SICK is not a negation benchmark of negkit's."""
    path = Path(path)
    rows = iter_csv(path, delimiter="\t")
    first = next(rows, None)
    if first is None:
        raise InputFormatError(path, 1, "empty file (expected a header naming pair_ID, sentence_A, ...)")
    header = first[1]
    require_columns(path, header, SICK_COLUMNS)
    column = {name: header.index(name) for name in SICK_COLUMNS}
    items = []
    for line, fields in rows:
        if len(fields) < len(header):
            raise InputFormatError(path, line, f"{len(fields)} fields, expected {len(header)}")
        premise = fields[column["sentence_A"]].strip()
        items.append(
            NLIItem(
                item_id=f"sick-{fields[column['pair_ID']].strip()}",
                premise=premise,
                hypothesis=fields[column["sentence_B"]].strip(),
                label=nli_label(path, line, "entailment_judgment", fields[column["entailment_judgment"]]),
                suite="sick",
                premise_id=premise,
            )
        )
    if not items:
        raise InputFormatError(path, None, "no pairs")
    return items
