"""The benchmark suites: one :class:`SuiteDescription` per benchmark, collected by a registry that every command
reads (see :mod:`negkit.suites.description` for the parts of a description, :mod:`negkit.suites.registry` for
where suites come from: this package's modules, ``--include PATH``, the ``negkit.suites`` entry points).

Add a benchmark: write its data reader (``negkit/data/NAME.py``) and one suite module here (``NAME.py``) that
builds its tasks, scorer, figures and export and calls :func:`register_suite`; nothing else changes
(docs/architecture.md, "Add a benchmark"; docs/suites.md for a suite in a user's own file).
"""

from negkit.suites.description import (
    DataSource,
    HarnessExport,
    SuiteDescription,
    SuiteScore,
    TaskEntry,
    TrainingFlag,
    TrainingSource,
    training_flag,
)
from negkit.suites.include import include_suites, load_plugins
from negkit.suites.registry import (
    ENTRY_POINT_GROUP,
    all_suites,
    classifier_tasks,
    default_training_source,
    expand_task_names,
    get_suite,
    get_task,
    register_suite,
    registered_names,
    registered_tasks,
    suite_for_task,
    suite_view,
    task_entry,
    training_source,
    training_sources,
    unregister_suite,
)
from negkit.suites.status import SuiteStatus, default_tasks, locate_task_data, suite_status

__all__ = [
    "DataSource", "ENTRY_POINT_GROUP", "HarnessExport", "SuiteDescription", "SuiteScore", "SuiteStatus", "TaskEntry",
    "TrainingFlag", "TrainingSource", "all_suites", "classifier_tasks", "default_tasks", "default_training_source",
    "expand_task_names", "get_suite", "get_task", "include_suites", "load_plugins", "locate_task_data",
    "register_suite", "registered_names", "registered_tasks", "suite_for_task", "suite_status", "suite_view",
    "task_entry", "training_flag", "training_source", "training_sources", "unregister_suite",
]
