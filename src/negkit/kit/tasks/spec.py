"""What a task is before it is built: :class:`TaskSpec`, read from a suite's task entry without building the task.

``negkit eval`` checks every flag against every requested task before any model loads or any data is read, and
builds each task once, with its final options. What the check needs is static: which of the options that
``negkit eval``'s flags set the task takes (its factory's keyword parameters, or what its entry declares), and
whether the run's seed changes what it asks (a task that draws few-shot examples over its paper's seeds, or one
that always samples). Beside those, what its suite declares about it: the suite, its data declaration, the unit its
intervals resample, its BibTeX, and its LM Evaluation Harness export (the Harness task names, or why there is
none), which ``negkit export lm-eval`` reads. ``tests/kit/test_task_spec.py`` checks every registered task's spec
against the task built and against its suite.
"""

from __future__ import annotations

import inspect
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
    few-shot examples, and whether it samples whatever its options (``always_seeded``); and what its suite says of
    it: the suite's name, its data declaration (files, URLs, hashes, licence), the unit its intervals resample as
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
    return TaskSpec(name, model_kind, accepts, "seeds" in parameters, default_fewshot, always_seeded)
