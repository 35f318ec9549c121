"""ScoNe's intervals: its six conditions are edits of one base pair (row ``i`` of every condition file), so the
base pair is the unit."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from negkit.benchmarks.scone.data import SCONE_CONDITIONS
from negkit.kit.data.nli import NLIItem
from negkit.kit.metrics.intervals import Estimand, ratio_estimand
from negkit.kit.metrics.nli_intervals import nli_unit

SCONE_UNIT = "ScoNe base pair"


def scone_estimands(items: Sequence[NLIItem], predicted: Sequence[str]) -> list[Estimand]:
    """ScoNe accuracy per condition present and overall (paths ``accuracy.CONDITION``), clustered by base pair."""
    if len(items) != len(predicted):
        raise ValueError(f"{len(items)} items but {len(predicted)} predictions")
    units = [nli_unit(item) for item in items]
    correct = np.array([label == item.label for item, label in zip(items, predicted)], dtype=float)
    estimands = []
    present = {item.condition for item in items}
    for condition in (condition for condition in SCONE_CONDITIONS if condition in present):
        mask = np.array([item.condition == condition for item in items], dtype=float)
        estimands.append(
            ratio_estimand(
                f"accuracy.{condition}", correct * mask, mask, units, SCONE_UNIT, label=condition, headline=True
            )
        )
    estimands.append(
        ratio_estimand("accuracy.overall", correct, None, units, SCONE_UNIT, label="overall", headline=True)
    )
    return estimands
