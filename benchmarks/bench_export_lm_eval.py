"""Tasks exported with ``negkit export lm-eval``, run by the LM Evaluation Harness, against ``negkit eval``.

For each task (TIND with the chat template, NaN-NLI, ScoNe, Thunder-NUBench), the script runs ``negkit eval`` on
the model (exact mode, float32), exports the same items with ``negkit export lm-eval``, runs the Harness's own
command line on the export (hf backend, the model's folder, float32, CPU, ``--batch_size 32``), and compares
every item's prediction (Harness: the arg-max of its choices' log-likelihoods; negkit: the task's prediction),
the accuracies, and the largest difference of the choices' scores about their mean (the Harness's extra scoring of the chat
template's final newline adds the same amount to every choice, which this leaves out).

    python benchmarks/bench_export_lm_eval.py --lm-eval LM_EVAL_VENV/bin/lm_eval \\
        --work RUNS/export-bench --json docs/results/export-lm-eval.json

Thunder-NUBench's real data is gated; without it the hand-written fixture in tests/fixtures is used (24 items).
Writes nothing into the repository except the ``--json`` figures; TIND stays encrypted (the export holds ids and
hashes only; the Harness's samples, which hold the sentences, stay under ``--work``). With TIND among the tasks, a
``--work`` inside a git working tree is refused, as ``negkit tind convert`` refuses one, unless ``--allow-in-git``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "thunder_nubench"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0])
    parser.add_argument("--lm-eval", default=os.environ.get("LM_EVAL", "lm_eval"), help="the Harness's lm_eval command")
    parser.add_argument("--work", required=True, help="folder for runs, exports and the Harness's outputs")
    parser.add_argument("--data", help="negkit data root (default: negkit's search order)")
    parser.add_argument("--nubench-data", default=str(FIXTURE), help="Thunder-NUBench root (default: the test fixture)")
    parser.add_argument("--limit", default="tind=300,scone=300", help="negkit --limit (default: tind=300,scone=300)")
    parser.add_argument("--tasks", default="tind,nan-nli,scone,nubench")
    parser.add_argument("--batch-size", type=int, default=32, help="the Harness's --batch_size (default 32)")
    parser.add_argument("--model", default="default", help="negkit model spec (a transformers folder for the Harness)")
    parser.add_argument("--json", help="write the figures here as JSON")
    parser.add_argument("--allow-in-git", action="store_true", help="allow a --work inside a git working tree")
    return parser.parse_args(argv)


def model_folder(spec: str) -> Path:
    """The transformers folder the Harness loads for negkit's model spec."""
    from negkit.models.gguf import converted_folder, default_model_file

    if spec == "default":
        return converted_folder(default_model_file())
    if spec.startswith("gguf:"):
        return converted_folder(spec[5:])
    return Path(spec.removeprefix("hf:"))


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_harness(lm_eval: str, folder: Path, export: Path, harness_tasks: list[str], chat: bool, out: Path,
                batch_size: int) -> tuple[list[str], float, float]:
    command = [lm_eval, "--model", "hf", "--model_args", f"pretrained={folder},dtype=float32", "--device", "cpu",
               "--batch_size", str(batch_size), "--include_path", str(export), "--tasks", ",".join(harness_tasks),
               "--log_samples", "--output_path", str(out)]
    if chat:
        command.append("--apply_chat_template")
    cpu, started = children_cpu(), time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - started, children_cpu() - cpu
    if completed.returncode:
        sys.stderr.write(completed.stdout[-4000:] + completed.stderr[-4000:])
        raise SystemExit(f"lm_eval failed ({completed.returncode}): {shlex.join(command)}")
    return command, seconds, cpu


def harness_samples(out: Path, harness_task: str) -> list[dict[str, Any]]:
    files = sorted(out.rglob(f"samples_{harness_task}_*.jsonl"))
    if not files:
        raise SystemExit(f"no samples of {harness_task} under {out}")
    with open(files[-1], encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def harness_results(out: Path) -> dict[str, Any]:
    files = sorted(out.rglob("results_*.json"))
    return json.loads(files[-1].read_text(encoding="utf-8"))["results"]


def negkit_choice(task: str, sample: dict[str, Any]) -> tuple[int, int | None, list[float]]:
    """negkit's predicted choice index (acc, acc_norm) and its per-choice scores, in the export's choice order."""
    if task == "tind":
        return (0 if sample["prediction"] else 1), None, [sample["logprob_true"], sample["logprob_false"]]
    if task == "nubench":
        run = sample["runs"]["zero-shot"]
        names = sample["candidates"]
        return names.index(run["prediction"]), names.index(run["prediction_norm"]), run["loglikelihoods"]
    words = list(sample["scores"])
    labels = {"scone": {"entailment": "Yes", "neutral": "No"}}.get(task, {word: word for word in words})
    return words.index(labels[sample["prediction"]]), None, list(sample["scores"].values())


def centre(scores: list[float]) -> list[float]:
    mean = sum(scores) / len(scores)
    return [score - mean for score in scores]


def compare(task: str, negkit_samples: list[dict[str, Any]], samples: list[dict[str, Any]]) -> dict[str, Any]:
    from negkit.metrics.multiple_choice import argmax, predict_normalised

    theirs = {sample["doc"]["item_id"]: sample for sample in samples}
    same = same_norm = 0
    margin_diff = 0.0
    for sample in negkit_samples:
        other = theirs[sample["item_id"]]
        scores = [float(response[0]) for response in other["filtered_resps"]]
        mine, mine_norm, my_scores = negkit_choice(task, sample)
        same += mine == argmax(scores)
        if mine_norm is not None:
            same_norm += mine_norm == predict_normalised(scores, other["doc"]["choices"])
        # differences between choices: the Harness's extra newline under a chat template adds to every choice alike
        centred = [a - b for a, b in zip(centre(my_scores), centre(scores))]
        margin_diff = max(margin_diff, max(abs(value) for value in centred))
    row = {"items": len(negkit_samples), "identical_predictions": same, "max_score_diff": margin_diff}
    if task == "nubench":
        row["identical_predictions_norm"] = same_norm
    return row


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from negkit.errors import NegkitError
    from negkit.io.privacy import refuse_inside_git

    if "tind" in [task.strip() for task in args.tasks.split(",")]:
        try:  # before anything is written: the Harness's samples of TIND hold decrypted sentences
            refuse_inside_git(args.work, args.allow_in_git, "decrypted TIND sentences (the Harness's samples)")
        except NegkitError as error:
            print(f"bench_export_lm_eval: error: {error}", file=sys.stderr)
            return 2
    from negkit.cli.arguments import parse_limit
    from negkit.run.options import EvalOptions
    from negkit.run.evaluate import evaluate
    from negkit.export.lm_eval import export_lm_eval, harness_names

    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    tasks = [task.strip() for task in args.tasks.split(",") if task.strip()]
    limit = parse_limit(args.limit) if args.limit else None
    folder = model_folder(args.model)
    load_before = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else None
    rows, commands = [], []
    for task in tasks:
        data = args.nubench_data if task == "nubench" else args.data
        task_limit = {task: limit[task]} if isinstance(limit, dict) and task in limit else (
            None if isinstance(limit, dict) else limit)
        started, cpu = time.perf_counter(), time.process_time()
        (result,) = evaluate(args.model, [task], EvalOptions(data=data, limit=task_limit, out=work / "negkit" / task,
                                                             progress=False))
        negkit_seconds, negkit_cpu = time.perf_counter() - started, time.process_time() - cpu
        export = work / "export" / task
        export_lm_eval([task], export, data=data, limit=task_limit)
        chat = task == "tind" and result["prompt"]["chat_template_applied"]
        harness_task = harness_names()[task][0] if task != "tind" or chat else "negkit_tind_plain"
        out = work / "lm-eval" / task
        command, harness_seconds, harness_cpu = run_harness(args.lm_eval, folder, export, [harness_task], chat, out,
                                                            args.batch_size)
        commands.append(shlex.join(["lm_eval", *command[1:]]))
        negkit_samples = [json.loads(line) for line in Path(result["files"]["samples"]).read_text().splitlines()]
        row = {"task": task, "harness_task": harness_task, "chat_template": chat,
               **compare(task, negkit_samples, harness_samples(out, harness_task)),
               "negkit_acc": result["harness"]["acc,none"],
               "lm_eval_acc": harness_results(out)[harness_task]["acc,none"],
               "negkit_s": round(negkit_seconds, 1), "negkit_cpu_s": round(negkit_cpu, 1),
               "lm_eval_s": round(harness_seconds, 1), "lm_eval_cpu_s": round(harness_cpu, 1),
               "negkit_command": result["command"]}
        if task == "nubench":
            row["negkit_acc_norm"] = result["harness"]["acc_norm,none"]
            row["lm_eval_acc_norm"] = harness_results(out)[harness_task]["acc_norm,none"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    load_after = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else None
    print("\n| task | items | identical predictions | negkit acc | lm-eval acc | max score diff | negkit s | lm-eval s |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['task']} | {row['items']} | {row['identical_predictions']}/{row['items']} | "
              f"{row['negkit_acc']:.4f} | {row['lm_eval_acc']:.4f} | {row['max_score_diff']:.1e} | "
              f"{row['negkit_s']} | {row['lm_eval_s']} |")
    print(f"\nload average before {load_before}, after {load_after}")
    if args.json:
        text = json.dumps({"rows": rows, "lm_eval_commands": commands, "loadavg_before": load_before,
                           "loadavg_after": load_after}, indent=1) + "\n"
        from negkit.data.locate import find_data_root

        root = find_data_root(args.data)
        # no path of this machine in the figures: the folders become names
        for path, name in ((work, "$WORK"), (folder, "$MODEL"), (REPO, "."), (root.resolve() if root else None, "$DATA"),
                           (Path.home(), "~")):
            if path is not None:
                text = text.replace(str(path), name)
        Path(args.json).write_text(text, encoding="utf-8")
    return 0 if all(row["identical_predictions"] == row["items"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
