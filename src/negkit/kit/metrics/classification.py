"""Classification metrics shared by the NLI suites: per-class precision/recall/F1, support-weighted and macro
averages, accuracy and a confusion matrix normalised by the true label. Pure functions over label sequences.

Conventions (those of scikit-learn's ``classification_report``): a ratio with a zero denominator is 0.0; the
macro average runs over the labels that occur in the gold or the predicted labels of the items scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ClassScores:
    """Precision, recall, F1 and support (number of gold items) of one class."""

    precision: float
    recall: float
    f1: float
    support: int


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def _check_lengths(gold: Sequence[str], predicted: Sequence[str]) -> None:
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")


def class_scores(gold: Sequence[str], predicted: Sequence[str], label: str) -> ClassScores:
    """Precision, recall and F1 of ``label`` treated as the positive class."""
    _check_lengths(gold, predicted)
    true_positive = sum(1 for g, p in zip(gold, predicted) if g == label and p == label)
    predicted_positive = sum(1 for p in predicted if p == label)
    support = sum(1 for g in gold if g == label)
    precision = _ratio(true_positive, predicted_positive)
    recall = _ratio(true_positive, support)
    return ClassScores(precision, recall, _ratio(2 * precision * recall, precision + recall), support)


def per_class_scores(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> dict[str, ClassScores]:
    """:func:`class_scores` for every label in ``labels``."""
    return {label: class_scores(gold, predicted, label) for label in labels}


def support_weighted_f1(scores: dict[str, ClassScores]) -> float:
    """Per-class F1 averaged with the classes' supports as weights (NaN-NLI's "All")."""
    total = sum(score.support for score in scores.values())
    return _ratio(sum(score.f1 * score.support for score in scores.values()), total)


def macro_scores(gold: Sequence[str], predicted: Sequence[str]) -> tuple[float, float, float]:
    """Macro-averaged (precision, recall, F1) over the labels present in ``gold`` or ``predicted``."""
    labels = sorted(set(gold) | set(predicted))
    if not labels:
        return 0.0, 0.0, 0.0
    scores = per_class_scores(gold, predicted, labels).values()
    count = len(labels)
    return (
        sum(s.precision for s in scores) / count,
        sum(s.recall for s in scores) / count,
        sum(s.f1 for s in scores) / count,
    )


def accuracy(gold: Sequence[object], predicted: Sequence[object]) -> float:
    """Share of positions where the prediction equals the gold value (0.0 when empty)."""
    _check_lengths(gold, predicted)  # type: ignore[arg-type]
    return _ratio(sum(1 for g, p in zip(gold, predicted) if g == p), len(gold))


def normalised_confusion(
    gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]
) -> dict[str, dict[str, float]]:
    """``matrix[true][predicted]`` = share of the items of true label ``true`` predicted as ``predicted``.

    Each row sums to 1 (or is all zeros when the label has no gold item). Predictions outside ``labels``
    are not counted in any column, so such a row sums to less than 1.
    """
    _check_lengths(gold, predicted)
    matrix: dict[str, dict[str, float]] = {}
    for true_label in labels:
        row_predictions = [p for g, p in zip(gold, predicted) if g == true_label]
        matrix[true_label] = {
            label: _ratio(sum(1 for p in row_predictions if p == label), len(row_predictions)) for label in labels
        }
    return matrix
