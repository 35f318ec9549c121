"""Speed of TIND scoring with SmolLM2-135M-Instruct on this machine's CPU.

Three ways over the same N TIND test sentences (drawn at random, seed 0), chat prompt:
1. naive: one full forward pass per sentence, fp32 (what the authors' code and the harness do per prompt);
2. negkit exact mode: fp32, length-sorted batches, verified shared-prefix reuse;
3. negkit fast mode: the same engine in bfloat16 (or --fast-dtype).
Prints sentences/s, prompt tokens/s, the speed ratios, and fast mode's agreement with exact mode.

    PYTHONPATH=src python perf/bench_tind_engine.py [--sentences 300] [--threads 2] [--batch-size 32]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _tind_sample import plain_p_true, tind_sample  # noqa: E402

from negkit.benchmarks.tind.task import TruthTask, true_probability  # noqa: E402
from negkit.models.registry import load_model  # noqa: E402


def engine_run(dtype: str, prompts: list[str], batch_size: int) -> tuple[list[float], float, object]:
    lm = load_model("default", dtype=dtype, batch_size=batch_size)
    lm.next_token_logprobs(prompts[:4], ["True", "False"])  # warm-up
    lm.scorer.stats.__init__()
    started = time.perf_counter()
    answers = lm.next_token_logprobs(prompts, ["True", "False"])
    seconds = time.perf_counter() - started
    return [true_probability(a["True"], a["False"]) for a in answers], seconds, lm.scorer.stats


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=300)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--fast-dtype", default="bfloat16")
    parser.add_argument("--data")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    items = tind_sample(args.sentences, data=args.data)
    lm = load_model("default", dtype="float32")
    task = TruthTask()
    prompts = [task.prompt(item.sentence, lm) for item in items]
    tokens = sum(len(lm.rules.encode_context(prompt)[0]) for prompt in prompts)
    true_id, false_id = lm.rules.first_token_id("True"), lm.rules.first_token_id("False")
    print(
        f"machine: {platform.processor() or platform.machine()}, torch threads {args.threads}, torch {torch.__version__}"
    )
    print(
        f"{len(prompts)} TIND test sentences (chat prompt), {tokens} prompt tokens, {tokens / len(prompts):.1f} per prompt"
    )

    plain_p_true(lm.model, lm.tokenizer, prompts[0], true_id, false_id)  # warm-up
    started = time.perf_counter()
    naive = [plain_p_true(lm.model, lm.tokenizer, prompt, true_id, false_id) for prompt in prompts]
    naive_s = time.perf_counter() - started
    del lm
    exact, exact_s, exact_stats = engine_run("float32", prompts, args.batch_size)
    fast, fast_s, _ = engine_run(args.fast_dtype, prompts, args.batch_size)

    rows = [
        ("naive per-sentence fp32", naive_s),
        ("negkit exact (fp32)", exact_s),
        (f"negkit fast ({args.fast_dtype})", fast_s),
    ]
    print(f"{'method':28} {'seconds':>8} {'sent/s':>8} {'tok/s':>8} {'vs naive':>9}")
    for name, seconds in rows:
        print(
            f"{name:28} {seconds:8.2f} {len(prompts) / seconds:8.1f} {tokens / seconds:8.0f} {naive_s / seconds:8.2f}x"
        )
    same_exact = sum((a > 0.5) == (b > 0.5) for a, b in zip(exact, naive))
    same_fast = sum((a > 0.5) == (b > 0.5) for a, b in zip(fast, exact))
    print(
        f"exact vs naive: max|dp| {max(abs(a - b) for a, b in zip(exact, naive)):.2e}, same predictions {same_exact}/{len(prompts)}"
    )
    print(
        f"fast vs exact:  max|dp| {max(abs(a - b) for a, b in zip(fast, exact)):.2e}, "
        f"same predictions {same_fast}/{len(prompts)} ({100 * same_fast / len(prompts):.2f}%)"
    )
    print(
        f"prefix reuse (exact): {exact_stats.batches_with_prefix}/{exact_stats.batches} batches, "
        f"{exact_stats.tokens_skipped}/{exact_stats.tokens_total} prompt tokens not recomputed"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
