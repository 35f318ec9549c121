"""NLI benchmark readers: NaN-NLI (Truong et al., 2022) and ScoNe-NLI (She et al., 2023).

Both return :class:`NLIItem` objects. Labels are always one of :data:`NLI_LABELS`. Any malformed row
raises :class:`~negkit.errors.InputFormatError` naming the file, the line and the offending column.

NaN-NLI (``nan.csv``): one row per premise/hypothesis pair; the ``P-*``/``H-*`` columns flag the negation
types of premise and hypothesis (the ``H-*`` flags are blank when the hypothesis has no negation), then
``Construction``, ``Construction Subtype``, ten operation columns (how many times the operation was applied:
0, 1, or 2 in six ``Negator addition or deletion`` cells) and ``Quantification`` (membership of the NaN-Quant subset). Columns named
``Unnamed: N`` are empty spreadsheet artefacts and are ignored.

ScoNe-NLI (``scone_nli/{train,test}/CONDITION.csv``): the condition's premise, hypothesis and label are the
``sentence1_edited``, ``sentence2_edited``, ``gold_label_edited`` columns, except ``one_scoped.csv`` which uses
``sentence1``, ``sentence2``, ``gold_label`` and has no ``group_index``. Rows line up across the six files of a
split (row ``i`` of every condition is the same base pair), so every item records its row number.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import iter_csv

#: The three NLI labels, in the order negkit reports them.
NLI_LABELS: tuple[str, str, str] = ("contradiction", "entailment", "neutral")

#: Negation-type flags of NaN-NLI, as named after the ``P-``/``H-`` prefix.
NEGATION_TYPES: tuple[str, ...] = (
    "Verbal",
    "Non-verbal",
    "Analytic",
    "Synthetic",
    "Clausal",
    "Sub-clausal",
    "Ordinary",
    "Meta-linguistic",
)

#: The ten operation columns of NaN-NLI.
NAN_OPERATIONS: tuple[str, ...] = (
    "Indefinite quantifier change",
    "Negator addition or deletion",
    "Negator position change",
    "Clause or sub-clause deletion",
    "Negator token change",
    "Comparative quantifier change",
    "Focus particle change",
    "Lexical change",
    "Numerical quantifier change",
    "Syntactical changes",
)

#: The six ScoNe-NLI conditions, in the paper's order.
SCONE_CONDITIONS: tuple[str, ...] = (
    "no_negation",
    "one_not_scoped",
    "one_scoped",
    "one_scoped_one_not_scoped",
    "two_not_scoped",
    "two_scoped",
)

_SCONE_EDITED_COLUMNS = ("sentence1_edited", "sentence2_edited", "gold_label_edited")
_SCONE_PLAIN_COLUMNS = ("sentence1", "sentence2", "gold_label")


@dataclass(frozen=True)
class NLIItem:
    """One premise/hypothesis pair with its gold label and the annotations its benchmark provides.

    ``premise_negation`` and ``hypothesis_negation`` hold the NaN-NLI negation-type flags that are set
    (e.g. ``{"Non-verbal", "Analytic"}``); ``hypothesis_negation`` is empty when the hypothesis has no
    negation. ``operations`` lists the NaN-NLI operations applied to make the hypothesis and
    ``operation_counts`` how many times each was applied (the cell value, 1 or 2). ``condition``, ``row`` and
    ``group_index`` are ScoNe's.
    """

    item_id: str
    premise: str
    hypothesis: str
    label: str
    suite: str
    premise_id: str = ""
    premise_negation: frozenset[str] = field(default_factory=frozenset)
    hypothesis_negation: frozenset[str] = field(default_factory=frozenset)
    construction: str = ""
    construction_subtype: str = ""
    operations: tuple[str, ...] = ()
    quantification: bool = False
    condition: str = ""
    row: int = -1
    group_index: int | None = None
    operation_counts: tuple[tuple[str, int], ...] = ()

    def operation_count(self, operation: str) -> int:
        """How many times ``operation`` was applied (the cell value; 1 for a listed operation without counts)."""
        for name, count in self.operation_counts:
            if name == operation:
                return count
        return 1 if operation in self.operations and not self.operation_counts else 0


def _csv_rows(path: Path) -> Iterator[tuple[int, Mapping[str, str], list[str]]]:
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


def _require_columns(path: Path, header: list[str], columns: tuple[str, ...] | list[str]) -> None:
    missing = [column for column in columns if column not in header]
    if missing:
        raise InputFormatError(path, 1, f"missing column(s): {', '.join(missing)}")


def _label(path: Path, line: int, column: str, value: str) -> str:
    label = value.strip().lower()
    if label not in NLI_LABELS:
        raise InputFormatError(path, line, f"column {column!r}: unknown label {quoted(value)} (expected one of {NLI_LABELS})")
    return label


def _count(path: Path, line: int, column: str, value: str, blank_allowed: bool) -> int:
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


def _flag(path: Path, line: int, column: str, value: str, blank_allowed: bool) -> bool:
    """Parse a 0/1 flag (counts above 1 are accepted as set); blank is False when allowed."""
    return _count(path, line, column, value, blank_allowed) > 0


def read_nan_nli(path: str | Path) -> list[NLIItem]:
    """Read NaN-NLI's ``nan.csv``. Item ids are ``nan-NNN`` (0-based row), premise ids ``nan-pNN``."""
    path = Path(path)
    items: list[NLIItem] = []
    premise_ids: dict[str, str] = {}
    columns = ["premise", "hypothesis", "label", "Construction", "Construction Subtype", "Quantification"]
    columns += [f"{side}-{kind}" for side in "PH" for kind in NEGATION_TYPES] + list(NAN_OPERATIONS)
    for line, row, header in _csv_rows(path):
        if not items:
            _require_columns(path, header, columns)
        premise, hypothesis = row["premise"].strip(), row["hypothesis"].strip()
        if not premise or not hypothesis:
            raise InputFormatError(path, line, "empty premise or hypothesis")
        premise_id = premise_ids.setdefault(premise, f"nan-p{len(premise_ids):02d}")
        premise_types = frozenset(
            kind for kind in NEGATION_TYPES if _flag(path, line, f"P-{kind}", row[f"P-{kind}"], blank_allowed=False)
        )
        hypothesis_types = frozenset(
            kind for kind in NEGATION_TYPES if _flag(path, line, f"H-{kind}", row[f"H-{kind}"], blank_allowed=True)
        )
        counts = tuple((op, _count(path, line, op, row[op], blank_allowed=False)) for op in NAN_OPERATIONS)
        operation_counts = tuple((op, count) for op, count in counts if count)
        items.append(
            NLIItem(
                item_id=f"nan-{len(items):03d}",
                premise=premise,
                hypothesis=hypothesis,
                label=_label(path, line, "label", row["label"]),
                suite="nan-nli",
                premise_id=premise_id,
                premise_negation=premise_types,
                hypothesis_negation=hypothesis_types,
                construction=row["Construction"].strip(),
                construction_subtype=row["Construction Subtype"].strip(),
                operations=tuple(op for op, _ in operation_counts),
                operation_counts=operation_counts,
                quantification=_flag(path, line, "Quantification", row["Quantification"], blank_allowed=False),
            )
        )
    if not items:
        raise InputFormatError(path, None, "no data rows")
    return items


def read_scone_condition(path: str | Path, condition: str | None = None, split: str = "test") -> list[NLIItem]:
    """Read one ScoNe-NLI condition file. Item ids are ``scone-SPLIT-CONDITION-ROW``."""
    path = Path(path)
    condition = condition or path.stem
    if condition not in SCONE_CONDITIONS:
        raise InputFormatError(path, None, f"unknown ScoNe condition {condition!r} (expected one of {SCONE_CONDITIONS})")
    columns = _SCONE_PLAIN_COLUMNS if condition == "one_scoped" else _SCONE_EDITED_COLUMNS
    premise_column, hypothesis_column, label_column = columns
    items: list[NLIItem] = []
    for line, row, header in _csv_rows(path):
        if not items:
            _require_columns(path, header, columns)
        group_text = row.get("group_index", "").strip()
        try:
            group_index = int(group_text) if group_text else None
        except ValueError:
            raise InputFormatError(path, line, f"column 'group_index': {quoted(group_text)} is not an integer") from None
        premise, hypothesis = row[premise_column].strip(), row[hypothesis_column].strip()
        if not premise or not hypothesis:
            raise InputFormatError(path, line, f"empty {premise_column!r} or {hypothesis_column!r}")
        row_number = len(items)
        items.append(
            NLIItem(
                item_id=f"scone-{split}-{condition}-{row_number:04d}",
                premise=premise,
                hypothesis=hypothesis,
                label=_label(path, line, label_column, row[label_column]),
                suite="scone",
                premise_id=f"scone-{split}-{row_number:04d}",
                condition=condition,
                row=row_number,
                group_index=group_index,
            )
        )
    return items


def scone_split_folder(folder: str | Path, split: str = "test") -> Path:
    """The folder holding the six condition files of ``split`` (``scone_nli/SPLIT``, ``SPLIT`` or ``folder``)."""
    folder = Path(folder)
    split_folder = next(
        (candidate for candidate in (folder / "scone_nli" / split, folder / split, folder) if (candidate / "no_negation.csv").is_file()),
        None,
    )
    if split_folder is None:
        raise InputFormatError(folder, None, f"no ScoNe-NLI {split!r} split found (expected scone_nli/{split}/no_negation.csv)")
    return split_folder


def read_scone(folder: str | Path, split: str = "test") -> list[NLIItem]:
    """Read every ScoNe-NLI condition of ``split`` from ``folder`` (the ``scone`` or ``scone_nli`` folder).

    ``one_scoped.csv`` has no ``group_index``; its items take the group index of the same row in the
    other conditions (rows line up across the six files). Files must all have the same number of rows.
    """
    split_folder = scone_split_folder(folder, split)
    per_condition = {c: read_scone_condition(split_folder / f"{c}.csv", c, split) for c in SCONE_CONDITIONS}
    sizes = {condition: len(items) for condition, items in per_condition.items()}
    if len(set(sizes.values())) != 1:
        raise InputFormatError(split_folder, None, f"conditions have different row counts: {sizes}")
    reference = per_condition["no_negation"]
    per_condition["one_scoped"] = [
        _with_group(item, reference[item.row].group_index) for item in per_condition["one_scoped"]
    ]
    return [item for condition in SCONE_CONDITIONS for item in per_condition[condition]]


def _with_group(item: NLIItem, group_index: int | None) -> NLIItem:
    return replace(item, group_index=group_index) if item.group_index is None else item
