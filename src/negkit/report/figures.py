"""The figures of each suite's HTML section, from a task's metrics (with their ``intervals``) and, where a figure
needs more than the metrics, its per-sample records. Each function returns ``[(caption, svg), ...]``.

- TIND: accuracy by affirmation/negation on all, input and distractor sentences; the five coherence measures;
  a per-pattern heatmap of every accuracy bucket and coherence measure;
- NaN-NLI: the confusion matrices (standard and binary, normalised by the true label) and macro F1 per negation
  type of the premise and of the hypothesis;
- ScoNe: accuracy per condition (chance at 0.5);
- Thunder-NUBench: the distribution of the chosen answers per run and, per local-negation type, which choice
  was taken;
- CondaQA: accuracy overall and per passage edit, group consistency;
- negation resolution (a *SEM score in JSON): the F1 of each *SEM measure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from negkit.data.nli import NEGATION_TYPES, NLI_LABELS, SCONE_CONDITIONS
from negkit.data.tind_types import PATTERN_IDS
from negkit.metrics.multiple_choice import CHOICE_NAMES
from negkit.metrics.tind import COHERENCE_MEASURES
from negkit.metrics.tind_intervals import LABELS as TIND_LABELS
from negkit.report import plots

Figure = tuple[str, str]
Triple = tuple[float | None, float | None, float | None]


def _value(metrics: dict[str, Any], path: str) -> Any:
    node: Any = metrics
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def triple(metrics: dict[str, Any], path: str, scale: float = 1.0) -> Triple:
    """``(value, low, high)`` of the metric at ``path``; bounds are None without an interval."""
    value = _value(metrics, path)
    entry = metrics.get("intervals", {}).get(path) or {}
    low, high = entry.get("ci", (None, None))
    if value is None:
        return None, None, None
    return (float(value) * scale, None if low is None else low * scale, None if high is None else high * scale)


def tind_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Accuracy bars, coherence bars and the per-pattern heatmap (percentages)."""
    accuracy = plots.interval_bars(
        ["all sentences", "input sentences", "distractor sentences"],
        {"affirmative": [triple(metrics, f"{b}.accuracy") for b in ("all_affirmations", "input_affirmation", "distractor_affirmation")],
         "negative": [triple(metrics, f"{b}.accuracy") for b in ("all_negations", "input_negation", "distractor_negation")]},
        "TIND accuracy by affirmation / negation", "accuracy (%)", (0, 100), reference=50,
    )
    coherence = plots.interval_bars(
        [TIND_LABELS[m].replace("coh. ", "") for m in COHERENCE_MEASURES],
        {"coherence": [triple(metrics, f"coherence_scores.{m}.Coherence_percentage") for m in COHERENCE_MEASURES]},
        "TIND coherence (share of groups)", "coherent groups (%)", (0, 100),
    )
    patterns = metrics.get("summary", {}).get("patterns", [])
    columns = [("all", "acc. all"), ("all_affirmations", "acc. aff"), ("all_negations", "acc. neg"),
               ("input_affirmation", "input aff"), ("input_negation", "input neg"),
               ("distractor_affirmation", "distr. aff"), ("distractor_negation", "distr. neg")]
    rows = []
    for name in patterns:
        entry = metrics.get(name, {})
        size = lambda bucket: sum(entry.get(bucket, {}).get(k, 0) for k in ("TP", "FP", "FN", "TN"))  # noqa: E731
        row = [entry.get(bucket, {}).get("accuracy") if size(bucket) else None for bucket, _ in columns]
        row += [entry.get("coherence_scores", {}).get(m, {}).get("Coherence_percentage") for m in COHERENCE_MEASURES]
        rows.append(row)
    figures = [("Accuracy by affirmation / negation (95% intervals)", accuracy),
               ("The five coherence measures (95% intervals)", coherence)]
    if rows:
        heat = plots.heatmap(rows, [f"#{PATTERN_IDS[name]:02d} {name}" for name in patterns],
                             [title for _, title in columns] + [TIND_LABELS[m] for m in COHERENCE_MEASURES],
                             "TIND per pattern (%)", vmin=0, vmax=100, digits=0)
        figures.append(("Per pattern: accuracy buckets and coherence (%)", heat))
    return figures


def _counts_matrix(metrics: dict[str, Any]) -> dict[str, dict[str, float]]:
    """The standard confusion matrix in counts (normalised rows times the class supports)."""
    support = {label: metrics["standard"]["per_class"][label]["support"] for label in NLI_LABELS}
    return {true: {guess: metrics["confusion_matrix"][true][guess] * support[true] for guess in NLI_LABELS}
            for true in NLI_LABELS}


def nan_nli_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Confusion matrices (standard, binary) and macro F1 per negation type."""
    confusion = metrics["confusion_matrix"]
    standard = plots.heatmap([[confusion[t][g] for g in NLI_LABELS] for t in NLI_LABELS], NLI_LABELS, NLI_LABELS,
                             "standard: true (rows) vs predicted", vmin=0, vmax=1)
    counts = _counts_matrix(metrics)
    not_entailment = ("contradiction", "neutral")
    cells = {("entailment", "entailment"): counts["entailment"]["entailment"],
             ("entailment", "not_entailment"): sum(counts["entailment"][g] for g in not_entailment),
             ("not_entailment", "entailment"): sum(counts[t]["entailment"] for t in not_entailment),
             ("not_entailment", "not_entailment"): sum(counts[t][g] for t in not_entailment for g in not_entailment)}
    binary_labels = ("entailment", "not_entailment")
    rows = []
    for true in binary_labels:
        total = sum(cells[(true, g)] for g in binary_labels)
        rows.append([cells[(true, g)] / total if total else None for g in binary_labels])
    binary = plots.heatmap(rows, binary_labels, binary_labels, "binary: true (rows) vs predicted", vmin=0, vmax=1)
    kinds = [k for k in (*NEGATION_TYPES, "No negation")
             if k in metrics.get("premise_negation_type", {}) or k in metrics.get("hypothesis_negation_type", {})]
    types = plots.interval_bars(
        kinds,
        {side: [triple(metrics, f"{side}_negation_type.{k}.f1") for k in kinds] for side in ("premise", "hypothesis")},
        "NaN-NLI macro F1 by negation type", "macro F1", (0, 1), width=8.0,
    )
    return [("Confusion matrix, standard setting (normalised by the true label)", standard),
            ("Confusion matrix, binary setting (normalised by the true label)", binary),
            ("Macro F1 by the negation type of the premise and of the hypothesis (95% intervals)", types)]


def scone_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Accuracy per condition and overall."""
    conditions = [c for c in (*SCONE_CONDITIONS, "overall") if c in metrics.get("accuracy", {})]
    labels = [condition.replace("_scoped_one_", "_scoped, one_").replace("_", " ") for condition in conditions]
    bars = plots.interval_bars(labels, {"accuracy": [triple(metrics, f"accuracy.{c}") for c in conditions]},
                               "ScoNe-NLI accuracy per condition", "accuracy", (0, 1), reference=0.5, width=7.2,
                               wrap=10)
    return [("Accuracy per condition (95% intervals; dashed: chance)", bars)]


def nubench_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """The choice distribution per run and the choices taken per local-negation type."""
    runs = list(metrics.get("runs", {}))
    distribution = plots.interval_bars(
        list(CHOICE_NAMES), {run: [triple(metrics, f"runs.{run}.choice_share.{c}") for c in CHOICE_NAMES] for run in runs},
        "Thunder-NUBench: answers chosen (choice1 is correct)", "share of answers", (0, 1),
    )
    figures = [("Choice distribution per run (95% intervals)", distribution)]
    if records and runs:
        kinds = list(dict.fromkeys(record.get("choice2_type", "?") for record in records))
        rows = []
        for kind in kinds:
            answers = [r["runs"][run]["prediction"] for r in records if r.get("choice2_type") == kind for run in runs
                       if run in r.get("runs", {})]
            rows.append([answers.count(c) / len(answers) if answers else None for c in CHOICE_NAMES])
        heat = plots.heatmap(rows, kinds, list(CHOICE_NAMES), "choice taken per local-negation type", vmin=0, vmax=1)
        figures.append(("Which choice was taken, per local-negation type of choice2 (all runs)", heat))
    return figures


def resolution_figures(score: dict[str, Any]) -> list[Figure]:
    """F1 of each *SEM 2012 measure per system, from ``negkit resolution score --json``'s output."""
    systems = [(Path(str(entry.get("system", "?"))).name, entry.get("starsem", {}).get("rows", []),
                entry.get("intervals", {})) for entry in score.get("systems", [])]
    measures = list(dict.fromkeys(row["row"] for _, rows, _ in systems for row in rows if row.get("f1") is not None))
    if not measures:
        return []

    def f1(rows: list[dict[str, Any]], intervals: dict[str, Any], measure: str) -> Triple:
        value = next((float(r["f1"]) for r in rows if r["row"] == measure), None)
        low, high = (intervals.get(f"{measure}.f1") or {}).get("ci", (None, None))
        return value, low, high

    series = {name: [f1(rows, intervals, m) for m in measures] for name, rows, intervals in systems}
    bars = plots.interval_bars(measures, series, "negation resolution (*SEM 2012 scorer)", "F1 (%)", (0, 100), width=8.0)
    return [("*SEM 2012 measures, F1 per system (95% intervals over sentences)", bars)]


def condaqa_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Accuracy per passage edit and group consistency, with intervals."""
    edits = list(metrics.get("accuracy_per_edit", {}))
    accuracy = plots.interval_bars(["all", *edits], {"accuracy": [triple(metrics, "accuracy.accuracy")] + [
        triple(metrics, f"accuracy_per_edit.{edit}.accuracy") for edit in edits]},
        "CondaQA accuracy by passage edit", "accuracy", (0, 1))
    kinds = list(metrics.get("consistency", {}))
    consistency = plots.interval_bars(kinds, {"consistency": [triple(metrics, f"consistency.{k}.accuracy") for k in kinds]},
                                      "CondaQA group consistency", "consistent groups", (0, 1))
    return [("Accuracy overall and per passage edit (95% intervals)", accuracy),
            ("Group consistency: all edits, and the original with each edit (95% intervals)", consistency)]


#: Suite -> figure builder (metrics, records) -> figures.
SUITE_FIGURES: dict[str, Callable[..., list[Figure]]] = {
    "tind": tind_figures,
    "nan-nli": nan_nli_figures,
    "scone": scone_figures,
    "nubench": nubench_figures,
    "condaqa": condaqa_figures,
}


def comparison_figures(task_name: str, task: dict[str, Any], baseline: str) -> list[Figure]:
    """One task of ``negkit compare``: headline values per run, and differences from the baseline."""
    labels = [metric["label"] for metric in task["metrics"]]
    paths = [metric["path"] for metric in task["metrics"]]

    def entry_triple(entry: dict[str, Any] | None, key: str) -> Triple:
        if not entry or entry.get(key) is None:
            return None, None, None
        low, high = entry["ci"]
        return entry[key], low, high

    values = {row["run"]: [entry_triple(row["values"].get(path), "estimate") for path in paths] for row in task["rows"]}
    scale = (0, 100) if task["suite"] == "tind" else (0, 1)
    figures = [(f"{task_name}: headline metrics per run (95% intervals)",
                plots.interval_bars(labels, values, f"{task_name}", "value", scale, width=max(6.4, 0.75 * len(labels) + 3)))]
    differences = {row["run"]: [entry_triple(row["vs_baseline"].get(path), "difference") for path in paths]
                   for row in task["rows"] if row.get("vs_baseline")}
    if differences:
        figures.append((f"{task_name}: difference from {baseline} (paired bootstrap, 95% intervals)",
                        plots.forest(labels, differences, f"{task_name}: run − {baseline}", "difference")))
    return figures
