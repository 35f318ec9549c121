"""Tables and figures of grouped means (:func:`negkit.kit.metrics.grouped.grouped_means`): the overall values with
their 95% intervals, then one row per family and per group, one column per metric."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from negkit.kit.render import plots
from negkit.kit.render.figures import triple, value_at
from negkit.kit.render.markdown import interval_note, markdown_table, with_interval
from negkit.kit.view import Figure

#: ``label(path) -> column title`` of a metric path (``affirmative.p_at_1``).
Labeller = Callable[[str], str]


def leaf_paths(values: Mapping[str, Any], prefix: str = "") -> list[str]:
    """The dotted paths of every number (or None) in nested ``values``, in order."""
    paths = []
    for key, value in values.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            paths += leaf_paths(value, path + ".")
        elif value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            paths.append(path)
    return paths


def default_label(path: str) -> str:
    """``affirmative.p_at_5`` -> ``affirmative P@5``; ``overlap_at_1`` -> ``overlap at 1``."""
    parts = [f"P@{part[5:]}" if part.startswith("p_at_") else part.replace("_", " ") for part in path.split(".")]
    return " ".join(parts)


def grouped_tables(
    metrics: Mapping[str, Any],
    title: str,
    groups_key: str,
    group_label: str,
    what: str,
    protocol: str = "",
    label: Labeller = default_label,
    skip: Sequence[str] = ("count",),
) -> str:
    """Markdown: the overall value of each metric with its interval, then per family (if any) and per group."""
    intervals = metrics.get("intervals")
    overall = metrics.get("overall", {})
    paths = [path for path in leaf_paths(overall) if path not in skip]
    how = "mean over the " + groups_key if metrics.get("average", "groups") == "groups" else f"mean over the {what}"
    rows = [[label(path), with_interval(value_at(dict(overall), path), intervals, f"overall.{path}")] for path in paths]
    parts = [f"### {title} — {metrics.get('count', 0)} {what}"] + ([protocol] if protocol else [])
    parts += [f"Overall ({how}):", markdown_table(["metric", "value"], rows)]
    families = metrics.get("families") or {}
    if families:
        family_rows = [
            [
                name,
                values.get("groups"),
                values.get("count"),
                *(with_interval(value_at(dict(values), path), intervals, f"families.{name}.{path}") for path in paths),
            ]
            for name, values in families.items()
        ]
        parts += [
            "By family (mean over its groups):",
            markdown_table(["family", groups_key, what, *(label(path) for path in paths)], family_rows),
        ]
    groups = metrics.get(groups_key) or {}
    if len(groups) > 1:
        group_rows = [
            [
                name,
                values.get("count"),
                *(
                    with_interval(value_at(dict(values), path), intervals, f"{groups_key}.{name}.{path}")
                    for path in paths
                ),
            ]
            for name, values in groups.items()
        ]
        parts += [
            f"By {group_label}:",
            markdown_table([group_label, what, *(label(path) for path in paths)], group_rows),
        ]
    note = interval_note(intervals)
    return "\n\n".join(parts + ([note] if note else [])) + "\n"


def grouped_figures(
    title: str,
    groups_key: str,
    label: Labeller = default_label,
    reference: float | None = None,
    ylim: tuple[float, float] = (0, 1),
) -> Callable[[dict[str, Any], Sequence[dict[str, Any]] | None], list[Figure]]:
    """A figure builder: the overall value of each metric (95% intervals), and each family's (or else each group's)
    value of the first metric."""

    def figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
        paths = [path for path in leaf_paths(metrics.get("overall", {})) if path != "count"]
        if not paths:
            return []
        low = min(ylim[0], min((value_at(metrics, f"overall.{p}") or 0 for p in paths), default=0))
        bars = plots.interval_bars(
            [label(path) for path in paths],
            {"overall": [triple(metrics, f"overall.{p}") for p in paths]},
            title,
            "value",
            (low, ylim[1]),
            reference=reference,
            width=8.0,
        )
        result = [("Overall values (95% intervals)", bars)]
        table, key = ("families", "families") if metrics.get("families") else (groups_key, groups_key)
        names = list(metrics.get(table) or {})
        if len(names) > 1:
            first = paths[0]
            chart = plots.interval_bars(
                names,
                {label(first): [triple(metrics, f"{key}.{name}.{first}") for name in names]},
                f"{label(first)} by {'family' if table == 'families' else groups_key}",
                "value",
                (low, ylim[1]),
                reference=reference,
                width=8.0,
            )
            result.append(
                (f"{label(first)} per {'family' if table == 'families' else groups_key} (95% intervals)", chart)
            )
        return result

    return figures
