"""Confidence intervals: the clustered bootstrap against hand-computed distributions, the closed-form standard
errors, the paired bootstrap, and a known-coverage simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from negkit.kit.metrics.intervals import (
    WILSON,
    Estimand,
    bootstrap_intervals,
    bootstrap_p_value,
    draw_blocks,
    intervals_json,
    paired_bootstrap,
    percentile_interval,
    ratio,
    ratio_estimand,
)
from negkit.kit.metrics.standard_errors import ratio_standard_errors, wilson_interval


def _replicate_values(estimand: Estimand, resamples: int, seed: int) -> np.ndarray:
    """The bootstrap distribution the module computes, rebuilt from its own draws (units ordered by repr)."""
    units = sorted(set(estimand.units), key=repr)
    totals = np.zeros((len(units), estimand.counts.shape[1]))
    for unit, row in zip(estimand.units, estimand.counts):
        totals[units.index(unit)] += row
    return np.concatenate(
        [estimand.statistic(weights @ totals) for weights in draw_blocks(len(units), resamples, seed)]
    )


def test_two_units_match_the_exact_bootstrap_distribution():
    # Units a (1 of 1 right) and b (0 of 1): resampling two units gives aa (1.0) with probability 1/4,
    # ab or ba (0.5) with 1/2, bb (0.0) with 1/4; the bootstrap SD is sqrt(1/8).
    estimand = ratio_estimand("acc", [1, 0], None, ["a", "b"], "unit")
    values = _replicate_values(estimand, 40_000, seed=3)
    for value, probability in ((1.0, 0.25), (0.5, 0.5), (0.0, 0.25)):
        assert np.mean(values == value) == pytest.approx(probability, abs=0.01)
    interval = bootstrap_intervals([estimand], resamples=40_000, seed=3)["acc"]
    assert (interval.estimate, interval.low, interval.high) == (0.5, 0.0, 1.0)
    assert interval.bootstrap_se == pytest.approx(math.sqrt(1 / 8), abs=0.005)
    assert (interval.units, interval.rows) == (2, 2)


def test_clusters_are_resampled_whole():
    # Unit a holds three right answers, unit b one wrong: the clustered bootstrap draws aa (1.0, p=1/4),
    # ab (0.75, p=1/2), bb (0.0, p=1/4) -- never the 0.5 an item-level bootstrap can produce.
    estimand = ratio_estimand("acc", [1, 1, 1, 0], None, ["a", "a", "a", "b"], "unit", scale=100.0)
    values = _replicate_values(estimand, 40_000, seed=5)
    assert set(np.unique(values)) == {0.0, 75.0, 100.0}
    assert np.mean(values == 75.0) == pytest.approx(0.5, abs=0.01)
    interval = bootstrap_intervals([estimand], resamples=40_000, seed=5)["acc"]
    assert (interval.estimate, interval.low, interval.high, interval.units, interval.rows) == (75.0, 0.0, 100.0, 2, 4)
    # closed form: sd([1,1,1,0]) / sqrt(4) = 0.25; clustered: sqrt(2 * (0.75^2 + 0.75^2)) / 4 = 0.375 (x 100)
    assert interval.se == pytest.approx(25.0)
    assert interval.se_clustered == pytest.approx(37.5)
    assert ratio_standard_errors(estimand.counts, estimand.units) == pytest.approx((0.25, 0.375))


def test_percentile_interval_and_p_value_by_hand():
    assert percentile_interval(np.arange(101.0)) == pytest.approx((2.5, 97.5, 0))
    assert percentile_interval(np.array([np.nan, 1.0, 3.0]), level=0.5) == pytest.approx((1.5, 2.5, 1))
    assert percentile_interval(np.array([np.nan])) == (None, None, 1)
    # 3 of 9 replicates <= 0, 7 >= 0 (one is 0): p = 2 * (3 + 1) / 10
    assert bootstrap_p_value(np.array([-2, -1, 0, 1, 2, 3, 4, 5, 6.0])) == pytest.approx(0.8)
    assert bootstrap_p_value(np.zeros(5)) == 1.0


def test_paired_bootstrap_by_hand():
    # Per item, run - baseline = [1, 0, 0, 0]; the resampled mean difference is K / 4 with K ~ Binomial(4, 1/4):
    # P(K = 0) = (3/4)^4, so p = 2 * P(d* <= 0) ~ 0.633; the 97.5% quantile is 0.75 (P(K <= 2) = 0.949).
    items = ["i1", "i2", "i3", "i4"]
    run = ratio_estimand("acc", [1, 1, 0, 0], None, items, "item")
    base = ratio_estimand("acc", [0, 1, 0, 0], None, items, "item")
    difference = paired_bootstrap([run], [base], resamples=20_000, seed=1)["acc"]
    assert difference.estimate == pytest.approx(0.25)
    assert (difference.low, difference.high) == (0.0, 0.75)
    assert difference.p_value == pytest.approx(2 * 0.75**4, abs=0.02)
    assert not difference.significant
    same = paired_bootstrap([run], [run], resamples=100, seed=1)["acc"]
    assert (same.estimate, same.low, same.high, same.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_paired_bootstrap_detects_a_clear_difference():
    rng = np.random.default_rng(0)
    units = [f"g{i // 4}" for i in range(400)]
    run = ratio_estimand("acc", rng.random(400) < 0.8, None, units, "group")
    base = ratio_estimand("acc", rng.random(400) < 0.5, None, units, "group")
    difference = paired_bootstrap([run], [base], resamples=2000, seed=0)["acc"]
    assert difference.significant and difference.p_value < 0.01 and difference.low > 0.15


def test_all_equal_outcomes_get_a_wilson_interval():
    # 0 of 17 groups coherent: every resample is 0, so the Wilson interval with n = 17 units is used instead:
    # upper bound z^2 / (n + z^2) = 3.8415 / 20.8415.
    estimand = ratio_estimand("coh", [0] * 17, None, list(range(17)), "group", scale=100.0)
    interval = bootstrap_intervals([estimand])["coh"]
    assert (interval.estimate, interval.low, interval.method) == (0.0, 0.0, WILSON)
    assert interval.high == pytest.approx(100 * 1.959964**2 / (17 + 1.959964**2), abs=1e-3)
    assert wilson_interval(1.0, 17)[0] == pytest.approx(1 - 0.184318, abs=1e-5)


def test_a_single_unit_gets_no_interval():
    interval = bootstrap_intervals([ratio_estimand("m", [1, 0, 0, 1], None, ["p"] * 4, "premise")])["m"]
    assert (interval.estimate, interval.low, interval.high, interval.units) == (0.5, None, None, 1)
    assert interval.as_dict()["ci"] == [None, None] and interval.method.startswith("none")


def test_order_of_rows_does_not_matter_and_seed_fixes_everything():
    rng = np.random.default_rng(7)
    values, units = rng.random(60) < 0.4, [f"u{i % 13}" for i in range(60)]
    order = rng.permutation(60)
    first = bootstrap_intervals([ratio_estimand("m", values, None, units, "u")], 500, seed=11)["m"]
    shuffled = bootstrap_intervals(
        [ratio_estimand("m", values[order], None, [units[i] for i in order], "u")], 500, seed=11
    )["m"]
    assert first == shuffled
    other = bootstrap_intervals([ratio_estimand("m", values, None, units, "u")], 500, seed=12)["m"]
    assert (other.low, other.high) != (first.low, first.high)


def test_zero_rows_do_not_count_and_empty_estimands_are_left_out():
    member = np.array([1, 1, 0, 0, 1.0])
    estimand = ratio_estimand("sub", np.array([1, 0, 1, 1, 1.0]) * member, member, list("abcde"), "u")
    interval = bootstrap_intervals([estimand], 200)["sub"]
    assert (interval.rows, interval.units) == (3, 3)
    assert interval.se == pytest.approx(np.std([1, 0, 1], ddof=1) / math.sqrt(3))
    empty = ratio_estimand("empty", [0, 0], [0, 0], ["a", "b"], "u")
    entries = intervals_json([estimand, empty])
    assert list(entries) == ["sub"] and entries["sub"]["ci"][0] <= entries["sub"]["estimate"] <= entries["sub"]["ci"][1]


def test_draw_blocks_cover_every_resample():
    blocks = list(draw_blocks(units=3, resamples=10, seed=0))
    weights = np.vstack(blocks)
    assert weights.shape == (10, 3) and set(weights.sum(axis=1)) == {3.0}
    with pytest.raises(ValueError):
        bootstrap_intervals([Estimand("x", np.ones((1, 2)), ["a"], ratio(), "u")], resamples=0)


def test_known_coverage_on_binomial_data():
    """1,000 simulated binomial samples (p = 0.3, n = 100): the 95% percentile interval covers p 95% +- 2%."""
    rng = np.random.default_rng(2024)
    truth, size, simulations = 0.3, 100, 1000
    covered = 0
    for simulation in range(simulations):
        sample = rng.random(size) < truth
        interval = bootstrap_intervals([ratio_estimand("p", sample, None, range(size), "item")], 1000, simulation)["p"]
        covered += interval.low <= truth <= interval.high
    assert abs(covered / simulations - 0.95) <= 0.02


def test_starsem_intervals_resample_sentences():
    from conftest import shared_data_path

    from negkit.cli.resolution.corpora import score_files
    from negkit.resolution.corpora.cdsco import read_lines
    from negkit.resolution.metrics.starsem import StarsemCounts, count_starsem, count_starsem_by_sentence

    gold_path = shared_data_path("cd-sco", "SEM-2012-SharedTask-CD-SCO-dev-09032012.txt")
    gold = read_lines(gold_path)
    sentences = count_starsem_by_sentence(gold, gold)
    total = count_starsem(gold, gold)
    summed = {name: sum(getattr(s, name) for s in sentences) for name in vars(StarsemCounts())}
    assert summed == vars(total)
    report = score_files(str(gold_path), [str(gold_path)], bootstrap=200)
    intervals = report["intervals"][str(gold_path)]
    assert intervals["Cues.f1"]["unit"] == "sentence" and intervals["Cues.f1"]["rows"] > 100
    for row in report["systems"][0][1].rows:
        label = row.label.rstrip(":")
        assert intervals[f"{label}.precision"]["estimate"] == pytest.approx(float(row.precision), abs=0.006)
        assert intervals[f"{label}.recall"]["estimate"] == pytest.approx(float(row.recall), abs=0.006)
