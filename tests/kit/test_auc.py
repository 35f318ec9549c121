"""ROC AUC of p(True): hand-computed cases (ties count half, as in the Mann-Whitney U), its bootstrap replicates,
TIND's AUC views and their place in results, reports and `negkit compare`."""

from __future__ import annotations

import numpy as np
import pytest

from negkit.benchmarks.tind.intervals import tind_estimands
from negkit.benchmarks.tind.metrics import p_true_aucs, record_p_true, tind_metrics
from negkit.benchmarks.tind.types import TruthItem
from negkit.kit.metrics.auc import auc_estimand, roc_auc, weighted_auc
from negkit.kit.metrics.intervals import bootstrap_intervals, draw_blocks, paired_bootstrap


def test_auc_hand_computed():
    # positives 0.35, 0.8; negatives 0.1, 0.4: of the 4 pairs, 3 have the positive above -> 3/4
    assert roc_auc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == 0.75
    # a tie between a positive and a negative counts one half: pairs (0.5, 0.2) 1, (0.5, 0.5) 0.5, (0.9, 0.2) 1,
    # (0.9, 0.5) 1 -> 3.5/4; Mann-Whitney with midranks: ranks 1, 2.5, 2.5, 4, U = 2.5 + 4 - 3 = 3.5
    assert roc_auc([0.2, 0.5, 0.5, 0.9], [False, True, False, True]) == 0.875
    assert roc_auc([0.5] * 4, [True, False, True, False]) == 0.5  # every pair tied
    assert roc_auc([0.9, 0.1], [False, True]) == 0.0  # perfectly reversed
    assert roc_auc([0.3, 0.3, 0.2], [True, True, False]) == 1.0
    assert roc_auc([0.3, 0.4], [True, True]) is None and roc_auc([], []) is None  # no negative
    with pytest.raises(ValueError, match="finite"):
        roc_auc([0.1, float("nan")], [True, False])
    with pytest.raises(ValueError):
        roc_auc([0.1], [True, False])


def test_weights_count_rows_as_often_as_drawn():
    scores, labels = [0.2, 0.5, 0.5, 0.9], [False, True, False, True]
    # weights 2, 1, 1, 1: negatives 0.2 (twice) and 0.5; positives 0.5 and 0.9 -> (2 + 0.5 + 3) / (2 * 3)
    weights = np.array([[2, 1, 1, 1], [1, 1, 1, 1], [0, 1, 0, 1]], dtype=float)
    values = weighted_auc(scores, labels, weights)
    assert values[0] == pytest.approx(5.5 / 6) and values[0] == pytest.approx(
        roc_auc([0.2, 0.2, 0.5, 0.5, 0.9], [False, False, True, False, True])
    )
    assert values[1] == 0.875 and np.isnan(values[2])  # the third draw has no negative


def test_auc_estimand_replicates_are_the_auc_of_each_resample():
    rng = np.random.default_rng(3)
    scores = rng.random(40).round(1)  # many ties
    labels = rng.random(40) < 0.5
    units = [index // 4 for index in range(40)]  # 10 units of 4 rows
    estimand = auc_estimand("auc", scores, labels, units, "unit")
    interval = bootstrap_intervals([estimand], resamples=50, seed=7)["auc"]
    assert interval.estimate == pytest.approx(roc_auc(scores, labels))
    # the same draws by hand: each resample repeats every row of a unit as often as the unit was drawn
    draws = next(draw_blocks(10, 50, 7))
    by_hand = [
        roc_auc(np.repeat(scores, draws[b][units].astype(int)), np.repeat(labels, draws[b][units].astype(int)))
        for b in range(50)
    ]
    low, high = np.quantile([value for value in by_hand if value is not None], [0.025, 0.975])
    assert (interval.low, interval.high) == (pytest.approx(low), pytest.approx(high))
    assert interval.units == 10 and interval.rows == 40
    same = paired_bootstrap([estimand], [auc_estimand("auc", scores, labels, units, "unit")], resamples=50, seed=7)[
        "auc"
    ]
    assert same.estimate == 0 and same.low == 0 and same.high == 0
    better = auc_estimand("auc", np.where(labels, scores + 2, scores), labels, units, "unit")  # every positive on top
    difference = paired_bootstrap([better], [estimand], resamples=50, seed=7)["auc"]
    assert difference.estimate == pytest.approx(1 - roc_auc(scores, labels)) and difference.low > 0


def _item(group: int, pattern: int, label: bool, distractor: bool, negated: bool, number: int) -> TruthItem:
    return TruthItem(
        item_id=f"{pattern}-{group}-{number}",
        group_id=group,
        pattern_id=pattern,
        pattern="",
        template_id="t",
        negation_type="verbal" if negated else "affirmation",
        semantic_type="none",
        syntactic_scope="none",
        kind="",
        is_distractor=distractor,
        label=label,
        sentence="",
    )


def test_tind_auc_views_hand_computed():
    # one group of pattern #01: input aff True (0.9), input neg False (0.6), distractor aff False (0.3),
    # distractor neg True (0.4)
    items = [
        _item(1, 1, True, False, False, 0),
        _item(1, 1, False, False, True, 1),
        _item(1, 1, False, True, False, 2),
        _item(1, 1, True, True, True, 3),
    ]
    p_true = [0.9, 0.6, 0.3, 0.4]
    aucs = p_true_aucs(items, p_true)
    # all: positives 0.9, 0.4; negatives 0.6, 0.3 -> pairs (0.9 > 0.6, 0.9 > 0.3, 0.4 < 0.6, 0.4 > 0.3) = 3/4
    assert aucs["all"] == 0.75
    assert aucs["affirmations"] == 1.0 and aucs["negations"] == 0.0  # 0.9 vs 0.3; 0.4 vs 0.6
    assert aucs["inputs"] == 1.0 and aucs["distractors"] == 1.0  # 0.9 vs 0.6; 0.4 vs 0.3
    assert aucs["input_vs_distractor_affirmations"] == 1.0 and aucs["input_vs_distractor_negations"] == 1.0
    metrics = tind_metrics(items, [p > 0.5 for p in p_true], p_true)
    assert metrics["p_true_auc"] == aucs and metrics["Synonymy1"]["p_true_auc"] == aucs
    assert "p_true_auc" not in tind_metrics(items, [True] * 4)


def test_tind_auc_intervals_and_records():
    items = [
        _item(group, pattern, label, distractor, negated, number)
        for pattern in (1, 2)
        for group in range(4)
        for number, (label, distractor, negated) in enumerate(
            [(True, False, False), (False, False, True), (False, True, False), (True, True, True)]
        )
    ]
    rng = np.random.default_rng(0)
    p_true = [float(value) for value in rng.random(len(items))]
    estimands = {e.path: e for e in tind_estimands(items, [p > 0.5 for p in p_true], p_true)}
    assert estimands["p_true_auc.all"].headline and not estimands["p_true_auc.negations"].headline
    assert "Antonymy1.p_true_auc.all" in estimands and not estimands["Antonymy1.p_true_auc.all"].headline
    interval = bootstrap_intervals([estimands["p_true_auc.all"]], resamples=100)["p_true_auc.all"]
    assert interval.estimate == pytest.approx(roc_auc(p_true, [item.label for item in items])) and interval.units == 8
    assert record_p_true([{"p_true": 0.2}, {"p_true": 1}]) == [0.2, 1.0]
    assert record_p_true([{"p_true": 0.2}, {"prediction": True}]) is None  # a record without p(True)
    assert record_p_true([{"p_true": float("nan")}]) is None and record_p_true([]) is None
