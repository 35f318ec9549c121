"""A process keeps the charts it drew (plots._remembered): asked again with equal arguments, a chart is the same
text without drawing; other arguments, or arguments that are not plain values, draw anew."""

from __future__ import annotations

import numpy as np
import pytest

from negkit.kit.render import plots

pytestmark = pytest.mark.skipif(not plots.available(), reason="matplotlib is not installed")


def test_equal_arguments_give_the_kept_chart_and_other_ones_a_new_one(monkeypatch):
    drawn = []
    original = plots.to_svg
    monkeypatch.setattr(plots, "to_svg", lambda figure: drawn.append(1) or original(figure))
    series = {"model": [(0.5, 0.4, 0.6), (0.25, 0.2, 0.3)]}
    first = plots.interval_bars(["a", "b"], series, "invented title 1", "accuracy", ylim=(0.0, 1.0))
    again = plots.interval_bars(
        ["a", "b"], {"model": [(0.5, 0.4, 0.6), (0.25, 0.2, 0.3)]}, "invented title 1", "accuracy", ylim=(0.0, 1.0)
    )
    assert again == first and len(drawn) == 1
    other = plots.interval_bars(["a", "b"], series, "invented title 1", "accuracy", ylim=(0.0, 0.5))
    assert other != first and len(drawn) == 2
    matrix = np.array([[0.1, 0.2], [0.3, 0.4]])  # numpy values key by value, as the numbers they hold
    heat = plots.heatmap(matrix, ["r1", "r2"], ["c1", "c2"], "invented title 2")
    assert plots.heatmap(matrix.tolist(), ["r1", "r2"], ["c1", "c2"], "invented title 2") == heat
    assert len(drawn) == 3


def test_only_plain_values_are_keys():
    assert plots._plain({"x": (np.float64(0.5), None, [1, "a"])}) == ("mapping", (("x", (0.5, None, (1, "a"))),))
    with pytest.raises(TypeError):
        plots._plain(object())


def test_at_most_the_last_remembered_charts_are_kept(monkeypatch):
    monkeypatch.setattr(plots, "REMEMBERED", 2)
    drawn = []
    original = plots.to_svg
    monkeypatch.setattr(plots, "to_svg", lambda figure: drawn.append(1) or original(figure))
    for title in ("t1", "t2", "t3", "t1"):
        plots.forest(["a"], {"run": [(0.1, 0.0, 0.2)]}, f"invented {title}", "difference")
    assert len(drawn) == 4  # t1 was dropped when t3 came
    monkeypatch.setattr(plots, "REMEMBERED", 0)  # none kept: every chart drawn, and returned
    assert plots.forest(["a"], {"run": [(0.1, 0.0, 0.2)]}, "invented t4", "difference").startswith("<svg")
    assert len(drawn) == 5
