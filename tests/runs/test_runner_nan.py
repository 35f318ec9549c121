"""NaN scores from a model are an error, never counted by a metric (a diverged adapter answered NaN for every
BLiMP pair, which its comparison counted as right)."""

from __future__ import annotations

import pytest

from negkit.engine.requests import LoglikelihoodResult
from negkit.errors import NegkitError
from negkit.runs.runner import check_no_nan


def test_nan_scores_of_any_kind_are_refused_and_others_pass():
    check_no_nan(object(), [LoglikelihoodResult(-1.5, True, 2), {"A": -0.1, "B": float("-inf")}, "generated text"])
    for responses in ([LoglikelihoodResult(float("nan"), False, 3)], [{"yes": float("nan"), "no": -1.0}]):
        with pytest.raises(NegkitError, match="returned NaN scores for 1 of 1 requests"):
            check_no_nan(object(), responses)
