"""KoNUBench: the reader on the real data (the README's counts), malformed files, the random baseline on hand-made
items worked out by hand through the kit's standard-negation task (Thunder-NUBench's code path), KMMLU's pairs and
KoBEST BoolQ's negated questions, and the one path on the real test set."""

from __future__ import annotations

import json

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import random_logprob, run, write

from negkit.benchmarks.konubench import DESCRIPTION, read_boolq_neg, read_kmmlu, read_konubench
from negkit.errors import InputFormatError

APPROX = pytest.approx


def test_reader_on_the_real_data():
    folder = shared_data_path("konubench")
    test = read_konubench(folder, "test")
    assert len(test) == 1284 and len(read_konubench(folder, "validation")) == 1000
    assert len(read_konubench(folder, "train")) == 2500
    counts = {
        kind: sum(item.choice2_type == kind for item in test) for kind in ("관형절", "대등절 일부", "non-applicable")
    }
    assert counts == {"관형절": 429, "대등절 일부": 389, "non-applicable": 35}
    assert all(len(item.candidates) == (3 if item.choice2_type == "non-applicable" else 4) for item in test)
    assert len(read_kmmlu(folder)) == 7154 and len(read_boolq_neg(folder)) == 1404


def _item(idx, kind="관형절", local="그는 학교에 가지 않은 친구를 만났다."):
    return {
        "idx": idx,
        "raw_id": 1.0,
        "original_sentence": "그는 학교에 간 친구를 만났다.",
        "standard_negation": "그는 학교에 간 친구를 만나지 않았다.",
        "local_negation_type": kind,
        "local_negation": local,
        "local_부정요소": "간",
        "contradiction": "그는 학교에 간 친구를 피했다.",
        "paraphrase": "그는 등교한 친구와 만났다.",
    }


def _write(root, items, split="test"):
    name = {"test": "test/test.json", "validation": "validation/val.json"}[split]
    return write(root / "konubench" / "dataset" / "ko_nubench" / name, json.dumps(items, ensure_ascii=False, indent=1))


def test_malformed_files(tmp_path):
    """Each bad record is one error naming the file and the line where the record starts (indented JSON)."""

    def starts(path):  # the lines where the records begin
        return [number for number, line in enumerate(path.read_text().splitlines(), start=1) if line == " {"]

    path = _write(tmp_path, [_item("1"), _item("2", kind="부정절")])
    with pytest.raises(
        InputFormatError, match=rf"test.json:{starts(path)[1]}: field 'local_negation_type': expected '관형절', "
    ):
        read_konubench(path)
    _write(tmp_path, [_item("1", local=None)])
    with pytest.raises(InputFormatError, match=r"test.json:2: 'local_negation' and 'local_negation_type' must both"):
        read_konubench(path)
    _write(tmp_path, [{**_item("1"), "paraphrase": ""}])
    with pytest.raises(InputFormatError, match=r"test.json:2: field 'paraphrase': expected a non-empty text"):
        read_konubench(path)
    _write(tmp_path, [_item("x1")])
    with pytest.raises(InputFormatError, match=r"test.json:2: field 'idx': expected a number \(or G and a number\)"):
        read_konubench(path)
    _write(tmp_path, [_item("1"), _item("1")])
    with pytest.raises(InputFormatError, match=rf"test.json:{starts(path)[1]}: idx 1 appears twice"):
        read_konubench(path)
    write(path, '[{"idx": "1",\n')
    with pytest.raises(InputFormatError, match=r"test.json:2: not valid JSON"):
        read_konubench(path)


def test_random_by_hand(tmp_path):
    """Three items (one without a local negation): the random baseline's answers from its definition."""
    root = tmp_path / "data"
    items = [_item("1"), _item("G2", kind=None, local=None), {**_item("3"), "original_sentence": "비가 왔다."}]
    _write(root, items)
    result = run("random", "konubench", root, tmp_path / "r")
    right = 0
    for item in items:
        context = DESCRIPTION + f"원문: {item['original_sentence']}\n부정문:"
        roles = ["standard_negation", "contradiction", "paraphrase"]
        if item["local_negation"]:
            roles.insert(1, "local_negation")
        scores = [random_logprob(0, context, " " + item[role]) for role in roles]
        right += scores.index(max(scores)) == 0
    metrics = result["metrics"]
    assert metrics["summary"]["acc"]["mean"] == APPROX(right / 3)
    assert metrics["runs"]["zero-shot"]["count"] == 3
    assert set(metrics["runs"]["zero-shot"]["error_analysis"]["confusion_rate"]) <= {"관형절"}


def test_kmmlu_and_boolq_constant_by_hand(tmp_path):
    root = tmp_path / "data" / "konubench" / "dataset"
    question = {"question": "옳은 것은?", "A": "가", "B": "나", "Category": "Law"}
    write(root / "kmmlu_pos/test/kmmlu_pos.json", json.dumps([{**question, "answer": 0}, {**question, "answer": 1}]))
    write(root / "kmmlu_neg/test/kmmlu_neg.json", json.dumps([{**question, "answer": 1}, {**question, "answer": 0}]))
    letter_a = run("constant:A", "konubench-kmmlu", tmp_path / "data", tmp_path / "k")["metrics"]["overall"]
    # A is right on the first positive and the second negated question: half of each, never both of a pair
    assert letter_a["positive"]["accuracy"] == APPROX(0.5) and letter_a["negated"]["accuracy"] == APPROX(0.5)
    assert letter_a["both_correct"] == 0.0
    write(
        root / "kobest_boolq_neg/test/kobest_boolq_neg.json",
        json.dumps([{"paragraph": "문단.", "question": "아니다.", "label": label} for label in (0, 0, 1)]),
    )
    yes = run("constant:예", "konubench-boolq-neg", tmp_path / "data", tmp_path / "b")["metrics"]
    assert yes["acc"] == APPROX(1 / 3)


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    """Thunder-NUBench's code path on KoNUBench's real test set: eval, score and compare agree."""
    data = shared_data_path()
    shared_data_path("konubench")
    out = evaluate(tmp_path / "random", "random", "konubench", data, ["--limit", "40"])
    metrics = assert_score_is_eval(
        out, "konubench", "konubench", data, capsys, score_only=("source",), eval_only=("prompt_id", "num_fewshot")
    )
    assert "runs.zero-shot.error_analysis.confusion_rate.관형절" in metrics["intervals"]
    assert_compares_with_itself(out, "konubench", capsys, metrics)
