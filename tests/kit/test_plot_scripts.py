"""Figures with text the plotting font cannot draw (Korean, Chinese labels): the SVG keeps that text as text (the
browser draws it), while Latin and Cyrillic labels are drawn as paths as before."""

from __future__ import annotations

import pytest

from negkit.kit.render import plots

pytestmark = pytest.mark.skipif(not plots.available(), reason="matplotlib is not installed")


def _svg(labels):
    return plots.heatmap([[0.5] * len(labels)], ["row"], labels, "title", vmin=0, vmax=1)


def test_korean_labels_stay_text_and_latin_ones_are_paths():
    korean = _svg(["관형절", "부사절"])
    assert "관형절" in korean and "<text" in korean
    latin = _svg(["relative_part", "отрицание"])
    assert "<text" not in latin and "relative_part" not in latin
