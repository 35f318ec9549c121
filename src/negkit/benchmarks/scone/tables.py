"""The ScoNe accuracy table: conditions as columns, as in the ScoNe paper, with 95% intervals."""

from __future__ import annotations

from typing import Any

from negkit.benchmarks.scone.data import SCONE_CONDITIONS
from negkit.kit.render.markdown import interval_note, markdown_table, with_interval


def scone_tables(metrics: dict[str, Any]) -> str:
    """Markdown for the ScoNe accuracies (conditions as columns, as in the ScoNe paper), with 95% intervals."""
    accuracy = metrics["accuracy"]
    intervals = metrics.get("intervals")
    conditions = [c for c in SCONE_CONDITIONS if c in accuracy]
    cells = [with_interval(accuracy[c], intervals, f"accuracy.{c}") for c in [*conditions, "overall"]]
    table = markdown_table([*conditions, "overall"], [cells])
    note = interval_note(intervals)
    return f"### ScoNe-NLI — {metrics['count']} pairs\n\nAccuracy per condition:\n\n{table}\n" + (
        f"\n{note}\n" if note else ""
    )
