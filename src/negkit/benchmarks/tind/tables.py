"""Markdown tables for TIND results, mirroring the paper's tables. Pure: metric dictionaries in, text out.

The input is the dictionary of :func:`negkit.benchmarks.tind.metrics.tind_metrics` (the authors' layout).

* :func:`overview_table` — the paper's Table 4: one row per run, coherence (the five measures) then
  accuracy (all, affirmative, negative, and the four input/distractor cells);
* :func:`input_pattern_table` — the paper's Table 5: per pattern, accuracy on the input sentences only (no
  distractors), affirmative vs negative;
* :func:`pattern_table` — per pattern, all sentences: accuracy on all/affirmative/negative sentences and
  coherence;
* :func:`negation_type_table` — per negation type (Table 7): accuracy on all, input and distractor
  sentences for affirmation and each negation type;
* :func:`auc_table` — per pattern, the ROC AUC of p(True) in every view (negkit's addition; runs with p(True));
* :func:`tind_report` — all of them under headings, with the sample note (a ``--limit`` run) and the
  empty-cell note when they apply.

Percentages are printed with 2 decimals, as the authors round them; a bucket without sentences prints "–". When the
metrics carry ``intervals`` (:mod:`negkit.benchmarks.tind.intervals`), every cell is ``value [low, high]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from negkit.benchmarks.tind.intervals import AUC_LABELS, LABELS
from negkit.benchmarks.tind.metrics import ACCURACY_BUCKETS, AUC_VIEWS, COHERENCE_MEASURES, NEGATION_VALUES
from negkit.benchmarks.tind.types import PATTERN_IDS
from negkit.kit.render.markdown import interval_note, markdown_table, number, with_interval

#: Short column titles for the coherence measures, in the order of COHERENCE_MEASURES.
COHERENCE_TITLES: dict[str, str] = {measure: LABELS[measure] for measure in COHERENCE_MEASURES}
#: Accuracy buckets of the overview table and their column titles.
ACCURACY_TITLES: dict[str, str] = {bucket: LABELS[bucket] for bucket in ACCURACY_BUCKETS}
Intervals = Mapping[str, Any]


def _size(bucket: Mapping[str, Any]) -> int:
    return int(bucket.get("TP", 0) + bucket.get("FP", 0) + bucket.get("FN", 0) + bucket.get("TN", 0))


def _accuracy(bucket: Mapping[str, Any] | None, intervals: Intervals | None = None, path: str = "") -> str:
    """A bucket's accuracy with 2 decimals and its interval (``intervals[path]``), or "–" without sentences."""
    if not bucket or _size(bucket) == 0:
        return number(None)
    return with_interval(float(bucket["accuracy"]), intervals, path, 2)


def _coherence(measure: Mapping[str, Any] | None, intervals: Intervals | None = None, path: str = "") -> str:
    if not measure or measure.get("Coherent", 0) + measure.get("Incoherent", 0) == 0:
        return number(None)
    return with_interval(float(measure["Coherence_percentage"]), intervals, path, 2)


def _coherence_path(prefix: str, measure: str) -> str:
    return f"{prefix}coherence_scores.{measure}.Coherence_percentage"


def overview_table(runs: Mapping[str, Mapping[str, Any]]) -> str:
    """Table 4: one row per run (name -> metrics), coherence then accuracy, with each run's intervals."""
    headers = ["run", *COHERENCE_TITLES.values(), *ACCURACY_TITLES.values()]
    rows = []
    for name, metrics in runs.items():
        coherence = metrics.get("coherence_scores", {})
        intervals = metrics.get("intervals")
        rows.append(
            [name]
            + [_coherence(coherence.get(m), intervals, _coherence_path("", m)) for m in COHERENCE_MEASURES]
            + [_accuracy(metrics.get(bucket), intervals, f"{bucket}.accuracy") for bucket in ACCURACY_TITLES]
        )
    return markdown_table(headers, rows)


def _pattern_rows(metrics: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any], str]]:
    """``(label, metrics, interval path prefix)`` for every pattern present, then the total."""
    patterns = metrics.get("summary", {}).get("patterns", [])
    labelled = [(f"#{PATTERN_IDS[name]:02d} {name}", metrics[name], f"{name}.") for name in patterns if name in metrics]
    return labelled + [("**all**", metrics, "")]


def input_pattern_table(metrics: Mapping[str, Any]) -> str:
    """Table 5: per pattern, accuracy on input sentences (distractors left out), affirmative vs negative."""
    headers = ["pattern", "input aff. sentences", "acc. input aff", "input neg. sentences", "acc. input neg"]
    intervals = metrics.get("intervals")
    rows = [
        [
            label,
            _size(entry.get("input_affirmation", {})),
            _accuracy(entry.get("input_affirmation"), intervals, f"{prefix}input_affirmation.accuracy"),
            _size(entry.get("input_negation", {})),
            _accuracy(entry.get("input_negation"), intervals, f"{prefix}input_negation.accuracy"),
        ]
        for label, entry, prefix in _pattern_rows(metrics)
    ]
    return markdown_table(headers, rows)


def pattern_table(metrics: Mapping[str, Any]) -> str:
    """Per pattern, all sentences (distractors included): accuracy and coherence, one row per pattern and the total."""
    measures = ("All", "Affirmation-Negation_Input", "Input-Distractor_Affirmation", "Input-Distractor_Negation")
    headers = ["pattern", "sentences", "acc. all", "acc. aff", "acc. neg", *(COHERENCE_TITLES[m] for m in measures)]
    intervals = metrics.get("intervals")
    rows = []
    for label, entry, prefix in _pattern_rows(metrics):
        coherence = entry.get("coherence_scores", {})
        rows.append(
            [label, _size(entry.get("all", {}))]
            + [
                _accuracy(entry.get(b), intervals, f"{prefix}{b}.accuracy")
                for b in ("all", "all_affirmations", "all_negations")
            ]
            + [_coherence(coherence.get(m), intervals, _coherence_path(prefix, m)) for m in measures]
        )
    return markdown_table(headers, rows)


def negation_type_table(metrics: Mapping[str, Any]) -> str:
    """Table 7: accuracy per negation type (and affirmation) on all, input and distractor sentences."""
    headers = ["type", "sentences", "acc. all", "acc. input", "acc. distractor"]
    intervals = metrics.get("intervals")
    rows = [
        ["affirmation", _size(metrics.get("all_affirmations", {}))]
        + [
            _accuracy(metrics.get(b), intervals, f"{b}.accuracy")
            for b in ("all_affirmations", "input_affirmation", "distractor_affirmation")
        ]
    ]
    analysis = metrics.get("Negation_analysis", {})
    values = list(NEGATION_VALUES) + sorted({key.rsplit("_", 1)[0] for key in analysis} - set(NEGATION_VALUES))
    for value in values:
        if _size(analysis.get(f"{value}_all", {})) == 0:
            continue
        rows.append(
            [value, _size(analysis[f"{value}_all"])]
            + [
                _accuracy(analysis.get(f"{value}_{scope}"), intervals, f"Negation_analysis.{value}_{scope}.accuracy")
                for scope in ("all", "input", "distractor")
            ]
        )
    return markdown_table(headers, rows)


def auc_table(metrics: Mapping[str, Any]) -> str:
    """Per pattern and in all, the ROC AUC of p(True) in every view (3 decimals; "–" where a view lacks a positive
    or a negative); "" for a run without p(True)."""
    if "p_true_auc" not in metrics:
        return ""
    intervals = metrics.get("intervals")
    rows = [
        [label]
        + [
            with_interval(entry.get("p_true_auc", {}).get(view), intervals, f"{prefix}p_true_auc.{view}")
            for view in AUC_VIEWS
        ]
        for label, entry, prefix in _pattern_rows(metrics)
    ]
    return markdown_table(["pattern", *(AUC_LABELS[view] for view in AUC_VIEWS)], rows)


def empty_cell_note(metrics: Mapping[str, Any]) -> str:
    """A sentence on groups with an empty truth-table cell (counted as incoherent), or "" when there are none."""
    groups = metrics.get("summary", {}).get("groups_with_empty_cells", 0)
    if not groups:
        return ""
    per_measure = ", ".join(
        f"{measure} {metrics['coherence_scores'][measure]['Empty_cells']}"
        for measure in COHERENCE_MEASURES
        if metrics.get("coherence_scores", {}).get(measure, {}).get("Empty_cells")
    )
    return (
        f"Note: {groups} group(s) had a compared cell with no sentence after filtering by the truth table; "
        f"they count as incoherent for that measure ({per_measure})."
    )


def sample_note(metrics: Mapping[str, Any]) -> str:
    """A sentence saying that the run scored a ``--limit`` sample, and of what; "" for a whole split."""
    sample = metrics.get("sample")
    if not sample:
        return ""
    per_pattern = ", ".join(f"#{pattern} {count}" for pattern, count in sample.get("groups_per_pattern", {}).items())
    split = "the whole data set (all splits)" if sample.get("split") == "all" else f"the {sample.get('split')} split"
    return (
        f"**This is a sample**, not the full benchmark: {sample['sentences']:,} of the {sample['of_sentences']:,} "
        f"sentences ({sample['groups']:,} of {sample['of_groups']:,} whole groups) of {split}, drawn with "
        f"--limit {sample['limit']} and seed {sample['seed']}; at least one whole group of every pattern "
        f"(groups per pattern: {per_pattern}). Coherence over few groups is a rough estimate."
    )


def tind_report(metrics: Mapping[str, Any], name: str = "model", title: str = "TIND results") -> str:
    """The full Markdown report of one run: overview, per pattern (Table 5 and all sentences), per negation type."""
    summary = metrics.get("summary", {})
    parts = [
        f"## {title}",
        f"{summary.get('items', _size(metrics.get('all', {})))} sentences in {summary.get('groups', '?')} groups.",
    ]
    note = sample_note(metrics)
    if note:
        parts.append(note)
    parts += [
        "### Coherence and accuracy (paper Table 4)",
        overview_table({name: metrics}),
        "### Per pattern, input sentences without distractors (paper Table 5)",
        input_pattern_table(metrics),
        "### Per pattern, all sentences",
        pattern_table(metrics),
        "### Per negation type (paper Table 7)",
        negation_type_table(metrics),
    ]
    aucs = auc_table(metrics)
    if aucs:
        parts += [
            "### ROC AUC of p(True) (negkit's addition)",
            "Against the gold label on all, affirmative, negative, input and distractor sentences; input "
            "against distractor sentences on affirmative and on negative ones (below 0.5: the model ranks "
            "distractors above inputs, as it should under negation). Ties count half.",
            aucs,
        ]
    for note in (empty_cell_note(metrics), interval_note(metrics.get("intervals"))):
        if note:
            parts.append(note)
    return "\n\n".join(parts) + "\n"


def statistics_table(stats: Mapping[str, Mapping[str, Any]]) -> str:
    """A data set's counts from :func:`negkit.benchmarks.tind.stats.tind_statistics`, one row per pattern."""
    with_splits = any("split_groups" in entry for entry in stats.values())
    headers = ["pattern", "groups", "sentences", "True", "False", "% True", "input", "distractor", "negated"]
    if with_splits:
        headers += ["train groups", "validation groups", "test groups"]
    rows = []
    for name, entry in stats.items():
        label = "**total**" if name == "total" else f"#{PATTERN_IDS[name]:02d} {name}"
        share = number(100 * entry["true"] / entry["sentences"], 2) if entry["sentences"] else number(None)
        row = [
            label,
            entry["groups"],
            entry["sentences"],
            entry["true"],
            entry["false"],
            share,
            entry["input"],
            entry["distractor"],
            entry["negated"],
        ]
        if with_splits:
            row += [entry.get("split_groups", {}).get(split, number(None)) for split in ("train", "validation", "test")]
        rows.append(row)
    return markdown_table(headers, rows)
