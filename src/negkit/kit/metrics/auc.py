"""ROC AUC of a score against a binary label, with ties counted half (the Mann-Whitney form), and its estimand.

``AUC = (#{(p, n): s_p > s_n} + 0.5 * #{(p, n): s_p = s_n}) / (P * N)`` over every pair of a positive ``p`` and a
negative ``n``: the probability that a random positive scores above a random negative, a tie counting one half.
It equals the Mann-Whitney U statistic of the positives divided by ``P * N`` (midranks for ties), and the area
under the ROC curve drawn through every distinct threshold. Undefined (None, or NaN in arrays) without a positive
or without a negative.

The weighted form, where row ``i`` counts ``w_i`` times (``P`` and ``N`` become the summed weights), is what a
bootstrap replicate needs: resampling units with replacement gives each row the draw count of its unit.
:func:`auc_estimand` builds an :class:`negkit.kit.metrics.intervals.Estimand` whose replicates are computed so, from
the same draws of units as every other metric of the run (and, in ``negkit compare``, of the baseline).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from negkit.kit.metrics.intervals import Estimand

#: Rows x replicates handled at once by :func:`weighted_auc` (bounds memory).
_CHUNK_CELLS = 2_000_000


def roc_auc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """The ROC AUC of ``scores`` for the positives (``labels`` True); None without a positive or a negative."""
    value = float(weighted_auc(scores, labels, np.ones((1, len(scores))))[0])
    return value if np.isfinite(value) else None


def _grouped(scores: Sequence[float], labels: Sequence[bool]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows' order by score, whether each sorted row is positive, and where each run of equal scores starts."""
    values = np.asarray(scores, dtype=float)
    if values.size and not np.isfinite(values).all():
        raise ValueError("AUC scores must be finite numbers")
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if ordered.size else np.zeros(0, dtype=np.int64)
    return order, np.asarray(labels, dtype=bool)[order], starts


def weighted_auc(scores: Sequence[float], labels: Sequence[bool], weights: np.ndarray) -> np.ndarray:
    """The AUC under each row of ``weights`` (``(B, N)``: how many times each of the N rows counts); ``(B,)``,
    NaN where the weighted positives or negatives are 0."""
    if len(scores) != len(labels):
        raise ValueError(f"{len(scores)} scores but {len(labels)} labels")
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 2 or weights.shape[1] != len(scores):
        raise ValueError(f"weights must be (replicates, {len(scores)}), got {weights.shape}")
    order, positive, starts = _grouped(scores, labels)
    result = np.full(weights.shape[0], np.nan)
    if not len(scores):
        return result
    step = max(1, _CHUNK_CELLS // len(scores))
    for begin in range(0, weights.shape[0], step):
        chunk = weights[begin : begin + step][:, order]
        pos = np.add.reduceat(chunk * positive, starts, axis=1)  # per run of equal scores
        neg = np.add.reduceat(chunk * ~positive, starts, axis=1)
        below = np.cumsum(neg, axis=1) - neg  # negatives strictly below each run
        wins = (pos * (below + 0.5 * neg)).sum(axis=1)
        total = pos.sum(axis=1) * neg.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            result[begin : begin + step] = np.where(total > 0, wins / np.where(total > 0, total, 1), np.nan)
    return result


def auc_estimand(
    path: str,
    scores: Sequence[float],
    labels: Sequence[bool],
    units: Sequence[Hashable],
    unit: str,
    label: str = "",
    headline: bool = False,
) -> Estimand:
    """The AUC of ``scores`` for ``labels`` as an estimand resampled by ``units`` (one per row).

    Its counts are ``[is positive, is negative]`` per row (so the rows and units it uses are counted as for any
    metric); its replicates come from the rows' weights (:func:`weighted_auc`), not from summed counts.
    """
    scores = [float(score) for score in scores]
    labels = [bool(value) for value in labels]
    if not (len(scores) == len(labels) == len(units)):
        raise ValueError(f"{len(scores)} scores, {len(labels)} labels and {len(units)} units")
    positive = np.asarray(labels, dtype=float)
    counts = np.column_stack([positive, 1 - positive]) if scores else np.zeros((0, 2))

    def from_weights(weights: np.ndarray) -> np.ndarray:
        return weighted_auc(scores, labels, weights)

    def from_sums(sums: np.ndarray) -> np.ndarray:  # only the point estimate is asked of it (all rows once)
        return from_weights(np.ones((sums.shape[0], len(scores))))

    return Estimand(path, counts, list(units), from_sums, unit, label, None, headline, row_statistic=from_weights)
