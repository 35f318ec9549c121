"""NaN-NLI (Truong et al., 2022): the reader of ``nan.csv`` and its annotated items.

One row per premise/hypothesis pair; the ``P-*``/``H-*`` columns flag the negation types of premise and hypothesis
(the ``H-*`` flags are blank when the hypothesis has no negation), then ``Construction``, ``Construction Subtype``,
ten operation columns (how many times the operation was applied: 0, 1, or 2 in six ``Negator addition or
deletion`` cells) and ``Quantification`` (membership of the NaN-Quant subset). Columns named ``Unnamed: N`` are
empty spreadsheet artefacts and are ignored. Any malformed row raises :class:`~negkit.errors.InputFormatError`
naming the file, the line and the offending column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from negkit.errors import InputFormatError
from negkit.kit.data.nli import NLIItem, count_cell, csv_rows, flag_cell, nli_label, require_columns

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


@dataclass(frozen=True)
class NaNNLIItem(NLIItem):
    """A NaN-NLI pair: ``premise_negation`` and ``hypothesis_negation`` hold the negation-type flags that are set
    (e.g. ``{"Non-verbal", "Analytic"}``; ``hypothesis_negation`` is empty when the hypothesis has no negation);
    ``operations`` lists the operations applied to make the hypothesis and ``operation_counts`` how many times each
    was applied (the cell value, 1 or 2); ``quantification``: the pair is in the NaN-Quant subset."""

    premise_negation: frozenset[str] = field(default_factory=frozenset)
    hypothesis_negation: frozenset[str] = field(default_factory=frozenset)
    construction: str = ""
    construction_subtype: str = ""
    operations: tuple[str, ...] = ()
    quantification: bool = False
    operation_counts: tuple[tuple[str, int], ...] = ()

    def operation_count(self, operation: str) -> int:
        """How many times ``operation`` was applied (the cell value; 1 for a listed operation without counts)."""
        for name, count in self.operation_counts:
            if name == operation:
                return count
        return 1 if operation in self.operations and not self.operation_counts else 0


def read_nan_nli(path: str | Path) -> list[NaNNLIItem]:
    """Read NaN-NLI's ``nan.csv``. Item ids are ``nan-NNN`` (0-based row), premise ids ``nan-pNN``."""
    path = Path(path)
    items: list[NaNNLIItem] = []
    premise_ids: dict[str, str] = {}
    columns = ["premise", "hypothesis", "label", "Construction", "Construction Subtype", "Quantification"]
    columns += [f"{side}-{kind}" for side in "PH" for kind in NEGATION_TYPES] + list(NAN_OPERATIONS)
    for line, row, header in csv_rows(path):
        if not items:
            require_columns(path, header, columns)
        premise, hypothesis = row["premise"].strip(), row["hypothesis"].strip()
        if not premise or not hypothesis:
            raise InputFormatError(path, line, "empty premise or hypothesis")
        premise_id = premise_ids.setdefault(premise, f"nan-p{len(premise_ids):02d}")
        premise_types = frozenset(
            kind for kind in NEGATION_TYPES if flag_cell(path, line, f"P-{kind}", row[f"P-{kind}"], blank_allowed=False)
        )
        hypothesis_types = frozenset(
            kind for kind in NEGATION_TYPES if flag_cell(path, line, f"H-{kind}", row[f"H-{kind}"], blank_allowed=True)
        )
        counts = tuple((op, count_cell(path, line, op, row[op], blank_allowed=False)) for op in NAN_OPERATIONS)
        operation_counts = tuple((op, count) for op, count in counts if count)
        items.append(
            NaNNLIItem(
                item_id=f"nan-{len(items):03d}",
                premise=premise,
                hypothesis=hypothesis,
                label=nli_label(path, line, "label", row["label"]),
                suite="nan-nli",
                premise_id=premise_id,
                premise_negation=premise_types,
                hypothesis_negation=hypothesis_types,
                construction=row["Construction"].strip(),
                construction_subtype=row["Construction Subtype"].strip(),
                operations=tuple(op for op, _ in operation_counts),
                operation_counts=operation_counts,
                quantification=flag_cell(path, line, "Quantification", row["Quantification"], blank_allowed=False),
            )
        )
    if not items:
        raise InputFormatError(path, None, "no data rows")
    return items
