"""Which Thunder-NUBench metrics get a confidence interval, and how: the item is the unit (each item is one
sentence with its own candidates; few-shot runs over several seeds ask the same items again, so an item's
answers in every run are resampled together). The estimands are the kit's (:mod:`negkit.kit.metrics.negation_choice`),
with Thunder-NUBench's local-negation types; paths are those of :func:`negkit.benchmarks.nubench.task.nubench_metrics`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from negkit.benchmarks.nubench.metrics import LOCAL_NEGATION_TYPES
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.metrics.negation_choice import GOLD, choice_estimands, run_estimands

__all__ = ["GOLD", "UNIT", "nubench_estimands", "nubench_run_estimands"]

UNIT = "Thunder-NUBench item"


def nubench_estimands(
    records: Sequence[Mapping[str, Any]], runs: Sequence[str], headline_only: bool = False
) -> list[Estimand]:
    """Every interval of a Thunder-NUBench run from its records (``item_id``, ``choice2_type``, ``runs``);
    ``headline_only``: the means over runs of acc and acc_norm alone."""
    return choice_estimands(records, runs, LOCAL_NEGATION_TYPES, UNIT, headline_only)


def nubench_run_estimands(records: Sequence[Mapping[str, Any]], runs: Sequence[str]) -> list[Estimand]:
    """The intervals of a prompt sweep (``negkit.benchmarks.nubench.sweep_tasks``): each run's ``acc`` and ``acc_norm``
    (paths ``runs.RUN.acc`` / ``runs.RUN.acc_norm``), resampling items."""
    return run_estimands(records, runs, UNIT)
