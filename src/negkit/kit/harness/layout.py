"""negkit's results in the LM Evaluation Harness's layout, so that tools that read Harness results read negkit's.

``results.json`` of a ``negkit eval`` run carries the Harness's top-level keys (``results``, ``configs``,
``versions``, ``n-shot``, ``higher_is_better``, ``n-samples``, ``config``, ``git_hash``, ``date``, ...) beside
negkit's own (``record``: the reproduction record; ``tasks``: each task's full results). The Harness's metric
of a task is ``acc`` (and ``acc_norm`` for multiple choice by log-likelihood): the mean of a per-item score,
with the standard error of that mean (sample standard deviation over the square root of the count), under the
keys ``acc,none`` and ``acc_stderr,none``. The papers' own metrics stay in ``tasks[i]["metrics"]``.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from negkit import __version__

#: The version of the layout of negkit's run files (results.json, TASK.results.json, TASK.samples.jsonl): what
#: changed between versions is in docs/reproducibility.md ("Run file layouts"). Files without the key are version 1.
LAYOUT_VERSION = 5
#: The Harness's filter name for unfiltered responses, used in its metric keys.
FILTER = "none"


def item_scores(records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
    """Per-item ``acc`` (and ``acc_norm``) from per-sample records: 1.0 when the prediction equals the gold
    answer (``gold``, else ``label``); an item asked in several runs (few-shot seeds) scores its mean over them."""
    scores: dict[str, list[float]] = {"acc": [], "acc_norm": []}
    for record in records:
        runs = record.get("runs")
        if isinstance(runs, dict) and runs:
            gold = record.get("gold")
            scores["acc"].append(statistics.fmean(float(run["prediction"] == gold) for run in runs.values()))
            if all(run.get("prediction_norm") is not None for run in runs.values()):
                scores["acc_norm"].append(
                    statistics.fmean(float(run["prediction_norm"] == gold) for run in runs.values())
                )
        elif "prediction" in record:
            gold = record["gold"] if "gold" in record else record.get("label")
            scores["acc"].append(float(record["prediction"] == gold))
    if len(scores["acc_norm"]) != len(scores["acc"]):
        del scores["acc_norm"]
    return {name: values for name, values in scores.items() if values}


def mean_stderr(values: Sequence[float]) -> float | None:
    """The standard error of the mean, as the Harness computes it (None for fewer than two values)."""
    if len(values) < 2:
        return None
    return statistics.stdev(values) / math.sqrt(len(values))


def harness_metrics(scores: Mapping[str, Sequence[float]]) -> dict[str, Any]:
    """``{"acc,none": mean, "acc_stderr,none": se, ...}`` from per-item scores by metric (``acc``, ``acc_norm``)."""
    metrics: dict[str, Any] = {}
    for name, values in scores.items():
        metrics[f"{name},{FILTER}"] = statistics.fmean(values)
        stderr = mean_stderr(values)
        metrics[f"{name}_stderr,{FILTER}"] = stderr if stderr is not None else "N/A"
    return metrics


def _sha(text: str | None) -> str | None:
    return hashlib.sha256(text.encode("utf-8")).hexdigest() if text else None


def harness_layout(
    results: Sequence[dict[str, Any]],
    record: dict[str, Any] | None,
    seconds: float | None = None,
    skipped: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The combined ``results.json``: the Harness's top-level keys, then negkit's ``record``, ``tasks`` and
    ``skipped`` (suites left out because their data was not found)."""
    record = record or {}
    tasks = [result.get("task", {}).get("task", "?") for result in results]
    layout: dict[str, Any] = {
        "results": {},
        "group_subtasks": {},
        "configs": {},
        "versions": {},
        "n-shot": {},
        "higher_is_better": {},
        "n-samples": {},
    }
    chat_templates, system_instructions = set(), set()
    for name, result in zip(tasks, results):
        metrics = result.get("harness", {})
        layout["results"][name] = {
            "name": name,
            "alias": name,
            "sample_len": result.get("data", {}).get("count"),
            **metrics,
        }
        layout["group_subtasks"][name] = []
        config = result.get("task", {})
        prompt = result.get("prompt", {})
        shots = config.get("num_fewshot") or len(config.get("fewshot_examples") or [])
        data = result.get("data", {})
        layout["configs"][name] = {
            "task": name,
            "output_type": "multiple_choice" if config.get("model_kind") != "classifier" else "classification",
            "test_split": data.get("split"),
            "doc_to_text": prompt.get("template"),
            "target_delimiter": config.get("target_delimiter", ""),
            "fewshot_delimiter": config.get("fewshot_delimiter", "\n\n"),
            "num_fewshot": shots,
            "metric_list": [
                {"metric": key.split(",")[0], "aggregation": "mean", "higher_is_better": True}
                for key in metrics
                if "_stderr" not in key
            ],
            "metadata": {"version": result.get("negkit_version"), "negkit_task": config},
        }
        layout["versions"][name] = result.get("negkit_version")
        layout["n-shot"][name] = shots
        layout["higher_is_better"][name] = {key.split(",")[0]: True for key in metrics if "_stderr" not in key}
        layout["n-samples"][name] = {
            "original": data.get("items_in_split", data.get("count")),
            "effective": data.get("count"),
        }
        if prompt.get("chat_template_applied"):
            chat_templates.add(prompt.get("chat_template_sha256"))
        if prompt.get("system_instruction"):
            system_instructions.add(prompt["system_instruction"])
    model = results[0].get("model", {}) if results else {}
    options = record.get("options", {})
    loaded = record.get("model", {})
    environment = record.get("environment", {})
    packages = environment.get("packages", {})
    system_instruction = next(iter(system_instructions)) if len(system_instructions) == 1 else None
    layout["config"] = {
        "model": record.get("model_spec", model.get("name")),
        "model_args": options.get("model_args") or None,
        "model_dtype": loaded.get("dtype", model.get("dtype")),
        "model_revision": model.get("revision"),
        "model_sha": model.get("sha256"),
        "batch_size": str(loaded.get("batch_size", "auto")),
        "batch_sizes": sorted(set((loaded.get("batching") or {}).get("sizes_used", {}).values())),
        "device": loaded.get("device"),
        "use_cache": None,
        "limit": options.get("limit"),
        "bootstrap_iters": 0,
        "gen_kwargs": None,
        "random_seed": 0 if options.get("seed") is None else options["seed"],  # the seed in effect
        "numpy_seed": None,
        "torch_seed": None,
        "fewshot_seed": options.get("seed"),
    }
    layout.update(
        {
            "git_hash": environment.get("negkit", {}).get("commit"),
            "date": record.get("unix_time"),
            "transformers_version": packages.get("transformers"),
            "negkit_version": environment.get("negkit", {}).get("version"),
            "negkit_layout": LAYOUT_VERSION,
            "model_source": model.get("backend"),
            "model_name": record.get("model_spec", model.get("name")),
            "model_name_sanitized": re.sub(r"[^A-Za-z0-9._-]+", "__", str(record.get("model_spec", model.get("name")))),
            "system_instruction": system_instruction,
            "system_instruction_sha": _sha(system_instruction),
            "fewshot_as_multiturn": False,
            "chat_template": record.get("chat_template") if chat_templates else None,
            "chat_template_sha": next(iter(chat_templates)) if len(chat_templates) == 1 else None,
            "total_evaluation_time_seconds": None if seconds is None else str(round(seconds, 3)),
            "record": record,
            "tasks": [{key: value for key, value in result.items() if key != "record"} for result in results],
            "skipped": dict(skipped or {}),
        }
    )
    return layout


def harness_task_name(name: str) -> str:
    """The Harness task a negkit task is exported as: ``negkit_`` and its name, every character that is not a
    letter or digit an underscore (``neqa-full`` -> ``negkit_neqa_full``)."""
    return "negkit_" + "".join(c if c.isalnum() else "_" for c in name)


def harness_loader(task: str) -> str:
    """The name of the ``utils.py`` function that loads an exported task's documents (``negkit_neqa`` ->
    ``load_neqa``)."""
    return "load_" + task.removeprefix("negkit_")


def harness_task_yaml(
    name: str,
    loader: str,
    text: str,
    choices: str,
    target: str,
    delimiter: str,
    comment: str,
    extra: str = "",
    metrics: str = "",
) -> str:
    """A multiple-choice task file of the LM Evaluation Harness (``negkit export lm-eval``): documents from
    ``utils.LOADER``, the prompt field ``text``, the choices and the gold index, scored by accuracy (``metrics``:
    more entries of its ``metric_list``, e.g. ``acc_norm``)."""
    return (
        f"# {comment}\n# Written by negkit {__version__} (negkit export lm-eval); see README.md in this folder.\n"
        f"task: {name}\ncustom_dataset: !function utils.{loader}\ntest_split: test\n{extra}"
        f"output_type: multiple_choice\ndoc_to_text: {text}\ndoc_to_choice: {choices}\ndoc_to_target: {target}\n"
        f"target_delimiter: {json.dumps(delimiter)}\n"
        "metric_list:\n  - metric: acc\n    aggregation: mean\n    higher_is_better: true\n"
        f"{metrics}metadata:\n  version: 1.0\n  negkit_version: {json.dumps(__version__)}\n"
    )
