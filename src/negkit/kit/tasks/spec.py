"""What a task is before it is built: :class:`TaskSpec`, read from a suite's task entry without building the task.

``negkit eval`` checks every flag against every requested task before any model loads or any data is read, and
builds each task once, with its final options. What the check needs is static: which of the options that
``negkit eval``'s flags set the task takes (its factory's keyword parameters, or what its entry declares), and
whether the run's seed changes what it asks (a task that draws few-shot examples over its paper's seeds, or one
that always samples); the splits it has (and its own names of splits given another way), the field that groups its
items for ``--limit`` and its intervals, and the fields of its records kept out of a git working tree
(:mod:`negkit.io.privacy`). Those are read from the task's declaration (a declared kind's ``task``), else from the
class the factory builds (its class attributes ``splits``, ``normalize_split``, ``group_field``, ``groups``,
``private_fields``, and ``private_fields_for(options)`` where the factory's fixed options change them). Beside those, what its suite declares about it: the suite, its data declaration, the unit its
intervals resample, its BibTeX, and its LM Evaluation Harness export (the Harness task names, or why there is
none), which ``negkit export lm-eval`` reads. ``tests/kit/test_task_spec.py`` checks every registered task's spec
against the task built and against its suite.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from negkit.kit.data.source import DataSource
from negkit.kit.tasks.base import TASK_OPTIONS

#: The model kinds a task may be built for (``model_kind=...``); a task built for a classifier or an embedding
#: model has no prompt, so it takes none of the Harness's prompt options (:data:`TASK_OPTIONS`).
LANGUAGE_MODEL = "language_model"


@dataclass(frozen=True)
class TaskSpec:
    """A task's static facts: its name, the model kind it is built for, the flag-set options it takes, whether it
    averages over its paper's few-shot seeds (``seeds``, which ``--seed`` replaces) and the default number of
    few-shot examples, and whether it samples whatever its options (``always_seeded``); the splits it has (None: it
    does not say, any split is passed to it) and its own name of a split given another way (``split_names``, see
    :meth:`normalize_split`), the field of its items that groups them for ``--limit`` and its intervals
    (``group_field``, ``""``: none declared; ``groups``: their declared order) and the fields of its records that
    never enter a git working tree (``private_fields``); and what its suite says of it: the suite's name, its data declaration (files, URLs, hashes, licence), the unit its intervals resample as
    the suite describes it (``group (the sentences generated from one WordNet pair)``), its BibTeX, the Harness
    task names it is exported as (``()``: not exported) and, when none, why (``harness_none``)."""

    name: str
    model_kind: str
    accepts: frozenset[str]
    fewshot_seeds: bool = False
    default_fewshot: int = 0
    always_seeded: bool = False
    suite: str = ""
    data: DataSource | None = None
    interval_unit: str = "item"
    bibtex: str = ""
    harness_names: tuple[str, ...] = ()
    harness_none: str = ""
    splits: tuple[str, ...] | None = None
    split_names: Callable[[str], str] | None = None
    group_field: str = ""
    groups: tuple[str, ...] = ()
    private_fields: tuple[str, ...] = ()

    def normalize_split(self, split: str) -> str:
        """The task's own name of ``split`` (an alias such as ``dev`` for ``validation``), else ``split``."""
        return str(self.split_names(split)) if self.split_names is not None else split

    def completed_by(
        self, splits: tuple[str, ...] | None, split_names: Callable[[str], str] | None, private_fields: tuple[str, ...]
    ) -> TaskSpec:
        """This spec with what the built task says where the spec could not say it without building (a factory
        function without a return annotation, in an included suite): its splits and their other names when the spec
        names none, and its private fields added to the spec's (a private field is never dropped)."""
        changes: dict[str, Any] = {}
        if self.splits is None and splits is not None:
            changes.update(splits=splits, split_names=split_names)
        extra = tuple(field for field in private_fields if field not in self.private_fields)
        if extra:
            changes["private_fields"] = (*self.private_fields, *extra)
        return dataclasses.replace(self, **changes) if changes else self

    def uses_seed(self, options: Mapping[str, Any]) -> bool:
        """Whether the run's seed changes what the task asks when built with ``options``."""
        if self.always_seeded:
            return True
        return self.fewshot_seeds and bool(options.get("num_fewshot", self.default_fewshot))


def factory_parameters(factory: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    """The keyword parameters of a task factory (a class, a function, a bound method or a ``functools.partial``;
    a parameter a partial fixes is not the caller's to set)."""
    parameters = inspect.signature(factory).parameters
    return {
        name: parameter
        for name, parameter in parameters.items()
        if parameter.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    }


def task_spec(
    name: str,
    factory: Callable[..., Any],
    flag_options: Iterable[str],
    model_kind: str = LANGUAGE_MODEL,
    accepts: frozenset[str] | None = None,
    always_seeded: bool = False,
) -> TaskSpec:
    """The spec of the task ``name`` built by ``factory``: the options among ``flag_options`` (the Harness's and the
    benchmarks' own, :func:`negkit.kit.suites.task_flags`) that it takes: ``accepts`` when its entry declares
    them, else the factory's keyword parameters (without the Harness's prompt options for a model kind other than
    a language model)."""
    parameters = factory_parameters(factory)
    options = set(flag_options)
    if accepts is None:
        accepts = frozenset(parameter for parameter in parameters if parameter in options)
    if model_kind != LANGUAGE_MODEL:
        accepts = frozenset(option for option in accepts if option not in TASK_OPTIONS)
    fewshot = parameters.get("num_fewshot")
    default_fewshot = fewshot.default if fewshot is not None and isinstance(fewshot.default, int) else 0
    spec = TaskSpec(name, model_kind, accepts, "seeds" in parameters, default_fewshot, always_seeded)
    return dataclasses.replace(spec, **declared_facts(factory))


def declared_facts(factory: Callable[..., Any]) -> dict[str, Any]:
    """The :class:`TaskSpec` fields that what ``factory`` builds declares (see the module documentation):
    ``splits``, ``split_names``, ``group_field``, ``groups`` and ``private_fields``."""
    declarers, fixed = _declarers(factory)

    def declared(name: str) -> Any:
        return next((getattr(declarer, name) for declarer in declarers if hasattr(declarer, name)), None)

    splits, private_for = declared("splits"), declared("private_fields_for")
    private = private_for(fixed) if callable(private_for) else declared("private_fields")
    return {
        "splits": None if splits is None else tuple(splits),
        "split_names": declared("normalize_split"),
        "group_field": str(declared("group_field") or ""),
        "groups": tuple(declared("groups") or ()),
        "private_fields": tuple(private or ()),
    }


def _declarers(factory: Callable[..., Any]) -> tuple[list[object], dict[str, Any]]:
    """What declares the tasks ``factory`` builds, first the first asked, and the options the factory fixes (a
    ``functools.partial``'s): the declaration whose ``task`` the factory is, and the class the factory is or is
    annotated to return."""
    fixed: dict[str, Any] = {}
    while isinstance(factory, functools.partial):
        fixed = {**factory.keywords, **fixed}
        factory = factory.func
    declarers: list[object] = []
    owner = getattr(factory, "__self__", None)
    if owner is not None:
        declarers.append(owner)
    if isinstance(factory, type):
        declarers.append(factory)
    else:
        try:
            returned = typing.get_type_hints(factory).get("return")
        except (NameError, TypeError):  # an annotation that does not resolve here
            returned = None
        if isinstance(returned, type):
            declarers.append(returned)
    return declarers, fixed
