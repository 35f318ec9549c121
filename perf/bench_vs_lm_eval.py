"""negkit vs the LM Evaluation Harness: same model, same prompts, same items, same process.

Two workloads:
- Thunder-NUBench multiple choice (prompt 7, zero-shot) on the hand-written fixture repeated to ``--items``
  items (each copy gets a distinct sentence suffix so that no request repeats and nothing is deduplicated);
- ScoNe-NLI test with the Thunder-NUBench yes/no prompt (``--scone-rows`` rows of each of the six conditions).

Both tools score the same items with the same model folder on CPU, the Harness in float32 at its usual batch
size 32 (``--lm-eval-batch-size``), negkit with its automatic batching in exact mode (float32) and in fast mode
(the dtype its calibration chooses on this machine, ``--modes``); the script checks that every item's acc and
acc_norm prediction agrees, prints the largest log-likelihood difference, both tools' acc / acc_norm and the
wall time and CPU seconds of each (model loading excluded; negkit's time is its whole ``evaluate`` call,
writing the samples, intervals and report included). On a machine shared with other jobs the wall time follows
the load; the CPU seconds of the process hardly do.

    OMP_NUM_THREADS=2 PYTHONPATH=src python perf/bench_vs_lm_eval.py        # fixture 200 items, ScoNe 1,200

Needs ``pip install lm_eval`` (the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "thunder_nubench"


def write_scaled_fixture(folder: Path, count: int) -> None:
    """The fixture's test items repeated to ``count`` items with distinct sentences, in the NUBench layout."""
    from negkit.benchmarks.nubench.data import read_records

    records = [record for _, record in read_records(FIXTURE / "multiple-choice" / "test.jsonl")]
    out = folder / "multiple-choice"
    out.mkdir(parents=True)
    with open(out / "test.jsonl", "w", encoding="utf-8") as handle:
        for index in range(count):
            record = dict(records[index % len(records)])
            copy = index // len(records)
            if copy:
                record["sentence"] = record["sentence"].rstrip(".") + f" (copy {copy})."
            record["index"] = index
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    (out / "validation.jsonl").write_text((FIXTURE / "multiple-choice" / "validation.jsonl").read_text())


def lm_eval_task(name: str, docs_file: Path, fewshot_file: Path | None = None, num_fewshot: int = 0) -> dict[str, Any]:
    """An lm-eval multiple-choice task over pre-rendered prompts: fields ``prompt``, ``choices``, ``gold``."""
    files = {"test": str(docs_file)}
    fewshot: dict[str, Any] = {}
    if fewshot_file is not None:
        files["validation"] = str(fewshot_file)
        fewshot = {"fewshot_split": "validation", "num_fewshot": num_fewshot, "fewshot_delimiter": "\n\n"}
    return {
        "task": name,
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": files},
        **fewshot,
        "test_split": "test",
        "output_type": "multiple_choice",
        "doc_to_text": "prompt",
        "doc_to_choice": "choices",
        "doc_to_target": "gold",
        "target_delimiter": " ",
        "metric_list": [{"metric": "acc"}, {"metric": "acc_norm"}],
    }


def write_docs(path: Path, items: list[Any], requests: list[tuple[Any, ...]], gold: list[int]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for item, item_requests, gold_index in zip(items, requests, gold):
            handle.write(
                json.dumps(
                    {
                        "id": item.item_id,
                        "prompt": item_requests[0].context,
                        "choices": [request.continuation[1:] for request in item_requests],
                        "gold": gold_index,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )


def lm_eval_scores(
    model: Any, task: dict[str, Any], limit: int, seed: int = 42
) -> tuple[list[list[float]], dict[str, float], float]:
    """Per-document choice log-likelihoods, lm-eval's acc/acc_norm, and the seconds the evaluation took."""
    from lm_eval import simple_evaluate

    started = time.perf_counter()
    output = simple_evaluate(
        model=model, tasks=[task], limit=limit, bootstrap_iters=0, log_samples=True, fewshot_random_seed=seed
    )
    seconds = time.perf_counter() - started
    samples = sorted(output["samples"][task["task"]], key=lambda sample: sample["doc_id"])
    scores = [[float(response[0]) for response in sample["filtered_resps"]] for sample in samples]
    metrics = output["results"][task["task"]]
    return scores, {"acc": metrics["acc,none"], "acc_norm": metrics["acc_norm,none"]}, seconds


def compare(
    name: str,
    negkit_scores: list[list[float]],
    harness_scores: list[list[float]],
    choices: list[list[str]],
    gold: list[int],
    negkit_seconds: float,
    harness_seconds: float,
    harness_metrics: dict[str, float],
) -> dict[str, Any]:
    from negkit.kit.metrics.choice import predict, predict_normalised

    def accuracy(all_scores: list[list[float]], normalised: bool) -> tuple[float, list[int]]:
        predictions = [predict_normalised(s, c) if normalised else predict(s) for s, c in zip(all_scores, choices)]
        return sum(p == g for p, g in zip(predictions, gold)) / len(gold), predictions

    row: dict[str, Any] = {"workload": name, "items": len(gold)}
    for metric, normalised in (("acc", False), ("acc_norm", True)):
        mine, mine_predictions = accuracy(negkit_scores, normalised)
        theirs, their_predictions = accuracy(harness_scores, normalised)
        row[f"negkit_{metric}"] = mine
        row[f"lm_eval_{metric}"] = harness_metrics[metric]
        row[f"{metric}_predictions_identical"] = (
            mine_predictions == their_predictions and abs(theirs - harness_metrics[metric]) < 1e-12
        )
    row["max_abs_loglik_diff"] = max(
        abs(a - b) for xs, ys in zip(negkit_scores, harness_scores) for a, b in zip(xs, ys)
    )
    row["negkit_s"] = round(negkit_seconds, 2)
    row["lm_eval_s"] = round(harness_seconds, 2)
    row["speed_ratio"] = round(harness_seconds / negkit_seconds, 2)
    return row


def run_workload(
    name: str,
    task_name: str,
    data: Path | None,
    limit: int,
    negkit_models: dict[str, Any],
    harness_model: Any,
    work: Path,
    task_options: dict[str, Any],
) -> list[dict[str, Any]]:
    """One row per negkit mode (``negkit_models``: mode -> loaded model), each against the same Harness run."""
    from negkit.commands.eval.evaluate import evaluate
    from negkit.commands.eval.options import EvalOptions
    from negkit.kit.suites import get_task

    task = get_task(task_name, **task_options)
    items = task.load(data, "test", limit, 0).items
    shots = task_options.get("num_fewshot", 0)
    # lm-eval builds few-shot contexts itself: its documents carry the zero-shot prompt of each item
    zero_shot = get_task(task_name, prompt=task_options["prompt"]) if shots else task
    plain_requests = zero_shot.requests(items)
    choices = [[request.continuation[1:] for request in item_requests] for item_requests in plain_requests]
    gold = [0 if task_name == "nubench" else (0 if item.label == "entailment" else 1) for item in items]
    docs = work / f"{name}.jsonl"
    write_docs(docs, items, plain_requests, gold)
    fewshot_docs = None
    if shots:
        fewshot_docs = work / f"{name}-validation.jsonl"
        write_docs(fewshot_docs, task.pool, zero_shot.requests(task.pool), [0] * len(task.pool))

    negkit_runs = {}
    for mode, negkit_model in negkit_models.items():
        started, started_cpu = time.perf_counter(), time.process_time()
        (result,) = evaluate(
            negkit_model,
            [task_name],
            EvalOptions(
                data=str(data) if data else None,
                limit=limit,
                out=work / f"negkit-{name}-{mode}",
                progress=False,
                mode=mode,
                task_options={task_name: task_options},
            ),
        )
        seconds, cpu = time.perf_counter() - started, time.process_time() - started_cpu
        samples = [json.loads(line) for line in Path(result["files"]["samples"]).read_text().splitlines()]
        if task_name == "nubench":
            run = task.runs[0]
            scores = [sample["runs"][run]["loglikelihoods"] for sample in samples]
        else:
            scores = [list(sample["scores"].values()) for sample in samples]
        negkit_runs[mode] = (scores, seconds, result, cpu)
    seed = task.seeds[0] if shots else 42
    harness_task = lm_eval_task(f"negkit_bench_{name}", docs, fewshot_docs, shots)
    started_cpu = time.process_time()
    harness_scores, harness_metrics, harness_seconds = lm_eval_scores(harness_model, harness_task, len(items), seed)
    harness_cpu = time.process_time() - started_cpu
    rows = []
    for mode, (scores, seconds, result, cpu) in negkit_runs.items():
        row = compare(name, scores, harness_scores, choices, gold, seconds, harness_seconds, harness_metrics)
        load = result["model"].get("load", {})
        row.update(
            negkit_cpu_s=round(cpu, 2), lm_eval_cpu_s=round(harness_cpu, 2), speed_ratio_cpu=round(harness_cpu / cpu, 2)
        )
        row.update(
            mode=mode,
            dtype=load.get("dtype"),
            score_s=result.get("timings", {}).get("score_s"),
            prefix_tree=result.get("engine", {}).get("prefix_tree"),
        )
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model", help="a transformers model folder (default: negkit's converted SmolLM2-135M-Instruct)"
    )
    parser.add_argument("--items", type=int, default=200, help="size of the scaled multiple-choice fixture")
    parser.add_argument("--limit", type=int, default=200, help="multiple-choice items actually scored")
    parser.add_argument("--scone-rows", type=int, default=200, help="ScoNe test rows per condition (200 = all)")
    parser.add_argument(
        "--fewshot-items",
        type=int,
        default=0,
        help="also compare 5-shot (seed 42) on this many fixture items (0: skip)",
    )
    parser.add_argument(
        "--only",
        choices=("nubench", "nubench-5shot", "scone"),
        action="append",
        help="run only these workloads (repeatable; default: all that are enabled)",
    )
    parser.add_argument(
        "--modes",
        default="exact,fast",
        help="negkit modes to compare (exact: float32; fast: the "
        "dtype fast mode's calibration chooses on this machine)",
    )
    parser.add_argument("--lm-eval-batch-size", type=int, default=32, help="the Harness's batch size (its usual 32)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()

    import torch
    from lm_eval.models.huggingface import HFLM

    from negkit.models.fast_dtype import cpu_description
    from negkit.models.registry import load_model

    torch.set_num_threads(args.threads)
    if args.model is None:
        from negkit.models.gguf import converted_folder, default_model_file

        args.model = str(converted_folder(default_model_file()))
    dtypes = {"exact": "float32", "fast": "auto"}
    negkit_models = {
        mode: load_model(f"hf:{args.model}", dtype=dtypes[mode], device="cpu") for mode in args.modes.split(",")
    }
    harness_model = HFLM(pretrained=args.model, dtype="float32", device="cpu", batch_size=args.lm_eval_batch_size)
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    rows = []
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        wanted = set(args.only or ("nubench", "nubench-5shot", "scone"))
        if "nubench" in wanted:
            write_scaled_fixture(work / "nubench", args.items)
            rows += run_workload(
                "nubench",
                "nubench",
                work / "nubench",
                min(args.limit, args.items),
                negkit_models,
                harness_model,
                work,
                {"prompt": "7"},
            )
            print(*map(json.dumps, rows), sep="\n", flush=True)
        if "nubench-5shot" in wanted and args.fewshot_items:
            rows += run_workload(
                "nubench-5shot",
                "nubench",
                FIXTURE,
                args.fewshot_items,
                negkit_models,
                harness_model,
                work,
                {"prompt": "7", "num_fewshot": 5, "seeds": (42,)},
            )
        if "scone" in wanted:
            rows += run_workload("scone", "scone", None, 6 * args.scone_rows, negkit_models, harness_model, work, {})
            print(json.dumps(rows[-2:] if len(negkit_models) == 2 else rows[-1:]), flush=True)
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    print(
        f"model: {args.model}; CPU: {cpu_description()['cpu']}; torch threads: {args.threads}; lm-eval batch size: "
        f"{args.lm_eval_batch_size}; load average before {' '.join(load_before)}, after {' '.join(load_after)}"
    )
    for mode, model in negkit_models.items():
        print(f"negkit {mode}: dtype {model.load_info.get('dtype')}; fast_dtype {model.load_info.get('fast_dtype')}")
    for row in rows:
        print(json.dumps(row))
    print(
        "| workload | items | mode (dtype) | negkit acc / acc_norm | lm-eval acc / acc_norm | predictions identical "
        "(acc, acc_norm) | max abs. log-lik. diff | negkit s | lm-eval s | speed ratio | CPU s negkit / lm-eval | "
        "ratio (CPU) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['workload']} | {row['items']} | {row['mode']} ({row['dtype']}) | {row['negkit_acc']:.3f} / "
            f"{row['negkit_acc_norm']:.3f} | {row['lm_eval_acc']:.3f} / {row['lm_eval_acc_norm']:.3f} | "
            f"{row['acc_predictions_identical']}, {row['acc_norm_predictions_identical']} | "
            f"{row['max_abs_loglik_diff']:.1e} | {row['negkit_s']} | {row['lm_eval_s']} | {row['speed_ratio']}x | "
            f"{row['negkit_cpu_s']} / {row['lm_eval_cpu_s']} | {row['speed_ratio_cpu']}x |"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
