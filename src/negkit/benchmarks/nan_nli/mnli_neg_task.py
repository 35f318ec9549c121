"""The ``mnli-neg`` task: the pairs of ``negkit nan-nli mnli-neg`` scored as NaN-NLI's Table 5 scores MNLI-neg.

The data folder ``mnli-neg`` (under a data root, or ``--data``) holds ``mnli_neg.jsonl``, written by
:func:`negkit.benchmarks.nan_nli.mnli_neg.write_mnli_neg` from a user's copy of MNLI (not distributed with negkit).
Asked as NaN-NLI is (the 3-way prompt and answer words, or an NLI classifier), declared as :data:`MNLI_NEG`.
Metrics: F1 per class, All (support-weighted F1) and accuracy, the confusion matrix normalised by the true label
(and in counts); intervals resample pairs. A run holding ``mnli-neg``, ``negnli-mnli`` and ``nan-nli`` prints Table 5 with its three columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from negkit.benchmarks.nan_nli.citation import MNLI_BIBTEX, NAN_NLI_BIBTEX
from negkit.benchmarks.nan_nli.mnli_neg import read_mnli_neg
from negkit.benchmarks.nan_nli.mnli_neg_build import MNLI_ZIP, build_mnli_neg
from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.kit.metrics.classification import normalised_confusion
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.metrics.nli import check_predictions, setting_scores
from negkit.kit.metrics.nli_intervals import confusion_estimands, setting_estimands
from negkit.kit.render.markdown import interval_note
from negkit.kit.render.nli import confusion_table, f1_table
from negkit.kit.suites.description import DataSource
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.suites.nli import THREE_WAY_ANSWERS, THREE_WAY_PROMPT
from negkit.kit.suites.registry import register_suite
from negkit.kit.tasks.nli_declared import NLIQuestions

NAME = "mnli-neg"
DATA_FILE = "mnli_neg.jsonl"
UNIT = "MNLI-neg pair"


def mnli_neg_report(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, Any]:
    """``standard`` (per_class P/R/F1/support, all_f1, accuracy), ``confusion_matrix`` (normalised by the true
    label) and ``confusion_counts``."""
    check_predictions(items, predicted)
    gold = [item.label for item in items]
    counts = {
        true: {guess: sum(1 for g, p in zip(gold, predicted) if g == true and p == guess) for guess in NLI_LABELS}
        for true in NLI_LABELS
    }
    return {
        "count": len(items),
        "labels": list(NLI_LABELS),
        "standard": asdict(setting_scores(gold, predicted, NLI_LABELS)),
        "confusion_matrix": normalised_confusion(gold, predicted, NLI_LABELS),
        "confusion_counts": counts,
    }


def mnli_neg_estimands(items: Sequence[NLIItem], predicted: Sequence[str]) -> list[Estimand]:
    """Intervals of :func:`mnli_neg_report`'s metrics (same paths), resampling pairs."""
    check_predictions(items, predicted)
    units = [item.item_id for item in items]
    gold = [item.label for item in items]
    estimands = setting_estimands("standard", gold, predicted, units, NLI_LABELS, UNIT, "standard")
    estimands += confusion_estimands(gold, predicted, units, NLI_LABELS, UNIT)
    return estimands


def mnli_neg_tables(metrics: dict[str, Any]) -> str:
    """Markdown for :func:`mnli_neg_report`."""
    intervals = metrics.get("intervals")
    scores = f1_table(metrics["standard"], NLI_LABELS, intervals)
    matrix = confusion_table(metrics, NLI_LABELS, intervals)
    parts = [
        f"### MNLI-neg — {metrics['count']} pairs",
        "F1 per class and All (the NaN-NLI paper's Table 5, column MNLI-neg):",
        scores,
        "Confusion matrix normalised by the true label (the NaN-NLI paper's Figure 1):",
        matrix,
    ]
    note = interval_note(intervals)
    return "\n\n".join(parts + ([note] if note else [])) + "\n"


def _read(folder: Path, split: str) -> list[NLIItem]:
    return read_mnli_neg(folder / DATA_FILE)


def _estimands(items: Sequence[NLIItem], predicted: Sequence[str], headline_only: bool) -> list[Estimand]:
    estimands = mnli_neg_estimands(items, predicted)
    return [estimand for estimand in estimands if estimand.headline or not headline_only]


#: MNLI-neg (all pairs of ``mnli_neg.jsonl``; the split argument is ignored: one test set).
MNLI_NEG = NLIQuestions(
    NAME,
    _read,
    lambda folder, split: [folder / DATA_FILE],
    prompt=THREE_WAY_PROMPT,
    answers=THREE_WAY_ANSWERS,
    metrics=mnli_neg_report,
    estimands=_estimands,
    tables=mnli_neg_tables,
    title="MNLI-neg (NaN-NLI Table 5)",
    description="MNLI-neg: MNLI's pairs with negation (NaN-NLI Table 5; 3-way prompt, or --classifier)",
    headline="standard.all_f1",
)


MNLI_NEG_SUITE = register_suite(
    declared_suite(
        MNLI_NEG,
        DataSource(
            NAME,
            f"negkit nan-nli mnli-neg MNLI_FILE --out DATA/{NAME}/{DATA_FILE} (MNLI is not distributed with negkit: "
            "e.g. multinli_1.0_dev_matched.jsonl of the MNLI release)",
            licence="MNLI's (the MNLI release's terms: mostly OANC, see its paper)",
            citation="truong2022",
            inputs=(MNLI_ZIP,),
            build=build_mnli_neg,
        ),
        aliases=("mnli_neg",),
        bibtex=MNLI_BIBTEX + "\n\n" + NAN_NLI_BIBTEX,
        reader=read_mnli_neg,
        scorer_help="MNLI-neg: F1 per class, All, confusion matrix from {item_id, prediction (label)} lines",
        harness=None,  # negkit export lm-eval leaves it out
        order=31,
    )
)
