"""Items per second per model and suite, read back from `negkit eval` run folders: what a full run would cost.

Every task's ``TASK.results.json`` records the seconds its model work took (``timings.total_score_s``: the answers
computed in this folder, over every call that resumed it), how many requests were computed, how many items were
scored, the model (catalogue name, backend, dtype) and the mode. This script puts them side by side, one row per
model, mode and dtype and one column per task (items per second), and a second table with the raw seconds and
counts, so that a user can plan a full run (items in the full split / items per second). It reads only; it measures
nothing itself, so the figures are those of the machine and load the runs had (say which when you publish them).

    python perf/throughput_from_runs.py RUN_DIR [RUN_DIR ...] [--json FILE]

Folders of baselines (``random``, ``constant:...``, ``majority``) are left out: they compute nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def task_rows(folder: Path) -> list[dict[str, Any]]:
    """One row per task result in ``folder`` that a model computed (store hits only: left out)."""
    rows = []
    for path in sorted(folder.glob("*.results.json")):
        result = json.loads(path.read_text(encoding="utf-8"))
        model = result.get("model") or {}
        load = model.get("load") or {}
        if model.get("backend") == "baseline":  # random, constant:..., majority compute nothing
            continue
        timings = result.get("timings") or {}
        seconds = float(timings.get("total_score_s") or timings.get("score_s") or 0.0)
        requests = result.get("requests") or {}
        computed = int(timings.get("requests_computed") or 0)
        if seconds <= 0 or computed == 0:
            continue
        samples = folder / path.name.replace(".results.json", ".samples.jsonl")
        items = sum(1 for line in samples.open(encoding="utf-8") if line.strip()) if samples.exists() else 0
        catalogue = (load.get("catalogue") or {}).get("name") or model.get("name", "?")
        rows.append(
            {
                "folder": folder.name,
                "model": catalogue,
                "mode": result.get("mode"),
                "dtype": load.get("dtype") or model.get("dtype"),
                "task": path.name.removesuffix(".results.json"),
                "chat": bool((result.get("task") or {}).get("chat")) if isinstance(result.get("task"), dict) else None,
                "items": items,
                "requests": int(requests.get("total") or 0) if isinstance(requests, dict) else 0,
                "requests_computed": computed,
                "score_s": round(seconds, 2),
                "items_per_s": round(items / seconds, 2),
                "requests_per_s": round(computed / seconds, 2),
                "tokens": (result.get("engine") or {}).get("tokens"),
            }
        )
    return rows


def _prompt(row: dict[str, Any]) -> str:
    return {True: "chat", False: "plain", None: "–"}[row["chat"]]


def markdown(rows: list[dict[str, Any]]) -> str:
    """Items per second, a row per model / mode / dtype, a column per task; then the raw figures."""
    tasks = sorted({row["task"] for row in rows})
    keys = sorted({(row["model"], row["mode"], row["dtype"], _prompt(row)) for row in rows})
    lines = ["| model | mode | dtype | prompt | " + " | ".join(tasks) + " |", "|---|---|---|---|" + "---|" * len(tasks)]
    for key in keys:
        cells = {row["task"]: row for row in rows if (row["model"], row["mode"], row["dtype"], _prompt(row)) == key}
        values = [f"{cells[task]['items_per_s']:.2f}" if task in cells else "–" for task in tasks]
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | " + " | ".join(values) + " |")
    lines += [
        "",
        "| folder | model | task | items | requests computed | seconds | items / s | requests / s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['folder']} | {row['model']} | {row['task']} | {row['items']:,} | {row['requests_computed']:,} | "
            f"{row['score_s']:.1f} | {row['items_per_s']:.2f} | {row['requests_per_s']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="run folders of `negkit eval`")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    missing = [str(folder) for folder in args.folders if not folder.is_dir()]
    if missing:
        print(f"throughput_from_runs: error: not a folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    rows = [row for folder in args.folders for row in task_rows(folder)]
    print(markdown(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
