"""Check: negkit's exact mode reproduces plain per-sentence forward passes for SmolLM2-135M-Instruct.

For N TIND test sentences drawn at random (seed 0; 100 by default, with the chat prompt and again with the
plain prompt, so 200 prompts) it compares p(True) from
negkit's engine (batched, with and without shared-prefix reuse) with one plain forward pass per
sentence, and prints the largest difference. Exit status 1 when it exceeds 1e-4.

    PYTHONPATH=src python perf/check_exact_smollm2.py [--sentences 100] [--threads 2]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _tind_sample import plain_p_true, tind_sample  # noqa: E402

from negkit.benchmarks.tind.task import TruthTask, true_probability  # noqa: E402
from negkit.models.registry import load_model  # noqa: E402

TOLERANCE = 1e-4


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--data")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    items = tind_sample(args.sentences, data=args.data)
    worst = 0.0
    models = {
        reuse: load_model("default", dtype="float32", prefix_reuse=reuse, batch_size=32) for reuse in (True, False)
    }
    for chat in (True, False):
        task = TruthTask(chat=None if chat else False)
        lm = models[True]
        prompts = [task.prompt(item.sentence, lm) for item in items]
        true_id, false_id = lm.rules.first_token_id("True"), lm.rules.first_token_id("False")
        plain = [plain_p_true(lm.model, lm.tokenizer, prompt, true_id, false_id) for prompt in prompts]
        for reuse, lm in models.items():
            answers = lm.next_token_logprobs(prompts, ["True", "False"])
            engine = [true_probability(a["True"], a["False"]) for a in answers]
            difference = max(abs(a - b) for a, b in zip(engine, plain))
            agree = sum((a > 0.5) == (b > 0.5) for a, b in zip(engine, plain))
            worst = max(worst, difference)
            print(
                f"chat={chat!s:5} prefix_reuse={reuse!s:5} sentences={len(items)} "
                f"max|dp|={difference:.2e} same predictions={agree}/{len(items)} "
                f"prefix tokens reused={lm.scorer.stats.tokens_skipped}/{lm.scorer.stats.tokens_total}",
                flush=True,
            )
            lm.scorer.stats.__init__()
    print(f"worst max|dp| = {worst:.2e} (tolerance {TOLERANCE:.0e}): {'OK' if worst <= TOLERANCE else 'FAILED'}")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
