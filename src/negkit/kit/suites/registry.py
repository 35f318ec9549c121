"""The suite registry: :func:`register_suite`, :func:`get_suite` (by name or alias), :func:`all_suites`, and the
tasks of every suite (:func:`get_task`, :func:`registered_tasks`).

negkit's own suites are the modules and packages of ``negkit.benchmarks`` (each registers itself when imported; the registry imports
them all the first time it is asked, so a new suite module needs no list to be edited). A user's suites come from
a Python file or folder (:func:`include_suites`, ``--include PATH``) or from an installed package that declares an
entry point in the group ``negkit.suites`` (its value: a module that registers suites when imported, or a
:class:`SuiteDescription` object, or a function returning one or several).
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import importlib.metadata
import pkgutil
import re
import types
from collections.abc import Callable, Sequence
from typing import Any

from negkit.errors import NegkitError
from negkit.kit.suites.description import SuiteDescription, TaskEntry, TaskFlag
from negkit.kit.tasks.base import TASK_OPTIONS, Task
from negkit.kit.tasks.spec import LANGUAGE_MODEL, TaskSpec, task_spec
from negkit.kit.view import SuiteView

#: The entry-point group installed packages declare their suites in.
ENTRY_POINT_GROUP = "negkit.suites"
#: The package whose modules and sub-packages are negkit's own benchmarks (found by walking it, so a new benchmark
#: folder needs no list to be edited; the kit imports no benchmark by name).
BENCHMARKS_PACKAGE = "negkit.benchmarks"

#: A task name: it names the task's run files (``TASK.results.json``), so no path separators or odd characters.
TASK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")

_SUITES: dict[str, SuiteDescription] = {}
_state = {"loaded": False, "loading": False}


def register_suite(suite: SuiteDescription, replace: bool = False) -> SuiteDescription:
    """Add ``suite`` to the registry and return it. A name, alias or task name already taken by another suite
    is an error (``replace=True`` replaces a suite of the same name, e.g. a user's file loaded twice)."""
    if not isinstance(suite, SuiteDescription):
        raise NegkitError(f"register_suite expects a SuiteDescription, got {type(suite).__name__}")
    old = _SUITES.get(suite.name)
    if old is not None and old is not suite and not replace:
        raise NegkitError(f"suite {suite.name!r} is already registered")
    others = [other for other in _SUITES.values() if other.name != suite.name]
    taken = {name: other.name for other in others for name in other.names}
    tasks = {task: other.name for other in others for task in other.task_names}
    for name in suite.names:
        if name in taken:
            raise NegkitError(f"suite {suite.name}: the name {name!r} is already taken by suite {taken[name]}")
    for task in suite.task_names:
        if not isinstance(task, str) or not TASK_NAME.fullmatch(task):
            raise NegkitError(
                f"suite {suite.name}: task name {task!r} cannot name a run file (use letters, digits, "
                "'.', '_' and '-', starting with a letter or digit)"
            )
        if task in tasks:
            raise NegkitError(f"suite {suite.name}: task {task!r} is already a task of suite {tasks[task]}")
    _SUITES[suite.name] = suite
    return suite


def unregister_suite(name: str) -> None:
    """Remove the suite ``name`` (tests, and a user's suite replaced by another file)."""
    _SUITES.pop(name, None)


def registered_names() -> list[str]:
    """The names of the suites registered so far (negkit's own are loaded first)."""
    _load_builtin()
    return list(_SUITES)


def _load_builtin() -> None:
    """Import negkit's own suite modules and the installed packages' entry points, once."""
    if _state["loaded"] or _state["loading"]:
        return
    _state["loading"] = True
    try:
        package = importlib.import_module(BENCHMARKS_PACKAGE)
        for module in pkgutil.iter_modules(package.__path__):
            if not module.name.startswith("_"):
                importlib.import_module(f"{BENCHMARKS_PACKAGE}.{module.name}")
        for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
            load_entry_point(entry_point)
        _state["loaded"] = True
    finally:
        _state["loading"] = False


def load_entry_point(entry_point: Any) -> None:
    """Load one entry point of the group ``negkit.suites`` and register what it gives."""
    try:
        loaded = entry_point.load()
    except Exception as error:  # a broken plug-in is named, never a traceback
        raise NegkitError(
            f"entry point {entry_point.name} = {entry_point.value} (group {ENTRY_POINT_GROUP}): "
            f"cannot be loaded: {type(error).__name__}: {error}"
        ) from None
    register_loaded(loaded, f"entry point {entry_point.name} = {entry_point.value}")


def register_loaded(loaded: Any, origin: str) -> None:
    """Register what a plug-in gives: a module (which registered its suites itself when imported), a
    :class:`SuiteDescription`, a list of them, or a function returning either."""
    if isinstance(loaded, types.ModuleType):
        return
    if isinstance(loaded, SuiteDescription):
        if _SUITES.get(loaded.name) is not loaded:
            register_suite(loaded, replace=True)
    elif isinstance(loaded, (list, tuple)):
        for item in loaded:
            register_loaded(item, origin)
    elif callable(loaded):
        register_loaded(loaded(), origin)
    else:
        raise NegkitError(
            f"{origin}: expected a module, a SuiteDescription or a function returning one, got {type(loaded).__name__}"
        )


def all_suites() -> list[SuiteDescription]:
    """Every registered suite, in their ``order`` (then by name)."""
    _load_builtin()
    return sorted(_SUITES.values(), key=lambda suite: (suite.order, suite.name))


def get_suite(name: str) -> SuiteDescription:
    """The suite named ``name`` (or one of its aliases); an unknown name is an error suggesting the closest."""
    for suite in all_suites():
        if name in suite.names:
            return suite
    known = [known for suite in all_suites() for known in suite.names]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise NegkitError(f"unknown suite {name!r}{hint} (suites: {', '.join(suite.name for suite in all_suites())})")


def suite_for_task(task_name: str) -> SuiteDescription | None:
    """The suite one of whose tasks is ``task_name`` (None: no suite has it)."""
    for suite in all_suites():
        if task_name in suite.task_names:
            return suite
    return None


def suite_view(task_name: str) -> SuiteView | None:
    """The report pages' view of the suite of ``task_name`` (the :data:`negkit.kit.view.SuiteLookup`
    that ``negkit eval``, ``report`` and ``compare`` hand to the report package)."""
    suite = suite_for_task(task_name)
    return suite.view(task_name) if suite else None


def task_suite(name: str) -> SuiteDescription:
    """The suite of the task named ``name``; an unknown name is an error naming the closest and the known tasks."""
    suite = suite_for_task(name)
    if suite is None:
        known = sorted(registered_tasks())
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise NegkitError(f"unknown task {name!r}{hint}; known tasks: {', '.join(known) or 'none'}")
    return suite


def task_entry(name: str) -> TaskEntry:
    """The task entry named ``name``; an unknown name is an error naming the closest and the known tasks."""
    return task_suite(name).task(name)


def get_task(name: str, **options: Any) -> Task:
    """Build the task ``name`` with ``options``; a clear error names the known tasks or the option refused."""
    entry = task_entry(name)
    try:
        return entry.factory(**options)
    except TypeError as error:
        if "unexpected keyword argument" not in str(error):
            raise
        raise NegkitError(f"task {name} does not take that option ({error})") from None


def get_task_spec(name: str, model_kind: str = LANGUAGE_MODEL) -> TaskSpec:
    """The static facts of task ``name`` built for ``model_kind``, read without building it (:class:`TaskSpec`);
    an unknown name is an error naming the known tasks."""
    suite = task_suite(name)
    entry = suite.task(name)
    flag_options = (*TASK_OPTIONS, *task_flags())
    spec = task_spec(entry.name, entry.factory, flag_options, model_kind, entry.accepts, entry.always_seeded)
    export = suite.task_harness.get(entry.name, suite.harness if entry.name == suite.main_task else None)
    return dataclasses.replace(
        spec,
        suite=suite.name,
        data=suite.data,
        interval_unit=suite.interval_unit,
        bibtex=suite.bibtex,
        harness_names=export.names if export is not None else (),
        harness_none=suite.harness_none if export is None else "",
    )


def registered_tasks() -> dict[str, str]:
    """Every suite's task names and their one-line descriptions, sorted by name."""
    return dict(sorted((entry.name, entry.description) for suite in all_suites() for entry in suite.tasks))


def classifier_tasks() -> tuple[str, ...]:
    """The tasks that also run with a sequence-classification model (``nli:PATH``)."""
    return tuple(entry.name for suite in all_suites() for entry in suite.tasks if entry.classifier)


def embedding_tasks() -> tuple[str, ...]:
    """The tasks that also run with a sentence embedding model (``embed:PATH``)."""
    return tuple(entry.name for suite in all_suites() for entry in suite.tasks if entry.embedding)


def task_flags() -> dict[str, TaskFlag]:
    """Every benchmark's own ``negkit eval`` flags by the task option they set (suites' order; a flag declared by
    two suites for the same option is declared once)."""
    flags: dict[str, TaskFlag] = {}
    for suite in all_suites():
        for flag in suite.task_flags:
            flags.setdefault(flag.option, flag)
    return flags


def suite_groups() -> dict[str, list[SuiteDescription]]:
    """Every named group of suites (:attr:`SuiteDescription.groups`) with its suites, in the suites' order."""
    groups: dict[str, list[SuiteDescription]] = {}
    for suite in all_suites():
        for group in suite.groups:
            groups.setdefault(group, []).append(suite)
    return dict(sorted(groups.items()))


def expand_task_names(
    names: Sequence[str], available: Callable[[str], bool] | None = None, skipped: list[str] | None = None
) -> list[str]:
    """``names`` with each suite name (or alias) that is not itself a task replaced by that suite's tasks, in
    order (``--tasks negnli`` runs negnli-mnli, negnli-snli and negnli-rte), and each group name
    (:func:`suite_groups`) by the main task of every suite of the group for which ``available(task)`` holds (default:
    all; the others are appended to ``skipped``); other names stay as they are."""
    tasks = set(registered_tasks())
    groups = suite_groups()
    expanded: list[str] = []
    for name in names:
        suite = None if name in tasks else next((s for s in all_suites() if name in s.names), None)
        if suite is not None:
            expanded += list(suite.task_names)
        elif name not in tasks and name in groups:
            for member in groups[name]:
                if available is None or available(member.main_task):
                    expanded.append(member.main_task)
                elif skipped is not None:
                    skipped.append(member.main_task)
        else:
            expanded.append(name)
    return expanded
