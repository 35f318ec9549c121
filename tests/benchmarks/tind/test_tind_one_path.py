"""TIND through the one path: ``negkit score`` of an eval's samples gives its metrics and intervals (first-token,
with p(True) and its AUCs, and generation; the predictions file holds its items, so no data set is read), and
``negkit compare`` rebuilds the headline numbers from the samples."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate


@pytest.mark.parametrize("task, model", [("tind", "random"), ("tind-generate", "random"), ("tind", "constant:true")])
def test_score_of_the_samples_is_the_eval(task, model, tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("tind")
    out = evaluate(tmp_path / "run", model, task, data, ["--limit", "30"])
    metrics = assert_score_is_eval(out, task, "tind", data, capsys, score_only=("source",), eval_only=("sample",))
    assert metrics["intervals"]["all.accuracy"]["unit"] == "TIND group"
    if task == "tind" and model == "random":
        assert "p_true_auc.all" in metrics["intervals"]  # the eval's p(True) reached the scorer
    comparison = assert_compares_with_itself(out, task, capsys)  # TIND's metrics are rounded: compare the estimates
    for path, entry in comparison["rows"][0]["values"].items():
        assert entry["estimate"] == pytest.approx(metrics["intervals"][path]["estimate"], abs=1e-6), path
