"""``negkit eval``: evaluate a model on registered tasks (see :mod:`negkit.evaluate`)."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from negkit.engine.runner import DEFAULT_CHUNK_SIZE, DEFAULT_COMMIT_SECONDS
from negkit.errors import NegkitError


def register(groups) -> None:
    parser = groups[""].add_parser(
        "eval",
        help="evaluate a model on benchmark tasks (results JSON, per-sample JSONL, Markdown tables)",
        description="Evaluate a model on benchmark tasks. Rerunning the same command resumes: answers "
        "already in OUT/requests.jsonl are not recomputed.",
    )
    add_model_arguments(parser.add_argument_group("model"))
    add_task_arguments(parser.add_argument_group("tasks and data"))
    add_run_arguments(parser.add_argument_group("run and output"))
    parser.set_defaults(handler=run_eval)


def add_model_arguments(parser: argparse._ActionsContainer) -> None:
    """Which model, how it is loaded, and how it computes (backend options, batching, precision)."""
    parser.add_argument("--model", default="default", help="default | hf:PATH_OR_NAME | gguf:FILE | openai:URL#MODEL | nli:PATH; "
                        "baselines: random | constant:ANSWER | majority")
    parser.add_argument("--model-args", metavar="KEY=VALUE,...",
                        help="options for the model loader, e.g. revision=main,attn_implementation=sdpa "
                        "(lists in [brackets], values with commas in quotes); recorded in the results")
    parser.add_argument("--batch-size", default="auto", help="N, or auto (a memory-safe size; halved on out-of-memory)")
    parser.add_argument("--dtype", choices=("float32", "bfloat16", "float16"), help="exact mode: float32; fast mode default bfloat16")
    parser.add_argument("--mode", choices=("exact", "fast"), default="exact", help="exact reproduces plain forward passes (fp32)")


def add_task_arguments(parser: argparse._ActionsContainer) -> None:
    """Which tasks, on which data, asked how (prompts, few-shot, limits, seeds)."""
    parser.add_argument("--tasks", help="comma-separated task names (see --list); default: every suite whose data is found")
    parser.add_argument("--list", action="store_true", help="list the registered tasks and where their data was found")
    parser.add_argument("--data", help="data root, data set folder or file (default: NEGKIT_DATA, ./data, ../shared/data)")
    parser.add_argument("--split", default="test", help="split to evaluate (default: test)")
    parser.add_argument("--limit", type=parse_limit, metavar="N|TASK=N,...",
                        help="about N items per task (TIND: a deterministic sample of whole groups stratified by "
                        "pattern); TASK=N,... sets per-task limits and runs the other tasks in full")
    parser.add_argument("--seed", type=int, default=0, help="seed for splits, samples and few-shot examples")
    parser.add_argument("--prompt", default="7", help="Thunder-NUBench prompt id: 1..12 or 7-1..7-5 (default: 7)")
    parser.add_argument("--num-fewshot", type=int, default=0,
                        help="Thunder-NUBench: k validation examples, averaged over seeds 42 1234 3000 5000 7000")


def add_run_arguments(parser: argparse._ActionsContainer) -> None:
    """Where results go and how the run behaves (progress, durability, locking)."""
    parser.add_argument("--out", help="output folder (default: negkit-runs/MODEL-HASH)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                        help="bootstrap resamples for the 95%% confidence interval of every metric, clustered by "
                        "each benchmark's unit and seeded by --seed (default: 1000; 0: no intervals)")
    parser.add_argument("--chunk-size", type=positive_int, default=DEFAULT_CHUNK_SIZE, metavar="N",
                        help=f"requests per durable write to the run store, at most (default: {DEFAULT_CHUNK_SIZE})")
    parser.add_argument("--commit-seconds", type=positive_float, default=DEFAULT_COMMIT_SECONDS, metavar="S",
                        help="seconds of model work per durable write to the run store, about (default: "
                        f"{DEFAULT_COMMIT_SECONDS:g}); a kill loses at most this much work")
    parser.add_argument("--wait-lock", type=wait_seconds, nargs="?", const=math.inf, default=0.0, metavar="SECONDS",
                        help="when another run writes to the same output folder, wait for it (for at most SECONDS) "
                        "instead of refusing")


def run_eval(args: argparse.Namespace) -> int:
    if args.list:
        return list_tasks(args.data)
    from negkit.evaluate import EvalOptions, evaluate
    from negkit.models.model_args import parse_model_args
    from negkit.report.combined import REPORT_FILE
    from negkit.suites import CLASSIFIER_TASKS, default_tasks

    if args.bootstrap < 0:
        raise NegkitError(f"--bootstrap must be 0 (no intervals) or a number of resamples, got {args.bootstrap}")
    classifier = args.model.startswith("nli:")
    if args.tasks:
        tasks = [name.strip() for name in args.tasks.split(",") if name.strip()]
    else:
        tasks = default_tasks(args.data, classifier=classifier)
        if not tasks:
            raise NegkitError("no suite's data was found (see negkit eval --list; pass --data PATH or set NEGKIT_DATA)")
    if isinstance(args.limit, dict) and set(args.limit) - set(tasks):
        unknown = ", ".join(sorted(set(args.limit) - set(tasks)))
        raise NegkitError(f"--limit names tasks that are not run: {unknown} (tasks run: {', '.join(tasks)})")
    task_options: dict = {"nubench": {"prompt": args.prompt, "num_fewshot": args.num_fewshot}}
    if classifier:
        task_options.update({name: {"model_kind": "classifier"} for name in CLASSIFIER_TASKS})
    options = EvalOptions(
        data=args.data, split=args.split, limit=args.limit, seed=args.seed,
        batch_size=parse_batch_size(args.batch_size), dtype=args.dtype, mode=args.mode, out=args.out,
        progress=not args.no_progress, command=reproducing_command(args, tasks), task_options=task_options,
        model_args=parse_model_args(args.model_args), chunk_size=args.chunk_size, commit_seconds=args.commit_seconds,
        wait_lock=args.wait_lock, bootstrap=args.bootstrap,
    )
    results = evaluate(args.model, tasks, options)
    for result in results:
        print(f"{result['task']['task']}: {result['files']['results']}")
    if results:
        report = Path(results[0]["files"]["results"]).parent / REPORT_FILE
        print(f"report: {report}\n")
        print(report.read_text(encoding="utf-8"))
    return 0


def reproducing_command(args: argparse.Namespace, tasks: list[str]) -> list[str]:
    """The ``negkit eval`` command with every option spelled out (defaults included; the tasks actually run)."""
    command = ["negkit", "eval", "--model", args.model, "--tasks", ",".join(tasks), "--split", args.split,
               "--mode", args.mode, "--seed", str(args.seed), "--batch-size", str(args.batch_size),
               "--prompt", args.prompt, "--num-fewshot", str(args.num_fewshot), "--bootstrap", str(args.bootstrap)]
    limit = format_limit(args.limit) if args.limit is not None else None
    for flag, value in (("--model-args", args.model_args), ("--data", args.data), ("--limit", limit),
                        ("--dtype", args.dtype), ("--out", args.out)):
        if value is not None:
            command += [flag, str(value)]
    return command


def parse_limit(text: str) -> int | dict[str, int]:
    """``500`` -> 500 for every task; ``tind=1500,scone=600`` -> per-task limits."""

    def positive(value: str, what: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be a whole number, got {value!r}") from None
        if number < 1:
            raise argparse.ArgumentTypeError(f"{what} must be at least 1, got {number}")
        return number

    if "=" not in text:
        return positive(text, "--limit")
    limits: dict[str, int] = {}
    for part in text.split(","):
        task, separator, value = part.partition("=")
        if not separator or not task.strip():
            raise argparse.ArgumentTypeError(f"--limit entries are TASK=N, got {part!r}")
        limits[task.strip()] = positive(value.strip(), f"--limit for {task.strip()}")
    return limits


def format_limit(limit: int | dict[str, int]) -> str:
    """Inverse of :func:`parse_limit`."""
    if isinstance(limit, dict):
        return ",".join(f"{task}={number}" for task, number in limit.items())
    return str(limit)


def positive_int(text: str) -> int:
    """An argparse type: a whole number >= 1."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text[:40]!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0."""
    try:
        number = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text[:40]!r}") from None
    if not (number > 0 and math.isfinite(number)):
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {text[:40]!r}")
    return number


def wait_seconds(text: str) -> float:
    """An argparse type: seconds to wait (>= 0), or ``inf``."""
    try:
        number = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text[:40]!r}") from None
    if not number >= 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {text[:40]!r}")
    return number


def parse_batch_size(text: str) -> int | None:
    """``auto`` -> None (memory-safe automatic size), else a positive integer."""
    if text == "auto":
        return None
    try:
        size = int(text)
    except ValueError:
        raise NegkitError(f"--batch-size must be a number or auto, got {text!r}") from None
    if size < 1:
        raise NegkitError(f"--batch-size must be at least 1, got {size}")
    return size


def list_tasks(data: str | None) -> int:
    from negkit.suites import locate_task_data, suite_status
    from negkit.tasks.base import registered_tasks

    print("Suites (run by `negkit eval` without --tasks when their data is found):")
    for status in suite_status(data):
        where = f"data: {status.location}" if status.location else f"data not found; get it: {status.hint}"
        print(f"  {status.suite}\t[{status.task}]\t{where}")
    print("Tasks:")
    for name, description in registered_tasks().items():
        location = locate_task_data(name, data)
        where = str(location) if location else "data not found (pass --data or set NEGKIT_DATA)"
        print(f"  {name}\t{description}\t[{where}]", file=sys.stdout)
    return 0
