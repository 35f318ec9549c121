"""``negkit eval`` as a library function: load a model, run tasks through the engine and the run store,
write results.

For each task, the output folder receives ``TASK.results.json`` (everything needed to reproduce the run:
model fingerprint, dtype, mode, negkit version, task and prompt ids, data file hashes, seeds, timings,
the command line, and the metrics), ``TASK.samples.jsonl`` (one record per item) and ``TASK.md``
(Markdown tables). Answers go to ``requests.jsonl``, the run store: run the same command again and
nothing already answered is recomputed.
"""

from __future__ import annotations

import re
import shlex
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit import __version__
from negkit.atomic_io import atomic_write_json, atomic_write_jsonl, atomic_write_text
from negkit.engine.run_lock import RunLock
from negkit.engine.runner import DEFAULT_CHUNK_SIZE, DEFAULT_COMMIT_SECONDS, answer_requests
from negkit.engine.store import RunStore
from negkit.errors import NegkitError
from negkit.metrics.intervals import DEFAULT_RESAMPLES, IntervalSettings
from negkit.models.fingerprints import file_sha256
from negkit.report.combined import write_combined_report
from negkit.tasks.base import get_task

MODES = ("exact", "fast")
STORE_FILE = "requests.jsonl"


@dataclass
class EvalOptions:
    """Everything ``negkit eval`` takes besides the model and the tasks."""

    data: str | None = None
    split: str = "test"
    #: About this many items per task; a mapping gives per-task limits (tasks not named run in full).
    limit: int | dict[str, int] | None = None
    seed: int = 0
    batch_size: int | None = None
    dtype: str | None = None
    mode: str = "exact"
    out: str | Path | None = None
    progress: bool = True
    command: Sequence[str] | None = None
    #: Requests per durable write to the run store at most (at most this much work is redone after a kill).
    chunk_size: int = DEFAULT_CHUNK_SIZE
    #: Seconds of model work per durable write to the run store, about (whichever of the two comes first).
    commit_seconds: float = DEFAULT_COMMIT_SECONDS
    #: Seconds to wait for another run that holds the output folder's lock (0: refuse at once).
    wait_lock: float = 0.0
    #: Constructor options per task name, e.g. ``{"nubench": {"prompt": "7", "num_fewshot": 5}}``.
    task_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Options for the model loader (``--model-args``, see :mod:`negkit.models.model_args`).
    model_args: dict[str, Any] = field(default_factory=dict)
    #: Bootstrap resamples for the 95% confidence intervals of every metric (0: no intervals); seeded by ``seed``.
    bootstrap: int = DEFAULT_RESAMPLES


def task_limit(limit: int | dict[str, int] | None, task_name: str) -> int | None:
    """The item limit of ``task_name``: one number for every task, or a per-task mapping."""
    if isinstance(limit, dict):
        return limit.get(task_name)
    return limit


def resolve_dtype_for_mode(mode: str, dtype: str | None) -> str:
    """Exact mode runs in float32 (another dtype is an error); fast mode defaults to bfloat16."""
    if mode not in MODES:
        raise NegkitError(f"unknown mode {mode!r}; choose exact or fast")
    if mode == "exact":
        if dtype not in (None, "float32"):
            raise NegkitError(f"exact mode runs in float32; use --mode fast for --dtype {dtype}")
        return "float32"
    return dtype or "bfloat16"


def evaluate(model: str | Any, tasks: Sequence[str], options: EvalOptions | None = None) -> list[dict[str, Any]]:
    """Evaluate ``model`` (a spec for :func:`negkit.models.registry.load_model`, or a model object) on
    ``tasks``; return one results dictionary per task (also written under ``options.out``)."""
    options = options or EvalOptions()
    dtype = resolve_dtype_for_mode(options.mode, options.dtype)
    with ExitStack() as stack:
        # one writer per output folder: a named folder is locked before the model loads
        if options.out:
            stack.enter_context(_run_lock(Path(options.out), options))
        started = time.perf_counter()
        if isinstance(model, str):
            from negkit.models.registry import load_model

            spec = model
            model = load_model(model, dtype=dtype, batch_size=options.batch_size, **options.model_args)
        else:
            spec = model.fingerprint.name
        load_seconds = time.perf_counter() - started
        out = Path(options.out) if options.out else Path("negkit-runs") / f"{_slug(spec)}-{model.fingerprint.key()[:8]}"
        if not options.out:
            stack.enter_context(_run_lock(out, options))
        results = []
        with RunStore(out / STORE_FILE) as store:
            for task_name in tasks:
                results.append(_evaluate_task(model, task_name, options, store, out, load_seconds))
        write_combined_report(results, out)
    return results


def _run_lock(out: Path, options: EvalOptions) -> RunLock:
    return RunLock(out, wait=options.wait_lock, info={"command": _command_line(options.command)[:500]})


def _evaluate_task(model: Any, task_name: str, options: EvalOptions, store: RunStore, out: Path, load_seconds: float) -> dict[str, Any]:
    task = get_task(task_name, **options.task_options.get(task_name, {}))
    if task.model_kind == "classifier" and not hasattr(model, "classify"):
        raise NegkitError(f"task {task_name} needs a classifier model (nli:PATH)")
    if task.model_kind == "language_model" and not hasattr(model, "next_token_logprobs"):
        raise NegkitError(f"task {task_name} needs a language model, not a classifier")
    timings = {"load_model_s": round(load_seconds, 3)}
    started = time.perf_counter()
    data = task.load(options.data, options.split, task_limit(options.limit, task_name), options.seed)
    bind_answers = getattr(model, "bind_answers", None)  # baseline pseudo-models answer within the task's answers
    if bind_answers is not None:
        answer_space = getattr(task, "answer_space", None)
        bind_answers(answer_space(data.items) if answer_space else None, task_name)
    per_item = task.requests(data.items, model)
    flat = [request for requests in per_item for request in requests]
    timings["prepare_s"] = round(time.perf_counter() - started, 3)
    stored_before = len(store)
    started = time.perf_counter()
    bar = _progress_bar(len(flat), task_name, options.progress)
    try:
        answers = answer_requests(model, flat, store, options.mode, options.chunk_size, bar.update if bar else None,
                                  options.commit_seconds)
    finally:
        if bar is not None:
            bar.close()
    timings["score_s"] = round(time.perf_counter() - started, 3)
    computed = len(store) - stored_before
    responses, position = [], 0
    for requests in per_item:
        responses.append(tuple(answers[position : position + len(requests)]))
        position += len(requests)
    records = task.records(data.items, responses)
    metrics = task.metrics(data.items, records)
    if options.bootstrap and hasattr(task, "intervals"):
        metrics["intervals"] = task.intervals(data.items, records, IntervalSettings(options.bootstrap, options.seed))
    result = {
        "negkit_version": __version__,
        "task": task.config(),
        "model": {**model.fingerprint.as_dict(), "key": model.fingerprint.key(),
                  # how the backend was loaded (device, quantization, adapter, resolved loader options, ...)
                  "load": dict(getattr(model, "load_info", {}) or {}), "model_args": dict(options.model_args)},
        "mode": options.mode,
        "chat_template": bool(getattr(model, "has_chat_template", False)),
        "data": {"files": [_file_entry(path) for path in data.files], **data.selection},
        "seed": options.seed,
        "requests": {"total": len(flat), "unique": len(set(flat)), "computed": computed,
                     "from_store": len(set(flat)) - computed},
        "timings": timings,
        "engine": _engine_stats(model),
        "command": _command_line(options.command),
        "metrics": metrics,
    }
    base = out / task_name
    atomic_write_jsonl(base.with_suffix(".samples.jsonl"), records)
    atomic_write_json(base.with_suffix(".results.json"), result)
    atomic_write_text(base.with_suffix(".md"), task.tables(metrics))
    result["files"] = {kind: str(base.with_suffix(suffix)) for kind, suffix in
                       (("results", ".results.json"), ("samples", ".samples.jsonl"), ("tables", ".md"))}
    return result


def _progress_bar(total: int, name: str, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=name, unit="req", file=sys.stderr, dynamic_ncols=True)


def _file_entry(path: Path | str) -> dict[str, Any]:
    path = Path(path)
    if path.is_file():
        return {"path": path.name, "sha256": file_sha256(path), "bytes": path.stat().st_size}
    return {"path": str(path), "sha256": None}


def _engine_stats(model: Any) -> dict[str, Any]:
    scorer = getattr(model, "scorer", None)
    stats = getattr(scorer, "stats", None)
    if stats is None:
        return {}
    return {"batches": stats.batches, "batches_with_prefix": stats.batches_with_prefix,
            "tokens": stats.tokens_total, "prefix_tokens_reused": stats.tokens_skipped}


def _command_line(command: Sequence[str] | None) -> str:
    arguments = list(command) if command is not None else ["negkit", *sys.argv[1:]]
    return shlex.join(arguments)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[-60:] or "model"
