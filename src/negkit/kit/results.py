"""Typed results: :class:`TaskResult` (one task of a run: its results file's content, its per-sample records, its
tables) and :class:`RunResult` (a run's tasks, its reproduction record, the suites skipped).

A :class:`TaskResult` reads like the ``TASK.results.json`` dictionary it holds (``result["metrics"]``,
``result.get("data")``), so code written for the dictionaries keeps working; :meth:`RunResult.layout` is
``results.json``: the LM Evaluation Harness's layout built from the tasks' typed parts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.kit.harness.layout import harness_layout


@dataclass
class TaskResult(Mapping[str, Any]):
    """One task of a run: ``results`` (the content of ``TASK.results.json``), its per-sample ``records``, its Markdown
    ``tables`` (None when read back without them) and the samples file, once written or read."""

    results: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    tables: str | None = None
    samples_file: Path | None = None

    @property
    def name(self) -> str:
        return str(self.results.get("task", {}).get("task", "?"))

    @property
    def metrics(self) -> dict[str, Any]:
        metrics: dict[str, Any] = self.results.get("metrics", {})
        return metrics

    @property
    def model(self) -> dict[str, Any]:
        model: dict[str, Any] = self.results.get("model", {})
        return model

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
