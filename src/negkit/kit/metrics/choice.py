"""Multiple-choice predictions as the LM Evaluation Harness makes them.

- ``acc``: the prediction is the arg-max of the choices' log-likelihoods (the first one on ties);
- ``acc_norm``: the arg-max of log-likelihood divided by the choice's length in characters (the choice text
  without the target delimiter), as lm-eval's ``acc_norm``;
- several few-shot seeds: mean and sample standard deviation (n - 1 in the denominator; 0.0 for one value).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence


def argmax(values: Sequence[float]) -> int:
    """Index of the largest value; the first one on ties (as ``numpy.argmax``)."""
    if not values:
        raise ValueError("no values")
    best = 0
    for position, value in enumerate(values):
        if value > values[best]:
            best = position
    return best


def predict(loglikelihoods: Sequence[float]) -> int:
    """``acc`` prediction: the choice with the highest log-likelihood."""
    return argmax(loglikelihoods)


def predict_normalised(loglikelihoods: Sequence[float], choices: Sequence[str]) -> int:
    """``acc_norm`` prediction: the highest log-likelihood per character of the choice text."""
    if len(loglikelihoods) != len(choices):
        raise ValueError(f"{len(loglikelihoods)} log-likelihoods for {len(choices)} choices")
    return argmax([score / len(choice) if choice else -math.inf for score, choice in zip(loglikelihoods, choices)])


def mean_and_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0.0 for a single value)."""
    if not values:
        raise ValueError("no values")
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0
