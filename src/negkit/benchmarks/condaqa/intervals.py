"""Which CondaQA metrics get a confidence interval, and how: the passage is the unit (its questions are asked of
the original passage and of its three edits, so they share the passage's text), for accuracy (overall and per
edit) and for group consistency (one row per ``(PassageID, QuestionID)`` group).

The input is the task's per-question records (``passage_id``, ``question_id``, ``edit`` name, ``correct``), so
that runs can also be compared from their samples. Paths are those of
:func:`negkit.benchmarks.condaqa.metrics.condaqa_report`: ``accuracy.accuracy``, ``accuracy_per_edit.EDIT.accuracy``,
``consistency.all.accuracy``, ``consistency.EDIT.accuracy``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from negkit.benchmarks.condaqa.data import EDITS
from negkit.kit.metrics.intervals import Estimand, ratio_estimand

UNIT = "CondaQA passage"
ORIGINAL = EDITS[0]


def condaqa_estimands(records: Sequence[Mapping[str, Any]]) -> list[Estimand]:
    """Accuracy and group consistency with their units (see the module doc)."""
    units = [record["passage_id"] for record in records]
    correct = np.array([bool(record["correct"]) for record in records], dtype=float)
    estimands = [ratio_estimand("accuracy.accuracy", correct, None, units, UNIT, label="accuracy", headline=True)]
    for name in EDITS.values():
        mask = np.array([record["edit"] == name for record in records], dtype=float)
        estimands.append(
            ratio_estimand(
                f"accuracy_per_edit.{name}.accuracy", correct * mask, mask, units, UNIT, label=f"acc. {name}"
            )
        )
    groups: dict[tuple[Any, Any], dict[str, bool]] = {}
    for record in records:
        groups.setdefault((record["passage_id"], record["question_id"]), {})[record["edit"]] = bool(record["correct"])
    keys = list(groups)
    group_units = [key[0] for key in keys]
    consistent = np.array([all(groups[key].values()) for key in keys], dtype=float)
    estimands.append(
        ratio_estimand(
            "consistency.all.accuracy", consistent, None, group_units, UNIT, label="consistency (all)", headline=True
        )
    )
    for name in list(EDITS.values())[1:]:
        both = np.array([ORIGINAL in groups[key] and name in groups[key] for key in keys], dtype=float)
        hits = np.array(
            [groups[key].get(ORIGINAL, False) and groups[key].get(name, False) for key in keys], dtype=float
        )
        estimands.append(
            ratio_estimand(
                f"consistency.{name}.accuracy", hits * both, both, group_units, UNIT, label=f"consistency ({name})"
            )
        )
    return estimands
