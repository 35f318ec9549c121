"""TIND's figures: accuracy by affirmation/negation on all, input and distractor sentences; the five coherence
measures; a per-pattern heatmap of every accuracy bucket and coherence measure (percentages)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from negkit.benchmarks.tind.intervals import LABELS as TIND_LABELS
from negkit.benchmarks.tind.metrics import COHERENCE_MEASURES
from negkit.benchmarks.tind.types import PATTERN_IDS
from negkit.kit.render import plots
from negkit.kit.render.figures import triple
from negkit.kit.view import Figure


def tind_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Accuracy bars, coherence bars and the per-pattern heatmap (percentages)."""
    accuracy = plots.interval_bars(
        ["all sentences", "input sentences", "distractor sentences"],
        {
            "affirmative": [
                triple(metrics, f"{b}.accuracy")
                for b in ("all_affirmations", "input_affirmation", "distractor_affirmation")
            ],
            "negative": [
                triple(metrics, f"{b}.accuracy") for b in ("all_negations", "input_negation", "distractor_negation")
            ],
        },
        "TIND accuracy by affirmation / negation",
        "accuracy (%)",
        (0, 100),
        reference=50,
    )
    coherence = plots.interval_bars(
        [TIND_LABELS[m].replace("coh. ", "") for m in COHERENCE_MEASURES],
        {"coherence": [triple(metrics, f"coherence_scores.{m}.Coherence_percentage") for m in COHERENCE_MEASURES]},
        "TIND coherence (share of groups)",
        "coherent groups (%)",
        (0, 100),
    )
    patterns = metrics.get("summary", {}).get("patterns", [])
    columns = [
        ("all", "acc. all"),
        ("all_affirmations", "acc. aff"),
        ("all_negations", "acc. neg"),
        ("input_affirmation", "input aff"),
        ("input_negation", "input neg"),
        ("distractor_affirmation", "distr. aff"),
        ("distractor_negation", "distr. neg"),
    ]
    rows = []
    for name in patterns:
        entry = metrics.get(name, {})
        size = lambda bucket, entry=entry: sum(entry.get(bucket, {}).get(k, 0) for k in ("TP", "FP", "FN", "TN"))  # noqa: E731
        row = [entry.get(bucket, {}).get("accuracy") if size(bucket) else None for bucket, _ in columns]
        row += [entry.get("coherence_scores", {}).get(m, {}).get("Coherence_percentage") for m in COHERENCE_MEASURES]
        rows.append(row)
    figures = [
        ("Accuracy by affirmation / negation (95% intervals)", accuracy),
        ("The five coherence measures (95% intervals)", coherence),
    ]
    if rows:
        heat = plots.heatmap(
            rows,
            [f"#{PATTERN_IDS[name]:02d} {name}" for name in patterns],
            [title for _, title in columns] + [TIND_LABELS[m] for m in COHERENCE_MEASURES],
            "TIND per pattern (%)",
            vmin=0,
            vmax=100,
            digits=0,
        )
        figures.append(("Per pattern: accuracy buckets and coherence (%)", heat))
    return figures
