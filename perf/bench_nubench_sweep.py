"""What the Thunder-NUBench prompt sweep shares: one sweep against one run per prompt, same model, same items.

1. sweep: task ``nubench-prompts`` (prompts 1-12 and 7-1 ... 7-5, zero-shot) as one request list;
2. separate: task ``nubench`` once per prompt (17 runs, each in its own output folder and run store);
3. Table 14 in the sweep's folder: task ``nubench-fewshot``, whose zero-shot requests come from the run store.
Prints prompt tokens, tokens reused by the prefix tree (not run through the model), tokens run, seconds, the
ratios, and checks that every prediction of the sweep equals the separate run's.

    PYTHONPATH=src python perf/bench_nubench_sweep.py --data tests/fixtures/thunder_nubench --work DIR [--tiny]

``--tiny`` replaces the model's weights by a random 2-layer model of the same configuration and tokenizer (built
under WORK): the token counts, which depend on the tokenizer and the batches only, are the model's, at a small
fraction of the time (the seconds are then not the model's).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import torch

from negkit.benchmarks.nubench.task import prompt_ids
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.models.registry import load_model


def run(model, tasks: list[str], out: Path, data: str, split: str, **task_flags) -> tuple[dict, float, tuple[int, int]]:
    stats = model.scorer.stats
    stats.__init__()
    started = time.perf_counter()
    results = evaluate(
        model, tasks, EvalOptions(data=data, split=split, out=out, progress=False, bootstrap=0, **task_flags)
    )
    return results[-1], time.perf_counter() - started, (stats.tokens_total, stats.tokens_skipped)


def predictions(samples: Path) -> dict[tuple[str, str], tuple[str, str]]:
    found = {}
    for line in samples.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for run, values in record["runs"].items():
            found[(record["item_id"], run)] = (values["prediction"], values["prediction_norm"])
    return found


def tiny_copy(spec: str, folder: Path) -> str:
    """A random 2-layer model with ``spec``'s configuration and tokenizer, saved in ``folder``; its spec."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    from negkit.models.gguf import converted_folder, default_model_file

    source = converted_folder(default_model_file()) if spec == "default" else Path(spec.removeprefix("hf:"))
    config = AutoConfig.from_pretrained(source)
    config.hidden_size, config.intermediate_size, config.num_hidden_layers = 32, 64, 2
    config.num_attention_heads, config.num_key_value_heads, config.head_dim = 2, 1, 16
    torch.manual_seed(0)
    AutoModelForCausalLM.from_config(config).save_pretrained(folder)
    AutoTokenizer.from_pretrained(source).save_pretrained(folder)
    return f"hf:{folder}"


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="default")
    parser.add_argument("--data", required=True)
    parser.add_argument("--split", default="validation")
    parser.add_argument("--work", required=True, help="an empty folder for the run folders (outside the checkout)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--tiny", action="store_true", help="count the model's tokens with random 2-layer weights")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    work = Path(args.work)
    if work.exists() and any(work.iterdir()):
        sys.exit(f"{work} is not empty (the run stores would answer from earlier runs)")
    work.mkdir(parents=True, exist_ok=True)
    spec = tiny_copy(args.model, work / "tiny-model") if args.tiny else args.model
    model = load_model(spec, dtype="float32", batch_size=args.batch_size)
    print(
        f"model {args.model}{' (random 2-layer weights)' if args.tiny else ''}; {platform.processor() or platform.machine()}, torch threads {args.threads}"
    )

    sweep, sweep_s, (sweep_total, sweep_reused) = run(model, ["nubench-prompts"], work / "sweep", args.data, args.split)
    separate_s, separate_total, separate_reused, same = 0.0, 0, 0, True
    swept = predictions(Path(sweep["files"]["samples"]))
    for prompt in prompt_ids():
        one, seconds, (total, reused) = run(
            model, ["nubench"], work / f"prompt-{prompt}", args.data, args.split, prompt=prompt
        )
        separate_s, separate_total, separate_reused = (
            separate_s + seconds,
            separate_total + total,
            separate_reused + reused,
        )
        for (item, _run), answer in predictions(Path(one["files"]["samples"])).items():
            same &= swept[(item, f"{prompt}/zero-shot")] == answer
    fewshot, fewshot_s, (few_total, few_reused) = run(
        model, ["nubench-fewshot"], work / "sweep", args.data, args.split, num_fewshot=5
    )

    rows = [
        ("sweep (1 request list)", sweep_total, sweep_reused, sweep_s),
        ("separate (17 runs)", separate_total, separate_reused, separate_s),
    ]
    print(f"\n{'':26}{'prompt tokens':>14}{'reused':>10}{'run':>10}{'seconds':>10}")
    for name, total, reused, seconds in rows:
        print(f"{name:26}{total:>14,}{reused:>10,}{total - reused:>10,}{seconds:>10.1f}")
    print(
        f"tokens run, separate / sweep: {(separate_total - separate_reused) / max(sweep_total - sweep_reused, 1):.2f}x; "
        f"time: {separate_s / sweep_s:.2f}x"
    )
    print(f"every prediction of the sweep equals the separate run's: {same}")
    requests = fewshot["requests"]
    print(
        f"Table 14 in the same folder: {requests['unique']} distinct requests, {requests['from_store']} from the run "
        f"store (the zero-shot runs of prompts 1, 7, 11), {requests['computed']} computed; prompt tokens "
        f"{few_total:,}, reused {few_reused:,}; {fewshot_s:.1f} s"
    )
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
