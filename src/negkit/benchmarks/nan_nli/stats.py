"""Data statistics of NaN-NLI (Truong et al., 2022): the counts behind the paper's data tables.

:func:`nan_nli_statistics` takes the items of :func:`negkit.kit.data.nli.read_nan_nli` and gives

* **operations** (the paper's Table 1): for each of the ten operations used to build hypotheses, the pairs built
  with it, how many times it was applied (a cell may say 2) and those pairs by gold label;
* **labels and negation types** (Table 2, as printed): per gold label (C, E, N, ALL) the pairs and their share, and
  the percentage of those pairs whose premise, and whose hypothesis, carries each negation type (verbal / non-verbal,
  analytic / synthetic, clausal / sub-clausal; "None": hypotheses without negation), beside the printed values;
  per construction the premises, pairs and labels;
* **operations per class** (Table 3): the percentage of each class's pairs built with each operation;
* **negation types** (no table of the paper): premises, pairs and hypotheses carrying each negation type,
  hypotheses without negation, and pairs by number of operations.

Counts only: nothing here depends on a model. :func:`nan_nli_data_statistics` reads ``nan.csv`` from a data root.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.nan_nli.data import NEGATION_TYPES, NaNNLIItem, read_nan_nli
from negkit.kit.data.locate import locate_dataset
from negkit.kit.data.nli import NLI_LABELS
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


def _by_label(items: Sequence[NaNNLIItem]) -> tuple[int, ...]:
    counts = Counter(item.label for item in items)
    return tuple(counts[label] for label in NLI_LABELS)


def operation_table(items: Sequence[NaNNLIItem]) -> StatisticsTable:
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


def label_tables(items: Sequence[NaNNLIItem]) -> list[StatisticsTable]:
    """Pairs per label, and premises, pairs and labels per construction (in order of first appearance)."""
    total = len(items)
    labels = _by_label(items)
    rows = [(label, count, share(count, total)) for label, count in zip(NLI_LABELS, labels)]
    rows.append(("all", total, 100.0))
    constructions: dict[str, list[NaNNLIItem]] = {}
    for item in items:
        constructions.setdefault(item.construction, []).append(item)
    by_construction = [
        (name, len({item.premise_id for item in group}), len(group), *_by_label(group))
        for name, group in constructions.items()
    ]
    by_construction.append(("all", len({item.premise_id for item in items}), total, *labels))
    return [
        StatisticsTable("Gold labels", ("label", "pairs", "%"), tuple(rows)),
        StatisticsTable(
            "Labels per construction", ("construction", "premises", "pairs", *NLI_LABELS), tuple(by_construction)
        ),
    ]


def negation_type_tables(items: Sequence[NaNNLIItem]) -> list[StatisticsTable]:
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
            "Negation types (premises, pairs and hypotheses)",
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


def nan_nli_statistics(items: Sequence[NaNNLIItem], source: str = "") -> DataStatistics:
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
    values["table2"] = table2_values(items)
    values["table3"] = table3_values(items)
    tables = [
        operation_table(items),
        table2(items),
        table3(items),
        *label_tables(items),
        *negation_type_tables(items),
    ]
    return DataStatistics("nan-nli", source, tables, values)


#: Table 2's rows, the gold label each stands for (None: all pairs).
TABLE2_ROWS: tuple[tuple[str, str | None], ...] = (
    ("C", "contradiction"),
    ("E", "entailment"),
    ("N", "neutral"),
    ("ALL", None),
)
#: Table 2's column pairs (each cell "a / b" gives the two types' percentages).
TABLE2_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("Verbal/Non-V", "Verbal", "Non-verbal"),
    ("Ana/Syn", "Analytic", "Synthetic"),
    ("Clausal/Sub-C", "Clausal", "Sub-clausal"),
)
#: The paper's printed Table 2 (percentages): row -> premise pairs, hypothesis pairs, hypothesis "None".
PAPER_TABLE2: dict[str, tuple[tuple[float, ...], tuple[float, ...], float]] = {
    "C": ((5.2, 94.9, 87.2, 20.5, 0.9, 99.2), (46.2, 27.4, 52.1, 18.8, 46.2, 28.2), 34.2),
    "E": ((0.2, 99.9, 84.5, 20.6, 5.2, 94.9), (53.6, 20.5, 60.8, 11.3, 52.6, 21.7), 30.9),
    "N": ((6.8, 93.2, 100.0, 18.2, 6.8, 93.2), (43.2, 20.5, 61.4, 2.3, 43.2, 20.5), 36.4),
    "ALL": ((3.5, 96.5, 88.4, 20.2, 3.5, 96.5), (48.5, 23.6, 57.0, 13.2, 48.1, 24.4), 33.3),
}


def _with_label(items: Sequence[NaNNLIItem], label: str | None) -> list[NaNNLIItem]:
    return [item for item in items if label is None or item.label == label]


def table2_values(items: Sequence[NaNNLIItem]) -> dict[str, dict[str, Any]]:
    """Table 2's numbers: per row (C, E, N, ALL) ``pairs``, ``share`` (% of all pairs), ``premise`` and
    ``hypothesis`` (type -> % of the row's pairs whose sentence carries it) and ``hypothesis_none``."""
    rows: dict[str, dict[str, Any]] = {}
    for short, label in TABLE2_ROWS:
        chosen = _with_label(items, label)
        count = len(chosen)
        rows[short] = {
            "pairs": count,
            "share": share(count, len(items)),
            **{
                side: {
                    kind: share(sum(1 for item in chosen if kind in getattr(item, f"{side}_negation")), count)
                    for pair in TABLE2_PAIRS
                    for kind in pair[1:]
                }
                for side in ("premise", "hypothesis")
            },
            "hypothesis_none": share(sum(1 for item in chosen if not item.hypothesis_negation), count),
        }
    return rows


def _pair_cell(values: dict[str, float], first: str, second: str) -> str:
    return f"{values[first]:.1f} / {values[second]:.1f}"


def table2(items: Sequence[NaNNLIItem]) -> StatisticsTable:
    """Table 2 as printed: per label the pairs (and their share), then per negation-type pair the percentages of
    the label's pairs whose premise, then hypothesis, carries each type; "None": hypotheses without negation."""
    values = table2_values(items)
    rows = []
    differ = []
    for short, _label in TABLE2_ROWS:
        row = values[short]
        instances = f"{row['pairs']}" if short == "ALL" else f"{row['pairs']} ({row['share']:.1f}%)"
        cells = [_pair_cell(row[side], a, b) for side in ("premise", "hypothesis") for _title, a, b in TABLE2_PAIRS]
        rows.append((short, instances, *cells, f"{row['hypothesis_none']:.1f}"))
        ours = [round(row[side][kind], 1) for side in ("premise", "hypothesis") for p in TABLE2_PAIRS for kind in p[1:]]
        printed = [*PAPER_TABLE2[short][0], *PAPER_TABLE2[short][1]]
        kinds = [
            f"{side[0].upper()}-{kind}" for side in ("premise", "hypothesis") for p in TABLE2_PAIRS for kind in p[1:]
        ]
        differ += [
            f"{short} {kind} {mine:.1f} (printed {paper:.1f})"
            for kind, mine, paper in zip(kinds, ours, printed)
            if abs(mine - paper) > 0.05
        ]
        if abs(round(row["hypothesis_none"], 1) - PAPER_TABLE2[short][2]) > 0.05:
            differ.append(f"{short} H-None {row['hypothesis_none']:.1f} (printed {PAPER_TABLE2[short][2]:.1f})")
    headers = (
        "",
        "Instances",
        *(f"Premise {t}" for t, _a, _b in TABLE2_PAIRS),
        *(f"Hypothesis {t}" for t, _a, _b in TABLE2_PAIRS),
        "Hypothesis None",
    )
    note = (
        "Percent of the row's pairs whose premise (hypothesis) carries each negation type; a sentence can carry "
        "both types of a pair or neither, so a cell's two numbers need not add up to 100. "
        + (
            "Cells that differ from the printed table: " + "; ".join(differ) + "."
            if differ
            else "Every cell equals the printed table."
        )
    )
    return StatisticsTable("Labels and negation types (Table 2)", headers, tuple(rows), note)


def table3_values(items: Sequence[NaNNLIItem]) -> dict[str, dict[str, float]]:
    """Table 3's numbers: operation (Table 1's order) -> row (C, E, N, ALL) -> % of the row's pairs built with it."""
    return {
        operation: {
            short: share(
                sum(1 for item in _with_label(items, label) if operation in item.operations),
                len(_with_label(items, label)),
            )
            for short, label in TABLE2_ROWS
        }
        for operation in TABLE_1_ORDER
    }


def table3(items: Sequence[NaNNLIItem]) -> StatisticsTable:
    """Table 3: per operation, the percentage of each class's pairs built with it."""
    values = table3_values(items)
    counts = {short: len(_with_label(items, label)) for short, label in TABLE2_ROWS}
    return StatisticsTable(
        "Operations per class (Table 3)",
        ("operation", *(f"{short} (% of {counts[short]})" for short, _label in TABLE2_ROWS)),
        tuple((operation, *(row[short] for short, _label in TABLE2_ROWS)) for operation, row in values.items()),
        "Percent of the class's pairs built with the operation (a pair built with several operations counts for "
        "each, so a column adds up to more than 100).",
    )


def nan_nli_data_statistics(data: str | Path | None = None) -> DataStatistics:
    """Read ``nan.csv`` from the NaN-NLI folder of a data root and return its statistics."""
    path = locate_dataset("nan-nli", data) / DATA_FILE
    return nan_nli_statistics(read_nan_nli(path), str(path))
