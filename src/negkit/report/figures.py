"""Figure building blocks: a metric with its interval (:func:`triple`), the negation-resolution figure (a *SEM
score in JSON: the F1 of each *SEM measure) and ``negkit compare``'s figures. Each builder returns
``[(caption, svg), ...]``; a suite's own figures live with the suite (:attr:`negkit.suites.SuiteDescription.figures`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from negkit.report import plots
from negkit.report.suite_view import Figure

Triple = tuple[float | None, float | None, float | None]


def value_at(metrics: dict[str, Any], path: str) -> Any:
    node: Any = metrics
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def triple(metrics: dict[str, Any], path: str, scale: float = 1.0) -> Triple:
    """``(value, low, high)`` of the metric at ``path``; bounds are None without an interval."""
    value = value_at(metrics, path)
    entry = metrics.get("intervals", {}).get(path) or {}
    low, high = entry.get("ci", (None, None))
    if value is None:
        return None, None, None
    return (float(value) * scale, None if low is None else low * scale, None if high is None else high * scale)


def resolution_figures(score: dict[str, Any]) -> list[Figure]:
    """F1 of each *SEM 2012 measure per system, from ``negkit resolution score --json``'s output."""
    systems = [(Path(str(entry.get("system", "?"))).name, entry.get("starsem", {}).get("rows", []),
                entry.get("intervals", {})) for entry in score.get("systems", [])]
    measures = list(dict.fromkeys(row["row"] for _, rows, _ in systems for row in rows if row.get("f1") is not None))
    if not measures:
        return []

    def f1(rows: list[dict[str, Any]], intervals: dict[str, Any], measure: str) -> Triple:
        value = next((float(r["f1"]) for r in rows if r["row"] == measure), None)
        low, high = (intervals.get(f"{measure}.f1") or {}).get("ci", (None, None))
        return value, low, high

    series = {name: [f1(rows, intervals, m) for m in measures] for name, rows, intervals in systems}
    bars = plots.interval_bars(measures, series, "negation resolution (*SEM 2012 scorer)", "F1 (%)", (0, 100), width=8.0)
    return [("*SEM 2012 measures, F1 per system (95% intervals over sentences)", bars)]


def comparison_figures(task_name: str, task: dict[str, Any], baseline: str,
                       scale: tuple[float, float] = (0.0, 1.0)) -> list[Figure]:
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
        values = {row["run"]: [entry_triple(row["values"].get(paths[index]), "estimate") for index in chosen]
                  for row in task["rows"]}
        figures.append((f"{task_name}: headline metrics per run (95% intervals)",
                        plots.interval_bars(names, values, f"{task_name}", "value", axis,
                                            width=max(6.4, 0.75 * len(names) + 3))))
        differences = {row["run"]: [entry_triple(row["vs_baseline"].get(paths[index]), "difference") for index in chosen]
                       for row in task["rows"] if row.get("vs_baseline")}
        if differences:
            figures.append((f"{task_name}: difference from {baseline} (paired bootstrap, 95% intervals)",
                            plots.forest(names, differences, f"{task_name}: run − {baseline}", "difference")))
    return figures
