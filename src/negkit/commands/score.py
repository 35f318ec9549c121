"""Scoring a predictions file made elsewhere: the library behind ``negkit score SUITE PREDICTIONS``.

Each suite's scorer (:attr:`negkit.kit.suites.SuiteDescription.scorer`) is a function ``score_x(path,
name="predictions", [data=None], [intervals=IntervalSettings()])`` returning a :class:`SuiteScore` (the metrics
dictionary and its Markdown tables); it raises :class:`negkit.errors.InputFormatError` naming file, line and field
on bad input. :func:`score_predictions` checks a ``negkit eval`` samples file against its results file, then calls
the suite's scorer with the options it takes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.kit.metrics.intervals import IntervalSettings
from negkit.kit.scoring import task_numbers
from negkit.runs.files import verify_samples
from negkit.kit.suites import SuiteDescription, SuiteScore, all_suites, get_suite

__all__ = ["SuiteScore", "load_scorer", "score_predictions", "score_task", "scored_suites"]


def _main_task(suite: SuiteDescription) -> Any:
    return suite.task(suite.main_task).factory()


def scored_suites() -> list[SuiteDescription]:
    """The suites that score predictions files: their main task reads them (``Task.predictions``), or (a suite
    written before that) they have a scorer of their own."""
    return [suite for suite in all_suites() if suite.scorer is not None or hasattr(_main_task(suite), "predictions")]


def load_scorer(suite: str) -> Callable[..., SuiteScore]:
    """The scorer of ``suite`` (its name or an alias): its main task's one path (:func:`score_task`), or its own."""
    description = get_suite(suite)
    if description.scorer is not None:
        return description.scorer
    task = _main_task(description)
    if not hasattr(task, "predictions"):
        raise NegkitError(f"suite {description.name} has no predictions-file scorer "
                          f"(scorers: {', '.join(s.name for s in scored_suites())})")

    def score(path: Path, name: str = "predictions", data: str | None = None,
              intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
        return score_task(task, path, name, data, intervals)

    return score


def score_task(task: Any, path: Path, name: str = "predictions", data: str | None = None,
               intervals: IntervalSettings | None = IntervalSettings(), split: str = "test") -> SuiteScore:
    """The one path: the predictions file as records in ``negkit eval``'s shape (``task.predictions``), then the
    task's own metrics, intervals and tables (:func:`negkit.kit.scoring.task_numbers`) over the items predicted. A
    task whose predictions files hold their items (``predictions_hold_items``) reads no data set; one whose
    predictions may answer any of several splits says which (``scoring_items(data) -> {split: items}``)."""
    if getattr(task, "predictions_hold_items", False):
        records = task.predictions(Path(path), None)
        metrics = task_numbers(task, task.items_from_records(records, Path(path)), records, intervals) | {"source": name}
        return SuiteScore(metrics, task.tables(metrics))
    scoring_items = getattr(task, "scoring_items", None)  # a task whose predictions may answer several splits
    splits = scoring_items(data) if scoring_items is not None else {split: task.load(data, split, None, 0).items}
    items = [item for split_items in splits.values() for item in split_items]
    records = task.predictions(Path(path), items)
    predicted = {str(record["item_id"]) for record in records}
    chosen = [item for item in items if item.item_id in predicted]
    # the data set's size: the questions of the splits the predictions come from
    count = sum(len(split_items) for split_items in splits.values() if any(item.item_id in predicted for item in split_items))
    metrics = task_numbers(task, chosen, records, intervals) | {"data_count": count, "source": name}
    return SuiteScore(metrics, task.tables(metrics))


def score_predictions(suite: str, path: str | Path, name: str = "predictions", data: str | None = None,
                      intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
    """Score the predictions file ``path`` with ``suite``'s scorer (``data``: gold data for the suites that read
    it; ``intervals``: the bootstrap of the 95% intervals, None for none)."""
    scorer = load_scorer(suite)
    verify_samples(path)  # negkit eval's samples file: as long as its results file says
    parameters = inspect.signature(scorer).parameters
    extra: dict[str, Any] = {"data": data} if "data" in parameters else {}
    if "intervals" in parameters:
        extra["intervals"] = intervals
    return scorer(Path(path), name=name, **extra)
