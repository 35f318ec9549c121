"""The LM Evaluation Harness's conventions in ``negkit eval``: which flag applies to which task, how the flags
become each task's options, and the command line that reproduces a run.

Task options (``--prompt``, ``--num-fewshot``, ``--apply-chat-template`` / ``--no-chat-template``,
``--system-instruction``) take one value for every requested task, or ``TASK=VALUE,...`` per task (prompt and
few-shot only). A flag given for a task that does not take it is an error that names the task and the flags it
does take: nothing is ever silently ignored, so a recorded command never claims an option that was not used.
``--seed`` is run-wide: it is an error only when no requested task makes a random choice, and for
Thunder-NUBench few-shot it replaces the paper's five seeds by that one seed (the Harness's few-shot seed).

:func:`task_options_for` is the check to run before any model loads; :func:`eval_command` writes the
``negkit eval`` command with every option resolved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.kit.arguments import format_per_task
from negkit.models.model_args import format_model_args, redact_model_args
from negkit.commands.eval.options import EvalOptions
from negkit.kit.suites import classifier_tasks, get_task

#: Task option -> the command-line flag(s) that set it.
FLAGS: dict[str, str] = {
    "prompt": "--prompt",
    "num_fewshot": "--num-fewshot",
    "chat": "--apply-chat-template / --no-chat-template",
    "system_instruction": "--system-instruction",
    "bos": "--bos",
    "fewshot_examples": "--fewshot-examples",
}


def per_task(value: Any, tasks: Sequence[str], flag: str) -> dict[str, Any]:
    """``value`` for every task, or a ``{task: value}`` mapping whose tasks must all be requested."""
    if not isinstance(value, Mapping):
        return dict.fromkeys(tasks, value)
    unknown = [task for task in value if task not in tasks]
    if unknown:
        raise NegkitError(f"{flag} names tasks that are not run: {', '.join(unknown)} (tasks run: {', '.join(tasks)})")
    return dict(value)


def _accepts(task: Any) -> frozenset[str]:
    return frozenset(getattr(task, "accepts", frozenset()))


def task_options_for(tasks: Sequence[str], options: EvalOptions, classifier: bool = False) -> dict[str, dict[str, Any]]:
    """Each task's constructor options from ``options``.

    Checks, before any model is loaded or any data read, that every task exists, that every flag applies to
    every task it is given for, and that the option values are valid; all problems are reported together as
    one :class:`~negkit.errors.NegkitError`.
    """
    if isinstance(options.limit, Mapping):
        per_task(options.limit, tasks, "--limit")
    result = {task: dict(options.task_options.get(task, {})) for task in tasks}
    if classifier:
        can_classify = classifier_tasks()
        for task in tasks:
            if task in can_classify:
                result[task].setdefault("model_kind", "classifier")
    base = {task: get_task(task, **result[task]) for task in tasks}  # unknown task names fail here
    problems: list[str] = []
    for option, flag in FLAGS.items():
        value = getattr(options, option)
        if value is None:
            continue
        for task, task_value in per_task(value, tasks, flag.split(" ")[0]).items():
            accepted = _accepts(base[task])
            if option in accepted:
                result[task][option] = task_value
                continue
            takes = ", ".join(FLAGS[name] for name in FLAGS if name in accepted) or "none of them"
            hint = f"; give it per task, e.g. {flag} TASK=VALUE" if option in ("prompt", "num_fewshot") and len(tasks) > 1 else ""
            kind = " with a classifier model" if base[task].model_kind == "classifier" else ""
            problems.append(f"{flag} does not apply to task {task}{kind} (it takes: {takes}){hint}")
    if problems:
        raise NegkitError("; ".join(problems))
    built = {task: get_task(task, **result[task]) for task in tasks}  # validates the values (prompt ids, counts)
    seed = options.seed
    if seed is not None:
        users = [task for task in tasks if getattr(built[task], "uses_seed", False)]
        if not users:
            raise NegkitError(f"--seed changes nothing for {', '.join(tasks)}: none of them draws a sample, a split "
                              "or few-shot examples")
        for task in users:
            if hasattr(built[task], "seeds"):  # Thunder-NUBench few-shot: the one seed given, as the Harness
                result[task]["seeds"] = (seed,)
    return result


def eval_command(spec: str, tasks: Sequence[str], options: EvalOptions, dtype: str, data_root: Path | None = None) -> list[str]:
    """The ``negkit eval`` command that reruns this evaluation, every option spelled out with its effective
    value (the data root and the output folder as absolute paths)."""
    command = ["negkit", "eval", "--model", spec, "--tasks", ",".join(tasks), "--split", options.split,
               "--mode", options.mode, "--dtype", dtype, "--batch-size", str(options.batch_size or "auto")]
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
            command += [FLAGS[option], format_per_task(value)]
    if options.chat is not None:
        command.append("--apply-chat-template" if options.chat else "--no-chat-template")
    if options.system_instruction is not None:
        command += ["--system-instruction", options.system_instruction]
    for option in ("bos", "fewshot_examples"):
        value = getattr(options, option)
        if value is not None:
            command += [FLAGS[option], value]
    for flag, value in (("--device", options.device), ("--quantize", options.quantize)):
        if value is not None:
            command += [flag, value]
    if options.model_args:
        command += ["--model-args", format_model_args(redact_model_args(options.model_args))]
    if options.adapter is not None:
        command += ["--adapter", str(Path(options.adapter).resolve())]
    command += ["--bootstrap", str(options.bootstrap), "--bootstrap-seed", str(options.bootstrap_seed)]
    if options.out is not None:
        command += ["--out", str(Path(options.out).resolve())]
    return command
