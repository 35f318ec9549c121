"""``negkit eval``: evaluate a model on registered tasks (see :mod:`negkit.evaluate`)."""

from __future__ import annotations

import argparse
import sys

from negkit.errors import NegkitError


def register(groups) -> None:
    parser = groups[""].add_parser(
        "eval",
        help="evaluate a model on benchmark tasks (results JSON, per-sample JSONL, Markdown tables)",
        description="Evaluate a model on benchmark tasks. Rerunning the same command resumes: answers "
        "already in OUT/requests.jsonl are not recomputed.",
    )
    parser.add_argument("--model", default="default", help="default | hf:PATH_OR_NAME | gguf:FILE | openai:URL#MODEL | nli:PATH")
    parser.add_argument("--tasks", help="comma-separated task names (see --list)")
    parser.add_argument("--list", action="store_true", help="list the registered tasks and where their data was found")
    parser.add_argument("--data", help="data root, data set folder or file (default: NEGKIT_DATA, ./data, ../shared/data)")
    parser.add_argument("--split", default="test", help="split to evaluate (default: test)")
    parser.add_argument("--limit", type=int, help="about N items, a deterministic sample of whole groups stratified by pattern")
    parser.add_argument("--batch-size", default="auto", help="N, or auto (a memory-safe size; halved on out-of-memory)")
    parser.add_argument("--dtype", choices=("float32", "bfloat16", "float16"), help="exact mode: float32; fast mode default bfloat16")
    parser.add_argument("--mode", choices=("exact", "fast"), default="exact", help="exact reproduces plain forward passes (fp32)")
    parser.add_argument("--out", help="output folder (default: negkit-runs/MODEL-HASH)")
    parser.add_argument("--seed", type=int, default=0, help="seed for splits, samples and few-shot examples")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run_eval)


def run_eval(args: argparse.Namespace) -> int:
    if args.list:
        return list_tasks(args.data)
    if not args.tasks:
        raise NegkitError("--tasks is required (see negkit eval --list)")
    from negkit.evaluate import EvalOptions, evaluate

    options = EvalOptions(
        data=args.data, split=args.split, limit=args.limit, seed=args.seed,
        batch_size=parse_batch_size(args.batch_size), dtype=args.dtype, mode=args.mode, out=args.out,
        progress=not args.no_progress,
    )
    results = evaluate(args.model, [name.strip() for name in args.tasks.split(",") if name.strip()], options)
    for result in results:
        print(f"{result['task']['task']}: {result['files']['results']}")
        print(open(result["files"]["tables"], encoding="utf-8").read())
    return 0


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
    from negkit.data.locate import locate_dataset
    from negkit.errors import DataNotFoundError
    from negkit.tasks.base import get_task, registered_tasks

    for name, description in registered_tasks().items():
        task = get_task(name)
        try:
            where = str(locate_dataset(task.dataset, data))
        except DataNotFoundError:
            where = "data not found (pass --data or set NEGKIT_DATA)"
        print(f"{name}\t{description}\t[{where}]", file=sys.stdout)
    return 0
