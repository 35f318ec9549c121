"""``negkit compare``'s files: ``compare.md``, ``compare.json`` and ``compare.html`` (a self-contained page: per task
its figures, leaderboard and differences)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from negkit.commands.compare import compare_markdown, task_markdown
from negkit.io.atomic import atomic_write_json, atomic_write_text, make_folder
from negkit.kit.render import plots
from negkit.kit.render.figures import Triple
from negkit.kit.render.html import figures_html, markdown_to_html, no_plots, page
from negkit.kit.view import Figure


def comparison_html(comparison: dict[str, Any]) -> str:
    """``negkit compare`` as a self-contained page: per task its figures, leaderboard and differences."""
    title = f"negkit comparison (baseline: {comparison['baseline']})"
    intro = compare_markdown({**comparison, "tasks": {}}).split("\n", 1)[1]  # without its "# negkit comparison"
    body = [f"<h1>{html.escape(title)}</h1>", markdown_to_html(intro)]
    for task_name, task in comparison["tasks"].items():
        scale = tuple(task.get("scale", (0.0, 1.0)))
        figures = comparison_figures(task_name, task, comparison["baseline"], scale) if plots.available() else []
        body.append(
            markdown_to_html(task_markdown(task_name, task, comparison["baseline"])).replace(
                "</h3>", "</h3>\n" + (figures_html(figures) if figures else no_plots()), 1
            )
        )
    return page(title, body)


def write_comparison(comparison: dict[str, Any], out: Path) -> dict[str, Path]:
    """Write ``compare.md``, ``compare.json`` and ``compare.html`` into ``out`` (atomically); return their paths."""
    make_folder(out)
    paths = {"markdown": out / "compare.md", "json": out / "compare.json", "html": out / "compare.html"}
    atomic_write_text(paths["markdown"], compare_markdown(comparison))
    atomic_write_json(paths["json"], comparison)
    atomic_write_text(paths["html"], comparison_html(comparison))
    return paths


def comparison_figures(
    task_name: str, task: dict[str, Any], baseline: str, scale: tuple[float, float] = (0.0, 1.0)
) -> list[Figure]:
    """One task of ``negkit compare``: headline values per run (on the axis ``scale``), and differences from the
    baseline."""
    labels = [metric["label"] for metric in task["metrics"]]
    paths = [metric["path"] for metric in task["metrics"]]

    def entry_triple(entry: dict[str, Any] | None, key: str) -> Triple:
        if not entry or entry.get(key) is None:
            return None, None, None
        low, high = entry["ci"]
        return entry[key], low, high

    axes = [tuple(metric.get("scale", scale)) for metric in task["metrics"]]  # a metric may have its own axis
    figures = []
    for axis in dict.fromkeys(axes):
        chosen = [index for index, own in enumerate(axes) if own == axis]
        names = [labels[index] for index in chosen]
        values = {
            row["run"]: [entry_triple(row["values"].get(paths[index]), "estimate") for index in chosen]
            for row in task["rows"]
        }
        figures.append(
            (
                f"{task_name}: headline metrics per run (95% intervals)",
                plots.interval_bars(
                    names, values, f"{task_name}", "value", axis, width=max(6.4, 0.75 * len(names) + 3)
                ),
            )
        )
        differences = {
            row["run"]: [entry_triple(row["vs_baseline"].get(paths[index]), "difference") for index in chosen]
            for row in task["rows"]
            if row.get("vs_baseline")
        }
        if differences:
            figures.append(
                (
                    f"{task_name}: difference from {baseline} (paired bootstrap, 95% intervals)",
                    plots.forest(names, differences, f"{task_name}: run − {baseline}", "difference"),
                )
            )
    return figures
