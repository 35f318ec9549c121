"""Full TIND generation: wall time per step, peak memory, and byte identity across processes.

Usage: python perf/bench_generate.py [WORDNET_RESOURCES_FOLDER] [--tracemalloc]
(default folder: ../shared/data/wordnet)

Runs the whole generation (all 11 patterns, raw + jsonl written to a temporary folder) in this process and
prints seconds per step and the peak resident memory (getrusage). ``--tracemalloc`` also prints the peak of
Python allocations (it makes the run several times slower, so its times are not the figures to quote).
Then runs the same generation in a second process with another PYTHONHASHSEED and checks that both outputs
are byte-identical. Goal: at most 2 minutes and 2 GB.
"""

from __future__ import annotations

import hashlib
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from negkit.studies.tind.generator.generate import Generator, write_generation


def digest(folder: Path) -> str:
    """sha256 over every file's relative path and bytes."""
    hasher = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            hasher.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return hasher.hexdigest()


def generate_into(resources: Path, out: Path, measure: bool, trace: bool = False) -> None:
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    generator = Generator.load(resources)
    loaded = time.perf_counter()
    groups = generator.generate_groups(seed=0)
    generated = time.perf_counter()
    write_generation(groups, out)
    written = time.perf_counter()
    if not measure:
        return
    traced = ""
    if tracemalloc.is_tracing():
        traced = f", Python allocations {tracemalloc.get_traced_memory()[1] / 2**20:.0f} MB (tracemalloc on)"
        tracemalloc.stop()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    sentences = sum(len(group.items) for group in groups)
    print(f"generated {len(groups)} groups, {sentences} sentences")
    print(f"load WordNet + resources: {loaded - start:6.1f} s")
    print(f"select + distractors + realise: {generated - loaded:6.1f} s")
    print(f"write raw + jsonl:        {written - generated:6.1f} s")
    print(f"total wall time:          {written - start:6.1f} s   (goal <= 120 s)")
    print(f"peak memory: RSS {rss_mb:.0f} MB{traced}   (goal <= 2048 MB)")


def main() -> None:
    default = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wordnet"
    resources = Path(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else default
    if "--child" in sys.argv:
        generate_into(resources, Path(sys.argv[-1]), measure=False)
        return
    with tempfile.TemporaryDirectory() as folder:
        first, second = Path(folder) / "first", Path(folder) / "second"
        generate_into(resources, first, measure=True, trace="--tracemalloc" in sys.argv)
        environment = {**os.environ, "PYTHONHASHSEED": "12345"}
        subprocess.run([sys.executable, __file__, str(resources), "--child", str(second)], check=True, env=environment)
        same = digest(first) == digest(second)
        print(f"second process (PYTHONHASHSEED=12345) byte-identical: {same}")


if __name__ == "__main__":
    main()
