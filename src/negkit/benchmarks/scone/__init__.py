"""ScoNe-NLI (She et al., 2023): scoped negation in NLI, six conditions of the same base pairs.

Asked with the prompt Thunder-NUBench used (``Assume that {premise}\\nIs it then definitely true that
{hypothesis}?\\nAnswer yes or no.\\nAnswer:``, answers ``Yes`` = entailment and ``No`` = neutral) or with an NLI
classifier (a contradiction counts as neutral: ScoNe's gold labels are entailment and neutral), declared as
:class:`negkit.kit.tasks.nli_declared.NLIQuestions` (:data:`SCONE`, :data:`SCONE_TASKSOURCE`). Reader: :func:`negkit.benchmarks.scone.data.read_scone`; metrics:
:func:`negkit.benchmarks.scone.metrics.scone_accuracy`; intervals resample base pairs. A predictions file for
``negkit score`` names each pair by ``item_id`` or by ``condition`` and ``row`` (test split); ``yes`` and ``no``
are read as entailment and neutral, and a contradiction counts as neutral.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from negkit.benchmarks.scone.data import (
    SCONE_CONDITIONS,
    parse_conditions,
    read_scone,
    scone_split_folder,
)
from negkit.benchmarks.scone.intervals import scone_estimands
from negkit.benchmarks.scone.metrics import scone_accuracy
from negkit.benchmarks.scone.tables import scone_tables
from negkit.kit.data.declared import declared_files
from negkit.kit.data.nli import NLIItem
from negkit.kit.data.predictions import string, whole_number
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.render import plots
from negkit.kit.render.figures import triple
from negkit.kit.suites.description import DataSource, task_flag
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.suites.registry import register_suite
from negkit.kit.tasks.nli_declared import NLIQuestions, TaskOption, neutral_for_contradiction
from negkit.kit.training_data.declaration import register_training
from negkit.kit.training_data.task_source import nli_negated, premise_key, sick_pairs, task_training_source
from negkit.kit.view import Figure

#: The papers behind the data and protocol (``negkit cite``).
BIBTEX = r"""@inproceedings{she2023,
  title = {{ScoNe}: Benchmarking Negation Reasoning in Language Models With Fine-Tuning and In-Context Learning},
  author = {She, Jingyuan Selena and Potts, Christopher and Bowman, Samuel R. and Geiger, Atticus},
  booktitle = {Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics (Volume 2: Short Papers)},
  year = {2023},
  publisher = {Association for Computational Linguistics}
}"""

NAME = "scone"
#: The task of the tasksource layout (Thunder-NUBench's Table 16).
TASKSOURCE_TASK = "scone-tasksource"
PROMPT = "Assume that {premise}\nIs it then definitely true that {hypothesis}?\nAnswer yes or no.\nAnswer:"
ANSWERS: dict[str, str] = {"Yes": "entailment", "No": "neutral"}
#: Predicted answers read as labels in a predictions file.
WORDS: dict[str, str] = {"yes": "entailment", "no": "neutral", "contradiction": "neutral"}
_ITEM_ID = re.compile(r"scone-\w+-(?P<condition>\w+)-(?P<row>\d+)$")


def scone_metrics(items: Sequence[NLIItem], predictions: Sequence[str]) -> dict[str, Any]:
    """Accuracy per condition and overall (what ``negkit eval`` and ``negkit score`` both report)."""
    return {"count": len(items), "accuracy": scone_accuracy(items, predictions)}


def scone_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Accuracy per condition and overall."""
    conditions = [c for c in (*SCONE_CONDITIONS, "overall") if c in metrics.get("accuracy", {})]
    labels = [condition.replace("_scoped_one_", "_scoped, one_").replace("_", " ") for condition in conditions]
    bars = plots.interval_bars(
        labels,
        {"accuracy": [triple(metrics, f"accuracy.{c}") for c in conditions]},
        "ScoNe-NLI accuracy per condition",
        "accuracy",
        (0, 1),
        reference=0.5,
        width=7.2,
        wrap=10,
    )
    return [("Accuracy per condition (95% intervals; dashed: chance)", bars)]


def _read(folder: Path, split: str) -> list[NLIItem]:
    return list(read_scone(folder, split))


def _files(folder: Path, split: str) -> list[Path]:
    return [scone_split_folder(folder, split) / f"{condition}.csv" for condition in SCONE_CONDITIONS]


def _asked(item: NLIItem, options: Mapping[str, Any]) -> bool:
    """Every condition is read (the files are checked against each other); the chosen ones are kept."""
    return item.condition in options["conditions"]


def _limit(items: list[NLIItem], limit: int, options: Mapping[str, Any]) -> list[NLIItem]:
    """The first ``ceil(limit / C)`` rows of each of the C conditions asked (the same base pairs in each)."""
    rows = -(-limit // len(options["conditions"]))
    return [item for item in items if item.row < rows]


def _item_id_from(path: Path, line: int, record: Mapping[str, Any]) -> str | None:
    """``{"condition": "one_scoped", "row": 3}``: that condition's pair of base pair 3 (test split)."""
    if "condition" in record and "row" in record:
        return f"scone-test-{string(path, line, record, 'condition')}-{whole_number(path, line, record, 'row'):04d}"
    return None


def _estimands(items: Sequence[NLIItem], predicted: Sequence[str], headline_only: bool) -> list[Estimand]:
    """The accuracies (all headline), resampling base pairs (:mod:`negkit.benchmarks.scone.intervals`)."""
    return scone_estimands(items, predicted)


def _scored_metrics(metrics: dict[str, Any], items: Sequence[NLIItem]) -> dict[str, Any]:
    """``negkit score``'s metrics: the pairs predicted and the pairs in the data first."""
    return {"count": metrics["count"], "data_count": len(items), **metrics}


def _conditions_entry(conditions: tuple[str, ...]) -> list[str] | None:
    """``conditions`` in the task's config only when some are left out (a run of all six reads as before)."""
    return None if conditions == SCONE_CONDITIONS else list(conditions)


#: ``--scone-conditions``: the conditions asked (:func:`negkit.benchmarks.scone.data.parse_conditions`).
CONDITIONS = TaskOption("conditions", None, parse_conditions, _conditions_entry)

#: ScoNe-NLI, the six conditions of ``split`` (``test`` by default, or ``train``), or the ``conditions`` named
#: (``tasksource`` is the five-condition layout that Thunder-NUBench's Table 16 used; ``--scone-conditions``).
SCONE = NLIQuestions(
    NAME,
    _read,
    _files,
    prompt=PROMPT,
    answers=ANSWERS,
    metrics=scone_metrics,
    estimands=_estimands,
    tables=scone_tables,
    unit="base pair (the six conditions of one pair resampled together)",
    splits=("train", "test"),
    fit_label=neutral_for_contradiction,
    prediction_words=WORDS,
    item_id_from=_item_id_from,
    item_id_alternatives=" (or 'condition' and 'row')",
    item_id_pattern=_ITEM_ID,  # samples written before records held the condition and row
    options=(CONDITIONS,),
    keep=_asked,
    limit=_limit,
    scored_metrics=_scored_metrics,
    title="ScoNe-NLI",
    description="ScoNe-NLI: scoped negation, six conditions (yes/no prompt, or --classifier)",
    headline="accuracy.overall",
    figures=scone_figures,
)
#: ScoNe-NLI in the tasksource layout that Thunder-NUBench's Table 16 used: the five conditions other than
#: ``one_scoped`` (1,000 test pairs); ``--scone-conditions`` still chooses others.
SCONE_TASKSOURCE = replace(
    SCONE,
    name=TASKSOURCE_TASK,
    dataset=NAME,
    options=(replace(CONDITIONS, default="tasksource"),),
    description="ScoNe-NLI as tasksource lays it out (Thunder-NUBench Table 16): five conditions, one_scoped left out",
)


def conditions_value(text: str) -> str | dict[str, str]:
    """``--scone-conditions``' value: ``CONDITIONS`` for every task asked, or ``TASK=CONDITIONS`` for one task (the
    conditions may hold commas: ``scone=no_negation,two_scoped``), so that other tasks can be asked beside it."""
    task, separator, value = text.partition("=")
    if separator and task.strip() and "," not in task:
        return {task.strip(): value.strip()}
    return text


def _row(item: NLIItem) -> str:
    return f"row:{item.row}"


def _negated(item: NLIItem) -> bool:
    return item.condition != "no_negation"


_CONTENT_FREE = NLIItem("content-free", "N/A", "N/A", "entailment", NAME)
#: ScoNe's train split (in-distribution for ScoNe), and SICK asked in ScoNe's format (contradiction: "No").
TRAINING = (
    task_training_source(
        NAME,
        "ScoNe-NLI's train split (6 conditions x 1,002 pairs) in its evaluation prompt",
        SCONE.task,
        split="train",
        pair=_row,
        negated=_negated,
        content_free_item=_CONTENT_FREE,
        in_distribution=NAME,
    ),
    task_training_source(
        f"sick@{NAME}",
        "SICK's pairs in ScoNe's yes/no prompt (training data only)",
        SCONE.task,
        read=sick_pairs,
        pair=premise_key,
        negated=nli_negated,
        content_free_item=_CONTENT_FREE,
    ),
)

SUITE = register_suite(
    declared_suite(
        SCONE,
        DataSource(
            NAME,
            "github selenashe/ScoNe scone_nli/ into DATA/scone/scone_nli/",
            licence="CC0 1.0 (the repository's LICENSE)",
            files=declared_files(Path(__file__).with_name("files.json")),
            citation="she2023",
        ),
        more=(SCONE_TASKSOURCE,),
        aliases=("scone-nli",),
        bibtex=BIBTEX,
        reader=read_scone,
        scorer_help="ScoNe-NLI: accuracy per condition and overall from {item_id, prediction} lines",
        task_harness={},  # scone-tasksource has no Harness export of its own
        task_flags=(
            task_flag(
                "--scone-conditions",
                option="conditions",
                type=conditions_value,
                metavar="[TASK=]all|tasksource|CONDITION,...",
                help="ScoNe: the conditions asked: all six (default of scone), tasksource (the five of the "
                "tasksource layout that Thunder-NUBench's Table 16 used: all but one_scoped; default of "
                f"scone-tasksource), or names separated by commas ({', '.join(SCONE_CONDITIONS)}); "
                "scone=CONDITIONS when other tasks are asked too",
            ),
        ),
        order=40,
        groups=("negation-all",),
    )
)
register_training(SUITE, sources=TRAINING)
