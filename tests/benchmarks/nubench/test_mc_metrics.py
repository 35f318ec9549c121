"""Multiple-choice metrics: lm-eval's acc / acc_norm and Thunder-NUBench's error analysis, hand-computed."""

from __future__ import annotations

import math

import pytest

from negkit.benchmarks.nubench.metrics import error_analysis
from negkit.kit.metrics.choice import argmax, mean_and_sd, predict, predict_normalised


def test_argmax_takes_first_on_ties():
    assert argmax([-3.0, -1.0, -1.0]) == 1
    assert predict([-2.0, -2.0]) == 0
    with pytest.raises(ValueError):
        argmax([])


def test_acc_norm_divides_by_characters_and_can_disagree_with_acc():
    # acc: -10 > -12 -> choice 0. acc_norm: -10/5 = -2.0 vs -12/12 = -1.0 -> choice 1.
    scores = [-10.0, -12.0]
    choices = ["abcde", "abcdefghijkl"]
    assert predict(scores) == 0
    assert predict_normalised(scores, choices) == 1


def test_acc_norm_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        predict_normalised([-1.0], ["a", "b"])


def test_error_analysis_hand_computed():
    # 8 items; predictions and types:
    names = ["choice1", "choice2", "choice2", "choice3", "choice1", "choice4", "choice2", "choice3"]
    types = [
        "relative_part",
        "relative_part",
        "pp_part",
        "pp_part",
        "compound_part",
        "compound_part",
        "adverb_part",
        "non-applicable",
    ]
    result = error_analysis(names, types)
    # 6 wrong of 8 -> 0.75; of the wrong: choice2 3/6 = 50%, choice3 2/6, choice4 1/6.
    assert result.errors == 6 and result.total == 8
    assert result.error_rate == pytest.approx(0.75)
    assert result.error_share == pytest.approx({"choice2": 50.0, "choice3": 100 / 3, "choice4": 100 / 6})
    # relative: 1 of 2 predicted choice2; pp: 1 of 2; compound: 0 of 2; adverb: 1 of 1; non-applicable not reported.
    assert result.confusion_rate == pytest.approx(
        {"relative_part": 0.5, "pp_part": 0.5, "compound_part": 0.0, "adverb_part": 1.0}
    )


def test_error_analysis_all_correct_has_zero_shares():
    result = error_analysis(["choice1", "choice1"], ["pp_part", "non-applicable"])
    assert result.error_rate == 0.0
    assert result.error_share == {"choice2": 0.0, "choice3": 0.0, "choice4": 0.0}
    assert result.confusion_rate == {"pp_part": 0.0}


def test_mean_and_sample_sd():
    # values 0.5, 0.6, 0.7: mean 0.6; deviations -0.1, 0, 0.1 -> sum of squares 0.02 / (3 - 1) = 0.01 -> SD 0.1
    mean, sd = mean_and_sd([0.5, 0.6, 0.7])
    assert mean == pytest.approx(0.6)
    assert sd == pytest.approx(0.1)
    assert mean_and_sd([0.4]) == (0.4, 0.0)
    assert not math.isnan(mean_and_sd([0.2, 0.2])[1])
