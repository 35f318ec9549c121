"""CondaQA through the one path: ``negkit score`` of an eval's samples gives its metrics and intervals (written
answers and the three closed answers), and ``negkit compare`` rebuilds accuracy and consistency from the samples."""

from __future__ import annotations

import pytest
from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate


@pytest.mark.parametrize(
    "task, model", [("condaqa", "random"), ("condaqa-choice", "random"), ("condaqa-choice", "constant:no")]
)
def test_score_of_the_samples_is_the_eval(task, model, tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("condaqa")
    out = evaluate(tmp_path / "run", model, task, data, ["--limit", "40"])
    metrics = assert_score_is_eval(out, task, "condaqa", data, capsys, score_only=("data_count", "source"))
    assert metrics["style"] == ("generate" if task == "condaqa" else "choice")
    assert_compares_with_itself(out, task, capsys, metrics)
