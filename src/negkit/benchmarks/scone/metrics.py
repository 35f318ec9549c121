"""ScoNe metrics (She et al., 2023): accuracy per condition and overall."""

from __future__ import annotations

from collections.abc import Sequence

from negkit.benchmarks.scone.data import SCONE_CONDITIONS
from negkit.kit.data.nli import NLIItem
from negkit.kit.metrics.classification import accuracy
from negkit.kit.metrics.nli import check_predictions


def scone_accuracy(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, float]:
    """ScoNe accuracy per condition (conditions present, in the paper's order) and ``overall``."""
    check_predictions(items, predicted)
    result: dict[str, float] = {}
    for condition in SCONE_CONDITIONS:
        pairs = [(item.label, label) for item, label in zip(items, predicted) if item.condition == condition]
        if pairs:
            result[condition] = accuracy([g for g, _ in pairs], [p for _, p in pairs])
    result["overall"] = accuracy([item.label for item in items], list(predicted))
    return result
