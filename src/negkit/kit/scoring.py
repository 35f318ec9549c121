"""One path from records to numbers.

A task turns items and the model's answers into per-sample records (``Task.records``); everything after that is
the same whoever made the records: ``negkit eval`` from a model, ``negkit score`` from a predictions file made
elsewhere (``Task.predictions(path, items)`` gives records in the eval's own shape), ``negkit compare`` and
``negkit leaderboard`` from a run's samples file (``Task.items_from_records`` gives back the items as far as the
headline numbers need them). :func:`task_numbers` computes a task's metrics and intervals, :func:`headline_estimands`
the estimands two runs are compared on, :func:`harness_scores` the per-item scores of the LM Evaluation Harness's
layout: each from the task's own ``metrics``, ``estimands`` and ``harness_scores``, never a second copy of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, NegkitError, shortened
from negkit.kit.harness.layout import item_scores
from negkit.kit.metrics.intervals import Estimand, IntervalSettings, intervals_json
from negkit.kit.tasks.adapter import adapt


def task_numbers(
    task: Any, items: Sequence[Any], records: Sequence[Mapping[str, Any]], settings: IntervalSettings | None = None
) -> dict[str, Any]:
    """The task's metrics from its items and records, with ``intervals`` (95%, ``settings``'s bootstrap) unless
    ``settings`` is None."""
    metrics: dict[str, Any] = task.metrics(items, records)
    if settings is not None:
        estimands = adapt(task).estimands(items, records)
        if estimands is not None:
            metrics["intervals"] = intervals_json(estimands, settings)
    return metrics


def headline_estimands(task: Any, records: Sequence[Mapping[str, Any]], path: Path) -> list[Estimand]:
    """The headline estimands of ``task`` rebuilt from a samples file's records (``path`` names it in errors)."""
    adapter = adapt(task)
    if not adapter.compares:
        raise NegkitError(f"task {task.name}: negkit cannot compare this task from its samples")
    try:
        items = adapter.items_from_records(records, path)
        return [
            estimand for estimand in adapter.estimands(items, records, headline_only=True) or () if estimand.headline
        ]
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as error:  # a field of the wrong form
        raise InputFormatError(
            path, None, f"damaged sample records of task {task.name} ({type(error).__name__}: {shortened(str(error))})"
        ) from None


def harness_scores(task: Any, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
    """Per-item scores by Harness metric (``acc``, ``acc_norm``): the task's own where it says them."""
    scores = adapt(task).harness_scores(records)
    return scores if scores is not None else item_scores(records)
