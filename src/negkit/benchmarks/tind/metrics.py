"""TIND metrics exactly as the authors' scorer computes them: accuracy buckets, negation analysis, coherence.

The result of :func:`tind_metrics` keeps the layout and names of the authors' ``evaluate.py`` output so that
analysis scripts written for it keep working::

    {"all": {"TP", "FP", "FN", "TN", "accuracy"}, "all_affirmations": ..., "all_negations": ...,
     "input_affirmation": ..., "input_negation": ..., "distractor_affirmation": ..., "distractor_negation": ...,
     "Negation_analysis": {"verbal_all": ..., "verbal_input": ..., "verbal_distractor": ..., ...},
     "coherence_scores": {"All": {"Coherent", "Incoherent", "Empty_cells", "Coherence_percentage"}, ...},
     "Synonymy1": {the same keys for pattern #01 only}, ..., "summary": {...}}

Accuracy is ``(TP + TN) / N * 100`` rounded to 2 decimals (0 for an empty bucket). The negation analysis has
one ``v_all``/``v_input``/``v_distractor`` triple for every value ``v`` of negation_type, semantic_type and
syntactic_scope other than ``affirmation``/``none`` (values lower-cased; the six of the release are always
listed, empty ones with accuracy 0). Only patterns that have items get a per-pattern entry.

With the models' p(True) (``P(True) / (P(True) + P(False))``, negkit's addition, not the authors'), ``p_true_auc``
holds the ROC AUC of p(True) (ties count half, :mod:`negkit.kit.metrics.auc`) for each view of :data:`AUC_VIEWS`,
overall and per pattern: a threshold-free measure of how well p(True) orders the sentences.

Coherence is judged per group ``(pattern_id, group_id)``; see :func:`group_coherence`. The authors' code
crashes when a compared cell is empty after filtering; here such a group counts as incoherent for that
measure and is counted in ``Empty_cells`` (and ``summary.groups_with_empty_cells``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from negkit.benchmarks.tind.types import AFFIRMATION, ANTONYMY_PATTERNS, PATTERN_NAMES, TruthItem, expected_label
from negkit.kit.metrics.auc import roc_auc

ACCURACY_BUCKETS: tuple[str, ...] = (
    "all",
    "all_affirmations",
    "all_negations",
    "input_affirmation",
    "input_negation",
    "distractor_affirmation",
    "distractor_negation",
)
#: Negation-analysis values of the release (negation_type, semantic_type, syntactic_scope), in report order.
NEGATION_VALUES: tuple[str, ...] = ("verbal", "non_verbal", "analytic", "synthetic", "clausal", "subclausal")
NEGATION_SCOPES: tuple[str, ...] = ("all", "input", "distractor")
COHERENCE_MEASURES: tuple[str, ...] = (
    "All",
    "Affirmation-Negation_Input",
    "Affirmation-Negation_Distractor",
    "Input-Distractor_Affirmation",
    "Input-Distractor_Negation",
)
_NOT_NEGATION = ("affirmation", "none")


def _negated(item: TruthItem) -> bool:
    return item.negation_type != AFFIRMATION


#: ROC AUC views of p(True): name -> (which sentences, which of them are the positives). Against the gold label on
#: all, affirmative, negative, input and distractor sentences; and input (positive) against distractor sentences on
#: affirmative and on negative ones (a model that flips under negation has an AUC below 0.5 there).
AUC_VIEWS: dict[str, tuple[Callable[[TruthItem], bool], Callable[[TruthItem], bool]]] = {
    "all": (lambda item: True, lambda item: item.label),
    "affirmations": (lambda item: not _negated(item), lambda item: item.label),
    "negations": (_negated, lambda item: item.label),
    "inputs": (lambda item: not item.is_distractor, lambda item: item.label),
    "distractors": (lambda item: item.is_distractor, lambda item: item.label),
    "input_vs_distractor_affirmations": (lambda item: not _negated(item), lambda item: not item.is_distractor),
    "input_vs_distractor_negations": (_negated, lambda item: not item.is_distractor),
}


def p_true_aucs(items: Sequence[TruthItem], p_true: Sequence[float]) -> dict[str, float | None]:
    """The ROC AUC of p(True) in every view of :data:`AUC_VIEWS` (None where a view lacks a positive or a negative)."""
    result: dict[str, float | None] = {}
    for view, (keep, positive) in AUC_VIEWS.items():
        chosen = [(score, positive(item)) for item, score in zip(items, p_true) if keep(item)]
        result[view] = roc_auc([score for score, _ in chosen], [label for _, label in chosen])
    return result


COHERENT = "coherent"
INCOHERENT = "incoherent"
EMPTY_CELL = "empty cell"  # incoherent because a compared cell had no sentence after filtering


def accuracy(counts: dict[str, int]) -> float:
    """``(TP + TN) / N * 100`` rounded to 2 decimals as the authors round it; 0 when ``N`` is 0."""
    total = counts["TP"] + counts["TN"] + counts["FP"] + counts["FN"]
    return round(((counts["TP"] + counts["TN"]) / total) * 100, 2) if total > 0 else 0


#: An item's cell for the accuracy counts: (is_distractor, negation_type, semantic_type, syntactic_scope).
_Cell = tuple[bool, str, str, str]


class _Counts:
    """TP/FP/FN/TN per bucket for one set of items (all items, or one pattern's).

    Items are first tallied per annotation cell and outcome, so the buckets are filled once per distinct
    cell rather than once per item.
    """

    def __init__(self) -> None:
        self.cells: dict[_Cell, list[int]] = {}

    def add(self, cell: _Cell, outcome: int) -> None:
        """Count one item of ``cell`` with ``outcome`` (an index into ``[TP, FP, FN, TN]``)."""
        counts = self.cells.get(cell)
        if counts is None:
            counts = self.cells[cell] = [0, 0, 0, 0]
        counts[outcome] += 1

    def scores(self) -> dict[str, Any]:
        buckets = {name: [0, 0, 0, 0] for name in ACCURACY_BUCKETS}
        negation = {f"{value}_{scope}": [0, 0, 0, 0] for value in NEGATION_VALUES for scope in NEGATION_SCOPES}
        for (is_distractor, negation_type, semantic_type, syntactic_scope), counts in self.cells.items():
            negated = negation_type != AFFIRMATION
            cell = ("distractor_" if is_distractor else "input_") + ("negation" if negated else "affirmation")
            targets = [buckets["all"], buckets["all_negations" if negated else "all_affirmations"], buckets[cell]]
            scope = "distractor" if is_distractor else "input"
            for raw in (negation_type, semantic_type, syntactic_scope):
                value = raw.strip().lower()
                if value in _NOT_NEGATION:
                    continue
                for name in (f"{value}_all", f"{value}_{scope}"):
                    if name not in negation:
                        negation.update({f"{value}_{other}": [0, 0, 0, 0] for other in NEGATION_SCOPES})
                    targets.append(negation[name])
            for target in targets:
                for index in range(4):
                    target[index] += counts[index]
        result: dict[str, Any] = {name: _scores(counts) for name, counts in buckets.items()}
        result["Negation_analysis"] = {name: _scores(counts) for name, counts in negation.items()}
        return result


def _scores(counts: list[int]) -> dict[str, Any]:
    named = dict(zip(("TP", "FP", "FN", "TN"), counts))
    return {**named, "accuracy": accuracy(named)}


def group_coherence(pattern_id: int, items: Sequence[TruthItem], predictions: Sequence[bool]) -> dict[str, str]:
    """The verdict (:data:`COHERENT`, :data:`INCOHERENT` or :data:`EMPTY_CELL`) of each coherence measure for one group.

    1. Only sentences whose gold label is the truth table's value for their cell are kept (pattern #02/#04
       use their own row); the others are ignored in 2-3.
    2. ``Affirmation-Negation_Input``: incoherent if the kept input-affirmative predictions are not all equal
       or the kept input-negative ones are not; otherwise coherent iff the two values differ.
       ``Affirmation-Negation_Distractor``: the same on distractor sentences.
    3. ``Input-Distractor_Affirmation``: incoherent if the kept input-affirmative or distractor-affirmative
       predictions are not all equal; otherwise coherent iff the two values differ (#02/#04: iff they are
       equal). ``Input-Distractor_Negation``: the same on negative sentences.
    4. ``All``: coherent iff both measures of step 2 are coherent and the predictions of ALL the group's
       sentences (filtered ones included) are all correct or all wrong.

    When the values of step 2 or 3 cannot be compared because a cell is empty, the verdict is
    :data:`EMPTY_CELL` (the authors' code crashes there); ``All`` inherits it from step 2.
    """
    cells: dict[tuple[bool, bool], set[bool]] = {(d, n): set() for d in (False, True) for n in (False, True)}
    for item, prediction in zip(items, predictions):
        if item.label == expected_label(pattern_id, item.is_distractor, item.is_negated):
            cells[(item.is_distractor, item.is_negated)].add(prediction)

    def compare(first: set[bool], second: set[bool], coherent_if_equal: bool) -> str:
        if len(first) > 1 or len(second) > 1:
            return INCOHERENT
        if not first or not second:
            return EMPTY_CELL
        return COHERENT if (first == second) == coherent_if_equal else INCOHERENT

    same_wanted = pattern_id in ANTONYMY_PATTERNS
    verdicts = {
        "Affirmation-Negation_Input": compare(cells[(False, False)], cells[(False, True)], False),
        "Affirmation-Negation_Distractor": compare(cells[(True, False)], cells[(True, True)], False),
        "Input-Distractor_Affirmation": compare(cells[(False, False)], cells[(True, False)], same_wanted),
        "Input-Distractor_Negation": compare(cells[(False, True)], cells[(True, True)], same_wanted),
    }
    correct = {item.label == prediction for item, prediction in zip(items, predictions)}
    step2 = (verdicts["Affirmation-Negation_Input"], verdicts["Affirmation-Negation_Distractor"])
    if EMPTY_CELL in step2 and INCOHERENT not in step2:
        verdicts["All"] = EMPTY_CELL
    elif step2 == (COHERENT, COHERENT) and len(correct) <= 1:
        verdicts["All"] = COHERENT
    else:
        verdicts["All"] = INCOHERENT
    return {measure: verdicts[measure] for measure in COHERENCE_MEASURES}


def coherence_scores(verdicts: Iterable[dict[str, str]]) -> dict[str, dict[str, Any]]:
    """Coherence percentages, in the authors' layout, from the :func:`group_coherence` verdicts of some groups.

    Each measure gets ``Coherent``, ``Incoherent`` (empty-cell groups included), ``Empty_cells`` and
    ``Coherence_percentage`` (rounded to 2 decimals; 0 without groups).
    """
    tally: dict[str, dict[str, Any]] = {
        measure: {"Coherent": 0, "Incoherent": 0, "Empty_cells": 0} for measure in COHERENCE_MEASURES
    }
    for group_verdicts in verdicts:
        for measure, verdict in group_verdicts.items():
            tally[measure]["Coherent" if verdict == COHERENT else "Incoherent"] += 1
            tally[measure]["Empty_cells"] += verdict == EMPTY_CELL
    for counts in tally.values():
        total = counts["Coherent"] + counts["Incoherent"]
        counts["Coherence_percentage"] = round((counts["Coherent"] / total) * 100, 2) if total > 0 else 0
    return tally


def record_p_true(records: Sequence[Mapping[str, Any]]) -> list[float] | None:
    """Every sample record's ``p_true``, or None when some record has none (a generated answer, a baseline)."""
    values: list[Any] = [record.get("p_true") for record in records]
    if not values or any(
        not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) for value in values
    ):
        return None
    return [float(value) for value in values]


def tind_metrics(
    items: Sequence[TruthItem], predictions: Sequence[bool], p_true: Sequence[float] | None = None
) -> dict[str, Any]:
    """All TIND metrics for boolean ``predictions`` (one per item), overall and per pattern; with ``p_true`` (one
    per item) also the ROC AUCs of p(True) (``p_true_auc``).

    Groups are ``(pattern_id, group_id)``; items of a group need not be contiguous. See the module
    docstring for the layout of the result.
    """
    if len(items) != len(predictions):
        raise ValueError(f"{len(predictions)} predictions for {len(items)} items")
    if p_true is not None and len(p_true) != len(items):
        raise ValueError(f"{len(p_true)} p(True) values for {len(items)} items")
    overall = _Counts()
    per_pattern: dict[int, _Counts] = {}
    groups: dict[tuple[int, int], tuple[list[TruthItem], list[bool]]] = {}
    for item, prediction in zip(items, predictions):
        prediction = bool(prediction)
        outcome = (0 if prediction else 2) if item.label else (1 if prediction else 3)
        cell = (item.is_distractor, item.negation_type, item.semantic_type, item.syntactic_scope)
        overall.add(cell, outcome)
        pattern_counts = per_pattern.get(item.pattern_id)
        if pattern_counts is None:
            pattern_counts = per_pattern[item.pattern_id] = _Counts()
        pattern_counts.add(cell, outcome)
        group_items, group_predictions = groups.setdefault(item.group_key, ([], []))
        group_items.append(item)
        group_predictions.append(prediction)

    verdicts = {key: group_coherence(key[0], *group) for key, group in groups.items()}
    result = overall.scores()
    result["coherence_scores"] = coherence_scores(verdicts.values())
    if p_true is not None:
        result["p_true_auc"] = p_true_aucs(items, p_true)
    for pattern_id in sorted(per_pattern):
        pattern_result = per_pattern[pattern_id].scores()
        pattern_result["coherence_scores"] = coherence_scores(v for key, v in verdicts.items() if key[0] == pattern_id)
        if p_true is not None:
            chosen = [(item, score) for item, score in zip(items, p_true) if item.pattern_id == pattern_id]
            pattern_result["p_true_auc"] = p_true_aucs([item for item, _ in chosen], [score for _, score in chosen])
        result[PATTERN_NAMES[pattern_id]] = pattern_result
    empty_cell_groups = sum(EMPTY_CELL in group_verdicts.values() for group_verdicts in verdicts.values())
    result["summary"] = {
        "items": len(items),
        "groups": len(groups),
        "groups_with_empty_cells": empty_cell_groups,
        "patterns": [PATTERN_NAMES[pattern_id] for pattern_id in sorted(per_pattern)],
    }
    return result
