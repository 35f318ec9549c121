"""Data statistics of NaN-NLI (Truong et al., 2022): the counts behind the paper's data tables.

:func:`nan_nli_statistics` takes the items of :func:`negkit.kit.data.nli.read_nan_nli` and gives

* **operations** (the paper's Table 1): for each of the ten operations used to build hypotheses, the pairs built
  with it, how many times it was applied (a cell may say 2) and those pairs by gold label;
* **labels** (Table 2): pairs per gold label, and per construction the premises, pairs and labels;
* **negation types** (Table 3): premises, pairs and hypotheses carrying each negation type, hypotheses without
  negation, and pairs by number of operations.

Counts only: nothing here depends on a model. :func:`nan_nli_data_statistics` reads ``nan.csv`` from a data root.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from negkit.benchmarks.nan_nli.data import NEGATION_TYPES, read_nan_nli
from negkit.kit.data.locate import locate_dataset
from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.kit.data.statistics import DataStatistics, StatisticsTable, share

DATA_FILE = "nan.csv"
#: The operations in the order of the paper's Table 1 (and Table 9).
TABLE_1_ORDER: tuple[str, ...] = (
    "Indefinite quantifier change",
    "Numerical quantifier change",
    "Negator addition or deletion",
    "Negator position change",
    "Negator token change",
    "Clause or sub-clause deletion",
    "Comparative quantifier change",
    "Focus particle change",
    "Lexical change",
    "Syntactical changes",
)


def _by_label(items: Sequence[NLIItem]) -> tuple[int, ...]:
    counts = Counter(item.label for item in items)
    return tuple(counts[label] for label in NLI_LABELS)


def operation_table(items: Sequence[NLIItem]) -> StatisticsTable:
    """Per operation (Table 1's order): times applied (the sum of its cells, Table 1's count), pairs built with it,
    and those pairs by label."""
    rows = []
    for operation in TABLE_1_ORDER:
        with_it = [item for item in items if operation in item.operations]
        applied = sum(item.operation_count(operation) for item in with_it)
        rows.append((operation, applied, len(with_it), *_by_label(with_it)))
    return StatisticsTable(
        "Operations used to build the hypotheses (Table 1)",
        ("operation", "count (Table 1)", "pairs", *NLI_LABELS),
        tuple(rows),
        "count: times applied, the sum of the operation's cells (a cell may say 2: six 'Negator addition or "
        "deletion' pairs), as the paper's Table 1 counts; pairs: pairs built with it, by gold label. A pair built "
        "with several operations counts for each of them.",
    )


def label_tables(items: Sequence[NLIItem]) -> list[StatisticsTable]:
    """Pairs per label, and premises, pairs and labels per construction (in order of first appearance)."""
    total = len(items)
    labels = _by_label(items)
    rows = [(label, count, share(count, total)) for label, count in zip(NLI_LABELS, labels)]
    rows.append(("all", total, 100.0))
    constructions: dict[str, list[NLIItem]] = {}
    for item in items:
        constructions.setdefault(item.construction, []).append(item)
    by_construction = [
        (name, len({item.premise_id for item in group}), len(group), *_by_label(group))
        for name, group in constructions.items()
    ]
    by_construction.append(("all", len({item.premise_id for item in items}), total, *labels))
    return [
        StatisticsTable("Gold labels (Table 2)", ("label", "pairs", "%"), tuple(rows)),
        StatisticsTable(
            "Labels per construction", ("construction", "premises", "pairs", *NLI_LABELS), tuple(by_construction)
        ),
    ]


def negation_type_tables(items: Sequence[NLIItem]) -> list[StatisticsTable]:
    """Premises, pairs and hypotheses per negation type; pairs by number of operations."""
    rows = []
    for kind in NEGATION_TYPES:
        premises = {item.premise_id for item in items if kind in item.premise_negation}
        pairs = sum(1 for item in items if kind in item.premise_negation)
        hypotheses = sum(1 for item in items if kind in item.hypothesis_negation)
        rows.append((kind, len(premises), pairs, hypotheses))
    without = sum(1 for item in items if not item.hypothesis_negation)
    rows.append(("no negation", 0, 0, without))
    operations = Counter(len(item.operations) for item in items)
    return [
        StatisticsTable(
            "Negation types (Table 3)",
            ("negation type", "premises", "pairs (premise)", "hypotheses"),
            tuple(rows),
            "A premise or hypothesis carries several types (e.g. non-verbal, analytic, "
            "sub-clausal, ordinary); 'no negation' counts hypotheses without any negation.",
        ),
        StatisticsTable(
            "Operations per pair",
            ("operations", "pairs"),
            tuple((count, operations[count]) for count in sorted(operations)),
        ),
    ]


def nan_nli_statistics(items: Sequence[NLIItem], source: str = "") -> DataStatistics:
    """The NaN-NLI statistics tables (see the module documentation) of ``items``."""
    labels = dict(zip(NLI_LABELS, _by_label(items)))
    values = {
        "pairs": len(items),
        "premises": len({item.premise_id for item in items}),
        "constructions": len({item.construction for item in items}),
        "construction_subtypes": len({item.construction_subtype for item in items}),
        "nan_quant_pairs": sum(1 for item in items if item.quantification),
        "labels": labels,
        "operations": {op: sum(item.operation_count(op) for item in items) for op in TABLE_1_ORDER},
        "operation_pairs": {op: sum(1 for item in items if op in item.operations) for op in TABLE_1_ORDER},
        "premise_negation_types": {
            kind: sum(1 for item in items if kind in item.premise_negation) for kind in NEGATION_TYPES
        },
        "hypotheses_without_negation": sum(1 for item in items if not item.hypothesis_negation),
    }
    tables = [operation_table(items), *label_tables(items), *negation_type_tables(items)]
    return DataStatistics("nan-nli", source, tables, values)


def nan_nli_data_statistics(data: str | Path | None = None) -> DataStatistics:
    """Read ``nan.csv`` from the NaN-NLI folder of a data root and return its statistics."""
    path = locate_dataset("nan-nli", data) / DATA_FILE
    return nan_nli_statistics(read_nan_nli(path), str(path))
