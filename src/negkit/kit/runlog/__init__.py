"""The run log: typed models of the files a ``negkit eval`` run writes, used to write them and to read them back.

- :class:`RunLog`: ``results.json`` (the LM Evaluation Harness's top-level keys, negkit's ``record``, ``tasks``,
  ``skipped`` and ``citations``);
- :class:`TaskLog`: ``TASK.results.json`` (the task, model, prompt, data, metrics with their intervals, the
  samples file's record, the reproduction record);
- :class:`SampleRecord` and its kinds: the lines of ``TASK.samples.jsonl``.

Every model keeps the keys a file holds beyond its typed fields and writes them back in the order read, so that
reading a file and writing it again gives the same bytes. Each file carries ``negkit_layout``, the layout version
(docs/reproducibility.md); older layouts read too. The JSON Schemas in ``docs/schema/`` are generated from these
models (``python -m negkit.kit.runlog docs/schema``).
"""

from negkit.kit.runlog.base import LogModel, plain_json, validated
from negkit.kit.runlog.reading import (
    iter_sample_records,
    read_run_log,
    read_task_log,
    run_log,
    sample_record,
    task_log,
)
from negkit.kit.runlog.run import HarnessConfig, HarnessTaskConfig, HarnessTaskResult, RunLog, SampleCounts
from negkit.kit.runlog.samples import (
    ChoiceSample,
    GenerationSample,
    PairSample,
    SampleRecord,
    TruthSample,
    sample_model,
)
from negkit.kit.runlog.task import (
    DataLog,
    IntervalLog,
    ModelLog,
    PromptLog,
    RunRecord,
    SamplesFileLog,
    TaskConfig,
    TaskLog,
    TaskMetrics,
)

__all__ = [
    "ChoiceSample",
    "DataLog",
    "GenerationSample",
    "HarnessConfig",
    "HarnessTaskConfig",
    "HarnessTaskResult",
    "IntervalLog",
    "LogModel",
    "ModelLog",
    "PairSample",
    "PromptLog",
    "RunLog",
    "RunRecord",
    "SampleCounts",
    "SampleRecord",
    "SamplesFileLog",
    "TaskConfig",
    "TaskLog",
    "TaskMetrics",
    "TruthSample",
    "iter_sample_records",
    "read_run_log",
    "read_task_log",
    "run_log",
    "plain_json",
    "sample_model",
    "sample_record",
    "task_log",
    "validated",
]
