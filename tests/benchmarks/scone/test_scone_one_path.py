"""ScoNe-NLI through the one path: ``negkit score`` of an eval's samples gives its metrics and intervals, and
``negkit compare`` rebuilds every condition's accuracy from the samples."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate


@pytest.mark.parametrize("model", ["random", "constant:neutral"])
def test_score_of_the_samples_is_the_eval(model, tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("scone")
    out = evaluate(tmp_path / "run", model, "scone", data, ["--limit", "30"])
    metrics = assert_score_is_eval(out, "scone", "scone", data, capsys)
    assert metrics["count"] == 30 and metrics["intervals"]["accuracy.overall"]["units"] == 5
    comparison = assert_compares_with_itself(out, "scone", capsys, metrics)
    assert len(comparison["metrics"]) == 7  # six conditions and overall
