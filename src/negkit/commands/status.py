"""Where each suite's data is: what ``negkit eval --list`` prints, which suites ``negkit eval`` runs when no
task is named (:func:`default_tasks`: the main task of every suite whose data is found), and what a group of suites
named in ``--tasks`` runs (:func:`expand_groups`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from negkit.errors import DataNotFoundError
from negkit.kit.data.locate import locate_dataset
from negkit.kit.suites.description import SuiteDescription
from negkit.kit.suites.registry import (
    all_suites,
    classifier_tasks,
    embedding_tasks,
    expand_task_names,
    suite_for_task,
    task_suite,
)


@dataclass(frozen=True)
class SuiteStatus:
    """A suite's main task and the folder its data was found in (None: not found; ``hint`` says how to get it)."""

    suite: str
    task: str
    location: Path | None
    hint: str


def locate_task_data(task_name: str, data: str | Path | None) -> Path | None:
    """Where task ``task_name`` finds its data (its suite's :class:`DataSource`: its own ``locate`` if it has one,
    else its folder under a data root), or None; the task is not built."""
    source = task_suite(task_name).data
    if source.locate is not None:
        return source.locate(data)
    try:
        return locate_dataset(source.folder, data)
    except DataNotFoundError:
        return None


def get_hint(suite: SuiteDescription) -> str:
    """How to get a suite's data: the ``negkit data get`` command when it declares its files, else its prose."""
    downloadable = suite.data.files or suite.data.build is not None
    return f"negkit data get {suite.name}" if downloadable else suite.data.how_to_get


def suite_status(data: str | Path | None = None) -> list[SuiteStatus]:
    """Every registered suite with its main task and where its data is."""
    return [
        SuiteStatus(suite.name, suite.main_task, locate_task_data(suite.main_task, data), get_hint(suite))
        for suite in all_suites()
    ]


def default_suites() -> set[str]:
    """The suites ``negkit eval`` runs when no task is named (``default_run``; a guard such as ``blimp-guard`` is
    asked for by name only)."""
    return {suite.name for suite in all_suites() if suite.default_run}


def default_run_plan(
    data: str | Path | None = None, classifier: bool = False, embedding: bool = False
) -> tuple[list[str], dict[str, str]]:
    """What ``negkit eval`` without ``--tasks`` runs: the main task of every default suite (:func:`default_suites`)
    whose data is found, and the default suites left out for want of data (suite -> how to get its data). For a
    classifier model, only the tasks a classifier can run; for an embedding model, those an embedding model can."""
    runs = default_suites()
    can_classify, can_embed = classifier_tasks(), embedding_tasks()
    tasks: list[str] = []
    skipped: dict[str, str] = {}
    for status in suite_status(data):
        if (
            status.suite not in runs
            or (classifier and status.task not in can_classify)
            or (embedding and status.task not in can_embed)
        ):
            continue
        if status.location is None:
            skipped[status.suite] = status.hint
        else:
            tasks.append(status.task)
    return tasks, skipped


def default_tasks(data: str | Path | None = None, classifier: bool = False) -> list[str]:
    """The main tasks whose data is found (only the ones a classifier can run, for a classifier model)."""
    return default_run_plan(data, classifier)[0]


def expand_groups(names: list[str], data: str | Path | None = None) -> tuple[list[str], dict[str, str]]:
    """``names`` with each group of suites (``negation-all``) replaced by the main task of every suite of the group
    whose data is found; the suites left out, each with how to get its data."""
    left_out: list[str] = []
    tasks = expand_task_names(names, lambda task: locate_task_data(task, data) is not None, left_out)
    skipped = {}
    for task in left_out:
        suite = suite_for_task(task)
        if suite is not None:
            skipped[suite.name] = get_hint(suite)
    return [name for name in tasks if name not in left_out], skipped
