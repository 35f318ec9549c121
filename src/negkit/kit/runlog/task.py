"""``TASK.results.json``: one task of a ``negkit eval`` run (:class:`TaskLog`) and its parts.

Every field is typed where the layout fixes it; where the layout holds an open object (the metrics by name, the
timings, the engine's counts, the options of the reproduction record) its keys are kept as they are. Fields are
optional where an older layout lacks them (docs/reproducibility.md, "Run file layouts"), and a file without
``negkit_layout`` is layout 1.
"""

from __future__ import annotations

from typing import Any

from negkit.kit.runlog.base import LogModel, Number


class TaskConfig(LogModel):
    """``task``: how the task was set up (its suite's options, prompt, answers; suites add their own keys)."""

    task: str | None = None
    model_kind: str | None = None
    prompt: str | None = None
    target_delimiter: str | None = None
    fewshot_delimiter: str | None = None
    num_fewshot: int | None = None
    fewshot_examples: list[Any] | None = None
    chat: bool | str | None = None
    system_instruction: str | None = None


class ModelLog(LogModel):
    """``model``: the model's fingerprint (``key`` tells two models apart), how it was loaded, its arguments."""

    backend: str | None = None
    name: str | None = None
    dtype: str | None = None
    revision: str | None = None
    sha256: str | None = None
    extra: dict[str, Any] | None = None
    key: str | None = None
    load: dict[str, Any] | None = None
    model_args: dict[str, Any] | None = None


class PromptLog(LogModel):
    """``prompt``: the exact template sent to the model and what a chat template adds."""

    template: str | None = None
    chat_template_applied: bool | None = None
    system_instruction: str | None = None
    conversation_template: str | None = None
    inserted_system_text: str | None = None
    chat_template_sha256: str | None = None


class FileLog(LogModel):
    """One data file read: its SHA-256 and size (both null for a name on the hub)."""

    sha256: str | None = None
    bytes: int | None = None


class DataLog(LogModel):
    """``data``: the data root, every file read (by its path under the root), the split and the items scored."""

    root: str | None = None
    files: dict[str, FileLog] | None = None
    split: str | None = None
    limit: Number | None = None
    seed: int | None = None
    count: int | None = None
    items_in_split: int | None = None
    groups: int | None = None
    groups_in_split: int | None = None
    source: str | None = None
    sample: dict[str, Any] | None = None


class RequestsLog(LogModel):
    """``requests``: how many the task made, how many differed, how many were computed now or read back."""

    total: int | None = None
    unique: int | None = None
    computed: int | None = None
    from_store: int | None = None


class DistributedLog(LogModel):
    """``distributed``: a run shared by a process group (its size and each rank's counts)."""

    world_size: int | None = None
    ranks: list[dict[str, Any]] | None = None


class PrivacyLog(LogModel):
    """``privacy``: the fields written as SHA-256 hashes (TIND inside a git working tree) and why."""

    redacted_fields: list[str] | None = None
    replaced_by: list[str] | None = None
    reason: str | None = None
    run_store: str | None = None


class SamplesFileLog(LogModel):
    """``samples``: ``TASK.samples.jsonl`` as written (readers check that the file is still that one)."""

    file: str | None = None
    lines: int | None = None
    bytes: int | None = None
    sha256: str | None = None


class RunRecord(LogModel):
    """``record``: the reproduction record of the run (the command, the options in effect, the environment)."""

    command: str | None = None
    argv: list[str] | None = None
    model_spec: str | None = None
    tasks: list[str] | None = None
    options: dict[str, Any] | None = None
    environment: dict[str, Any] | None = None
    model: dict[str, Any] | None = None
    chat_template: str | None = None
    date_utc: str | None = None
    unix_time: Number | None = None
    cwd: str | None = None


class IntervalLog(LogModel):
    """One entry of ``metrics.intervals``: a metric's estimate with its 95% interval and how it was drawn."""

    label: str | None = None
    estimate: Number | None = None
    ci: list[Number | None] | None = None
    level: Number | None = None
    method: str | None = None
    headline: bool | None = None
    unit: str | None = None
    units: int | None = None
    rows: int | None = None
    resamples: int | None = None
    seed: int | None = None
    se: Number | None = None
    se_clustered: Number | None = None
    bootstrap_se: Number | None = None
    undefined_resamples: int | None = None


class TaskMetrics(LogModel):
    """``metrics``: the papers' metrics by name (each suite its own), with ``intervals`` by metric path."""

    intervals: dict[str, IntervalLog] | None = None


class TaskLog(LogModel):
    """``TASK.results.json``: what ran (task, model, prompt, data, seed), how (requests, timings, the engine, the
    reproduction record), what it scored (``metrics`` and the Harness's ``harness``) and the samples file."""

    negkit_version: str | None = None
    #: The layout version (docs/reproducibility.md); a file without the key is layout 1.
    negkit_layout: int = 1
    task: TaskConfig
    model: ModelLog | None = None
    mode: str | None = None
    chat_template: bool | None = None
    prompt: PromptLog | None = None
    data: DataLog | None = None
    seed: int | None = None
    requests: RequestsLog | None = None
    timings: dict[str, Any] | None = None
    engine: dict[str, Any] | None = None
    distributed: DistributedLog | None = None
    command: str | None = None
    record: RunRecord | None = None
    metrics: TaskMetrics | None = None
    #: The Harness's metrics of the task (``acc,none``, ``acc_stderr,none``: a number, or ``N/A``).
    harness: dict[str, Number | str] | None = None
    privacy: PrivacyLog | None = None
    samples: SamplesFileLog | None = None
    #: Where the task's files were written, by kind (``results``, ``samples``, ``tables``): in ``results.json``'s
    #: ``tasks`` for the tasks the run itself wrote, never in ``TASK.results.json``.
    files: dict[str, str] | None = None

    @property
    def name(self) -> str:
        """The task's name (``?`` when the file does not say)."""
        return self.task.task or "?"

    @property
    def metric_values(self) -> dict[str, Any]:
        """The metrics as the file holds them (an empty object when there are none)."""
        return self.metrics.as_json() if self.metrics is not None else {}
