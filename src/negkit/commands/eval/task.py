"""One task of a ``negkit eval`` run, step by step: :func:`evaluate_task` calls, in order,

1. :func:`build_requests` (the adapter's training groups refused, the baselines bound to the task's answers, the
   task's requests),
2. :func:`answer_task` (the engine answers through the run store, with progress; in a group each rank answers its
   share and rank 0 gathers the ranks' counts),
3. :func:`group_responses` (the answers back per item) and the task's records,
4. :func:`task_metrics` (metrics and their bootstrap intervals),
5. :func:`build_result` (the task's results dictionary: model, prompt, data, requests, timings, record),
6. :func:`apply_privacy` (TIND's sentences as hashes inside a git working tree),
7. :func:`write_task_files` (``TASK.samples.jsonl``, ``TASK.results.json``, ``TASK.md``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from negkit import __version__
from negkit.commands.eval.harness import generates, with_gen_kwargs
from negkit.commands.eval.options import EvalOptions
from negkit.commands.eval.preflight import PreparedTask
from negkit.commands.eval.record import TimingLog, attach_prompts, data_record, merge_timings, prompt_record, utc_now
from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_jsonl, atomic_write_text
from negkit.io.privacy import private_fields_to_redact, redact_record
from negkit.kit.harness.layout import LAYOUT_VERSION, harness_metrics
from negkit.kit.metrics.intervals import IntervalSettings
from negkit.kit.results import TaskResult
from negkit.kit.runlog import plain_json, sample_record, task_log
from negkit.kit.scoring import harness_scores, task_numbers
from negkit.kit.tasks.adapter import adapt
from negkit.models.adapter import overlapping_groups
from negkit.models.model_args import redact_model_args
from negkit.runs.distributed import ProcessGroup, answer_share
from negkit.runs.files import samples_record, task_file
from negkit.runs.runner import answer_requests
from negkit.runs.store import RunStore

#: The files of a task, by kind.
SUFFIXES = (("results", ".results.json"), ("samples", ".samples.jsonl"), ("tables", ".md"))


@dataclass
class Answered:
    """What answering a task gave: the answers in request order, how many were computed now, each rank's counts."""

    answers: list[Any]
    computed: int
    ranks: list[dict[str, Any]] | None = None
    previous_timings: dict[str, Any] | None = None
    log: TimingLog | None = None
    timings: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunContext:
    """What every task of one ``negkit eval`` run shares: the model, the options, the run store and output folder,
    the seconds the model took to load, the run's reproduction record, the process group, and how to read the
    engine's counts (``engine_stats(model)``)."""

    model: Any
    options: EvalOptions
    store: RunStore
    out: Path
    load_seconds: float
    record: dict[str, Any]
    group: ProcessGroup
    engine_stats: Callable[[Any], dict[str, Any]]


def evaluate_task(run: RunContext, prepared: PreparedTask) -> TaskResult | None:
    """Answer one task's requests (this rank's share of them in a group) and, on rank 0, write its files; the
    task's result (None on the other ranks)."""
    model, options = run.model, run.options
    timings: dict[str, Any] = {"date_utc": utc_now(), "load_model_s": round(run.load_seconds, 3)}
    started = time.perf_counter()
    per_item, flat = build_requests(model, prepared, options.gen_kwargs)
    timings["prepare_s"] = round(prepared.load_seconds + time.perf_counter() - started, 3)
    # a private task's generated text is stored sealed inside a git working tree (negkit.runs.sealing)
    seal = bool(private_fields_to_redact(prepared.spec.private_fields, run.out, options.allow_in_git)[0])
    answered = answer_task(model, prepared.name, flat, options, run.store, run.out, run.group, timings, seal)
    if answered is None:
        return None
    records = prepared.task.records(prepared.data.items, group_responses(per_item, answered.answers))
    attach_prompts(records, per_item)
    metrics = task_metrics(prepared, records, options)
    result = build_result(run, prepared, flat, answered, metrics, records)
    records = apply_privacy(prepared, options, run.out, result, records)
    tables = prepared.task.tables(metrics)
    files = write_task_files(run.out / prepared.name, result, records, tables)
    if answered.log:
        answered.log.finish()
    result["files"] = files
    return TaskResult.from_results(result, records, tables, Path(files["samples"]), files["results"])


def build_requests(
    model: Any, prepared: PreparedTask, gen_kwargs: dict[str, Any] | None = None
) -> tuple[list[tuple[Any, ...]], list[Any]]:
    """The task's requests per item and in one list, after refusing data an adapter was trained on and binding a
    baseline pseudo-model to the task's answers; generation requests take ``--gen-kwargs``' length and stops."""
    task, data = prepared.task, prepared.data
    check_not_trained_on(model, prepared.name, data)
    bind_answers = getattr(model, "bind_answers", None)  # baseline pseudo-models answer within the task's answers
    if bind_answers is not None:
        bind_answers(adapt(task).answer_space(data.items), prepared.name)
    per_item = list(task.requests(data.items, model))
    if gen_kwargs:
        if not generates([request for requests in per_item for request in requests]):
            print(f"negkit: note: --gen-kwargs: {prepared.name} generates no text; not used for it", file=sys.stderr)
        per_item = [tuple(with_gen_kwargs(list(requests), gen_kwargs)) for requests in per_item]
    return per_item, [request for requests in per_item for request in requests]


def answer_task(
    model: Any,
    task_name: str,
    flat: list[Any],
    options: EvalOptions,
    store: RunStore,
    out: Path,
    group: ProcessGroup,
    timings: dict[str, Any],
    seal: bool = False,
) -> Answered | None:
    """Every request answered (from the run store where it was answered before), with progress and a timing log
    that survives a kill; in a group each rank answers its share first. None on ranks other than 0. ``seal``:
    generated text goes into the store sealed (:mod:`negkit.runs.sealing`)."""
    stored_before = len(store)
    started = time.perf_counter()
    # a killed run's time survives for the next one of the same model
    log = TimingLog(out / task_name, model.fingerprint.key()) if group.is_main else None
    previous, done = (log.previous() if log else None), [0]
    if log:
        log.progress(timings, started, 0, force=True)

    mode = options.mode
    assert mode is not None  # resolved before any task runs (harness.resolve_mode)

    def answer(requests: list[Any], show: bool = True) -> list[Any]:
        bar = _progress_bar(len(requests), task_name, options.progress and show and group.is_main)

        def progress(count: int) -> None:
            done[0] += count
            if log:
                log.progress(timings, started, done[0])
            if bar is not None:
                bar.update(count)

        try:
            return answer_requests(
                model, requests, store, mode, options.chunk_size, progress, options.commit_seconds, seal
            )
        finally:
            if bar is not None:
                bar.close()

    # in a group each rank answers its share, then reads the others' answers; alone this does nothing
    share = answer_share(group, model, flat, store, mode, answer)
    ranks = group.gather(
        {
            **share,
            "device": str((getattr(model, "load_info", None) or {}).get("device")),
            "score_s": round(time.perf_counter() - started, 3),
        }
    )
    if not group.is_main:
        return None
    answers = answer(flat, show=not group.active)  # alone: the work; in a group: read from the store files
    timings["score_s"] = round(time.perf_counter() - started, 3)
    computed = share["missing_before"] if group.active else len(store) - stored_before
    return Answered(answers, computed, ranks if group.active else None, previous, log, timings)


def group_responses(per_item: Sequence[tuple[Any, ...]], answers: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The answers of each item's requests, from the answers of all requests in order."""
    responses, position = [], 0
    for requests in per_item:
        responses.append(tuple(answers[position : position + len(requests)]))
        position += len(requests)
    return responses


def task_metrics(prepared: PreparedTask, records: list[dict[str, Any]], options: EvalOptions) -> dict[str, Any]:
    """The task's metrics, with the 95% intervals of ``--bootstrap`` resamples (:func:`negkit.kit.scoring.task_numbers`)."""
    settings = IntervalSettings(options.bootstrap, options.bootstrap_seed) if options.bootstrap else None
    return task_numbers(prepared.task, prepared.data.items, records, settings)


def build_result(
    run: RunContext,
    prepared: PreparedTask,
    flat: list[Any],
    answered: Answered,
    metrics: dict[str, Any],
    records: list[dict[str, Any]],
) -> dict[str, Any]:
    """The task's results dictionary (the layout of ``TASK.results.json``, docs/reproducibility.md)."""
    model, options, group, record = run.model, run.options, run.group, run.record
    task, data, computed = prepared.task, prepared.data, answered.computed
    unique = len(set(flat))
    answered.timings.update(requests_computed=computed, requests_from_store=unique - computed)
    return {
        "negkit_version": __version__,
        "negkit_layout": LAYOUT_VERSION,
        "task": task.config(),
        "model": {
            **model.fingerprint.as_dict(),
            "key": model.fingerprint.key(),
            # how the backend was loaded (device, quantization, adapter, resolved loader options, ...)
            "load": dict(getattr(model, "load_info", {}) or {}),
            "model_args": redact_model_args(options.model_args),
        },
        "mode": options.mode,
        "chat_template": bool(getattr(model, "has_chat_template", False)),
        "prompt": prompt_record(task, model),
        "data": {**data_record(options.data, data.files), **data.selection},
        "seed": prepared.seed,
        "requests": {"total": len(flat), "unique": unique, "computed": computed, "from_store": unique - computed},
        "timings": merge_timings(answered.previous_timings, answered.timings),
        "engine": run.engine_stats(model),
        **({"distributed": {"world_size": group.world_size, "ranks": answered.ranks}} if group.active else {}),
        "command": record["command"],
        "record": record,
        "metrics": metrics,
        "harness": harness_metrics(harness_scores(task, records)),
    }


def apply_privacy(
    prepared: PreparedTask, options: EvalOptions, out: Path, result: dict[str, Any], records: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The records to write: a task's private fields (TIND's sentences and prompts) as SHA-256 hashes when the
    output folder is inside a git working tree (unless ``--allow-in-git``), said in the results and on stderr."""
    redacted, repository = private_fields_to_redact(prepared.spec.private_fields, out, options.allow_in_git)
    if not redacted:
        return records
    result["privacy"] = {
        "redacted_fields": list(redacted),
        "replaced_by": [f + "_sha256" for f in redacted],
        "reason": "the output folder is inside a git working tree; --allow-in-git writes them",
        # what the model generated is in the run store sealed with a key derived from its prompt (negkit.runs.sealing)
        "run_store": "generated text sealed",
    }
    samples = task_file(out / prepared.name, ".samples.jsonl")
    print(
        f"negkit: note: {prepared.name}: {samples} is inside the git working tree "
        f"{repository}: its {' and '.join(redacted)} fields are written as SHA-256 hashes (TIND stays private; "
        "--allow-in-git writes them as they are)",
        file=sys.stderr,
    )
    return [redact_record(record, redacted) for record in records]


def write_task_files(base: Path, result: dict[str, Any], records: list[dict[str, Any]], tables: str) -> dict[str, str]:
    """``TASK.samples.jsonl`` first (its size and hash go into the results), then ``TASK.results.json`` and
    ``TASK.md``, each atomically; their paths by kind. The records and the results are written through their
    run-log models (:mod:`negkit.kit.runlog`), so a field of the wrong form fails here, not in a later reader."""
    samples = task_file(base, ".samples.jsonl")
    lines = [sample_record(plain_json(record), samples, line).fields() for line, record in enumerate(records, 1)]
    count = atomic_write_jsonl(samples, lines)
    result["samples"] = samples_record(samples, count)  # readers check the file whole
    results = task_file(base, ".results.json")
    atomic_write_text(results, task_log(plain_json(result), results).json_text())
    atomic_write_text(task_file(base, ".md"), tables)
    return {kind: str(task_file(base, suffix)) for kind, suffix in SUFFIXES}


def check_not_trained_on(model: Any, task_name: str, data: Any) -> None:
    """Refuse to score an adapter on TIND groups it was trained on (a different split seed draws other groups)."""
    if getattr(model, "adapter", None) is None:
        return
    overlap = overlapping_groups(model, data.items, data.files)
    if overlap:
        seed = ((model.adapter.trained_on or {}).get("description") or {}).get("split_seed")
        raise NegkitError(
            f"{overlap} of the {task_name} groups to evaluate were in the adapter's training data "
            f"(it was trained on the split drawn with seed {seed}; evaluate with --seed {seed})"
        )


def _progress_bar(total: int, name: str, enabled: bool) -> Any:
    if not enabled:
        return None
    return tqdm(total=total, desc=name, unit="req", file=sys.stderr, dynamic_ncols=True)
