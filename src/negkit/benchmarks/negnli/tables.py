"""NegNLI tables, and the NaN-NLI paper's Table 5 (per-class F1 and All of NegNLI-MNLI and NaN-NLI side by side).

Table 5 of Truong et al. (2022) gives RoBERTa-MNLI's F1 per class and "All" (support-weighted F1) on MNLI's own
pairs with negation (MNLI-neg: task ``mnli-neg`` of the NaN-NLI suite, from a user's MNLI), on NegNLI (the MNLI file of Hossain et al., 2020) and on
NaN-NLI; Figure 1 is the same model's confusion matrices, normalised by the true label. When one run evaluates
``negnli-mnli`` and ``nan-nli`` together (and ``mnli-neg`` where it can), :func:`table5_markdown` prints that layout
from their metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from negkit.kit.render import plots
from negkit.kit.render.markdown import interval_note, markdown_table, with_interval
from negkit.kit.render.nli import confusion_table as nli_confusion_table
from negkit.kit.render.nli import f1_table
from negkit.kit.view import Figure

#: Table 5's benchmarks that a run can hold: task name -> column title, in the paper's order.
TABLE5_TASKS: dict[str, str] = {"mnli-neg": "MNLI-neg", "negnli-mnli": "NegNLI", "nan-nli": "NaN-NLI"}
#: The Table 5 benchmarks a run must hold for the table (MNLI-neg, from a user's MNLI, is added when present).
TABLE5_REQUIRED: tuple[str, ...] = ("negnli-mnli", "nan-nli")
#: The paper's Table 5 (RoBERTa-MNLI, F1), for the note under the table.
TABLE5_PAPER: dict[str, dict[str, float]] = {
    "MNLI-neg": {"contradiction": 0.917, "entailment": 0.834, "neutral": 0.780, "all": 0.862},
    "NegNLI": {"contradiction": 0.718, "entailment": 0.656, "neutral": 0.651, "all": 0.676},
    "NaN-NLI": {"contradiction": 0.664, "entailment": 0.648, "neutral": 0.207, "all": 0.580},
}
_ROWS = (("contradiction", "C"), ("entailment", "E"), ("neutral", "N"))


def negnli_tables(metrics: dict[str, Any]) -> str:
    """Markdown for :func:`negkit.benchmarks.negnli.metrics.negnli_report` (``source`` names the file, e.g. NegNLI-MNLI)."""
    intervals = metrics.get("intervals")
    labels = metrics["labels"]
    scores = f1_table(metrics["standard"], labels, intervals)
    counts = metrics.get("confusion_counts", {})
    confusion_table = nli_confusion_table(metrics, labels, intervals)
    parts = [
        f"### {metrics.get('source', 'NegNLI')} — {metrics['count']} pairs",
        "F1 per class and All (the NaN-NLI paper's Table 5 columns):",
        scores,
    ]
    if "balanced_accuracy" in metrics:
        balanced = with_interval(metrics["balanced_accuracy"], intervals, "balanced_accuracy")
        parts.append(
            f"Balanced accuracy (mean recall over the gold labels; any constant answer scores 1/{len(labels)}): "
            f"{balanced}"
        )
    parts += [
        "Confusion matrix normalised by the true label (the NaN-NLI paper's Figure 1):",
        confusion_table,
    ]
    by_negation = metrics.get("accuracy_by_negation", {})
    if by_negation:
        parts += [
            "Accuracy by where negation was added (each original pair gave three):",
            markdown_table(
                ["negation added to", "right", "pairs", "accuracy"],
                [
                    [
                        where,
                        values["correct"],
                        values["total"],
                        with_interval(values["accuracy"], intervals, f"accuracy_by_negation.{where}.accuracy"),
                    ]
                    for where, values in by_negation.items()
                ],
            ),
        ]
    if counts and sum(sum(row.values()) for row in counts.values()) < metrics["count"]:
        parts.append("Some answers were outside the labels (counted as wrong, in no column).")
    note = interval_note(intervals)
    return "\n\n".join(parts + ([note] if note else [])) + "\n"


def confusion_heatmap(metrics: Mapping[str, Any], title: str) -> str:
    """The confusion matrix of an NLI task's metrics (``confusion_matrix``, normalised by the true label)."""
    confusion = metrics["confusion_matrix"]
    labels = list(confusion)
    return plots.heatmap(
        [[confusion[true][guess] for guess in labels] for true in labels],
        labels,
        labels,
        f"{title}: true (rows) vs predicted",
        vmin=0,
        vmax=1,
    )


def table5_figures(results: Sequence[Mapping[str, Any]]) -> list[Figure]:
    """Figure 1 of the NaN-NLI paper: the confusion matrices of the Table 5 benchmarks side by side."""
    return [
        (f"{title}: confusion matrix normalised by the true label", confusion_heatmap(metrics, title))
        for title, metrics in table5_columns(results).items()
    ]


def table5_columns(results: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Column title -> metrics of the Table 5 benchmarks a run holds (in the paper's order)."""
    by_task = {result["task"].get("task"): result["metrics"] for result in results}
    return {title: by_task[task] for task, title in TABLE5_TASKS.items() if task in by_task}


def table5_markdown(results: Sequence[Mapping[str, Any]]) -> str | None:
    """The NaN-NLI paper's Table 5 from a run's results, when it holds both ``negnli-mnli`` and ``nan-nli``
    (None otherwise; ``mnli-neg``, when the run holds it, is the first column): per-class F1 and All, one column per
    benchmark, with 95% intervals (no heading: the report gives it)."""
    columns = table5_columns(results)
    if any(TABLE5_TASKS[task] not in columns for task in TABLE5_REQUIRED):
        return None
    rows = []
    for label, short in _ROWS:
        rows.append(
            [f"{short} ({label})"]
            + [
                with_interval(
                    metrics["standard"]["per_class"][label]["f1"],
                    metrics.get("intervals"),
                    f"standard.per_class.{label}.f1",
                )
                for metrics in columns.values()
            ]
        )
    rows.append(
        ["All (support-weighted)"]
        + [
            with_interval(metrics["standard"]["all_f1"], metrics.get("intervals"), "standard.all_f1")
            for metrics in columns.values()
        ]
    )
    rows.append(["pairs"] + [metrics["count"] for metrics in columns.values()])
    paper = "; ".join(
        f"{name}: " + ", ".join(f"{short} {values[label]:.3f}" for label, short in _ROWS) + f", All {values['all']:.3f}"
        for name, values in TABLE5_PAPER.items()
    )
    notes = [interval_note(metrics.get("intervals")) for metrics in columns.values()]
    parts = [
        markdown_table(["F1", *columns], rows),
        f"The paper's RoBERTa-MNLI (Truong et al., 2022, Table 5): {paper}. "
        + (
            ""
            if "MNLI-neg" in columns
            else "MNLI-neg needs MNLI (not distributed with negkit): `negkit nan-nli mnli-neg` extracts it from a "
            "copy, then add the task mnli-neg to the run. "
        )
        + "The confusion matrices side by side (Figure 1) are in report.html.",
    ]
    return "\n\n".join(parts + [note for note in dict.fromkeys(notes) if note]) + "\n"
