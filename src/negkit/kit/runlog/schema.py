"""JSON Schemas of the run files, generated from the run-log models: ``results.schema.json`` (``results.json``),
``task-results.schema.json`` (``TASK.results.json``) and ``sample.schema.json`` (a line of
``TASK.samples.jsonl``). The copies in the repository's ``docs/schema/`` are written by
``python -m negkit.kit.runlog docs/schema``; a test checks that they are what the models give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from negkit.io.atomic import atomic_write_text
from negkit.kit.harness.layout import LAYOUT_VERSION
from negkit.kit.runlog.run import RunLog
from negkit.kit.runlog.samples import ChoiceSample, GenerationSample, PairSample, SampleRecord, TruthSample
from negkit.kit.runlog.task import TaskLog

#: The JSON Schema dialect of the files.
DIALECT = "https://json-schema.org/draft/2020-12/schema"

#: The kinds of sample records, the plain one last (it reads any record with an ``item_id``).
AnySample = ChoiceSample | PairSample | TruthSample | GenerationSample | SampleRecord


def _with_header(schema: dict[str, Any], title: str, description: str) -> dict[str, Any]:
    header = {
        "$schema": DIALECT,
        "title": title,
        "description": f"{description} Layout {LAYOUT_VERSION} (older layouts read too); generated from "
        "negkit.kit.runlog by `python -m negkit.kit.runlog docs/schema`.",
    }
    return {**header, **{key: value for key, value in schema.items() if key not in header}}


def schemas() -> dict[str, dict[str, Any]]:
    """The schemas by file name."""
    return {
        "results.schema.json": _with_header(
            RunLog.model_json_schema(),
            "results.json",
            "A negkit eval run: the LM Evaluation Harness's keys and negkit's.",
        ),
        "task-results.schema.json": _with_header(
            TaskLog.model_json_schema(), "TASK.results.json", "One task of a negkit eval run."
        ),
        "sample.schema.json": _with_header(
            TypeAdapter(AnySample).json_schema(),
            "TASK.samples.jsonl record",
            "One line of a task's samples file: one item, its answer and the suite's fields; the kind of record is "
            "told by the fields it holds.",
        ),
    }


def schema_text(schema: dict[str, Any]) -> str:
    """A schema as the file holds it."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_schemas(folder: str | Path) -> list[Path]:
    """Write every schema into ``folder``; the paths written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        atomic_write_text(folder / name, schema_text(schema))
        written.append(folder / name)
    return written
