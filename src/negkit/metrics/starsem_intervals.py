"""95% intervals of the *SEM 2012 scorer's precision, recall and F1, resampling sentences.

A sentence's negation instances are scored within the sentence, so each sentence adds its own counts to every
row of the official table (:func:`negkit.metrics.starsem.count_starsem_by_sentence`); a bootstrap that draws
sentences with replacement recomputes each row from the drawn sentences' counts. Precision is ``tp / (tp + fp)``
for the plain rows and ``tp / system`` for the B rows, recall ``tp / (tp + fn)``, F1 their harmonic mean (in
percent; unrounded, where the official script computes F1 from the two rounded percentages).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from negkit.metrics.intervals import Estimand, IntervalSettings, intervals_json, safe_divide
from negkit.metrics.starsem import StarsemCounts

UNIT = "sentence"
#: Row label -> (scored tp field, false-positive field or None for a B row, system-count field, false-negative field).
ROWS: dict[str, tuple[str, str | None, str, str]] = {
    "Cues": ("tp_cue", "fp_cue", "cues_s", "fn_cue"),
    "Scopes(cue match)": ("tp_scope", "fp_scope", "scopes_s", "fn_scope"),
    "Scopes(no cue match)": ("tp_sa", "fp_sa", "scopes_s", "fn_sa"),
    "Scope tokens(no cue match)": ("tp_tok", "fp_tok", "scope_tokens_s", "fn_tok"),
    "Negated(no cue match)": ("tp_ev", "fp_ev", "negated_s", "fn_ev"),
    "Full negation": ("tp_full", "fp_full", "cues_s", "fn_full"),
    "Cues B": ("tp_cue", None, "cues_s", "fn_cue"),
    "Scopes B (cue match)": ("tp_scope", None, "scopes_s", "fn_scope"),
    "Scopes B (no cue match)": ("tp_sa", None, "scopes_s", "fn_sa"),
    "Negated B (no cue match)": ("tp_ev", None, "negated_s", "fn_ev"),
    "Full negation B": ("tp_full", None, "cues_s", "fn_full"),
}


def _statistic(which: str) -> Callable[[np.ndarray], np.ndarray]:
    """Precision, recall or F1 (percent) from summed ``[tp, precision denominator, tp + fn]``."""

    def statistic(sums: np.ndarray) -> np.ndarray:
        precision = 100 * safe_divide(sums[:, 0], sums[:, 1])
        recall = 100 * safe_divide(sums[:, 0], sums[:, 2])
        if which == "precision":
            return precision
        if which == "recall":
            return recall
        return safe_divide(2 * precision * recall, precision + recall)

    return statistic


def starsem_estimands(sentences: Sequence[StarsemCounts]) -> list[Estimand]:
    """Precision, recall and F1 of every row of the official table, one row of counts per sentence."""
    units = list(range(len(sentences)))
    estimands = []
    for label, (tp, fp, system, fn) in ROWS.items():
        counts = np.array([[getattr(s, tp), getattr(s, tp) + getattr(s, fp) if fp else getattr(s, system),
                            getattr(s, tp) + getattr(s, fn)] for s in sentences], dtype=float).reshape(-1, 3)
        for which in ("precision", "recall", "f1"):
            estimands.append(Estimand(f"{label}.{which}", counts, units, _statistic(which), UNIT, f"{label} {which}",
                                      headline=which == "f1"))
    return estimands


def starsem_intervals(sentences: Sequence[StarsemCounts], settings: IntervalSettings | None = None) -> dict[str, Any]:
    """JSON-ready intervals (``ROW.precision|recall|f1``) from :func:`count_starsem_by_sentence`'s counts."""
    return intervals_json(starsem_estimands(sentences), settings)
