"""CondaQA generation: stopping at the newline inside the decoding loop against running to 16 tokens and cutting.

    OMP_NUM_THREADS=2 PYTHONPATH=src python perf/bench_generate_stop.py [--questions 48]

Generates the first N CondaQA dev answers with the default model three times (stop in the loop, then with the
stopping criterion removed, then stop in the loop again), prints wall time and CPU seconds of each, whether the
answers are identical, and the answers' and prompts' mean lengths in tokens.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

import negkit.models.hf_causal as hf_causal
from negkit.kit.suites import get_task
from negkit.models.registry import load_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=48)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lm = load_model("default", dtype="float32")
    task = get_task("condaqa")
    items = task.load(None, "test", args.questions, 0).items
    requests = [item_requests[0] for item_requests in task.requests(items, lm)]
    contexts = [request.context for request in requests]
    limit, stop = requests[0].max_new_tokens, requests[0].stop
    lm.generate(contexts[:2], limit, stop)  # warm-up
    with_stop = hf_causal.stop_criteria
    answers = {}
    for label in ("stop in the loop", "to the token limit, cut after", "stop in the loop (again)"):
        hf_causal.stop_criteria = with_stop if label.startswith("stop") else (lambda *_: None)
        load = Path("/proc/loadavg").read_text().split()[:3]
        wall, cpu = time.perf_counter(), time.process_time()
        answers[label] = lm.generate(contexts, limit, stop)
        print(
            f"{label}: {time.perf_counter() - wall:.1f} s wall, {time.process_time() - cpu:.1f} CPU s, "
            f"load {' '.join(load)}",
            flush=True,
        )
    hf_causal.stop_criteria = with_stop
    print("identical answers:", answers["stop in the loop"] == answers["to the token limit, cut after"])
    lengths = [len(lm.rules.encode(answer, special=False)) for answer in answers["stop in the loop"]]
    prompts = [len(lm.rules.encode_context(context)[0]) for context in contexts]
    print(
        f"{len(contexts)} questions; answer tokens mean {sum(lengths) / len(lengths):.2f}; prompt tokens mean "
        f"{sum(prompts) / len(prompts):.1f}"
    )


if __name__ == "__main__":
    main()
