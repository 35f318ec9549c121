"""``negkit eval`` as a library function: load a model, run tasks through the engine and the run store,
write results.

For each task, the output folder receives ``TASK.results.json`` (the metrics and the reproduction record of
:mod:`negkit.run.record`: the resolved command, versions, git commit, device, dtype, batch sizes, date, the
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

from negkit import __version__
from negkit.data.locate import find_data_root
from negkit.engine.distributed import STORE_PATTERN, ProcessGroup, answer_share, launcher_group, rank_device, store_file
from negkit.engine.run_lock import run_lock_for_rank
from negkit.engine.runner import answer_requests
from negkit.engine.store import RunStore
from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_json, atomic_write_jsonl, atomic_write_text, remove_temporaries
from negkit.io.privacy import private_fields_to_redact, redact_record
from negkit.metrics.intervals import IntervalSettings
from negkit.models.model_args import redact_model_args
from negkit.report.combined import write_combined_report
from negkit.report.harness import harness_metrics
from negkit.run.files import samples_record
from negkit.run.flags import eval_command
from negkit.run.options import EvalOptions, model_options, resolve_dtype_for_mode
from negkit.run.preflight import PreparedTask, prepare_run
from negkit.run.record import TimingLog, attach_prompts, data_record, merge_timings, prompt_record, run_record, utc_now
from negkit.suites import suite_view

STORE_FILE = "requests.jsonl"


def evaluate(model: str | Any, tasks: Sequence[str], options: EvalOptions | None = None) -> list[dict[str, Any]]:
    """Evaluate ``model`` (a spec for :func:`negkit.models.registry.load_model`, or a model object) on
    ``tasks``; return one results dictionary per task (also written under ``options.out``).

    Everything is checked, and every task's data read, before the model loads
    (:func:`negkit.run.preflight.prepare_run`); the output folder is locked for the whole run
    (:class:`negkit.engine.run_lock.RunLock`)."""
    options = options or EvalOptions()
    tasks = list(tasks)
    dtype = resolve_dtype_for_mode(options.mode, options.dtype, options.quantize or options.model_args.get("quantize"))
    started_at = time.time()
    plan = prepare_run(model, tasks, options)  # every flag, data set and the model spec, before the model loads
    group = launcher_group()  # torchrun / accelerate launch: one rank of a data-parallel group
    try:
        return _evaluate(model, tasks, options, dtype, plan, started_at, group)
    finally:
        group.close()


def _evaluate(model: str | Any, tasks: list[str], options: EvalOptions, dtype: str, plan: Any,
              started_at: float, group: ProcessGroup) -> list[dict[str, Any]]:
    with ExitStack() as stack:
        # one writer per output folder (rank 0 holds it for a group): a named folder is locked before the model loads
        store: RunStore | None = None
        if options.out:
            _hold_lock(stack, Path(options.out), options, group)
            store = _open_store(stack, Path(options.out), group)  # a damaged store fails before the model loads
        started = time.perf_counter()
        if isinstance(model, str):
            from negkit.models.registry import load_model

            spec = model
            placed = replace(options, device=rank_device(group, options.device, options.model_args))
            model = load_model(model, dtype=dtype, **model_options(placed))
        else:
            spec = model.fingerprint.name
        if options.adapter is not None:
            from negkit.models.adapter import apply_adapter

            apply_adapter(model, options.adapter, merge=options.merge_adapter)
        load_seconds = time.perf_counter() - started
        out = Path(options.out) if options.out else Path("negkit-runs") / f"{_slug(spec)}-{model.fingerprint.key()[:8]}"
        if not options.out:
            _hold_lock(stack, out, options, group)
            store = _open_store(stack, out, group)
        root = find_data_root(options.data)
        resolved = replace(options, out=out)
        command = list(options.command) if options.command is not None else \
            eval_command(spec, tasks, resolved, dtype, root.resolve() if root else None)
        record = run_record(spec, tasks, resolved, command, model, dtype, started_at)
        results = []
        for prepared in plan.tasks:
            result = _evaluate_task(model, prepared, options, store, out, load_seconds, record, group)
            if result is not None:
                results.append(result)
        batching = _engine_stats(model).get("batching")
        if batching:  # the batch sizes used over the whole run (each task's own are in its results' engine)
            record["model"]["batching"] = batching
        if group.is_main:
            write_combined_report(results, out, record, options.skipped, time.time() - started_at, suite_view)
        group.barrier()  # the lock is released only when every rank is done
    return results


def _open_store(stack: ExitStack, out: Path, group: ProcessGroup) -> RunStore:
    """This process's run store: its own file, reading every other store file of the folder."""
    return stack.enter_context(RunStore(store_file(out, group), siblings=STORE_PATTERN))


def _hold_lock(stack: ExitStack, out: Path, options: EvalOptions, group: ProcessGroup) -> None:
    """Rank 0 (or a single process) takes the folder's run lock; every rank learns whether it succeeded."""
    command = shlex.join(options.command) if options.command is not None else shlex.join(["negkit", *sys.argv[1:]])
    problem: Exception | None = None
    try:
        stack.enter_context(run_lock_for_rank(out, group.rank, group.world_size, wait=options.wait_lock,
                                              info={"command": command[:500]}))
    except NegkitError as error:
        problem = error
    refused = group.broadcast(str(problem) if problem is not None else None)
    if problem is not None:
        raise problem
    if refused is not None:
        raise NegkitError(refused)
    if group.is_main:
        remove_temporaries(out)  # left by a killed run; the lock says no live writer owns them


def _evaluate_task(model: Any, prepared: PreparedTask, options: EvalOptions, store: RunStore, out: Path,
                   load_seconds: float, record: dict[str, Any], group: ProcessGroup) -> dict[str, Any] | None:
    """Answer one task's requests (this rank's share of them in a group) and, on rank 0, write its files."""
    task, data, task_name = prepared.task, prepared.data, prepared.name
    timings: dict[str, Any] = {"date_utc": utc_now(), "load_model_s": round(load_seconds, 3)}
    started = time.perf_counter()
    seed = prepared.seed
    _check_not_trained_on(model, task_name, data)
    bind_answers = getattr(model, "bind_answers", None)  # baseline pseudo-models answer within the task's answers
    if bind_answers is not None:
        answer_space = getattr(task, "answer_space", None)
        bind_answers(answer_space(data.items) if answer_space else None, task_name)
    per_item = task.requests(data.items, model)
    flat = [request for requests in per_item for request in requests]
    timings["prepare_s"] = round(prepared.load_seconds + time.perf_counter() - started, 3)
    stored_before = len(store)
    started = time.perf_counter()
    log = TimingLog(out / task_name) if group.is_main else None  # a killed run's time survives for the next one
    previous, done = (log.previous() if log else None), [0]
    if log:
        log.progress(timings, started, 0, force=True)

    def answer(requests: list[Any], show: bool = True) -> list[Any]:
        bar = _progress_bar(len(requests), task_name, options.progress and show and group.is_main)

        def progress(count: int) -> None:
            done[0] += count
            if log:
                log.progress(timings, started, done[0])
            if bar is not None:
                bar.update(count)

        try:
            return answer_requests(model, requests, store, options.mode, options.chunk_size, progress,
                                   options.commit_seconds)
        finally:
            if bar is not None:
                bar.close()

    # in a group each rank answers its share, then reads the others' answers; alone this does nothing
    share = answer_share(group, model, flat, store, options.mode, answer)
    ranks = group.gather({**share, "device": str((getattr(model, "load_info", None) or {}).get("device")),
                          "score_s": round(time.perf_counter() - started, 3)})
    if not group.is_main:
        return None
    answers = answer(flat, show=not group.active)  # alone: the work; in a group: read from the store files
    timings["score_s"] = round(time.perf_counter() - started, 3)
    computed = share["missing_before"] if group.active else len(store) - stored_before
    responses, position = [], 0
    for requests in per_item:
        responses.append(tuple(answers[position : position + len(requests)]))
        position += len(requests)
    records = task.records(data.items, responses)
    attach_prompts(records, per_item)
    metrics = task.metrics(data.items, records)
    if options.bootstrap and hasattr(task, "intervals"):
        metrics["intervals"] = task.intervals(data.items, records, IntervalSettings(options.bootstrap, options.bootstrap_seed))
    timings.update(requests_computed=computed, requests_from_store=len(set(flat)) - computed)
    base = out / task_name
    result = {
        "negkit_version": __version__,
        "task": task.config(),
        "model": {**model.fingerprint.as_dict(), "key": model.fingerprint.key(),
                  # how the backend was loaded (device, quantization, adapter, resolved loader options, ...)
                  "load": dict(getattr(model, "load_info", {}) or {}),
                  "model_args": redact_model_args(options.model_args)},
        "mode": options.mode,
        "chat_template": bool(getattr(model, "has_chat_template", False)),
        "prompt": prompt_record(task, model),
        "data": {**data_record(options.data, data.files), **data.selection},
        "seed": seed,
        "requests": {"total": len(flat), "unique": len(set(flat)), "computed": computed,
                     "from_store": len(set(flat)) - computed},
        "timings": merge_timings(previous, timings),
        "engine": _engine_stats(model),
        **({"distributed": {"world_size": group.world_size, "ranks": ranks}} if group.active else {}),
        "command": record["command"],
        "record": record,
        "metrics": metrics,
        "harness": harness_metrics(records),
    }
    redacted, repository = private_fields_to_redact(task, out, options.allow_in_git)
    if redacted:
        result["privacy"] = {"redacted_fields": list(redacted), "replaced_by": [f + "_sha256" for f in redacted],
                             "reason": "the output folder is inside a git working tree; --allow-in-git writes them"}
        print(f"negkit: note: {task_name}: {base.with_suffix('.samples.jsonl')} is inside the git working tree "
              f"{repository}: its {' and '.join(redacted)} fields are written as SHA-256 hashes (TIND stays private; "
              "--allow-in-git writes them as they are)", file=sys.stderr)
        records = [redact_record(record, redacted) for record in records]
    count = atomic_write_jsonl(base.with_suffix(".samples.jsonl"), records)
    result["samples"] = samples_record(base.with_suffix(".samples.jsonl"), count)  # readers check the file whole
    atomic_write_json(base.with_suffix(".results.json"), result)
    atomic_write_text(base.with_suffix(".md"), task.tables(metrics))
    if log:
        log.finish()
    result["files"] = {kind: str(base.with_suffix(suffix)) for kind, suffix in
                       (("results", ".results.json"), ("samples", ".samples.jsonl"), ("tables", ".md"))}
    return result


def _check_not_trained_on(model: Any, task_name: str, data: Any) -> None:
    """Refuse to score an adapter on TIND groups it was trained on (a different split seed draws other groups)."""
    if getattr(model, "adapter", None) is None:
        return
    from negkit.models.adapter import overlapping_groups

    overlap = overlapping_groups(model, data.items, data.files)
    if overlap:
        seed = ((model.adapter.trained_on or {}).get("description") or {}).get("split_seed")
        raise NegkitError(f"{overlap} of the {task_name} groups to evaluate were in the adapter's training data "
                          f"(it was trained on the split drawn with seed {seed}; evaluate with --seed {seed})")


def _progress_bar(total: int, name: str, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=name, unit="req", file=sys.stderr, dynamic_ncols=True)


def _engine_stats(model: Any) -> dict[str, Any]:
    """Prefix reuse counts and the batch sizes used per length bucket (for backends that have them)."""
    engine: dict[str, Any] = {}
    stats = getattr(getattr(model, "scorer", None), "stats", None)
    if stats is not None:
        engine.update(batches=stats.batches, batches_with_prefix=stats.batches_with_prefix,
                      tokens=stats.tokens_total, prefix_tokens_reused=stats.tokens_skipped,
                      padding_tokens=stats.tokens_padded, prefix_tree=stats.prefix_tree or "not used")
    batcher = getattr(model, "batcher", None)
    if hasattr(batcher, "report"):
        engine["batching"] = batcher.report()
    return engine


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[-60:] or "model"
