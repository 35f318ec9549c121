"""Time reading the TIND raw zip in place and scoring it: prints seconds per step and peak memory.

Usage: python perf/tind_io.py [PATH_TO_raw-public.zip]   (default: ../shared/data/tind/raw-public.zip)
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

from negkit.benchmarks.tind.data import read_tind_raw, split_groups
from negkit.benchmarks.tind.metrics import tind_metrics
from negkit.benchmarks.tind.tables import tind_report


def main() -> None:
    default = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tind" / "raw-public.zip"
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    start = time.perf_counter()
    groups = read_tind_raw(path)
    read_s = time.perf_counter() - start
    items = [item for group in groups for item in group.items]
    start = time.perf_counter()
    split_groups(groups, seed=0)
    split_s = time.perf_counter() - start
    start = time.perf_counter()
    metrics = tind_metrics(items, [item.label for item in items])
    metrics_s = time.perf_counter() - start
    start = time.perf_counter()
    tind_report(metrics)
    report_s = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"data: {path.name}: {len(groups)} groups, {len(items)} sentences")
    print(f"read (decrypt + parse): {read_s:.2f} s ({len(items) / read_s:,.0f} sentences/s)")
    print(f"split_groups:           {split_s:.3f} s")
    print(f"tind_metrics:           {metrics_s:.2f} s ({len(items) / metrics_s:,.0f} sentences/s)")
    print(f"tind_report:            {report_s:.3f} s")
    print(f"peak memory (RSS):      {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
