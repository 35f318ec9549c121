"""Thunder-NUBench tables: accuracy (Table 5 style) and the error analysis (Table 6 / 17 style)."""

from __future__ import annotations

from typing import Any

from negkit.metrics.multiple_choice import LOCAL_NEGATION_TYPES, WRONG_CHOICES
from negkit.report.markdown import markdown_table, number


def nubench_tables(metrics: dict[str, Any]) -> str:
    """Markdown for the metrics of :func:`negkit.tasks.multiple_choice.nubench_metrics`."""
    shots = metrics.get("num_fewshot", 0)
    setting = f"{shots}-shot" if shots else "zero-shot"
    summary = metrics["summary"]
    runs = metrics["runs"]
    source = metrics.get("source") or f"prompt {metrics.get('prompt_id', '?')}, {setting}"
    title = f"### Thunder-NUBench multiple choice — {source}, {metrics['count']} items"
    if len(runs) > 1:
        accuracy = markdown_table(
            ["setting", "acc (mean ± SD)", "acc_norm (mean ± SD)", "runs"],
            [[setting] + [f"{number(summary[m]['mean'])} ± {number(summary[m]['sd'])}" for m in ("acc", "acc_norm")]
             + [len(runs)]],
        )
    else:
        accuracy = markdown_table(
            ["setting", "acc", "acc_norm"], [[setting, number(summary["acc"]["mean"]), number(summary["acc_norm"]["mean"])]]
        )
    error_rows = []
    for run, values in runs.items():
        analysis = values["error_analysis"]
        error_rows.append(
            [run, number(analysis["error_rate"])]
            + [number(analysis["error_share_percent"][name], 1) for name in WRONG_CHOICES]
            + [number(analysis["confusion_rate"].get(kind)) for kind in LOCAL_NEGATION_TYPES]
        )
    errors = markdown_table(
        ["run", "error rate", "% errors choice2", "% errors choice3", "% errors choice4"]
        + [f"confusion {kind}" for kind in LOCAL_NEGATION_TYPES],
        error_rows,
    )
    return f"{title}\n\n{accuracy}\n\nError analysis (on acc predictions):\n\n{errors}\n"
