"""The one place that asks a task for its optional members.

The :class:`negkit.kit.tasks.base.Task` protocol has required members (``name``, ``config``, ``load``,
``requests``, ``records``, ``metrics``, ``tables``, ...) and optional ones that only some kinds of task have: the
estimands of its intervals, the predictions-file reader of ``negkit score``, the item rebuild of ``negkit
compare``, the answers a baseline may give, and so on (its splits and the fields kept out of a git working tree
are static: its :class:`~negkit.kit.tasks.spec.TaskSpec` says them, read without building it).
:class:`TaskAdapter` wraps a task and answers each of those questions with a typed value and a stated default, so
that the commands, the scorer and the checks never probe a task's attributes themselves (a test greps the
source for ``getattr(task, ...)`` and ``hasattr(task, ...)`` outside this module).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.kit.metrics.intervals import Estimand
from negkit.kit.tasks.base import Task
from negkit.kit.tasks.spec import TaskSpec
from negkit.models.base import AnswerSpace


@dataclass(frozen=True)
class TaskAdapter:
    """A task and the typed answers to what it may or may not declare (see the module documentation)."""

    task: Task

    # -- checks before a run (what it takes, its splits, whether the seed changes it: its TaskSpec) ---------------
    def check(self, options: Any) -> None:
        """The task's own check of the run's options (raises :class:`negkit.errors.NegkitError`); most have none."""
        own_check = getattr(self.task, "check", None)
        if callable(own_check):
            own_check(options)

    # -- what a built task says of itself, for a task whose TaskSpec cannot (a factory function of an included suite
    # without a return annotation): TaskAdapter.completed uses these -----------------------------------------------
    @property
    def splits(self) -> tuple[str, ...] | None:
        """The split names the built task has (None: it does not say)."""
        splits = getattr(self.task, "splits", None)
        return None if splits is None else tuple(splits)

    @property
    def split_names(self) -> Callable[[str], str] | None:
        """The built task's own names of splits given another way (None: it has none)."""
        normalize = getattr(self.task, "normalize_split", None)
        return normalize if callable(normalize) else None

    @property
    def private_fields(self) -> tuple[str, ...]:
        """Fields of the built task's records that never enter a git working tree (:mod:`negkit.io.privacy`)."""
        return tuple(getattr(self.task, "private_fields", ()) or ())

    def completed(self, spec: TaskSpec) -> TaskSpec:
        """``spec`` with what this built task says where the spec could not (:meth:`TaskSpec.completed_by`)."""
        return spec.completed_by(self.splits, self.split_names, self.private_fields)

    # -- prompts ---------------------------------------------------------------------------------------------------
    def uses_chat(self, model: Any) -> bool:
        """Whether the task renders its prompts for ``model`` with the chat template."""
        chat = getattr(self.task, "uses_chat", None)
        return bool(chat(model)) if callable(chat) else bool(getattr(self.task, "chat", False))

    def prompt_template(self, model: Any) -> str | None:
        """The exact context ``model`` sees with the item's fields as placeholders; None when the task has none."""
        template_of = getattr(self.task, "prompt_template", None)
        return template_of(model) if callable(template_of) else None

    @property
    def system_instruction(self) -> str | None:
        return getattr(self.task, "system_instruction", None)

    # -- the one path from records to numbers --------------------------------------------------------------------
    def estimands(
        self, items: Sequence[Any], records: Sequence[Mapping[str, Any]], headline_only: bool = False
    ) -> list[Estimand] | None:
        """What the task's 95% intervals resample (None: the task has no intervals)."""
        estimands = getattr(self.task, "estimands", None)
        if estimands is None:
            return None
        return list(
            estimands(items, records, headline_only=headline_only) if headline_only else estimands(items, records)
        )

    @property
    def compares(self) -> bool:
        """Whether runs of the task can be compared from their samples files alone."""
        return hasattr(self.task, "items_from_records") and hasattr(self.task, "estimands")

    def items_from_records(self, records: Sequence[Mapping[str, Any]], path: Path) -> list[Any]:
        """The items as far as the headline estimands need them, rebuilt from a samples file's records."""
        return list(self.task.items_from_records(records, path))  # type: ignore[attr-defined]  # checked by compares

    def harness_scores(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]] | None:
        """The task's own per-item scores by Harness metric (None: the kit's default from the records)."""
        scores = getattr(self.task, "harness_scores", None)
        return None if scores is None else dict(scores(records))

    def answer_space(self, items: Sequence[Any]) -> AnswerSpace | None:
        """The answers a constant or majority baseline may give over ``items`` (None: the task has none)."""
        answer_space = getattr(self.task, "answer_space", None)
        return answer_space(list(items)) if answer_space is not None else None

    # -- negkit score ----------------------------------------------------------------------------------------------
    @property
    def reads_predictions(self) -> bool:
        """Whether ``negkit score`` can read a predictions file for the task."""
        return hasattr(self.task, "predictions")

    def for_predictions(self, path: Path) -> TaskAdapter:
        """The task that scores the predictions file ``path`` (a task may pick a variant by the file)."""
        choose = getattr(self.task, "task_for_predictions", None)
        return TaskAdapter(choose(path)) if choose is not None else self

    @property
    def predictions_hold_items(self) -> bool:
        """Whether a predictions file holds its items, so that no data set is read to score it."""
        return bool(getattr(self.task, "predictions_hold_items", False))

    def scored_items(self, data: str | None, split: str) -> Mapping[str, Sequence[Any]]:
        """The items a predictions file may predict, by split: the task's own choice, else (the task has none, or
        its choice is None) ``split``'s items."""
        scored_items = getattr(self.task, "scored_items", None)
        found = scored_items(data) if scored_items is not None else None
        if found is None:
            found = self.task.load(data, split, None, 0).items
        return found if isinstance(found, Mapping) else {split: found}

    def scored_metrics(self, metrics: dict[str, Any], name: str, items: Sequence[Any]) -> dict[str, Any] | None:
        """The task's own finish of a predictions file's metrics (None: the kit's default)."""
        scored_metrics = getattr(self.task, "scored_metrics", None)
        return None if scored_metrics is None else dict(scored_metrics(metrics, name, items))

    # -- fine-tuning -----------------------------------------------------------------------------------------------
    @property
    def training_completion(self) -> Callable[[Any], tuple[str, tuple[str, ...]] | None] | None:
        """The task's own gold completion of an item for training (None: the gold choice's continuation)."""
        return getattr(self.task, "training_completion", None)


def adapt(task: Task | TaskAdapter) -> TaskAdapter:
    """``task`` wrapped (an adapter is returned as it is)."""
    return task if isinstance(task, TaskAdapter) else TaskAdapter(task)
