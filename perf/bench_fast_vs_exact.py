"""Is ``negkit eval --mode fast`` at least as fast as ``--mode exact`` on this machine? TIND, same sample, same model.

Runs ``negkit eval --model default --tasks tind --limit N --seed 0`` (whole groups stratified by pattern, about N
sentences: 2,009 for N = 2000) with ``--mode exact`` and with ``--mode fast``, in turn, ``--repeats`` times, each a
separate process timed whole (wall time and CPU seconds, model loading included) into a fresh output folder outside
the repository. Fast mode's dtype comes from its calibration (cached per machine, see docs/engine.md); the first
fast run pays for it once, so the script runs the calibration first (``--no-precalibrate`` keeps it inside the
first fast run) and prints what fast mode chose and why (``model.load.fast_dtype`` of its results). Printed per
mode: the median wall time and CPU seconds, the load average around each run, and the agreement of fast mode's
predictions with exact mode's.

    OMP_NUM_THREADS=2 python perf/bench_fast_vs_exact.py [--sentences 2000] [--repeats 2] [--plain]

Decrypted TIND sentences are written only to the temporary working folder (``--work``), never to the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_tind_vs_harness import run_command  # this folder is on sys.path when a script here runs

REPO = Path(__file__).resolve().parents[1]


def timed(command: list[str], env: dict[str, str], log: Path) -> dict[str, Any]:
    """Run ``command``; its wall time, CPU seconds (user + system of the waited-for tree, both rounded to 0.01 s)
    and load averages (:func:`bench_tind_vs_harness.run_command`)."""
    figures = run_command(command, env, log)
    return {**figures, "wall_s": round(figures["wall_s"], 2), "cpu_s": round(figures["cpu_s"], 2)}


def predictions(out: Path) -> dict[str, bool]:
    return {
        record["item_id"]: bool(record["prediction"])
        for record in map(json.loads, (out / "tind.samples.jsonl").read_text(encoding="utf-8").splitlines())
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=2000, help="negkit's --limit (whole groups, about N)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--plain", action="store_true", help="the plain prompt (default: the chat template)")
    parser.add_argument("--no-precalibrate", action="store_true")
    parser.add_argument("--data", help="data root (default: negkit's usual search)")
    parser.add_argument("--work", type=Path, help="working folder (default: a temporary folder)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    work = args.work or Path(tempfile.mkdtemp(prefix="negkit-fast-exact-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": str(REPO / "src")}
    env.setdefault("OMP_NUM_THREADS", "2")
    if not args.no_precalibrate:
        code = (
            "import torch; from transformers import AutoConfig; from negkit.models.gguf import converted_folder, "
            "default_model_file; from negkit.models.fast_dtype import choose_fast_dtype; "
            f"torch.set_num_threads({env['OMP_NUM_THREADS']}); "
            "print(choose_fast_dtype(AutoConfig.from_pretrained(str(converted_folder(default_model_file()))), 'cpu')[1])"
        )
        figures = timed([sys.executable, "-c", code], env, work / "calibration.log")
        print(f"calibration (or its cached result): {figures['wall_s']} s wall, {figures['cpu_s']} CPU s", flush=True)
    common = [
        sys.executable,
        "-m",
        "negkit",
        "eval",
        "--model",
        "default",
        "--tasks",
        "tind",
        "--split",
        "test",
        "--limit",
        str(args.sentences),
        "--seed",
        "0",
        "--no-progress",
        "--no-chat-template" if args.plain else "--apply-chat-template",
    ]
    if args.data:
        common += ["--data", args.data]
    runs: dict[str, list[dict[str, Any]]] = {"exact": [], "fast": []}
    for repeat in range(args.repeats):
        for mode in ("exact", "fast"):
            out = work / f"{mode}-{repeat}"
            figures = timed([*common, "--mode", mode, "--out", str(out)], env, work / f"{mode}-{repeat}.log")
            result = json.loads((out / "tind.results.json").read_text(encoding="utf-8"))
            figures["dtype"] = result["model"]["load"].get("dtype")
            figures["fast_dtype"] = result["model"]["load"].get("fast_dtype")
            figures["score_s"] = result.get("timings", {}).get("score_s")
            figures["prefix_tree"] = result.get("engine", {}).get("prefix_tree")
            figures["sentences"] = result["data"]["count"]
            runs[mode].append(figures)
            print(
                f"{mode:5} run {repeat}: {figures['wall_s']} s wall, {figures['cpu_s']} CPU s, scoring "
                f"{figures['score_s']} s, dtype {figures['dtype']}, load {' '.join(figures['load_before'])}",
                flush=True,
            )
    exact, fast = predictions(work / "exact-0"), predictions(work / "fast-0")
    agreement = sum(exact[key] == fast[key] for key in exact) / len(exact)
    summary = {
        mode: {key: statistics.median(run[key] for run in done) for key in ("wall_s", "cpu_s", "score_s")}
        for mode, done in runs.items()
    }
    print(
        f"\n{runs['exact'][0]['sentences']} sentences, {'plain' if args.plain else 'chat'} prompt, "
        f"OMP_NUM_THREADS={env['OMP_NUM_THREADS']}"
    )
    print("| mode | dtype | wall s (median) | CPU s (median) | scoring s (median) | load before each run |")
    print("|---|---|---|---|---|---|")
    for mode, done in runs.items():
        loads = "; ".join(" ".join(run["load_before"]) for run in done)
        print(
            f"| {mode} | {done[0]['dtype']} | {summary[mode]['wall_s']} | {summary[mode]['cpu_s']} | "
            f"{summary[mode]['score_s']} | {loads} |"
        )
    print(
        f"fast / exact: wall {summary['fast']['wall_s'] / summary['exact']['wall_s']:.2f}, CPU "
        f"{summary['fast']['cpu_s'] / summary['exact']['cpu_s']:.2f}; predictions agreeing {100 * agreement:.2f}%"
    )
    print(f"fast mode's dtype choice: {json.dumps(runs['fast'][0]['fast_dtype'])}")
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "summary": summary, "agreement": agreement}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
