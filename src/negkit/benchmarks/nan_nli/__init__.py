"""NaN-NLI (Truong et al., 2022): sub-clausal negation in NLI, 258 pairs.

Asked with negkit's 3-way prompt (the label words ``entailment``, ``contradiction`` and ``neutral`` scored after
it) or with an NLI classifier, declared as :data:`NAN_NLI` (:class:`negkit.kit.tasks.nli_declared.NLIQuestions`). Reader:
:func:`negkit.benchmarks.nan_nli.data.read_nan_nli`; metrics: :func:`negkit.benchmarks.nan_nli.metrics.nan_nli_report`
(standard, binary and strict settings, breakdowns, NaN-Quant, confusion); intervals resample premises. A
predictions file for ``negkit score`` names each pair by ``item_id`` (``nan-017``) or ``index`` (17, the 0-based
data row). The ``mnli-neg`` suite (:data:`MNLI_NEG_SUITE`) scores MNLI's own pairs with negation, the first column of the paper's
Table 5 (:mod:`negkit.benchmarks.nan_nli.mnli_neg`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from negkit.benchmarks.nan_nli.citation import NAN_NLI_BIBTEX
from negkit.benchmarks.nan_nli.data import NEGATION_TYPES, NaNNLIItem, read_nan_nli
from negkit.benchmarks.nan_nli.intervals import nan_nli_estimands
from negkit.benchmarks.nan_nli.metrics import nan_nli_report
from negkit.benchmarks.nan_nli.mnli_neg_task import MNLI_NEG_SUITE as MNLI_NEG_SUITE  # registers the suite
from negkit.benchmarks.nan_nli.recipes import RECIPES
from negkit.benchmarks.nan_nli.stats import nan_nli_data_statistics
from negkit.benchmarks.nan_nli.tables import nan_nli_tables
from negkit.kit.data.declared import declared_files
from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.kit.data.predictions import whole_number
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.render import plots
from negkit.kit.render.figures import triple
from negkit.kit.suites.description import DataSource
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.suites.nli import THREE_WAY_ANSWERS, THREE_WAY_PROMPT
from negkit.kit.suites.registry import register_suite
from negkit.kit.tasks.nli_declared import NLIQuestions
from negkit.kit.training_data.declaration import register_training
from negkit.kit.training_data.task_source import nli_negated, premise_key, sick_pairs, task_training_source
from negkit.kit.view import Figure

NAME = "nan-nli"
DATA_FILE = "nan.csv"
PROMPT = THREE_WAY_PROMPT
ANSWERS = THREE_WAY_ANSWERS


def _nan_items(items: Sequence[NLIItem]) -> Sequence[NaNNLIItem]:
    # the items of NaN-NLI's task are those its reader returns: NaN-NLI pairs
    return cast("Sequence[NaNNLIItem]", items)


def _read(folder: Path, split: str) -> list[NLIItem]:
    return list(read_nan_nli(folder / DATA_FILE))


def _item_id_from(path: Path, line: int, record: Mapping[str, Any]) -> str | None:
    """``{"index": 17}``: the 0-based data row."""
    return f"nan-{whole_number(path, line, record, 'index'):03d}" if "index" in record else None


def _metrics(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, Any]:
    return nan_nli_report(_nan_items(items), predicted)


def _estimands(items: Sequence[NLIItem], predicted: Sequence[str], headline_only: bool) -> list[Estimand]:
    """Every metric's estimand, resampling premises (:mod:`negkit.benchmarks.nan_nli.intervals`); the standard,
    binary and strict settings are the headline. Samples written before premise ids were recorded make items
    their own units, and strict accuracy (per premise) is then unknown."""
    estimands = nan_nli_estimands(_nan_items(items), predicted, headline_only)
    if not any(item.premise_id for item in items):
        estimands = [estimand for estimand in estimands if not estimand.path.startswith("strict.")]
    return estimands


def _counts_matrix(metrics: dict[str, Any]) -> dict[str, dict[str, float]]:
    """The standard confusion matrix in counts (normalised rows times the class supports)."""
    support = {label: metrics["standard"]["per_class"][label]["support"] for label in NLI_LABELS}
    return {
        true: {guess: metrics["confusion_matrix"][true][guess] * support[true] for guess in NLI_LABELS}
        for true in NLI_LABELS
    }


def nan_nli_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Confusion matrices (standard, binary) and macro F1 per negation type."""
    confusion = metrics["confusion_matrix"]
    standard = plots.heatmap(
        [[confusion[t][g] for g in NLI_LABELS] for t in NLI_LABELS],
        NLI_LABELS,
        NLI_LABELS,
        "standard: true (rows) vs predicted",
        vmin=0,
        vmax=1,
    )
    counts = _counts_matrix(metrics)
    not_entailment = ("contradiction", "neutral")
    cells = {
        ("entailment", "entailment"): counts["entailment"]["entailment"],
        ("entailment", "not_entailment"): sum(counts["entailment"][g] for g in not_entailment),
        ("not_entailment", "entailment"): sum(counts[t]["entailment"] for t in not_entailment),
        ("not_entailment", "not_entailment"): sum(counts[t][g] for t in not_entailment for g in not_entailment),
    }
    binary_labels = ("entailment", "not_entailment")
    rows = []
    for true in binary_labels:
        total = sum(cells[(true, g)] for g in binary_labels)
        rows.append([cells[(true, g)] / total if total else None for g in binary_labels])
    binary = plots.heatmap(rows, binary_labels, binary_labels, "binary: true (rows) vs predicted", vmin=0, vmax=1)
    kinds = [
        k
        for k in (*NEGATION_TYPES, "No negation")
        if k in metrics.get("premise_negation_type", {}) or k in metrics.get("hypothesis_negation_type", {})
    ]
    types = plots.interval_bars(
        kinds,
        {side: [triple(metrics, f"{side}_negation_type.{k}.f1") for k in kinds] for side in ("premise", "hypothesis")},
        "NaN-NLI macro F1 by negation type",
        "macro F1",
        (0, 1),
        width=8.0,
    )
    return [
        ("Confusion matrix, standard setting (normalised by the true label)", standard),
        ("Confusion matrix, binary setting (normalised by the true label)", binary),
        ("Macro F1 by the negation type of the premise and of the hypothesis (95% intervals)", types),
    ]


#: NaN-NLI (all 258 pairs; the split argument is ignored: the suite is a single test set).
NAN_NLI = NLIQuestions(
    NAME,
    _read,
    lambda folder, split: [folder / DATA_FILE],
    prompt=PROMPT,
    answers=ANSWERS,
    metrics=_metrics,
    estimands=_estimands,
    tables=nan_nli_tables,
    unit="premise (all pairs sharing a premise resampled together)",
    item_id_from=_item_id_from,
    item_id_alternatives=" (or 'index')",
    title="NaN-NLI",
    description="NaN-NLI: sub-clausal negation NLI (3-way prompt, or --classifier)",
    headline="standard.all_f1",
    figures=nan_nli_figures,
)


#: SICK's pairs asked in NaN-NLI's 3-way prompt (NaN-NLI itself is never trained on).
TRAINING = (
    task_training_source(
        "sick@nan-nli",
        "SICK's pairs in NaN-NLI's 3-way prompt (training data only; also NegNLI's 3-way prompt)",
        NAN_NLI.task,
        read=sick_pairs,
        pair=premise_key,
        negated=nli_negated,
        content_free_item=NLIItem("content-free", "N/A", "N/A", "neutral", "nan-nli"),
    ),
)

SUITE = register_suite(
    declared_suite(
        NAN_NLI,
        DataSource(
            NAME,
            f"github joey234/nan-nli data/{DATA_FILE} into DATA/nan-nli/{DATA_FILE}",
            licence="none stated by the authors (github joey234/nan-nli)",
            files=declared_files(Path(__file__).with_name("files.json")),
            citation="truong2022",
        ),
        aliases=("nan_nli", "nannli"),
        bibtex=NAN_NLI_BIBTEX,
        reader=read_nan_nli,
        scorer_help="NaN-NLI: standard/binary/strict, breakdowns, NaN-Quant, confusion from {item_id, prediction} lines",
        statistics=nan_nli_data_statistics,
        order=30,
        groups=("negation-all",),
    )
)
register_training(SUITE, sources=TRAINING, recipes=RECIPES)
