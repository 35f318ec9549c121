"""NaN-NLI §5.3's gender swap: the word swap on sentences written out by hand, the swapped copy of a CSV, the change
report worked out by hand, and the commands on the real file."""

from __future__ import annotations

import csv
import json

import pytest
from conftest import shared_data_path

from negkit.benchmarks.nan_nli.data import read_nan_nli
from negkit.cli import main
from negkit.kit.data.nli import NLIItem
from negkit.studies.nan_nli.gender_swap import swap_change, swap_gender, write_swapped


@pytest.mark.parametrize(
    ("text", "swapped", "count"),
    [
        ("She saw her brother.", "He saw his sister.", 3),
        ("We see her lose her cool.", "We see him lose his cool.", 2),  # object, then possessive
        ("Give it to her.", "Give it to him.", 1),
        ("Not often do we see him lose his cool.", "Not often do we see her lose her cool.", 2),
        ("HE is here; the man and the woman", "SHE is here; the woman and the man", 3),
        ("The shepherd, the heir.", "The shepherd, the heir.", 0),
    ],
)
def test_swap_gender(text, swapped, count):
    assert swap_gender(text) == (swapped, count)


def test_extra_pairs():
    assert swap_gender("Not even Ed approved; Emma did.", [("Ed", "Emma")]) == ("Not even Emma approved; Ed did.", 2)


def test_swapped_copy_keeps_every_other_column(tmp_path):
    source = tmp_path / "nan.csv"
    source.write_text(
        'premise,hypothesis,label,Construction\nHe left.,"She came, he said.",neutral,not + pp\nIt rained.,It was wet.,'
        "entailment,he\n",
        encoding="utf-8",
    )
    summary = write_swapped(source, tmp_path / "out" / "nan.csv")
    assert summary == {"pairs": 2, "pairs_changed": 1, "words_swapped": 3, "out": str(tmp_path / "out" / "nan.csv")}
    rows = list(csv.reader((tmp_path / "out" / "nan.csv").open(encoding="utf-8")))
    assert rows == [
        ["premise", "hypothesis", "label", "Construction"],
        ["She left.", "He came, she said.", "neutral", "not + pp"],
        ["It rained.", "It was wet.", "entailment", "he"],  # only premise and hypothesis change
    ]


def test_change_report_by_hand():
    """Before: right on 3 of 4 (All F1: C 2/3, E 1, N 0 with no support -> (2 x 2/3 + 2 x 1) / 4 = 5/6); after the
    swap the first pair turns entailment -> neutral: 2 of 4 right; of the two pairs the swap changed, 2/2 then 1/2."""
    items = [
        NLIItem("nan-000", "He left.", "He is gone.", "entailment", "nan-nli"),
        NLIItem("nan-001", "It rained.", "It was wet.", "entailment", "nan-nli"),
        NLIItem("nan-002", "She sang.", "Nobody sang.", "contradiction", "nan-nli"),
        NLIItem("nan-003", "It is cold.", "It is hot.", "contradiction", "nan-nli"),
    ]
    before = ["entailment", "entailment", "contradiction", "neutral"]
    after = ["neutral", "entailment", "contradiction", "neutral"]
    report = swap_change(items, before, after)
    assert report["all"]["before"]["accuracy"] == 0.75 and report["all"]["after"]["accuracy"] == 0.5
    assert report["all"]["before"]["all_f1"] == pytest.approx(5 / 6)
    assert report["all"]["labels_changed"] == 1 and report["all"]["flips"] == {"entailment -> neutral": 1}
    swapped = report["swapped"]
    assert swapped["pairs"] == 2 and swapped["before"]["accuracy"] == 1.0 and swapped["after"]["accuracy"] == 0.5


def test_commands_on_the_real_file(tmp_path, capsys):
    data = shared_data_path()
    assert main(["nan-nli", "gender-swap", "--data", str(data), "--out", str(tmp_path / "swapped")]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[0])
    assert summary["pairs"] == 258 and summary["pairs_changed"] == 93 and summary["words_swapped"] == 198
    items = read_nan_nli(tmp_path / "swapped" / "nan-nli" / "nan.csv")
    assert items[0].item_id == "nan-000" and len(items) == 258
    assert any(item.premise == "Not often do we see him lose his cool like that." for item in items)
    predictions = tmp_path / "neutral.jsonl"
    predictions.write_text("".join(json.dumps({"index": k, "prediction": "neutral"}) + "\n" for k in range(258)))
    argv = ["nan-nli", "gender-swap-change", str(predictions), str(predictions), "--data", str(data), "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["all"]["labels_changed"] == 0 and report["swapped"]["pairs"] == 93
    assert report["all"]["before"]["accuracy"] == pytest.approx(44 / 258)
