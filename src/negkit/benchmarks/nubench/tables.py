"""Thunder-NUBench tables: accuracy (Table 5 style) and the error analysis (Table 6 / 17 style), with 95%
intervals (``value [low, high]``) when the metrics carry them (the kit's :mod:`negkit.kit.render.negation_choice`)."""

from __future__ import annotations

from typing import Any

from negkit.benchmarks.nubench.metrics import LOCAL_NEGATION_TYPES
from negkit.kit.render.negation_choice import choice_tables


def nubench_tables(metrics: dict[str, Any]) -> str:
    """Markdown for the metrics of :func:`negkit.benchmarks.nubench.task.nubench_metrics`."""
    return choice_tables(metrics, "Thunder-NUBench multiple choice", LOCAL_NEGATION_TYPES)
