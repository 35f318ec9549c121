"""CondaQA's greedy generations: negkit's shared-prefix decoding against the previous path, in one process.

The CondaQA task asks each passage several questions; every question is one greedy generation of at most 16
tokens, stopped at a newline. This script takes the first N test questions (default 1,110, the main job's limit),
renders their prompts as ``negkit eval --tasks condaqa`` does, puts them in the run store's order (sorted by
context, as negkit.runs.runner answers them), and generates every answer twice with the same loaded model:

- ``plain``: length-sorted, left-padded batches through transformers' ``generate`` (negkit's path before shared
  prefixes, still used with ``--model-args prefix_reuse=false``);
- ``shared``: :class:`negkit.engine.greedy.SharedPrefixGenerator` (each passage's prefix once, many prompts per
  decoding step, finished prompts leave the batch).

It prints the seconds of each, the speed-up, how many answers differ (they must not), and the generator's
statistics, and writes them as JSON with ``--out``. Run it with nothing else running; the load average is recorded.

    PYTHONPATH=src python benchmarks/bench_condaqa_generation.py [--model default] [--limit 1110] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from dataclasses import asdict
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False)
    parser.add_argument("--model", default="default")
    parser.add_argument("--data", default=str(Path(__file__).resolve().parent.parent.parent / "shared" / "data"))
    parser.add_argument("--split", default="test")
    parser.add_argument("--limit", type=int, default=1110)
    parser.add_argument("--order", choices=("plain-first", "shared-first"), default="plain-first")
    parser.add_argument("--out")
    args = parser.parse_args()

    import torch

    from negkit.benchmarks.condaqa.task import MAX_NEW_TOKENS, CondaQATask
    from negkit.models.registry import load_model

    task = CondaQATask()
    data = task.load(args.data, args.split, args.limit, 0)
    model = load_model(args.model, dtype="float32")
    contexts = sorted({request.context for (request,) in task.requests(data.items, model)})
    encoded = [model.rules.encode_context(text)[0] for text in contexts]
    runs: dict[str, dict] = {}
    answers: dict[str, list[str]] = {}
    order = ["plain", "shared"] if args.order == "plain-first" else ["shared", "plain"]
    for name in order:
        load_before = os.getloadavg()[0]
        started, started_cpu = time.perf_counter(), time.process_time()
        if name == "plain":
            answers[name] = model._generate_plain(encoded, MAX_NEW_TOKENS, ("\n",))
        else:
            answers[name] = model.generate(contexts, MAX_NEW_TOKENS, ("\n",))
        runs[name] = {
            "seconds": round(time.perf_counter() - started, 1),
            "cpu_seconds": round(time.process_time() - started_cpu, 1),
            "load_average_before": round(load_before, 2),
            "load_average_after": round(os.getloadavg()[0], 2),
        }
        print(f"{name}: {runs[name]['seconds']} s (load {load_before:.2f} -> {os.getloadavg()[0]:.2f})", flush=True)
    differing = [index for index, (a, b) in enumerate(zip(answers["plain"], answers["shared"])) if a != b]
    speedup = runs["plain"]["seconds"] / runs["shared"]["seconds"]
    stats = asdict(model.generator.stats)
    print(f"{len(contexts)} prompts, speed-up {speedup:.2f}x, differing answers: {len(differing)}", flush=True)
    print(f"shared-prefix generator: {stats}", flush=True)
    for index in differing[:10]:
        print(f"  differs: {contexts[index][-80:]!r}: {answers['plain'][index]!r} vs {answers['shared'][index]!r}")
    if args.out:
        import transformers

        record = {
            "command": f"python benchmarks/bench_condaqa_generation.py --model {args.model} --limit {args.limit}",
            "machine": {
                "platform": platform.platform(),
                "cpus": os.cpu_count(),
                "threads": torch.get_num_threads(),
                "torch": torch.__version__,
                "transformers": transformers.__version__,
            },
            "model": model.fingerprint.as_dict(),
            "prompts": len(contexts),
            "max_new_tokens": MAX_NEW_TOKENS,
            "runs": runs,
            "speedup": round(speedup, 2),
            "differing_answers": len(differing),
            "differing": [
                {"prompt_end": contexts[i][-120:], "plain": answers["plain"][i], "shared": answers["shared"][i]}
                for i in differing
            ],
            "generator": stats,
        }
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
