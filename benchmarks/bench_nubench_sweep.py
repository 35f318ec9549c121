"""What the Thunder-NUBench prompt sweep shares: one sweep against one run per prompt, same model, same items.

1. sweep: task ``nubench-prompts`` (prompts 1-12 and 7-1 ... 7-5, zero-shot) as one request list;
2. separate: task ``nubench`` once per prompt (17 runs, each in its own output folder and run store);
3. Table 14 in the sweep's folder: task ``nubench-fewshot``, whose zero-shot requests come from the run store.
Prints prompt tokens, tokens reused by the prefix tree (not run through the model), tokens run, seconds, the
ratios, and checks that every prediction of the sweep equals the separate run's.

    PYTHONPATH=src python benchmarks/bench_nubench_sweep.py --data tests/fixtures/thunder_nubench --work DIR
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import torch

from negkit.run.evaluate import evaluate
from negkit.run.options import EvalOptions
from negkit.models.registry import load_model
from negkit.tasks.multiple_choice import prompt_ids


def run(model, tasks: list[str], out: Path, data: str, split: str, **task_flags) -> tuple[dict, float, tuple[int, int]]:
    stats = model.scorer.stats
    stats.__init__()
    started = time.perf_counter()
    results = evaluate(model, tasks, EvalOptions(data=data, split=split, out=out, progress=False, bootstrap=0,
                                                 **task_flags))
    return results[-1], time.perf_counter() - started, (stats.tokens_total, stats.tokens_skipped)


def predictions(samples: Path) -> dict[tuple[str, str], tuple[str, str]]:
    found = {}
    for line in samples.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for run, values in record["runs"].items():
            found[(record["item_id"], run)] = (values["prediction"], values["prediction_norm"])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="default")
    parser.add_argument("--data", required=True)
    parser.add_argument("--split", default="validation")
    parser.add_argument("--work", required=True, help="an empty folder for the run folders (outside the checkout)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    work = Path(args.work)
    if work.exists() and any(work.iterdir()):
        sys.exit(f"{work} is not empty (the run stores would answer from earlier runs)")
    model = load_model(args.model, dtype="float32", batch_size=args.batch_size)
    print(f"model {args.model}; {platform.processor() or platform.machine()}, torch threads {args.threads}")

    sweep, sweep_s, (sweep_total, sweep_reused) = run(model, ["nubench-prompts"], work / "sweep", args.data, args.split)
    separate_s, separate_total, separate_reused, same = 0.0, 0, 0, True
    swept = predictions(Path(sweep["files"]["samples"]))
    for prompt in prompt_ids():
        one, seconds, (total, reused) = run(model, ["nubench"], work / f"prompt-{prompt}", args.data, args.split,
                                            prompt=prompt)
        separate_s, separate_total, separate_reused = separate_s + seconds, separate_total + total, separate_reused + reused
        for (item, _run), answer in predictions(Path(one["files"]["samples"])).items():
            same &= swept[(item, f"{prompt}/zero-shot")] == answer
    fewshot, fewshot_s, (few_total, few_reused) = run(model, ["nubench-fewshot"], work / "sweep", args.data, args.split,
                                                       num_fewshot=5)

    rows = [("sweep (1 request list)", sweep_total, sweep_reused, sweep_s),
            ("separate (17 runs)", separate_total, separate_reused, separate_s)]
    print(f"\n{'':26}{'prompt tokens':>14}{'reused':>10}{'run':>10}{'seconds':>10}")
    for name, total, reused, seconds in rows:
        print(f"{name:26}{total:>14,}{reused:>10,}{total - reused:>10,}{seconds:>10.1f}")
    print(f"tokens run, separate / sweep: {(separate_total - separate_reused) / max(sweep_total - sweep_reused, 1):.2f}x; "
          f"time: {separate_s / sweep_s:.2f}x")
    print(f"every prediction of the sweep equals the separate run's: {same}")
    requests = fewshot["requests"]
    print(f"Table 14 in the same folder: {requests['unique']} distinct requests, {requests['from_store']} from the run "
          f"store (the zero-shot runs of prompts 1, 7, 11), {requests['computed']} computed; prompt tokens "
          f"{few_total:,}, reused {few_reused:,}; {fewshot_s:.1f} s")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
