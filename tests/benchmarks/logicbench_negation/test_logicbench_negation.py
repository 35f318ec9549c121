"""LogicBench negation: the readers on the real data and on malformed files, accuracy per rule and logic worked
out by hand for the constant baselines, both tasks from the suite's name, and the one path."""

from __future__ import annotations

import json

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate
from probe_fixtures import run

from negkit.benchmarks.logicbench_negation import GROUPS, read_bqa, read_mcqa
from negkit.errors import InputFormatError
from negkit.kit.suites import expand_task_names

APPROX = pytest.approx


def test_readers_on_the_real_data():
    bqa = read_bqa(shared_data_path("logicbench-negation"))
    assert len(bqa) == 240 and len({q.unit for q in bqa}) == 80 and sum(q.gold == 0 for q in bqa) == 80
    assert [sum(q.fields["rule"] == group for q in bqa) for group in GROUPS] == [40, 80, 40, 80]
    mcqa = read_mcqa(shared_data_path("logicbench-negation"))
    assert len(mcqa) == 80 and mcqa[0].choices == ("A", "B", "C", "D")
    assert "A. Liam didn't finish his work early." in mcqa[0].prompt and mcqa[0].gold == 0


def write_files(root):
    for logic in ("propositional_logic", "first_order_logic"):
        for rule, answers in (("modus_tollens", ["yes", "no"]), ("destructive_dilemma", ["yes", "no", "no", "no"])):
            samples = [
                {
                    "id": 1,
                    "context": "If p then q. Not q.",
                    "qa_pairs": [{"question": f"Q{k}?", "answer": a} for k, a in enumerate(answers)],
                }
            ]
            path = root / "logicbench-negation" / "BQA" / logic / f"{rule}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"type": logic, "axiom": rule, "samples": samples}))
            choices = {f"choice_{k}": f"option {k}" for k in range(1, 5)}
            mcqa = [{"id": 1, "context": "c", "question": "q?", "choices": choices, "answer": "choice_2"}]
            path = root / "logicbench-negation" / "MCQA" / logic / f"{rule}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"type": logic, "axiom": rule, "samples": mcqa}))


def test_malformed_files(tmp_path):
    write_files(tmp_path)
    path = tmp_path / "logicbench-negation" / "BQA" / "first_order_logic" / "modus_tollens.json"
    path.write_text(
        json.dumps({"samples": [{"id": 7, "context": "c", "qa_pairs": [{"question": "q", "answer": "maybe"}]}]})
    )
    with pytest.raises(
        InputFormatError,
        match=r"modus_tollens.json:1: field 'qa_pairs\[0\].answer': expected 'yes' or 'no', found 'maybe'",
    ):
        read_bqa(tmp_path / "logicbench-negation")
    path.write_text("{")
    with pytest.raises(InputFormatError, match="not valid JSON"):
        read_bqa(tmp_path / "logicbench-negation")


def test_constant_and_majority_by_hand(tmp_path):
    write_files(tmp_path / "data")
    metrics = run("constant:no", "logicbench-negation-bqa", tmp_path / "data", tmp_path / "n")["metrics"]
    # always no: modus tollens 1 of 2 right, destructive dilemma 3 of 4, in each logic: 8 of 12
    assert metrics["acc"] == APPROX(8 / 12)
    assert metrics["rules"]["PL: modus tollens"]["acc"] == APPROX(0.5)
    assert metrics["rules"]["FOL: destructive dilemma"]["acc"] == APPROX(0.75)
    majority = run("majority", "logicbench-negation-mcqa", tmp_path / "data", tmp_path / "m")
    assert majority["model"]["extra"]["answer"] == "B" and majority["metrics"]["acc"] == APPROX(1.0)
    assert expand_task_names(["logicbench-negation"]) == ["logicbench-negation-bqa", "logicbench-negation-mcqa"]


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("logicbench-negation")
    out = evaluate(tmp_path / "run", "random", "logicbench-negation-bqa", data, ["--limit", "40"])
    metrics = assert_score_is_eval(
        out, "logicbench-negation-bqa", "logicbench-negation", data, capsys, score_only=("data_count", "source")
    )
    assert {"acc", "rules.PL: modus tollens.acc"} <= set(metrics["intervals"])
    assert_compares_with_itself(out, "logicbench-negation-bqa", capsys, metrics)
