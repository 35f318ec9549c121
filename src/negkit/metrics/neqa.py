"""NeQA metrics: accuracy (``acc``: the class with the highest log-likelihood) and ``acc_norm`` (per character of
the class, as the LM Evaluation Harness), the share of answers per class, and their intervals (the question is the
unit). Pure functions over per-question records (``item_id``, ``classes``, ``gold``, ``prediction``,
``prediction_norm``: class indices).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from negkit.metrics.intervals import Estimand, ratio_estimand

UNIT = "NeQA question"


def neqa_report(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``acc``, ``acc_norm`` and ``choice_share`` (share of questions answered with each class position, ``A``,
    ``B``, ... as the classes are written), over ``count`` questions."""
    count = len(records)
    correct = sum(record["prediction"] == record["gold"] for record in records)
    correct_norm = sum(record["prediction_norm"] == record["gold"] for record in records)
    width = max((len(record["classes"]) for record in records), default=0)
    share = {}
    for position in range(width):
        name = _class_name(records, position)
        share[name] = sum(record["prediction"] == position for record in records) / count if count else 0.0
    gold_share = {_class_name(records, position): sum(record["gold"] == position for record in records) / count
                  if count else 0.0 for position in range(width)}
    return {"count": count, "acc": correct / count if count else 0.0, "acc_norm": correct_norm / count if count else 0.0,
            "correct": correct, "choice_share": share, "gold_share": gold_share}


def _class_name(records: Sequence[Mapping[str, Any]], position: int) -> str:
    """The class at ``position`` as written (stripped), when every question names it the same; else its number."""
    names = {record["classes"][position].strip() for record in records if len(record["classes"]) > position}
    return names.pop() if len(names) == 1 else f"choice {position + 1}"


def neqa_estimands(records: Sequence[Mapping[str, Any]]) -> list[Estimand]:
    """``acc`` and ``acc_norm`` (headline) and each ``choice_share.NAME``, resampling questions."""
    units = [str(record["item_id"]) for record in records]
    estimands = []
    for key, path in (("prediction", "acc"), ("prediction_norm", "acc_norm")):
        correct = np.array([record[key] == record["gold"] for record in records], dtype=float)
        estimands.append(ratio_estimand(path, correct, None, units, UNIT, label=path, headline=True))
    width = max((len(record["classes"]) for record in records), default=0)
    for position in range(width):
        picked = np.array([record["prediction"] == position for record in records], dtype=float)
        name = _class_name(records, position)
        estimands.append(ratio_estimand(f"choice_share.{name}", picked, None, units, UNIT, label=f"answers {name}"))
    return estimands
