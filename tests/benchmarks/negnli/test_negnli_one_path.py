"""NegNLI through the one path, each of its three tasks: ``negkit score negnli`` of an eval's samples (the task is
the one the item ids name) gives its metrics and intervals, and ``negkit compare`` rebuilds All and accuracy from
the samples."""

from __future__ import annotations

import json

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate

TASKS = ("negnli-mnli", "negnli-snli", "negnli-rte")


@pytest.mark.parametrize("model", ["random", "constant:entailment"])
def test_score_of_the_samples_is_the_eval(model, tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("negation-nli")
    out = evaluate(tmp_path / "run", model, "negnli", data, ["--limit", "30"])
    for task in TASKS:
        metrics = assert_score_is_eval(out, task, "negnli", data, capsys)
        assert metrics["count"] == 30 and metrics["source"] == f"NegNLI-{task.split('-')[1].upper()}"
        comparison = assert_compares_with_itself(out, task, capsys, metrics)
        assert {entry["path"] for entry in comparison["metrics"]} == {
            "standard.all_f1",
            "standard.accuracy",
            "balanced_accuracy",
        }
    rte = assert_score_is_eval(out, "negnli-rte", "negnli", data, capsys)
    assert rte["labels"] == ["entailment", "not_entailment"]


def test_score_reads_rte_answer_words_and_refuses_them_elsewhere(tmp_path, capsys):
    from malformed import assert_input_error
    from suite_fixtures import write_negnli

    from negkit.cli import main

    root = tmp_path / "data"
    write_negnli(root)  # RTE gold: not_entailment, entailment, not_entailment
    path = tmp_path / "rte.jsonl"
    path.write_text(
        '{"item_id": "negnli-rte-0", "prediction": "no"}\n{"item_id": "negnli-rte-1", "prediction": "Yes"}\n'
        '{"item_id": "negnli-rte-2", "prediction": "contradiction"}\n'
    )
    assert main(["score", "negnli", str(path), "--data", str(root), "--json", "--bootstrap", "0"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["standard"]["accuracy"] == 1.0 and metrics["source"] == "NegNLI-RTE" and metrics["data_count"] == 3
    path.write_text('{"item_id": "negnli-rte-1", "prediction": "not entailment"}\n')
    assert main(["score", "negnli-mnli", str(path), "--data", str(root), "--json", "--bootstrap", "0"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    assert metrics["count"] == 1 and metrics["standard"]["accuracy"] == 0.0
    path.write_text('{"item_id": "negnli-mnli-0", "prediction": "yes"}\n')
    assert_input_error(
        ["score", "negnli", path, "--data", root], capsys, where=path, line=1, contains="not an NLI label"
    )
