"""NeQA (a declared multiple-choice task): ``negkit score`` on an eval's samples file gives the eval's metrics and
intervals, acc_norm reaches results.json, and ``negkit compare`` reads the run back."""

from __future__ import annotations

import json

import pytest

from conftest import shared_data_path
from one_path import compare_with_itself, eval_then_score


@pytest.mark.parametrize("model", ["random", "constant:B"])
def test_score_of_the_samples_equals_the_eval(model, tmp_path, capsys):
    evaluated, scored = eval_then_score(capsys, tmp_path / "run", model, "neqa", "neqa", shared_data_path(), "--limit", "60")
    assert scored == evaluated and {"acc", "acc_norm"} <= set(scored["intervals"])
    results = json.loads((tmp_path / "run" / "results.json").read_text())["results"]["neqa"]
    assert results["acc_norm,none"] == pytest.approx(evaluated["acc_norm"])


def test_compare_reads_the_run_back(tmp_path, capsys):
    eval_then_score(capsys, tmp_path / "run", "random", "neqa", "neqa", shared_data_path(), "--limit", "30")
    assert compare_with_itself(capsys, tmp_path / "run", "neqa")["primary"] == "acc"
