"""Whole suites from a declared task kind: :func:`choice_suite` for a
:class:`~negkit.kit.tasks.choice.MultipleChoice`, :func:`pairs_suite` for :class:`~negkit.kit.tasks.pairs.MinimalPairs`,
:func:`cloze_suite` for :class:`~negkit.kit.tasks.cloze.Cloze` probes, :func:`paired_suite` for
:class:`~negkit.kit.tasks.paired.PairedQuestions`, :func:`text_suite` for
:class:`~negkit.kit.tasks.text_likelihood.HeldOutText`.
Each gives the suite's description (task, figures, interval unit, primary metric, Harness export), so such a
benchmark is its reader, its declaration and one call (docs/suites.md, docs/examples/toy_suite.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from negkit.kit.harness.layout import harness_loader
from negkit.kit.render.grouped import grouped_figures
from negkit.kit.suites.description import DataSource, HarnessExport, SuiteDescription, TaskEntry
from negkit.kit.tasks.base import TaskData
from negkit.kit.tasks.choice import MultipleChoice, choice_figures_of, write_choice_harness
from negkit.kit.tasks.cloze import Cloze
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


def choice_suite(
    spec: MultipleChoice, data: DataSource, title: str = "", description: str = "", **fields: Any
) -> SuiteDescription:
    """The suite of one multiple-choice task: ``data`` says where its data lives (and with its ``bibtex``, what to
    cite, unless ``fields`` give one); ``fields`` are any other :class:`SuiteDescription` fields (``aliases``, ``order``, ``training``, ...);
    the suite's ``reader`` is the task's."""
    settings: dict[str, Any] = dict(
        name=spec.name,
        title=title or spec.title or spec.name,
        tasks=(
            TaskEntry(
                spec.name,
                spec.task,
                description or spec.description or f"{title or spec.name}: multiple choice by log-likelihood",
            ),
        ),
        main_task=spec.name,
        data=data,
        interval_unit=spec.unit,
        primary_metric="acc",
        figures=choice_figures_of(spec),
        harness=choice_harness(spec),
        reader=spec.read,
    )
    return SuiteDescription(**{**settings, **fields})


def one_task_suite(
    spec: Any,
    data: DataSource,
    description: str,
    asked: str,
    primary_metric: str,
    figures: Any,
    fields: dict[str, Any],
    **export: Any,
) -> SuiteDescription:
    """The suite of one declared task ``spec`` (its ``name``, ``title``, ``task`` and ``unit``): its task entry
    (``description``, else "TITLE: ``asked``"), data, primary metric, figures and Harness export (``harness=`` or
    ``harness_none=``); ``fields`` are any other :class:`SuiteDescription` fields and win over these."""
    title = spec.title or spec.name
    settings: dict[str, Any] = dict(
        name=spec.name,
        title=title,
        tasks=(TaskEntry(spec.name, spec.task, description or f"{title}: {asked}"),),
        main_task=spec.name,
        data=data,
        interval_unit=spec.unit,
        primary_metric=primary_metric,
        figures=figures,
        **export,
    )
    return SuiteDescription(**{**settings, **fields})


def pairs_suite(spec: MinimalPairs, data: DataSource, description: str = "", **fields: Any) -> SuiteDescription:
    """The suite of one minimal-pairs task (see :func:`choice_suite`); its headline is the mean over the groups."""

    def write(task: Any, loaded: TaskData, out: Path, data: str | None, names: tuple[str, ...]) -> dict[str, Any]:
        return write_pairs_harness(task, loaded, out)

    harness = HarnessExport((spec.harness_name,), write, loaders={harness_loader(spec.harness_name): spec.name})
    return one_task_suite(
        spec, data, description, "minimal pairs", "overall.accuracy", pair_figures(spec), fields, harness=harness
    )


#: Why held-out text has no Harness export.
TEXT_NO_HARNESS = (
    "it is a guard of negkit's own (log-probability per token of held-out sentences, for fine-tuned models), not a "
    "benchmark to compare with the Harness's tasks; its perplexity tasks (loglikelihood_rolling) score whole "
    "documents in windows, not these sentences one by one"
)


def text_suite(spec: HeldOutText, data: DataSource, description: str = "", **fields: Any) -> SuiteDescription:
    """The suite of one held-out-text task (see :func:`choice_suite`); its primary metric is the log-probability
    per token over all sentences (higher is better); no Harness export (``TEXT_NO_HARNESS``)."""
    return one_task_suite(
        spec,
        data,
        description,
        "held-out text",
        "overall.logprob_per_token",
        text_figures(spec),
        fields,
        harness_none=TEXT_NO_HARNESS,
    )


def cloze_suite(spec: Cloze, data: DataSource, description: str = "", **fields: Any) -> SuiteDescription:
    """The suite of one cloze task (see :func:`choice_suite`); its primary metric is the overall value of the first
    headline metric. The LM Evaluation Harness cannot rank a candidate vocabulary: no export (``harness_none`` says
    why)."""
    figures = grouped_figures(spec.title or spec.name, spec.groups_key)
    return one_task_suite(
        spec,
        data,
        description,
        "cloze probes",
        f"overall.{spec.headline[0]}",
        figures,
        fields,
        harness_none=CLOZE_NO_HARNESS,
    )


def paired_suite(spec: PairedQuestions, data: DataSource, description: str = "", **fields: Any) -> SuiteDescription:
    """The suite of one paired-questions task (see :func:`choice_suite`); its primary metric is the overall value of
    the first headline metric; its Harness export is :func:`paired_harness`."""
    figures = grouped_figures(spec.title or spec.name, spec.groups_key, reference=0.5)
    return one_task_suite(
        spec,
        data,
        description,
        "paired questions",
        f"overall.{spec.headline[0]}",
        figures,
        fields,
        harness=paired_harness(spec),
    )
