"""Closed-form standard errors and the Wilson interval, beside the bootstrap of :mod:`negkit.kit.metrics.intervals`.

- :func:`ratio_standard_errors`: for a ratio ``scale * sum(y) / sum(x)`` (a mean when every ``x`` is 1), ``se``
  treats every row as independent (``sd / sqrt(n)`` for a mean: the LM Evaluation Harness's ``stderr``) and
  ``se_clustered`` is the cluster-robust error of a ratio estimator, ``sqrt(C / (C - 1) * sum_c (y_c - r x_c)^2) / X``
  over the ``C`` units;
- :func:`wilson_interval`: the Wilson score interval of a proportion, used when every outcome is the same (the
  bootstrap then cannot vary).
Rows whose counts are all zero are not observations of the metric (:func:`active_rows`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from statistics import NormalDist

import numpy as np


def active_rows(counts: np.ndarray) -> np.ndarray:
    """Rows with a non-zero count: the observations an estimand is about (all-zero rows contribute nothing,
    so estimands of a subset may keep every row of a suite and zero the others)."""
    counts = np.asarray(counts)
    if counts.ndim != 2 or counts.shape[0] == 0:
        return np.zeros(counts.shape[0] if counts.ndim else 0, dtype=bool)
    active: np.ndarray = (counts != 0).any(axis=1)
    return active


def sum_rows(counts: np.ndarray, positions: np.ndarray, size: int) -> np.ndarray:
    """Sum the rows of ``counts`` (N, K) into ``size`` units by position."""
    if counts.ndim != 2 or counts.shape[0] == 0:
        return np.zeros((size, counts.shape[1] if counts.ndim == 2 else 0))
    return np.column_stack(
        [np.bincount(positions, weights=counts[:, k], minlength=size) for k in range(counts.shape[1])]
    )


def ratio_standard_errors(
    counts: np.ndarray, units: Sequence[Hashable], scale: float = 1.0
) -> tuple[float | None, float | None]:
    """Closed-form standard errors of ``scale * sum(y) / sum(x)`` for rows ``counts = [y, x]``.

    Returns ``(se, se_clustered)``: the first treats every row as independent (for ``x = 1``: the sample
    standard deviation over ``sqrt(n)``), the second is the cluster-robust error over ``units``. Rows of
    zeros are left out (see :func:`active_rows`). Each is None without two rows (units) and a positive ``sum(x)``.
    """
    counts = np.asarray(counts, dtype=float)
    keep = active_rows(counts)
    counts, units = counts[keep], [unit for unit, kept in zip(units, keep) if kept]
    index = {unit: position for position, unit in enumerate(dict.fromkeys(units))}
    positions = np.fromiter((index[unit] for unit in units), dtype=np.int64, count=len(units))
    return ratio_se(counts, scale), ratio_se(sum_rows(counts, positions, len(index)), scale)


def ratio_se(rows: np.ndarray, scale: float) -> float | None:
    """The ratio estimator's standard error from rows ``[y, x]`` taken as independent (rows may be unit totals)."""
    count = rows.shape[0]
    total = rows[:, 1].sum() if count else 0.0
    if count < 2 or total <= 0:
        return None
    estimate = rows[:, 0].sum() / total
    residuals = rows[:, 0] - estimate * rows[:, 1]
    return float(scale * np.sqrt(count / (count - 1) * np.sum(residuals**2)) / total)


def all_outcomes_equal(rows: np.ndarray) -> bool:
    """True when every row of a ratio estimand is 0 of x or x of x: every resample then gives the same value."""
    return rows.shape[0] > 0 and (bool(np.all(rows[:, 0] == 0)) or bool(np.all(rows[:, 0] == rows[:, 1])))


def wilson_interval(proportion: float, count: int, level: float = 0.95) -> tuple[float | None, float | None]:
    """The Wilson score interval of a proportion observed on ``count`` independent units."""
    if count <= 0:
        return None, None
    z = NormalDist().inv_cdf((1 + level) / 2)
    denominator = 1 + z * z / count
    centre = (proportion + z * z / (2 * count)) / denominator
    half = z / denominator * math.sqrt(proportion * (1 - proportion) / count + z * z / (4 * count * count))
    return max(0.0, centre - half), min(1.0, centre + half)
