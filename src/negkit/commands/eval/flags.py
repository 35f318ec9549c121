"""The LM Evaluation Harness's conventions in ``negkit eval``: which flag applies to which task, how the flags
become each task's options, and the command line that reproduces a run.

Task options (``--prompt``, ``--num-fewshot``, ``--apply-chat-template`` / ``--no-chat-template``,
``--system-instruction``) take one value for every requested task, or ``TASK=VALUE,...`` per task (prompt and
few-shot only). A flag given for a task that does not take it is an error that names the task and the flags it
does take: nothing is ever silently ignored, so a recorded command never claims an option that was not used.
``--seed`` is run-wide: a warning when no requested task makes a random choice (as the Harness's), and for
a task that averages over its paper's few-shot seeds it replaces them by that one seed (the Harness's few-shot seed).

:func:`task_options_for` is the check to run before any model loads; :func:`eval_command` writes the
``negkit eval`` command with every option resolved.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.commands.eval.options import EvalOptions
from negkit.errors import NegkitError
from negkit.kit.arguments import format_per_task
from negkit.kit.suites import classifier_tasks, embedding_tasks, get_task, get_task_spec, task_flags
from negkit.kit.tasks.adapter import adapt
from negkit.kit.tasks.spec import LANGUAGE_MODEL, TaskSpec
from negkit.models.conversation import conversation_template
from negkit.models.model_args import format_model_args, redact_model_args

#: The Harness's task options -> the command-line flag(s) that set them (a benchmark's own task options come with
#: their flags from the registry: :func:`negkit.kit.suites.task_flags`).
HARNESS_FLAGS: dict[str, str] = {
    "prompt": "--prompt",
    "num_fewshot": "--num-fewshot",
    "chat": "--apply-chat-template / --no-chat-template",
    "system_instruction": "--system-instruction",
}


def all_flags() -> dict[str, str]:
    """Every task option ``negkit eval`` sets -> its flag: the Harness's, then each benchmark's own."""
    return {**HARNESS_FLAGS, **{option: flag.names[0] for option, flag in task_flags().items()}}


def option_value(options: EvalOptions, option: str) -> Any:
    """The value ``options`` gives the task option ``option`` (a Harness option's field, or a benchmark's own)."""
    return getattr(options, option) if option in HARNESS_FLAGS else options.task_flags.get(option)


def per_task(value: Any, tasks: Sequence[str], flag: str) -> dict[str, Any]:
    """``value`` for every task, or a ``{task: value}`` mapping whose tasks must all be requested."""
    if not isinstance(value, Mapping):
        return dict.fromkeys(tasks, value)
    unknown = [task for task in value if task not in tasks]
    if unknown:
        raise NegkitError(f"{flag} names tasks that are not run: {', '.join(unknown)} (tasks run: {', '.join(tasks)})")
    return dict(value)


@dataclass
class TaskSetup:
    """A task as a run asks it: its constructor options, the task built with them and its static facts."""

    options: dict[str, Any]
    task: Any
    spec: TaskSpec


def task_options_for(
    tasks: Sequence[str], options: EvalOptions, classifier: bool = False, embedding: bool = False
) -> dict[str, TaskSetup]:
    """Each task built once, with its constructor options from ``options``.

    Checks, before any model is loaded or any data read, that every task exists, that every flag applies to
    every task it is given for, and that the option values are valid; all problems are reported together as
    one :class:`~negkit.errors.NegkitError`. Which flags a task takes, and whether the seed changes what it asks,
    come from its :class:`~negkit.kit.tasks.spec.TaskSpec` (read without building it); the task is then built
    once with the options of its entry (model kind, ``task_options``), the flags' values and, for a task that
    averages over its paper's few-shot seeds, ``--seed`` in their place.
    """
    if isinstance(options.limit, Mapping):
        per_task(options.limit, tasks, "--limit")
    result = {task: dict(options.task_options.get(task, {})) for task in tasks}
    if classifier:
        can_classify = classifier_tasks()
        for task in tasks:
            if task in can_classify:
                result[task].setdefault("model_kind", "classifier")
    if embedding:  # an embedding model: the tasks that rank with one are built for it (the others refuse it)
        for task in set(tasks) & set(embedding_tasks()):
            result[task].setdefault("model_kind", "embedding")
    specs = {  # unknown task names fail here
        task: get_task_spec(task, result[task].get("model_kind", LANGUAGE_MODEL)) for task in tasks
    }
    problems: list[str] = []
    flags = all_flags()
    for option, flag in flags.items():
        value = option_value(options, option)
        if value is None:
            continue
        for task, task_value in per_task(value, tasks, flag.split(" ")[0]).items():
            accepted = specs[task].accepts
            if option in accepted:
                result[task][option] = task_value
                continue
            takes = ", ".join(flags[name] for name in flags if name in accepted) or "none of them"
            hint = (
                f"; give it per task, e.g. {flag} TASK=VALUE"
                if option in ("prompt", "num_fewshot") and len(tasks) > 1
                else ""
            )
            kind = " with a classifier model" if specs[task].model_kind == "classifier" else ""
            problems.append(f"{flag} does not apply to task {task}{kind} (it takes: {takes}){hint}")
    if problems:
        raise NegkitError("; ".join(problems))
    seed = options.seed
    if seed is not None:
        users = [task for task in tasks if specs[task].uses_seed(result[task])]
        if not users:  # the Harness's --seed is run-wide: a warning, as there, not an error
            print(
                f"negkit: warning: --seed changes nothing for {', '.join(tasks)}: none of them draws a sample, a "
                "split or few-shot examples",
                file=sys.stderr,
            )
        for task in users:
            if specs[task].fewshot_seeds:  # a task averaging over its paper's seeds: the one seed given
                result[task]["seeds"] = (seed,)
    built = {task: get_task(task, **result[task]) for task in tasks}
    return {task: TaskSetup(result[task], built[task], adapt(built[task]).completed(specs[task])) for task in tasks}


def eval_command(
    spec: str, tasks: Sequence[str], options: EvalOptions, dtype: str, data_root: Path | None = None
) -> list[str]:
    """The ``negkit eval`` command that reruns this evaluation, every option spelled out with its effective
    value (the data root and the output folder as absolute paths)."""
    assert options.mode is not None  # resolved before the command is recorded (harness.resolve_mode)
    command = [
        "negkit",
        "eval",
        "--model",
        spec,
        "--tasks",
        ",".join(tasks),
        "--split",
        options.split,
        "--mode",
        options.mode,
        "--dtype",
        dtype,
        "--batch-size",
        str(options.batch_size or "auto"),
    ]
    data = Path(options.data).resolve() if options.data else data_root
    if data is not None:
        command += ["--data", str(data)]
    if options.limit is not None:
        command += ["--limit", format_per_task(options.limit)]
    if options.seed is not None:
        command += ["--seed", str(options.seed)]
    for option in ("prompt", "num_fewshot"):
        value = getattr(options, option)
        if value is not None:
            command += [HARNESS_FLAGS[option], format_per_task(value)]
    if options.chat is not None:
        command.append("--apply-chat-template" if options.chat else "--no-chat-template")
    if options.system_instruction is not None:
        command += ["--system-instruction", options.system_instruction]
    for option, flag in task_flags().items():
        value = options.task_flags.get(option)
        if value is not None:
            command += [flag.names[0], format_per_task(value)]
    if options.conversation_template is not None:
        command += ["--conversation-template", conversation_template(options.conversation_template).name]
    for name, setting in (("--device", options.device), ("--quantize", options.quantize)):
        if setting is not None:
            command += [name, setting]
    if options.model_args:
        command += ["--model-args", format_model_args(redact_model_args(options.model_args))]
    if options.gen_kwargs:
        settings = {
            key: list(value) if isinstance(value, tuple) else value for key, value in options.gen_kwargs.items()
        }
        command += ["--gen-kwargs", format_model_args(settings)]
    if options.adapter is not None:
        command += ["--adapter", str(Path(options.adapter).resolve())]
    command += ["--bootstrap", str(options.bootstrap), "--bootstrap-seed", str(options.bootstrap_seed)]
    if options.out is not None:
        command += ["--out", str(Path(options.out).resolve())]
    return command
