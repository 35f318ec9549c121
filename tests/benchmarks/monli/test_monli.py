"""MoNLI: the reader on the real data and on malformed lines, accuracy per file and the gap worked out by hand for
the constant baselines and for a hand-made predictions file, the majority baseline, and the one path."""

from __future__ import annotations

import json

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import run, write_jsonl

from negkit.benchmarks.monli import MONLI, read_monli
from negkit.errors import InputFormatError

APPROX = pytest.approx


def test_reader_on_the_real_data():
    items = read_monli(shared_data_path("monli"))
    negated = [item for item in items if item.condition == "nmonli"]
    assert len(items) == 1676 and len(negated) == 200
    assert sum(item.label == "entailment" for item in negated) == 100
    assert negated[0].premise == "the man does not own a dog" and negated[0].label == "neutral"
    assert negated[0].premise_id == negated[1].premise_id  # the two directions of a pair: one unit


def pair(s1, s2, label):
    return {"sentence1": s1, "sentence2": s2, "gold_label": label}


def write_monli(root):
    write_jsonl(
        root / "monli" / "nmonli_test.jsonl",
        [pair("he has no dog", "he has no mammal", "neutral"), pair("he has no mammal", "he has no dog", "entailment")],
    )
    write_jsonl(
        root / "monli" / "pmonli.jsonl",
        [
            pair("a dog ran", "a mammal ran", "entailment"),
            pair("a mammal ran", "a dog ran", "neutral"),
            pair("a cat sat", "an animal sat", "entailment"),
        ],
    )


def test_malformed_lines(tmp_path):
    write_monli(tmp_path)
    write_jsonl(tmp_path / "monli" / "pmonli.jsonl", [pair("a", "b", "entailment"), pair("a", "b", "contradiction")])
    with pytest.raises(InputFormatError, match=r"pmonli.jsonl:2: field 'gold_label'"):
        read_monli(tmp_path / "monli")


def test_constant_and_majority_by_hand(tmp_path):
    write_monli(tmp_path / "data")
    metrics = run("constant:yes", "monli", tmp_path / "data", tmp_path / "y")["metrics"]
    # always entailment: NMoNLI 1 of 2, PMoNLI 2 of 3; gap = 2/3 - 1/2
    assert metrics["conditions"]["nmonli"]["acc"] == APPROX(0.5) and metrics["conditions"]["pmonli"]["acc"] == APPROX(
        2 / 3
    )
    assert metrics["gap"] == APPROX(2 / 3 - 1 / 2) and metrics["acc"] == APPROX(3 / 5)
    assert metrics["predicted"] == {"entailment": 1.0, "neutral": 0.0}
    assert {"gap", "conditions.nmonli.acc"} <= set(metrics["intervals"])
    majority = run("majority", "monli", tmp_path / "data", tmp_path / "m")
    assert majority["model"]["extra"]["answer"] == "entailment"  # 3 entailment of 5


def test_predictions_file_by_hand(tmp_path):
    write_monli(tmp_path / "data")
    task = MONLI.task()
    items = task.load(tmp_path / "data", "test", None, 0).items
    path = tmp_path / "p.jsonl"
    said = ["entailment", "entailment", "entailment", "neutral", "neutral"]  # right: no, yes, yes, yes, no
    path.write_text("".join(json.dumps({"item_id": i.item_id, "prediction": p}) + "\n" for i, p in zip(items, said)))
    metrics = task.metrics(items, task.predictions(path, items))
    assert metrics["conditions"]["nmonli"]["correct"] == 1 and metrics["conditions"]["pmonli"]["correct"] == 2
    assert metrics["gap"] == APPROX(2 / 3 - 1 / 2)


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("monli")
    out = evaluate(tmp_path / "run", "random", "monli", data, ["--limit", "40"])
    metrics = assert_score_is_eval(out, "monli", "monli", data, capsys)
    assert metrics["conditions"]["nmonli"]["count"] == 20 and "gap" in metrics["intervals"]
    assert_compares_with_itself(out, "monli", capsys, metrics)
