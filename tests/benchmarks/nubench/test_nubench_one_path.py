"""Thunder-NUBench through the one path: ``negkit score`` of an eval's samples (zero-shot, and few-shot over seeds)
gives its metrics and intervals (without the eval's prompt id and shots, which a predictions file does not say;
with the source), and ``negkit compare`` rebuilds the means over runs of acc and acc_norm from the samples, the
prompt sweep's too."""

from __future__ import annotations

import json

import pytest
from conftest import NUBENCH_FIXTURE
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate


@pytest.mark.parametrize("shots", [[], ["--num-fewshot", "2"]], ids=["zero-shot", "two-shot"])
def test_score_of_the_samples_is_the_eval(shots, tmp_path, capsys):
    out = evaluate(tmp_path / "run", "random", "nubench", NUBENCH_FIXTURE, ["--model-args", "seed=5", *shots])
    metrics = assert_score_is_eval(
        out,
        "nubench",
        "nubench",
        NUBENCH_FIXTURE,
        capsys,
        score_only=("source",),
        eval_only=("prompt_id", "num_fewshot"),
    )
    assert len(metrics["runs"]) == (5 if shots else 1) and "summary.acc_norm.mean" in metrics["intervals"]
    comparison = assert_compares_with_itself(out, "nubench", capsys, metrics)
    assert {entry["path"] for entry in comparison["metrics"]} == {"summary.acc.mean", "summary.acc_norm.mean"}


def test_the_prompt_sweep_compares_with_itself(tmp_path, capsys):
    out = evaluate(tmp_path / "run", "random", "nubench-prompts", NUBENCH_FIXTURE, ["--limit", "4"])
    comparison = assert_compares_with_itself(out, "nubench-prompts", capsys)
    assert {entry["path"] for entry in comparison["metrics"]} == {"summary.acc.mean", "summary.acc_norm.mean"}


def test_score_names_items_of_both_splits(tmp_path, capsys):
    from negkit.cli import main

    path = tmp_path / "p.jsonl"
    path.write_text(
        '{"item_id": "nubench-validation-100", "prediction": "choice1"}\n'
        '{"item_id": "nubench-test-0", "prediction": 1, "prediction_norm": 0}\n'
    )
    assert main(["score", "nubench", str(path), "--data", str(NUBENCH_FIXTURE), "--json", "--bootstrap", "0"]) == 0
    metrics = json.loads(capsys.readouterr().out)
    # one right of two; acc_norm is unknown (a line without prediction_norm)
    assert metrics["count"] == 2 and metrics["runs"]["predictions"]["acc"] == 0.5
    assert (
        metrics["summary"]["acc_norm"] == {"mean": None, "sd": None}
        and metrics["source"] == "predictions (predictions)"
    )
    assert "prompt_id" not in metrics and "data_count" not in metrics
