"""Thunder-NUBench's results tables from run folders (``negkit nubench results``): Table 5 (prompt 7, zero-shot and
k-shot), Table 15 (the same beside the model after SFT) and the error analysis of Tables 6 / 17, one row per model.

Each run folder holds a ``negkit eval --tasks nubench`` run (``nubench.results.json``, prompt 7, zero-shot or
k-shot over seeds) and/or a Table 14 sweep (``nubench-fewshot.results.json``, whose prompt-7 runs are Table 5's
figures: the paper's Table 14 prompt-7 values are its Table 5 test numbers). A folder's setting is read from its
results: a model evaluated with ``--adapter`` (its fingerprint carries the adapter) is *after SFT*, and so is every
folder given with ``--sft`` (a merged model, say); only the zero-shot run of an SFT model is used, as in the paper.
Otherwise a run is zero-shot or k-shot by its ``num_fewshot``. Rows are models by name in the order first met;
``NAME=RUN_DIR`` names a folder's model (to put a merged SFT model in its base model's row).

Values (``../shared/specs/benchmarks.md`` §2): acc and acc_norm as fractions of items (k-shot: mean ± sample SD
over the seeds); error rate = 1 - acc; among wrong answers the percentage that picked choice2, choice3, choice4;
the confusion rate of each local-negation type (its items predicted as choice2, over its items). A k-shot row of
the error analysis pools the seeds' answers: error rate and confusion rates are the means over the seeds (the same
items in each), the shares of errors are weighted by each seed's number of errors.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.benchmarks.nubench.metrics import LOCAL_NEGATION_TYPES
from negkit.benchmarks.nubench.sweep_tasks import FEWSHOT_TASK
from negkit.errors import InputFormatError, NegkitError
from negkit.io.atomic import atomic_write_json, atomic_write_text
from negkit.kit.metrics.choice import mean_and_sd
from negkit.kit.metrics.negation_choice import WRONG_CHOICES
from negkit.kit.render.markdown import markdown_table, number
from negkit.kit.runs import read_task_results

NUBENCH_TASK = "nubench"
#: The paper's main prompt, the prompt of Tables 5, 6, 15 and 17.
MAIN_PROMPT = "7"
#: The split of those tables in the paper.
PAPER_SPLIT = "test"
SETTINGS: tuple[str, ...] = ("zero-shot", "few-shot", "sft")
SETTING_TITLES = {"zero-shot": "zero-shot", "few-shot": "k-shot", "sft": "after SFT (zero-shot)"}
RESULTS_FILE = "nubench-results.json"
METRICS = ("acc", "acc_norm")


@dataclass
class ResultsEntry:
    """One model in one setting: the prompt-7 runs of a folder (one run, or one per few-shot seed)."""

    model: str
    setting: str
    folder: Path
    split: str | None
    count: int | None
    runs: list[dict[str, Any]]
    num_fewshot: int = 0
    seeds: tuple[int, ...] = ()


def _has_adapter(results: Mapping[str, Any]) -> bool:
    model = results.get("model", {})
    return "adapter_sha256" in (model.get("extra") or {}) or bool((model.get("load") or {}).get("adapter"))


def read_results_entries(folder: str | Path, name: str | None = None, sft: bool = False) -> list[ResultsEntry]:
    """The prompt-7 entries of a run folder (see the module documentation); ``name`` replaces the model's name."""
    folder = Path(folder)
    entries: list[ResultsEntry] = []
    found = False
    for task in (NUBENCH_TASK, FEWSHOT_TASK):
        path = folder / f"{task}.results.json"
        if not path.is_file():
            continue
        found = True
        results = read_task_results(path).as_json()
        metrics = results.get("metrics", {})
        runs = metrics.get("runs")
        if not isinstance(runs, dict):
            raise InputFormatError(path, None, "no 'metrics.runs' table (not a Thunder-NUBench run's results)")
        label = name or str(results.get("model", {}).get("name") or folder.name)
        after_sft = sft or _has_adapter(results)
        data = results.get("data", {})
        shots = int(metrics.get("num_fewshot") or 0)
        seeds = tuple(metrics.get("seeds") or ())
        if task == NUBENCH_TASK:
            prompt = str(metrics.get("prompt_id") or results.get("task", {}).get("prompt_id") or MAIN_PROMPT)
            if prompt != MAIN_PROMPT:
                raise NegkitError(f"{path}: prompt {prompt}; Tables 5, 6, 15 and 17 are prompt {MAIN_PROMPT}'s")
            parts = [(shots, list(runs.values()))]
        else:
            zero = runs.get(f"{MAIN_PROMPT}/zero-shot")
            if zero is None:
                raise InputFormatError(path, None, f"no run '{MAIN_PROMPT}/zero-shot' (prompt 7 is not in this sweep)")
            seeded = [runs[f"{MAIN_PROMPT}/seed-{seed}"] for seed in seeds if f"{MAIN_PROMPT}/seed-{seed}" in runs]
            parts = [(0, [zero]), (shots, seeded)]
        for part_shots, part_runs in parts:
            if after_sft and part_shots:
                continue  # the paper evaluates the SFT model zero-shot
            setting = "sft" if after_sft else ("few-shot" if part_shots else "zero-shot")
            entries.append(
                ResultsEntry(
                    label,
                    setting,
                    folder,
                    data.get("split"),
                    data.get("count"),
                    part_runs,
                    part_shots,
                    seeds if part_shots else (),
                )
            )
    if not found:
        raise NegkitError(
            f"{folder}: neither {NUBENCH_TASK}.results.json nor {FEWSHOT_TASK}.results.json "
            "(run `negkit eval --tasks nubench` or `negkit nubench sweep --tables fewshot` into it first)"
        )
    return entries


def pooled_error_analysis(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The error analysis of several runs over the same items (one per seed) taken together: mean error rate and
    confusion rates, shares of errors weighted by each run's errors (see the module documentation)."""
    analyses = [run["error_analysis"] for run in runs]
    errors = sum(int(analysis["errors"]) for analysis in analyses)
    share = {
        choice: (
            sum(analysis["errors"] * analysis["error_share_percent"][choice] for analysis in analyses) / errors
            if errors
            else 0.0
        )
        for choice in WRONG_CHOICES
    }
    confusion = {}
    for kind in LOCAL_NEGATION_TYPES:
        values = [analysis["confusion_rate"].get(kind) for analysis in analyses]
        if values and None not in values:
            confusion[kind] = sum(values) / len(values)
    rate = sum(analysis["error_rate"] for analysis in analyses) / len(analyses)
    return {"error_rate": rate, "errors": errors, "error_share_percent": share, "confusion_rate": confusion}


def _summary(entry: ResultsEntry) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for metric in METRICS:
        values: list[Any] = [run.get(metric) for run in entry.runs]
        if not values or None in values:
            summary[metric] = {"mean": None, "sd": None}
        elif len(values) == 1:
            summary[metric] = {"mean": values[0], "sd": None}
        else:
            mean, sd = mean_and_sd(values)
            summary[metric] = {"mean": mean, "sd": sd}
    return summary


def results_tables_data(entries: Sequence[ResultsEntry]) -> dict[str, Any]:
    """Tables 5, 15 and 6 / 17 as data: per model and setting its folder, accuracy summary and error analysis."""
    if not entries:
        raise NegkitError("no Thunder-NUBench runs given")
    splits = {entry.split for entry in entries}
    if len(splits) > 1:
        listing = ", ".join(f"{entry.folder}: {entry.split}" for entry in entries)
        raise NegkitError(f"the runs are on different splits ({listing}): combine runs of one split")
    models: dict[str, dict[str, Any]] = {}
    for entry in entries:
        row = models.setdefault(entry.model, {})
        if entry.setting in row:
            raise NegkitError(
                f"{entry.model} has two {SETTING_TITLES[entry.setting]} runs ({row[entry.setting]['run']} and "
                f"{entry.folder}); give one, or name them apart with NAME=RUN_DIR"
            )
        row[entry.setting] = {
            "run": str(entry.folder),
            "items": entry.count,
            "num_fewshot": entry.num_fewshot,
            "seeds": list(entry.seeds),
            "summary": _summary(entry),
            "error_analysis": pooled_error_analysis(entry.runs),
        }
    few = [row["few-shot"] for row in models.values() if "few-shot" in row]
    alike = len({(entry["num_fewshot"], tuple(entry["seeds"])) for entry in few}) <= 1
    return {
        "prompt": MAIN_PROMPT,
        "split": next(iter(splits)),
        "models": models,
        "num_fewshot": few[0]["num_fewshot"] if few and alike else None,
        "seeds": few[0]["seeds"] if few and alike else None,
    }


def _bold_column(values: Sequence[float | None]) -> list[str]:
    best = max((round(value, 3) for value in values if value is not None), default=None)
    return [f"**{number(v)}**" if v is not None and round(v, 3) == best else number(v) for v in values]


def _accuracy_table(models: Mapping[str, Mapping[str, Any]], settings: Sequence[str], shots: str) -> str:
    names = list(models)
    headers, columns, sds = ["model"], [], []
    for setting in settings:
        label = {"zero-shot": "zero-shot", "few-shot": f"{shots}-shot", "sft": "SFT"}[setting]
        for metric in METRICS:
            cells = [models[name].get(setting, {}).get("summary", {}).get(metric, {}) for name in names]
            columns.append(_bold_column([cell.get("mean") for cell in cells]))
            sds.append([cell.get("sd") for cell in cells])
            headers.append(f"{label} {metric}" + (" (mean ± SD)" if setting == "few-shot" else ""))
    rows = []
    for index, name in enumerate(names):
        cells = [
            column[index] + (f" ± {number(sd[index])}" if sd[index] is not None else "")
            for column, sd in zip(columns, sds)
        ]
        rows.append([name, *cells])
    return markdown_table(headers, rows)


def _error_table(models: Mapping[str, Mapping[str, Any]], setting: str) -> str:
    rows = []
    for name, row in models.items():
        if setting not in row:
            continue
        analysis = row[setting]["error_analysis"]
        rows.append(
            [name, number(analysis["error_rate"])]
            + [number(analysis["error_share_percent"][choice], 1) for choice in WRONG_CHOICES]
            + [number(analysis["confusion_rate"].get(kind)) for kind in LOCAL_NEGATION_TYPES]
        )
    headers = ["model", "error rate", *(f"% errors {c}" for c in WRONG_CHOICES)]
    return markdown_table(headers + [f"confusion {kind}" for kind in LOCAL_NEGATION_TYPES], rows)


def results_tables_markdown(data: Mapping[str, Any]) -> str:
    """``report.md`` of ``negkit nubench results`` from :func:`results_tables_data`."""
    models = data["models"]
    split = str(data["split"])
    where = f"{split} split" + ("" if split == PAPER_SPLIT else f" (the paper: {PAPER_SPLIT})")
    shots = str(data["num_fewshot"]) if data["num_fewshot"] is not None else "k"
    runs = "; ".join(
        f"`{name}` {SETTING_TITLES[setting]}: {entry['run']} ({entry['items']} items"
        + (f", {entry['num_fewshot']}-shot, seeds {', '.join(map(str, entry['seeds']))}" if entry["seeds"] else "")
        + ")"
        for name, row in models.items()
        for setting, entry in row.items()
    )
    parts = [
        "# Thunder-NUBench results (paper Tables 5, 15, 6 / 17)",
        f"Prompt {data['prompt']}, {where}. Runs: {runs}. Accuracies are fractions of items (0-1), k-shot as mean "
        "± sample SD over the seeds; the best value of each column is in **bold**.",
    ]
    plain = {name: row for name, row in models.items() if "zero-shot" in row or "few-shot" in row}
    if plain:
        present = [s for s in ("zero-shot", "few-shot") if any(s in row for row in plain.values())]
        parts.append(f"## Table 5: zero-shot and {shots}-shot — {where}\n\n{_accuracy_table(plain, present, shots)}")
    tuned = {name: row for name, row in models.items() if "sft" in row}
    if tuned:
        present = [s for s in SETTINGS if any(s in row for row in tuned.values())]
        parts.append(
            f"## Table 15: before and after SFT — {where}\n\n{_accuracy_table(tuned, present, shots)}\n\n"
            "SFT: the fine-tuned model, zero-shot."
        )
    for setting in SETTINGS:
        if any(setting in row for row in models.values()):
            note = " (the seeds' answers pooled)" if setting == "few-shot" else ""
            title = SETTING_TITLES[setting].replace("k-shot", f"{shots}-shot")
            parts.append(
                f"## Tables 6 / 17: error analysis — {title}{note}, {where}\n\n{_error_table(models, setting)}"
            )
    parts.append(
        "Error analysis: error rate = 1 - acc; % errors: the share of the wrong answers that picked each choice; "
        "confusion: the share of a local-negation type's items answered with choice2."
    )
    return "\n\n".join(parts) + "\n"


def parse_run_argument(text: str) -> tuple[str | None, str]:
    """``RUN_DIR`` or ``NAME=RUN_DIR`` (a folder that exists as written is never split at ``=``)."""
    if "=" in text and not Path(text).exists():
        name, folder = text.split("=", 1)
        if name.strip() and folder:
            return name.strip(), folder
    return None, text


def results_tables(runs: Sequence[str], out: str | Path, sft: Sequence[str] = ()) -> dict[str, str]:
    """``negkit nubench results``: the folders ``runs`` (and ``sft``, runs after SFT), each ``RUN_DIR`` or
    ``NAME=RUN_DIR``, combined into ``OUT/report.md``, ``OUT/report.html`` and ``OUT/nubench-results.json``."""
    from negkit.kit.render.html import markdown_to_html, page

    entries: list[ResultsEntry] = []
    for arguments, after_sft in ((runs, False), (sft, True)):
        for argument in arguments:
            name, folder = parse_run_argument(argument)
            entries += read_results_entries(folder, name, after_sft)
    data = results_tables_data(entries)
    markdown = results_tables_markdown(data)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = {"report": out / "report.md", "html": out / "report.html", "tables": out / RESULTS_FILE}
    atomic_write_text(files["report"], markdown)
    atomic_write_text(files["html"], page("Thunder-NUBench results", [markdown_to_html(markdown)]))
    atomic_write_json(files["tables"], json.loads(json.dumps(data)))
    return {kind: str(path) for kind, path in files.items()}
