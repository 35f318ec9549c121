"""NeQA (full): the readers on the real data, malformed lines, the baselines on hand-made questions (numbers worked
out by hand), the task decomposition, and the one path of both tasks."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import random_logprob, run, write_jsonl

from negkit.benchmarks.neqa_full import CONTROL, read_decomposition, read_neqa_full, read_questions
from negkit.errors import InputFormatError

APPROX = pytest.approx


def test_readers_on_the_real_data():
    folder = shared_data_path("neqa-full")
    questions = read_neqa_full(folder)
    assert len(questions) == 1718 and sum(question.gold for question in questions) == 859
    rules = {}
    for question in questions:
        rules[question.fields["rule"]] = rules.get(question.fields["rule"], 0) + 1
    assert rules["not/be"] == 100 and rules["gold/un-in-"] == 40 and rules["LAMA TREx"] == 594
    assert questions[0].prompt.startswith(
        "The following are multiple choice questions (with answers) about common sense."
        "\n\nQuestion: What is not the primary reason"
    )
    assert questions[0].prompt.endswith("\nA. feathers slows heat transfer\nB. small flexible solar panels\nAnswer:")
    items = read_decomposition(folder)
    assert len(items) == 100
    first, second = items[0], items[1]
    assert first.parts["negated"].gold == 1 and first.parts["original"].gold == 0
    assert first.parts["negation"].prompt == (
        'Sentence 1: "Eden Roc Renaissance Hotel Miami Beach is a hotel."\n'
        'Sentence 2: "Eden Roc Renaissance Hotel Miami Beach is not a hotel."\n'
        "Question: The above two sentences are?\nA. the same\nB. different\nAnswer:"
    )
    assert first.parts["negation"].gold == 1 and second.parts["negation"].gold == 0  # the options alternate
    assert "A. different\nB. the same" in second.parts["negation"].prompt


def test_malformed_lines(tmp_path):
    path = write_jsonl(tmp_path / "neqa.jsonl", [{"question": "X is not", "choices": ["a", "b"], "answer": 2}])
    with pytest.raises(InputFormatError, match=r"neqa.jsonl:1: field 'answer'"):
        read_questions(path)
    write_jsonl(path, [{"question": "X is not", "choices": ["a", "b"], "answer": 0, "metadata": {}}])
    with pytest.raises(InputFormatError, match=r"neqa.jsonl:1: field 'metadata'"):
        read_neqa_full(tmp_path)
    write_jsonl(path, [{"question": "X is not", "choices": ["a"], "answer": 0}])
    with pytest.raises(InputFormatError, match=r"neqa.jsonl:1: field 'choices'"):
        read_questions(path)


QUESTIONS = [
    ("A is not", ["x", "y"], 1, {"negation_rule": "not/be"}),
    ("B is not", ["x", "y"], 1, {"negation_rule": "not/be"}),
    ("C can not", ["x", "y"], 0, {"negation_rule": "not/modal"}),
    ("D is not ___?", ["x", "y"], 1, {"dataset": "TREx", "category": "random", "subdataset": "P1.jsonl", "idx": 0}),
]


def _data(root):
    folder = root / "neqa-full"
    write_jsonl(
        folder / "neqa.jsonl", [{"question": q, "choices": c, "answer": a, "metadata": m} for q, c, a, m in QUESTIONS]
    )
    pairs = [("E is not a ___ ?", "E is a ___ ?", 1), ("F is not a ___ ?", "F is a ___ ?", 0)]
    for name, negated in zip(CONTROL, (True, False, True, False)):
        rows = []
        for neg, orig, answer in pairs:
            question = neg if negated else orig
            if "normalized" in name:
                question = question.removesuffix(" ___ ?")
            rows.append({"question": question, "choices": ["p", "q"], "answer": answer if negated else 1 - answer})
        write_jsonl(folder / name, rows)
    return root


def test_constant_majority_and_random_by_hand(tmp_path):
    root = _data(tmp_path / "data")
    a = run("constant:A", "neqa-full", root, tmp_path / "a")["metrics"]
    assert a["acc"] == APPROX(1 / 4) and a["rules"]["not/be"]["acc"] == 0.0 and a["rules"]["not/modal"]["acc"] == 1.0
    assert list(a["rules"]) == ["not/be", "not/modal", "LAMA TREx"]
    majority = run("majority", "neqa-full", root, tmp_path / "m")
    assert majority["model"]["extra"] == {"answer": "B"} and majority["metrics"]["acc"] == APPROX(3 / 4)
    result = run("random", "neqa-full", root, tmp_path / "r")
    right = 0
    for question, choices, answer, _ in QUESTIONS:
        context = (
            "The following are multiple choice questions (with answers) about common sense.\n\n"
            f"Question: {question}\nA. {choices[0]}\nB. {choices[1]}\nAnswer:"
        )
        scores = [random_logprob(0, context, letter) for letter in (" A", " B")]
        right += (0 if scores[0] >= scores[1] else 1) == answer
    assert result["metrics"]["acc"] == APPROX(right / 4)


def test_decomposition_by_hand(tmp_path):
    root = _data(tmp_path / "data")
    b = run("constant:B", "neqa-full-decomposition", root, tmp_path / "b")["metrics"]["overall"]
    # negated answers 1, 0 (B right once); original answers 0, 1 (once); same/different: B on row 0, A on row 1
    assert b["negated"]["accuracy"] == 0.5 and b["original"]["accuracy"] == 0.5 and b["negation"]["accuracy"] == 0.5
    assert b["consistency"] == 0.0  # B is right on exactly one of the two questions of each item


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("neqa-full")
    out = evaluate(tmp_path / "run", "constant:B", "neqa-full", data, ["--limit", "110"])
    metrics = assert_score_is_eval(out, "neqa-full", "neqa-full", data, capsys, score_only=("data_count", "source"))
    assert "rules.not/be.acc" in metrics["intervals"] and metrics["rules"]["not/be"]["count"] == 10
    assert len(assert_compares_with_itself(out, "neqa-full", capsys, metrics)["metrics"]) == 1
    out = evaluate(tmp_path / "run2", "random", "neqa-full-decomposition", data)
    assert_compares_with_itself(out, "neqa-full-decomposition", capsys)
