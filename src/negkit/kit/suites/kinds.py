"""Whole suites from a declared task kind: :func:`declared_suite` for a
:class:`~negkit.kit.tasks.choice.MultipleChoice`, :class:`~negkit.kit.tasks.pairs.MinimalPairs`,
:class:`~negkit.kit.tasks.cloze.Cloze` probes, :class:`~negkit.kit.tasks.paired.PairedQuestions`,
:class:`~negkit.kit.tasks.text_likelihood.HeldOutText`, standard-negation multiple choice
(:class:`~negkit.kit.tasks.negation_choice.NegationChoice`) or NLI (:class:`~negkit.kit.tasks.nli_declared.NLIQuestions`),
each kind's part (:class:`SuiteKind`: what it asks, its task entry, primary metric, figures and Harness export) in
:data:`SUITE_KINDS`. It gives the suite's description, so such a
benchmark is its row type, its declaration and one call (docs/suites.md, docs/examples/toy_suite.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.kit.harness.layout import harness_loader, harness_task_name
from negkit.kit.render.grouped import grouped_figures
from negkit.kit.render.negation_choice import choice_figures
from negkit.kit.suites.description import DataSource, HarnessExport, SuiteDescription, TaskEntry
from negkit.kit.suites.nli import nli_entry, nli_harness
from negkit.kit.tasks.base import TaskData
from negkit.kit.tasks.choice import MultipleChoice, choice_figures_of, write_choice_harness
from negkit.kit.tasks.cloze import Cloze
from negkit.kit.tasks.negation_choice import NegationChoice
from negkit.kit.tasks.negation_choice_harness import write_negation_choice_harness
from negkit.kit.tasks.nli_declared import NLIQuestions
from negkit.kit.tasks.paired import PairedQuestions
from negkit.kit.tasks.paired_harness import (
    paired_loader,
    paired_notes,
    paired_readme,
    paired_task_names,
    paired_utils_source,
    write_paired_harness,
)
from negkit.kit.tasks.pairs import MinimalPairs, pair_figures, write_pairs_harness
from negkit.kit.tasks.text_likelihood import HeldOutText, text_figures
from negkit.kit.view import FigureBuilder

#: Why a cloze task has no Harness export (``negkit export lm-eval`` says it).
CLOZE_NO_HARNESS = (
    "its metrics rank the model's top-k predictions for a slot over a vocabulary (top-1 overlap, rank correlation, "
    "precision@k), and the LM Evaluation Harness scores given continuations only (multiple_choice, loglikelihood) "
    "or a generation, never a ranking over a vocabulary"
)


def choice_harness(spec: MultipleChoice) -> HarnessExport:
    """The Harness export of ``spec``'s task: one YAML file and its documents; ``utils.py`` gets a loader."""

    def write(task: Any, loaded: TaskData, out: Path, data: str | None, names: tuple[str, ...]) -> dict[str, Any]:
        return write_choice_harness(task, loaded, out)

    return HarnessExport((spec.harness_name,), write, loaders={harness_loader(spec.harness_name): spec.name})


def paired_harness(spec: PairedQuestions) -> HarnessExport:
    """The Harness export of ``spec``'s task: one Harness task per part (and prompt), over one documents file;
    ``utils.py`` gets a loader per part (:mod:`negkit.kit.tasks.paired_harness`)."""

    def write(task: Any, loaded: TaskData, out: Path, data: str | None, names: tuple[str, ...]) -> dict[str, Any]:
        return write_paired_harness(task, loaded, out)

    return HarnessExport(
        tuple(name for names in paired_task_names(spec).values() for name in names),
        write,
        loaders={paired_loader(spec, part): None for part in spec.parts},
        utils_source=paired_utils_source(spec),
        readme=paired_readme(spec),
        notes=paired_notes(spec),
    )


def pairs_harness(spec: MinimalPairs) -> HarnessExport:
    """The Harness export of a minimal-pairs task: one YAML file and its documents; ``utils.py`` gets a loader."""

    def write(task: Any, loaded: TaskData, out: Path, data: str | None, names: tuple[str, ...]) -> dict[str, Any]:
        return write_pairs_harness(task, loaded, out)

    return HarnessExport((spec.harness_name,), write, loaders={harness_loader(spec.harness_name): spec.name})


def negation_choice_harness(spec: NegationChoice) -> HarnessExport:
    """The Harness export of a standard-negation multiple choice (``negkit_`` + its name): one YAML file, its
    documents and, for k-shot, the few-shot split's; ``utils.py`` gets a loader."""
    name = harness_task_name(spec.name)

    def write(task: Any, loaded: TaskData, out: Path, data: str | None, names: tuple[str, ...]) -> dict[str, Any]:
        return write_negation_choice_harness(task, loaded, out, name)

    return HarnessExport((name,), write, loaders={harness_loader(name): spec.name})


#: Why held-out text has no Harness export.
TEXT_NO_HARNESS = (
    "it is a guard of negkit's own (log-probability per token of held-out sentences, for fine-tuned models), not a "
    "benchmark to compare with the Harness's tasks; its perplexity tasks (loglikelihood_rolling) score whole "
    "documents in windows, not these sentences one by one"
)


@dataclass(frozen=True)
class SuiteKind:
    """How a declared task kind fills its suite: what its tasks ask (the task entry's description, after the
    title), its primary metric, its figures and its Harness export (``harness=`` or, when the Harness cannot
    express it, ``harness_none=`` saying why)."""

    asked: str
    primary_metric: Callable[[Any], str | None]
    figures: Callable[[Any], FigureBuilder | None]
    export: Callable[[Any], dict[str, Any]]
    #: The task's description falls back to the suite's given title or its name (multiple choice), else to the
    #: spec's title.
    title_from_name: bool = False
    #: ``entry(spec, description)``: the task entry of a spec (default: its name, ``spec.task``, the description).
    entry: Callable[[Any, str], TaskEntry] | None = None

    def task_entry(self, spec: Any, description: str) -> TaskEntry:
        return self.entry(spec, description) if self.entry else TaskEntry(spec.name, spec.task, description)


def _first_headline(spec: Any) -> str:
    return f"overall.{spec.headline[0]}"


#: The declared kinds by spec class (a subclass of one is that kind).
SUITE_KINDS: dict[type, SuiteKind] = {
    MultipleChoice: SuiteKind(
        "multiple choice by log-likelihood",
        lambda spec: "acc",
        choice_figures_of,
        lambda spec: {"harness": choice_harness(spec)},
        title_from_name=True,
    ),
    MinimalPairs: SuiteKind(
        "minimal pairs", lambda spec: "overall.accuracy", pair_figures, lambda spec: {"harness": pairs_harness(spec)}
    ),
    HeldOutText: SuiteKind(
        "held-out text",
        lambda spec: "overall.logprob_per_token",
        text_figures,
        lambda spec: {"harness_none": TEXT_NO_HARNESS},
    ),
    Cloze: SuiteKind(
        "cloze probes",
        _first_headline,
        lambda spec: grouped_figures(spec.title or spec.name, spec.groups_key),
        lambda spec: {"harness_none": CLOZE_NO_HARNESS},
    ),
    PairedQuestions: SuiteKind(
        "paired questions",
        _first_headline,
        lambda spec: grouped_figures(spec.title or spec.name, spec.groups_key, reference=0.5),
        lambda spec: {"harness": paired_harness(spec)},
    ),
    NegationChoice: SuiteKind(
        "standard negation as multiple choice by log-likelihood",
        lambda spec: "summary.acc.mean",
        lambda spec: choice_figures(spec.benchmark or spec.title or spec.name),
        lambda spec: {"harness": negation_choice_harness(spec)},
    ),
    NLIQuestions: SuiteKind(
        "NLI by label words or a classifier",
        lambda spec: spec.headline or None,
        lambda spec: spec.figures,
        lambda spec: {"harness": nli_harness(spec)},
        entry=nli_entry,
    ),
}


def suite_kind(spec: Any) -> SuiteKind:
    """The declared kind of ``spec``; a spec of no declared kind is a ``TypeError`` naming the kinds."""
    for spec_class, kind in SUITE_KINDS.items():
        if isinstance(spec, spec_class):
            return kind
    known = ", ".join(spec_class.__name__ for spec_class in SUITE_KINDS)
    raise TypeError(f"{type(spec).__name__} is not a declared task kind ({known})")


#: A declaration of one of the kinds :func:`declared_suite` makes a suite of.
Declared = MultipleChoice | MinimalPairs | HeldOutText | Cloze | PairedQuestions | NegationChoice | NLIQuestions


def _more_entry(other: Declared | TaskEntry) -> TaskEntry:
    """The task entry of one of a suite's other tasks: a declaration's kind makes it, an entry is taken as it is."""
    if isinstance(other, TaskEntry):
        return other
    return suite_kind(other).task_entry(other, getattr(other, "description", ""))


def declared_suite(
    spec: Declared,
    data: DataSource,
    description: str = "",
    title: str = "",
    more: tuple[Declared | TaskEntry, ...] = (),
    **fields: Any,
) -> SuiteDescription:
    """The suite of the declared task ``spec`` (a :class:`MultipleChoice`, :class:`MinimalPairs`,
    :class:`HeldOutText`, :class:`Cloze`, :class:`PairedQuestions`, :class:`NegationChoice` or
    :class:`NLIQuestions`): its task entry (``description``, else the spec's own, else "TITLE: what the kind
    asks"), ``data`` (where its data lives and, with its ``bibtex``, what to cite), the kind's primary metric,
    figures and Harness export, and the spec's reader; ``more`` are the suite's other tasks: declarations (each
    gets its kind's entry and Harness export) or task entries as they are; ``fields`` are any other
    :class:`SuiteDescription` fields (``aliases``, ``order``, ``groups``, ...) and win over these."""
    kind = suite_kind(spec)
    suite_title = title or spec.title or spec.name
    entry_title = (title or spec.name) if kind.title_from_name else suite_title
    settings: dict[str, Any] = dict(
        name=spec.name,
        title=suite_title,
        tasks=(
            kind.task_entry(spec, description or getattr(spec, "description", "") or f"{entry_title}: {kind.asked}"),
            *(_more_entry(other) for other in more),
        ),
        main_task=spec.name,
        data=data,
        interval_unit=spec.unit,
        primary_metric=kind.primary_metric(spec),
        figures=kind.figures(spec),
        reader=spec.read,
        **kind.export(spec),
    )
    declared = [other for other in more if not isinstance(other, TaskEntry)]
    if declared:
        settings["task_harness"] = {
            other.name: export
            for other in declared
            if (export := suite_kind(other).export(other).get("harness")) is not None
        }
    return SuiteDescription(**{**settings, **fields})
