"""Which Thunder-NUBench metrics get a confidence interval, and how: the item is the unit (each item is one
sentence with its own candidates; few-shot runs over several seeds ask the same items again, so an item's
answers in every run are resampled together).

Paths are those of :func:`negkit.benchmarks.nubench.task.nubench_metrics`: ``summary.acc.mean`` and
``summary.acc_norm.mean`` (the mean over runs of each run's accuracy), and per run ``runs.RUN.acc``,
``runs.RUN.acc_norm``, ``runs.RUN.choice_share.choiceK`` (share of all answers), ``runs.RUN.error_analysis.error_rate``, ``...error_share_percent.choiceK`` (percent of
the wrong answers) and ``...confusion_rate.TYPE``. The input is the task's per-item records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from negkit.kit.metrics.intervals import Estimand, ratio_estimand
from negkit.benchmarks.nubench.metrics import CHOICE_NAMES, LOCAL_NEGATION_TYPES, WRONG_CHOICES

UNIT = "Thunder-NUBench item"
GOLD = "choice1"


def _mean_over_runs(sums: np.ndarray) -> np.ndarray:
    """Mean over runs of ``correct_r / present_r`` from columns ``[correct_1, present_1, correct_2, ...]``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        per_run = sums[:, 0::2] / np.where(sums[:, 1::2] == 0, np.nan, sums[:, 1::2])
    return per_run.mean(axis=1)


def nubench_estimands(records: Sequence[Mapping[str, Any]], runs: Sequence[str],
                      headline_only: bool = False) -> list[Estimand]:
    """Every interval of a Thunder-NUBench run from its records (``item_id``, ``choice2_type``, ``runs``);
    ``headline_only``: the means over runs of acc and acc_norm alone."""
    units = [str(record["item_id"]) for record in records]
    estimands: list[Estimand] = []
    for key, metric in (("prediction", "acc"), ("prediction_norm", "acc_norm")):
        columns = []
        for run in runs:
            answers = [record["runs"].get(run, {}) for record in records]
            if any(run_answers and run_answers.get(key) is None for run_answers in answers):
                break  # this metric is missing in some run (as in the metrics: acc_norm is then None)
            present = np.array([bool(run_answers) for run_answers in answers], dtype=float)
            correct = np.array([run_answers.get(key) == GOLD for run_answers in answers], dtype=float)
            columns += [correct, present]
            estimands.append(ratio_estimand(f"runs.{run}.{metric}", correct, present, units, UNIT, label=f"{metric} ({run})"))
        else:
            if columns:
                counts = np.column_stack(columns)
                estimands.append(Estimand(f"summary.{metric}.mean", counts, units, _mean_over_runs, UNIT, metric,
                                          headline=True))
    if headline_only:
        return [estimand for estimand in estimands if estimand.headline]
    for run in runs:
        estimands += _error_analysis(records, run, units)
    return estimands


def _error_analysis(records: Sequence[Mapping[str, Any]], run: str, units: list[str]) -> list[Estimand]:
    answers = [record["runs"].get(run, {}).get("prediction") for record in records]
    present = np.array([answer is not None for answer in answers], dtype=float)
    wrong = np.array([answer is not None and answer != GOLD for answer in answers], dtype=float)
    prefix = f"runs.{run}.error_analysis"
    estimands = [ratio_estimand(f"{prefix}.error_rate", wrong, present, units, UNIT, label=f"error rate ({run})")]
    for choice in CHOICE_NAMES:
        picked = np.array([answer == choice for answer in answers], dtype=float)
        estimands.append(ratio_estimand(f"runs.{run}.choice_share.{choice}", picked, present, units, UNIT,
                                        label=f"share {choice} ({run})"))
    for choice in WRONG_CHOICES:
        picked = np.array([answer == choice for answer in answers], dtype=float)
        estimands.append(ratio_estimand(f"{prefix}.error_share_percent.{choice}", picked, wrong, units, UNIT, 100.0,
                                        label=f"% errors {choice} ({run})"))
    types = [record.get("choice2_type") for record in records]
    for kind in LOCAL_NEGATION_TYPES:
        of_kind = np.array([t == kind for t in types], dtype=float) * present
        confused = np.array([answer == "choice2" for answer in answers], dtype=float) * of_kind
        estimands.append(ratio_estimand(f"{prefix}.confusion_rate.{kind}", confused, of_kind, units, UNIT,
                                        label=f"confusion {kind} ({run})"))
    return estimands


def nubench_run_estimands(records: Sequence[Mapping[str, Any]], runs: Sequence[str]) -> list[Estimand]:
    """The intervals of a prompt sweep (``negkit.benchmarks.nubench.sweep_tasks``): each run's ``acc`` and ``acc_norm``
    (paths ``runs.RUN.acc`` / ``runs.RUN.acc_norm``), resampling items."""
    units = [str(record["item_id"]) for record in records]
    estimands: list[Estimand] = []
    for run in runs:
        answers = [record["runs"].get(run, {}) for record in records]
        present = np.array([bool(run_answers) for run_answers in answers], dtype=float)
        for key, metric in (("prediction", "acc"), ("prediction_norm", "acc_norm")):
            if any(run_answers and run_answers.get(key) is None for run_answers in answers):
                continue
            correct = np.array([run_answers.get(key) == GOLD for run_answers in answers], dtype=float)
            estimands.append(ratio_estimand(f"runs.{run}.{metric}", correct, present, units, UNIT,
                                            label=f"{metric} ({run})"))
    return estimands
