"""The negation-resolution figure of ``report.html``: the F1 of each *SEM 2012 measure per system, from ``negkit
resolution score --json``'s output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from negkit.kit.render import plots
from negkit.kit.render.figures import Triple
from negkit.kit.view import Figure


def resolution_figures(score: dict[str, Any]) -> list[Figure]:
    """F1 of each *SEM 2012 measure per system, from ``negkit resolution score --json``'s output."""
    systems = [
        (Path(str(entry.get("system", "?"))).name, entry.get("starsem", {}).get("rows", []), entry.get("intervals", {}))
        for entry in score.get("systems", [])
    ]
    measures = list(dict.fromkeys(row["row"] for _, rows, _ in systems for row in rows if row.get("f1") is not None))
    if not measures:
        return []

    def f1(rows: list[dict[str, Any]], intervals: dict[str, Any], measure: str) -> Triple:
        value = next((float(r["f1"]) for r in rows if r["row"] == measure), None)
        low, high = (intervals.get(f"{measure}.f1") or {}).get("ci", (None, None))
        return value, low, high

    series = {name: [f1(rows, intervals, m) for m in measures] for name, rows, intervals in systems}
    bars = plots.interval_bars(
        measures, series, "negation resolution (*SEM 2012 scorer)", "F1 (%)", (0, 100), width=8.0
    )
    return [("*SEM 2012 measures, F1 per system (95% intervals over sentences)", bars)]
