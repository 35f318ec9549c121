"""Per-sentence NIS counts and their bootstrap intervals (hand-computed cases)."""

from __future__ import annotations

from dataclasses import asdict

import pytest
from cdsco_helpers import S, conll, lines

from negkit.kit.metrics.intervals import IntervalSettings
from negkit.resolution.metrics.nis import count_nis, count_nis_by_sentence, score_nis
from negkit.resolution.metrics.nis_intervals import nis_intervals

GOLD = conll(
    S(1, "No DT No _ _", "way NN _ way _", "out RB _ out _", ". . _ _ _"),
    S(2, "Not RB Not _ _", "here RB _ here _", ". . _ _ _"),
    S(3, "Fine JJ ***", ". . ***"),
)


def system_text() -> str:
    return GOLD.replace("\tout\tout\tRB\t*\t_\tout\t_", "\tout\tout\tRB\t*\t_\t_\t_")


def test_counts_per_sentence_add_up_to_the_totals():
    gold, system = lines(GOLD, "gold.txt"), lines(system_text(), "system.txt")
    per_sentence = count_nis_by_sentence(gold, system)
    assert len(per_sentence) == 3
    first, second, third = per_sentence
    assert (first.pairs, first.precision_sum, first.recall_sum, first.shared_scope_tokens) == (1, 1.0, 0.5, 1)
    assert (second.pairs, second.precision_sum, second.recall_sum) == (1, 1.0, 1.0)
    assert third.gold_instances == third.system_instances == 0
    total = count_nis(gold, system)
    for name, value in asdict(total).items():
        assert value == pytest.approx(sum(getattr(s, name) for s in per_sentence))


def test_intervals_are_centred_on_the_scores():
    gold, system = lines(GOLD, "gold.txt"), lines(system_text(), "system.txt")
    intervals = nis_intervals(count_nis_by_sentence(gold, system), IntervalSettings(200, 3))
    scores = score_nis(gold, system).scores
    # NIS_tok: P = (1 + 1) / 2 = 100, R = (0.5 + 1) / 2 = 75, F1 = 85.71
    assert intervals["nis_tok.recall"]["estimate"] == pytest.approx(75.0)
    assert intervals["nis_tok.f1"]["estimate"] == pytest.approx(scores.nis_tok.f1 * 100) == pytest.approx(600 / 7)
    # every resample's precision is 100, except those drawing only the sentence without negation (0 / 0 = 0)
    assert intervals["nis_tok.precision"]["ci"][1] == 100.0
    low, high = intervals["nis_tok.recall"]["ci"]
    assert low <= 75.0 <= high == 100.0
    # token-weighted: 2 shared of 3 gold, 2 system entries
    assert intervals["nis_tok_tokens.recall"]["estimate"] == pytest.approx(200 / 3)
    assert intervals["cue.f1"]["estimate"] == 100.0 and intervals["nis_tok.f1"]["headline"] is True
