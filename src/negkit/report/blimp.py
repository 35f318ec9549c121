"""BLiMP negation tables: accuracy per paradigm and over the seven, with 95% intervals."""

from __future__ import annotations

from typing import Any

from negkit.report.markdown import interval_note, markdown_table, with_interval


def blimp_tables(metrics: dict[str, Any]) -> str:
    """Markdown for :func:`negkit.metrics.blimp.blimp_report` (plus the task's ``protocol`` line when present)."""
    intervals = metrics.get("intervals")
    rows = [[name, values["correct"], values["total"], with_interval(values["accuracy"], intervals, f"paradigms.{name}.accuracy")]
            for name, values in metrics["paradigms"].items()]
    overall = metrics["overall"]
    rows.append([f"mean of the {overall['paradigms']} paradigms", overall["correct"], overall["total"],
                 with_interval(overall["accuracy"], intervals, "overall.accuracy")])
    rows.append(["pooled over every pair", overall["correct"], overall["total"],
                 with_interval(overall["pooled_accuracy"], intervals, "overall.pooled_accuracy")])
    parts = [f"### BLiMP negation and NPI licensing — {metrics['count']} minimal pairs",
             "A pair is right when the good sentence has the higher total log-probability"
             + (f" ({metrics['protocol']})" if metrics.get("protocol") else "") + ":",
             markdown_table(["paradigm", "right", "pairs", "accuracy"], rows)]
    note = interval_note(intervals)
    return "\n\n".join(parts + ([note] if note else [])) + "\n"
