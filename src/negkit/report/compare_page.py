"""``negkit compare``'s files: ``compare.md``, ``compare.json`` and ``compare.html`` (a self-contained page: per task
its figures, leaderboard and differences)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from negkit.io.atomic import atomic_write_json, atomic_write_text, make_folder
from negkit.report import plots
from negkit.report.compare import compare_markdown, task_markdown
from negkit.report.figures import comparison_figures
from negkit.report.html import figures_html, markdown_to_html, no_plots, page


def comparison_html(comparison: dict[str, Any]) -> str:
    """``negkit compare`` as a self-contained page: per task its figures, leaderboard and differences."""
    title = f"negkit comparison (baseline: {comparison['baseline']})"
    intro = compare_markdown({**comparison, "tasks": {}}).split("\n", 1)[1]  # without its "# negkit comparison"
    body = [f"<h1>{html.escape(title)}</h1>", markdown_to_html(intro)]
    for task_name, task in comparison["tasks"].items():
        scale = tuple(task.get("scale", (0.0, 1.0)))
        figures = comparison_figures(task_name, task, comparison["baseline"], scale) if plots.available() else []
        body.append(markdown_to_html(task_markdown(task_name, task, comparison["baseline"])).replace(
            "</h3>", "</h3>\n" + (figures_html(figures) if figures else no_plots()), 1))
    return page(title, body)


def write_comparison(comparison: dict[str, Any], out: Path) -> dict[str, Path]:
    """Write ``compare.md``, ``compare.json`` and ``compare.html`` into ``out`` (atomically); return their paths."""
    make_folder(out)
    paths = {"markdown": out / "compare.md", "json": out / "compare.json", "html": out / "compare.html"}
    atomic_write_text(paths["markdown"], compare_markdown(comparison))
    atomic_write_json(paths["json"], comparison)
    atomic_write_text(paths["html"], comparison_html(comparison))
    return paths
