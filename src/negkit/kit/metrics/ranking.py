"""Rankings of candidate words by a model's scores: the order (ties kept in the candidates' own order), the top k,
the rank of a gold answer, and Spearman's rank correlation between two score vectors (average ranks for ties, as
``scipy.stats.spearmanr``). Cloze probes (:mod:`negkit.kit.tasks.cloze`) build on these.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

import numpy as np


def ordered(scores: Sequence[float]) -> list[int]:
    """Candidate positions from the highest score to the lowest; equal scores keep the candidates' order (a
    candidate listed first ranks first), so the order is one total order whoever computes it."""
    return sorted(range(len(scores)), key=lambda position: (-float(scores[position]), position))


def top_k(candidates: Sequence[str], scores: Sequence[float], k: int) -> list[str]:
    """The ``k`` best candidates, best first (:func:`ordered`)."""
    return [candidates[position] for position in ordered(scores)[:k]]


def gold_rank(candidates: Sequence[str], scores: Sequence[float], golds: Collection[str]) -> int | None:
    """The 1-based rank of the best-ranked gold candidate in :func:`ordered`; None when no gold is a candidate."""
    for rank, position in enumerate(ordered(scores), start=1):
        if candidates[position] in golds:
            return rank
    return None


def average_ranks(values: Sequence[float]) -> np.ndarray:
    """1-based ranks, ascending, each tie given the mean of the ranks it spans."""
    array = np.asarray(values, dtype=float)
    order = np.argsort(array, kind="mergesort")
    ranks = np.empty(len(array), dtype=float)
    start = 0
    while start < len(array):
        end = start
        while end + 1 < len(array) and array[order[end + 1]] == array[order[start]]:
            end += 1
        ranks[order[start : end + 1]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(first: Sequence[float], second: Sequence[float]) -> float | None:
    """Spearman's rank correlation of two equally long score vectors: the Pearson correlation of their average
    ranks. None for fewer than two values or when either vector is constant (the correlation is undefined)."""
    if len(first) != len(second):
        raise ValueError(f"spearman: {len(first)} scores against {len(second)}")
    if len(first) < 2:
        return None
    x, y = average_ranks(first), average_ranks(second)
    x, y = x - x.mean(), y - y.mean()
    norm = math.sqrt(float((x * x).sum()) * float((y * y).sum()))
    if norm == 0:
        return None
    return max(-1.0, min(1.0, float((x * y).sum()) / norm))
