"""SemAntoNeg: the reader on the real data, malformed lines, the random baseline on hand-made items (worked out by
hand from its definition; constant and majority do not apply: the candidates differ per item), and the one path."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import random_logprob, run, write_jsonl

from negkit.benchmarks.semantoneg import read_semantoneg
from negkit.errors import InputFormatError, NegkitError

APPROX = pytest.approx


def test_reader_on_the_real_data():
    items = read_semantoneg(shared_data_path("semantoneg"))
    assert len(items) == 3152 and len({item.unit for item in items}) == 2435
    assert {item.gold for item in items} == {2}
    first = items[0]
    assert first.prompt == "Sentence: You're not fat.\nParaphrase:" and first.choices[2] == "You're thin."
    assert sum(item.fields["polarity"] == "negated input" for item in items) == 1608


def test_malformed_lines(tmp_path):
    path = write_jsonl(
        tmp_path / "SemAntoNeg_v1.0.json",
        [
            {
                "idx": 0,
                "label": 2,
                "input": "It is hot.",
                "sentences": ["It is cold.", "It is not hot.", "It is not cold."],
            },
            {"idx": 1, "label": 3, "input": "It is hot.", "sentences": ["a", "b", "c"]},
        ],
    )
    with pytest.raises(InputFormatError, match=r"SemAntoNeg_v1.0.json:2: field 'label'"):
        read_semantoneg(tmp_path)
    write_jsonl(path, [{"idx": 0, "label": 0, "input": "x", "sentences": "abc"}])
    with pytest.raises(InputFormatError, match=r"SemAntoNeg_v1.0.json:1: field 'sentences'"):
        read_semantoneg(tmp_path)


ITEMS = [
    ("It is hot.", ["It is cold.", "It is not hot.", "It is not cold."]),
    ("She is not happy.", ["She is not sad.", "She is happy.", "She is sad."]),
    ("It is not hot.", ["It is not cold.", "It is hot.", "It is cold."]),
]


def test_random_by_hand(tmp_path):
    root = tmp_path / "data"
    write_jsonl(
        root / "semantoneg" / "SemAntoNeg_v1.0.json",
        [{"idx": k, "label": 2, "input": text, "sentences": sentences} for k, (text, sentences) in enumerate(ITEMS)],
    )
    result = run("random", "semantoneg", root, tmp_path / "r")
    right = right_norm = 0
    for text, sentences in ITEMS:
        scores = [random_logprob(0, f"Sentence: {text}\nParaphrase:", " " + sentence) for sentence in sentences]
        right += max(range(3), key=lambda k: (scores[k], -k)) == 2
        right_norm += max(range(3), key=lambda k: (scores[k] / len(" " + sentences[k]), -k)) == 2
    assert result["metrics"]["acc"] == APPROX(right / 3) and result["metrics"]["acc_norm"] == APPROX(right_norm / 3)
    assert result["metrics"]["groups"]["negated input"]["count"] == 2
    assert result["metrics"]["intervals"]["acc"]["units"] == 3  # one per distinct input
    with pytest.raises(NegkitError, match="fixed set of answers"):
        run("constant:It is cold.", "semantoneg", root, tmp_path / "c")


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("semantoneg")
    out = evaluate(tmp_path / "run", "random", "semantoneg", data, ["--limit", "80"])
    metrics = assert_score_is_eval(out, "semantoneg", "semantoneg", data, capsys, score_only=("data_count", "source"))
    assert {"acc", "acc_norm", "groups.negated input.acc"} <= set(metrics["intervals"])
    assert len(assert_compares_with_itself(out, "semantoneg", capsys, metrics)["metrics"]) == 2
