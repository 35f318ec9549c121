"""NegNLI (Hossain et al., EMNLP 2020): NLI pairs with negation added to the main verb, from MNLI, SNLI (3-way) and RTE
(2-way), 1,500 pairs each; the MNLI file is the "NegNLI" column of the NaN-NLI paper's Table 5 and Figure 1.

Three tasks, one per file: ``negnli-mnli`` and ``negnli-snli`` (3-way: the NaN-NLI prompt and its answer words
``entailment``, ``contradiction``, ``neutral``) and ``negnli-rte`` (2-way: :data:`RTE_PROMPT`, answers ``yes``
(entailment) and ``no`` (not_entailment)), declared in :data:`DECLARED`; ``--tasks negnli`` runs the three. Each answer word is scored as the
continuation ``" " + word`` (no delimiter after a chat template), the arg-max is the prediction. A classifier reads
``(premise, hypothesis)``; on RTE a two-label classifier (entailment / not_entailment) is read as it is, a
three-label one (MNLI) has contradiction and neutral merged into not_entailment (NaN-NLI's binary setting).
Reader: :func:`negkit.benchmarks.negnli.data.read_negnli`; metrics: :mod:`negkit.benchmarks.negnli.metrics` (per-class F1, All =
support-weighted F1, accuracy, confusion matrix, accuracy by where negation was added); intervals resample the
original pairs (each gave three rows). A run holding ``negnli-mnli`` and ``nan-nli`` also gets the NaN-NLI paper's
Table 5 and Figure 1 (:func:`table5_section`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.negnli.data import NEGNLI_SOURCES, read_negnli
from negkit.benchmarks.negnli.metrics import negnli_estimands, negnli_report
from negkit.benchmarks.negnli.tables import confusion_heatmap, negnli_tables, table5_figures, table5_markdown
from negkit.errors import InputFormatError
from negkit.io.textfiles import iter_json_objects
from negkit.kit.data.declared import declared_files
from negkit.kit.data.nli import NLIItem
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.metrics.nli import to_binary
from negkit.kit.render import plots
from negkit.kit.render.figures import triple
from negkit.kit.suites.description import DataSource
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.suites.nli import THREE_WAY_ANSWERS, THREE_WAY_PROMPT
from negkit.kit.suites.registry import register_suite
from negkit.kit.tasks.nli_declared import NLIQuestions, unchanged
from negkit.kit.training_data.declaration import register_training
from negkit.kit.training_data.task_source import nli_negated, premise_key, sick_pairs, task_training_source
from negkit.kit.view import Figure, RunSection

#: The papers behind the data and protocol (``negkit cite``).
BIBTEX = r"""@inproceedings{hossain2020,
  title = {An Analysis of Natural Language Inference Benchmarks through the Lens of Negation},
  author = {Hossain, Md Mosharaf and Kovatchev, Venelin and Dutta, Pranoy and Kao, Tiffany and Wei, Elizabeth and Blanco, Eduardo},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics},
  year = {2020},
  publisher = {Association for Computational Linguistics}
}"""

NAME = "negnli"
RTE_PROMPT = (
    "Premise: {premise}\nHypothesis: {hypothesis}\nDoes the premise entail the hypothesis? Answer yes or no.\nAnswer:"
)
RTE_ANSWERS: dict[str, str] = {"yes": "entailment", "no": "not_entailment"}
#: Task name -> the title its tables use.
TITLES: dict[str, str] = {f"{NAME}-{source}": f"NegNLI-{source.upper()}" for source in NEGNLI_SOURCES}
_ITEM_ID = re.compile(r"negnli-(?P<source>[a-z]+)-\d+$")
#: Answers a predictions file may give on RTE, read as NLI labels (then merged: entailment vs the rest).
_RTE_WORDS = {"not_entailment": "neutral", "not entailment": "neutral", "yes": "entailment", "no": "neutral"}


def negnli_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """The confusion matrix (Figure 1 of the NaN-NLI paper) and F1 per class and All."""
    labels = metrics["labels"]
    source = metrics.get("source", "NegNLI")
    f1 = plots.interval_bars(
        [*labels, "All"],
        {
            "F1": [triple(metrics, f"standard.per_class.{label}.f1") for label in labels]
            + [triple(metrics, "standard.all_f1")]
        },
        f"{source}: F1 per class and All",
        "F1",
        (0, 1),
    )
    return [
        ("Confusion matrix normalised by the true label", confusion_heatmap(metrics, source)),
        ("F1 per class and All (support-weighted; 95% intervals)", f1),
    ]


def _whole_pairs(items: list[NLIItem], limit: int, options: Mapping[str, Any]) -> list[NLIItem]:
    """The first ``limit`` pairs, rounded up to whole original pairs (their three rows stay together)."""
    keep = {item.premise_id for item in items[:limit]}
    return [item for item in items if item.premise_id in keep]


def _file_named(path: Path) -> NLIQuestions | None:
    """The declaration of the file whose items a predictions file names (``negnli-SOURCE-N``; None: none named):
    each file is scored apart (items of two files are an error)."""
    sources = {
        match["source"]
        for _line, record in iter_json_objects(path)
        if isinstance(record.get("item_id"), str)
        and (match := _ITEM_ID.match(record["item_id"]))
        and match["source"] in NEGNLI_SOURCES
    }
    if len(sources) > 1:
        raise InputFormatError(
            path,
            None,
            "predictions for NegNLI name items of one file (negnli-mnli-N, "
            f"negnli-snli-N or negnli-rte-N); found {', '.join(sorted(sources))}: score each "
            "file apart",
        )
    return DECLARED[f"{NAME}-{sources.pop()}"] if sources else None


def _declared(source: str) -> NLIQuestions:
    """One NegNLI file (``source``: mnli, snli or rte); all 1,500 pairs, a single test set. On RTE a predictions
    file may answer with the answer words or ``not_entailment``, and contradiction or neutral count as
    not_entailment."""
    file, labels = NEGNLI_SOURCES[source]
    name, two_way = f"{NAME}-{source}", source == "rte"

    def metrics(items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, Any]:
        return negnli_report(items, predicted, labels) | {"source": TITLES[name]}

    def estimands(items: Sequence[NLIItem], predicted: Sequence[str], headline_only: bool) -> list[Estimand]:
        """Every metric's estimand, resampling original pairs (:mod:`negkit.benchmarks.negnli.metrics`); All,
        accuracy and balanced accuracy are the headline."""
        found = negnli_estimands(items, predicted, labels)
        return [estimand for estimand in found if estimand.headline or not headline_only]

    return NLIQuestions(
        name,
        lambda folder, split: read_negnli(folder / file, source),
        lambda folder, split: [folder / file],
        dataset="negation-nli",
        prompt=RTE_PROMPT if two_way else THREE_WAY_PROMPT,
        answers=RTE_ANSWERS if two_way else THREE_WAY_ANSWERS,
        metrics=metrics,
        estimands=estimands,
        tables=negnli_tables,
        unit="original pair (its three negated rows resampled together)",
        labels=labels,
        fit_label=to_binary if two_way else unchanged,
        prediction_words=_RTE_WORDS if two_way else {},
        for_predictions=_file_named,
        limit=_whole_pairs,
        protocol={"labels": list(labels)},
        title=TITLES[name],
        headline="standard.all_f1",
        figures=negnli_figures,
        description=f"NegNLI-{source.upper()}: NLI pairs with negation ({'2' if two_way else '3'}-way prompt, or "
        "--classifier)",
    )


#: Task name -> its declaration, one per file.
DECLARED: dict[str, NLIQuestions] = {f"{NAME}-{source}": _declared(source) for source in NEGNLI_SOURCES}


def table5_section(results: Sequence[Mapping[str, Any]]) -> RunSection | None:
    """The NaN-NLI paper's Table 5 and Figure 1 when a run holds ``negnli-mnli`` and ``nan-nli``."""
    markdown = table5_markdown(results)
    if markdown is None:
        return None
    return RunSection("NaN-NLI paper: Table 5 and Figure 1", markdown, lambda: table5_figures(results))


def nli_training_pairs(path: Path) -> list[tuple[str, str, str]] | None:
    """A NegNLI file as NLI training pairs for ``negkit finetune --model nli:...`` (None: another layout)."""
    if path.suffix != ".txt":
        return None
    return [(item.premise, item.hypothesis, item.label) for item in read_negnli(path)]


#: SICK's pairs asked in NegNLI-RTE's 2-way prompt (NegNLI itself is never trained on).
TRAINING = (
    task_training_source(
        f"sick@{NAME}-rte",
        "SICK's pairs in NegNLI-RTE's yes/no prompt (training data only)",
        DECLARED[f"{NAME}-rte"].task,
        read=sick_pairs,
        pair=premise_key,
        negated=nli_negated,
        content_free_item=NLIItem("content-free", "N/A", "N/A", "entailment", "negnli"),
    ),
)


SUITE = register_suite(
    declared_suite(
        DECLARED[f"{NAME}-mnli"],
        DataSource(
            "negation-nli",
            "github mosharafhossain/negation-and-nli data/new_benchmarks/clean_data/"
            "{MNLI,SNLI,RTE}.txt into DATA/negation-nli/",
            licence="MIT (the repository's LICENSE.md)",
            files=declared_files(Path(__file__).with_name("files.json")),
            citation="hossain2020",
        ),
        title="NegNLI (Hossain et al. 2020)",
        more=(DECLARED[f"{NAME}-snli"], DECLARED[f"{NAME}-rte"]),
        name=NAME,
        aliases=("negation-nli",),
        bibtex=BIBTEX,
        reader=read_negnli,
        scorer_help="NegNLI: F1 per class, All, confusion matrix of one file from {item_id, prediction (label)} lines",
        run_sections=table5_section,
        order=45,
        groups=("negation-all",),
    )
)
register_training(SUITE, sources=TRAINING, nli_pairs=nli_training_pairs)
