"""TIND's human evaluation (Table 3): the stratified sample and the sheet on invented TIND-format items, and the
table worked out by hand from two filled sheets made by hand (tests/fixtures/tind_human_eval)."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest
from malformed import assert_input_error
from tiny_models import synthetic_truth_items

from negkit.cli import main
from negkit.errors import NegkitError
from negkit.studies.tind.human_eval import (
    cell_of,
    human_eval_table,
    read_key,
    read_sheet,
    sample_for_annotation,
    write_sheet,
)

FIXTURE = Path(__file__).parents[2] / "fixtures" / "tind_human_eval"


def test_sample_is_stratified_and_seeded():
    items = synthetic_truth_items(groups_per_pattern=3, patterns=(1, 2))
    sample = sample_for_annotation(items, per_pattern=4, seed=1)
    assert len(sample) == 8
    assert Counter((item.pattern_id, cell_of(item)) for item in sample) == {
        (pattern, cell): 1
        for pattern in (1, 2)
        for cell in ("input-affirmative", "input-negative", "distractor-affirmative", "distractor-negative")
    }
    for pattern in (1, 2):  # three groups for four cells: every group used, one of them twice
        groups = Counter(item.group_id for item in sample if item.pattern_id == pattern)
        assert sorted(groups.values()) == [1, 1, 2]
    assert sample == sample_for_annotation(items, per_pattern=4, seed=1)
    assert sample != sample_for_annotation(items, per_pattern=4, seed=2)
    full = sample_for_annotation(items, per_pattern=20)
    assert len(full) == 40 and Counter(cell_of(item) for item in full)["input-negative"] == 10  # 5 per cell and pattern
    odd = sample_for_annotation(items, per_pattern=6)
    assert Counter(cell_of(item) for item in odd if item.pattern_id == 1) == {
        "input-affirmative": 2,
        "input-negative": 2,
        "distractor-affirmative": 1,
        "distractor-negative": 1,
    }
    with pytest.raises(NegkitError):
        sample_for_annotation(items, per_pattern=0)


def test_sheet_and_key(tmp_path):
    items = synthetic_truth_items(groups_per_pattern=3, patterns=(1, 2))
    sample = sample_for_annotation(items, per_pattern=4)
    key = write_sheet(tmp_path / "sheets" / "sheet.csv", sample)
    rows = list(csv.reader((tmp_path / "sheets" / "sheet.csv").open(encoding="utf-8")))
    assert rows[0] == ["n", "item_id", "sentence", "grammatical", "meaningful", "negation", "truth"]
    assert len(rows) == 9 and all(row[3:] == ["", "", "", ""] for row in rows[1:])
    assert {row[1] for row in rows[1:]} == {item.item_id for item in sample}
    text = key.read_text(encoding="utf-8")
    assert not any(item.sentence in text for item in sample)  # the key holds no sentences
    assert [row["item_id"] for row in read_key(key)] == [row[1] for row in rows[1:]]
    repository = tmp_path / "repo"
    (repository / ".git").mkdir(parents=True)
    with pytest.raises(NegkitError, match="inside the git working tree"):
        write_sheet(repository / "out" / "sheet.csv", sample)
    assert not (repository / "out").exists()


def test_table_from_hand_filled_sheets():
    """Sheet A: #01 grammatical 2/2, meaningful 1/2, negation 2/2, truth 1/2 (true for a false sentence); #05
    grammatical 1/2, meaningful 2/2, negation 1/2 (no for a negative sentence), truth 2/2. Sheet B: all 100 but
    #05 truth 1/2. Mean over the two, all sentences: 87.5, 87.5, 87.5, 75. Same answer from both: grammatical,
    meaningful, negation 3 of 4 sentences each, truth 2 of 4 ("Yes" and "TRUE" read as yes and true)."""
    key = read_key(FIXTURE / "sheet-a.csv.key.json")
    sheets = [read_sheet(FIXTURE / name, key) for name in ("sheet-a.csv", "sheet-b.csv")]
    table = human_eval_table(key, sheets)
    first = table["annotators"][0]
    assert first["#01"] == {"grammatical": 100.0, "meaningful": 50.0, "negation": 100.0, "truth": 50.0}
    assert first["#05"] == {"grammatical": 50.0, "meaningful": 100.0, "negation": 50.0, "truth": 100.0}
    assert table["annotators"][1]["all"] == {
        "grammatical": 100.0,
        "meaningful": 100.0,
        "negation": 100.0,
        "truth": 75.0,
    }
    assert table["mean"]["all"] == {"grammatical": 87.5, "meaningful": 87.5, "negation": 87.5, "truth": 75.0}
    assert table["mean"]["#01"] == {"grammatical": 100.0, "meaningful": 75.0, "negation": 100.0, "truth": 75.0}
    assert table["agreement"]["all"] == {"grammatical": 75.0, "meaningful": 75.0, "negation": 75.0, "truth": 50.0}
    assert table["groups"] == {"all": 4, "#01": 2, "#05": 2}
    assert "agreement" not in human_eval_table(key, sheets[:1])


def test_commands(tmp_path, capsys):
    from negkit.benchmarks.tind.data import write_tind_jsonl

    data = tmp_path / "tind.jsonl"
    write_tind_jsonl(synthetic_truth_items(groups_per_pattern=3, patterns=(1, 5)), data, extended=True)
    sheet = tmp_path / "annotation" / "sheet.csv"
    assert main(["tind", "human-eval-sample", "--data", str(data), "--per-pattern", "4", "--out", str(sheet)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["sentences"] == 8 and summary["patterns"] == [1, 5]
    rows = list(csv.reader(sheet.open(encoding="utf-8")))
    key = {row["item_id"]: row for row in read_key(f"{sheet}.key.json")}
    # annotate every sentence as grammatical, meaningful, negated as the data says, and always "true"
    filled = tmp_path / "filled.csv"
    with filled.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(rows[0])
        for row in rows[1:]:
            writer.writerow(row[:3] + ["yes", "yes", "yes" if key[row[1]]["negative"] else "no", "true"])
    assert main(["tind", "human-eval-table", str(filled), "--key", f"{sheet}.key.json"]) == 0
    out = capsys.readouterr().out
    truths = sum(row["label"] for row in key.values())
    assert f"| all | 8 | 100.0 | 100.0 | 100.0 | {100 * truths / 8:.1f} |" in out
    bad = tmp_path / "bad.csv"
    bad.write_text((FIXTURE / "sheet-a.csv").read_text().replace("yes,no,yes,true", "yes,maybe,yes,true"))
    assert_input_error(
        ["tind", "human-eval-table", bad, "--key", FIXTURE / "sheet-a.csv.key.json"],
        capsys,
        where=bad,
        line=3,
        contains="'meaningful'",
    )
