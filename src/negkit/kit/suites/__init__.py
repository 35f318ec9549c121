"""The benchmark suites: one :class:`SuiteDescription` per benchmark, collected by a registry that every command
reads (see :mod:`negkit.kit.suites.description` for the parts of a description, :mod:`negkit.kit.suites.registry` for
where suites come from: this package's modules, ``--include PATH``, the ``negkit.suites`` entry points).

Add a benchmark: one module (or package) under ``negkit/benchmarks/`` holding its reader and its declaration, which
calls :func:`register_suite` (with its data files and BibTeX, :meth:`DataSource.declared`); a multiple-choice benchmark
needs only its row type (:mod:`negkit.kit.data.rows`), :class:`MultipleChoice` and :func:`declared_suite`; nothing else
changes
(docs/architecture.md, "Add a benchmark"; docs/suites.md for a suite in a user's own file).
"""

from negkit.kit.data.declared import DataFile, declared_files
from negkit.kit.suites.description import (
    DataSource,
    HarnessExport,
    SuiteDescription,
    SuiteScore,
    TaskEntry,
    TaskFlag,
    task_flag,
)
from negkit.kit.suites.include import include_suites, load_plugins
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.suites.registry import (
    ENTRY_POINT_GROUP,
    all_suites,
    classifier_tasks,
    embedding_tasks,
    expand_task_names,
    get_suite,
    get_task,
    get_task_spec,
    register_suite,
    registered_names,
    registered_tasks,
    suite_for_task,
    suite_groups,
    suite_view,
    task_entry,
    task_flags,
    unregister_suite,
)
from negkit.kit.tasks.choice import ChoiceQuestion, MultipleChoice

__all__ = [
    "ChoiceQuestion",
    "MultipleChoice",
    "declared_suite",
    "DataFile",
    "DataSource",
    "declared_files",
    "ENTRY_POINT_GROUP",
    "HarnessExport",
    "SuiteDescription",
    "SuiteScore",
    "TaskEntry",
    "TaskFlag",
    "all_suites",
    "classifier_tasks",
    "embedding_tasks",
    "expand_task_names",
    "get_suite",
    "get_task",
    "get_task_spec",
    "include_suites",
    "load_plugins",
    "register_suite",
    "registered_names",
    "registered_tasks",
    "suite_for_task",
    "suite_groups",
    "suite_view",
    "task_entry",
    "task_flag",
    "task_flags",
    "unregister_suite",
]
