"""``negkit eval``: evaluate a model on registered tasks (see :mod:`negkit.commands.eval.evaluate`)."""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import Any

from negkit.cli.arguments import add_include_argument
from negkit.cli.groups import CommandGroups
from negkit.commands.eval.combined import REPORT_FILE
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.harness import parse_gen_kwargs
from negkit.commands.eval.options import EvalOptions
from negkit.commands.eval.preflight import check_data_argument
from negkit.commands.status import (
    SuiteStatus,
    default_run_plan,
    default_suites,
    expand_groups,
    locate_task_data,
    suite_status,
)
from negkit.errors import NegkitError, quoted
from negkit.kit.arguments import (
    harness_seed,
    non_negative,
    parse_batch_size,
    parse_limit,
    per_task_value,
    positive_float,
    positive_int,
    seed_value,
    wait_seconds,
)
from negkit.kit.suites import registered_tasks, suite_groups, task_flags
from negkit.models.model_args import parse_model_args
from negkit.models.spec import parse_model_spec
from negkit.runs.runner import DEFAULT_CHUNK_SIZE, DEFAULT_COMMIT_SECONDS

#: Place in ``negkit --help``.
ORDER = 10


def register(groups: CommandGroups) -> None:
    parser = groups[""].add_parser(
        "eval",
        help="evaluate a model on benchmark tasks (results JSON, per-sample JSONL, Markdown tables)",
        description="Evaluate a model on benchmark tasks. Rerunning the same command resumes: answers "
        "already in OUT/requests.jsonl are not recomputed.",
    )
    models = parser.add_argument_group("model")
    add_model_arguments(models)
    models.add_argument(
        "--list-conversation-templates",
        action="store_true",
        help="list the named conversation templates (--conversation-template NAME) with their formats",
    )
    add_task_arguments(parser.add_argument_group("tasks and data"))
    add_run_arguments(parser.add_argument_group("run and output"))
    parser.set_defaults(handler=run_eval)


def add_model_arguments(parser: argparse._ActionsContainer) -> None:
    """Which model, how it is loaded, and how it computes (backend options, batching, precision)."""
    parser.add_argument(
        "--model",
        default="default",
        help="default | a catalogue NAME (--list-models) | hf:PATH_OR_NAME | gguf:FILE | openai:URL#MODEL | "
        "vllm:PATH_OR_NAME | nli:PATH; baselines: random | constant:ANSWER | majority",
    )
    parser.add_argument(
        "--list-models",
        action="store_true",
        help="list the catalogue models (--model NAME): parameters, size, licence, chat template, "
        "and whether each is on this machine (bash scripts/get_models.sh NAME fetches one)",
    )
    parser.add_argument(
        "--model-args",
        "--model_args",
        metavar="KEY=VALUE,...",
        help="options for the model loader, e.g. revision=main,attn_implementation=sdpa "
        "(lists in [brackets], values with commas in quotes); recorded in the results. The Harness's "
        "--model hf|vllm --model_args pretrained=NAME,dtype=... and --model local-completions --model_args "
        "model=NAME,base_url=URL are read as hf:NAME, vllm:NAME, openai:URL#NAME (docs/harness.md)",
    )
    parser.add_argument(
        "--adapter",
        metavar="DIR",
        help="a LoRA adapter folder (negkit finetune's output, or any PEFT adapter) merged into the "
        "model's weights in memory; recorded with its weights and training config hashes",
    )
    parser.add_argument(
        "--conversation-template",
        metavar="NAME",
        help="render chat prompts in this named format instead of the tokenizer's chat template (e.g. "
        "vicuna-v1.1, llama-2-chat, llama3, chatml; see --list-conversation-templates); used wherever a task "
        "applies a chat template, and recorded in the model's fingerprint",
    )
    parser.add_argument(
        "--batch-size",
        "--batch_size",
        default="auto",
        help="N, or auto (the largest batch that fits, found per length bucket, halved on out-of-memory)",
    )
    parser.add_argument(
        "--max-batch-size",
        "--max_batch_size",
        type=positive_int,
        metavar="N",
        help="with --batch-size auto: at most N prompts per batch (the Harness's flag)",
    )
    parser.add_argument(
        "--device",
        help="cpu | cuda | cuda:N | mps | auto (default: a GPU when one is visible; "
        "under torchrun/accelerate each rank takes cuda:LOCAL_RANK)",
    )
    parser.add_argument(
        "--dtype",
        choices=("auto", "checkpoint", "float32", "bfloat16", "float16"),
        help="exact mode: float32; fast mode: checkpoint (the dtype the checkpoint was saved in, as the Harness's "
        "dtype=auto; the default on a GPU), or auto (CPU: the fastest of float32, bfloat16 and float16 by a "
        "short calibration cached per machine; GPU: bfloat16, float16 without bf16)",
    )
    parser.add_argument(
        "--quantize",
        choices=("8bit", "4bit"),
        help="load the weights quantized with bitsandbytes (needs a CUDA GPU and --mode fast)",
    )
    parser.add_argument(
        "--mode",
        choices=("exact", "fast"),
        help="exact reproduces plain forward passes in float32 (the default on the CPU); fast computes in "
        "--dtype (the default on a GPU, in the checkpoint's dtype as the Harness does; --mode exact for float32 "
        "there)",
    )
    parser.add_argument(
        "--timeout",
        type=positive_float,
        metavar="SECONDS",
        help="openai: servers: seconds to wait for an answer (default 30; a request that times out is "
        "tried twice at most)",
    )
    parser.add_argument(
        "--retries",
        type=non_negative,
        metavar="N",
        help="openai: servers: tries after a connection error or HTTP 408/429/5xx (default 3)",
    )


def add_task_arguments(parser: argparse._ActionsContainer) -> None:
    """Which tasks, on which data, asked how (prompts, few-shot, limits, seeds)."""
    parser.add_argument(
        "--tasks", help="comma-separated task names (see --list); default: every suite whose data is found"
    )
    parser.add_argument("--list", action="store_true", help="list the registered tasks and where their data was found")
    parser.add_argument(
        "--download",
        action="store_true",
        default=os.environ.get("NEGKIT_DOWNLOAD", "").lower() in ("1", "true", "yes"),
        help="first download the tasks' data that is not found (negkit data get; NEGKIT_DOWNLOAD=1 sets it)",
    )
    parser.add_argument(
        "--data", help="data root, data set folder or file (default: NEGKIT_DATA, ./data, ../shared/data)"
    )
    add_include_argument(parser)
    parser.add_argument(
        "--split",
        default="test",
        help="split to evaluate (default: test; a task's other splits: see its docs, e.g. 'all' for a whole data set)",
    )
    parser.add_argument(
        "--limit",
        type=parse_limit,
        metavar="N|F|TASK=N,...",
        help="about N items per task, or a fraction F in (0, 1) of each task's items (a task whose "
        "items come in groups takes a deterministic sample of whole groups); TASK=N,... sets per-task "
        "limits and runs the other tasks in full",
    )
    parser.add_argument(
        "--seed",
        type=harness_seed,
        metavar="S|S,S,S,S",
        help="seed for splits, samples and few-shot draws (default 0; a task that averages over its paper's "
        "few-shot seeds uses this one seed instead); the Harness's four seeds (python, numpy, torch, few-shot) "
        "give their few-shot seed. A warning when no task draws anything",
    )
    parser.add_argument(
        "--gen-kwargs",
        "--gen_kwargs",
        metavar="KEY=VALUE,...",
        help="for the tasks that generate text: max_gen_toks=N, until=[STOP,...]; do_sample=false and "
        "temperature=0 are accepted (negkit generates greedily); an error when no task generates",
    )
    parser.add_argument(
        "--prompt",
        type=per_task_value(str),
        metavar="ID|TASK=ID,...",
        help="prompt id of the tasks that have several (ids and defaults: docs/suites.md)",
    )
    parser.add_argument(
        "--num-fewshot",
        "--num_fewshot",
        type=per_task_value(non_negative),
        metavar="K|TASK=K,...",
        help="few-shot examples for the tasks that take them; an error for a task that does not",
    )
    chat = parser.add_mutually_exclusive_group()
    chat.add_argument(
        "--apply-chat-template",
        "--apply_chat_template",
        dest="chat",
        action="store_const",
        const=True,
        help="render every prompt with the model's chat template (default: each task's own: most "
        "never, a task written for chat models when the model has a template)",
    )
    chat.add_argument(
        "--no-chat-template",
        dest="chat",
        action="store_const",
        const=False,
        help="never use the chat template (the tasks' plain prompts)",
    )
    parser.add_argument(
        "--system-instruction",
        "--system_instruction",
        metavar="TEXT",
        help="a system message (with the chat template), else text put before each prompt and a blank line",
    )
    for flag in task_flags().values():  # the benchmarks' own task options (e.g. a BOS policy)
        parser.add_argument(*flag.names, dest=flag.dest, **flag.settings)


def add_run_arguments(parser: argparse._ActionsContainer) -> None:
    """Where results go and how the run behaves (progress, durability, locking)."""
    parser.add_argument(
        "--out", "--output-path", "--output_path", dest="out", help="output folder (default: negkit-runs/MODEL-HASH)"
    )
    parser.add_argument(
        "--log-samples",
        "--log_samples",
        action="store_true",
        help="accepted for the Harness's command lines: negkit always writes TASK.samples.jsonl "
        "(each item's inputs, exact prompt, scores and prediction)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        metavar="N",
        help="bootstrap resamples for the 95%% confidence interval of every metric, clustered by "
        "each benchmark's unit (default: 1000; 0: no intervals)",
    )
    parser.add_argument(
        "--bootstrap-seed", type=seed_value, default=0, metavar="S", help="seed of the bootstrap draws (default: 0)"
    )
    parser.add_argument(
        "--chunk-size",
        type=positive_int,
        default=DEFAULT_CHUNK_SIZE,
        metavar="N",
        help=f"requests per durable write to the run store, at most (default: {DEFAULT_CHUNK_SIZE})",
    )
    parser.add_argument(
        "--commit-seconds",
        type=positive_float,
        default=DEFAULT_COMMIT_SECONDS,
        metavar="S",
        help="seconds of model work per durable write to the run store, about (default: "
        f"{DEFAULT_COMMIT_SECONDS:g}); a kill loses at most this much work",
    )
    parser.add_argument(
        "--start-over",
        action="store_true",
        help="remove --out's negkit run files (results, samples, reports, stored answers) before the "
        "run; other files stay. Without it, a folder holding another model's tasks is refused",
    )
    parser.add_argument(
        "--allow-in-git",
        action="store_true",
        help="write a task's private fields (sentences of a data set kept encrypted) into the per-sample "
        "files and generated text into the run store even when --out is inside a git working tree (there "
        "they are written as SHA-256 hashes, and generated text is stored sealed, by default)",
    )
    parser.add_argument(
        "--wait-lock",
        type=wait_seconds,
        nargs="?",
        const=math.inf,
        default=0.0,
        metavar="SECONDS",
        help="when another run writes to the same output folder, wait for it (for at most SECONDS) instead of refusing",
    )


def run_eval(args: argparse.Namespace) -> int:
    if args.list_models:
        from negkit.models.catalogue import models_table

        print(models_table())
        return 0
    if getattr(args, "list_conversation_templates", False):
        from negkit.models.conversation import templates_table

        print(templates_table())
        return 0
    if args.list:
        return list_tasks(args.data)

    if args.bootstrap < 0:
        raise NegkitError(f"--bootstrap must be 0 (no intervals) or a number of resamples, got {args.bootstrap}")
    if args.download:  # before the tasks are found: what is missing is fetched first (negkit data get)
        from negkit.commands.data import download_for_tasks

        download_for_tasks(None if args.tasks is None else args.tasks.split(","), args.data)
    skipped: dict[str, str] = {}
    if args.tasks is not None:
        tasks = [name.strip() for name in args.tasks.split(",")]
        if not any(tasks):
            raise NegkitError(f"--tasks {quoted(args.tasks)} names no task (see negkit eval --list)")
        if not all(tasks):
            raise NegkitError(f"--tasks {quoted(args.tasks)} has an empty task name (TASK,TASK,...)")
        tasks, skipped = expand_groups(tasks, args.data)  # a group of suites: those whose data is found
        for suite, hint in skipped.items():
            print(f"negkit: note: {suite} is not run: its data was not found (get it: {hint})", file=sys.stderr)
    else:
        if args.data is not None:
            check_data_argument(args.data)
        spec = parse_model_spec(args.model)
        tasks, skipped = suites_to_run(args.data, classifier=spec.is_classifier, embedding=spec.is_embedding)
    options = eval_options(args, skipped=skipped)
    results = evaluate(args.model, tasks, options)
    for result in results:
        print(f"{result['task']['task']}: {result['files']['results']}")
    if results:
        report = Path(results[0]["files"]["results"]).parent / REPORT_FILE
        print(f"report: {report}\n")
        print(report.read_text(encoding="utf-8"))
    return 0


def eval_options(args: argparse.Namespace, **fields: Any) -> EvalOptions:
    """The :class:`EvalOptions` of parsed eval flags (the model and run groups, and the task group's flags where the
    parser has them); ``fields`` replace values (a benchmark's own command sets its split, its few-shot count)."""

    def given(name: str) -> Any:
        return getattr(args, name, None)

    values: dict[str, Any] = dict(
        data=given("data"),
        split=args.split if hasattr(args, "split") else "test",
        limit=given("limit"),
        seed=given("seed"),
        batch_size=batch_size_of(args.batch_size, given("max_batch_size")),
        dtype=args.dtype,
        mode=args.mode,
        out=args.out,
        device=args.device,
        quantize=args.quantize,
        progress=not args.no_progress,
        model_args=parse_model_args(args.model_args),
        gen_kwargs=parse_gen_kwargs(given("gen_kwargs")),
        num_fewshot=given("num_fewshot"),
        prompt=given("prompt"),
        chat=given("chat"),
        system_instruction=given("system_instruction"),
        conversation_template=given("conversation_template"),
        task_flags={option: given(option) for option in task_flags() if given(option) is not None},
        chunk_size=args.chunk_size,
        commit_seconds=args.commit_seconds,
        wait_lock=args.wait_lock,
        allow_in_git=args.allow_in_git,
        start_over=args.start_over,
        adapter=args.adapter,
        timeout=args.timeout,
        retries=args.retries,
        bootstrap=args.bootstrap,
        bootstrap_seed=args.bootstrap_seed,
    )
    return EvalOptions(**{**values, **fields})


def batch_size_of(text: str, maximum: int | None) -> int | None:
    """``--batch-size`` (None: auto), capped by ``--max-batch-size`` when the size is automatic: negkit's automatic
    size is the largest batch that fits, at most a given N (:mod:`negkit.models.hf_causal`)."""
    size = parse_batch_size(text)
    if maximum is None:
        return size
    if size is not None:
        print(
            f"negkit: note: --max-batch-size {maximum} applies to --batch-size auto only; the batch size is {size}",
            file=sys.stderr,
        )
        return size
    return maximum


def suites_to_run(
    data: str | None, classifier: bool = False, embedding: bool = False
) -> tuple[list[str], dict[str, str]]:
    """The main task of every default suite whose data is found (:func:`negkit.commands.status.default_run_plan`;
    a classifier or an embedding model runs the suites that take one), and the suites left out (suite -> how to get
    its data), each said on standard error: a suite is never skipped without a word."""
    tasks, skipped = default_run_plan(data, classifier, embedding)
    if not tasks:  # one error line, not a note per suite first
        where = f"{data}: " if data else ""
        raise NegkitError(
            f"{where}no suite's data was found (see negkit eval --list; pass --data PATH or set NEGKIT_DATA)"
        )
    for suite, hint in skipped.items():
        print(f"negkit: note: {suite} is not run: its data was not found (get it: {hint})", file=sys.stderr)
    return tasks, skipped


def suite_data_line(status: SuiteStatus) -> str:
    return f"data: {status.location}" if status.location else f"data not found; get it: {status.hint}"


def list_tasks(data: str | None) -> int:
    if data is not None:
        check_data_argument(data)

    runs = default_suites()
    statuses = suite_status(data)
    print("Suites (run by `negkit eval` without --tasks when their data is found):")
    for status in statuses:
        if status.suite in runs:
            print(f"  {status.suite}\t[{status.task}]\t{suite_data_line(status)}")
    by_name = [status for status in statuses if status.suite not in runs]
    if by_name:
        print("Suites asked for by name only (`negkit eval --tasks TASK`; guards, not negation benchmarks):")
        for status in by_name:
            print(f"  {status.suite}\t[{status.task}]\t{suite_data_line(status)}")
    groups = suite_groups()
    if groups:
        print("Groups of suites (`negkit eval --tasks GROUP` runs the main task of each whose data is found):")
        for group, members in groups.items():
            print(f"  {group}\t{', '.join(suite.name for suite in members)}")
    print("Tasks:")
    for name, description in registered_tasks().items():
        location = locate_task_data(name, data)
        where = str(location) if location else "data not found (pass --data or set NEGKIT_DATA)"
        print(f"  {name}\t{description}\t[{where}]", file=sys.stdout)
    return 0
