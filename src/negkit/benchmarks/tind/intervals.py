"""Which TIND metrics get a confidence interval, and how: every accuracy bucket (overall, per negation
analysis value, per pattern), every coherence measure (overall and per pattern) and, given p(True), every ROC AUC
of p(True) (overall and per pattern), resampling whole groups.

Sentences of a group share their synsets and template, so the group ``(pattern_id, group_id)`` is the unit:
an accuracy is a mean over sentences clustered by group, a coherence percentage a mean over groups. Paths
are those of :func:`negkit.benchmarks.tind.metrics.tind_metrics`' result (``all.accuracy``,
``coherence_scores.All.Coherence_percentage``, ``Synonymy1.all_negations.accuracy``, ...); values are
percentages, as the authors print them (unrounded here).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from negkit.benchmarks.tind.metrics import (
    ACCURACY_BUCKETS,
    AUC_VIEWS,
    COHERENCE_MEASURES,
    COHERENT,
    NEGATION_SCOPES,
    group_coherence,
)
from negkit.benchmarks.tind.types import AFFIRMATION, PATTERN_NAMES, TruthItem
from negkit.kit.metrics.auc import auc_estimand
from negkit.kit.metrics.intervals import Estimand, ratio_estimand

UNIT = "TIND group"
_NOT_NEGATION = ("affirmation", "none")
#: Short labels of the headline metrics (Table 4's columns).
LABELS: dict[str, str] = {
    "all": "acc. all",
    "all_affirmations": "acc. aff",
    "all_negations": "acc. neg",
    "input_affirmation": "acc. input aff",
    "input_negation": "acc. input neg",
    "distractor_affirmation": "acc. distr. aff",
    "distractor_negation": "acc. distr. neg",
    "All": "coh. All",
    "Affirmation-Negation_Input": "coh. aff-neg input",
    "Affirmation-Negation_Distractor": "coh. aff-neg distr.",
    "Input-Distractor_Affirmation": "coh. input-distr. aff",
    "Input-Distractor_Negation": "coh. input-distr. neg",
}
#: Short labels of the ROC AUC views of p(True) (:data:`negkit.benchmarks.tind.metrics.AUC_VIEWS`).
AUC_LABELS: dict[str, str] = {
    "all": "AUC p(True)",
    "affirmations": "AUC aff",
    "negations": "AUC neg",
    "inputs": "AUC input",
    "distractors": "AUC distr.",
    "input_vs_distractor_affirmations": "AUC input vs distr., aff",
    "input_vs_distractor_negations": "AUC input vs distr., neg",
}


def _bucket_masks(items: Sequence[TruthItem]) -> dict[str, np.ndarray]:
    """Membership of every item in each accuracy bucket of :data:`ACCURACY_BUCKETS`."""
    negated = np.array([item.negation_type != AFFIRMATION for item in items], dtype=bool)
    distractor = np.array([item.is_distractor for item in items], dtype=bool)
    every = np.ones(len(items), dtype=bool)
    return {
        "all": every,
        "all_affirmations": ~negated,
        "all_negations": negated,
        "input_affirmation": ~distractor & ~negated,
        "input_negation": ~distractor & negated,
        "distractor_affirmation": distractor & ~negated,
        "distractor_negation": distractor & negated,
    }


def _negation_masks(items: Sequence[TruthItem]) -> dict[str, np.ndarray]:
    """Membership in the ``Negation_analysis`` buckets (``VALUE_all``, ``VALUE_input``, ``VALUE_distractor``)."""
    masks: dict[str, np.ndarray] = {}
    for position, item in enumerate(items):
        scope = "distractor" if item.is_distractor else "input"
        for raw in (item.negation_type, item.semantic_type, item.syntactic_scope):
            value = raw.strip().lower()
            if value in _NOT_NEGATION:
                continue
            for name in (f"{value}_all", f"{value}_{scope}"):
                masks.setdefault(name, np.zeros(len(items), dtype=bool))[position] = True
    return masks


def tind_estimands(
    items: Sequence[TruthItem], predictions: Sequence[bool], p_true: Sequence[float] | None = None
) -> list[Estimand]:
    """Every interval of a TIND run: accuracies clustered by group, coherence over groups, and with ``p_true`` the
    ROC AUCs of p(True) clustered by group (see the module doc); the AUC of all sentences is a headline metric."""
    if len(items) != len(predictions):
        raise ValueError(f"{len(predictions)} predictions for {len(items)} items")
    correct = np.array([bool(p) == item.label for item, p in zip(items, predictions)], dtype=float)
    units = [item.group_key for item in items]
    patterns = np.array([item.pattern_id for item in items])
    estimands: list[Estimand] = []

    def accuracy(path: str, mask: np.ndarray, label: str, headline: bool = False) -> None:
        estimands.append(ratio_estimand(path, correct * mask, mask.astype(float), units, UNIT, 100.0, label, headline))

    buckets = _bucket_masks(items)
    for bucket in ACCURACY_BUCKETS:
        accuracy(f"{bucket}.accuracy", buckets[bucket], LABELS[bucket], headline=True)
    for name, mask in _negation_masks(items).items():
        for scope in NEGATION_SCOPES:
            if name.endswith(f"_{scope}"):
                accuracy(f"Negation_analysis.{name}.accuracy", mask, name)
    for pattern_id in sorted(set(patterns.tolist())):
        in_pattern = patterns == pattern_id
        for bucket in ACCURACY_BUCKETS:
            accuracy(f"{PATTERN_NAMES[pattern_id]}.{bucket}.accuracy", buckets[bucket] & in_pattern, LABELS[bucket])
    estimands += coherence_estimands(items, predictions)
    if p_true is not None:
        estimands += auc_estimands(items, p_true)
    return estimands


def auc_estimands(items: Sequence[TruthItem], p_true: Sequence[float]) -> list[Estimand]:
    """The ROC AUC of p(True) in every view, over all sentences and per pattern (paths ``p_true_auc.VIEW`` and
    ``PATTERN.p_true_auc.VIEW``), resampling whole groups."""
    if len(items) != len(p_true):
        raise ValueError(f"{len(p_true)} p(True) values for {len(items)} items")
    estimands = []
    for pattern_id in [None, *sorted({item.pattern_id for item in items})]:
        prefix = "" if pattern_id is None else f"{PATTERN_NAMES[pattern_id]}."
        for view, (keep, positive) in AUC_VIEWS.items():
            chosen = [
                (item, score)
                for item, score in zip(items, p_true)
                if keep(item) and (pattern_id is None or item.pattern_id == pattern_id)
            ]
            if not chosen:
                continue
            estimands.append(
                auc_estimand(
                    f"{prefix}p_true_auc.{view}",
                    [score for _, score in chosen],
                    [positive(item) for item, _ in chosen],
                    [item.group_key for item, _ in chosen],
                    UNIT,
                    AUC_LABELS[view],
                    headline=pattern_id is None and view == "all",
                )
            )
    return estimands


def coherence_estimands(items: Sequence[TruthItem], predictions: Sequence[bool]) -> list[Estimand]:
    """The five coherence measures over all groups and per pattern: one row per group, the group its unit."""
    groups: dict[tuple[int, int], tuple[list[TruthItem], list[bool]]] = {}
    for item, prediction in zip(items, predictions):
        group_items, group_predictions = groups.setdefault(item.group_key, ([], []))
        group_items.append(item)
        group_predictions.append(bool(prediction))
    keys = list(groups)
    verdicts = [group_coherence(key[0], *groups[key]) for key in keys]
    group_patterns = np.array([key[0] for key in keys])
    estimands = []
    for measure in COHERENCE_MEASURES:
        coherent = np.array([verdict[measure] == COHERENT for verdict in verdicts], dtype=float)
        path = f"coherence_scores.{measure}.Coherence_percentage"
        estimands.append(ratio_estimand(path, coherent, None, keys, UNIT, 100.0, LABELS[measure], headline=True))
        for pattern_id in sorted(set(group_patterns.tolist())):
            mask = (group_patterns == pattern_id).astype(float)
            estimands.append(
                ratio_estimand(
                    f"{PATTERN_NAMES[pattern_id]}.{path}", coherent * mask, mask, keys, UNIT, 100.0, LABELS[measure]
                )
            )
    return estimands
