"""BERTScore's greedy matching (Zhang et al., 2020) on embeddings small enough to work out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from negkit.kit.metrics.bertscore import bert_score, idf_weights, token_weights

S = 1 / math.sqrt(2)
# candidate tokens (1, 0) and (3, 4) -> (0.6, 0.8); reference tokens (1, 0), (0, 1), (1, 1) -> (S, S)
CANDIDATE = np.array([[1.0, 0.0], [3.0, 4.0]])
REFERENCE = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])


def test_greedy_matching_by_hand():
    """Similarities: c1 . r = 1, 0, S; c2 . r = 0.6, 0.8, 1.4 S. Precision: the best match of each candidate token,
    (1 + 1.4 S) / 2; recall: of each reference token, (1 + 0.8 + 1.4 S) / 3."""
    score = bert_score(CANDIDATE, REFERENCE)
    precision, recall = (1 + 1.4 * S) / 2, (1 + 0.8 + 1.4 * S) / 3
    assert score.precision == pytest.approx(precision)
    assert score.recall == pytest.approx(recall)
    assert score.f1 == pytest.approx(2 * precision * recall / (precision + recall))
    same = bert_score(REFERENCE, REFERENCE)
    assert (same.precision, same.recall, same.f1) == pytest.approx((1.0, 1.0, 1.0))


def test_weights_and_idf():
    """Reference weights 1, 0, 1 drop the second reference token from recall: (1 + 1.4 S) / 2. idf over three
    references [a b], [a c], [a]: a in all three -> 0, b and c in one -> log 3; an unseen token gets log 3 too."""
    weighted = bert_score(CANDIDATE, REFERENCE, reference_weights=[1, 0, 1])
    assert weighted.recall == pytest.approx((1 + 1.4 * S) / 2)
    idf = idf_weights([["a", "b"], ["a", "c"], ["a"]])
    assert idf == pytest.approx({"a": 0.0, "b": math.log(3), "c": math.log(3)})
    assert token_weights(["a", "d"], idf, 3) == pytest.approx([0.0, math.log(3)])
    zero = bert_score(CANDIDATE, REFERENCE, candidate_weights=[0, 0])
    assert zero.precision == 0.0 and zero.f1 == 0.0
    with pytest.raises(ValueError):
        bert_score(np.zeros((0, 2)), REFERENCE)
