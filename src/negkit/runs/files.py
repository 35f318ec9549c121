"""What a ``negkit eval`` results file says about its per-sample file, and the check readers make with it.

``TASK.results.json`` records, under ``samples``, the size, line count and SHA-256 of ``TASK.samples.jsonl`` as it
was written (:func:`samples_record`). Every file is written atomically, so the two agree unless something
outside negkit cut or changed one of them; a reader of a samples file that has its results file beside it
(``negkit score``) calls :func:`verify_samples`, which says so instead of scoring a partial file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError

SAMPLES_SUFFIX = ".samples.jsonl"
RESULTS_SUFFIX = ".results.json"


def task_file(base: str | Path, suffix: str) -> Path:
    """The run file of a task: ``base`` (the output folder joined with the task name) with ``suffix`` appended,
    never replacing a dot in the task's name (``toy.v1`` and ``toy.v2`` keep files of their own)."""
    base = Path(base)
    return base.with_name(base.name + suffix)


def samples_record(path: str | Path, lines: int) -> dict[str, Any]:
    """The ``samples`` entry of a results file for the samples file ``path`` of ``lines`` lines."""
    path = Path(path)
    return {"file": path.name, "lines": lines, "bytes": path.stat().st_size, "sha256": _sha256(path)}


def results_beside(samples: str | Path) -> Path | None:
    """``TASK.results.json`` beside ``TASK.samples.jsonl`` (None for another name, or when there is none)."""
    samples = Path(samples)
    if not samples.name.endswith(SAMPLES_SUFFIX):
        return None
    results = samples.with_name(samples.name[: -len(SAMPLES_SUFFIX)] + RESULTS_SUFFIX)
    return results if results.is_file() else None


def verify_samples(samples: str | Path) -> None:
    """An :class:`InputFormatError` when a samples file differs from what its results file records about it
    (cut short, appended to, or edited); nothing to check for a file without a results file (or an older one)."""
    samples = Path(samples)
    results = results_beside(samples)
    if results is None or not samples.is_file():
        return
    try:
        record = json.loads(results.read_text(encoding="utf-8")).get("samples")
    except (OSError, ValueError, AttributeError):
        return  # the results file is not negkit's (or is damaged): the samples file is read on its own
    if not isinstance(record, dict) or not isinstance(record.get("bytes"), int):
        return
    size = samples.stat().st_size
    if size != record["bytes"] or _sha256(samples) != record.get("sha256"):
        lines = _count_lines(samples)
        how = "cut short" if size < record["bytes"] else "longer" if size > record["bytes"] else "changed"
        raise InputFormatError(
            samples,
            None,
            f"{lines} lines ({size} bytes), but {results.name} records "
            f"{record.get('lines')} lines ({record['bytes']} bytes): the file is {how} "
            "(rerun negkit eval in that folder to rewrite it from the run store)",
        )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _count_lines(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(block.count(b"\n") for block in iter(lambda: handle.read(1 << 20), b""))
