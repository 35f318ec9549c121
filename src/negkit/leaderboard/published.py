"""Published reference rows of ``negkit leaderboard --published FILE``: numbers printed in papers, shown beside the
models run here but never mixed with them.

A file is CSV with a header naming the columns ``model``, ``task``, ``metric``, ``value`` and ``source`` (required),
``note`` and ``params`` (optional; ``params`` is the model's parameter count, ``135M``, ``1.5B`` or digits, which
puts the row on the scaling figure). One row is one published number:

- ``task``: a task of the leaderboard (a column's task, or the column's key ``TASK [SPLIT]`` when the task has
  several splits); a row of a task negkit knows that this leaderboard does not have is left out, and listed as left
  out (``data["published_left_out"]``, and a line of ``leaderboard.md``), so that one file of published rows serves
  leaderboards of any set of suites;
- ``metric``: a metric path the task reports (its primary metric, e.g. ``standard.all_f1``, or another, e.g.
  ``coherence_scores.All.Coherence_percentage``); a row on another metric than the primary one is shown labelled with
  its metric;
- ``value``: on the scale negkit reports the task in (a fraction for a suite in [0, 1], a percentage for a suite in
  percent); the leaderboard shows it in percent like every other value.

Published rows have no per-sample records: no interval, no rank, no difference from the best. A row naming a task
negkit does not know, a metric the task does not report, a value that is not a number, a missing column or
an empty field is refused with an :class:`~negkit.errors.InputFormatError` naming the file and line.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, NegkitError, quoted
from negkit.kit.suites import registered_tasks

REQUIRED = ("model", "task", "metric", "value", "source")
OPTIONAL = ("note", "params")
#: How published rows are marked wherever they are shown.
MARK = "published, not run here"

_SUFFIXES = {"K": 10**3, "M": 10**6, "B": 10**9, "G": 10**9, "T": 10**12}


def parse_count(text: str) -> int:
    """A parameter count: digits (``134515008``, ``134_515_008``) or a number with ``K``, ``M``, ``B`` (or ``G``)
    or ``T`` (``135M``, ``1.5B``); a :class:`NegkitError` otherwise."""
    cleaned = text.strip().replace("_", "").replace(",", "")
    factor = _SUFFIXES.get(cleaned[-1:].upper(), 1) if cleaned else 1
    number = cleaned[:-1] if factor != 1 else cleaned
    try:
        value = float(number)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise NegkitError(f"{quoted(text)} is not a parameter count (digits, or a number with K, M, B or T: 1.5B)")
    return round(value * factor)


@dataclass(frozen=True)
class PublishedRow:
    """One published number, with where it was read (file and line, for errors)."""

    model: str
    task: str
    metric: str
    value: float
    source: str
    note: str
    params: int | None
    file: str
    line: int


def read_published(path: str | Path) -> list[PublishedRow]:
    """The rows of a published-reference CSV file (see the module's docstring)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise NegkitError(f"{path}: cannot read the published rows ({error})") from None
    reader = csv.reader(text.splitlines())
    header = [name.strip().lower() for name in next(reader, [])]
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise InputFormatError(
            path, 1, f"the header lacks the column(s) {', '.join(missing)} (needs {', '.join(REQUIRED)})"
        )
    unknown = [name for name in header if name not in REQUIRED + OPTIONAL]
    if unknown:
        raise InputFormatError(path, 1, f"unknown column(s) {', '.join(map(quoted, unknown))}")
    rows = []
    for line, fields in enumerate(reader, start=2):
        if not any(field.strip() for field in fields):
            continue
        if len(fields) != len(header):
            raise InputFormatError(path, line, f"{len(fields)} fields, the header has {len(header)}")
        row = {name: field.strip() for name, field in zip(header, fields)}
        empty = [name for name in REQUIRED if not row[name]]
        if empty:
            raise InputFormatError(path, line, f"empty field(s) {', '.join(empty)}")
        try:
            value = float(row["value"])
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise InputFormatError(path, line, f"value {quoted(row['value'])} is not a finite number")
        try:
            params = parse_count(row["params"]) if row.get("params") else None
        except NegkitError as error:
            raise InputFormatError(path, line, f"params: {error}") from None
        rows.append(
            PublishedRow(
                row["model"],
                row["task"],
                row["metric"],
                value,
                row["source"],
                row.get("note", ""),
                params,
                str(path),
                line,
            )
        )
    return rows


def reported_metrics(metrics: Iterable[dict[str, Any]]) -> list[str]:
    """The numeric metric paths of results files' ``metrics`` (``a.b.c``; intervals and counts of answers left
    out), sorted."""
    paths: set[str] = set()

    def walk(node: Any, prefix: str) -> None:
        for key, value in node.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(value, dict) and key != "intervals":
                walk(value, path)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                paths.add(path)

    for entry in metrics:
        walk(entry, "")
    return sorted(paths)


def _column_of(row: PublishedRow, columns: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The leaderboard column of ``row``'s task; None for a task negkit knows that the leaderboard does not have."""
    exact = [column for column in columns if column["key"] == row.task]
    matching = exact or [column for column in columns if column["task"] == row.task]
    if len(matching) == 1:
        return matching[0]
    where = Path(row.file), row.line
    if matching:
        keys = ", ".join(column["key"] for column in matching)
        raise InputFormatError(*where, f"task {quoted(row.task)} has several columns ({keys}): name one")
    if row.task.split(" [")[0] in registered_tasks():
        return None
    tasks = ", ".join(column["key"] for column in columns) or "none"
    raise InputFormatError(
        *where, f"task {quoted(row.task)} is no task negkit knows, nor among the leaderboard's tasks ({tasks})"
    )


def attach_published(data: dict[str, Any], rows: Sequence[PublishedRow], labels: Callable[[str, str], str]) -> None:
    """Put ``rows`` into the leaderboard ``data`` under ``published`` (values in percent, with the column's
    ``percent_factor``); ``labels(column key, metric path)`` gives a metric's label."""
    data["published"], data["published_left_out"] = [], []
    for row in rows:
        column = _column_of(row, data["columns"])
        if column is None:
            data["published_left_out"].append(
                {"model": row.model, "task": row.task, "file": row.file, "line": row.line}
            )
            continue
        if row.metric != column["metric"] and row.metric not in column["reported"]:
            raise InputFormatError(
                Path(row.file),
                row.line,
                f"task {column['key']} reports no metric {quoted(row.metric)} (its primary metric is "
                f"{column['metric']}; others: {', '.join(column['reported'][:12]) or 'none'})",
            )
        data["published"].append(
            {
                "model": row.model,
                "column": column["key"],
                "metric": row.metric,
                "metric_label": labels(column["key"], row.metric),
                "primary": row.metric == column["metric"],
                "value": round(row.value * column["percent_factor"], 6),
                "value_as_published": row.value,
                "source": row.source,
                "note": row.note,
                "params": row.params,
                "file": row.file,
                "line": row.line,
            }
        )


def published_in(data: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    """The published rows of column ``key``, in file order."""
    return [row for row in data.get("published", []) if row["column"] == key]


def published_value(row: Mapping[str, Any]) -> str:
    """A published value as text: the percent value, with its metric's label when it is not the primary metric."""
    text = f"{row['value']:.1f}"
    return text if row["primary"] else f"{text} ({row['metric_label']})"
