"""ScoNe-NLI (She et al., 2023): the reader of ``scone_nli/{train,test}/CONDITION.csv``.

The condition's premise, hypothesis and label are the ``sentence1_edited``, ``sentence2_edited``,
``gold_label_edited`` columns, except ``one_scoped.csv`` which uses ``sentence1``, ``sentence2``, ``gold_label``
and has no ``group_index``. Rows line up across the six files of a split (row ``i`` of every condition is the same
base pair), so every item records its row number. Any malformed row raises
:class:`~negkit.errors.InputFormatError` naming the file, the line and the offending column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict

from negkit.errors import InputFormatError, NegkitError
from negkit.kit.data.nli import NLIItem, NLILabel
from negkit.kit.data.rows import DataRow, Text, read_rows

#: The six ScoNe-NLI conditions, in the paper's order.
SCONE_CONDITIONS: tuple[str, ...] = (
    "no_negation",
    "one_not_scoped",
    "one_scoped",
    "one_scoped_one_not_scoped",
    "two_not_scoped",
    "two_scoped",
)


#: The five conditions of the tasksource layout of ScoNe (``tasksource/scone`` on the Hugging Face hub: train
#: 5,010 = 5 x 1,002 and test 1,000 = 5 x 200 rows), which Thunder-NUBench's Table 16 used: it maps every row
#: through ``sentence1_edited``, ``sentence2_edited``, ``gold_label_edited``, the columns ``one_scoped.csv`` (the
#: NMoNLI pairs) does not have, so that condition is not in it (docs/suites.md, "ScoNe conditions").
TASKSOURCE_CONDITIONS: tuple[str, ...] = tuple(c for c in SCONE_CONDITIONS if c != "one_scoped")
#: Named condition sets for :func:`parse_conditions`.
CONDITION_SETS: dict[str, tuple[str, ...]] = {"all": SCONE_CONDITIONS, "tasksource": TASKSOURCE_CONDITIONS}


def parse_conditions(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """The conditions named by ``text``: ``all`` (or None), ``tasksource`` (the five of the tasksource layout), or
    condition names separated by commas; returned in the paper's order. An unknown name is an error."""
    if text is None:
        return SCONE_CONDITIONS
    names = [part.strip() for part in text.split(",")] if isinstance(text, str) else [str(part) for part in text]
    names = [name for name in names if name]
    if len(names) == 1 and names[0] in CONDITION_SETS:
        return CONDITION_SETS[names[0]]
    unknown = [name for name in names if name not in SCONE_CONDITIONS]
    if unknown or not names:
        raise NegkitError(
            f"unknown ScoNe condition {', '.join(unknown) or '(none given)'}; give {' or '.join(CONDITION_SETS)}, "
            f"or conditions separated by commas from: {', '.join(SCONE_CONDITIONS)}"
        )
    return tuple(condition for condition in SCONE_CONDITIONS if condition in names)


def _blank_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


#: An NLI label in any case.
Label = Annotated[NLILabel, BeforeValidator(lambda label: label.strip().lower() if isinstance(label, str) else label)]


class Pair(DataRow):
    """A row of a ScoNe-NLI condition file (texts stripped; ``group_index`` may be blank)."""

    model_config = ConfigDict(str_strip_whitespace=True)

    group_index: Annotated[int | None, BeforeValidator(_blank_none)] = None

    def nli(self) -> tuple[str, str, str]:
        """The condition's premise, hypothesis and label."""
        raise NotImplementedError


class EditedPair(Pair):
    """A row of the conditions read from the edited columns."""

    sentence1_edited: Text
    sentence2_edited: Text
    gold_label_edited: Label

    def nli(self) -> tuple[str, str, str]:
        return self.sentence1_edited, self.sentence2_edited, self.gold_label_edited


class ScopedPair(Pair):
    """A row of ``one_scoped.csv`` (the NMoNLI pairs): the plain columns."""

    sentence1: Text
    sentence2: Text
    gold_label: Label

    def nli(self) -> tuple[str, str, str]:
        return self.sentence1, self.sentence2, self.gold_label


@dataclass(frozen=True)
class SconeItem(NLIItem):
    """A ScoNe pair: ``condition`` and ``row`` name its condition and base pair; ``group_index`` is the data's."""

    group_index: int | None = None


def read_scone_condition(path: str | Path, condition: str | None = None, split: str = "test") -> list[SconeItem]:
    """Read one ScoNe-NLI condition file. Item ids are ``scone-SPLIT-CONDITION-ROW``."""
    path = Path(path)
    condition = condition or path.stem
    if condition not in SCONE_CONDITIONS:
        raise InputFormatError(
            path, None, f"unknown ScoNe condition {condition!r} (expected one of {SCONE_CONDITIONS})"
        )
    items: list[SconeItem] = []
    for _, row in read_rows(path, ScopedPair if condition == "one_scoped" else EditedPair, allow_empty=True):
        premise, hypothesis, label = row.nli()
        row_number = len(items)
        items.append(
            SconeItem(
                item_id=f"scone-{split}-{condition}-{row_number:04d}",
                premise=premise,
                hypothesis=hypothesis,
                label=label,
                suite="scone",
                premise_id=f"scone-{split}-{row_number:04d}",
                condition=condition,
                row=row_number,
                group_index=row.group_index,
            )
        )
    return items


def scone_split_folder(folder: str | Path, split: str = "test") -> Path:
    """The folder holding the six condition files of ``split`` (``scone_nli/SPLIT``, ``SPLIT`` or ``folder``)."""
    folder = Path(folder)
    split_folder = next(
        (
            candidate
            for candidate in (folder / "scone_nli" / split, folder / split, folder)
            if (candidate / "no_negation.csv").is_file()
        ),
        None,
    )
    if split_folder is None:
        raise InputFormatError(
            folder, None, f"no ScoNe-NLI {split!r} split found (expected scone_nli/{split}/no_negation.csv)"
        )
    return split_folder


def read_scone(folder: str | Path, split: str = "test") -> list[SconeItem]:
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


def _with_group(item: SconeItem, group_index: int | None) -> SconeItem:
    return replace(item, group_index=group_index) if item.group_index is None else item
