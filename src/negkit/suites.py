"""The benchmark suites ``negkit eval`` runs when no task is named, and where their data is.

Each suite has one main task (its authors' protocol). :func:`suite_status` says, for every suite, where its data
was found or how to get it; :func:`default_tasks` is the main tasks whose data was found.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from negkit.data.locate import locate_dataset
from negkit.errors import DataNotFoundError
from negkit.tasks.base import get_task, registered_tasks

#: Suite -> (main task, how to get its data).
SUITES: dict[str, tuple[str, str]] = {
    "tind": ("tind", "the authors' release (HiTZ/This-is-not-a-dataset) or raw-public.zip in DATA/tind/"),
    "thunder-nubench": (
        "nubench",
        "gated hub data set thunder-research-group/SNU_Thunder-NUBench (accept its licence, log in), or a local "
        "copy DATA/thunder-nubench/multiple-choice/{validation,test}.jsonl; tests/fixtures/thunder_nubench is a "
        "hand-written sample in that layout",
    ),
    "nan-nli": ("nan-nli", "github joey234/nan-nli data/nan.csv into DATA/nan-nli/nan.csv"),
    "scone": ("scone", "github selenashe/ScoNe scone_nli/ into DATA/scone/scone_nli/"),
    "condaqa": ("condaqa", "github AbhilashaRavichander/CondaQA data/condaqa_dev.json into DATA/condaqa/ "
                "(or the hub data set lasha-nlp/CONDAQA)"),
}
#: Tasks that can also run with a sequence-classification NLI model (``nli:PATH``).
CLASSIFIER_TASKS: tuple[str, ...] = ("nan-nli", "scone")


@dataclass(frozen=True)
class SuiteStatus:
    """A suite's main task and the folder its data was found in (None: not found; ``hint`` says how to get it)."""

    suite: str
    task: str
    location: Path | None
    hint: str


def locate_task_data(task_name: str, data: str | Path | None) -> Path | None:
    """Where task ``task_name`` finds its data (its own ``locate`` method if it has one), or None."""
    task = get_task(task_name)
    locate = getattr(task, "locate", None)
    if locate is not None:
        return locate(data)
    try:
        return locate_dataset(task.dataset, data)
    except DataNotFoundError:
        return None


def suite_status(data: str | Path | None = None) -> list[SuiteStatus]:
    """Every suite whose main task is registered, with where its data is."""
    known = registered_tasks()
    return [
        SuiteStatus(suite, task, locate_task_data(task, data), hint)
        for suite, (task, hint) in SUITES.items()
        if task in known
    ]


def default_tasks(data: str | Path | None = None, classifier: bool = False) -> list[str]:
    """The main tasks whose data is found (only the NLI ones for a classifier model)."""
    found = [status.task for status in suite_status(data) if status.location is not None]
    return [task for task in found if task in CLASSIFIER_TASKS] if classifier else found
