"""``negkit cite``: the BibTeX entries of negkit and of the papers behind the tasks a user names or a run used.

Targets are task, suite or group names (``negation-all``), negation-resolution corpus names (``cd-sco``,
``bioscope``, ``sfu-review``, ``norec-neg``, ``ud-english-ewt``, or their ``negkit resolution`` names ``sfu``, ``cd-neg``,
``norec``) or ``negkit eval`` output folders (their ``TASK.results.json`` files say
which tasks ran); with none, every registered suite and corpus is cited. Each suite's entries
are its own declaration (``SuiteDescription.bibtex``), merged so that a paper two suites share is printed once.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from negkit.errors import NegkitError
from negkit.kit.citations import lookup_citations, merge_bibtex
from negkit.kit.corpora.citations import CORPUS_BIBTEX, corpus_bibtex
from negkit.kit.runs import read_task_results
from negkit.kit.suites.registry import all_suites, expand_task_names, registered_tasks, suite_view
from negkit.runs.files import RESULTS_SUFFIX


def run_tasks(folder: Path) -> list[str]:
    """The task names of a ``negkit eval`` output folder, from its ``TASK.results.json`` files."""
    names = []
    for path in sorted(folder.glob(f"*{RESULTS_SUFFIX}")):
        name = read_task_results(path).task.task or path.name[: -len(RESULTS_SUFFIX)]
        names.append(str(name))
    if not names:
        raise NegkitError(f"{folder}: no TASK{RESULTS_SUFFIX} files (is it a `negkit eval` output folder?)")
    return names


def _task_names(name: str) -> list[str]:
    """The tasks a task, suite or group name stands for; anything else is an error."""
    known = registered_tasks()
    tasks = expand_task_names([name])
    unknown = [task for task in tasks if task not in known]
    if unknown:
        raise NegkitError(
            f"{unknown[0]!r} is neither a task, suite or group (negkit eval --list), a negation-resolution corpus "
            f"({', '.join(CORPUS_BIBTEX)}) nor a run folder"
        )
    return tasks


def cite(targets: Sequence[str] = ()) -> dict[str, str]:
    """The BibTeX entries, by key, that a paper using ``targets`` (tasks, suites, groups, corpora, run folders)
    cites: negkit's own first, then each paper once; with no target, every suite's and corpus's."""
    if not targets:
        tasks, corpora = [suite.main_task for suite in all_suites()], list(CORPUS_BIBTEX)
    else:
        tasks, corpora = [], []
        for target in targets:
            if Path(target).is_dir():
                tasks += run_tasks(Path(target))
                continue
            for name in (part.strip() for part in target.split(",")):
                if corpus_bibtex(name) is not None:
                    corpora.append(name)
                elif name:
                    tasks += _task_names(name)
    entries = lookup_citations(tasks, suite_view)
    for key, entry in merge_bibtex(corpus_bibtex(name) or "" for name in corpora).items():
        entries.setdefault(key, entry)
    return entries
