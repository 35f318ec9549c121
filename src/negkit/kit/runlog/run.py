"""``results.json``: a whole ``negkit eval`` run (:class:`RunLog`), in the LM Evaluation Harness's layout
(:mod:`negkit.kit.harness.layout`) with negkit's ``record``, ``tasks``, ``skipped`` and ``citations`` beside it."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from negkit.kit.runlog.base import LogModel, Number
from negkit.kit.runlog.task import RunRecord, TaskLog


class HarnessTaskResult(LogModel):
    """``results[TASK]``: the task's name and items, then its Harness metrics (``acc,none``, ``acc_stderr,none``,
    ...: a number, or ``N/A`` for a standard error of fewer than two items)."""

    name: str | None = None
    alias: str | None = None
    sample_len: int | None = None


class MetricSpec(LogModel):
    """One entry of a task config's ``metric_list``."""

    metric: str
    aggregation: str | None = None
    higher_is_better: bool | None = None


class HarnessTaskConfig(LogModel):
    """``configs[TASK]``: the task as a Harness task config (``metadata.negkit_task``: negkit's own)."""

    task: str | None = None
    output_type: str | None = None
    test_split: str | None = None
    doc_to_text: str | None = None
    target_delimiter: str | None = None
    fewshot_delimiter: str | None = None
    num_fewshot: int | None = None
    metric_list: list[MetricSpec] | None = None
    metadata: dict[str, Any] | None = None


class SampleCounts(LogModel):
    """``n-samples[TASK]``: the items in the split and the items scored."""

    original: int | None = None
    effective: int | None = None


class HarnessConfig(LogModel):
    """``config``: the run's model and settings under the Harness's names."""

    model: str | None = None
    model_args: dict[str, Any] | str | None = None
    model_dtype: str | None = None
    model_revision: str | None = None
    model_sha: str | None = None
    batch_size: str | int | None = None
    batch_sizes: list[int | str] | None = None
    device: str | None = None
    use_cache: Any = None
    #: The item limit: one for every task, or by task.
    limit: Number | dict[str, Number] | None = None
    bootstrap_iters: int | None = None
    gen_kwargs: Any = None
    random_seed: int | None = None
    numpy_seed: int | None = None
    torch_seed: int | None = None
    fewshot_seed: int | None = None


class RunLog(LogModel):
    """``results.json``: the Harness's top-level keys, then negkit's ``record`` (the reproduction record),
    ``tasks`` (each task's results, less its record), ``skipped`` (suites left out for want of data: how to get
    them) and ``citations`` (BibTeX entries by key)."""

    results: dict[str, HarnessTaskResult]
    group_subtasks: dict[str, list[str]] | None = None
    configs: dict[str, HarnessTaskConfig] | None = None
    versions: dict[str, str | None] | None = None
    n_shot: dict[str, int] | None = Field(default=None, alias="n-shot")
    higher_is_better: dict[str, dict[str, bool]] | None = None
    n_samples: dict[str, SampleCounts] | None = Field(default=None, alias="n-samples")
    config: HarnessConfig | None = None
    git_hash: str | None = None
    date: Number | None = None
    transformers_version: str | None = None
    negkit_version: str | None = None
    #: The layout version (docs/reproducibility.md); a file without the key is layout 1.
    negkit_layout: int = 1
    model_source: str | None = None
    model_name: str | None = None
    model_name_sanitized: str | None = None
    system_instruction: str | None = None
    system_instruction_sha: str | None = None
    fewshot_as_multiturn: bool | None = None
    chat_template: str | None = None
    chat_template_sha: str | None = None
    total_evaluation_time_seconds: str | None = None
    record: RunRecord | None = None
    tasks: list[TaskLog] = Field(default_factory=list)
    skipped: dict[str, str] | None = None
    citations: dict[str, str] | None = None
