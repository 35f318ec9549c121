"""CondaQA's greedy generations: negkit's trie decoding against the earlier paths (and the Harness), in one process.

The CondaQA task asks each passage several questions; every question is one greedy generation of at most 16
tokens, stopped at a newline. This script takes the first N test questions (default 1,110, the main job's limit),
renders their prompts as ``negkit eval --tasks condaqa`` does, and generates every answer with the same loaded
model along each path:

- ``plain``: length-sorted, left-padded batches through transformers' ``generate`` (negkit's path before shared
  prefixes, still used with ``--model-args prefix_reuse=false``);
- ``shared``: :class:`negkit.engine.greedy.SharedPrefixGenerator` (three levels of shared prefixes, padded
  batches; negkit's path before the trie);
- ``tree``: :class:`negkit.engine.greedy_tree.TreeGenerator` (every shared prompt token once, unpadded chunks
  with tree masks; negkit's path now);
- ``lm_eval``: the LM Evaluation Harness's ``HFLM.generate_until`` (its usual settings: batch size 32, float32,
  ``until`` the newline, ``max_gen_toks`` 16), where ``lm_eval`` is importable (else reported "not installed").

With ``--repeats R`` every path runs R times, interleaved (plain, shared, tree, then again in a rotated order), so
that a machine loaded by other jobs slows each path alike; the figures are each path's fastest run. It prints the
seconds, the speed-ups over ``plain`` and over ``shared``, how many answers differ from ``plain`` (they must not),
the load average and the machine, and writes them as JSON with ``--out``.

    PYTHONPATH=src python perf/bench_condaqa_generation.py [--model default] [--limit 1110] [--repeats 1]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

PATHS = ("plain", "shared", "tree")


def harness_answers(model: Any, contexts: list[str], max_new_tokens: int, batch_size: int) -> list[str]:
    """The Harness's ``generate_until`` on the same model weights (its converted folder or the model object)."""
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    harness = HFLM(pretrained=model.model, tokenizer=model.tokenizer, batch_size=batch_size)
    arguments = {"until": ["\n"], "max_gen_toks": max_new_tokens, "do_sample": False}
    requests = [
        Instance(request_type="generate_until", doc={}, arguments=(context, dict(arguments)), idx=0)
        for context in contexts
    ]
    return list(harness.generate_until(requests))


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False)
    parser.add_argument("--model", default="default")
    parser.add_argument("--data", default=str(Path(__file__).resolve().parent.parent.parent / "shared" / "data"))
    parser.add_argument("--split", default="test")
    parser.add_argument("--limit", type=int, default=1110)
    parser.add_argument("--repeats", type=int, default=1, help="runs of each path, interleaved (fastest counts)")
    parser.add_argument("--paths", default=",".join(PATHS), help="which of plain, shared, tree to run")
    parser.add_argument("--lm-eval-batch-size", type=int, default=32, help="the Harness's batch size (its usual 32)")
    parser.add_argument("--no-lm-eval", action="store_true", help="skip the Harness column")
    parser.add_argument("--out")
    args = parser.parse_args()

    import torch
    import transformers

    from negkit.benchmarks.condaqa.task import MAX_NEW_TOKENS, CondaQATask
    from negkit.engine.greedy import SharedPrefixGenerator
    from negkit.engine.greedy_tree import TreeGenerator
    from negkit.models.fast_dtype import cpu_description
    from negkit.models.registry import load_model

    task = CondaQATask()
    data = task.load(args.data, args.split, args.limit, 0)
    model = load_model(args.model, dtype="float32")
    contexts = sorted({request.context for (request,) in task.requests(data.items, model)})
    encoded = [model.rules.encode_context(text)[0] for text in contexts]
    model._generator(lambda indices: [])  # builds the model's own (tree) generator: its end-of-sequence ids
    tree = model.generator
    assert isinstance(tree, TreeGenerator)
    shared = SharedPrefixGenerator(
        model.model, model.rules.pad_id, sorted(tree.eos_ids), max_rows=tree.max_rows, token_budget=model.token_budget
    )
    paths = [name for name in args.paths.split(",") if name]
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in paths}
    answers: dict[str, list[str]] = {}
    stats: dict[str, Any] = {}
    loads = [round(os.getloadavg()[0], 2)]
    for repeat in range(args.repeats):
        for name in paths[repeat % len(paths) :] + paths[: repeat % len(paths)]:
            load_before = os.getloadavg()[0]
            started, started_cpu = time.perf_counter(), time.process_time()
            if name == "plain":
                result = model._generate_plain(encoded, MAX_NEW_TOKENS, ("\n",))
            else:
                model.generator = shared if name == "shared" else tree
                model.generator.stats.__init__()
                result = model.generate(contexts, MAX_NEW_TOKENS, ("\n",))
                stats[name] = asdict(model.generator.stats)
            run = {
                "seconds": round(time.perf_counter() - started, 2),
                "cpu_seconds": round(time.process_time() - started_cpu, 2),
                "load_average_before": round(load_before, 2),
                "load_average_after": round(os.getloadavg()[0], 2),
            }
            runs[name].append(run)
            loads.append(run["load_average_after"])
            if answers.setdefault(name, result) != result:
                raise SystemExit(f"{name}: a repeat gave other answers")
            print(f"{name}: {run['seconds']} s (load {load_before:.2f} -> {run['load_average_after']:.2f})", flush=True)
    model.generator = tree
    harness: dict[str, Any] = {"status": "not installed"}
    if not args.no_lm_eval and importlib.util.find_spec("lm_eval") is not None:
        started, started_cpu = time.perf_counter(), time.process_time()
        answers["lm_eval"] = harness_answers(model, contexts, MAX_NEW_TOKENS, args.lm_eval_batch_size)
        harness = {
            "status": "ran",
            "seconds": round(time.perf_counter() - started, 2),
            "cpu_seconds": round(time.process_time() - started_cpu, 2),
        }
        runs["lm_eval"] = [{"seconds": harness["seconds"], "cpu_seconds": harness["cpu_seconds"]}]
    elif args.no_lm_eval:
        harness = {"status": "skipped"}
    best = {name: min(run["seconds"] for run in taken) for name, taken in runs.items()}
    reference = "plain" if "plain" in answers else paths[0]
    differing = {
        name: [index for index, (a, b) in enumerate(zip(answers[reference], given)) if a != b]
        for name, given in answers.items()
    }
    machine = {
        "cpu": cpu_description()["cpu"],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
    }
    print(f"{len(contexts)} prompts, {args.repeats} run(s) of each path (fastest counts); {machine}")
    print(f"load average during the runs: {min(loads):.2f} .. {max(loads):.2f}")
    cpu = {name: min(run["cpu_seconds"] for run in taken) for name, taken in runs.items()}
    print("| path | seconds | vs plain | vs shared | CPU seconds | CPU vs plain | answers differing from plain |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in [*paths, "lm_eval"]:
        if name not in best:
            continue
        over_plain = f"{best['plain'] / best[name]:.2f}x" if "plain" in best else "-"
        over_shared = f"{best['shared'] / best[name]:.2f}x" if "shared" in best else "-"
        cpu_over = f"{cpu['plain'] / cpu[name]:.2f}x" if "plain" in cpu else "-"
        print(
            f"| {name} | {best[name]:.1f} | {over_plain} | {over_shared} | {cpu[name]:.1f} | {cpu_over} | "
            f"{len(differing[name])} |"
        )
    if "lm_eval" not in best:
        print(f"| lm_eval | {harness['status']} | | | | | |")
    for name, found in stats.items():
        print(f"{name} generator: {found}")
    for name, indices in differing.items():
        for index in indices[:5]:
            print(
                f"  {name} differs: {contexts[index][-80:]!r}: {answers[reference][index]!r} vs {answers[name][index]!r}"
            )
    if args.out:
        record = {
            "command": f"python perf/bench_condaqa_generation.py --model {args.model} --limit {args.limit} "
            f"--repeats {args.repeats}",
            "machine": machine,
            "model": model.fingerprint.as_dict(),
            "prompts": len(contexts),
            "max_new_tokens": MAX_NEW_TOKENS,
            "runs": runs,
            "fastest_seconds": best,
            "fastest_cpu_seconds": cpu,
            "load_average_range": [min(loads), max(loads)],
            "harness": harness,
            "differing_answers": {name: len(indices) for name, indices in differing.items()},
            "differing": {
                name: [
                    {"prompt_end": contexts[i][-120:], reference: answers[reference][i], name: answers[name][i]}
                    for i in indices
                ]
                for name, indices in differing.items()
                if indices
            },
            "generator": stats,
        }
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
