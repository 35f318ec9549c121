"""``negkit score SUITE PREDICTIONS``: a suite's metrics for predictions made elsewhere.

How to add a suite (one entry, no other change): write a function ``score_x(path: Path) -> SuiteScore``
that reads a predictions file in that suite's layout (raising :class:`negkit.errors.InputFormatError`
naming file, line and field on bad input), computes the metrics with the suite's metric function and
renders them with its report module; then add ``"x": "package.module:score_x"`` to
:data:`SUITE_SCORERS` (and, optionally, a one-line help to :data:`SUITE_HELP`).
``negkit score x FILE [--json] [--out FILE] [--name NAME]`` then exists; a scorer with an ``intervals``
parameter (:class:`negkit.metrics.intervals.IntervalSettings` or None) also gets ``--bootstrap N`` and ``--seed``. The scorer's module is imported
only when that suite is scored, so adding a suite costs nothing at start-up.

``--json`` prints the metrics dictionary (the suite's own metric names, e.g. the TIND authors' keys);
otherwise the Markdown tables are printed. ``--out`` also writes the JSON to a file.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.atomic_io import atomic_write_text
from negkit.cli.evaluate import seed_value
from negkit.metrics.intervals import DEFAULT_RESAMPLES, IntervalSettings, intervals_json
from negkit.run_files import verify_samples

#: Suite name -> "module:function" of its scorer (see the module docstring).
SUITE_SCORERS: dict[str, str] = {
    "tind": "negkit.cli.score:score_tind",
    "nubench": "negkit.cli.score_suites:score_nubench",
    "nan-nli": "negkit.cli.score_suites:score_nan_nli",
    "scone": "negkit.cli.score_suites:score_scone",
    "condaqa": "negkit.cli.score_suites:score_condaqa",
}

#: One-line help per suite, shown in ``negkit score --help`` (optional).
SUITE_HELP: dict[str, str] = {
    "tind": "TIND: the authors' accuracy buckets, negation analysis and coherence from HF fields + 'prediction'",
    "nubench": "Thunder-NUBench: acc, acc_norm, error analysis from {item_id, prediction[, prediction_norm, run]} lines",
    "nan-nli": "NaN-NLI: standard/binary/strict, breakdowns, NaN-Quant, confusion from {item_id, prediction} lines",
    "scone": "ScoNe-NLI: accuracy per condition and overall from {item_id, prediction} lines",
    "condaqa": "CondaQA: accuracy and group consistency from {item_id or SampleID, prediction (answer text)} lines",
}


@dataclass
class SuiteScore:
    """What a suite scorer returns: the metrics dictionary and its Markdown rendering."""

    metrics: dict[str, Any]
    markdown: str


def score_tind(path: Path, name: str = "predictions", intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
    """Score TIND predictions in the authors' layout: the HF fields plus a boolean ``prediction`` per line.

    ``intervals`` (None: none) sets the bootstrap of the 95% intervals, as for every suite scorer."""
    from negkit.data.tind_hf import read_tind_predictions
    from negkit.metrics.tind import tind_metrics
    from negkit.metrics.tind_intervals import tind_estimands
    from negkit.report.tind import tind_report

    items, predictions = read_tind_predictions(path)
    metrics = tind_metrics(items, predictions)
    if intervals is not None:
        metrics["intervals"] = intervals_json(tind_estimands(items, predictions), intervals)
    return SuiteScore(metrics, tind_report(metrics, name=name, title=f"TIND: {Path(path).name}"))


def load_scorer(suite: str) -> Callable[..., SuiteScore]:
    """The scorer function registered for ``suite``."""
    module_name, _, function_name = SUITE_SCORERS[suite].partition(":")
    return getattr(importlib.import_module(module_name), function_name)


def register(groups) -> None:
    for suite in SUITE_SCORERS:
        parser = groups["score"].add_parser(
            suite,
            help=SUITE_HELP.get(suite, f"score {suite} predictions"),
            description=SUITE_HELP.get(suite, f"Score {suite} predictions."),
        )
        parser.add_argument("predictions", metavar="PREDICTIONS", type=Path, help="the predictions file")
        parser.add_argument("--json", action="store_true", help="print the metrics as JSON instead of Markdown tables")
        parser.add_argument("--out", type=Path, help="also write the metrics as JSON to this file")
        parser.add_argument("--name", default="predictions", help="the run's name in the tables")
        parser.add_argument("--data", help="gold data for suites that need it: a data root or data set folder")
        parser.add_argument("--bootstrap", type=int, default=DEFAULT_RESAMPLES, metavar="N",
                            help=f"bootstrap resamples for the 95%% intervals (default: {DEFAULT_RESAMPLES}; 0: none)")
        parser.add_argument("--seed", type=seed_value, default=0, help="seed of the bootstrap (default: 0)")
        parser.set_defaults(handler=run_score, suite=suite)


def run_score(args: argparse.Namespace) -> int:
    from negkit.errors import NegkitError

    if args.bootstrap < 0:
        raise NegkitError(f"--bootstrap must be 0 (no intervals) or a number of resamples, got {args.bootstrap}")
    verify_samples(args.predictions)  # negkit eval's samples file: as long as its results file says
    scorer = load_scorer(args.suite)
    parameters = inspect.signature(scorer).parameters
    extra: dict[str, Any] = {"data": args.data} if "data" in parameters else {}
    if "intervals" in parameters:
        extra["intervals"] = IntervalSettings(args.bootstrap, args.seed) if args.bootstrap else None
    result = scorer(args.predictions, name=args.name, **extra)
    text = json.dumps(result.metrics, indent=2, ensure_ascii=False)
    if args.out:
        atomic_write_text(args.out, text + "\n")
    print(text if args.json else result.markdown, end="\n" if args.json else "")
    return 0
