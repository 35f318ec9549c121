"""BERTScore (Zhang et al., 2020) from contextual token embeddings: greedy cosine matching, precision, recall, F1.

For a reference x (tokens x_1..x_k) and a candidate x̂ (x̂_1..x̂_l), with every embedding normalised to unit length:

- recall R = sum_i w(x_i) max_j x_i . x̂_j / sum_i w(x_i) (each reference token matched to its most similar
  candidate token),
- precision P = sum_j w(x̂_j) max_i x_i . x̂_j / sum_j w(x̂_j),
- F1 = 2 P R / (P + R) (0 when P + R is 0).

The weights are 1 (the paper's default) or, with importance weighting, the inverse document frequency of each token
over the M reference sentences: idf(w) = -log((1/M) sum_m I[w in x^(m)]) (:func:`idf_weights`; a token no reference
holds gets log M, as if one held it; the BERTScore package smooths every count by one instead). No baseline
rescaling. The embeddings come from the caller (a model's hidden states, special tokens left out).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BertScore:
    """One pair's ``precision``, ``recall`` and ``f1``."""

    precision: float
    recall: float
    f1: float


def _unit(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=float)
    if rows.ndim != 2 or not len(rows):
        raise ValueError("embeddings are a non-empty (tokens x dimensions) array")
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)


def bert_score(
    candidate: np.ndarray,
    reference: np.ndarray,
    candidate_weights: Sequence[float] | None = None,
    reference_weights: Sequence[float] | None = None,
) -> BertScore:
    """BERTScore of one candidate against one reference from their token embeddings (rows); weights default to 1."""
    similarity = _unit(candidate) @ _unit(reference).T
    cand_w = np.ones(len(similarity)) if candidate_weights is None else np.asarray(candidate_weights, dtype=float)
    ref_w = np.ones(similarity.shape[1]) if reference_weights is None else np.asarray(reference_weights, dtype=float)
    precision = float((similarity.max(axis=1) * cand_w).sum() / cand_w.sum()) if cand_w.sum() else 0.0
    recall = float((similarity.max(axis=0) * ref_w).sum() / ref_w.sum()) if ref_w.sum() else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return BertScore(precision, recall, f1)


def idf_weights(references: Sequence[Sequence[Hashable]]) -> dict[Hashable, float]:
    """Token -> idf over the reference sentences (token lists): -log(sentences holding it / M)."""
    total = len(references)
    counts = Counter(token for sentence in references for token in set(sentence))
    return {token: -math.log(count / total) for token, count in counts.items()}


def token_weights(tokens: Sequence[Hashable], idf: Mapping[Hashable, float], references: int) -> list[float]:
    """The idf of each token (log M for a token no reference holds)."""
    unseen = math.log(references) if references else 0.0
    return [idf.get(token, unseen) for token in tokens]
