"""Reading ``negkit eval`` output folders back, and each suite's headline metrics rebuilt from per-sample records.

A run folder holds ``TASK.results.json`` (the run description and metrics) and ``TASK.samples.jsonl`` (one record
per item) for each task run. :func:`read_run` loads them; :func:`record_estimands` turns a task's records into the
estimands of :mod:`negkit.metrics.intervals` (the suite's headline metrics, the same definitions as the tasks'
intervals), so that two runs can be compared item by item from their folders alone, without the data sets.

Suites and the record fields they need (``negkit eval`` writes them all):

- TIND (``tind``, ``tind-*``): the HF fields ``pattern_id``, ``test_id``, ``negation_type``, ``semantic_type``,
  ``syntactic_scope``, ``isDistractor``, ``label`` and the boolean ``prediction``; unit: the group;
- NaN-NLI: ``gold``, ``prediction`` and ``premise_id`` (without it the item is its own unit and strict accuracy
  is left out); ScoNe: ``gold``, ``prediction``, ``row`` (or the row in the item id); unit: the base pair;
- Thunder-NUBench: ``runs`` with each run's ``prediction`` / ``prediction_norm``; unit: the item;
- CondaQA (``condaqa``, ``condaqa-*``): ``passage_id``, ``question_id``, ``edit``, ``correct``; unit: the passage.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.data.nli import NLIItem
from negkit.data.nubench import json_objects
from negkit.data.tind_types import PATTERN_NAMES, TruthItem
from negkit.errors import InputFormatError, NegkitError, quoted, shortened
from negkit.io.textfiles import read_json_object
from negkit.metrics.condaqa_intervals import condaqa_estimands
from negkit.metrics.intervals import Estimand
from negkit.metrics.mc_intervals import nubench_estimands
from negkit.metrics.nli_intervals import nan_nli_estimands, scone_estimands
from negkit.metrics.tind_intervals import tind_estimands

RESULTS_SUFFIX = ".results.json"
SAMPLES_SUFFIX = ".samples.jsonl"
_SCONE_ID = re.compile(r"scone-\w+-(?P<condition>\w+)-(?P<row>\d+)$")


@dataclass
class TaskRun:
    """One task of a run folder: its results dictionary and its per-item records."""

    name: str
    results: dict[str, Any]
    records: list[dict[str, Any]]
    samples_file: Path

    @property
    def metrics(self) -> dict[str, Any]:
        return self.results.get("metrics", {})


@dataclass
class RunFolder:
    """A ``negkit eval`` output folder: its tasks by name, and the model that answered."""

    path: Path
    tasks: dict[str, TaskRun] = field(default_factory=dict)

    @property
    def model(self) -> dict[str, Any]:
        first = next(iter(self.tasks.values()), None)
        return first.results.get("model", {}) if first else {}

    @property
    def model_name(self) -> str:
        return str(self.model.get("name", "?"))


def read_samples(path: Path) -> list[dict[str, Any]]:
    """The records of a ``TASK.samples.jsonl`` file (a bad line is an error naming the file and line)."""
    records = []
    for number, record in json_objects(path):
        if "item_id" not in record:
            raise InputFormatError(path, number, "a sample record must have an 'item_id'")
        records.append(record)
    return records


#: Fields of a ``TASK.results.json`` that hold JSON objects (``task`` must be there: it names the task).
_RESULT_OBJECTS = ("task", "model", "data", "metrics", "timings")


def read_task_results(path: Path) -> dict[str, Any]:
    """A ``TASK.results.json`` file: a JSON object whose ``task``, ``model``, ``data``, ``metrics`` (where present)
    are objects; anything else is an :class:`InputFormatError` naming the file."""
    results = read_json_object(path, "negkit eval task results")
    if "task" not in results:
        raise InputFormatError(path, None, "no 'task' field (is it a TASK.results.json of `negkit eval`?)")
    for key in _RESULT_OBJECTS:
        if key in results and not isinstance(results[key], dict):
            raise InputFormatError(path, None, f"field {key!r}: expected a JSON object, found "
                                   f"{type(results[key]).__name__} {quoted(results[key])}")
    return results


def read_run(path: str | Path) -> RunFolder:
    """Every task of the run folder ``path`` (``TASK.results.json`` with its ``TASK.samples.jsonl``)."""
    folder = Path(path)
    if not folder.is_dir():
        raise NegkitError(f"{folder}: not a run folder (no such directory)")
    run = RunFolder(folder)
    for results_file in sorted(folder.glob(f"*{RESULTS_SUFFIX}")):
        name = results_file.name[: -len(RESULTS_SUFFIX)]
        results = read_task_results(results_file)
        samples = folder / f"{name}{SAMPLES_SUFFIX}"
        if not samples.is_file():
            raise InputFormatError(samples, None, f"missing: the per-sample records of task {name}")
        run.tasks[name] = TaskRun(name, results, read_samples(samples), samples)
    if not run.tasks:
        raise NegkitError(f"{folder}: no TASK{RESULTS_SUFFIX} files (is it a `negkit eval` output folder?)")
    return run


def suite_of(task_name: str) -> str | None:
    """The suite whose headline metrics a task reports (None: a task negkit cannot rebuild from records)."""
    if task_name == "tind" or task_name.startswith("tind-"):
        return "tind"
    if task_name in ("nan-nli", "scone", "nubench"):
        return task_name
    if task_name == "condaqa" or task_name.startswith("condaqa-"):
        return "condaqa"
    return None


def _need(record: dict[str, Any], name: str, path: Path, number: int, kind: type | None = None) -> Any:
    """``record[name]``, which must be there (and, with ``kind`` int or bool, be a whole number or a boolean)."""
    if name not in record:
        raise InputFormatError(path, number, f"sample record lacks {name!r} (needed to compare runs)")
    value = record[name]
    if kind is bool:
        from negkit.data.tind_hf import parse_bool

        value = parse_bool(value)
    elif kind is int and isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer():
        value = int(value)
    if kind is not None and not isinstance(value, kind):
        raise InputFormatError(path, number, f"field {name!r}: expected {'a boolean' if kind is bool else 'a whole number'}, "
                               f"found {quoted(record[name])}")
    return value


def tind_items(records: Sequence[dict[str, Any]], path: Path) -> tuple[list[TruthItem], list[bool]]:
    """TIND items (without sentences) and predictions from ``negkit eval``'s TIND records."""
    items, predictions = [], []
    for number, record in enumerate(records, start=1):
        pattern_id = _need(record, "pattern_id", path, number, int)
        items.append(TruthItem(
            item_id=str(record["item_id"]), group_id=_need(record, "test_id", path, number, int), pattern_id=pattern_id,
            pattern=str(record.get("pattern", PATTERN_NAMES.get(pattern_id, ""))), template_id=str(record.get("template_id", "")),
            negation_type=str(_need(record, "negation_type", path, number)),
            semantic_type=str(_need(record, "semantic_type", path, number)),
            syntactic_scope=str(_need(record, "syntactic_scope", path, number)), kind=str(record.get("kind", "")),
            is_distractor=_need(record, "isDistractor", path, number, bool), label=_need(record, "label", path, number, bool),
            sentence="",
        ))
        predictions.append(_need(record, "prediction", path, number, bool))
    return items, predictions


def nli_items(records: Sequence[dict[str, Any]], suite: str, path: Path) -> tuple[list[NLIItem], list[str]]:
    """NLI items (gold label and unit only) and predicted labels from ``negkit eval``'s NaN-NLI / ScoNe records."""
    items, predicted = [], []
    for number, record in enumerate(records, start=1):
        item_id = str(record["item_id"])
        condition, row = record.get("condition", ""), record.get("row", -1)
        match = _SCONE_ID.match(item_id) if suite == "scone" else None
        if match and row == -1:
            condition, row = match["condition"], int(match["row"])
        items.append(NLIItem(item_id, "", "", str(_need(record, "gold", path, number)), suite,
                             premise_id=str(record.get("premise_id", "")), condition=str(condition), row=int(row)))
        predicted.append(str(_need(record, "prediction", path, number)))
    return items, predicted


def _condaqa_records(records: Sequence[dict[str, Any]], path: Path) -> list[dict[str, Any]]:
    """The fields the CondaQA intervals need, checked (a missing one names the file and line)."""
    fields = ("passage_id", "question_id", "edit", "correct")
    return [{name: _need(record, name, path, number) for name in fields} for number, record in enumerate(records, start=1)]


def _nubench_runs(records: Sequence[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(run for record in records for run in record.get("runs", {})))


#: Suite -> records -> all estimands (the headline ones are picked by :func:`record_estimands`).
_BUILDERS: dict[str, Callable[[Sequence[dict[str, Any]], Path], list[Estimand]]] = {
    "tind": lambda records, path: tind_estimands(*tind_items(records, path)),
    "nan-nli": lambda records, path: nan_nli_estimands(*nli_items(records, "nan-nli", path), headline_only=True),
    "scone": lambda records, path: scone_estimands(*nli_items(records, "scone", path)),
    "nubench": lambda records, path: nubench_estimands(records, _nubench_runs(records)),
    "condaqa": lambda records, path: condaqa_estimands(_condaqa_records(records, path)),
}


def record_estimands(task_name: str, records: Sequence[dict[str, Any]], path: Path) -> list[Estimand]:
    """The headline estimands of ``task_name`` from its records (``path`` names the file in errors)."""
    suite = suite_of(task_name)
    if suite is None:
        raise NegkitError(f"task {task_name}: negkit cannot compare this task from its samples")
    try:
        estimands = [estimand for estimand in _BUILDERS[suite](records, path) if estimand.headline]
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as error:  # a field of the wrong form
        raise InputFormatError(path, None, f"damaged sample records of task {task_name} "
                               f"({type(error).__name__}: {shortened(str(error))})") from None
    if suite == "nan-nli" and not any(record.get("premise_id") for record in records):
        # samples written before premise ids were recorded: items are their own units and strict is unknown
        estimands = [e for e in estimands if not e.path.startswith("strict.")]
    return estimands


#: The metric a leaderboard is sorted by, per suite.
PRIMARY: dict[str, str] = {
    "tind": "all.accuracy",
    "nan-nli": "standard.all_f1",
    "scone": "accuracy.overall",
    "nubench": "summary.acc.mean",
    "condaqa": "accuracy.accuracy",
}
