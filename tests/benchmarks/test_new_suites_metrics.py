"""Metrics of BLiMP negation, NegNLI, NeQA and CondaQA's test split against hand-computed cases, and the constant,
majority and random baselines through ``negkit eval`` on small hand-made data (numbers worked out by hand)."""

from __future__ import annotations

import json

import pytest
from suite_fixtures import (
    CONDAQA_ROWS,
    MNLI_ROWS,
    NEQA_GOLD,
    random_logprob,
    write_blimp,
    write_condaqa_test,
    write_negnli,
    write_neqa,
)

from negkit.benchmarks.blimp import BLIMP, PARADIGMS, read_blimp
from negkit.benchmarks.negnli.data import read_negnli
from negkit.benchmarks.negnli.metrics import negnli_report
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.errors import NegkitError
from negkit.kit.metrics.intervals import intervals_json
from negkit.kit.tasks.choice import choice_metrics
from negkit.kit.tasks.pairs import grouped_accuracy, grouped_estimands, pair_correct

APPROX = pytest.approx


def _run(model: str, task: str, root, out, **options):
    options.setdefault("bootstrap", 100)
    return evaluate(model, [task], EvalOptions(data=str(root), out=out, progress=False, **options))[0]


def _samples(result):
    with open(result["files"]["samples"], encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


# -- pure metrics -------------------------------------------------------------------------------------------
def test_blimp_report_by_hand():
    assert pair_correct(-3.0, -5.0) and pair_correct(-4.0, -4.0) and not pair_correct(-5.0, -3.0)  # ties: good
    records = [{"item_id": f"p{k}", "paradigm": PARADIGMS[0], "correct": k < 3} for k in range(4)]
    records += [{"item_id": f"q{k}", "paradigm": PARADIGMS[1], "correct": k < 1} for k in range(2)]
    report = grouped_accuracy(records, BLIMP)
    assert report["paradigms"][PARADIGMS[0]] == {"correct": 3, "total": 4, "accuracy": 0.75}
    assert report["paradigms"][PARADIGMS[1]]["accuracy"] == 0.5
    assert report["overall"]["accuracy"] == APPROX(0.625)  # (0.75 + 0.5) / 2
    assert report["overall"]["pooled_accuracy"] == APPROX(4 / 6)
    intervals = intervals_json(grouped_estimands(records, BLIMP))
    assert (
        intervals["overall.accuracy"]["estimate"] == APPROX(0.625)
        and intervals["overall.accuracy"]["unit"] == "BLiMP pair"
    )
    low, high = intervals["overall.accuracy"]["ci"]
    assert low <= 0.625 <= high


def test_neqa_report_by_hand():
    records = [
        {"item_id": str(k), "choices": [" A", " B"], "gold": gold, "prediction": pred, "prediction_norm": norm}
        for k, (gold, pred, norm) in enumerate([(0, 0, 1), (1, 0, 1), (1, 1, 1), (1, 0, 0)])
    ]
    report = choice_metrics(records, acc_norm=True)
    assert report["acc"] == 0.5 and report["acc_norm"] == 0.5 and report["correct"] == 2
    assert report["choice_share"] == {"A": 0.75, "B": 0.25} and report["gold_share"] == {"A": 0.25, "B": 0.75}


def test_negnli_report_by_hand(tmp_path):
    items = read_negnli(write_negnli(tmp_path) / "MNLI.txt")
    labels = ("contradiction", "entailment", "neutral")
    predicted = ["neutral", "entailment", "entailment", "contradiction", "neutral", "neutral"]
    report = negnli_report(items, predicted, labels)
    # contradiction: 3 gold, 1 predicted, 1 right -> P 1, R 1/3, F1 0.5; entailment: 2 gold, 2 predicted, 1 right ->
    # F1 0.5; neutral: 1 gold, 3 predicted, 1 right -> P 1/3, R 1, F1 0.5; All = 0.5; accuracy 3/6
    assert {label: report["standard"]["per_class"][label]["f1"] for label in labels} == APPROX(
        {"contradiction": 0.5, "entailment": 0.5, "neutral": 0.5}
    )
    assert report["standard"]["all_f1"] == APPROX(0.5) and report["standard"]["accuracy"] == 0.5
    # balanced accuracy: the mean recall over the gold labels, (1/3 + 1/2 + 1) / 3
    assert report["balanced_accuracy"] == APPROX(11 / 18)
    assert report["confusion_matrix"]["contradiction"] == APPROX(
        {"contradiction": 1 / 3, "entailment": 1 / 3, "neutral": 1 / 3}
    )
    assert report["confusion_counts"]["neutral"] == {"contradiction": 0, "entailment": 0, "neutral": 1}
    assert report["accuracy_by_negation"] == {
        "premise": {"correct": 2, "total": 2, "accuracy": 1.0},
        "hypothesis": {"correct": 0, "total": 2, "accuracy": 0.0},
        "both": {"correct": 1, "total": 2, "accuracy": 0.5},
    }


# -- baselines through negkit eval on hand-made data --------------------------------------------------------
def test_constant_and_majority_on_negnli(tmp_path):
    write_negnli(tmp_path / "data")
    mnli = _run("constant:entailment", "negnli-mnli", tmp_path / "data", tmp_path / "c")["metrics"]
    # gold: contradiction 3, entailment 2, neutral 1; every answer entailment: F1 entailment 2*(1/3*1)/(1/3+1) = 0.5
    assert mnli["standard"]["per_class"]["entailment"]["f1"] == APPROX(0.5)
    assert mnli["standard"]["per_class"]["contradiction"]["f1"] == 0.0
    assert mnli["standard"]["all_f1"] == APPROX(2 * 0.5 / 6) and mnli["standard"]["accuracy"] == APPROX(2 / 6)
    assert mnli["confusion_matrix"]["contradiction"] == {"contradiction": 0.0, "entailment": 1.0, "neutral": 0.0}
    assert mnli["accuracy_by_negation"]["premise"]["accuracy"] == 0.0
    assert mnli["intervals"]["standard.all_f1"]["unit"] == "NegNLI original pair"
    assert mnli["intervals"]["standard.all_f1"]["units"] == 2
    majority = _run("majority", "negnli-mnli", tmp_path / "data", tmp_path / "m")
    assert majority["model"]["extra"] == {"answer": "contradiction"}
    # every answer contradiction: F1 contradiction 2*(1/2*1)/(1/2+1) = 2/3, All = 3 * 2/3 / 6 = 1/3
    assert majority["metrics"]["standard"]["all_f1"] == APPROX(1 / 3)
    rte = _run("constant:no", "negnli-rte", tmp_path / "data", tmp_path / "r")["metrics"]
    # gold not_entailment 2, entailment 1; every answer not_entailment: F1 2*(2/3)/(2/3+1) = 0.8, All 2*0.8/3
    assert rte["labels"] == ["entailment", "not_entailment"]
    assert rte["standard"]["per_class"]["not_entailment"]["f1"] == APPROX(0.8)
    # a constant answer has balanced accuracy 1/2 whatever the label prior (its accuracy here is 2/3)
    assert rte["balanced_accuracy"] == 0.5 and rte["standard"]["accuracy"] == APPROX(2 / 3)
    assert rte["intervals"]["balanced_accuracy"]["estimate"] == APPROX(0.5)
    assert rte["standard"]["all_f1"] == APPROX(1.6 / 3) and rte["standard"]["accuracy"] == APPROX(2 / 3)
    yes = _run("constant:entailment", "negnli-rte", tmp_path / "data", tmp_path / "y")["metrics"]
    assert yes["standard"]["all_f1"] == APPROX(0.5 / 3)  # F1 entailment 2*(1/3)/(4/3) = 0.5, support 1 of 3


def test_random_on_negnli_and_neqa(tmp_path):
    write_negnli(tmp_path / "data")
    write_neqa(tmp_path / "data")
    result = _run("random", "negnli-mnli", tmp_path / "data", tmp_path / "n")
    words = {"entailment": "entailment", "contradiction": "contradiction", "neutral": "neutral"}
    expected = []
    for sample in _samples(result):
        scores = {label: random_logprob(0, sample["prompt"], " " + word) for word, label in words.items()}
        expected.append(max(scores, key=scores.get))
    assert [sample["prediction"] for sample in _samples(result)] == expected
    gold = [label for _p, _h, label in MNLI_ROWS]
    assert result["metrics"]["standard"]["accuracy"] == APPROX(sum(g == e for g, e in zip(gold, expected)) / 6)
    neqa = _run("random", "neqa", tmp_path / "data", tmp_path / "q")
    picks = [
        max(range(2), key=lambda k, s=sample: random_logprob(0, s["prompt"], s["choices"][k]))
        for sample in _samples(neqa)
    ]
    assert neqa["metrics"]["acc"] == APPROX(sum(p == g for p, g in zip(picks, NEQA_GOLD)) / 4)


def test_constant_and_majority_on_neqa(tmp_path):
    write_neqa(tmp_path / "data")
    a = _run("constant:A", "neqa", tmp_path / "data", tmp_path / "a")["metrics"]
    assert a["acc"] == 0.25 and a["acc_norm"] == 0.25 and a["choice_share"] == {"A": 1.0, "B": 0.0}
    majority = _run("majority", "neqa", tmp_path / "data", tmp_path / "m")
    assert majority["model"]["extra"] == {"answer": "B"} and majority["metrics"]["acc"] == 0.75
    assert majority["metrics"]["intervals"]["acc"]["unit"] == "NeQA question"


def test_random_on_blimp_and_constant_refused(tmp_path):
    folder = write_blimp(tmp_path / "data", pairs_per_paradigm=3)
    result = _run("random", "blimp-negation", tmp_path / "data", tmp_path / "r")
    pairs = read_blimp(folder)
    right = {
        pair.item_id: random_logprob(0, "", " " + pair.good) >= random_logprob(0, "", " " + pair.bad) for pair in pairs
    }
    per_paradigm = {p: sum(right[pair.item_id] for pair in pairs if pair.group == p) / 3 for p in PARADIGMS}
    metrics = result["metrics"]
    assert {p: metrics["paradigms"][p]["accuracy"] for p in PARADIGMS} == APPROX(per_paradigm)
    assert metrics["overall"]["accuracy"] == APPROX(sum(per_paradigm.values()) / 7)
    assert metrics["overall"]["pooled_accuracy"] == APPROX(sum(right.values()) / 21)
    assert metrics["intervals"]["overall.accuracy"]["unit"] == "BLiMP pair"
    assert [s["correct"] for s in _samples(result)] == [right[pair.item_id] for pair in pairs]
    with pytest.raises(NegkitError, match="candidates differ per item"):  # a constant answer is no sentence
        _run("constant:good", "blimp-negation", tmp_path / "data", tmp_path / "c")


def test_constant_on_condaqa_test_split(tmp_path):
    write_condaqa_test(tmp_path / "data")
    result = _run("constant:no", "condaqa-choice", tmp_path / "data", tmp_path / "c", split="test")
    metrics = result["metrics"]
    assert result["data"]["split"] == "test" and metrics["count"] == len(CONDAQA_ROWS)
    # gold NO, YES, NO, DON'T KNOW: 2 of 4 right; both groups have a wrong answer: consistency 0 of 2
    assert metrics["accuracy"] == {"correct": 2, "total": 4, "accuracy": 0.5}
    assert metrics["accuracy_per_edit"]["original"]["accuracy"] == 1.0
    assert metrics["accuracy_per_edit"]["paraphrase"]["accuracy"] == 0.0
    assert metrics["consistency"]["all"] == {"correct": 0, "total": 2, "accuracy": 0.0}
    assert metrics["intervals"]["accuracy.accuracy"]["unit"] == "CondaQA passage"
    # written answers: the random baseline writes one of yes / no / don't know, and is scored as written
    written = _run("random", "condaqa", tmp_path / "data", tmp_path / "r", split="test")
    outputs = [sample["output"] for sample in _samples(written)]
    assert set(outputs) <= {"yes", "no", "don't know"}
    right = sum(sample["correct"] for sample in _samples(written))
    assert written["metrics"]["accuracy"] == {"correct": right, "total": 4, "accuracy": right / 4}
