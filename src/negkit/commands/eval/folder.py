"""One output folder, one model: what ``negkit eval`` checks in ``--out`` before it writes there.

A run folder is read back as one model's results (report, compare, leaderboard), so a run refuses a folder that
holds another model's tasks (told apart by the model fingerprint each ``TASK.results.json`` records), naming both
models. ``--start-over`` removes the folder's negkit run files first (only those: a file negkit did not write is
never touched). Nor is it overwritten: a ``results.json``, ``report.md`` or ``report.html`` in ``--out`` that is not
negkit's own is refused before the model loads (:func:`check_run_files_are_negkits`).
"""

from __future__ import annotations

import json
from pathlib import Path

from negkit.errors import NegkitError
from negkit.io.textfiles import read_json_object
from negkit.kit.runlog import ModelLog, validated
from negkit.runs.distributed import STORE_PATTERN
from negkit.runs.files import RESULTS_SUFFIX, SAMPLES_SUFFIX

#: Files of a task beside its ``TASK.results.json``.
TASK_SUFFIXES = (RESULTS_SUFFIX, SAMPLES_SUFFIX, ".md", ".timings.json")
#: The run-wide files of a folder.
RUN_FILES = ("results.json", "report.md", "report.html", "samples.html")


def recorded_models(out: Path) -> dict[str, ModelLog]:
    """Task name -> the ``model`` entry its ``TASK.results.json`` in ``out`` records (unreadable files and entries
    of the wrong form skipped: reading the run back reports them)."""
    models: dict[str, ModelLog] = {}
    for path in sorted(out.glob(f"*{RESULTS_SUFFIX}")) if out.is_dir() else ():
        try:
            model = read_json_object(path, "negkit eval task results").get("model")
            if isinstance(model, dict):
                models[path.name[: -len(RESULTS_SUFFIX)]] = validated(ModelLog, model, path)
        except NegkitError:
            continue
    return models


def check_one_model(out: Path, key: str, name: str) -> None:
    """A :class:`NegkitError` when ``out`` holds a task of a model other than the one of fingerprint ``key``."""
    for task, model in recorded_models(out).items():
        if model.key not in (None, key):
            template = (model.extra or {}).get("conversation_template")
            recorded = model.name or "?"
            shown = f"{recorded} with conversation template {template}" if template else recorded
            raise NegkitError(
                f"{out}: holds task {task} of model {shown} (fingerprint "
                f"{model.key}); this run is model {name} ({key}), and a run folder holds one "
                "model: use another --out, or --start-over to remove the folder's run files first"
            )


#: How negkit's own run-wide files begin (or, for results.json, a key they hold).
_OWN_MARKS = {
    "results.json": '"negkit_layout"',
    "report.md": "# negkit report",
    "report.html": "<title>negkit report",
    "samples.html": "<title>negkit samples",
}


def check_run_files_are_negkits(out: Path) -> None:
    """A :class:`NegkitError` naming a run-wide file in ``out`` that negkit did not write (the run would overwrite
    it): a user's ``results.json``, ``report.md``, ``report.html`` or ``samples.html``."""
    for name, mark in _OWN_MARKS.items():
        path = out / name
        if not path.is_file():
            continue
        try:
            if name == "results.json":  # its keys: negkit's has "negkit_layout" at the top level
                own = (
                    isinstance(value := json.loads(path.read_text(encoding="utf-8")), dict) and mark.strip('"') in value
                )
            else:
                with path.open("rb") as handle:
                    own = mark in handle.read(1 << 16).decode("utf-8", "replace")
        except (OSError, ValueError):
            own = False
        if not own:
            raise NegkitError(
                f"{path}: not written by negkit eval, and a run would overwrite it: use another --out or move the file"
            )


def start_over(out: Path) -> list[Path]:
    """Remove the negkit run files of ``out`` (tasks' results, samples, tables and timings; the run's results and
    reports; the request store) and return them; every other file stays."""
    if not out.is_dir():
        return []
    tasks = [path.name[: -len(RESULTS_SUFFIX)] for path in out.glob(f"*{RESULTS_SUFFIX}")]
    doomed = [out / f"{task}{suffix}" for task in tasks for suffix in TASK_SUFFIXES]
    doomed += [out / name for name in RUN_FILES] + sorted(out.glob(STORE_PATTERN))
    removed = [path for path in doomed if path.is_file()]
    for path in removed:
        path.unlink()
    return removed
