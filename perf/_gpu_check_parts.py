"""The measurements of perf/gpu_check.py: random Llama models, a timed negkit run of one task, the same
requests through the Harness-style loop (perf/_harness_loop.py) with predictions compared item by item, the
out-of-memory back-off under a memory limit, and the test suite's device tests in a subprocess.

Helpers only; gpu_check.py says what runs, in which order, and where the figures go.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
from _harness_loop import harness_loglikelihoods
from bench_tind_vs_harness import computed_flops

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
#: The tests that put models on a device (NEGKIT_TEST_DEVICE, tests/conftest.py) or load them on the automatic
#: device (a GPU where there is one): placement, dtypes, the automatic batch size and its out-of-memory back-off,
#: the prefix tree's kernels, sharding, data-parallel ranks and adapters.
DEVICE_TESTS = (
    "tests/models/test_cuda_device.py",
    "tests/engine/test_engine_exact.py",
    "tests/engine/test_prefix_tree.py",
    "tests/models/test_loading.py",
    "tests/models/test_fast_dtype.py",
    "tests/kit/test_finetune.py::test_tind_training_then_eval_with_the_adapter",
    "tests/kit/test_finetune.py::test_merged_export_answers_like_the_adapter",
)


def synchronize(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def reset_peak(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()


def peak_memory(device: str) -> int | None:
    """Bytes the CUDA caching allocator handed out at most since :func:`reset_peak` (None on the CPU)."""
    return int(torch.cuda.max_memory_allocated()) if device.startswith("cuda") else None


def release(device: str) -> None:
    import gc

    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()


def build_llama(
    shape: dict[str, Any], tokenizer: Any, device: str, dtype: torch.dtype, head_scale: float = 1.0, seed: int = 0
) -> Any:
    """A Llama of ``shape`` (LlamaConfig fields) with random weights, built directly on ``device`` in ``dtype`` (no
    float32 copy on the CPU first: a 7B-shaped model is ready in seconds on a GPU). ``head_scale`` multiplies an untied
    LM head (tiny models: logits far apart, so that 16-bit noise rarely flips a prediction)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        max_position_embeddings=4096,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=pad,
        **shape,
    )
    torch.manual_seed(seed)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    if head_scale != 1.0 and not config.tie_word_embeddings:
        with torch.no_grad():
            model.lm_head.weight.mul_(head_scale)
    return model.eval()


def parameter_counts(model: Any) -> tuple[int, int]:
    """(non-embedding parameters, LM head parameters) of a causal LM, for FLOPs per token."""
    embedding = model.get_input_embeddings().weight
    head = model.get_output_embeddings().weight
    total = sum(parameter.numel() for parameter in model.parameters())
    return total - embedding.numel() - (0 if head is embedding else head.numel()), head.numel()


@contextmanager
def fresh_counts(lm: Any) -> Iterator[None]:
    """Zero the engine's counters and the batcher's record of sizes used (both add up over a model's calls), so that
    one task's results report that task alone; the batch sizes learnt from out-of-memory errors are kept."""
    stats = lm.scorer.stats
    for name in ("batches", "batches_with_prefix", "tokens_total", "tokens_skipped", "tokens_padded"):
        setattr(stats, name, 0)
    lm.batcher.sizes_used.clear()
    lm.batcher.halvings = 0
    yield


def negkit_task_run(lm: Any, task: str, options: Any, device: str, body: int, head: int) -> tuple[dict[str, Any], dict]:
    """Run negkit's ``evaluate`` for one task on a loaded model; its figures and the per-item samples by item id."""
    from negkit.commands.eval.evaluate import evaluate

    with fresh_counts(lm):
        reset_peak(device)
        started = time.perf_counter()
        (result,) = evaluate(lm, [task], options)
        synchronize(device)
        wall = time.perf_counter() - started
    engine = result["engine"]
    score_s = result["timings"]["score_s"]
    items = result["data"]["count"] if "count" in result["data"] else result["requests"]["total"]
    tokens_run = engine["tokens"] - engine["prefix_tokens_reused"]
    flops = computed_flops({"tokens_run": tokens_run}, engine["tokens"], result["requests"]["computed"], body, head)
    samples = {}
    for line in (Path(options.out) / f"{task}.samples.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        samples[record["item_id"]] = record
    figures = {
        "items": items,
        "requests": result["requests"]["total"],
        "score_s": score_s,
        "evaluate_wall_s": round(wall, 3),
        "items_per_s": round(items / score_s, 2) if score_s else None,
        "prompt_tokens": engine["tokens"],
        "tokens_run": tokens_run,
        "padding_tokens": engine["padding_tokens"],
        "prompt_tokens_per_s": round(engine["tokens"] / score_s, 1) if score_s else None,
        "model_flops": flops,
        "peak_memory_bytes": peak_memory(device),
        "prefix_tree": engine["prefix_tree"],
        "batching": engine.get("batching"),
        "dtype": str(next(lm.model.parameters()).dtype).replace("torch.", ""),
    }
    return figures, samples


def harness_requests(task: Any, data: Any, lm: Any) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """Item ids and, per item, the (context, continuation) pairs the Harness scores for negkit's requests of
    ``task``: a first-token request's candidates follow the context directly (TIND's Harness export); a
    log-likelihood request is its (context, continuation)."""
    ids, per_item = [], []
    for item, requests in zip(data.items, task.requests(data.items, lm)):
        pairs: list[tuple[str, str]] = []
        for request in requests:
            if hasattr(request, "candidates"):
                pairs += [(request.context, candidate) for candidate in request.candidates]
            else:
                pairs.append((request.context, request.continuation))
        ids.append(item.item_id)
        per_item.append(pairs)
    return ids, per_item


def first_max(values: list[float]) -> int:
    """The index of the largest value, the first on a tie (numpy's argmax, the Harness's acc)."""
    return max(range(len(values)), key=lambda index: (values[index], -index))


def negkit_scores(record: dict[str, Any]) -> list[float]:
    """The choice scores of a negkit sample: TIND's (True, False) log-probabilities, or an NLI task's per answer."""
    if "logprob_true" in record:
        return [record["logprob_true"], record["logprob_false"]]
    return list(record["scores"].values())


def negkit_choice(record: dict[str, Any]) -> int:
    """The choice negkit predicted (TIND: 0 for True, 1 for False; NLI: the index of its highest answer)."""
    if "logprob_true" in record:
        return 0 if record["prediction"] else 1
    return first_max(negkit_scores(record))


def harness_compare(
    lm: Any,
    ids: list[str],
    per_item: list[list[tuple[str, str]]],
    samples: dict[str, dict],
    negkit: dict[str, Any],
    device: str,
    body: int,
    head: int,
    logits_cache: bool,
) -> dict[str, Any]:
    """Score the items' pairs with the Harness-style loop on negkit's own transformers model; timings, FLOPs and the
    item-by-item comparison of its predictions with negkit's."""
    flat = [pair for pairs in per_item for pair in pairs]
    reset_peak(device)
    results, stats = harness_loglikelihoods(lm.model, lm.tokenizer, flat, batch_size=32, logits_cache=logits_cache)
    position, differing, margin_difference, agree = 0, [], 0.0, 0
    for item_id, pairs in zip(ids, per_item):
        theirs = [logprob for logprob, _greedy in results[position : position + len(pairs)]]
        position += len(pairs)
        record = samples[item_id]
        mine = negkit_scores(record)
        margin_difference = max(margin_difference, abs((mine[0] - mine[1]) - (theirs[0] - theirs[1])))
        if first_max(theirs) == negkit_choice(record):
            agree += 1
        elif len(differing) < 20:
            differing.append(
                {
                    "item_id": item_id,
                    "negkit_margin": round(mine[0] - mine[1], 6),
                    "harness_margin": round(theirs[0] - theirs[1], 6),
                }
            )
    total_s = stats["total_s"]
    flops = 2.0 * (body + head) * stats["tokens_run"]
    return {
        **stats,
        "items": len(ids),
        "items_per_s": round(len(ids) / total_s, 2) if total_s else None,
        "prompt_tokens_per_s": round(negkit["prompt_tokens"] / total_s, 1) if total_s else None,
        "model_flops": flops,
        "peak_memory_bytes": peak_memory(device),
        "identical_predictions": agree,
        "different_predictions": len(ids) - agree,
        "differing_items": differing,
        "max_abs_margin_difference": margin_difference,
        "speed_ratio_vs_negkit_score_s": round(total_s / negkit["score_s"], 2) if negkit["score_s"] else None,
    }


@contextmanager
def memory_limit(lm: Any, device: str, headroom_bytes: int, simulated_rows: int) -> Iterator[str]:
    """A memory limit the first batches cannot fit in. On a GPU: the caching allocator is held to what it holds now
    plus ``headroom_bytes`` (``torch.cuda.set_per_process_memory_fraction``), so that too large a batch raises CUDA's
    own out-of-memory error. On the CPU (no such limit): a forward pass over more than ``simulated_rows`` rows raises
    ``torch.OutOfMemoryError``. Yields a description of the limit."""
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        total = torch.cuda.get_device_properties(torch.device(device)).total_memory
        limit = torch.cuda.memory_reserved() + headroom_bytes
        torch.cuda.set_per_process_memory_fraction(min(1.0, limit / total))
        try:
            yield f"CUDA caching allocator held to {limit / 2**30:.2f} GiB of {total / 2**30:.1f} GiB"
        finally:
            torch.cuda.set_per_process_memory_fraction(1.0)
            torch.cuda.empty_cache()
        return

    def refuse(_module: Any, args: tuple, kwargs: dict) -> None:
        ids = kwargs.get("input_ids", args[0] if args else None)
        if ids is not None and ids.shape[0] > simulated_rows:
            raise torch.OutOfMemoryError(f"out of memory (simulated: more than {simulated_rows} rows)")

    handle = lm.model.register_forward_pre_hook(refuse, with_kwargs=True)
    try:
        yield f"simulated on the CPU: a forward pass over more than {simulated_rows} rows raises torch.OutOfMemoryError"
    finally:
        handle.remove()


def run_device_tests(
    device: str,
    data: Path | None,
    log: Path,
    timeout_s: float,
    selection: tuple[str, ...] = DEVICE_TESTS,
) -> dict[str, Any]:
    """The device tests in a pytest subprocess (NEGKIT_TEST_DEVICE=``device``; NEGKIT_TEST_DATA and NEGKIT_DATA
    ``data`` when given):
    counts, failures with their messages, seconds; the whole output goes to ``log``."""
    junit = log.with_suffix(".junit.xml")
    env = {**os.environ, "NEGKIT_TEST_DEVICE": device, "PYTHONPATH": str(REPO / "src"), "PYTHONUNBUFFERED": "1"}
    if data is not None:  # the tests' data (tests/conftest.py), and negkit's own default for runs without --data
        env.update(NEGKIT_TEST_DATA=str(data), NEGKIT_DATA=str(data))
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-rfEs",
        "--durations=15",
        "-p",
        "no:cacheprovider",
        "--junitxml",
        str(junit),
        *selection,
    ]
    if importlib.util.find_spec("pytest_timeout") is not None:  # one hanging test must not take the whole budget
        command[3:3] = ["--timeout", "150"]
    started = time.perf_counter()
    with open(log, "w", encoding="utf-8") as handle:
        try:
            done = subprocess.run(
                command, cwd=REPO, env=env, stdout=handle, stderr=subprocess.STDOUT, timeout=timeout_s
            )
            returncode: int | str = done.returncode
        except subprocess.TimeoutExpired:
            returncode = f"killed after {timeout_s:.0f} s"
    shown = [part for part in command[1:] if part not in (str(junit), "--junitxml")]  # no machine paths
    figures: dict[str, Any] = {
        "command": " ".join(shown),
        "env": {
            "NEGKIT_TEST_DEVICE": device,
            **({"NEGKIT_TEST_DATA": data.name, "NEGKIT_DATA": data.name} if data is not None else {}),
        },
        "returncode": returncode,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    if junit.is_file():
        figures.update(junit_counts(junit))
        junit.unlink()
    return figures


def junit_counts(path: Path) -> dict[str, Any]:
    """Passed, failed, errors and skipped from a pytest JUnit XML file, with each failure's test id and message."""
    root = ElementTree.parse(path).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    failures, skipped = [], []
    for case in suite.iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        for kind in ("failure", "error"):
            found = case.find(kind)
            if found is not None:
                failures.append({"test": name, "kind": kind, "message": (found.get("message") or "")[:500]})
        found = case.find("skipped")
        if found is not None:
            skipped.append({"test": name, "reason": (found.get("message") or "")[:200]})
    counts = {key: int(suite.get(key, 0)) for key in ("tests", "failures", "errors", "skipped")}
    counts["passed"] = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
    return {**counts, "failed": failures, "skipped_tests": skipped, "pytest_s": float(suite.get("time", 0.0))}


def guarded(name: str, function: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run one section; an exception becomes the section's ``error`` (with the end of its traceback)."""
    import traceback

    started = time.perf_counter()
    try:
        figures = function()
    except Exception as error:  # noqa: BLE001 - a failing section is recorded and the others still run
        figures = {
            "error": f"{type(error).__name__}: {error}"[:2000],
            "traceback": traceback.format_exc().splitlines()[-12:],
        }
        print(f"[{name}] FAILED: {figures['error']}", file=sys.stderr, flush=True)
    figures["section_s"] = round(time.perf_counter() - started, 2)
    return figures
