"""NegNLI metrics (Hossain et al., 2020, as the NaN-NLI paper scores its MNLI file in Table 5 and Figure 1).

Per-class F1, "All" = support-weighted F1 and accuracy over the file's labels (3-way for MNLI and SNLI; entailment /
not_entailment for RTE), balanced accuracy (the mean recall over the gold labels: 1 / labels for any constant
answer, where RTE's 79% *not_entailment* gives an always-"no" model 79% accuracy), the confusion matrix normalised
by the true label (and in counts), and accuracy by where negation was added (premise, hypothesis, both: the three
rows made from one original pair). Intervals resample original pairs (a triple's three items share their texts;
:mod:`negkit.benchmarks.negnli.data`).

A prediction outside the labels (e.g. an unparsable answer) counts as wrong and in no column of the confusion matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from negkit.benchmarks.negnli.data import TRIPLE_CONDITIONS
from negkit.kit.data.nli import NLIItem
from negkit.kit.metrics.classification import normalised_confusion
from negkit.kit.metrics.intervals import Estimand, ratio_estimand
from negkit.kit.metrics.nli import check_predictions, setting_scores
from negkit.kit.metrics.nli_intervals import (
    balanced_accuracy,
    balanced_accuracy_estimand,
    confusion_estimands,
    nli_unit,
    setting_estimands,
)

UNIT = "NegNLI original pair"


def negnli_report(items: Sequence[NLIItem], predicted: Sequence[str], labels: Sequence[str]) -> dict[str, Any]:
    """``standard`` (per_class P/R/F1/support, all_f1, accuracy), ``balanced_accuracy``, ``confusion_matrix``
    (normalised by the true label), ``confusion_counts`` and ``accuracy_by_negation`` (premise / hypothesis / both,
    when the items carry it)."""
    check_predictions(items, predicted)
    gold = [item.label for item in items]
    counts = {
        true: {guess: sum(1 for g, p in zip(gold, predicted) if g == true and p == guess) for guess in labels}
        for true in labels
    }
    by_negation: dict[str, dict[str, Any]] = {}
    for condition in TRIPLE_CONDITIONS:
        chosen = [item.label == label for item, label in zip(items, predicted) if item.condition == condition]
        if chosen:
            by_negation[condition] = {
                "correct": sum(chosen),
                "total": len(chosen),
                "accuracy": sum(chosen) / len(chosen),
            }
    return {
        "count": len(items),
        "labels": list(labels),
        "standard": asdict(setting_scores(gold, predicted, labels)),
        "balanced_accuracy": balanced_accuracy(gold, predicted, labels),
        "confusion_matrix": normalised_confusion(gold, predicted, labels),
        "confusion_counts": counts,
        "accuracy_by_negation": by_negation,
    }


def negnli_estimands(items: Sequence[NLIItem], predicted: Sequence[str], labels: Sequence[str]) -> list[Estimand]:
    """Intervals of every metric of :func:`negnli_report` (same paths), resampling original pairs."""
    check_predictions(items, predicted)
    units = [nli_unit(item) for item in items]
    gold = [item.label for item in items]
    estimands = setting_estimands("standard", gold, predicted, units, labels, UNIT, "standard")
    estimands.append(balanced_accuracy_estimand("balanced_accuracy", gold, predicted, units, labels, UNIT))
    estimands += confusion_estimands(gold, predicted, units, labels, UNIT)
    correct = np.array([item.label == label for item, label in zip(items, predicted)], dtype=float)
    for condition in TRIPLE_CONDITIONS:
        mask = np.array([item.condition == condition for item in items], dtype=float)
        estimands.append(
            ratio_estimand(
                f"accuracy_by_negation.{condition}.accuracy",
                correct * mask,
                mask,
                units,
                UNIT,
                label=f"accuracy (negation in {condition})",
            )
        )
    return estimands
