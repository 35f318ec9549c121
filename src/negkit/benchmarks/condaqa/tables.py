"""CondaQA tables: accuracy overall and per passage edit, group consistency (All and per edit type)."""

from __future__ import annotations

from typing import Any

from negkit.benchmarks.condaqa.data import EDITS
from negkit.kit.render.markdown import interval_note, markdown_table, with_interval

_ANSWER_NAMES = {"dont know": "don't know"}


def condaqa_tables(metrics: dict[str, Any]) -> str:
    """Markdown for :func:`negkit.benchmarks.condaqa.metrics.condaqa_report`."""
    accuracy, per_edit, consistency = metrics["accuracy"], metrics["accuracy_per_edit"], metrics["consistency"]
    intervals = metrics.get("intervals")
    accuracy_table = markdown_table(
        ["questions", "accuracy", *[f"acc. {name}" for name in EDITS.values()]],
        [
            [accuracy["total"], with_interval(accuracy["accuracy"], intervals, "accuracy.accuracy")]
            + [
                with_interval(per_edit[name]["accuracy"], intervals, f"accuracy_per_edit.{name}.accuracy")
                for name in EDITS.values()
            ]
        ],
    )
    consistency_rows = [
        [
            name,
            values["correct"],
            values["total"],
            with_interval(values["accuracy"], intervals, f"consistency.{name}.accuracy"),
        ]
        for name, values in consistency.items()
    ]
    consistency_table = markdown_table(["consistency", "groups consistent", "groups", "share"], consistency_rows)
    sizes = ", ".join(f"{size}: {count}" for size, count in metrics.get("group_sizes", {}).items())
    parts = [
        f"### CondaQA — {metrics['count']} questions ({metrics.get('style', 'generate')})",
        "Accuracy (exact match after normalisation), overall and per passage edit:",
        accuracy_table,
        "Group consistency: a question asked of the original passage and its edits is consistent when every answer "
        "is correct (all); per edit type, the original and that edit both correct (groups having both):",
        consistency_table,
        f"{metrics.get('groups', 0)} groups (questions per group: {sizes}); {metrics.get('span_answers', 0)} "
        f"questions have a span as gold answer ({metrics.get('span_correct', 0)} answered correctly)"
        + (" and cannot be answered by choosing yes / no / don't know." if metrics.get("style") == "choice" else "."),
    ]
    answers = metrics.get("predicted_answers")
    if answers:
        parts.append(
            "Answers given: "
            + ", ".join(f"{_ANSWER_NAMES.get(name, name)} {count}" for name, count in answers.items())
            + " (empty: the model wrote nothing before the newline)."
        )
    note = interval_note(intervals)
    return "\n\n".join(parts + ([note] if note else [])) + "\n"
