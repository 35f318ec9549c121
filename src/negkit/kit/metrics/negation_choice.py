"""Metrics of standard-negation multiple choice (:mod:`negkit.kit.tasks.negation_choice`): accuracy (``acc``,
``acc_norm``) per run and their mean and SD over runs, and the error analysis: error rate = 1 - acc; among wrong
answers, the share (percent) that picked choice2, choice3, choice4; confusion rate of a local-negation type T = items
of type T predicted as choice2 / items of type T. Choice1 is always the gold answer.

Intervals resample items (each item is one sentence with its own candidates; few-shot runs over several seeds ask
the same items again, so an item's answers in every run are resampled together). Paths: ``summary.acc.mean`` and
``summary.acc_norm.mean`` (the headline), and per run ``runs.RUN.acc``, ``runs.RUN.acc_norm``,
``runs.RUN.choice_share.choiceK``, ``runs.RUN.error_analysis.error_rate``, ``...error_share_percent.choiceK`` and
``...confusion_rate.TYPE``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from negkit.kit.metrics.choice import mean_and_sd
from negkit.kit.metrics.intervals import Estimand, ratio_estimand

WRONG_CHOICES: tuple[str, ...] = ("choice2", "choice3", "choice4")
#: Every choice name; choice1 is always the gold answer.
CHOICE_NAMES: tuple[str, ...] = ("choice1", *WRONG_CHOICES)
GOLD = "choice1"


@dataclass(frozen=True)
class ErrorAnalysis:
    """The error analysis of one run: ``error_share`` maps choice2/choice3/choice4 to the percentage of wrong
    answers that picked it; ``confusion_rate`` maps each local-negation type present to the share of its items
    predicted as choice2."""

    error_rate: float
    errors: int
    total: int
    error_share: dict[str, float]
    confusion_rate: dict[str, float]


def error_analysis(
    predicted_names: Sequence[str], choice2_types: Sequence[str], local_types: Sequence[str]
) -> ErrorAnalysis:
    """Error analysis from each item's predicted choice name (``choice1``..``choice4``) and its ``choice2_type``;
    confusion rates for the ``local_types`` present."""
    if len(predicted_names) != len(choice2_types):
        raise ValueError(f"{len(predicted_names)} predictions for {len(choice2_types)} items")
    wrong = [name for name in predicted_names if name != GOLD]
    total = len(predicted_names)
    share = {name: (100.0 * wrong.count(name) / len(wrong) if wrong else 0.0) for name in WRONG_CHOICES}
    confusion: dict[str, float] = {}
    for kind in local_types:
        of_kind = [name for name, item_kind in zip(predicted_names, choice2_types) if item_kind == kind]
        if of_kind:
            confusion[kind] = of_kind.count("choice2") / len(of_kind)
    return ErrorAnalysis(len(wrong) / total if total else 0.0, len(wrong), total, share, confusion)


def choice_metrics(
    records: Sequence[Mapping[str, Any]], runs: Sequence[str], local_types: Sequence[str]
) -> dict[str, Any]:
    """acc, acc_norm and the error analysis per run, plus mean and SD over runs.

    Records need ``choice2_type`` and, per run they take part in, ``prediction`` and ``prediction_norm`` (choice
    names; ``prediction_norm`` may be None, and acc_norm is then None). A run counts the records that have it.
    """
    per_run: dict[str, Any] = {}
    for run in runs:
        chosen = [record for record in records if run in record["runs"]]
        types = [record["choice2_type"] for record in chosen]
        names = [record["runs"][run]["prediction"] for record in chosen]
        names_norm = [record["runs"][run].get("prediction_norm") for record in chosen]
        analysis = error_analysis(names, types, local_types)
        per_run[run] = {
            "count": len(chosen),
            "acc": 1.0 - analysis.error_rate,
            "acc_norm": None if None in names_norm else 1.0 - error_analysis(names_norm, types, local_types).error_rate,
            # share of all answers that picked each choice (acc predictions): the choice distribution
            "choice_share": {name: (names.count(name) / len(names) if names else 0.0) for name in CHOICE_NAMES},
            "error_analysis": {
                "error_rate": analysis.error_rate,
                "errors": analysis.errors,
                "error_share_percent": analysis.error_share,
                "confusion_rate": analysis.confusion_rate,
            },
        }
    summary: dict[str, Any] = {}
    for metric in ("acc", "acc_norm"):
        values = [per_run[run][metric] for run in runs]
        if None in values:
            summary[metric] = {"mean": None, "sd": None}
        else:
            mean, sd = mean_and_sd(values)
            summary[metric] = {"mean": mean, "sd": sd}
    return {"count": len(records), "runs": per_run, "summary": summary}


def _mean_over_runs(sums: np.ndarray) -> np.ndarray:
    """Mean over runs of ``correct_r / present_r`` from columns ``[correct_1, present_1, correct_2, ...]``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        per_run = sums[:, 0::2] / np.where(sums[:, 1::2] == 0, np.nan, sums[:, 1::2])
    means: np.ndarray = per_run.mean(axis=1)
    return means


def choice_estimands(
    records: Sequence[Mapping[str, Any]],
    runs: Sequence[str],
    local_types: Sequence[str],
    unit: str,
    headline_only: bool = False,
) -> list[Estimand]:
    """Every interval of a run from its records (``item_id``, ``choice2_type``, ``runs``); ``headline_only``: the
    means over runs of acc and acc_norm alone."""
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
            estimands.append(
                ratio_estimand(f"runs.{run}.{metric}", correct, present, units, unit, label=f"{metric} ({run})")
            )
        else:
            if columns:
                counts = np.column_stack(columns)
                estimands.append(
                    Estimand(f"summary.{metric}.mean", counts, units, _mean_over_runs, unit, metric, headline=True)
                )
    if headline_only:
        return [estimand for estimand in estimands if estimand.headline]
    for run in runs:
        estimands += _error_analysis(records, run, units, local_types, unit)
    return estimands


def _error_analysis(
    records: Sequence[Mapping[str, Any]], run: str, units: list[str], local_types: Sequence[str], unit: str
) -> list[Estimand]:
    answers = [record["runs"].get(run, {}).get("prediction") for record in records]
    present = np.array([answer is not None for answer in answers], dtype=float)
    wrong = np.array([answer is not None and answer != GOLD for answer in answers], dtype=float)
    prefix = f"runs.{run}.error_analysis"
    estimands = [ratio_estimand(f"{prefix}.error_rate", wrong, present, units, unit, label=f"error rate ({run})")]
    for choice in CHOICE_NAMES:
        picked = np.array([answer == choice for answer in answers], dtype=float)
        estimands.append(
            ratio_estimand(
                f"runs.{run}.choice_share.{choice}", picked, present, units, unit, label=f"share {choice} ({run})"
            )
        )
    for choice in WRONG_CHOICES:
        picked = np.array([answer == choice for answer in answers], dtype=float)
        estimands.append(
            ratio_estimand(
                f"{prefix}.error_share_percent.{choice}",
                picked,
                wrong,
                units,
                unit,
                100.0,
                label=f"% errors {choice} ({run})",
            )
        )
    types = [record.get("choice2_type") for record in records]
    for kind in local_types:
        of_kind = np.array([t == kind for t in types], dtype=float) * present
        confused = np.array([answer == "choice2" for answer in answers], dtype=float) * of_kind
        estimands.append(
            ratio_estimand(
                f"{prefix}.confusion_rate.{kind}", confused, of_kind, units, unit, label=f"confusion {kind} ({run})"
            )
        )
    return estimands


def run_estimands(records: Sequence[Mapping[str, Any]], runs: Sequence[str], unit: str) -> list[Estimand]:
    """Each run's ``acc`` and ``acc_norm`` (paths ``runs.RUN.acc`` / ``runs.RUN.acc_norm``), resampling items: the
    intervals of a prompt sweep."""
    units = [str(record["item_id"]) for record in records]
    estimands: list[Estimand] = []
    for run in runs:
        answers = [record["runs"].get(run, {}) for record in records]
        present = np.array([bool(run_answers) for run_answers in answers], dtype=float)
        for key, metric in (("prediction", "acc"), ("prediction_norm", "acc_norm")):
            if any(run_answers and run_answers.get(key) is None for run_answers in answers):
                continue
            correct = np.array([run_answers.get(key) == GOLD for run_answers in answers], dtype=float)
            estimands.append(
                ratio_estimand(f"runs.{run}.{metric}", correct, present, units, unit, label=f"{metric} ({run})")
            )
    return estimands
