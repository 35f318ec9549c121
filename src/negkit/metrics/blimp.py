"""BLiMP negation metrics: accuracy per paradigm and over the seven, with their intervals.

A pair is right when the good sentence's log-probability is the higher one (on a tie the good sentence is
taken: the arg-max picks the first choice, as the LM Evaluation Harness's ``acc`` does). ``overall.accuracy`` is the
mean of the paradigm accuracies (BLiMP's way of averaging; with 1,000 pairs per paradigm it equals the pooled
accuracy, which is ``overall.pooled_accuracy``). Intervals resample pairs (each pair is asked once and is
independent of the others). Pure functions over per-pair records (``item_id``, ``paradigm``, ``correct``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from negkit.data.blimp import PARADIGMS
from negkit.metrics.intervals import Estimand, ratio_estimand

UNIT = "BLiMP pair"


def pair_correct(logprob_good: float, logprob_bad: float) -> bool:
    """The good sentence is chosen: its log-probability is at least the bad one's (ties go to the first choice)."""
    return not logprob_bad > logprob_good


def _paradigms(records: Sequence[Mapping[str, Any]]) -> list[str]:
    present = {record["paradigm"] for record in records}
    return [name for name in PARADIGMS if name in present] + sorted(present - set(PARADIGMS))


def blimp_report(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``paradigms.NAME`` (correct, total, accuracy) in :data:`PARADIGMS` order, and ``overall`` (the mean of the
    paradigm accuracies, and the pooled accuracy over every pair)."""
    paradigms: dict[str, dict[str, Any]] = {}
    for name in _paradigms(records):
        chosen = [bool(record["correct"]) for record in records if record["paradigm"] == name]
        paradigms[name] = {"correct": sum(chosen), "total": len(chosen), "accuracy": sum(chosen) / len(chosen)}
    correct = sum(bool(record["correct"]) for record in records)
    accuracies = [values["accuracy"] for values in paradigms.values()]
    overall = {
        "accuracy": sum(accuracies) / len(accuracies) if accuracies else 0.0,
        "pooled_accuracy": correct / len(records) if records else 0.0,
        "correct": correct,
        "total": len(records),
        "paradigms": len(paradigms),
    }
    return {"count": len(records), "paradigms": paradigms, "overall": overall}


def _mean_of_ratios(sums: np.ndarray) -> np.ndarray:
    """Mean over paradigms of ``correct_p / pairs_p`` from columns ``[correct_1, pairs_1, correct_2, ...]``
    (paradigms that a resample left empty are skipped)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        per_paradigm = sums[:, 0::2] / np.where(sums[:, 1::2] == 0, np.nan, sums[:, 1::2])
        return np.nanmean(per_paradigm, axis=1)


def blimp_estimands(records: Sequence[Mapping[str, Any]]) -> list[Estimand]:
    """Accuracy per paradigm (``paradigms.NAME.accuracy``), the mean over paradigms (``overall.accuracy``) and the
    pooled accuracy (``overall.pooled_accuracy``), resampling pairs."""
    units = [str(record["item_id"]) for record in records]
    correct = np.array([bool(record["correct"]) for record in records], dtype=float)
    estimands, columns = [], []
    for name in _paradigms(records):
        mask = np.array([record["paradigm"] == name for record in records], dtype=float)
        columns += [correct * mask, mask]
        estimands.append(ratio_estimand(f"paradigms.{name}.accuracy", correct * mask, mask, units, UNIT, label=name))
    if columns:
        estimands.append(Estimand("overall.accuracy", np.column_stack(columns), units, _mean_of_ratios, UNIT,
                                  "accuracy (mean of paradigms)", headline=True))
    estimands.append(ratio_estimand("overall.pooled_accuracy", correct, None, units, UNIT, label="accuracy (pooled)"))
    return estimands
