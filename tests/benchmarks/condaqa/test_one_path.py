"""CondaQA: ``negkit score`` on an eval's samples file gives the eval's metrics and intervals (written answers and
the three closed answers), and ``negkit compare`` reads the run back."""

from __future__ import annotations

import pytest

from conftest import shared_data_path
from one_path import compare_with_itself, eval_then_score


@pytest.mark.parametrize("task, model", [("condaqa", "random"), ("condaqa-choice", "random"),
                                         ("condaqa-choice", "constant:no")])
def test_score_of_the_samples_equals_the_eval(task, model, tmp_path, capsys):
    data = shared_data_path()
    evaluated, scored = eval_then_score(capsys, tmp_path / "run", model, task, "condaqa", data, "--limit", "40")
    assert scored == evaluated
    assert scored["style"] == ("generate" if task == "condaqa" else "choice")


def test_compare_reads_the_run_back(tmp_path, capsys):
    data = shared_data_path()
    eval_then_score(capsys, tmp_path / "run", "constant:yes", "condaqa-choice", "condaqa", data, "--limit", "40")
    comparison = compare_with_itself(capsys, tmp_path / "run", "condaqa-choice")
    assert comparison["primary"] == "accuracy.accuracy"
