"""Thunder-NUBench tables: accuracy (Table 5 style) and the error analysis (Table 6 / 17 style), with 95%
intervals (``value [low, high]``) when the metrics carry them."""

from __future__ import annotations

from typing import Any

from negkit.benchmarks.nubench.metrics import LOCAL_NEGATION_TYPES, WRONG_CHOICES
from negkit.kit.render.markdown import interval_note, markdown_table, number, with_interval


def nubench_tables(metrics: dict[str, Any]) -> str:
    """Markdown for the metrics of :func:`negkit.benchmarks.nubench.task.nubench_metrics`."""
    shots = metrics.get("num_fewshot", 0)
    setting = f"{shots}-shot" if shots else "zero-shot"
    summary = metrics["summary"]
    runs = metrics["runs"]
    intervals = metrics.get("intervals")
    source = metrics.get("source") or f"prompt {metrics.get('prompt_id', '?')}, {setting}"
    title = f"### Thunder-NUBench multiple choice — {source}, {metrics['count']} items"
    mean = {m: with_interval(summary[m]["mean"], intervals, f"summary.{m}.mean") for m in ("acc", "acc_norm")}
    if len(runs) > 1:
        accuracy = markdown_table(
            ["setting", "acc (mean over runs)", "acc_norm (mean over runs)", "acc SD over runs", "acc_norm SD over runs", "runs"],
            [[setting, mean["acc"], mean["acc_norm"], number(summary["acc"]["sd"]), number(summary["acc_norm"]["sd"]), len(runs)]],
        )
    else:
        accuracy = markdown_table(["setting", "acc", "acc_norm"], [[setting, mean["acc"], mean["acc_norm"]]])
    error_rows = []
    for run, values in runs.items():
        analysis = values["error_analysis"]
        prefix = f"runs.{run}.error_analysis"
        error_rows.append(
            [run, with_interval(analysis["error_rate"], intervals, f"{prefix}.error_rate")]
            + [with_interval(analysis["error_share_percent"][name], intervals, f"{prefix}.error_share_percent.{name}", 1)
               for name in WRONG_CHOICES]
            + [with_interval(analysis["confusion_rate"].get(kind), intervals, f"{prefix}.confusion_rate.{kind}")
               for kind in LOCAL_NEGATION_TYPES]
        )
    errors = markdown_table(
        ["run", "error rate", "% errors choice2", "% errors choice3", "% errors choice4"]
        + [f"confusion {kind}" for kind in LOCAL_NEGATION_TYPES],
        error_rows,
    )
    note = interval_note(intervals)
    text = f"{title}\n\n{accuracy}\n\nError analysis (on acc predictions):\n\n{errors}\n"
    return text + (f"\n{note}\n" if note else "")
