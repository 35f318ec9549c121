"""MNLI-neg (NaN-NLI Table 5's first column): the extractor on a hand-made MNLI sample, the command, the task's
scores worked out by hand, and Table 5 with three columns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from malformed import assert_input_error

from negkit.benchmarks.nan_nli.mnli_neg import (
    extract_mnli_neg,
    find_cues,
    read_cues,
    read_mnli,
    read_mnli_neg,
)
from negkit.benchmarks.nan_nli.mnli_neg_task import mnli_neg_report
from negkit.benchmarks.negnli.tables import table5_markdown
from negkit.cli import main

SAMPLE = Path(__file__).parents[2] / "fixtures" / "nan_nli" / "mnli_sample.jsonl"


def test_cues_by_word():
    assert find_cues("I don't know.") == ("n't",)
    assert find_cues("We can\u2019t stay; nobody will.") == ("n't", "nobody")
    assert find_cues("The notebook is new and nothing else.") == ("nothing",)  # "notebook" holds no cue
    assert find_cues("He left without a word, never to return.") == ("without", "never")
    assert find_cues("It is by no means over.", ("by no means",)) == ("by no means",)
    assert find_cues("I don't know.", ("not",)) == ()  # n't only when the list holds it


def test_cue_file(tmp_path):
    path = tmp_path / "cues.txt"
    path.write_text("# my cues\nnot\nBy no means\nneither#nor\n\n", encoding="utf-8")
    assert read_cues(path) == ("not", "by no means")


def test_extract_by_side_hand_counted():
    """The sample's nine pairs (one without a gold label, '-'): cues in the premise of rows 1, 3, 5, 6, 9, in the
    hypothesis of rows 2, 5, 8 ("notebook" in row 8's premise is no cue)."""
    pairs = read_mnli(SAMPLE)
    assert len(pairs) == 9
    kept, summary = extract_mnli_neg(pairs)
    assert [pair.pair_id for pair in kept] == ["100e", "102e", "104e", "105e", "108e"]
    assert summary["read"] == 9 and summary["unlabelled"] == 1 and summary["kept"] == 5
    assert summary["labels"] == {"contradiction": 2, "entailment": 2, "neutral": 1}
    assert summary["negation_in"] == {"premise": 5, "hypothesis": 1, "both": 1}
    assert summary["cues"] == {"n't": 3, "nobody": 1, "never": 1, "without": 1}
    counts = {side: extract_mnli_neg(pairs, side)[1]["kept"] for side in ("hypothesis", "either", "both")}
    assert counts == {"hypothesis": 3, "either": 7, "both": 1}


def test_tsv_and_hugging_face_layouts(tmp_path):
    glue = tmp_path / "dev_matched.tsv"
    glue.write_text(
        "index\tpromptID\tpairID\tgenre\tsentence1\tsentence2\tgold_label\n"
        '0\t1\t1e\tfiction\tHe said "no" twice.\tHe agreed.\tcontradiction\n'
        "1\t2\t2e\tfiction\tHe agreed.\tHe said yes.\tentailment\n",
        encoding="utf-8",
    )
    kept, summary = extract_mnli_neg(read_mnli(glue))
    assert [(pair.pair_id, pair.premise_cues) for pair in kept] == [("1e", ("no",))]
    hub = tmp_path / "validation_matched.jsonl"
    hub.write_text(
        json.dumps({"premise": "Nothing moved.", "hypothesis": "All was still.", "label": 0, "idx": 7})
        + "\n"
        + json.dumps({"premise": "Not now.", "hypothesis": "Later.", "label": -1, "idx": 8})
        + "\n",
        encoding="utf-8",
    )
    kept, summary = extract_mnli_neg(read_mnli(hub))
    assert [(pair.pair_id, pair.label) for pair in kept] == [("7", "entailment")] and summary["unlabelled"] == 1


def test_bad_mnli_files(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"sentence1": "A.", "sentence2": "B.", "gold_label": "maybe"}) + "\n")
    assert_input_error(
        ["nan-nli", "mnli-neg", bad, "--out", tmp_path / "x.jsonl"], capsys, where=bad, line=1, contains="not an NLI"
    )
    tsv = tmp_path / "bad.tsv"
    tsv.write_text("a\tb\n1\t2\n")
    assert_input_error(["nan-nli", "mnli-neg", tsv, "--out", tmp_path / "x.jsonl"], capsys, where=tsv, line=1)


def test_command_then_score_hand_worked(tmp_path, capsys):
    """Predictions right on 100e, 102e, 105e, wrong on 104e (contradiction for entailment) and 108e (neutral for
    contradiction): C P 1/2 R 1/2 F1 1/2; E P 1 R 1/2 F1 2/3; N P 1/2 R 1 F1 2/3; All (2 x 1/2 + 2 x 2/3 + 1 x 2/3)
    / 5 = 0.6; accuracy 3/5."""
    out = tmp_path / "data" / "mnli-neg" / "mnli_neg.jsonl"
    assert main(["nan-nli", "mnli-neg", str(SAMPLE), "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["kept"] == 5
    items = read_mnli_neg(out)
    assert [item.item_id for item in items][:2] == ["mnli-neg-100e", "mnli-neg-102e"]
    guesses = {"100e": "contradiction", "102e": "entailment", "104e": "contradiction", "105e": "neutral"}
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(
        "".join(
            json.dumps({"item_id": item.item_id, "prediction": guesses.get(item.item_id[9:], "neutral")}) + "\n"
            for item in items
        )
    )
    assert main(["score", "mnli-neg", str(predictions), "--data", str(tmp_path / "data"), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    per_class = metrics["standard"]["per_class"]
    assert per_class["contradiction"]["f1"] == pytest.approx(0.5)
    assert per_class["entailment"]["f1"] == pytest.approx(2 / 3)
    assert per_class["neutral"]["f1"] == pytest.approx(2 / 3)
    assert metrics["standard"]["all_f1"] == pytest.approx(0.6)
    assert metrics["standard"]["accuracy"] == pytest.approx(0.6)


def test_table5_gets_the_mnli_neg_column():
    items = read_mnli_neg_items()
    metrics = mnli_neg_report(items, [item.label for item in items])
    results = [
        {"task": {"task": name}, "metrics": metrics} for name in ("nan-nli", "negnli-mnli", "mnli-neg")
    ]  # any order: the columns follow the paper's
    table = table5_markdown(results)
    assert table is not None and "| F1 | MNLI-neg | NegNLI | NaN-NLI |" in table
    assert "negkit nan-nli mnli-neg" not in table
    without = table5_markdown(results[:2])
    assert without is not None and "| F1 | NegNLI | NaN-NLI |" in without and "negkit nan-nli mnli-neg" in without
    assert table5_markdown(results[2:]) is None


def read_mnli_neg_items():
    from negkit.kit.data.nli import NLIItem

    kept, _ = extract_mnli_neg(read_mnli(SAMPLE))
    return [NLIItem(f"mnli-neg-{p.pair_id}", p.premise, p.hypothesis, p.label, "mnli-neg") for p in kept]
