"""Interval primitives of the NLI settings: per-class F1, support-weighted F1, accuracy and macro scores as
estimands over label counts, resampling a benchmark's unit (its premise, its base pair, else the item)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np

from negkit.kit.data.nli import NLIItem
from negkit.kit.metrics.intervals import Estimand, ratio_estimand, safe_divide


def nli_unit(item: NLIItem) -> Hashable:
    """The unit an NLI item is resampled with: its premise where it has one, else its base pair's row, else itself."""
    if item.premise_id:
        return item.premise_id
    if item.row >= 0:
        return item.row
    return item.item_id


def label_counts(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> np.ndarray:
    """Per item and label: [true positive, predicted, gold] (``3 * len(labels)`` columns)."""
    columns = []
    for label in labels:
        is_gold = np.array([g == label for g in gold], dtype=float)
        is_predicted = np.array([p == label for p in predicted], dtype=float)
        columns += [is_gold * is_predicted, is_predicted, is_gold]
    return np.column_stack(columns) if columns and len(gold) else np.zeros((len(gold), 3 * len(labels)))


def _per_class(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall, F1 and support per class from summed :func:`label_counts` (each ``(B, L)``)."""
    tp, predicted, gold = sums[:, 0::3], sums[:, 1::3], sums[:, 2::3]
    precision, recall = safe_divide(tp, predicted), safe_divide(tp, gold)
    return precision, recall, safe_divide(2 * precision * recall, precision + recall), gold


def class_f1(position: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda sums: _per_class(sums)[2][:, position]


def weighted_f1(sums: np.ndarray) -> np.ndarray:
    _, _, f1, gold = _per_class(sums)
    return safe_divide((f1 * gold).sum(axis=1), gold.sum(axis=1))


def accuracy_of(sums: np.ndarray) -> np.ndarray:
    tp, gold = sums[:, 0::3].sum(axis=1), sums[:, 2::3].sum(axis=1)
    return np.where(gold == 0, np.nan, tp / np.where(gold == 0, 1, gold))


def macro_of(which: int) -> Callable[[np.ndarray], np.ndarray]:
    """Macro precision (0), recall (1) or F1 (2) over the labels present in gold or predictions."""

    def statistic(sums: np.ndarray) -> np.ndarray:
        scores = _per_class(sums)[which]
        present = (sums[:, 1::3] + sums[:, 2::3]) > 0
        return safe_divide((scores * present).sum(axis=1), present.sum(axis=1))

    return statistic


def balanced_accuracy_of(sums: np.ndarray) -> np.ndarray:
    """Balanced accuracy: the mean recall over the labels present in gold (a constant answer scores
    ``1 / labels``, whatever the label prior)."""
    recall = _per_class(sums)[1]
    present = sums[:, 2::3] > 0
    return np.where(present.any(axis=1), safe_divide((recall * present).sum(axis=1), present.sum(axis=1)), np.nan)


def balanced_accuracy(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> float | None:
    """:func:`balanced_accuracy_of` over all the items (the point estimate of :func:`balanced_accuracy_estimand`);
    None without items."""
    value = float(balanced_accuracy_of(label_counts(gold, predicted, labels).sum(axis=0, keepdims=True))[0])
    return None if np.isnan(value) else value


def balanced_accuracy_estimand(
    path: str,
    gold: Sequence[str],
    predicted: Sequence[str],
    units: Sequence[Hashable],
    labels: Sequence[str],
    unit: str,
    headline: bool = True,
) -> Estimand:
    """The interval of :func:`balanced_accuracy_of` over ``labels``, resampling ``units`` (one per item)."""
    counts = label_counts(gold, predicted, labels)
    return Estimand(path, counts, list(units), balanced_accuracy_of, unit, "balanced accuracy", headline=headline)


def setting_block(
    prefix: str, counts: np.ndarray, units: list[Hashable], labels: Sequence[str], unit: str, name: str, headline: bool
) -> list[Estimand]:
    estimands = [
        Estimand(f"{prefix}.per_class.{label}.f1", counts, units, class_f1(position), unit, f"F1 {label} ({name})")
        for position, label in enumerate(labels)
    ]
    estimands.append(
        Estimand(f"{prefix}.all_f1", counts, units, weighted_f1, unit, f"F1 All ({name})", headline=headline)
    )
    estimands.append(
        Estimand(f"{prefix}.accuracy", counts, units, accuracy_of, unit, f"accuracy ({name})", headline=headline)
    )
    return estimands


def setting_estimands(
    prefix: str,
    gold: Sequence[str],
    predicted: Sequence[str],
    units: Sequence[Hashable],
    labels: Sequence[str],
    unit: str,
    name: str,
    headline: bool = True,
) -> list[Estimand]:
    """Per-class F1 (``PREFIX.per_class.LABEL.f1``), support-weighted F1 (``PREFIX.all_f1``) and accuracy
    (``PREFIX.accuracy``) over ``labels``, resampling ``units`` (one per item); other suites' NLI settings."""
    return setting_block(prefix, label_counts(gold, predicted, labels), list(units), labels, unit, name, headline)


def confusion_estimands(
    gold: Sequence[str], predicted: Sequence[str], units: Sequence[Hashable], labels: Sequence[str], unit: str
) -> list[Estimand]:
    """``confusion_matrix.TRUE.GUESS``: the share of the pairs of each true label given each label, resampling
    ``units``."""
    estimands = []
    for true in labels:
        is_true = np.array([g == true for g in gold], dtype=float)
        for guess in labels:
            hit = np.array([p == guess for p in predicted], dtype=float) * is_true
            estimands.append(
                ratio_estimand(
                    f"confusion_matrix.{true}.{guess}", hit, is_true, units, unit, label=f"{true} -> {guess}"
                )
            )
    return estimands
