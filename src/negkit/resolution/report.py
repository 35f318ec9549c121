"""The negation-resolution part of a folder's ``report.html`` (``negkit report``): one section per
``resolution*.json`` file written by ``negkit resolution score --json``, with the F1 figure and the *SEM 2012 table."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from negkit.kit.render.markdown import markdown_table, with_interval
from negkit.kit.view import RunSection
from negkit.resolution.figures import resolution_figures


def resolution_sections(folder: Path) -> list[RunSection]:
    """A report section for each ``resolution*.json`` score file of ``folder``."""
    return [
        RunSection(
            f"Negation resolution: {Path(str(score.get('gold', ''))).name}",
            resolution_table(score),
            functools.partial(resolution_figures, score),
        )
        for score in resolution_scores(folder)
    ]


def resolution_table(score: dict[str, Any]) -> str:
    """Markdown: P, R and F1 of each *SEM 2012 measure per system, with their 95% intervals."""
    rows = []
    for entry in score.get("systems", []):
        intervals = entry.get("intervals", {})
        for row in entry.get("starsem", {}).get("rows", []):
            rows.append(
                [Path(str(entry.get("system", "?"))).name, row["row"]]
                + [
                    with_interval(
                        float(row[name]) if row.get(name) is not None else None, intervals, f"{row['row']}.{name}", 2
                    )
                    for name in ("precision", "recall", "f1")
                ]
            )
    return markdown_table(["system", "measure", "P", "R", "F1"], rows)


def resolution_scores(folder: Path) -> list[dict[str, Any]]:
    """The ``resolution*.json`` files of a folder that hold ``negkit resolution score --json`` output."""
    scores = []
    for path in sorted(folder.glob("resolution*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(data, dict) and isinstance(data.get("systems"), list):
            scores.append(data)
    return scores
