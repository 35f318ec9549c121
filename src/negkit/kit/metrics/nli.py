"""NLI settings every NLI benchmark reports (Truong et al., 2022, section 4, and the benchmarks after it).

All functions take the items and the predicted labels in the same order; a prediction is one of
:data:`~negkit.kit.data.nli.NLI_LABELS` (any other string, e.g. an unparsable answer, simply counts as wrong).

- standard: 3-way per-class P/R/F1 and "All" = support-weighted F1;
- binary: entailment vs not-entailment (contradiction and neutral merged), same scores;
- strict: a premise is correct only when every one of its hypotheses is;
- the confusion matrix normalised by the true label, macro scores over a subset, error rates per key.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.kit.metrics.classification import (
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

#: An NLI item of any kind (a benchmark's own items carry more fields).
ItemT = TypeVar("ItemT", bound=NLIItem)


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


def check_predictions(items: Sequence[NLIItem], predicted: Sequence[str]) -> None:
    """Raise ``ValueError`` unless there is one prediction per item."""
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
    check_predictions(items, predicted)
    return setting_scores([item.label for item in items], predicted, NLI_LABELS)


def binary_scores(items: Sequence[NLIItem], predicted: Sequence[str]) -> SettingScores:
    """Entailment vs not-entailment."""
    check_predictions(items, predicted)
    return setting_scores([to_binary(item.label) for item in items], [to_binary(p) for p in predicted], BINARY_LABELS)


def strict_score(items: Sequence[NLIItem], predicted: Sequence[str]) -> StrictScore:
    """Premises whose hypotheses are all labelled correctly, over all premises (grouped by ``premise_id``)."""
    check_predictions(items, predicted)
    all_right: dict[str, bool] = {}
    for item, label in zip(items, predicted):
        all_right[item.premise_id] = all_right.get(item.premise_id, True) and label == item.label
    return StrictScore(sum(all_right.values()), len(all_right))


def macro_over(items: Sequence[ItemT], predicted: Sequence[str], keep: Callable[[ItemT], bool]) -> MacroScores:
    chosen = [(item.label, label) for item, label in zip(items, predicted) if keep(item)]
    gold = [g for g, _ in chosen]
    guesses = [p for _, p in chosen]
    return MacroScores(*macro_scores(gold, guesses), count=len(chosen))


def error_rates(pairs: list[tuple[str, bool]]) -> dict[str, ErrorRate]:
    """Group ``(key, wrong)`` pairs by key, in first-seen order."""
    counts: dict[str, list[int]] = {}
    for key, wrong in pairs:
        bucket = counts.setdefault(key, [0, 0])
        bucket[0] += int(wrong)
        bucket[1] += 1
    return {key: ErrorRate(wrong, total) for key, (wrong, total) in counts.items()}


def confusion_matrix(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, dict[str, float]]:
    """3-way confusion matrix normalised by the true label (Figure 1)."""
    check_predictions(items, predicted)
    return normalised_confusion([item.label for item in items], predicted, NLI_LABELS)


def rates_dict(rates: dict[str, ErrorRate]) -> dict[str, dict[str, Any]]:
    return {key: {**asdict(value), "rate": value.rate} for key, value in rates.items()}


def strict_dict(score: StrictScore) -> dict[str, Any]:
    return {**asdict(score), "accuracy": score.accuracy}
