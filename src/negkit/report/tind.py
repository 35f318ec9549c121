"""Markdown tables for TIND results, mirroring the paper's tables. Pure: metric dictionaries in, text out.

The input is the dictionary of :func:`negkit.metrics.tind.tind_metrics` (the authors' layout).

* :func:`overview_table` — the paper's Table 4: one row per run, coherence (the five measures) then
  accuracy (all, affirmative, negative, and the four input/distractor cells);
* :func:`input_pattern_table` — the paper's Table 5: per pattern, accuracy on the input sentences only (no
  distractors), affirmative vs negative;
* :func:`pattern_table` — per pattern, all sentences: accuracy on all/affirmative/negative sentences and
  coherence;
* :func:`negation_type_table` — per negation type (Table 7): accuracy on all, input and distractor
  sentences for affirmation and each negation type;
* :func:`tind_report` — all of them under headings, with the sample note (a ``--limit`` run) and the
  empty-cell note when they apply.

Percentages are printed with 2 decimals, as the authors round them; a bucket without sentences prints "–".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from negkit.data.tind_types import PATTERN_IDS
from negkit.metrics.tind import COHERENCE_MEASURES, NEGATION_VALUES
from negkit.report.markdown import markdown_table, number

#: Short column titles for the coherence measures, in the order of COHERENCE_MEASURES.
COHERENCE_TITLES: dict[str, str] = {
    "All": "coh. All",
    "Affirmation-Negation_Input": "coh. aff-neg input",
    "Affirmation-Negation_Distractor": "coh. aff-neg distr.",
    "Input-Distractor_Affirmation": "coh. input-distr. aff",
    "Input-Distractor_Negation": "coh. input-distr. neg",
}
#: Accuracy buckets of the overview table and their column titles.
ACCURACY_TITLES: dict[str, str] = {
    "all": "acc. all",
    "all_affirmations": "acc. aff",
    "all_negations": "acc. neg",
    "input_affirmation": "acc. input aff",
    "input_negation": "acc. input neg",
    "distractor_affirmation": "acc. distr. aff",
    "distractor_negation": "acc. distr. neg",
}


def _size(bucket: Mapping[str, Any]) -> int:
    return int(bucket.get("TP", 0) + bucket.get("FP", 0) + bucket.get("FN", 0) + bucket.get("TN", 0))


def _accuracy(bucket: Mapping[str, Any] | None) -> str:
    """A bucket's accuracy with 2 decimals, or "–" when the bucket is missing or has no sentence."""
    if not bucket or _size(bucket) == 0:
        return number(None)
    return number(float(bucket["accuracy"]), 2)


def _coherence(measure: Mapping[str, Any] | None) -> str:
    if not measure or measure.get("Coherent", 0) + measure.get("Incoherent", 0) == 0:
        return number(None)
    return number(float(measure["Coherence_percentage"]), 2)


def overview_table(runs: Mapping[str, Mapping[str, Any]]) -> str:
    """Table 4: one row per run (name -> metrics), coherence then accuracy."""
    headers = ["run", *COHERENCE_TITLES.values(), *ACCURACY_TITLES.values()]
    rows = []
    for name, metrics in runs.items():
        coherence = metrics.get("coherence_scores", {})
        rows.append(
            [name]
            + [_coherence(coherence.get(measure)) for measure in COHERENCE_MEASURES]
            + [_accuracy(metrics.get(bucket)) for bucket in ACCURACY_TITLES]
        )
    return markdown_table(headers, rows)


def _pattern_rows(metrics: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """``(label, metrics)`` for every pattern present, then the total."""
    patterns = metrics.get("summary", {}).get("patterns", [])
    labelled = [(f"#{PATTERN_IDS[name]:02d} {name}", metrics[name]) for name in patterns if name in metrics]
    return labelled + [("**all**", metrics)]


def input_pattern_table(metrics: Mapping[str, Any]) -> str:
    """Table 5: per pattern, accuracy on input sentences (distractors left out), affirmative vs negative."""
    headers = ["pattern", "input aff. sentences", "acc. input aff", "input neg. sentences", "acc. input neg"]
    rows = [
        [label, _size(entry.get("input_affirmation", {})), _accuracy(entry.get("input_affirmation")),
         _size(entry.get("input_negation", {})), _accuracy(entry.get("input_negation"))]
        for label, entry in _pattern_rows(metrics)
    ]
    return markdown_table(headers, rows)


def pattern_table(metrics: Mapping[str, Any]) -> str:
    """Per pattern, all sentences (distractors included): accuracy and coherence, one row per pattern and the total."""
    headers = ["pattern", "sentences", "acc. all", "acc. aff", "acc. neg", "coh. All", "coh. aff-neg input",
               "coh. input-distr. aff", "coh. input-distr. neg"]
    rows = []
    for label, entry in _pattern_rows(metrics):
        coherence = entry.get("coherence_scores", {})
        rows.append(
            [label, _size(entry.get("all", {})), _accuracy(entry.get("all")), _accuracy(entry.get("all_affirmations")),
             _accuracy(entry.get("all_negations"))]
            + [_coherence(coherence.get(m)) for m in ("All", "Affirmation-Negation_Input",
                                                      "Input-Distractor_Affirmation", "Input-Distractor_Negation")]
        )
    return markdown_table(headers, rows)


def negation_type_table(metrics: Mapping[str, Any]) -> str:
    """Table 7: accuracy per negation type (and affirmation) on all, input and distractor sentences."""
    headers = ["type", "sentences", "acc. all", "acc. input", "acc. distractor"]
    rows = [["affirmation", _size(metrics.get("all_affirmations", {})), _accuracy(metrics.get("all_affirmations")),
             _accuracy(metrics.get("input_affirmation")), _accuracy(metrics.get("distractor_affirmation"))]]
    analysis = metrics.get("Negation_analysis", {})
    values = list(NEGATION_VALUES) + sorted(
        {key.rsplit("_", 1)[0] for key in analysis} - set(NEGATION_VALUES)
    )
    for value in values:
        if _size(analysis.get(f"{value}_all", {})) == 0:
            continue
        rows.append([value, _size(analysis[f"{value}_all"])]
                    + [_accuracy(analysis.get(f"{value}_{scope}")) for scope in ("all", "input", "distractor")])
    return markdown_table(headers, rows)


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
    note = empty_cell_note(metrics)
    if note:
        parts.append(note)
    return "\n\n".join(parts) + "\n"


def statistics_table(stats: Mapping[str, Mapping[str, Any]]) -> str:
    """A data set's counts from :func:`negkit.data.tind_stats.tind_statistics`, one row per pattern."""
    with_splits = any("split_groups" in entry for entry in stats.values())
    headers = ["pattern", "groups", "sentences", "True", "False", "% True", "input", "distractor", "negated"]
    if with_splits:
        headers += ["train groups", "validation groups", "test groups"]
    rows = []
    for name, entry in stats.items():
        label = "**total**" if name == "total" else f"#{PATTERN_IDS[name]:02d} {name}"
        share = number(100 * entry["true"] / entry["sentences"], 2) if entry["sentences"] else number(None)
        row = [label, entry["groups"], entry["sentences"], entry["true"], entry["false"], share,
               entry["input"], entry["distractor"], entry["negated"]]
        if with_splits:
            row += [entry.get("split_groups", {}).get(split, number(None)) for split in ("train", "validation", "test")]
        rows.append(row)
    return markdown_table(headers, rows)
