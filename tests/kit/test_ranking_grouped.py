"""Rankings of candidates (order, top k, gold rank, Spearman) and grouped means with their estimands, against
hand-computed cases."""

from __future__ import annotations

import pytest

from negkit.kit.metrics.grouped import RecordMetric, grouped_estimands, grouped_means, ordered_names, put
from negkit.kit.metrics.intervals import intervals_json
from negkit.kit.metrics.ranking import average_ranks, gold_rank, ordered, spearman, top_k

APPROX = pytest.approx


def test_order_keeps_the_candidates_order_on_ties():
    scores = [-2.0, -1.0, -2.0, -0.5]
    assert ordered(scores) == [3, 1, 0, 2]
    assert top_k(["a", "b", "c", "d"], scores, 2) == ["d", "b"]
    assert gold_rank(["a", "b", "c", "d"], scores, {"c"}) == 4
    assert gold_rank(["a", "b", "c", "d"], scores, {"a", "c"}) == 3  # the best-ranked gold
    assert gold_rank(["a", "b"], [0.0, 0.0], {"z"}) is None


def test_spearman_by_hand():
    assert list(average_ranks([10, 30, 20, 20])) == [1.0, 4.0, 2.5, 2.5]
    assert spearman([1, 2, 3], [10, 20, 30]) == APPROX(1.0)
    assert spearman([1, 2, 3], [3, 2, 1]) == APPROX(-1.0)
    # ranks x = (1, 2, 3), y = (1, 3, 2): centred (-1, 0, 1) and (-1, 1, 0): 1 / sqrt(2 * 2) = 0.5
    assert spearman([0.1, 0.2, 0.3], [5, 9, 7]) == APPROX(0.5)
    # ties: y ranks (1.5, 1.5, 3): centred (-0.5, -0.5, 1); x centred (-1, 0, 1): 1.5 / sqrt(2 * 1.5)
    assert spearman([1, 2, 3], [4, 4, 8]) == APPROX(1.5 / (2 * 1.5) ** 0.5)
    assert spearman([1, 1, 1], [1, 2, 3]) is None and spearman([1], [2]) is None
    with pytest.raises(ValueError):
        spearman([1, 2], [1])


HIT = RecordMetric("form.hit", lambda record: record["hit"], "hit", headline=True)
RHO = RecordMetric("rho", lambda record: record.get("rho"), "rho")
RECORDS = [  # group A: hits 1, 0, 1; group B: hits 0; group C: hit 1 (family F1 = A + B, F2 = C)
    {"item_id": "a1", "hit": 1.0, "rho": 0.5},
    {"item_id": "a2", "hit": 0.0, "rho": None},
    {"item_id": "a3", "hit": 1.0, "rho": -0.1},
    {"item_id": "b1", "hit": 0.0, "rho": 0.2},
    {"item_id": "c1", "hit": 1.0, "rho": None},
]
GROUPS = ["A", "A", "A", "B", "C"]
FAMILIES = ["F1", "F1", "F1", "F1", "F2"]


def test_grouped_means_by_hand():
    means = grouped_means(RECORDS, [HIT, RHO], GROUPS, "relations", ("B",), FAMILIES, average="groups")
    assert list(means["relations"]) == ["B", "A", "C"]  # the given order first, then sorted
    assert means["relations"]["A"] == {"count": 3, "form": {"hit": APPROX(2 / 3)}, "rho": APPROX(0.2)}
    assert means["relations"]["C"]["rho"] is None
    assert means["overall"]["form"]["hit"] == APPROX((2 / 3 + 0 + 1) / 3)
    assert means["overall"]["rho"] == APPROX((0.2 + 0.2) / 2)  # C has none
    assert means["families"]["F1"] == {"groups": 2, "count": 4, "form": {"hit": APPROX(1 / 3)}, "rho": APPROX(0.2)}
    pooled = grouped_means(RECORDS, [HIT, RHO], GROUPS, average="records")
    assert pooled["overall"]["form"]["hit"] == APPROX(3 / 5) and pooled["overall"]["rho"] == APPROX(0.6 / 3)
    with pytest.raises(ValueError):
        grouped_means(RECORDS, [HIT], GROUPS, average="median")


def test_grouped_estimands_match_the_means():
    units = [record["item_id"] for record in RECORDS]
    estimands = grouped_estimands(RECORDS, [HIT, RHO], GROUPS, units, "probe", "relations", (), FAMILIES)
    intervals = intervals_json(estimands)
    assert intervals["overall.form.hit"]["estimate"] == APPROX((2 / 3 + 0 + 1) / 3)
    assert intervals["overall.form.hit"]["headline"] and not intervals["overall.rho"]["headline"]
    assert intervals["relations.A.form.hit"]["estimate"] == APPROX(2 / 3)
    assert intervals["families.F1.rho"]["estimate"] == APPROX(0.2)
    assert intervals["overall.rho"]["units"] == 3  # rows where rho applies
    headline = grouped_estimands(RECORDS, [HIT, RHO], GROUPS, units, "probe", headline_only=True)
    assert [estimand.path for estimand in headline] == ["overall.form.hit"]
    pooled = intervals_json(grouped_estimands(RECORDS, [HIT], GROUPS, units, "probe", average="records"))
    assert pooled["overall.form.hit"]["estimate"] == APPROX(0.6)


def test_helpers():
    target: dict = {}
    put(target, "a.b", 1)
    put(target, "a.c", 2)
    put(target, "d", 3)
    assert target == {"a": {"b": 1, "c": 2}, "d": 3}
    assert ordered_names(["x", "b", "a", "b"], ("b", "z")) == ["b", "a", "x"]
