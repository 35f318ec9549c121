"""Where negkit's multiple-choice time goes: cProfile of one ``loglikelihood`` call on ScoNe test pairs.

    OMP_NUM_THREADS=2 PYTHONPATH=src python perf/profile_choice.py [--pairs 300] [--dtype float32]

Prints wall time, CPU seconds, the engine's counts (tokens, tokens not recomputed, padding, prefix tree) and the
functions with the most cumulative and own time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import torch

from negkit.kit.suites import get_task
from negkit.models.registry import load_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--dtype", default="float32", help="float32 (exact mode) or auto (fast mode's choice)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lm = load_model("default", dtype=args.dtype)
    task = get_task("scone")
    items = task.load(None, "test", None, 0).items[: args.pairs]
    requests = [request for item_requests in task.requests(items) for request in item_requests]
    lm.loglikelihood(requests[:8])  # warm-up
    lm.scorer.stats.__init__()
    wall, cpu = time.perf_counter(), time.process_time()
    profile = cProfile.Profile()
    profile.enable()
    lm.loglikelihood(requests)
    profile.disable()
    print(
        f"{len(requests)} requests: {time.perf_counter() - wall:.1f} s wall, {time.process_time() - cpu:.1f} CPU s; "
        f"engine {lm.scorer.stats}",
        flush=True,
    )
    pstats.Stats(profile).sort_stats("cumulative").print_stats(35)
    pstats.Stats(profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
