"""What a task is.

A task is a way of asking a benchmark's questions (inspect_ai's idea: data + how to ask + how to
judge, composed). It turns items into model requests, the answers into per-item records with a
prediction, and the records into metrics and Markdown tables. Tasks never touch a backend: they see
the model only through the protocols of :mod:`negkit.models.base` (e.g. to ask whether it has a chat
template), and the engine answers their requests.

A suite (:mod:`negkit.kit.suites`) lists its tasks with a factory each; ``negkit eval --tasks NAME`` builds one with
:func:`negkit.kit.suites.get_task`. Optional members checked before any work (:mod:`negkit.commands.eval.preflight`): ``splits`` (the split
names the task has, with an optional static ``normalize_split(name)`` for aliases; class attributes, or its
declaration's, read into its :class:`~negkit.kit.tasks.spec.TaskSpec` without building it) and ``check(options)``
(raise a :class:`NegkitError` for options that do not apply). Task options (few-shot, prompt style, ...) are constructor arguments, and
variants that people ask for by name are registered under their own names.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from negkit.errors import NegkitError
from negkit.kit.data.locate import locate_dataset
from negkit.kit.metrics.grouped import grouped_estimands
from negkit.kit.metrics.intervals import Estimand
from negkit.models.base import Request

#: An item of a task's data (anything :func:`first_per_group` can group).
Item = TypeVar("Item")


@dataclass
class TaskData:
    """The items a task evaluates, and where they came from (for result files)."""

    items: list[Any]
    #: Data files read, so that result files can record their hashes.
    files: list[Path] = field(default_factory=list)
    #: Free-form facts about the selection (split, limit, seed, counts).
    selection: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Task(Protocol):
    """One benchmark asked one way."""

    #: Registry name, e.g. ``"tind"``.
    name: str
    #: The data set folder name understood by :func:`negkit.kit.data.locate.locate_dataset`.
    dataset: str
    #: ``"language_model"`` or ``"classifier"``: which model protocol the task needs.
    model_kind: str

    @property
    def accepts(self) -> frozenset[str]:
        """Which of :data:`TASK_OPTIONS` this task takes (a flag for any other is an error, never ignored)."""
        ...

    @property
    def uses_seed(self) -> bool:
        """Whether the run's seed changes what this task asks (samples, splits, few-shot draws)."""
        ...

    def config(self) -> dict[str, Any]:
        """Everything that defines how the task asks (prompt ids, options, seeds), for result files."""
        ...

    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        """Read the items of ``split``; ``limit`` takes a deterministic, stratified sample."""
        ...

    def requests(self, items: Sequence[Any], model: Any) -> Sequence[tuple[Request, ...]]:
        """The requests for each item (one tuple per item, in item order)."""
        ...

    def prompt_template(self, model: Any) -> str | None:
        """The exact context ``model`` sees, with ``{placeholders}`` for the item's fields (the chat template,
        with any system text it inserts, rendered); None for a classifier."""
        ...

    def records(self, items: Sequence[Any], responses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        """One JSON-ready record per item: its id, the scores, the prediction and the gold answer (``responses``:
        the answers to the task's own requests, of the kinds it asked)."""
        ...

    def metrics(self, items: Sequence[Any], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The task's metrics from the items and their records."""
        ...

    def tables(self, metrics: dict[str, Any]) -> str:
        """Markdown tables of the metrics (with the intervals of ``metrics["intervals"]`` when present)."""
        ...

    # Optional members, asked only through :class:`negkit.kit.tasks.adapter.TaskAdapter` (which says each default).
    # The one path from records to numbers (:mod:`negkit.kit.scoring`), optional for a task of one's own:
    # ``estimands(items, records, headline_only=False) -> [Estimand]``: what the 95% intervals resample (headline
    #   ones flagged; ``negkit eval`` stores their intervals as ``metrics["intervals"]``);
    # ``predictions(path, items) -> records``: a predictions file made elsewhere as records in the eval's shape
    #   (``negkit score``);
    # ``items_from_records(records, path) -> items``: the items as far as the headline estimands need them, from a
    #   samples file alone (``negkit compare``, ``negkit leaderboard``);
    # ``harness_scores(records) -> {"acc": [...], "acc_norm": [...]}``: per-item scores of results.json's Harness
    #   layout.
    # Also optional: ``answer_space(items) -> AnswerSpace | None``, for the constant and majority baselines.


#: The harness-style options a task may accept (``Task.accepts``); :func:`negkit.commands.eval.flags.task_options_for` maps the command
#: line's flags onto them and refuses a flag that a requested task does not accept.
TASK_OPTIONS: tuple[str, ...] = ("prompt", "num_fewshot", "chat", "system_instruction")


def check_unique_ids(folder: str | Path, split: str, ids: Sequence[str]) -> None:
    """A :class:`NegkitError` naming the first item id that occurs twice in ``split`` of ``folder``: runs are
    paired, compared and resumed by item id, so a repeated id would count one item twice."""
    seen: set[str] = set()
    for item_id in ids:
        if item_id in seen:
            raise NegkitError(
                f"{folder}: item id {item_id!r} occurs more than once in split {split!r} (runs are "
                "compared by item id, so each item needs its own)"
            )
        seen.add(item_id)


def first_per_group(items: Sequence[Item], limit: int, group: Callable[[Item], Hashable]) -> list[Item]:
    """The first items of each group, at most ``ceil(limit / number of groups)`` of each, in their order: a
    ``--limit`` spread over a data set's groups (paradigms, relations, conditions) as evenly as can be."""
    per_group = -(-limit // max(1, len({group(item) for item in items})))
    counts: dict[Hashable, int] = {}
    kept = []
    for item in items:
        key = group(item)
        counts[key] = counts.get(key, 0) + 1
        if counts[key] <= per_group:
            kept.append(item)
    return kept


def resolve_limit(limit: int | float | None, total: int) -> int | None:
    """An item limit as a count: a whole number stays as it is; a fraction in (0, 1) is that share of
    ``total``, rounded up (the LM Evaluation Harness's ``--limit 0.1``)."""
    if limit is None or isinstance(limit, int):
        return limit
    if not 0 < limit < 1:
        raise NegkitError(f"a fractional limit must be between 0 and 1, got {limit}")
    return max(1, math.ceil(total * limit))


def load_grouped(
    task: Any, data: str | Path | None, split: str, limit: int | float | None, group: Callable[[Any], Hashable]
) -> TaskData:
    """The items of a declared task (``task.spec.read`` and ``task.spec.data_files`` on the folder of ``task.dataset``):
    with a ``limit`` below their number, the first of each ``group`` as evenly as can be (:func:`first_per_group`)."""
    folder = locate_dataset(task.dataset, data)
    items = task.spec.read(folder, split)
    total = len(items)
    limit = resolve_limit(limit, total)
    if limit is not None and limit < total:
        items = first_per_group(items, limit, group)
    selection = {"split": split, "limit": limit, "count": len(items), "items_in_split": total}
    return TaskData(items, task.spec.data_files(folder, split), selection)


def wrap_prompt(text: str, model: Any, chat: bool, system_instruction: str | None = None) -> str:
    """The context a model sees for the user text ``text``.

    With ``chat`` the text is the user message of the model's chat template (after a system message holding
    ``system_instruction`` when one is given), ending with the generation prompt. Without it a system
    instruction goes before the text, separated by a blank line unless it already ends with whitespace.
    """
    if chat:
        messages = [{"role": "system", "content": system_instruction}] if system_instruction else []
        prompt: str = model.apply_chat_template([*messages, {"role": "user", "content": text}])
        return prompt
    if system_instruction:
        separator = "" if system_instruction[-1].isspace() else "\n\n"
        return f"{system_instruction}{separator}{text}"
    return text


def grouped_record_estimands(
    spec: Any, records: Sequence[Mapping[str, Any]], average: str, headline_only: bool = False
) -> list[Estimand]:
    """The estimands of a task whose records carry ``spec.group_field`` (and a resampling ``unit``, else their
    ``item_id``): ``spec.metrics()`` over its groups (:func:`negkit.kit.metrics.grouped.grouped_estimands`)."""
    groups = [str(record[spec.group_field]) for record in records]
    units = [str(record.get("unit", record["item_id"])) for record in records]
    return grouped_estimands(
        records, spec.metrics(), groups, units, spec.unit, spec.groups_key, spec.groups, None, average, headline_only
    )
