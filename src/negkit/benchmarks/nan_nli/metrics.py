"""NaN-NLI metrics (Truong et al., 2022, section 4): the settings of :mod:`negkit.kit.metrics.nli` and the paper's
breakdowns.

- breakdowns: macro P/R/F1 over the pairs whose premise (resp. hypothesis) carries each negation type, plus the
  hypotheses without negation; error rate per construction and per operation (a pair with several operations
  counts for each); the NaN-Quant subset; the confusion matrix normalised by the true label.

Tables 8 (error rate per construction) and 9 (per operation) have the rows, labels and order the paper prints
(:data:`PAPER_TABLE8`, :data:`PAPER_TABLE9`): in Table 8 the affixally negated adjective and adverb merged, the
absolute and approximate negators merged, and no row for "not + auxillary" nor "verbal vs affixal negation"; the
per-value breakdown (one row per ``Construction`` value) is kept beside it.
Table 9 (error rate per operation) has two readings, because six ``Negator addition or deletion`` cells hold 2:
``"exactly-one"`` (a pair counts for an operation whose cell is exactly 1; the only reading that reproduces the
printed Table 9, the default) and ``"non-zero"`` (every pair with a non-zero cell, as the paper's text says).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from negkit.benchmarks.nan_nli.data import NAN_OPERATIONS, NEGATION_TYPES, NaNNLIItem
from negkit.kit.metrics.nli import (
    ErrorRate,
    MacroScores,
    binary_scores,
    check_predictions,
    confusion_matrix,
    error_rates,
    macro_over,
    rates_dict,
    standard_scores,
    strict_dict,
    strict_score,
)

#: Name of the hypothesis breakdown row for hypotheses that carry no negation.
NO_NEGATION = "No negation"


#: The paper's printed Table 8, in its order: each row's label exactly as printed and the ``nan.csv``
#: ``Construction`` values it counts. The paper merges the two affixal values and the two negator values, and
#: prints no row for "not + auxillary" (9 pairs) nor "verbal vs affixal negation" (2 pairs).
PAPER_TABLE8: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("not + quantifier", ("not + quantifier",)),
    ("not + focus particle", ("not + focus particle",)),
    ("not + degree expression", ("not + degree expression",)),
    (
        "not + affixially-negated adjective/adverb",
        ("not + affixially negated gradable adjective", "not + affixially negated adverb"),
    ),
    ("not + PP", ("not + pp",)),
    ("Absolute and approximate negator", ("absolute negator", "approximate negator")),
    ("not in verbless clause", ("not in verbless clause",)),
    ("not in coordination", ("not in coordination",)),
    ("not in implicit proposition", ("not in implicit proposition",)),
)


#: ``Construction`` values the printed Table 8 has no row for.
PAPER_TABLE8_LEFT_OUT: tuple[str, ...] = ("not + auxillary", "verbal vs affixal negation")


#: Table 8's rows: ``nan.csv`` Construction value -> the printed row (None: no row in the paper). Values not
#: listed here (another version of the file) keep a row of their own after the printed ones.
PAPER_CONSTRUCTION_ROWS: dict[str, str | None] = {
    **{value: row for row, values in PAPER_TABLE8 for value in values},
    **{value: None for value in PAPER_TABLE8_LEFT_OUT},
}


#: The paper's printed Table 9, in its order: each row's label exactly as printed and its ``nan.csv`` column.
PAPER_TABLE9: tuple[tuple[str, str], ...] = (
    ("Indefinite quantifier change", "Indefinite quantifier change"),
    ("Numerical quantifier change", "Numerical quantifier change"),
    ("Comparative quantifier change", "Comparative quantifier change"),
    ("Negator addition or deletion", "Negator addition or deletion"),
    ("Negator position change", "Negator position change"),
    ("Negator token change", "Negator token change"),
    ("Clause or sub-clause deletion", "Clause or sub-clause deletion"),
    ("Focus particle change", "Focus particle change"),
    ("Lexical change", "Lexical change"),
    ("Syntactic change", "Syntactical changes"),
)


#: ``nan.csv`` operation column -> Table 9's printed row label.
PAPER_OPERATION_ROWS: dict[str, str] = {column: row for row, column in PAPER_TABLE9}


CONSTRUCTION_GROUPINGS = ("paper", "value")


#: How Table 9 counts a pair for an operation: its cell is exactly 1 (default, the printed numbers), or non-zero.
OPERATION_COUNTINGS = ("exactly-one", "non-zero")


def _has_negation(side: str, kind: str) -> Callable[[NaNNLIItem], bool]:
    """Whether a pair's ``side`` (premise or hypothesis) carries negation type ``kind``."""
    if side == "premise":
        return lambda item: kind in item.premise_negation
    return lambda item: kind in item.hypothesis_negation


def premise_type_breakdown(items: Sequence[NaNNLIItem], predicted: Sequence[str]) -> dict[str, MacroScores]:
    """Macro P/R/F1 over the pairs whose premise carries each negation type (types with no pair are left out)."""
    check_predictions(items, predicted)
    rows = {kind: macro_over(items, predicted, _has_negation("premise", kind)) for kind in NEGATION_TYPES}
    return {kind: scores for kind, scores in rows.items() if scores.count}


def hypothesis_type_breakdown(items: Sequence[NaNNLIItem], predicted: Sequence[str]) -> dict[str, MacroScores]:
    """As :func:`premise_type_breakdown` for the hypothesis, plus :data:`NO_NEGATION` for hypotheses without one."""
    check_predictions(items, predicted)
    rows = {kind: macro_over(items, predicted, _has_negation("hypothesis", kind)) for kind in NEGATION_TYPES}
    rows[NO_NEGATION] = macro_over(items, predicted, lambda item: not item.hypothesis_negation)
    return {kind: scores for kind, scores in rows.items() if scores.count}


def paper_construction_row(construction: str) -> str | None:
    """The printed Table 8 row of a ``Construction`` value (None: the paper prints no row for it)."""
    return PAPER_CONSTRUCTION_ROWS.get(construction, construction)


def paper_operation_row(column: str) -> str:
    """The printed Table 9 row of a ``nan.csv`` operation column."""
    return PAPER_OPERATION_ROWS.get(column, column)


def construction_error_rates(
    items: Sequence[NaNNLIItem], predicted: Sequence[str], grouping: str = "paper"
) -> dict[str, ErrorRate]:
    """Error rate per construction (Truong et al., Table 8).

    ``grouping="paper"``: the printed rows (:data:`PAPER_TABLE8`: labels as printed, in the printed order; the
    values the paper prints no row for are not counted); ``"value"``: one row per ``Construction`` value, in
    first-seen order.
    """
    check_predictions(items, predicted)
    if grouping not in CONSTRUCTION_GROUPINGS:
        raise ValueError(f"unknown construction grouping {grouping!r}; choose one of {CONSTRUCTION_GROUPINGS}")
    if grouping == "value":
        return error_rates([(item.construction, label != item.label) for item, label in zip(items, predicted)])
    pairs = [(paper_construction_row(item.construction), label != item.label) for item, label in zip(items, predicted)]
    rates = error_rates([(row, wrong) for row, wrong in pairs if row is not None])
    order = [row for row, _ in PAPER_TABLE8 if row in rates]
    return {row: rates[row] for row in order + [row for row in rates if row not in order]}


def left_out_constructions(items: Sequence[NaNNLIItem]) -> dict[str, int]:
    """Pairs per ``Construction`` value that the printed Table 8 has no row for."""
    counts: dict[str, int] = {}
    for item in items:
        if paper_construction_row(item.construction) is None:
            counts[item.construction] = counts.get(item.construction, 0) + 1
    order = [value for value in PAPER_TABLE8_LEFT_OUT if value in counts]
    return {value: counts[value] for value in order + [value for value in counts if value not in order]}


def operation_error_rates(
    items: Sequence[NaNNLIItem], predicted: Sequence[str], counting: str = "exactly-one"
) -> dict[str, ErrorRate]:
    """Error rate per operation type (Table 9; rows labelled and ordered as printed, :data:`PAPER_TABLE9`); a pair
    with several operations counts once for each.

    ``counting="exactly-one"`` (default) counts a pair for an operation whose cell is exactly 1, which is what
    reproduces the printed Table 9; ``"non-zero"`` counts every pair whose cell is above 0 (the paper's text).
    """
    check_predictions(items, predicted)
    if counting not in OPERATION_COUNTINGS:
        raise ValueError(f"unknown operation counting {counting!r}; choose one of {OPERATION_COUNTINGS}")
    keep = (lambda count: count == 1) if counting == "exactly-one" else (lambda count: count > 0)
    pairs = [
        (paper_operation_row(op), label != item.label)
        for item, label in zip(items, predicted)
        for op in item.operations
        if keep(item.operation_count(op))
    ]
    rates = error_rates(pairs)
    return {row: rates[row] for row, _ in PAPER_TABLE9 if row in rates}  # other columns are not NaN-NLI's


def operation_applications(items: Sequence[NaNNLIItem]) -> dict[str, int]:
    """How many times each operation was applied: the sum of its cells (the paper's Table 1 counts), under Table 9's
    row labels in its order."""
    totals = {paper_operation_row(op): sum(item.operation_count(op) for item in items) for op in NAN_OPERATIONS}
    return {row: totals[row] for row, _ in PAPER_TABLE9 if totals.get(row)}


def quantification_subset(items: Sequence[NaNNLIItem], predicted: Sequence[str]) -> tuple[list[NaNNLIItem], list[str]]:
    """The NaN-Quant subset (items flagged ``Quantification``) with their predictions."""
    check_predictions(items, predicted)
    chosen = [(item, label) for item, label in zip(items, predicted) if item.quantification]
    return [item for item, _ in chosen], [label for _, label in chosen]


def nan_nli_report(
    items: Sequence[NaNNLIItem], predicted: Sequence[str], operation_counting: str = "exactly-one"
) -> dict[str, Any]:
    """Every NaN-NLI setting and breakdown, as plain JSON-ready data.

    ``construction_error_rate`` is Table 8 as the paper groups it, ``construction_error_rate_by_value`` the
    breakdown per ``Construction`` value; ``operation_error_rate`` is Table 9 counted as ``operation_counting``
    says and ``operation_error_rate_other`` the other reading (``operation_counting_other``).
    """
    quant_items, quant_predicted = quantification_subset(items, predicted)
    other = next(counting for counting in OPERATION_COUNTINGS if counting != operation_counting)
    return {
        "count": len(items),
        "standard": asdict(standard_scores(items, predicted)),
        "binary": asdict(binary_scores(items, predicted)),
        "strict": strict_dict(strict_score(items, predicted)),
        "premise_negation_type": {k: asdict(v) for k, v in premise_type_breakdown(items, predicted).items()},
        "hypothesis_negation_type": {k: asdict(v) for k, v in hypothesis_type_breakdown(items, predicted).items()},
        "construction_error_rate": rates_dict(construction_error_rates(items, predicted, "paper")),
        "construction_error_rate_by_value": rates_dict(construction_error_rates(items, predicted, "value")),
        "constructions_left_out": left_out_constructions(items),
        "operation_counting": operation_counting,
        "operation_error_rate": rates_dict(operation_error_rates(items, predicted, operation_counting)),
        "operation_counting_other": other,
        "operation_error_rate_other": rates_dict(operation_error_rates(items, predicted, other)),
        "operation_applications": operation_applications(items),
        "nan_quant": {
            "count": len(quant_items),
            "standard": asdict(standard_scores(quant_items, quant_predicted)),
            "binary": asdict(binary_scores(quant_items, quant_predicted)),
            "strict": strict_dict(strict_score(quant_items, quant_predicted)),
        },
        "confusion_matrix": confusion_matrix(items, predicted),
    }
