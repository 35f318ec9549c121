"""TIND's per-pattern tables give every cell an interval or a stated reason, the same way in report.md, report.html
and the results' JSON: a pattern the sample holds one group of gets "value †" in every cell (never a Wilson
interval in some and a bare value in others) and a footnote; patterns with several groups get brackets."""

from __future__ import annotations

import random

from tiny_models import synthetic_truth_items

from negkit.benchmarks.tind.intervals import tind_estimands
from negkit.benchmarks.tind.metrics import tind_metrics
from negkit.benchmarks.tind.tables import auc_table, input_pattern_table, pattern_table, tind_report
from negkit.kit.metrics.intervals import ONE_UNIT, intervals_json
from negkit.kit.render.html import markdown_to_html


def _run():
    several = synthetic_truth_items(groups_per_pattern=3, patterns=(1, 5))
    one = synthetic_truth_items(groups_per_pattern=1, patterns=(2,))  # pattern #02: a single group
    items = several + one
    rng = random.Random(1)
    p_true = [rng.random() for _ in items]
    # one group's cells: all answers right (every outcome equal, where a Wilson interval used to appear) on the
    # input sentences, mixed elsewhere
    predictions = [
        item.label if item.pattern_id == 2 and not item.is_distractor else p > 0.5 for item, p in zip(items, p_true)
    ]
    metrics = tind_metrics(items, predictions, p_true)
    metrics["intervals"] = intervals_json(tind_estimands(items, predictions, p_true))
    return metrics


def _cells(table: str, label: str) -> list[str]:
    row = next(line for line in table.splitlines() if line.startswith(f"| {label} |"))
    return [cell.strip() for cell in row.strip("|").split("|")][1:]


def test_one_group_cells_are_marked_and_explained_everywhere():
    metrics = _run()
    tables = [input_pattern_table(metrics), pattern_table(metrics), auc_table(metrics)]
    for table in tables:
        one = [cell for cell in _cells(table, "#02 Antonymy1") if "." in cell]  # the values (not the counts)
        assert one and all(cell.endswith(" †") and "[" not in cell for cell in one), one
        several = [cell for cell in _cells(table, "#01 Synonymy1") if "." in cell]
        assert several and all("[" in cell and "†" not in cell for cell in several), several
    report = tind_report(metrics)
    footnote = "† No interval: the sample has a single TIND group there"
    assert footnote in report and "100.00 †" in report  # the all-right cell of the single group: no Wilson interval
    html = markdown_to_html(report)
    assert footnote in html and html.count("†") == report.count("†")
    entries = {path: entry for path, entry in metrics["intervals"].items() if path.startswith("Antonymy1.")}
    assert entries and all(
        entry["ci"] == [None, None]
        and entry["method"] == ONE_UNIT
        and entry["no_interval_reason"].startswith("a single TIND group")
        for entry in entries.values()
    )
    assert all(
        entry["ci"][0] is not None for path, entry in metrics["intervals"].items() if path.startswith("Synonymy1.")
    )
