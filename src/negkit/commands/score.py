"""Scoring a predictions file made elsewhere: the library behind ``negkit score SUITE PREDICTIONS``.

A suite's main task scores it through the one path (:func:`score_task`): ``Task.predictions(path, items)`` reads
the file as records in ``negkit eval``'s own shape, and the task's own metrics, intervals and tables follow. A
task may say more, each optional: ``task_for_predictions(path)`` (the suite's task that scores this file, e.g. the
one whose items it names), ``scored_items(data)`` (the items a predictions file may name; default: the ``test``
split's) and ``scored_metrics(metrics, name, items)`` (what ``negkit score`` reports; default: the metrics with
``data_count`` and ``source``, the run's name). A suite written before that gives a scorer of its own
(:attr:`negkit.kit.suites.SuiteDescription.scorer`): a function ``score_x(path, name="predictions", [data=None],
[intervals=IntervalSettings()])`` returning a :class:`SuiteScore` (the metrics dictionary and its Markdown tables).
Either raises :class:`negkit.errors.InputFormatError` naming file, line and field on bad input.
:func:`score_predictions` checks a ``negkit eval`` samples file against its results file, then scores it.
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
    task's own metrics, intervals and tables (:func:`negkit.kit.scoring.task_numbers`) over the items predicted
    (the task's optional hooks: see the module documentation)."""
    path = Path(path)
    choose = getattr(task, "task_for_predictions", None)
    if choose is not None:
        task = choose(path)
    scored_items = getattr(task, "scored_items", None)
    items = scored_items(data) if scored_items is not None else task.load(data, split, None, 0).items
    records = task.predictions(path, items)
    predicted = {str(record["item_id"]) for record in records}
    chosen = [item for item in items if item.item_id in predicted]
    metrics = task_numbers(task, chosen, records, intervals)
    scored_metrics = getattr(task, "scored_metrics", None)
    if scored_metrics is not None:
        metrics = scored_metrics(metrics, name, items)
    else:
        metrics |= {"data_count": len(items), "source": name}
    if "intervals" in metrics:  # last, as negkit eval writes them
        metrics["intervals"] = metrics.pop("intervals")
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
