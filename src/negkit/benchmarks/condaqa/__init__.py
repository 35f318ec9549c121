"""CondaQA (Ravichander et al., 2022): questions about passages with a negation cue and their edits (dev split,
1,110 questions; test split, 7,240: ``--split dev`` or ``--split test``, the same protocol and metrics). Tasks: ``condaqa`` (written answers, exact match: the paper's protocol) and ``condaqa-choice``
(log-likelihood of yes / no / don't know); see :mod:`negkit.benchmarks.condaqa.task`. Reader:
:func:`negkit.benchmarks.condaqa.data.read_condaqa`; metrics: :func:`negkit.benchmarks.condaqa.metrics.condaqa_report`; intervals
resample passages.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.condaqa.build import build_test_split
from negkit.benchmarks.condaqa.data import DEV_FILE, TEST_FILE, read_condaqa
from negkit.benchmarks.condaqa.task import CondaQATask
from negkit.benchmarks.condaqa.training import TRAINING
from negkit.kit.data.declared import declared_files
from negkit.kit.render import plots
from negkit.kit.render.figures import triple
from negkit.kit.suites.description import DataSource, SuiteDescription, TaskEntry
from negkit.kit.suites.registry import register_suite
from negkit.kit.view import Figure

#: The papers behind the data and protocol (``negkit cite``).
BIBTEX = r"""@inproceedings{ravichander2022,
  title = {{CONDAQA}: A Contrastive Reading Comprehension Dataset for Reasoning about Negation},
  author = {Ravichander, Abhilasha and Gardner, Matt and Marasovi{\'c}, Ana},
  booktitle = {Proceedings of the 2022 Conference on Empirical Methods in Natural Language Processing},
  year = {2022},
  publisher = {Association for Computational Linguistics}
}"""

NAME = "condaqa"


def condaqa_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Accuracy per passage edit and group consistency, with intervals."""
    edits = list(metrics.get("accuracy_per_edit", {}))
    accuracy = plots.interval_bars(
        ["all", *edits],
        {
            "accuracy": [triple(metrics, "accuracy.accuracy")]
            + [triple(metrics, f"accuracy_per_edit.{edit}.accuracy") for edit in edits]
        },
        "CondaQA accuracy by passage edit",
        "accuracy",
        (0, 1),
    )
    kinds = list(metrics.get("consistency", {}))
    consistency = plots.interval_bars(
        kinds,
        {"consistency": [triple(metrics, f"consistency.{k}.accuracy") for k in kinds]},
        "CondaQA group consistency",
        "consistent groups",
        (0, 1),
    )
    return [
        ("Accuracy overall and per passage edit (95% intervals)", accuracy),
        ("Group consistency: all edits, and the original with each edit (95% intervals)", consistency),
    ]


SUITE = register_suite(
    SuiteDescription(
        name=NAME,
        title="CondaQA",
        tasks=(
            TaskEntry(
                NAME,
                functools.partial(CondaQATask, name=NAME),
                "CondaQA: questions about negated statements, written answers scored by exact match",
            ),
            TaskEntry(
                f"{NAME}-choice",
                functools.partial(CondaQATask, name=f"{NAME}-choice", style="choice"),
                "CondaQA: log-likelihood of yes / no / don't know (span answers count as wrong)",
            ),
        ),
        main_task=NAME,
        training=(TRAINING,),
        data=DataSource(
            NAME,
            f"github AbhilashaRavichander/CondaQA data/{DEV_FILE} (and {TEST_FILE}, the union of "
            "data/few-shot/test_splits/conda_fewshot_test_{1..5}.json) into DATA/condaqa/ "
            "(or the hub data set lasha-nlp/CONDAQA)",
            licence="Apache-2.0 (the repository's LICENSE)",
            files=declared_files(Path(__file__).with_name("files.json")),
            citation="ravichander2022",
            inputs=declared_files(Path(__file__).with_name("inputs.json")),
            build=build_test_split,
        ),
        bibtex=BIBTEX,
        reader=read_condaqa,
        scorer_help="CondaQA: accuracy and group consistency from {item_id or SampleID, prediction (answer text)} lines",
        interval_unit="passage (the original and its edits resampled together)",
        primary_metric="accuracy.accuracy",
        figures=condaqa_figures,
        order=50,
        groups=("negation-all",),
    )
)
