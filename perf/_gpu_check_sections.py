"""The sections of perf/gpu_check.py in their order, the JSON they fill, and the printed summary (see
gpu_check.py's docstring for what each measures)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import torch
from _gpu_check_parts import (
    build_llama,
    guarded,
    harness_compare,
    harness_requests,
    memory_limit,
    negkit_choice,
    negkit_task_run,
    parameter_counts,
    release,
    run_device_tests,
    synchronize,
)
from bench_tind_vs_harness import matmul_peak

BIG_BUDGET = 10_000_000  # tokens: no batch is too large for it, so that the memory limit decides
#: The sections in their order (``--only`` picks some; the 1B model and the matmul peaks come along where needed).
SECTIONS = ("tests", "matmul_peak", "model_1b", "eval_1b_exact", "eval_1b_fast", "oom_backoff", "model_7b")


def run_sections(
    args: argparse.Namespace,
    sizes: dict[str, Any],
    data: Path,
    real_data: bool,
    tokenizer: Any,
    work: Path,
    report: dict[str, Any],
) -> None:
    """Run every section (guarded, within ``args.budget_s``), rewriting ``args.out/gpu_check.json`` after each."""
    import json

    from negkit.io.atomic import atomic_write_text

    device = "cuda:0" if args.device == "cuda" else args.device
    started = time.perf_counter()
    state: dict[str, Any] = {"requests": {}}
    sections = report["sections"]

    def save() -> None:
        report["wall_s"] = round(time.perf_counter() - started, 1)
        atomic_write_text(args.out / "gpu_check.json", json.dumps(report, indent=2, default=str) + "\n")

    def section(name: str, function: Any) -> None:
        elapsed = time.perf_counter() - started
        if name not in wanted:
            sections[name] = {"not_run": "not among --only"}
        elif elapsed > args.budget_s:
            sections[name] = {"not_run": f"time budget: {elapsed:.0f} s spent of --budget-s {args.budget_s:.0f}"}
        else:
            print(f"[{name}] starting at {elapsed:.0f} s", flush=True)
            sections[name] = guarded(name, function)
        save()

    def options(mode: str, task: str, limit: int, folder: str) -> Any:
        from negkit.commands.eval.options import EvalOptions

        return EvalOptions(
            data=str(data),
            split="test",
            limit=limit,
            seed=0 if task == "tind" else None,
            mode=mode,
            dtype="bfloat16" if mode == "fast" else None,
            chat=True,
            out=work / folder,
            progress=False,
            bootstrap=0,
        )

    def tests() -> dict[str, Any]:
        remaining = args.budget_s - (time.perf_counter() - started)
        return run_device_tests(
            device,
            data if real_data else None,
            args.out / "pytest.log",
            max(30.0, min(args.tests_timeout_s, remaining)),
        )

    def peaks() -> dict[str, Any]:
        threads = torch.get_num_threads()
        measure = {
            name: matmul_peak(name, device, threads, sizes["matmul_size"], sizes["matmul_seconds"])
            for name in ("bfloat16", "float32")
        }
        if device.startswith("cuda"):  # what float32 would reach with TF32 allowed (negkit leaves torch's default)
            allowed = torch.backends.cuda.matmul.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = True
            try:
                measure["float32_with_tf32"] = matmul_peak(
                    "float32", device, threads, sizes["matmul_size"], sizes["matmul_seconds"]
                )
            finally:
                torch.backends.cuda.matmul.allow_tf32 = allowed
        state["peaks"] = measure
        return {
            "flop_per_s": measure,
            "size": sizes["matmul_size"],
            "tf32_for_float32": torch.backends.cuda.matmul.allow_tf32,
        }

    def model_1b() -> dict[str, Any]:
        dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
        begun = time.perf_counter()
        model = build_llama(sizes["model_1b"], tokenizer, device, dtype, sizes["head_scale"])
        synchronize(device)
        build_s = time.perf_counter() - begun
        body, head = parameter_counts(model)
        total = sum(parameter.numel() for parameter in model.parameters())
        folder = work / "random-llama-1b"
        begun = time.perf_counter()
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        save_s = time.perf_counter() - begun
        del model
        release(device)
        state["folder_1b"] = folder
        return {
            "config": sizes["model_1b"],
            "vocabulary": len(tokenizer),
            "parameters": total,
            "non_embedding_parameters": body,
            "saved_dtype": str(dtype).replace("torch.", ""),
            "build_s": round(build_s, 2),
            "save_s": round(save_s, 2),
            "bytes_on_disk": sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()),
        }

    def requests_for(task_name: str, limit: int, lm: Any) -> tuple[list[str], list[list[tuple[str, str]]]]:
        """negkit's own items and prompts for the Harness-style loop (read once per task, for both modes)."""
        if task_name not in state["requests"]:
            from negkit.kit.suites import get_task

            task = get_task(task_name, chat=True)
            state["requests"][task_name] = harness_requests(task, task.load(str(data), "test", limit, 0), lm)
        return state["requests"][task_name]

    def evaluate_1b(mode: str) -> dict[str, Any]:
        from negkit.models.registry import load_model

        if "folder_1b" not in state:
            raise RuntimeError("no 1B model: the model_1b section failed")
        dtype = "float32" if mode == "exact" else "bfloat16"
        begun = time.perf_counter()
        lm = load_model(f"hf:{state['folder_1b']}", dtype=dtype, device=device)
        synchronize(device)
        figures: dict[str, Any] = {
            "load_s": round(time.perf_counter() - begun, 2),
            "tasks": {},
            "load": {
                key: lm.load_info.get(key) for key in ("device", "dtype", "batch_size", "token_budget", "prefix_tree")
            },
            "tf32_for_float32": torch.backends.cuda.matmul.allow_tf32,
        }
        body, head = parameter_counts(lm.model)
        try:
            for task_name in ("tind", "scone"):
                limit = sizes[task_name]
                negkit, samples = negkit_task_run(
                    lm, task_name, options(mode, task_name, limit, f"{mode}-{task_name}"), device, body, head
                )
                ids, per_item = requests_for(task_name, limit, lm)
                if set(ids) != set(samples):
                    raise RuntimeError(f"{task_name}: the Harness-style items differ from negkit's samples")
                share(negkit, mode)
                row: dict[str, Any] = {"negkit": negkit}
                for cache in (True, False):
                    harness = harness_compare(lm, ids, per_item, samples, negkit, device, body, head, cache)
                    share(harness, mode, harness["total_s"])
                    row["harness_logits_cache" if cache else "harness_per_choice"] = harness
                if mode == "exact" and task_name == "tind":
                    state["exact_tind"] = {item_id: negkit_choice(record) for item_id, record in samples.items()}
                figures["tasks"][task_name] = row
        finally:
            del lm
            release(device)
        return figures

    def share(figures: dict[str, Any], mode: str, seconds: float | None = None) -> None:
        """The model FLOPs per second as a share of the measured bfloat16 (and, exact mode, float32) matmul peak."""
        seconds = seconds if seconds is not None else figures["score_s"]
        measured = state.get("peaks", {})
        for name in ("bfloat16", "float32") if mode == "exact" else ("bfloat16",):
            if measured.get(name) and seconds:
                figures[f"share_of_{name}_peak"] = round(figures["model_flops"] / seconds / measured[name], 4)

    def oom_backoff() -> dict[str, Any]:
        from negkit.models.registry import load_model

        if "folder_1b" not in state:
            raise RuntimeError("no 1B model: the model_1b section failed")
        lm = load_model(f"hf:{state['folder_1b']}", dtype="float32", device=device, token_budget=BIG_BUDGET)
        body, head = parameter_counts(lm.model)
        try:
            with memory_limit(lm, device, sizes["oom_headroom_bytes"], sizes["oom_simulated_rows"]) as limit:
                negkit, samples = negkit_task_run(
                    lm, "tind", options("exact", "tind", sizes["tind"], "oom-tind"), device, body, head
                )
        finally:
            del lm
            release(device)
        figures: dict[str, Any] = {
            "limit": limit,
            "token_budget": BIG_BUDGET,
            "negkit": negkit,
            "oom_halvings": (negkit["batching"] or {}).get("oom_halvings"),
        }
        if "exact_tind" in state:
            same = sum(negkit_choice(record) == state["exact_tind"].get(item_id) for item_id, record in samples.items())
            figures.update(identical_to_unlimited_exact=same, different_from_unlimited_exact=len(samples) - same)
        return figures

    def model_7b() -> dict[str, Any]:
        from negkit.models.hf_causal import HFCausalLM
        from negkit.models.hf_common import fingerprint_for

        begun = time.perf_counter()
        model = build_llama(sizes["model_7b"], tokenizer, device, torch.bfloat16, sizes["head_scale"])
        synchronize(device)
        build_s = time.perf_counter() - begun
        weights = torch.cuda.memory_allocated() if device.startswith("cuda") else None
        body, head = parameter_counts(model)
        fingerprint = fingerprint_for("hf", model, "random-llama-7b-shape", "bfloat16", revision="random-seed-0")
        lm = HFCausalLM(model, tokenizer, fingerprint, batch_size=None)
        try:
            negkit, _samples = negkit_task_run(
                lm, "tind", options("fast", "tind", sizes["tind_7b"], "7b-tind"), device, body, head
            )
            share(negkit, "fast")
            return {
                "config": sizes["model_7b"],
                "parameters": sum(p.numel() for p in model.parameters()),
                "non_embedding_parameters": body,
                "build_s": round(build_s, 2),
                "weights_bytes_on_device": weights,
                "token_budget": lm.token_budget,
                "negkit": negkit,
            }
        finally:
            del lm, model
            release(device)

    wanted = set(args.only or SECTIONS)
    if wanted & {"eval_1b_exact", "eval_1b_fast", "oom_backoff"}:
        wanted.add("model_1b")  # what they evaluate
    if wanted & {"eval_1b_exact", "eval_1b_fast", "model_7b"}:
        wanted.add("matmul_peak")  # what their shares of the peak divide by
    if args.skip_tests:
        sections["tests"] = {"not_run": "--skip-tests"}
    else:
        section("tests", tests)
    section("matmul_peak", peaks)
    section("model_1b", model_1b)
    section("eval_1b_exact", lambda: evaluate_1b("exact"))
    section("eval_1b_fast", lambda: evaluate_1b("fast"))
    section("oom_backoff", oom_backoff)
    section("model_7b", model_7b)
    report["finished_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    save()
    try:
        print_summary(report)
    except Exception as error:  # noqa: BLE001 - the figures are in gpu_check.json whatever the summary does
        print(f"(no summary: {type(error).__name__}: {error}; see gpu_check.json)")


def _gib(value: int | None) -> str:
    return "-" if value is None else f"{value / 2**30:.2f}"


def print_summary(report: dict[str, Any]) -> None:
    """A short plain-text summary of gpu_check.json."""
    env, sections = report["environment"], report["sections"]
    versions = env["versions"]
    print(
        f"\ndevice: {env.get('device_name')} ({env['device']}); torch {versions['torch']} (CUDA {versions['cuda']}), "
        f"transformers {versions['transformers']}; wall {report['wall_s']} s"
    )
    for name, figures in sections.items():
        if "error" in figures:
            print(f"{name}: ERROR {figures['error']}")
        elif "not_run" in figures:
            print(f"{name}: not run ({figures['not_run']})")
    tests = sections.get("tests", {})
    if "tests" in tests:
        print(
            f"tests: {tests['passed']} passed, {tests['failures'] + tests['errors']} failed, {tests['skipped']} "
            f"skipped in {tests['wall_s']} s"
            + "".join(f"\n  FAILED {f['test']}: {f['message'][:160]}" for f in tests["failed"])
        )
    elif "returncode" in tests:
        print(f"tests: pytest ended with {tests['returncode']} and no JUnit report (see pytest.log)")
    peaks = sections.get("matmul_peak", {}).get("flop_per_s", {})
    if peaks:
        print("matmul peak: " + ", ".join(f"{name} {value / 1e12:.1f} TFLOP/s" for name, value in peaks.items()))
    print(
        "| mode | task | who | items/s | prompt tokens/s | peak GiB | share of bf16 peak | x negkit time | "
        "predictions identical |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for mode in ("exact", "fast"):
        for task, row in sections.get(f"eval_1b_{mode}", {}).get("tasks", {}).items():
            for who, figures in row.items():
                identical = (
                    f"{figures['identical_predictions']}/{figures['items']}"
                    if "identical_predictions" in figures
                    else ""
                )
                print(
                    f"| {mode} | {task} | {who} | {figures['items_per_s']} | {figures['prompt_tokens_per_s']} | "
                    f"{_gib(figures['peak_memory_bytes'])} | {figures.get('share_of_bfloat16_peak', '-')} | "
                    f"{figures.get('speed_ratio_vs_negkit_score_s', '1.0')} | {identical} |"
                )
    oom = sections.get("oom_backoff", {})
    if "negkit" in oom:
        print(
            f"oom back-off: {oom['oom_halvings']} halvings under {oom['limit']}; sizes used "
            f"{oom['negkit']['batching']['sizes_used']}; identical to the unlimited run: "
            f"{oom.get('identical_to_unlimited_exact')}/{oom['negkit']['items']}"
        )
    big = sections.get("model_7b", {})
    if "negkit" in big:
        negkit = big["negkit"]
        print(
            f"7B-shaped ({big['parameters'] / 1e9:.2f}B, bf16): {negkit['items']} items at {negkit['items_per_s']} "
            f"items/s, peak {_gib(negkit['peak_memory_bytes'])} GiB, token budget {big['token_budget']}, sizes used "
            f"{negkit['batching']['sizes_used']}, share of bf16 peak {negkit.get('share_of_bfloat16_peak', '-')}"
        )
