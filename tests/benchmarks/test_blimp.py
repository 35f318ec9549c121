"""BLiMP negation (declared minimal pairs) through the one path: ``negkit score`` of an eval's samples gives its
metrics and intervals, and ``negkit compare`` rebuilds the mean over paradigms from the samples."""

from __future__ import annotations

from conftest import shared_data_path
from one_path import assert_compares_with_itself, assert_score_is_eval, evaluate


def test_score_of_the_samples_is_the_eval(tmp_path, capsys):
    data = shared_data_path()
    shared_data_path("blimp-negation")
    out = evaluate(tmp_path / "run", "random", "blimp-negation", data, ["--limit", "70"])
    metrics = assert_score_is_eval(
        out, "blimp-negation", "blimp-negation", data, capsys, score_only=("data_count", "source")
    )
    assert metrics["overall"]["total"] == 70 and metrics["intervals"]["overall.accuracy"]["headline"] is True
    assert_compares_with_itself(out, "blimp-negation", capsys, metrics)
