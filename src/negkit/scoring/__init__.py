"""Scoring a predictions file made elsewhere: the library behind ``negkit score SUITE PREDICTIONS``.

A scorer is a function ``score_x(path, name="predictions", [data=None], [intervals=IntervalSettings()])``
returning a :class:`SuiteScore` (the metrics dictionary and its Markdown tables); it raises
:class:`negkit.errors.InputFormatError` naming file, line and field on bad input. :func:`score_predictions`
checks a ``negkit eval`` samples file against its results file, then calls the suite's scorer with the options
it takes.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.metrics.intervals import IntervalSettings
from negkit.run.files import verify_samples
from negkit.scoring.base import SuiteScore

__all__ = ["SUITE_HELP", "SUITE_SCORERS", "SuiteScore", "load_scorer", "score_predictions"]

#: Suite name -> "module:function" of its scorer.
SUITE_SCORERS: dict[str, str] = {
    "tind": "negkit.scoring.tind:score_tind",
    "nubench": "negkit.scoring.suites:score_nubench",
    "nan-nli": "negkit.scoring.suites:score_nan_nli",
    "scone": "negkit.scoring.suites:score_scone",
    "condaqa": "negkit.scoring.suites:score_condaqa",
}

#: One-line help per suite, shown in ``negkit score --help`` (optional).
SUITE_HELP: dict[str, str] = {
    "tind": "TIND: the authors' accuracy buckets, negation analysis and coherence from HF fields + 'prediction'",
    "nubench": "Thunder-NUBench: acc, acc_norm, error analysis from {item_id, prediction[, prediction_norm, run]} lines",
    "nan-nli": "NaN-NLI: standard/binary/strict, breakdowns, NaN-Quant, confusion from {item_id, prediction} lines",
    "scone": "ScoNe-NLI: accuracy per condition and overall from {item_id, prediction} lines",
    "condaqa": "CondaQA: accuracy and group consistency from {item_id or SampleID, prediction (answer text)} lines",
}


def load_scorer(suite: str) -> Callable[..., SuiteScore]:
    """The scorer function registered for ``suite``."""
    module_name, _, function_name = SUITE_SCORERS[suite].partition(":")
    return getattr(importlib.import_module(module_name), function_name)


def score_predictions(suite: str, path: str | Path, name: str = "predictions", data: str | None = None,
                      intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
    """Score the predictions file ``path`` with ``suite``'s scorer (``data``: gold data for the suites that read
    it; ``intervals``: the bootstrap of the 95% intervals, None for none)."""
    if suite not in SUITE_SCORERS:
        raise NegkitError(f"no scorer for {suite!r} (scorers: {', '.join(SUITE_SCORERS)})")
    verify_samples(path)  # negkit eval's samples file: as long as its results file says
    scorer = load_scorer(suite)
    parameters = inspect.signature(scorer).parameters
    extra: dict[str, Any] = {"data": data} if "data" in parameters else {}
    if "intervals" in parameters:
        extra["intervals"] = intervals
    return scorer(Path(path), name=name, **extra)
