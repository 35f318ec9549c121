"""Reading ``negkit eval`` output folders back, and a task's headline metrics rebuilt from its per-sample records.

A run folder holds ``TASK.results.json`` (the run description and metrics) and ``TASK.samples.jsonl`` (one record
per item) for each task run. :func:`read_run` loads them, each file checked as its run-log model
(:mod:`negkit.kit.runlog`: :class:`~negkit.kit.runlog.TaskLog`, :class:`~negkit.kit.runlog.SampleRecord`;
:func:`read_run_results` reads ``results.json`` as a :class:`~negkit.kit.runlog.RunLog`); :func:`record_estimands` turns a task's records into the
estimands of :mod:`negkit.kit.metrics.intervals` with the builder its suite gives (:attr:`SuiteView.estimands`: the
suite's headline metrics, the same definitions as the tasks' intervals), so that two runs can be compared item by
item from their folders alone, without the data sets. :func:`need` reads one field of a record for such a builder
(a missing or malformed field names the file and line).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, NegkitError, quoted, shortened
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.results import RESULTS_FILE, TaskResult
from negkit.kit.runlog import ModelLog, RunLog, SampleRecord, TaskLog, iter_sample_records, read_run_log, read_task_log
from negkit.kit.view import SuiteView
from negkit.runs.files import RESULTS_SUFFIX, SAMPLES_SUFFIX, verify_samples

#: One task of a run folder, read back (:class:`negkit.kit.results.TaskResult` with its records and samples file).
TaskRun = TaskResult


@dataclass
class RunFolder:
    """A ``negkit eval`` output folder: its tasks by name, and the model that answered."""

    path: Path
    tasks: dict[str, TaskRun] = field(default_factory=dict)

    @property
    def model(self) -> ModelLog:
        """The model of the folder's first task (an empty fingerprint when there is none)."""
        first = next(iter(self.tasks.values()), None)
        return first.log.model if first is not None and first.log.model is not None else ModelLog()

    @property
    def model_name(self) -> str:
        return self.model.name or "?"


def read_samples(path: Path) -> list[SampleRecord]:
    """The records of a ``TASK.samples.jsonl`` file, each checked as the model of its kind: the file must be what
    its results file records (size and SHA-256: not cut short, appended to or edited), and each item id appear
    once; a bad line is an error naming the file, the line and the field."""
    verify_samples(path)
    records: list[SampleRecord] = []
    first_line: dict[str, int] = {}
    for line, record in iter_sample_records(path):
        key = str(record.item_id)
        if key in first_line:
            raise InputFormatError(
                path,
                line,
                f"item {quoted(key)} again (first on line {first_line[key]}): a "
                "run holds one record per item, so the run cannot be compared or ranked",
            )
        first_line[key] = line
        records.append(record)
    return records


def read_task_results(path: Path) -> TaskLog:
    """A ``TASK.results.json`` file, checked field by field (:class:`~negkit.kit.runlog.TaskLog`): anything else
    is an :class:`InputFormatError` naming the file and the field."""
    return read_task_log(path)


def read_task(folder: Path, name: str) -> TaskRun:
    """Task ``name`` of the run folder ``folder``: its results, its checked samples and its tables."""
    log = read_task_results(folder / f"{name}{RESULTS_SUFFIX}")
    samples = folder / f"{name}{SAMPLES_SUFFIX}"
    if not samples.is_file():
        raise InputFormatError(samples, None, f"missing: the per-sample records of task {name}")
    tables = folder / f"{name}.md"
    records = [record.fields() for record in read_samples(samples)]
    return TaskResult(log, records, tables.read_text(encoding="utf-8") if tables.is_file() else None, samples)


def read_run(path: str | Path) -> RunFolder:
    """Every task of the run folder ``path`` (``TASK.results.json`` with its ``TASK.samples.jsonl``)."""
    folder = Path(path)
    if not folder.is_dir():
        raise NegkitError(f"{folder}: not a run folder (no such directory)")
    run = RunFolder(folder)
    for results_file in sorted(folder.glob(f"*{RESULTS_SUFFIX}")):
        name = results_file.name[: -len(RESULTS_SUFFIX)]
        run.tasks[name] = read_task(folder, name)
    if not run.tasks:
        raise NegkitError(f"{folder}: no TASK{RESULTS_SUFFIX} files (is it a `negkit eval` output folder?)")
    return run


def read_run_results(path: str | Path) -> RunLog:
    """A run folder's ``results.json`` (or that file named itself), checked field by field."""
    file = Path(path)
    return read_run_log(file / RESULTS_FILE if file.is_dir() else file)


def data_identity(task: TaskRun) -> tuple[str, dict[str, str]]:
    """The split a task ran on and the SHA-256 of each data file it read (as its results file records them)."""
    data = task.log.data
    if data is None:
        return "", {}
    hashes = {name: entry.sha256 for name, entry in (data.files or {}).items() if entry.sha256}
    return data.split or "", hashes


def different_data(task_name: str, first: TaskRun, first_name: str, second: TaskRun, second_name: str) -> str | None:
    """Why two runs of ``task_name`` cannot be paired item by item (another split, or data files whose hashes
    differ: item ids would pair different items), or None. A results file that records no hashes is taken as is."""
    (split_a, files_a), (split_b, files_b) = data_identity(first), data_identity(second)
    if split_a and split_b and split_a != split_b:
        return f"task {task_name}: {first_name} ran on split {split_a!r}, {second_name} on split {split_b!r}"
    for name in sorted(set(files_a) & set(files_b)):
        if files_a[name] != files_b[name]:
            return (
                f"task {task_name}: {first_name} read {name} with SHA-256 {files_a[name][:12]}..., {second_name} "
                f"one with {files_b[name][:12]}... (different data: item ids would pair different items)"
            )
    if files_a and files_b and not set(files_a) & set(files_b):
        return f"task {task_name}: {first_name} and {second_name} read different data files"
    return None


def need(
    record: Mapping[str, Any],
    name: str,
    path: Path,
    number: int,
    kind: type | None = None,
    parse: Callable[[Any], Any] | None = None,
) -> Any:
    """``record[name]``, which must be there (and, with ``kind`` int or bool, be a whole number or a boolean;
    ``parse`` first reads the value, e.g. a boolean written as a string)."""
    if name not in record:
        raise InputFormatError(path, number, f"sample record lacks {name!r} (needed to compare runs)")
    value = record[name]
    if parse is not None:
        value = parse(value)
    elif kind is int and isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer():
        value = int(value)
    if kind is not None and not isinstance(value, kind):
        raise InputFormatError(
            path,
            number,
            f"field {name!r}: expected {'a boolean' if kind is bool else 'a whole number'}, "
            f"found {quoted(record[name])}",
        )
    return value


def record_estimands(
    task_name: str, records: Sequence[dict[str, Any]], path: Path | None, view: SuiteView | None
) -> list[Estimand]:
    """The headline estimands of ``task_name`` from its records with its suite's builder (``path`` names the
    file in errors; None: the task's samples file by its usual name)."""
    path = path if path is not None else Path(task_name + SAMPLES_SUFFIX)
    builder = None if view is None else view.estimand_builder
    if builder is None:
        raise NegkitError(f"task {task_name}: negkit cannot compare this task from its samples")
    try:
        return [estimand for estimand in builder(records, path) if estimand.headline]
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as error:  # a field of the wrong form
        raise InputFormatError(
            path, None, f"damaged sample records of task {task_name} ({type(error).__name__}: {shortened(str(error))})"
        ) from None
