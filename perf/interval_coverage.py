"""Coverage and speed of negkit's confidence intervals (negkit.kit.metrics.intervals).

Prints, for simulated data whose true mean is known:

1. independent binary outcomes (p, n): how often the 95% percentile bootstrap interval covers p;
2. clustered binary outcomes (units whose own probability varies around p, as TIND groups or NaN-NLI premises do):
   the coverage of the bootstrap that resamples units (negkit's) and of one that resamples single items (what a
   per-item bootstrap would report), and of the Wilson interval on items;
3. the time to compute every interval of a TIND run (all accuracy buckets, negation analysis, per pattern, the five
   coherence measures) on the whole test split of the public half, with random predictions.

    python perf/interval_coverage.py [--simulations 1000] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np

from negkit.kit.metrics.intervals import bootstrap_intervals, ratio_estimand
from negkit.kit.metrics.standard_errors import wilson_interval

REPO = Path(__file__).resolve().parents[1]


def covered(values: np.ndarray, units: list, truth: float, resamples: int, seed: int) -> bool:
    interval = bootstrap_intervals([ratio_estimand("p", values, None, units, "unit")], resamples, seed)["p"]
    return interval.low <= truth <= interval.high


def independent(p: float, n: int, simulations: int, resamples: int) -> float:
    rng = np.random.default_rng(1)
    hits = sum(covered(rng.random(n) < p, list(range(n)), p, resamples, s) for s in range(simulations))
    return hits / simulations


def clustered(
    p: float, units: int, size: int, concentration: float, simulations: int, resamples: int
) -> tuple[float, float, float]:
    """Unit probabilities ~ Beta(p c, (1 - p) c); ``size`` outcomes per unit. Coverage of p by three intervals."""
    rng = np.random.default_rng(2)
    by_unit = by_item = wilson = 0
    labels = list(np.repeat(np.arange(units), size))
    for s in range(simulations):
        probabilities = rng.beta(p * concentration, (1 - p) * concentration, units)
        values = (rng.random((units, size)) < probabilities[:, None]).ravel()
        by_unit += covered(values, labels, p, resamples, s)
        by_item += covered(values, list(range(values.size)), p, resamples, s)
        low, high = wilson_interval(float(values.mean()), values.size)
        wilson += low <= p <= high
    return by_unit / simulations, by_item / simulations, wilson / simulations


def tind_timing(resamples: int) -> str:
    from negkit.benchmarks.tind.data import read_tind
    from negkit.benchmarks.tind.intervals import tind_estimands
    from negkit.benchmarks.tind.task import tind_source
    from negkit.kit.metrics.intervals import intervals_json

    source = tind_source(REPO.parent / "shared" / "data")
    items = read_tind(source, "test", 0)
    rng = random.Random(0)
    predictions = [rng.random() < 0.5 for _ in items]
    started = time.perf_counter()
    estimands = tind_estimands(items, predictions)
    intervals = intervals_json(estimands)
    seconds = time.perf_counter() - started
    groups = len({item.group_key for item in items})
    return (
        f"TIND test split of the public half: {len(items):,} sentences, {groups:,} groups, {len(intervals)} "
        f"intervals x {resamples:,} resamples in {seconds:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    print(f"load average before: {Path('/proc/loadavg').read_text().split()[:3]}")
    print(f"\n1. independent outcomes, {args.simulations} simulations, {args.resamples} resamples, nominal 95%")
    print("| p | n | coverage |\n|---|---|---|")
    for p, n in ((0.5, 50), (0.3, 100), (0.3, 400), (0.1, 200), (0.05, 400)):
        print(f"| {p} | {n} | {independent(p, n, args.simulations, args.resamples):.3f} |")
    print(f"\n2. clustered outcomes (unit probabilities ~ Beta(p c, (1-p) c)), {args.simulations} simulations")
    print("| p | units x size | c | by unit (negkit) | by item | Wilson on items |\n|---|---|---|---|---|---|")
    for p, units, size, concentration in ((0.3, 40, 10, 4.0), (0.5, 20, 50, 2.0), (0.3, 100, 5, 10.0)):
        unit, item, wilson = clustered(p, units, size, concentration, args.simulations, args.resamples)
        print(f"| {p} | {units} x {size} | {concentration} | {unit:.3f} | {item:.3f} | {wilson:.3f} |")
    print(f"\n3. {tind_timing(args.resamples)}")
    print(f"\nload average after: {Path('/proc/loadavg').read_text().split()[:3]}")


if __name__ == "__main__":
    main()
