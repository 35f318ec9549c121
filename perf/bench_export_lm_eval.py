"""Tasks exported with ``negkit export lm-eval``, run by the LM Evaluation Harness, against ``negkit eval``.

For each task (TIND with the chat template, NaN-NLI, ScoNe, Thunder-NUBench; also ``blimp-negation``, ``neqa``
and ``negnli`` (its three tasks ``negnli-mnli``, ``negnli-snli``, ``negnli-rte``) with ``--tasks``; a suite's name
stands for its exported tasks, in ``--tasks`` and in ``--limit SUITE=N``), the script runs ``negkit eval`` on
the model (exact mode, float32), exports the same items with ``negkit export lm-eval``, runs the Harness's own
command line on the export (hf backend, the model's folder, float32, CPU, ``--batch_size 32``), and compares
every item's prediction (Harness: the arg-max of its choices' log-likelihoods; negkit: the task's prediction),
the accuracies, and the largest difference of the choices' scores about their mean (the Harness's extra scoring of the chat
template's final newline adds the same amount to every choice, which this leaves out).

BLiMP negation is also run by the Harness's OWN ``blimp_*`` task definitions (``--blimp-harness``, default
``both``): for each of the seven paradigms a task YAML written under ``--work`` includes the Harness's own
``tasks/blimp/PARADIGM.yaml`` (its template: empty context, ``[sentence_good, sentence_bad]``, gold 0) and only
points its data at the local file (``dataset_path: json``, ``data_files``); with ``--limit`` it runs the same first
pairs of each paradigm (the Harness's ``--limit``). Its per-item predictions are compared with negkit's and with
the Harness's on negkit's export, pair by pair (``blimp-PARADIGM-PAIRID``).

    python perf/bench_export_lm_eval.py --lm-eval LM_EVAL_VENV/bin/lm_eval \\
        --work RUNS/export-bench --json docs/results/export-lm-eval.json
    python perf/bench_export_lm_eval.py --lm-eval LM_EVAL_VENV/bin/lm_eval --work RUNS/export-neg \\
        --data ../shared/data --tasks blimp-negation,neqa,negnli --limit "" --json FIGURES.json

Thunder-NUBench's real data is gated; without it the hand-written fixture in tests/fixtures is used (24 items).
Writes nothing into the repository except the ``--json`` figures; TIND stays encrypted (the export holds ids and
hashes only; the Harness's samples, which hold the sentences, stay under ``--work``). With TIND among the tasks, a
``--work`` inside a git working tree is refused, as ``negkit tind convert`` refuses one, unless ``--allow-in-git``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shlex
import shutil
import subprocess
import sys
import time
from collections import Counter
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
    parser.add_argument(
        "--limit",
        default="tind=300,scone=300",
        help="negkit --limit; SUITE=N sets each of the suite's tasks (default: tind=300,scone=300)",
    )
    parser.add_argument(
        "--tasks",
        default="tind,nan-nli,scone,nubench",
        help="tasks or suites (negnli: its three tasks); default: tind,nan-nli,scone,nubench",
    )
    parser.add_argument(
        "--blimp-harness",
        choices=("both", "export", "own"),
        default="both",
        help="BLiMP negation in the Harness: negkit's export (negkit_blimp_negation), the Harness's "
        "own blimp_* task definitions on the local files, or both (default)",
    )
    parser.add_argument(
        "--lm-eval-tasks",
        help="the Harness's tasks folder, for its own blimp_* definitions "
        "(default: found from the interpreter of --lm-eval)",
    )
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


def run_harness(
    lm_eval: str,
    folder: Path,
    export: Path,
    harness_tasks: list[str],
    chat: bool,
    out: Path,
    batch_size: int,
    limit: int | None = None,
) -> tuple[list[str], float, float]:
    command = [
        lm_eval,
        "--model",
        "hf",
        "--model_args",
        f"pretrained={folder},dtype=float32",
        "--device",
        "cpu",
        "--batch_size",
        str(batch_size),
        "--include_path",
        str(export),
        "--tasks",
        ",".join(harness_tasks),
        "--log_samples",
        "--output_path",
        str(out),
    ]
    if chat:
        command.append("--apply_chat_template")
    if limit is not None:
        command += ["--limit", str(limit)]
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
    if task == "blimp-negation":
        return (0 if sample["prediction"] == "good" else 1), None, [sample["logprob_good"], sample["logprob_bad"]]
    if task == "neqa":
        return sample["prediction"], sample["prediction_norm"], sample["loglikelihoods"]
    if task == "nubench":
        run = sample["runs"]["zero-shot"]
        names = sample["candidates"]
        return names.index(run["prediction"]), names.index(run["prediction_norm"]), run["loglikelihoods"]
    from negkit.kit.suites import get_task

    words = list(sample["scores"])  # NLI: the answer words, in the task's (and the export's) order
    word_of = {label: word for word, label in get_task(task).answers.items()}  # NegNLI-RTE: not_entailment -> no
    return words.index(word_of[sample["prediction"]]), None, list(sample["scores"].values())


def centre(scores: list[float]) -> list[float]:
    mean = sum(scores) / len(scores)
    return [score - mean for score in scores]


def compare(task: str, negkit_samples: list[dict[str, Any]], samples: list[dict[str, Any]]) -> dict[str, Any]:
    from negkit.kit.metrics.choice import argmax, predict_normalised

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
    if task in ("nubench", "neqa"):
        row["identical_predictions_norm"] = same_norm
    return row


def harness_tasks_folder(lm_eval: str, given: str | None) -> Path:
    """The Harness's ``lm_eval/tasks`` folder: ``given``, else the one of the Python that runs ``lm_eval``."""
    if given:
        return Path(given)
    executable = shutil.which(lm_eval) or lm_eval
    try:
        first = Path(executable).read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        first = ""
    python = first[2:].strip() if first.startswith("#!") else sys.executable
    completed = subprocess.run(
        [python, "-c", "import lm_eval, pathlib; print(pathlib.Path(lm_eval.__file__).parent)"],
        capture_output=True,
        text=True,
    )
    if completed.returncode == 0:
        return Path(completed.stdout.strip()) / "tasks"
    spec = importlib.util.find_spec("lm_eval")
    if spec is None or spec.origin is None:
        raise SystemExit("cannot find the Harness's tasks folder; give --lm-eval-tasks")
    return Path(spec.origin).parent / "tasks"


def write_own_blimp_tasks(tasks_folder: Path, data_folder: Path, out: Path) -> list[str]:
    """One YAML per paradigm under ``out``: the Harness's own ``blimp_PARADIGM`` definition (included as it ships),
    its data read from the local ``PARADIGM.jsonl`` instead of the hub. Returns the Harness task names."""
    from negkit.benchmarks.blimp import PARADIGMS

    out.mkdir(parents=True, exist_ok=True)
    names = []
    for paradigm in PARADIGMS:
        own, local = tasks_folder / "blimp" / f"{paradigm}.yaml", (data_folder / f"{paradigm}.jsonl").resolve()
        for path in (own, local):
            if not path.is_file():
                raise SystemExit(f"bench_export_lm_eval: {path} not found")
        name = f"blimp_{paradigm}"
        (out / f"{name}.yaml").write_text(
            f"# the Harness's own {name} ({own.name} and its template), on the local file\n"
            f"include: {json.dumps(str(own))}\ntask: {name}\ndataset_path: json\ndataset_name: null\n"
            f"dataset_kwargs:\n  data_files:\n    train: {json.dumps(str(local))}\n",
            encoding="utf-8",
        )
        names.append(name)
    return names


def own_blimp_samples(out: Path, names: list[str]) -> dict[str, dict[str, Any]]:
    """The Harness's samples of its own ``blimp_*`` tasks by negkit's item id ``blimp-PARADIGM-PAIRID``."""
    samples = {}
    for name in names:
        for sample in harness_samples(out, name):
            samples[f"blimp-{name.removeprefix('blimp_')}-{str(sample['doc']['pairID']).strip()}"] = sample
    return samples


def compare_own_blimp(
    negkit_samples: list[dict[str, Any]], own: dict[str, dict[str, Any]], export: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """negkit's and the export's per-pair predictions against the Harness's own ``blimp_*`` tasks."""
    from negkit.kit.metrics.choice import argmax

    exported = {sample["doc"]["item_id"]: sample for sample in export or []}
    missing = [sample["item_id"] for sample in negkit_samples if sample["item_id"] not in own]
    if missing:
        raise SystemExit(f"the Harness's own blimp_* tasks lack {len(missing)} of negkit's pairs, e.g. {missing[0]}")
    same = same_export = 0
    margin_diff = 0.0
    for sample in negkit_samples:
        theirs = own[sample["item_id"]]
        scores = [float(response[0]) for response in theirs["filtered_resps"]]
        mine, _, my_scores = negkit_choice("blimp-negation", sample)
        same += mine == argmax(scores)
        if sample["item_id"] in exported:
            other = [float(response[0]) for response in exported[sample["item_id"]]["filtered_resps"]]
            same_export += argmax(other) == argmax(scores)
        margin_diff = max(margin_diff, max(abs(a - b) for a, b in zip(centre(my_scores), centre(scores))))
    row = {
        "items": len(negkit_samples),
        "identical_predictions": same,
        "max_score_diff": margin_diff,
        "lm_eval_acc": sum(float(own[sample["item_id"]]["acc"]) for sample in negkit_samples) / len(negkit_samples),
    }
    if export is not None:
        row["identical_to_export"] = same_export
    return row


def suite_limits(limit: Any, tasks: list[str]) -> dict[str, Any]:
    """Each task's negkit ``--limit``: one value for all, or per task, a suite's name setting its tasks."""
    from negkit.commands.export import export_task_names

    if not isinstance(limit, dict):
        return dict.fromkeys(tasks, limit)
    per_task = {task: value for key, value in limit.items() for task in export_task_names([key])}
    return {task: per_task.get(task) for task in tasks}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from negkit.commands.export import export_task_names
    from negkit.errors import NegkitError
    from negkit.io.privacy import refuse_inside_git

    try:
        tasks = export_task_names([task.strip() for task in args.tasks.split(",") if task.strip()])
    except NegkitError as error:
        print(f"bench_export_lm_eval: error: {error}", file=sys.stderr)
        return 2
    if "tind" in tasks:
        try:  # before anything is written: the Harness's samples of TIND hold decrypted sentences
            refuse_inside_git(args.work, args.allow_in_git, "decrypted TIND sentences (the Harness's samples)")
        except NegkitError as error:
            print(f"bench_export_lm_eval: error: {error}", file=sys.stderr)
            return 2
    from negkit.kit.arguments import parse_limit

    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    limits = suite_limits(parse_limit(args.limit) if args.limit else None, tasks)
    folder = model_folder(args.model)
    lm_eval_tasks = None
    load_before = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else None
    rows, commands = [], []
    for task in tasks:
        own = task == "blimp-negation" and args.blimp_harness in ("both", "own")
        if own:
            lm_eval_tasks = harness_tasks_folder(args.lm_eval, args.lm_eval_tasks)
        task_rows, task_commands = run_task(args, task, limits[task], work, folder, lm_eval_tasks if own else None)
        for row in task_rows:
            rows.append(row)
            print(json.dumps(row), flush=True)
        commands += task_commands
    load_after = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else None
    print(
        "\n| task | Harness task | items | identical predictions | negkit acc | lm-eval acc | max score diff | negkit s "
        "| lm-eval s | speed (wall) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        same = f"{row['identical_predictions']}/{row['items']}"
        if "identical_to_export" in row:
            same += f" (export: {row['identical_to_export']}/{row['items']})"
        print(
            f"| {row['task']} | {row['harness_task']} | {row['items']} | {same} | {row['negkit_acc']:.4f} | "
            f"{row['lm_eval_acc']:.4f} | {row['max_score_diff']:.1e} | {row['negkit_s']} | {row['lm_eval_s']} | "
            f"{row['lm_eval_s'] / max(row['negkit_s'], 1e-9):.2f}x |"
        )
    print(f"\nload average before {load_before}, after {load_after}")
    if args.json:
        command = shlex.join(["python", "perf/bench_export_lm_eval.py", *(sys.argv[1:] if argv is None else argv)])
        text = (
            json.dumps(
                {
                    "command": command,
                    "rows": rows,
                    "lm_eval_commands": commands,
                    "cpus": os.cpu_count(),
                    "loadavg_before": load_before,
                    "loadavg_after": load_after,
                },
                indent=1,
            )
            + "\n"
        )
        from negkit.kit.data.locate import find_data_root

        root = find_data_root(args.data)
        # no path of this machine in the figures: the folders become names
        venv = Path(args.lm_eval).parent.parent if os.sep in args.lm_eval else None  # VENV/bin/lm_eval
        for path, name in (
            (work, "$WORK"),
            (folder, "$MODEL"),
            (lm_eval_tasks, "$LM_EVAL_TASKS"),
            (REPO, "."),
            (root.resolve() if root else None, "$DATA"),
            (venv, "$LM_EVAL_VENV"),
            (Path.home(), "~"),
        ):
            if path is not None:
                text = text.replace(str(path), name)
        Path(args.json).write_text(text, encoding="utf-8")
    return (
        0
        if all(
            row["identical_predictions"] == row["items"]
            and row.get("identical_to_export", row["items"]) == row["items"]
            for row in rows
        )
        else 1
    )


def run_task(
    args: argparse.Namespace, task: str, limit: Any, work: Path, folder: Path, lm_eval_tasks: Path | None
) -> tuple[list[dict[str, Any]], list[str]]:
    """negkit, then the Harness on negkit's export (and, for BLiMP with ``lm_eval_tasks``, on its own
    ``blimp_*`` definitions): one row of figures per Harness run, and the ``lm_eval`` commands."""
    from negkit.commands.eval.evaluate import evaluate
    from negkit.commands.eval.options import EvalOptions
    from negkit.commands.export import export_lm_eval, harness_names
    from negkit.kit.data.locate import locate_dataset

    data = args.nubench_data if task == "nubench" else args.data
    started, cpu = time.perf_counter(), time.process_time()
    (result,) = evaluate(
        args.model, [task], EvalOptions(data=data, limit=limit, out=work / "negkit" / task, progress=False)
    )
    negkit = {
        "negkit_acc": result["harness"]["acc,none"],
        "negkit_s": round(time.perf_counter() - started, 1),
        "negkit_cpu_s": round(time.process_time() - cpu, 1),
        "negkit_command": result["command"],
    }
    negkit_samples = [json.loads(line) for line in Path(result["files"]["samples"]).read_text().splitlines()]
    rows, commands = [], []
    export_samples = None
    if task != "blimp-negation" or args.blimp_harness in ("both", "export"):
        export = work / "export" / task
        export_lm_eval([task], export, data=data, limit=limit)
        chat = task == "tind" and result["prompt"]["chat_template_applied"]
        harness_task = harness_names()[task][0] if task != "tind" or chat else "negkit_tind_plain"
        out = work / "lm-eval" / task
        command, seconds, harness_cpu = run_harness(
            args.lm_eval, folder, export, [harness_task], chat, out, args.batch_size
        )
        commands.append(shlex.join(["lm_eval", *command[1:]]))
        export_samples = harness_samples(out, harness_task)
        row = {
            "task": task,
            "harness_task": harness_task,
            "chat_template": chat,
            **compare(task, negkit_samples, export_samples),
            **negkit,
            "lm_eval_acc": harness_results(out)[harness_task]["acc,none"],
            "lm_eval_s": round(seconds, 1),
            "lm_eval_cpu_s": round(harness_cpu, 1),
        }
        if task == "nubench":
            row["negkit_acc_norm"] = result["harness"]["acc_norm,none"]
            row["lm_eval_acc_norm"] = harness_results(out)[harness_task]["acc_norm,none"]
        rows.append(row)
    if lm_eval_tasks is not None:
        include = work / "harness-blimp"
        names = write_own_blimp_tasks(lm_eval_tasks, locate_dataset("blimp-negation", data), include)
        per_paradigm = Counter(sample["paradigm"] for sample in negkit_samples)
        harness_limit = max(per_paradigm.values()) if limit is not None else None  # negkit's first pairs of each
        out = work / "lm-eval" / "blimp-own"
        command, seconds, harness_cpu = run_harness(
            args.lm_eval, folder, include, names, False, out, args.batch_size, harness_limit
        )
        commands.append(shlex.join(["lm_eval", *command[1:]]))
        rows.append(
            {
                "task": task,
                "harness_task": "blimp_* (the Harness's own, local files)",
                "harness_tasks": names,
                "chat_template": False,
                **compare_own_blimp(negkit_samples, own_blimp_samples(out, names), export_samples),
                **negkit,
                "lm_eval_s": round(seconds, 1),
                "lm_eval_cpu_s": round(harness_cpu, 1),
            }
        )
    return rows, commands


if __name__ == "__main__":
    sys.exit(main())
