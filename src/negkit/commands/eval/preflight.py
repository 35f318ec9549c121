"""Validation before work: everything a run needs is checked before the model loads and before any task runs.

:func:`prepare_run` is called by :func:`negkit.commands.eval.evaluate.evaluate` first of all. In order it:

1. runs every function in :data:`RUN_CHECKS` on a :class:`RunRequest` (the model spec, the task names and the
   options): task names known and not repeated, limits that name tasks that run, mode and dtype, chunk sizes,
   the output folder;
2. checks the model spec without loading it (:func:`negkit.models.checks.check_model_spec`: files, folders,
   headers, server URL, hub reachability);
3. builds every task with its options, checks that it fits the model (language model or classifier) and its
   split (the splits its :class:`~negkit.kit.tasks.spec.TaskSpec` names, when it names them), runs the task's
   own ``check(options)`` hook when it has one, and runs every function in :data:`TASK_CHECKS` on it;
4. reads every task's data (the readers' errors name file and line), so that a missing or malformed data set is
   reported before the model loads, not after another task has run for minutes.

A problem is a :class:`negkit.errors.NegkitError`; the first one found stops the run. Other features add their
checks here: append a function to :data:`RUN_CHECKS` (whole-run options) or :data:`TASK_CHECKS` (per task,
e.g. "this flag does not apply to this task"), or give a task class a ``check(options)`` method.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.commands.eval.flags import task_options_for
from negkit.commands.eval.options import EvalOptions, model_options, resolve_dtype_for_mode, task_limit
from negkit.errors import NegkitError, quoted
from negkit.io.atomic import check_output_folder
from negkit.io.hub import looks_like_path
from negkit.kit.tasks.adapter import adapt
from negkit.kit.tasks.base import Task, TaskData
from negkit.kit.tasks.spec import TaskSpec
from negkit.models.adapter import describe_adapter
from negkit.models.checks import check_model_spec
from negkit.models.conversation import conversation_template
from negkit.models.spec import parse_model_spec


@dataclass
class RunRequest:
    """What a run was asked to do, before anything is loaded."""

    #: The model spec (``None`` when a model object was given).
    model_spec: str | None
    #: A model object given instead of a spec (``None`` for a spec).
    model: Any
    task_names: list[str]
    options: EvalOptions
    #: Each task's static facts, completed by the task built with the run's options (filled once the tasks are).
    specs: dict[str, TaskSpec] = field(default_factory=dict)


@dataclass
class PreparedTask:
    """A task built with its options, and its data already read."""

    name: str
    task: Task
    #: The task's static facts (its private fields, ...).
    spec: TaskSpec
    data: TaskData
    #: Seconds spent reading the data.
    load_seconds: float
    #: The seed the data was drawn with.
    seed: int = 0


@dataclass
class RunPlan:
    """A validated run: the request and every task with its data."""

    request: RunRequest
    tasks: list[PreparedTask] = field(default_factory=list)


RunCheck = Callable[[RunRequest], None]
TaskCheck = Callable[[RunRequest, str, Task], None]


def check_task_names(request: RunRequest) -> None:
    names = request.task_names
    if not names or any(not name.strip() for name in names):
        raise NegkitError("no task named (--tasks is empty); see negkit eval --list")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise NegkitError(f"task named twice in --tasks: {', '.join(repeated)}")


def check_limits(request: RunRequest) -> None:
    """Limits name tasks that run, and are counts of at least 1 or fractions in (0, 1)."""
    limit = request.options.limit
    if isinstance(limit, dict):
        unknown = sorted(set(limit) - set(request.task_names))
        if unknown:
            raise NegkitError(
                f"--limit names tasks that are not run: {', '.join(unknown)} "
                f"(tasks run: {', '.join(request.task_names)})"
            )
        values = list(limit.values())
    else:
        values = [] if limit is None else [limit]
    for value in values:
        count = isinstance(value, int) and not isinstance(value, bool) and value >= 1
        fraction = isinstance(value, float) and 0 < value < 1
        if not (count or fraction):
            raise NegkitError(
                f"--limit must be a count of at least 1 or a fraction between 0 and 1, got {quoted(value)}"
            )


def check_run_options(request: RunRequest) -> None:
    options = request.options
    resolve_dtype_for_mode(options.mode, options.dtype, options.quantize or options.model_args.get("quantize"))
    if not isinstance(options.split, str) or not options.split.strip():
        raise NegkitError("--split is empty")
    if options.batch_size is not None and (not isinstance(options.batch_size, int) or options.batch_size < 1):
        raise NegkitError(f"--batch-size must be at least 1 or auto, got {quoted(options.batch_size)}")
    model_batch = options.model_args.get("batch_size")
    if model_batch is not None and model_batch != "auto" and (type(model_batch) is not int or model_batch < 1):
        raise NegkitError(f"--model-args batch_size must be at least 1 or auto, got {quoted(model_batch)}")
    for device in (options.device, options.model_args.get("device")):  # what it names is checked when loading
        if device is not None and not re.fullmatch(r"auto|cpu|mps|cuda(:\d+)?", str(device).strip().lower()):
            raise NegkitError(f"unknown device {quoted(device)}; use cpu, cuda, cuda:N, mps or auto")
    if not isinstance(options.chunk_size, int) or options.chunk_size < 1:
        raise NegkitError(f"--chunk-size must be at least 1, got {quoted(options.chunk_size)}")
    if not options.commit_seconds > 0:
        raise NegkitError(f"--commit-seconds must be above 0, got {quoted(options.commit_seconds)}")
    if options.data is not None:
        check_data_argument(options.data)
    if options.out is not None:
        check_output_folder(Path(options.out))


def check_data_argument(data: str | Path) -> None:
    """``--data`` names something that exists, or a hub id (never silently another folder)."""
    text = str(data)
    if not text.strip():
        raise NegkitError("--data is empty")
    if Path(text).expanduser().exists():
        return
    if looks_like_path(text) or "/" not in text:
        raise NegkitError(f"{text}: no such file or folder (--data)")


def check_split(request: RunRequest, name: str, task: Task) -> None:
    """The split is one the task has (the splits its :class:`~negkit.kit.tasks.spec.TaskSpec` names, when it
    names them)."""
    spec = request.specs[name]
    splits = spec.splits
    if splits is None:
        return
    if spec.normalize_split(request.options.split) not in splits:
        raise NegkitError(f"task {name} has no split {quoted(request.options.split)} (its splits: {', '.join(splits)})")


def check_model_kind(request: RunRequest, name: str, task: Task) -> None:
    """A classifier task needs a classifier; a language-model task needs a language model."""
    if request.model is not None:
        classifier = hasattr(request.model, "classify")
        language_model = hasattr(request.model, "next_token_logprobs")
        embedding = hasattr(request.model, "similarity")
    else:
        kind = parse_model_spec(request.model_spec or "").model_kind
        classifier, language_model, embedding = (kind == own for own in ("classifier", "language_model", "embedding"))
    if task.model_kind == "classifier" and not classifier:
        raise NegkitError(f"task {name} needs a classifier model (nli:PATH)")
    if task.model_kind == "embedding" and not embedding:
        raise NegkitError(f"task {name} needs a sentence embedding model (embed:PATH)")
    if task.model_kind == "language_model" and not language_model:
        other = "an embedding model" if embedding else "a classifier"
        raise NegkitError(f"task {name} needs a language model, not {other}")


def check_server_options(request: RunRequest) -> None:
    """``--timeout`` and ``--retries`` are the options of a server (``openai:``), not of a model loaded here."""
    options = request.options
    given = [
        flag for flag, value in (("--timeout", options.timeout), ("--retries", options.retries)) if value is not None
    ]
    if given and not parse_model_spec(request.model_spec or "").is_server:
        raise NegkitError(
            f"{' and '.join(given)} apply to openai: models (servers) only, not to "
            f"{quoted(request.model_spec or 'a model object')}"
        )


def check_baseline_answers(request: RunRequest, name: str, task: Task, items: Sequence[Any] | None = None) -> None:
    """A constant or majority baseline needs a task with fixed answers, and a constant one of them (checked before
    the data is read, and again on the items read, before the model loads)."""
    from negkit.models.baselines import check_baseline_task, is_baseline_spec  # loads torch: off the start-up path

    if request.model_spec is not None and is_baseline_spec(request.model_spec):
        check_baseline_task(request.model_spec, name, adapt(task).answer_space(items or ()), items is not None)


def check_adapter(request: RunRequest) -> None:
    """``--adapter``: a PEFT adapter folder, on a model negkit can put it on."""
    adapter = request.options.adapter
    if adapter is None:
        return
    if request.model_spec is not None and parse_model_spec(request.model_spec).kind in ("openai", "vllm"):
        raise NegkitError(
            f"--adapter needs a local transformers model (default, hf:, gguf:, nli:), not {request.model_spec}"
        )

    describe_adapter(adapter)


def check_conversation_template(request: RunRequest) -> None:
    """``--conversation-template``: a known name, for a model that renders chat prompts, with chat prompts allowed."""
    name = request.options.conversation_template
    if name is None:
        return
    conversation_template(name)  # an unknown name lists the names
    if request.options.chat is False:
        raise NegkitError(
            f"--conversation-template {name} renders chat prompts and --no-chat-template turns them off; give one of them"
        )
    if request.model_spec is not None and (
        parse_model_spec(request.model_spec).is_baseline or parse_model_spec(request.model_spec).is_classifier
    ):
        raise NegkitError(
            f"--conversation-template applies to language models that are sent prompts, not to {request.model_spec}"
        )


#: Whole-run checks, in order (append yours).
RUN_CHECKS: list[RunCheck] = [
    check_task_names,
    check_limits,
    check_run_options,
    check_adapter,
    check_server_options,
    check_conversation_template,
]
#: Per-task checks, run after the task is built and before its data is read (append yours).
TASK_CHECKS: list[TaskCheck] = [check_model_kind, check_split, check_baseline_answers]


def prepare_run(model: str | Any, task_names: Sequence[str], options: EvalOptions) -> RunPlan:
    """Check everything about a run and read every task's data; raise the first problem found."""
    spec = model if isinstance(model, str) else None
    request = RunRequest(spec, None if spec is not None else model, list(task_names), options)
    for check in RUN_CHECKS:
        check(request)
    if spec is not None:
        from negkit.models.registry import check_model_options  # loads torch: off the start-up path

        check_model_options(spec, model_options(options))  # an unknown --model-args key, before anything loads
        check_model_spec(spec, options.model_args)

    if request.model is not None:
        classifier, embedding = hasattr(request.model, "classify"), hasattr(request.model, "similarity")
    else:
        assert spec is not None  # no model object: a spec names the model
        classifier, embedding = parse_model_spec(spec).is_classifier, parse_model_spec(spec).is_embedding
    per_task = task_options_for(request.task_names, options, classifier, embedding)  # which flag applies to which task
    request.specs = {name: setup.spec for name, setup in per_task.items()}
    for name in request.task_names:
        task = per_task[name].task
        for task_check in TASK_CHECKS:
            task_check(request, name, task)
        adapt(task).check(options)
    plan = RunPlan(request)
    seed = 0 if options.seed is None else options.seed
    for name in request.task_names:
        started, task = time.perf_counter(), per_task[name].task
        data = task.load(options.data, options.split, task_limit(options.limit, name), seed)
        check_baseline_answers(request, name, task, data.items)
        plan.tasks.append(PreparedTask(name, task, request.specs[name], data, time.perf_counter() - started, seed))
    return plan
