"""Typed results: :class:`TaskResult` (one task of a run: its :class:`~negkit.kit.runlog.TaskLog`, its per-sample
records, its tables) and :class:`RunResult` (a run's tasks, its reproduction record, the suites skipped).

A :class:`TaskResult` reads like the ``TASK.results.json`` dictionary of its log (``result["metrics"]``,
``result.get("data")``), so code written for the dictionaries keeps working; new code reads the typed
:attr:`TaskResult.log`. :meth:`RunResult.log` is ``results.json``: the LM Evaluation Harness's layout built from
the tasks, as a :class:`~negkit.kit.runlog.RunLog`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from negkit.kit.harness.layout import harness_layout
from negkit.kit.runlog import RunLog, TaskLog, plain_json, run_log, task_log

#: The name ``results.json`` errors give a run log built in memory.
RESULTS_FILE = "results.json"


@dataclass
class TaskResult(Mapping[str, Any]):
    """One task of a run: ``log`` (the content of ``TASK.results.json``, typed), its per-sample ``records``, its
    Markdown ``tables`` (None when read back without them) and the samples file, once written or read."""

    log: TaskLog
    records: list[dict[str, Any]] = field(default_factory=list)
    tables: str | None = None
    samples_file: Path | None = None

    @classmethod
    def from_results(
        cls,
        results: Mapping[str, Any],
        records: list[dict[str, Any]] | None = None,
        tables: str | None = None,
        samples_file: Path | None = None,
        path: str | Path = "<task results>",
    ) -> TaskResult:
        """A task from its results dictionary, checked as a :class:`TaskLog` (``path`` names it in errors)."""
        return cls(task_log(plain_json(results), path), list(records or []), tables, samples_file)

    @cached_property
    def results(self) -> dict[str, Any]:
        """The log as the ``TASK.results.json`` dictionary (with ``files`` where the run wrote them)."""
        return self.log.as_json()

    @property
    def name(self) -> str:
        return self.log.name

    @property
    def metrics(self) -> dict[str, Any]:
        return self.log.metric_values

    def __getitem__(self, key: str) -> Any:
        return self.results[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)


@dataclass
class RunResult:
    """A ``negkit eval`` run: its tasks, the reproduction record, the suites skipped for want of data, and the wall
    time in seconds."""

    tasks: Sequence[TaskResult]
    record: dict[str, Any] | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    seconds: float | None = None

    def layout(self) -> dict[str, Any]:
        """``results.json``: the Harness's top-level keys, then negkit's ``record``, ``tasks`` and ``skipped``."""
        return harness_layout([task.results for task in self.tasks], self.record, self.seconds, self.skipped)

    def log(self, citations: Mapping[str, str] | None = None) -> RunLog:
        """:meth:`layout` as a :class:`RunLog`, with ``citations`` (BibTeX entries by key) where given."""
        layout = self.layout()
        if citations is not None:
            layout["citations"] = dict(citations)
        return run_log(plain_json(layout), RESULTS_FILE)
