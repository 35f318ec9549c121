"""NaN-NLI and ScoNe metrics (Truong et al., 2022, section 4; She et al., 2023).

All functions take the items and the predicted labels in the same order; a prediction is one of
:data:`~negkit.data.nli.NLI_LABELS` (any other string, e.g. an unparsable answer, simply counts as wrong).

NaN-NLI settings:
- standard: 3-way per-class P/R/F1 and "All" = support-weighted F1;
- binary: entailment vs not-entailment (contradiction and neutral merged), same scores;
- strict: a premise is correct only when every one of its hypotheses is;
- breakdowns: macro P/R/F1 over the pairs whose premise (resp. hypothesis) carries each negation type, plus
  the hypotheses without negation; error rate per construction and per operation (a pair with several
  operations counts for each); the NaN-Quant subset; the confusion matrix normalised by the true label.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from negkit.data.nli import NAN_OPERATIONS, NEGATION_TYPES, NLI_LABELS, SCONE_CONDITIONS, NLIItem
from negkit.metrics.classification import (
    ClassScores,
    accuracy,
    macro_scores,
    normalised_confusion,
    per_class_scores,
    support_weighted_f1,
)

ENTAILMENT = "entailment"
NOT_ENTAILMENT = "not_entailment"
BINARY_LABELS: tuple[str, str] = (ENTAILMENT, NOT_ENTAILMENT)
#: Name of the hypothesis breakdown row for hypotheses that carry no negation.
NO_NEGATION = "No negation"


@dataclass(frozen=True)
class SettingScores:
    """Per-class scores and their support-weighted F1 ("All") for one setting."""

    per_class: dict[str, ClassScores]
    all_f1: float
    accuracy: float


@dataclass(frozen=True)
class StrictScore:
    """Strict per-premise accuracy: ``correct`` of ``total`` premises had every hypothesis right."""

    correct: int
    total: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


@dataclass(frozen=True)
class MacroScores:
    """Macro-averaged precision, recall and F1 over a group of pairs, and the group's size."""

    precision: float
    recall: float
    f1: float
    count: int


@dataclass(frozen=True)
class ErrorRate:
    """``wrong`` of ``total`` pairs were misclassified."""

    wrong: int
    total: int

    @property
    def rate(self) -> float:
        return self.wrong / self.total if self.total else 0.0


def _check(items: Sequence[NLIItem], predicted: Sequence[str]) -> None:
    if len(items) != len(predicted):
        raise ValueError(f"{len(items)} items but {len(predicted)} predictions")


def setting_scores(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> SettingScores:
    """Per-class scores, support-weighted F1 and accuracy over ``labels``."""
    per_class = per_class_scores(gold, predicted, labels)
    return SettingScores(per_class, support_weighted_f1(per_class), accuracy(gold, predicted))


def to_binary(label: str) -> str:
    """entailment stays; contradiction, neutral (and anything else) become not_entailment."""
    return ENTAILMENT if label == ENTAILMENT else NOT_ENTAILMENT


def standard_scores(items: Sequence[NLIItem], predicted: Sequence[str]) -> SettingScores:
    """The 3-way setting."""
    _check(items, predicted)
    return setting_scores([item.label for item in items], predicted, NLI_LABELS)


def binary_scores(items: Sequence[NLIItem], predicted: Sequence[str]) -> SettingScores:
    """Entailment vs not-entailment."""
    _check(items, predicted)
    return setting_scores([to_binary(item.label) for item in items], [to_binary(p) for p in predicted], BINARY_LABELS)


def strict_score(items: Sequence[NLIItem], predicted: Sequence[str]) -> StrictScore:
    """Premises whose hypotheses are all labelled correctly, over all premises (grouped by ``premise_id``)."""
    _check(items, predicted)
    all_right: dict[str, bool] = {}
    for item, label in zip(items, predicted):
        all_right[item.premise_id] = all_right.get(item.premise_id, True) and label == item.label
    return StrictScore(sum(all_right.values()), len(all_right))


def _macro_over(items: Sequence[NLIItem], predicted: Sequence[str], keep: Callable[[NLIItem], bool]) -> MacroScores:
    chosen = [(item.label, label) for item, label in zip(items, predicted) if keep(item)]
    gold = [g for g, _ in chosen]
    guesses = [p for _, p in chosen]
    return MacroScores(*macro_scores(gold, guesses), count=len(chosen))


def premise_type_breakdown(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, MacroScores]:
    """Macro P/R/F1 over the pairs whose premise carries each negation type (types with no pair are left out)."""
    _check(items, predicted)
    rows = {kind: _macro_over(items, predicted, lambda item, k=kind: k in item.premise_negation) for kind in NEGATION_TYPES}
    return {kind: scores for kind, scores in rows.items() if scores.count}


def hypothesis_type_breakdown(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, MacroScores]:
    """As :func:`premise_type_breakdown` for the hypothesis, plus :data:`NO_NEGATION` for hypotheses without one."""
    _check(items, predicted)
    rows = {kind: _macro_over(items, predicted, lambda item, k=kind: k in item.hypothesis_negation) for kind in NEGATION_TYPES}
    rows[NO_NEGATION] = _macro_over(items, predicted, lambda item: not item.hypothesis_negation)
    return {kind: scores for kind, scores in rows.items() if scores.count}


def _error_rates(pairs: list[tuple[str, bool]]) -> dict[str, ErrorRate]:
    """Group ``(key, wrong)`` pairs by key, in first-seen order."""
    counts: dict[str, list[int]] = {}
    for key, wrong in pairs:
        bucket = counts.setdefault(key, [0, 0])
        bucket[0] += int(wrong)
        bucket[1] += 1
    return {key: ErrorRate(wrong, total) for key, (wrong, total) in counts.items()}


def construction_error_rates(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, ErrorRate]:
    """Error rate per construction (Truong et al., Table 8)."""
    _check(items, predicted)
    return _error_rates([(item.construction, label != item.label) for item, label in zip(items, predicted)])


def operation_error_rates(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, ErrorRate]:
    """Error rate per operation type (Table 9); a pair with several operations counts once for each."""
    _check(items, predicted)
    pairs = [(op, label != item.label) for item, label in zip(items, predicted) for op in item.operations]
    rates = _error_rates(pairs)
    return {op: rates[op] for op in NAN_OPERATIONS if op in rates}


def quantification_subset(items: Sequence[NLIItem], predicted: Sequence[str]) -> tuple[list[NLIItem], list[str]]:
    """The NaN-Quant subset (items flagged ``Quantification``) with their predictions."""
    _check(items, predicted)
    chosen = [(item, label) for item, label in zip(items, predicted) if item.quantification]
    return [item for item, _ in chosen], [label for _, label in chosen]


def confusion_matrix(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, dict[str, float]]:
    """3-way confusion matrix normalised by the true label (Figure 1)."""
    _check(items, predicted)
    return normalised_confusion([item.label for item in items], predicted, NLI_LABELS)


def nan_nli_report(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, Any]:
    """Every NaN-NLI setting and breakdown, as plain JSON-ready data."""
    quant_items, quant_predicted = quantification_subset(items, predicted)
    return {
        "count": len(items),
        "standard": asdict(standard_scores(items, predicted)),
        "binary": asdict(binary_scores(items, predicted)),
        "strict": _strict_dict(strict_score(items, predicted)),
        "premise_negation_type": {k: asdict(v) for k, v in premise_type_breakdown(items, predicted).items()},
        "hypothesis_negation_type": {k: asdict(v) for k, v in hypothesis_type_breakdown(items, predicted).items()},
        "construction_error_rate": {k: {**asdict(v), "rate": v.rate} for k, v in construction_error_rates(items, predicted).items()},
        "operation_error_rate": {k: {**asdict(v), "rate": v.rate} for k, v in operation_error_rates(items, predicted).items()},
        "nan_quant": {
            "count": len(quant_items),
            "standard": asdict(standard_scores(quant_items, quant_predicted)),
            "binary": asdict(binary_scores(quant_items, quant_predicted)),
            "strict": _strict_dict(strict_score(quant_items, quant_predicted)),
        },
        "confusion_matrix": confusion_matrix(items, predicted),
    }


def scone_accuracy(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, float]:
    """ScoNe accuracy per condition (conditions present, in the paper's order) and ``overall``."""
    _check(items, predicted)
    result: dict[str, float] = {}
    for condition in SCONE_CONDITIONS:
        pairs = [(item.label, label) for item, label in zip(items, predicted) if item.condition == condition]
        if pairs:
            result[condition] = accuracy([g for g, _ in pairs], [p for _, p in pairs])
    result["overall"] = accuracy([item.label for item in items], list(predicted))
    return result


def _strict_dict(score: StrictScore) -> dict[str, Any]:
    return {**asdict(score), "accuracy": score.accuracy}
