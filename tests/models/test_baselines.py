"""Baseline pseudo-models: random, constant:ANSWER and majority, through the normal tasks, engine and run folder."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest
from conftest import NUBENCH_FIXTURE, shared_data_path

from negkit.cli import main
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.engine.requests import LoglikelihoodRequest
from negkit.errors import NegkitError
from negkit.models.base import AnswerSpace
from negkit.models.baselines import OTHER_LOGPROB, load_baseline
from negkit.models.registry import load_model

FIXTURE = NUBENCH_FIXTURE
SPACE = AnswerSpace({"entailment": "Yes", "neutral": "No"}, ("neutral", "entailment", "neutral"))


def test_random_is_seeded_per_request_and_order_free():
    model = load_model("random", seed=3)
    contexts = [f"sentence {i}" for i in range(400)]
    first = model.next_token_logprobs(contexts, ["True", "False"])
    assert model.next_token_logprobs(contexts[::-1], ["True", "False"])[::-1] == first
    assert load_model("random", seed=4).next_token_logprobs(contexts, ["True", "False"]) != first
    share_true = sum(row["True"] > row["False"] for row in first) / len(first)
    assert 0.42 < share_true < 0.58 and all(v < 0 for row in first for v in row.values())
    requests = [LoglikelihoodRequest(c, f" {word}") for c in contexts for word in ("a", "b", "c")]
    scores = [result.logprob for result in model.loglikelihood(requests)]
    picks = Counter(max(range(3), key=lambda k: scores[3 * i + k]) for i in range(len(contexts)))
    assert all(100 < picks[k] < 170 for k in range(3))
    assert model.fingerprint.extra == (("seed", "3"),)


def test_constant_answers_by_label_or_answer_text():
    for spec in ("constant:entailment", "constant:YES"):
        model = load_model(spec)
        model.bind_answers(SPACE, "scone")
        results = model.loglikelihood([LoglikelihoodRequest("ctx", " Yes"), LoglikelihoodRequest("ctx", " No")])
        assert [r.logprob for r in results] == [0.0, OTHER_LOGPROB]
        assert model.fingerprint.extra == (("answer", "entailment"),)
        assert model.classify([("p", "h")]) == [{"entailment": 1.0, "neutral": 0.0}]
    tind = load_model("constant:false")
    tind.bind_answers(AnswerSpace({"true": "True", "false": "False"}), "tind")
    assert tind.next_token_logprobs(["x"], ["True", "False"]) == [{"True": OTHER_LOGPROB, "False": 0.0}]
    assert tind.generate(["x", "y"]) == ["False", "False"]


def test_majority_takes_the_most_frequent_gold_label():
    model = load_model("majority")
    model.bind_answers(SPACE, "scone")
    assert model.answer == "neutral" and model.load_info["text"] == "No"
    tie = load_model("majority")
    tie.bind_answers(AnswerSpace({"true": "True", "false": "False"}, ("false", "true")), "tind")
    assert tie.answer == "true"  # a tie goes to the label the task lists first


def test_baseline_errors_are_clear():
    with pytest.raises(
        NegkitError, match="constant:maybe is not an answer of scone; its answers: entailment \\(Yes\\)"
    ):
        load_model("constant:maybe").bind_answers(SPACE, "scone")
    with pytest.raises(NegkitError, match="candidates differ per item"):
        load_model("majority").bind_answers(None, "nubench")
    with pytest.raises(
        NegkitError, match="unknown key temperature for the random backend; known keys: batch_size, device, seed"
    ):
        load_model("random", temperature=1)
    with pytest.raises(NegkitError, match="seed must be a whole number from 0 to 2\\*\\*32-1, got -1"):
        load_model("random", seed=-1)
    with pytest.raises(NegkitError, match="unknown baseline"):
        load_baseline("constant:")
    random_model = load_model("random")
    random_model.bind_answers(None, "nubench")  # random needs no answer space


def test_eval_writes_normal_run_folders_for_baselines(tmp_path):
    data = shared_data_path()
    evaluate("constant:true", ["tind"], EvalOptions(data=str(data), limit=200, out=tmp_path / "true", progress=False))
    results = json.loads((tmp_path / "true" / "tind.results.json").read_text())
    metrics = results["metrics"]
    assert results["model"]["backend"] == "baseline" and results["model"]["extra"] == {"answer": "true"}
    assert results["model"]["load"]["answer"] == "true"
    assert metrics["intervals"]["all.accuracy"]["unit"] == "TIND group"
    samples = [json.loads(line) for line in (tmp_path / "true" / "tind.samples.jsonl").read_text().splitlines()]
    assert all(sample["prediction"] is True for sample in samples)
    share_true = 100 * sum(sample["label"] for sample in samples) / len(samples)
    assert metrics["all"]["accuracy"] == round(share_true, 2)

    status = main(
        [
            "eval",
            "--model",
            "majority",
            "--tasks",
            "scone",
            "--data",
            str(data),
            "--limit",
            "60",
            "--out",
            str(tmp_path / "majority"),
            "--no-progress",
        ]
    )
    assert status == 0
    scone = json.loads((tmp_path / "majority" / "scone.results.json").read_text())
    assert scone["model"]["extra"]["answer"] in ("entailment", "neutral")
    assert scone["metrics"]["accuracy"]["overall"] >= 0.5


def test_random_baseline_on_multiple_choice(tmp_path):
    results = evaluate("random", ["nubench"], EvalOptions(data=str(FIXTURE), out=tmp_path, progress=False))
    acc = results[0]["metrics"]["summary"]["acc"]["mean"]
    assert 0.0 <= acc <= 1.0 and math.isfinite(acc)
    again = evaluate("random", ["nubench"], EvalOptions(data=str(FIXTURE), out=tmp_path / "again", progress=False))
    assert again[0]["metrics"]["summary"] == results[0]["metrics"]["summary"]


def test_baselines_are_checked_before_any_work(tmp_path, capsys):
    data = str(shared_data_path())
    for argv, message in (
        (["--model", "constant:maybe", "--tasks", "tind,scone"], "constant:maybe is not an answer of tind"),
        (
            ["--model", "majority", "--tasks", "scone,nubench", "--data", str(FIXTURE)],
            "nubench's candidates differ per item",
        ),
        (
            ["--model", "random", "--model-args", "temperature=2", "--tasks", "scone"],
            "unknown key temperature for the random backend",
        ),
    ):
        out = tmp_path / "never"
        full = ["eval", *argv, "--out", str(out), "--no-progress"]
        if "--data" not in argv:
            full += ["--data", data]
        assert main(full) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and message in captured.err
        assert not (out / "requests.jsonl").exists()


def test_constant_baseline_on_condaqa_choice(tmp_path):
    results = evaluate(
        "constant:no",
        ["condaqa-choice"],
        EvalOptions(data=str(shared_data_path()), limit=40, out=tmp_path, progress=False, bootstrap=50),
    )
    samples = [json.loads(line) for line in (tmp_path / "condaqa-choice.samples.jsonl").read_text().splitlines()]
    assert {sample["prediction"] for sample in samples} == {"no"}
    assert results[0]["metrics"]["intervals"]["accuracy.accuracy"]["unit"] == "CondaQA passage"
