"""Figure building blocks: a metric with its interval (:func:`triple`). Figure builders return ``[(caption, svg),
...]``; a suite's own figures live with the suite (:attr:`negkit.kit.suites.SuiteDescription.figures`).
"""

from __future__ import annotations

from typing import Any

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
