"""NeQA (a declared multiple-choice task) through the one path: ``negkit score`` of an eval's samples gives its
metrics and intervals, ``acc_norm`` reaches results.json, and ``negkit compare`` rebuilds acc and acc_norm."""

from __future__ import annotations

import json

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate


@pytest.mark.parametrize("model", ["random", "constant:B"])
def test_score_of_the_samples_is_the_eval(model, tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("neqa")
    out = evaluate(tmp_path / "run", model, "neqa", data, ["--limit", "60"])
    metrics = assert_score_is_eval(out, "neqa", "neqa", data, capsys, score_only=("data_count", "source"))
    assert {"acc", "acc_norm"} <= set(metrics["intervals"])
    harness = json.loads((out / "results.json").read_text())["results"]["neqa"]
    assert harness["acc_norm,none"] == pytest.approx(metrics["acc_norm"])
    assert len(assert_compares_with_itself(out, "neqa", capsys, metrics)["metrics"]) == 2
