"""TIND: ``negkit score`` on an eval's samples file gives the eval's metrics and intervals (first-token, with
p(True) and its AUCs, and generation), and ``negkit compare`` reads the run back."""

from __future__ import annotations

import pytest

from conftest import shared_data_path
from one_path import compare_with_itself, eval_then_score


@pytest.mark.parametrize("task", ["tind", "tind-generate"])
def test_score_of_the_samples_equals_the_eval(task, tmp_path, capsys):
    data = shared_data_path()
    evaluated, scored = eval_then_score(capsys, tmp_path / task, "random", task, "tind", data, "--limit", "30")
    assert scored == evaluated
    assert scored["intervals"]["all.accuracy"]["unit"] == "TIND group"
    if task == "tind":
        assert "p_true_auc.all" in scored["intervals"]  # the eval's p(True) reached the scorer


def test_compare_reads_the_run_back(tmp_path, capsys):
    data = shared_data_path()
    eval_then_score(capsys, tmp_path / "run", "constant:true", "tind", "tind", data, "--limit", "30")
    comparison = compare_with_itself(capsys, tmp_path / "run", "tind")
    assert comparison["primary"] == "all.accuracy" and len(comparison["rows"]) == 2
