"""TIND scored the way the paper's Table 4 scores it: the whole data set (``--split all``), on raw-public.zip.

Reference numbers for constant predictors on the public half come from the benchmarks spec (authors' scorer);
the Table 5 layout (per pattern, input sentences only, affirmative vs negative) is checked on the same run.
"""

from __future__ import annotations

import pytest
from tind_support import PUBLIC_COUNTS, public_zip

from negkit.benchmarks.tind.tables import input_pattern_table, tind_report
from negkit.benchmarks.tind.task import TruthTask


@pytest.fixture(scope="module")
def whole_set():
    task = TruthTask()
    data = task.load(public_zip(), "all", None, 0)
    return task, data


def test_split_all_is_every_group(whole_set):
    _task, data = whole_set
    assert len(data.items) == sum(sentences for _, sentences in PUBLIC_COUNTS.values()) == 190_765
    assert data.selection["groups"] == data.selection["groups_in_split"] == 2_052
    assert data.selection["split"] == "all" and "sample" not in data.selection


@pytest.mark.parametrize(
    ("value", "row"),
    [
        # coh All, A-N input, A-N distr., I-D aff, I-D neg, acc all, aff, neg, input aff, input neg, distr aff, distr neg
        (True, "| model | 0.00 | 0.00 | 0.00 | 2.83 | 2.83 | 50.26 | 47.48 | 52.06 | 96.64 | 2.82 | 0.38 | 99.76 |"),
        (False, "| model | 0.00 | 0.00 | 0.00 | 2.83 | 2.83 | 49.74 | 52.52 | 47.94 | 3.36 | 97.18 | 99.62 | 0.24 |"),
    ],
)
def test_whole_set_table4_constant_predictors(whole_set, value, row):
    task, data = whole_set
    metrics = task.metrics(data.items, [{"prediction": value}] * len(data.items))
    report = tind_report(metrics)
    assert row in report
    assert "This is a sample" not in report


def test_whole_set_table5_layout(whole_set):
    task, data = whole_set
    gold = task.metrics(data.items, [{"prediction": item.label} for item in data.items])
    table = input_pattern_table(gold)
    assert (
        table.splitlines()[0]
        == "| pattern | input aff. sentences | acc. input aff | input neg. sentences | acc. input neg |"
    )
    assert "| **all** | 36662 | 100.00 | 56995 | 100.00 |" in table
    always_true = task.metrics(data.items, [{"prediction": True}] * len(data.items))
    table = input_pattern_table(always_true)
    # #02 (antonymy): input affirmative sentences are False, input negative True; #03: 196 of 210 input
    # affirmative sentences are True (its "dual application of templates"), 14 of 196 input negative ones are
    assert "| #02 Antonymy1 | 522 | 0.00 | 841 | 100.00 |" in table
    assert "| #03 Synonymy2 | 210 | 93.33 | 196 | 7.14 |" in table
    assert "| #09 Agent | 30 | 100.00 | 30 | 0.00 |" in table
    assert "| **all** | 36662 | 96.64 | 56995 | 2.82 |" in table  # = Table 4's input columns
    assert len(table.splitlines()) == 2 + 11 + 1


def test_limit_sample_covers_every_pattern_and_says_so():
    task = TruthTask()
    data = task.load(public_zip(), "all", 500, 0)
    patterns = {item.pattern_id for item in data.items}
    assert patterns == set(range(1, 12))
    groups = {item.group_key for item in data.items}
    for key in groups:  # whole groups only
        assert (
            sum(item.group_key == key for item in data.items)
            == {1: 94, 2: 141, 3: 174, 4: 174, 5: 96, 6: 60, 7: 56, 8: 62, 9: 4, 10: 52, 11: 90}[key[0]]
        )
    sample = data.selection["sample"]
    assert sample["of_sentences"] == 190_765 and sample["of_groups"] == 2_052 and sample["limit"] == 500
    assert sample["groups_per_pattern"] == {f"{p:02d}": 1 for p in range(1, 12)}
    metrics = task.metrics(data.items, [{"prediction": True}] * len(data.items))
    report = tind_report(metrics)
    assert (
        "**This is a sample**, not the full benchmark: 1,003 of the 190,765 sentences (11 of 2,052 whole groups)"
        in report
    )
    assert "of the whole data set (all splits), drawn with --limit 500 and seed 0" in report
