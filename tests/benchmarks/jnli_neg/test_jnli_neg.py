"""JNLI-Neg: the reader on the real data and on malformed lines, accuracy by where negation was inserted worked out
by hand for the constant baselines, the test split read as the validation split, and the one path."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import run, write_jsonl

from negkit.benchmarks.jnli_neg import read_jnli_neg
from negkit.errors import InputFormatError

APPROX = pytest.approx


def test_reader_on_the_real_data():
    items = read_jnli_neg(shared_data_path("jnli-neg"))
    assert len(items) == 1363 and len({item.premise_id for item in items}) == 186
    counts = {kind: sum(item.condition == kind for item in items) for kind in ("original", "p_neg", "h_neg")}
    assert counts == {"original": 186, "p_neg": 311, "h_neg": 306}
    assert sum(item.label == "entailment" for item in items) == 143
    assert items[1].premise == "飛行場に、飛行機が停まっていません。" and items[1].label == "contradiction"


def row(number, group, kind, label):
    sentence = {"sentence": f"文{number}。", "neg": None}
    return {
        "id": number,
        "jnli_sentence_pair_id": group,
        "pair_id_in_group": number,
        "type": kind,
        "sentence1": sentence,
        "sentence2": sentence,
        "gold_label": label,
        "annotator_labels": None,
    }


ROWS = [
    row(0, 1, "original", "neutral"),
    row(1, 1, "p_neg", "contradiction"),
    row(2, 1, "h_neg", "contradiction"),
    row(3, 1, "p_neg_h_neg", "neutral"),
    row(4, 2, "original", "entailment"),
    row(5, 2, "p_neg_h_neg", "neutral"),
]


def test_malformed_lines(tmp_path):
    write_jsonl(tmp_path / "jnli-neg-valid-v1.1.jsonl", [ROWS[0], {**ROWS[1], "type": "q_neg"}])
    with pytest.raises(InputFormatError, match=r"jnli-neg-valid-v1.1.jsonl:2: field 'type'"):
        read_jnli_neg(tmp_path)
    write_jsonl(tmp_path / "jnli-neg-valid-v1.1.jsonl", [{**ROWS[0], "sentence2": "文"}])
    with pytest.raises(InputFormatError, match=r":1: field 'sentence2'"):
        read_jnli_neg(tmp_path)


def test_constant_and_majority_by_hand(tmp_path):
    write_jsonl(tmp_path / "data" / "jnli-neg" / "jnli-neg-valid-v1.1.jsonl", ROWS)
    metrics = run("constant:neutral", "jnli-neg", tmp_path / "data", tmp_path / "n")["metrics"]
    # always neutral: original 1 of 2, p_neg 0 of 1, h_neg 0 of 1, p_neg_h_neg 2 of 2; negated 2 of 4
    assert metrics["acc"] == APPROX(3 / 6)
    assert {name: values["correct"] for name, values in metrics["conditions"].items()} == {
        "original": 1,
        "p_neg": 0,
        "h_neg": 0,
        "p_neg_h_neg": 2,
    }
    assert metrics["gap"] == APPROX(1 / 2 - 2 / 4) and metrics["intervals"]["acc"]["units"] == 2
    majority = run("majority", "jnli-neg", tmp_path / "data", tmp_path / "m")
    assert majority["model"]["extra"]["answer"] == "neutral" and majority["metrics"]["acc"] == APPROX(0.5)


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("jnli-neg")
    out = evaluate(tmp_path / "run", "random", "jnli-neg", data, ["--limit", "40"])
    metrics = assert_score_is_eval(out, "jnli-neg", "jnli-neg", data, capsys)
    assert set(metrics["conditions"]) == {"original", "p_neg", "h_neg", "p_neg_h_neg"}
    assert_compares_with_itself(out, "jnli-neg", capsys, metrics)
