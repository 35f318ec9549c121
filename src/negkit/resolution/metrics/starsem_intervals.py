"""95% intervals of the *SEM 2012 scorer's precision, recall and F1, resampling sentences.

A sentence's negation instances are scored within the sentence, so each sentence adds its own counts to every
row of the official table (:func:`negkit.resolution.metrics.starsem.count_starsem_by_sentence`); a bootstrap that draws
sentences with replacement recomputes each row from the drawn sentences' counts. Precision is ``tp / (tp + fp)``
for the plain rows and ``tp / system`` for the B rows, recall ``tp / (tp + fn)``, F1 their harmonic mean (in
percent; unrounded, where the official script computes F1 from the two rounded percentages).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from negkit.kit.metrics.intervals import Estimand, IntervalSettings, intervals_json, precision_recall_statistic
from negkit.resolution.metrics.starsem import StarsemCounts

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


def starsem_estimands(sentences: Sequence[StarsemCounts]) -> list[Estimand]:
    """Precision, recall and F1 of every row of the official table, one row of counts per sentence."""
    units = list(range(len(sentences)))
    estimands = []
    for label, (tp, fp, system, fn) in ROWS.items():
        counts = np.array(
            [
                [
                    getattr(s, tp),
                    getattr(s, tp) + getattr(s, fp) if fp else getattr(s, system),
                    getattr(s, tp),
                    getattr(s, tp) + getattr(s, fn),
                ]
                for s in sentences
            ],
            dtype=float,
        ).reshape(-1, 4)
        for which in ("precision", "recall", "f1"):
            estimands.append(
                Estimand(
                    f"{label}.{which}",
                    counts,
                    units,
                    precision_recall_statistic(which),
                    UNIT,
                    f"{label} {which}",
                    headline=which == "f1",
                )
            )
    return estimands


def starsem_intervals(sentences: Sequence[StarsemCounts], settings: IntervalSettings | None = None) -> dict[str, Any]:
    """JSON-ready intervals (``ROW.precision|recall|f1``) from :func:`count_starsem_by_sentence`'s counts."""
    return intervals_json(starsem_estimands(sentences), settings)
