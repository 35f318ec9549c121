"""``negkit eval`` as a library function: load a model, run tasks through the engine and the run store,
write results.

For each task, the output folder receives ``TASK.results.json`` (the metrics and the reproduction record of
:mod:`negkit.commands.eval.record`: the resolved command, versions, git commit, device, dtype, batch sizes, date, the
exact prompt template, few-shot ids, data hashes, timings of every invocation), ``TASK.samples.jsonl`` (one
record per item, with its inputs and the exact prompt) and ``TASK.md`` (Markdown tables); ``results.json``
holds every task in the LM Evaluation Harness's layout as well. Answers go to ``requests.jsonl``, the run
store: run the same command again and nothing already answered is recomputed.
"""

from __future__ import annotations

import re
import shlex
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from negkit.commands.eval.combined import with_earlier_tasks, write_combined_report
from negkit.commands.eval.flags import eval_command
from negkit.commands.eval.folder import check_one_model, check_run_files_are_negkits, start_over
from negkit.commands.eval.harness import resolve_harness
from negkit.commands.eval.options import EvalOptions, model_options, resolve_dtype_for_mode
from negkit.commands.eval.preflight import prepare_run
from negkit.commands.eval.record import applies_chat_template, run_record
from negkit.commands.eval.task import RunContext, evaluate_task
from negkit.errors import NegkitError
from negkit.io.atomic import remove_temporaries
from negkit.io.locks import run_lock_for_rank
from negkit.kit.data.locate import find_data_root
from negkit.kit.results import TaskResult
from negkit.kit.suites import expand_task_names, suite_view
from negkit.models.adapter import apply_adapter
from negkit.models.conversation import conversation_template_of, use_conversation_template
from negkit.models.model_args import redact_command_line
from negkit.runs.distributed import STORE_PATTERN, ProcessGroup, launcher_group, rank_device, store_file
from negkit.runs.store import RunStore

STORE_FILE = "requests.jsonl"


def evaluate(model: str | Any, tasks: Sequence[str], options: EvalOptions | None = None) -> list[TaskResult]:
    """Evaluate ``model`` (a spec for :func:`negkit.models.registry.load_model`, or a model object) on
    ``tasks`` (task names, or suite names standing for their tasks); return each task's result (its results
    dictionary, which it reads like, its records and tables; also written under ``options.out``).

    Everything is checked, and every task's data read, before the model loads
    (:func:`negkit.commands.eval.preflight.prepare_run`); the output folder is locked for the whole run
    (:class:`negkit.io.locks.RunLock`)."""
    options = options or EvalOptions()
    model, options = resolve_harness(model, options)  # the Harness's spellings; the mode (exact on the CPU)
    tasks = expand_task_names(tasks)  # a suite's name stands for its tasks
    dtype = resolve_dtype_for_mode(options.mode, options.dtype, options.quantize or options.model_args.get("quantize"))
    started_at = time.time()
    plan = prepare_run(model, tasks, options)  # every flag, data set and the model spec, before the model loads
    group = launcher_group()  # torchrun / accelerate launch: one rank of a data-parallel group
    try:
        return _evaluate(model, tasks, options, dtype, plan, started_at, group)
    finally:
        group.close()


def _evaluate(
    model: str | Any,
    tasks: list[str],
    options: EvalOptions,
    dtype: str,
    plan: Any,
    started_at: float,
    group: ProcessGroup,
) -> list[TaskResult]:
    with ExitStack() as stack:
        # one writer per output folder (rank 0 holds it for a group): a named folder is locked before the model loads
        store: RunStore | None = None
        if options.out:
            _hold_lock(stack, Path(options.out), options, group)
            _start_over(Path(options.out), options, group)
            check_run_files_are_negkits(Path(options.out))  # a user's file there is never overwritten
            store = _open_store(stack, Path(options.out), group)  # a damaged store fails before the model loads
        started = time.perf_counter()
        if isinstance(model, str):
            from negkit.models.registry import load_model  # loads torch: off the start-up path

            spec = model
            placed = replace(options, device=rank_device(group, options.device, options.model_args))
            model = load_model(model, dtype=dtype, **model_options(placed))
        else:
            spec = model.fingerprint.name
        if options.adapter is not None:
            apply_adapter(model, options.adapter, merge=options.merge_adapter)
        if options.conversation_template is not None:  # before the folder check: it is part of the fingerprint
            use_conversation_template(model, options.conversation_template)
        if group.is_main:
            _note_template_use(model, plan)
        load_seconds = time.perf_counter() - started
        if options.out:  # a run folder holds one model (before anything is written for this one)
            named = conversation_template_of(model)
            shown = f" with conversation template {named.name}" if named is not None else ""
            check_one_model(Path(options.out), model.fingerprint.key(), model.fingerprint.name + shown)
        out = Path(options.out) if options.out else Path("negkit-runs") / f"{_slug(spec)}-{model.fingerprint.key()[:8]}"
        if not options.out:
            _hold_lock(stack, out, options, group)
            store = _open_store(stack, out, group)
        root = find_data_root(options.data)
        resolved = replace(options, out=out)
        command = (
            list(options.command)
            if options.command is not None
            else eval_command(spec, tasks, resolved, dtype, root.resolve() if root else None)
        )
        record = run_record(spec, tasks, resolved, command, model, dtype, started_at)
        assert store is not None  # opened above: in --out before the model loaded, else in the default folder
        run = RunContext(model, options, store, out, load_seconds, record, group, _engine_stats)
        results = [result for prepared in plan.tasks if (result := evaluate_task(run, prepared)) is not None]
        batching = _engine_stats(model).get("batching")
        if batching:  # the batch sizes used over the whole run (each task's own are in its results' engine)
            record["model"]["batching"] = batching
        if group.is_main:
            write_combined_report(
                with_earlier_tasks(results, out, suite_view),
                out,
                record,
                options.skipped,
                time.time() - started_at,
                suite_view,
            )
        group.barrier()  # the lock is released only when every rank is done
    return results


def _note_template_use(model: Any, plan: Any) -> None:
    """Say on standard error when a named conversation template is given but no task applies a chat template, and
    when an adapter was trained with another conversation template than the one the prompts are rendered with."""
    named = conversation_template_of(model)
    if named is not None and not any(applies_chat_template(prepared.task, model) for prepared in plan.tasks):
        print(
            f"negkit: note: --conversation-template {named.name}: no task of this run applies a chat template (add "
            "--apply-chat-template to render the prompts with it)",
            file=sys.stderr,
        )
    adapter = getattr(model, "adapter", None)
    base = getattr(adapter, "base_model", None) or {}
    trained = (base.get("extra") or {}).get("conversation_template") if isinstance(base, dict) else None
    if trained is not None and trained != getattr(named, "name", None):
        now = f"conversation template {named.name}" if named is not None else "no conversation template"
        print(
            f"negkit: note: the adapter was trained with --conversation-template {trained}; this run renders chat "
            f"prompts with {now}",
            file=sys.stderr,
        )


def _open_store(stack: ExitStack, out: Path, group: ProcessGroup) -> RunStore:
    """This process's run store: its own file, reading every other store file of the folder."""
    return stack.enter_context(RunStore(store_file(out, group), siblings=STORE_PATTERN))


def _hold_lock(stack: ExitStack, out: Path, options: EvalOptions, group: ProcessGroup) -> None:
    """Rank 0 (or a single process) takes the folder's run lock; every rank learns whether it succeeded."""
    command = shlex.join(
        redact_command_line(options.command if options.command is not None else ["negkit", *sys.argv[1:]])
    )
    problem: Exception | None = None
    try:
        stack.enter_context(
            run_lock_for_rank(
                out, group.rank, group.world_size, wait=options.wait_lock, info={"command": command[:500]}
            )
        )
    except NegkitError as error:
        problem = error
    refused = group.broadcast(str(problem) if problem is not None else None)
    if problem is not None:
        raise problem
    if refused is not None:
        raise NegkitError(refused)
    if group.is_main:
        remove_temporaries(out)  # left by a killed run; the lock says no live writer owns them


def _start_over(out: Path, options: EvalOptions, group: ProcessGroup) -> None:
    """``--start-over``: rank 0 removes the folder's run files (under the lock) before any rank opens its store."""
    if options.start_over and group.is_main:
        removed = start_over(out)
        if removed:
            print(f"negkit: --start-over: removed {len(removed)} run files of {out}", file=sys.stderr)
    group.barrier()


def _engine_stats(model: Any) -> dict[str, Any]:
    """Prefix reuse counts and the batch sizes used per length bucket (for backends that have them)."""
    engine: dict[str, Any] = {}
    stats = getattr(getattr(model, "scorer", None), "stats", None)
    if stats is not None:
        engine.update(
            batches=stats.batches,
            batches_with_prefix=stats.batches_with_prefix,
            tokens=stats.tokens_total,
            prefix_tokens_reused=stats.tokens_skipped,
            padding_tokens=stats.tokens_padded,
            prefix_tree=stats.prefix_tree or "not used",
        )
    batcher = getattr(model, "batcher", None)
    if batcher is not None and hasattr(batcher, "report"):
        engine["batching"] = batcher.report()
    return engine


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[-60:] or "model"
