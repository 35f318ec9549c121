"""``negkit score tind``: TIND predictions in the authors' layout."""

from __future__ import annotations

from pathlib import Path

from negkit.data.tind_hf import read_tind_predictions
from negkit.metrics.intervals import IntervalSettings, intervals_json
from negkit.metrics.tind import tind_metrics
from negkit.metrics.tind_intervals import tind_estimands
from negkit.report.tind import tind_report
from negkit.scoring.base import SuiteScore


def score_tind(path: Path, name: str = "predictions", intervals: IntervalSettings | None = IntervalSettings()) -> SuiteScore:
    """Score TIND predictions in the authors' layout: the HF fields plus a boolean ``prediction`` per line.

    ``intervals`` (None: none) sets the bootstrap of the 95% intervals, as for every suite scorer."""
    items, predictions = read_tind_predictions(path)
    metrics = tind_metrics(items, predictions)
    if intervals is not None:
        metrics["intervals"] = intervals_json(tind_estimands(items, predictions), intervals)
    return SuiteScore(metrics, tind_report(metrics, name=name, title=f"TIND: {Path(path).name}"))
