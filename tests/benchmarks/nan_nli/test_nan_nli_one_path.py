"""NaN-NLI through the one path: ``negkit score`` of an eval's samples gives its metrics and intervals, and
``negkit compare`` rebuilds the headline settings (standard, binary, strict) from the samples."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate


@pytest.mark.parametrize("model", ["random", "constant:entailment"])
def test_score_of_the_samples_is_the_eval(model, tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("nan-nli", "nan.csv")
    out = evaluate(tmp_path / "run", model, "nan-nli", data, ["--limit", "40"])
    metrics = assert_score_is_eval(out, "nan-nli", "nan-nli", data, capsys)
    assert metrics["count"] == 40 and "strict.accuracy" in metrics["intervals"]
    comparison = assert_compares_with_itself(out, "nan-nli", capsys, metrics)
    assert {entry["path"] for entry in comparison["metrics"]} == {
        "standard.all_f1",
        "standard.accuracy",
        "binary.all_f1",
        "binary.accuracy",
        "strict.accuracy",
    }
