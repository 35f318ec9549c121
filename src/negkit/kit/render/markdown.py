"""Markdown table helpers shared by the report modules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from negkit.kit.metrics.intervals import ONE_UNIT


def number(value: float | int | None, digits: int = 3) -> str:
    """A number as text: integers as they are, floats with ``digits`` decimals, ``None`` as an en dash."""
    if value is None:
        return "–"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub-flavoured Markdown table; cells are converted with ``str`` (format numbers first)."""

    def escape(cell: object) -> str:
        return str(cell).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(escape(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


#: Marks a value without an interval because the sample has a single unit there (explained by :func:`interval_note`).
ONE_UNIT_MARK = "†"


def with_interval(value: float | int | None, intervals: Mapping[str, Any] | None, path: str, digits: int = 3) -> str:
    """``value [low, high]``: a metric and its 95% interval from a task's ``intervals`` (keyed by metric path);
    ``value †`` when the metric was observed on a single unit (no interval; :func:`interval_note` says why); the
    value alone when the metric has no interval entry (e.g. ``--bootstrap 0``)."""
    text = number(value, digits)
    entry = (intervals or {}).get(path)
    if value is not None and entry and entry.get("method") == ONE_UNIT:
        return f"{text} {ONE_UNIT_MARK}"
    if value is None or not entry or None in entry.get("ci", (None,)):
        return text
    low, high = entry["ci"]
    return f"{text} [{low:.{digits}f}, {high:.{digits}f}]"


def interval_note(intervals: Mapping[str, Any] | None) -> str:
    """One sentence saying what the brackets in a task's tables are (units, resamples, seed), or ""."""
    if not intervals:
        return ""
    first = next(iter(intervals.values()))
    units = max(entry["units"] for entry in intervals.values())
    wilson = sum(1 for entry in intervals.values() if entry.get("method", "").startswith("wilson"))
    note = (
        f"Brackets: {first['level']:.0%} confidence interval, percentile bootstrap resampling whole "
        f"{first['unit']}s ({units} in all; {first['resamples']:,} resamples, seed {first['seed']})."
    )
    if wilson:
        note += (
            " Where every outcome is the same (e.g. 0 of 17 groups coherent) the bootstrap cannot vary, so the "
            "Wilson score interval over the units is shown instead."
        )
    if any(entry.get("method") == ONE_UNIT for entry in intervals.values()):
        note += (
            f" {ONE_UNIT_MARK} No interval: the sample has a single {first['unit']} there, and the spread between "
            f"{first['unit']}s cannot be estimated from one."
        )
    return note
