"""BLiMP negation (declared minimal pairs): ``negkit score`` on an eval's samples file gives the eval's metrics and
intervals, and ``negkit compare`` reads the run back."""

from __future__ import annotations

from conftest import shared_data_path
from one_path import compare_with_itself, eval_then_score


def test_score_of_the_samples_equals_the_eval(tmp_path, capsys):
    evaluated, scored = eval_then_score(capsys, tmp_path / "run", "random", "blimp-negation", "blimp-negation",
                                        shared_data_path(), "--limit", "70")
    assert scored == evaluated and scored["overall"]["total"] == 70
    assert scored["intervals"]["overall.accuracy"]["headline"] is True


def test_compare_reads_the_run_back(tmp_path, capsys):
    eval_then_score(capsys, tmp_path / "run", "random", "blimp-negation", "blimp-negation", shared_data_path(),
                    "--limit", "14")
    assert compare_with_itself(capsys, tmp_path / "run", "blimp-negation")["primary"] == "overall.accuracy"
