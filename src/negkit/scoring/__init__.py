"""Scoring a predictions file made elsewhere: the library behind ``negkit score SUITE PREDICTIONS``.

Each suite's scorer (:attr:`negkit.suites.SuiteDescription.scorer`) is a function ``score_x(path,
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
from negkit.metrics.intervals import IntervalSettings
from negkit.run.files import verify_samples
from negkit.suites import SuiteDescription, SuiteScore, all_suites, get_suite

__all__ = ["SuiteScore", "load_scorer", "score_predictions", "scored_suites"]


def scored_suites() -> list[SuiteDescription]:
    """The suites that have a predictions-file scorer."""
    return [suite for suite in all_suites() if suite.scorer is not None]


def load_scorer(suite: str) -> Callable[..., SuiteScore]:
    """The scorer of ``suite`` (its name or an alias)."""
    description = get_suite(suite)
    if description.scorer is None:
        raise NegkitError(f"suite {description.name} has no predictions-file scorer "
                          f"(scorers: {', '.join(s.name for s in scored_suites())})")
    return description.scorer


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
