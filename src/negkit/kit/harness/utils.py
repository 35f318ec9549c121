"""Data loaders of the negkit tasks exported for the LM Evaluation Harness (``negkit export lm-eval``): the part
every export shares.

This file is copied next to the task YAML files as ``utils.py``, followed by one loader per exported task that
reads the documents negkit wrote (``def load_x(**_options): return _load_docs("x")``) and by the code a suite
adds (:attr:`negkit.kit.suites.HarnessExport.utils_source`); the Harness imports it from there (``!function
utils.load_...``). It needs only the Python standard library and ``datasets`` (which the Harness installs), not
negkit. ``negkit_export.json`` beside it says which items each task asks, in negkit's order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "negkit_export.json"


def _manifest() -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return manifest


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _dataset(rows_by_split: dict[str, list[dict[str, Any]]]) -> object:
    import datasets  # heavy, and needed only when the Harness loads a task

    return datasets.DatasetDict({split: datasets.Dataset.from_list(rows) for split, rows in rows_by_split.items()})


def _load_docs(task: str) -> object:
    entry = _manifest()["tasks"][task]
    return _dataset({split: _read_jsonl(HERE / name) for split, name in entry["docs"].items()})


def _load_part(task: str, part: str) -> object:
    """The documents of one part of a paired task (the rows whose ``part`` is ``part``)."""
    entry = _manifest()["tasks"][task]
    return _dataset(
        {
            split: [row for row in _read_jsonl(HERE / name) if row.get("part") == part]
            for split, name in entry["docs"].items()
        }
    )
