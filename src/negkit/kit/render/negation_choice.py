"""Tables of standard-negation multiple choice (:mod:`negkit.kit.metrics.negation_choice`): accuracy and the error
analysis, with 95% intervals (``value [low, high]``) when the metrics carry them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from negkit.kit.metrics.negation_choice import CHOICE_NAMES, WRONG_CHOICES
from negkit.kit.render import plots
from negkit.kit.render.figures import triple
from negkit.kit.render.markdown import interval_note, markdown_table, number, with_interval
from negkit.kit.view import Figure


def choice_tables(metrics: dict[str, Any], title: str, local_types: Sequence[str]) -> str:
    """Markdown for :func:`negkit.kit.metrics.negation_choice.choice_metrics`'s metrics under ``title``."""
    shots = metrics.get("num_fewshot", 0)
    setting = f"{shots}-shot" if shots else "zero-shot"
    summary = metrics["summary"]
    runs = metrics["runs"]
    intervals = metrics.get("intervals")
    source = metrics.get("source") or f"prompt {metrics.get('prompt_id', '?')}, {setting}"
    heading = f"### {title} — {source}, {metrics['count']} items"
    mean = {m: with_interval(summary[m]["mean"], intervals, f"summary.{m}.mean") for m in ("acc", "acc_norm")}
    if len(runs) > 1:
        accuracy = markdown_table(
            [
                "setting",
                "acc (mean over runs)",
                "acc_norm (mean over runs)",
                "acc SD over runs",
                "acc_norm SD over runs",
                "runs",
            ],
            [
                [
                    setting,
                    mean["acc"],
                    mean["acc_norm"],
                    number(summary["acc"]["sd"]),
                    number(summary["acc_norm"]["sd"]),
                    len(runs),
                ]
            ],
        )
    else:
        accuracy = markdown_table(["setting", "acc", "acc_norm"], [[setting, mean["acc"], mean["acc_norm"]]])
    error_rows = []
    for run, values in runs.items():
        analysis = values["error_analysis"]
        prefix = f"runs.{run}.error_analysis"
        error_rows.append(
            [run, with_interval(analysis["error_rate"], intervals, f"{prefix}.error_rate")]
            + [
                with_interval(
                    analysis["error_share_percent"][name], intervals, f"{prefix}.error_share_percent.{name}", 1
                )
                for name in WRONG_CHOICES
            ]
            + [
                with_interval(analysis["confusion_rate"].get(kind), intervals, f"{prefix}.confusion_rate.{kind}")
                for kind in local_types
            ]
        )
    errors = markdown_table(
        ["run", "error rate", "% errors choice2", "% errors choice3", "% errors choice4"]
        + [f"confusion {kind}" for kind in local_types],
        error_rows,
    )
    note = interval_note(intervals)
    text = f"{heading}\n\n{accuracy}\n\nError analysis (on acc predictions):\n\n{errors}\n"
    return text + (f"\n{note}\n" if note else "")


def choice_figures(title: str) -> Callable[..., list[Figure]]:
    """The figures of a suite: the choice distribution per run and the choices taken per local-negation type."""

    def figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
        runs = list(metrics.get("runs", {}))
        distribution = plots.interval_bars(
            list(CHOICE_NAMES),
            {run: [triple(metrics, f"runs.{run}.choice_share.{c}") for c in CHOICE_NAMES] for run in runs},
            f"{title}: answers chosen (choice1 is correct)",
            "share of answers",
            (0, 1),
        )
        found = [("Choice distribution per run (95% intervals)", distribution)]
        if records and runs:
            kinds = list(dict.fromkeys(record.get("choice2_type", "?") for record in records))
            rows = []
            for kind in kinds:
                answers = [
                    r["runs"][run]["prediction"]
                    for r in records
                    if r.get("choice2_type") == kind
                    for run in runs
                    if run in r.get("runs", {})
                ]
                rows.append([answers.count(c) / len(answers) if answers else None for c in CHOICE_NAMES])
            heat = plots.heatmap(
                rows, kinds, list(CHOICE_NAMES), "choice taken per local-negation type", vmin=0, vmax=1
            )
            found.append(("Which choice was taken, per local-negation type of choice2 (all runs)", heat))
        return found

    return figures
