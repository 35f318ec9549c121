"""Markdown tables every NLI benchmark prints the same way: F1 per class with All and accuracy (the NaN-NLI paper's
Table 5 columns), and the confusion matrix normalised by the true label (its Figure 1), with 95% intervals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from negkit.kit.render.markdown import markdown_table, with_interval


def f1_table(standard: Mapping[str, Any], labels: Sequence[str], intervals: Mapping[str, Any] | None) -> str:
    """F1 of each label, the support-weighted F1 (All) and accuracy, from a report's ``standard`` setting."""
    return markdown_table(
        [*(f"F1 {label}" for label in labels), "All (support-weighted F1)", "accuracy"],
        [
            [
                with_interval(standard["per_class"][label]["f1"], intervals, f"standard.per_class.{label}.f1")
                for label in labels
            ]
            + [
                with_interval(standard["all_f1"], intervals, "standard.all_f1"),
                with_interval(standard["accuracy"], intervals, "standard.accuracy"),
            ]
        ],
    )


def confusion_table(metrics: Mapping[str, Any], labels: Sequence[str], intervals: Mapping[str, Any] | None) -> str:
    """The ``confusion_matrix`` of a report (rows: true label, normalised), with each true label's pairs."""
    confusion = metrics["confusion_matrix"]
    support = metrics["standard"]["per_class"]
    return markdown_table(
        ["true \\ predicted", *labels, "pairs"],
        [
            [true]
            + [with_interval(confusion[true][guess], intervals, f"confusion_matrix.{true}.{guess}") for guess in labels]
            + [support[true]["support"]]
            for true in labels
        ],
    )
