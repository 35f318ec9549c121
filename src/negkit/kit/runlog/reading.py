"""Reading run files into the run-log models: every way a file can be bad is one
:class:`~negkit.errors.InputFormatError` naming the file (and the line of a samples record) and the field."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, quoted
from negkit.io.textfiles import iter_json_objects, json_kind, read_json_object
from negkit.kit.runlog.base import validated
from negkit.kit.runlog.run import RunLog
from negkit.kit.runlog.samples import SampleRecord, sample_model
from negkit.kit.runlog.task import TaskLog


def task_log(data: Mapping[str, Any], path: str | Path) -> TaskLog:
    """The content of a ``TASK.results.json`` (``path`` names it in errors) as a :class:`TaskLog`."""
    if "task" not in data:
        raise InputFormatError(path, None, "no 'task' field (is it a TASK.results.json of `negkit eval`?)")
    if not isinstance(data["task"], Mapping):
        found = data["task"]
        raise InputFormatError(
            path, None, f"field 'task': expected a JSON object, found {json_kind(found)} {quoted(found)}"
        )
    return validated(TaskLog, data, path, what="negkit eval task results")


def read_task_log(path: str | Path) -> TaskLog:
    """A ``TASK.results.json`` file, checked field by field."""
    return task_log(read_json_object(path, "negkit eval task results"), path)


def run_log(data: Mapping[str, Any], path: str | Path) -> RunLog:
    """The content of a run's ``results.json`` (``path`` names it in errors) as a :class:`RunLog`."""
    if "negkit_layout" not in data and "record" not in data:
        raise InputFormatError(path, None, "no 'negkit_layout' field (is it the results.json of `negkit eval`?)")
    return validated(RunLog, data, path, what="negkit eval results")


def read_run_log(path: str | Path) -> RunLog:
    """A run's ``results.json`` file, checked field by field."""
    return run_log(read_json_object(path, "negkit eval results"), path)


def sample_record(record: Mapping[str, Any], path: str | Path, line: int | None = None) -> SampleRecord:
    """One record of a ``TASK.samples.jsonl`` (on ``line``) as the model of its kind."""
    return validated(sample_model(record), record, path, line)


def iter_sample_records(path: str | Path) -> Iterator[tuple[int, SampleRecord]]:
    """``(line number, record)`` for every record of a ``TASK.samples.jsonl`` file, each checked: a bad line is an
    error naming the file, the line and the field."""
    for line, record in iter_json_objects(path, required=("item_id",)):
        yield line, sample_record(record, path, line)
