"""95% intervals of the NIS scores (Sineva et al. 2021), resampling sentences.

Every NIS number is a ratio of sums over sentences (:func:`negkit.resolution.metrics.nis.count_nis_by_sentence`): the cue
scores are pairs / system instances and pairs / gold instances, NIS_tok's precision and recall are the summed
per-pair precision and recall over the system and gold instance counts, the token-weighted variant shares
scope entries over all scope entries. A bootstrap that draws sentences with replacement recomputes each
from the drawn sentences' sums; F1 is the harmonic mean of the resampled precision and recall. Values are
percentages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from negkit.kit.metrics.intervals import Estimand, IntervalSettings, intervals_json, precision_recall_statistic
from negkit.resolution.metrics.nis import NisCounts

UNIT = "sentence"
#: Score -> (precision numerator, precision denominator, recall numerator, recall denominator) fields.
SCORES: dict[str, tuple[str, str, str, str]] = {
    "cue": ("pairs", "system_instances", "pairs", "gold_instances"),
    "nis_tok": ("precision_sum", "system_instances", "recall_sum", "gold_instances"),
    "nis_tok_tokens": ("shared_scope_tokens", "system_scope_tokens", "shared_scope_tokens", "gold_scope_tokens"),
    "nis_ex": ("exact_scopes", "system_instances", "exact_scopes", "gold_instances"),
}
_LABELS = {"cue": "NIS cues", "nis_tok": "NIS_tok", "nis_tok_tokens": "NIS_tok token-weighted", "nis_ex": "NIS_ex"}


def nis_estimands(sentences: Sequence[NisCounts]) -> list[Estimand]:
    """Precision, recall and F1 of the cue, NIS_tok, token-weighted and NIS_ex scores, one row per sentence."""
    units = list(range(len(sentences)))
    estimands = []
    for name, columns in SCORES.items():
        counts = np.array([[getattr(s, column) for column in columns] for s in sentences], dtype=float).reshape(-1, 4)
        for which in ("precision", "recall", "f1"):
            estimands.append(
                Estimand(
                    f"{name}.{which}",
                    counts,
                    units,
                    precision_recall_statistic(which),
                    UNIT,
                    f"{_LABELS[name]} {which}",
                    headline=name == "nis_tok" and which == "f1",
                )
            )
    return estimands


def nis_intervals(sentences: Sequence[NisCounts], settings: IntervalSettings | None = None) -> dict[str, Any]:
    """JSON-ready intervals (``SCORE.precision|recall|f1``, SCORE one of :data:`SCORES`) from per-sentence counts."""
    return intervals_json(nis_estimands(sentences), settings)
