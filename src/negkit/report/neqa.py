"""NeQA tables: accuracy (acc, acc_norm) and the share of answers per class, with 95% intervals."""

from __future__ import annotations

from typing import Any

from negkit.report.markdown import interval_note, markdown_table, number, with_interval


def neqa_tables(metrics: dict[str, Any]) -> str:
    """Markdown for :func:`negkit.metrics.neqa.neqa_report`."""
    intervals = metrics.get("intervals")
    accuracy = markdown_table(["questions", "acc", "acc_norm"],
                              [[metrics["count"], with_interval(metrics["acc"], intervals, "acc"),
                                with_interval(metrics["acc_norm"], intervals, "acc_norm")]])
    shares = metrics.get("choice_share", {})
    gold = metrics.get("gold_share", {})
    share_table = markdown_table(["answer", "share of the model's answers", "share of the right answers"],
                                 [[name, with_interval(value, intervals, f"choice_share.{name}"), number(gold.get(name))]
                                  for name, value in shares.items()])
    parts = [f"### NeQA — {metrics['count']} negated questions",
             "Accuracy (each class scored as a continuation of the prompt; acc_norm per character):", accuracy,
             "Answers given:", share_table]
    note = interval_note(intervals)
    return "\n\n".join(parts + ([note] if note else [])) + "\n"
