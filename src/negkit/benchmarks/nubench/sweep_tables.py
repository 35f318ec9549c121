"""Thunder-NUBench prompt-sweep tables: one run's (``nubench-prompts`` / ``nubench-fewshot`` tasks) and several
models' runs combined in the layout of the paper's Tables 11-14 (``negkit nubench tables``).

Layout (``../shared/specs/benchmarks.md`` §2): Tables 11 and 12, one per group of models (the paper: 3-4B and
7-8B models), have a row per prompt 1-12 with its type, an acc / acc_norm column pair per model and an Average
pair over the group's models; Table 13 has a row per wording variant of prompt 7 (7, 7-1 ... 7-5) and an
acc / acc_norm pair per group (the group's average); Table 14 has, per model, the prompts 1, 7 and 11, zero-shot
and k-shot (mean ± sample SD over the seeds). Every value is a fraction of items (0-1, three decimals, as the
paper prints them); the best value of each column is in bold (Table 14: the best prompt per model and column).
Tables 11-13 are on the validation split and Table 14 on the test split, as in the paper (:data:`PAPER_SPLITS`):
each table names its split, and says so when it differs from the paper's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.benchmarks.nubench.sweep_tasks import (
    FEWSHOT_TASK,
    PROMPT_TYPES,
    PROMPTS_TASK,
    TABLE_PROMPTS,
    VARIANT_PROMPTS,
    ZERO_SHOT,
    run_name,
)
from negkit.errors import InputFormatError, NegkitError
from negkit.io.atomic import atomic_write_json, atomic_write_text
from negkit.kit.render.markdown import interval_note, markdown_table, number, with_interval
from negkit.kit.runs import read_task_results

METRICS = ("acc", "acc_norm")
TABLES_FILE = "nubench-tables.json"
UNITS = "Values are fractions of items (0-1); the best value of each column is in **bold**."
#: The split of the paper's tables: Tables 11-13 (the prompts task) validation, Table 14 (few-shot) test.
PAPER_SPLITS: dict[str, str] = {PROMPTS_TASK: "validation", FEWSHOT_TASK: "test"}


# -- one run ------------------------------------------------------------------------------------------------
def sweep_run_tables(metrics: Mapping[str, Any]) -> str:
    """Markdown for one model's sweep (the ``tables`` of the sweep tasks): per prompt zero-shot acc / acc_norm
    with 95% intervals, and k-shot mean ± SD when the sweep has seeds."""
    intervals = metrics.get("intervals")
    prompts = metrics["prompts"]
    shots = metrics.get("num_fewshot", 0)
    rows = []
    for prompt, entry in prompts.items():
        zero = [
            with_interval(entry[ZERO_SHOT][m], intervals, f"runs.{run_name(prompt, ZERO_SHOT)}.{m}") for m in METRICS
        ]
        few = [_mean_sd(entry["few-shot"][m]) for m in METRICS] if "few-shot" in entry else []
        rows.append([prompt, entry["type"], *zero, *few])
    headers = ["prompt", "type", "zero-shot acc", "zero-shot acc_norm"]
    if shots:
        headers += [f"{shots}-shot acc (mean ± SD)", f"{shots}-shot acc_norm (mean ± SD)"]
    seeds = f", {shots}-shot over seeds {', '.join(map(str, metrics.get('seeds', [])))}" if shots else ""
    title = f"### Thunder-NUBench prompt sweep — {len(prompts)} prompts{seeds}, {metrics['count']} items"
    note = interval_note(intervals)
    text = f"{title}\n\n{markdown_table(headers, rows)}\n\nValues are fractions of items (0-1).\n"
    return text + (f"\n{note}\n" if note else "")


def _mean_sd(entry: Mapping[str, Any]) -> str:
    if entry.get("mean") is None:
        return "–"
    return f"{number(entry['mean'])} ± {number(entry['sd'])}"


# -- several runs -------------------------------------------------------------------------------------------
@dataclass
class SweepRun:
    """One model's sweep: its name, run folder, group, the metrics of its sweep tasks (None: not run), and each
    task's split and item count (``split`` / ``count``: Tables 11-13's; ``fewshot_split`` / ``fewshot_count``:
    Table 14's)."""

    name: str
    folder: Path
    group: str
    prompts: dict[str, Any] | None
    fewshot: dict[str, Any] | None
    split: str | None
    count: int | None
    fewshot_split: str | None = None
    fewshot_count: int | None = None


def read_sweep_run(folder: str | Path, group: str = "all models") -> SweepRun:
    """The ``nubench-prompts`` and ``nubench-fewshot`` results of a ``negkit eval`` / ``negkit nubench sweep``
    output folder (at least one of the two must be there)."""
    folder = Path(folder)
    found: dict[str, dict[str, Any]] = {}
    for task in (PROMPTS_TASK, FEWSHOT_TASK):
        path = folder / f"{task}.results.json"
        if path.is_file():
            results = read_task_results(path).as_json()
            if not isinstance(results.get("metrics", {}).get("prompts"), dict):
                raise InputFormatError(path, None, "no 'metrics.prompts' table (not a prompt sweep's results)")
            found[task] = results
    if not found:
        raise NegkitError(
            f"{folder}: neither {PROMPTS_TASK}.results.json nor {FEWSHOT_TASK}.results.json "
            "(run `negkit nubench sweep` into it first)"
        )
    model = next(iter(found.values())).get("model", {})
    data = {task: results.get("data", {}) for task, results in found.items()}
    return SweepRun(
        str(model.get("name") or folder.name),
        folder,
        group,
        found.get(PROMPTS_TASK, {}).get("metrics"),
        found.get(FEWSHOT_TASK, {}).get("metrics"),
        data.get(PROMPTS_TASK, {}).get("split"),
        data.get(PROMPTS_TASK, {}).get("count"),
        data.get(FEWSHOT_TASK, {}).get("split"),
        data.get(FEWSHOT_TASK, {}).get("count"),
    )


def _value(run: SweepRun, prompt: str, metric: str) -> float | None:
    table = (run.prompts or {}).get("prompts", {})
    entry = table.get(prompt) or (run.fewshot or {}).get("prompts", {}).get(prompt)
    return entry[ZERO_SHOT][metric] if entry else None


def _average(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present and len(present) == len(values) else None


def _bold_best(columns: list[list[float | None]]) -> list[list[str]]:
    """Each column's values as text, the column's largest (all of them, when tied) in bold."""
    out = []
    for column in columns:
        best = max((round(value, 3) for value in column if value is not None), default=None)
        out.append(
            [
                f"**{number(value)}**" if value is not None and round(value, 3) == best else number(value)
                for value in column
            ]
        )
    return out


def _rows_from_columns(labels: list[list[str]], columns: list[list[float | None]]) -> list[list[str]]:
    texts = _bold_best(columns)
    return [label + [column[index] for column in texts] for index, label in enumerate(labels)]


def sweep_tables_data(runs: Sequence[SweepRun]) -> dict[str, Any]:
    """Tables 11-14 as data: per group the prompt table (per model and average), the wording-variant table
    (group averages) and Table 14's rows (per model and prompt)."""
    groups: dict[str, list[SweepRun]] = {}
    for run in runs:
        groups.setdefault(run.group, []).append(run)
    prompt_tables = {}
    for group, members in groups.items():
        rows = {}
        for prompt in TABLE_PROMPTS:
            values = {run.name: {m: _value(run, prompt, m) for m in METRICS} for run in members if run.prompts}
            average = {m: _average([v[m] for v in values.values()]) for m in METRICS}
            rows[prompt] = {"type": PROMPT_TYPES[prompt], "models": values, "average": average}
        prompt_tables[group] = rows
    variants = {
        prompt: {
            group: {m: _average([_value(run, prompt, m) for run in members if run.prompts]) for m in METRICS}
            for group, members in groups.items()
        }
        for prompt in VARIANT_PROMPTS
    }
    fewshot = {run.name: run.fewshot["prompts"] for run in runs if run.fewshot}
    settings = {
        run.name: {"num_fewshot": run.fewshot.get("num_fewshot"), "seeds": run.fewshot.get("seeds")}
        for run in runs
        if run.fewshot
    }
    return {
        "models": [
            {
                "name": run.name,
                "run": str(run.folder),
                "group": run.group,
                "split": run.split,
                "items": run.count,
                "fewshot_split": run.fewshot_split,
                "fewshot_items": run.fewshot_count,
            }
            for run in runs
        ],
        "splits": table_splits(runs),
        "prompt_tables": prompt_tables,
        "variant_table": variants,
        "fewshot_table": fewshot,
        "fewshot_settings": settings,
        "num_fewshot": next((run.fewshot.get("num_fewshot") for run in runs if run.fewshot), None),
        "seeds": next((run.fewshot.get("seeds") for run in runs if run.fewshot), None),
    }


def sweep_tables_markdown(data: Mapping[str, Any]) -> str:
    """``report.md`` of ``negkit nubench tables`` from :func:`sweep_tables_data`."""
    models = data["models"]
    splits = data.get("splits") or {}
    parts = [
        "# Thunder-NUBench prompt sweep (paper Tables 11-14)",
        "Models: " + "; ".join(f"`{m['name']}` ({m['group']}, {m['run']}, {_items(m)})" for m in models) + f". {UNITS}",
    ]
    groups = list(data["prompt_tables"])
    with_prompts = [
        m
        for m in models
        if any(m["name"] in row["models"] for table in data["prompt_tables"].values() for row in table.values())
    ]
    for number_, group in enumerate(groups):
        table = data["prompt_tables"][group]
        names = [m["name"] for m in with_prompts if m["group"] == group]
        if not names:
            continue
        label = f"Table {11 + number_}" if number_ < 2 else f"Table 11-12 ({group})"
        columns = [[table[p]["models"][name][m] for p in TABLE_PROMPTS] for name in names for m in METRICS]
        columns += [[table[p]["average"][m] for p in TABLE_PROMPTS] for m in METRICS]
        headers = (
            ["prompt", "type"] + [f"{name} {m}" for name in names for m in METRICS] + [f"Average {m}" for m in METRICS]
        )
        rows = _rows_from_columns([[p, table[p]["type"]] for p in TABLE_PROMPTS], columns)
        title = f"## {label}: prompts 1-12, zero-shot — {group}, {split_label(splits, PROMPTS_TASK)}"
        parts.append(f"{title}\n\n{markdown_table(headers, rows)}")
    if with_prompts:
        variant = data["variant_table"]
        columns = [[variant[p][group][m] for p in VARIANT_PROMPTS] for group in groups for m in METRICS]
        headers = ["prompt"] + [f"{group} average {m}" for group in groups for m in METRICS]
        rows = _rows_from_columns([[p] for p in VARIANT_PROMPTS], columns)
        title = f"## Table 13: wording variants of prompt 7, zero-shot — {split_label(splits, PROMPTS_TASK)}"
        parts.append(f"{title}\n\n{markdown_table(headers, rows)}")
    if data["fewshot_table"]:
        parts.append(_fewshot_markdown(data))
    return "\n\n".join(parts) + "\n"


def _items(model: Mapping[str, Any]) -> str:
    """How many items each of a model's sweeps asked, on which split."""
    counts = [
        f"{model[items]} {model[split]} items"
        for items, split in (("items", "split"), ("fewshot_items", "fewshot_split"))
        if model.get(split) is not None
    ]
    return ", ".join(counts) if counts else "no items"


def split_label(splits: Mapping[str, str | None], task: str) -> str:
    """``validation split`` (the paper's), or ``test split (the paper: validation)``."""
    split, paper = splits.get(task), PAPER_SPLITS[task]
    return f"{split} split" + ("" if split == paper else f" (the paper: {paper})")


def table_splits(runs: Sequence[SweepRun]) -> dict[str, str | None]:
    """The split of Tables 11-13 (the ``nubench-prompts`` runs) and of Table 14 (``nubench-fewshot``); the runs of
    one table must share it (the tables may differ: the paper's Tables 11-13 are on validation, 14 on test)."""
    found: dict[str, str | None] = {}
    for task, attribute, metrics in (
        (PROMPTS_TASK, "split", "prompts"),
        (FEWSHOT_TASK, "fewshot_split", "fewshot"),
    ):
        splits = {getattr(run, attribute): run for run in runs if getattr(run, metrics) is not None}
        if len(splits) > 1:
            listing = ", ".join(f"{run.folder}: {split}" for split, run in splits.items())
            tables = "Tables 11-13" if task == PROMPTS_TASK else "Table 14"
            raise NegkitError(
                f"the {task} runs ({tables}) are on different splits ({listing}): combine runs of one split"
            )
        found[task] = next(iter(splits), None)
    return found


def _fewshot_markdown(data: Mapping[str, Any]) -> str:
    settings = data.get("fewshot_settings") or {}
    alike = len({(entry["num_fewshot"], tuple(entry["seeds"] or ())) for entry in settings.values()}) <= 1
    shots = data["num_fewshot"] if alike else "k"
    rows = []
    for name, prompts in data["fewshot_table"].items():
        order = list(prompts)
        columns: list[list[float | None]] = [[prompts[p][ZERO_SHOT][m] for p in order] for m in METRICS]
        columns += [[prompts[p]["few-shot"][m]["mean"] for p in order] for m in METRICS]
        texts = _bold_best(columns)
        setting = settings.get(name, {})
        for index, prompt in enumerate(order):
            sds = [prompts[prompt]["few-shot"][m]["sd"] for m in METRICS]
            cells = [texts[0][index], texts[1][index]] + [f"{texts[2 + k][index]} ± {number(sds[k])}" for k in range(2)]
            extra = [] if alike else [setting.get("num_fewshot"), ", ".join(map(str, setting.get("seeds") or []))]
            rows.append([name, f"{prompt} ({prompts[prompt]['type']})", *extra, *cells])
    headers = [
        "model",
        "prompt",
        *([] if alike else ["k", "seeds"]),
        "zero-shot acc",
        "zero-shot acc_norm",
        f"{shots}-shot acc (mean ± SD)",
        f"{shots}-shot acc_norm (mean ± SD)",
    ]
    over = (
        f"mean ± SD over seeds {', '.join(map(str, data['seeds'] or []))}"
        if alike
        else "mean ± SD over each model's seeds; the models differ in k or seeds"
    )
    split = split_label(data.get("splits") or {}, FEWSHOT_TASK)
    return (
        f"## Table 14: prompts 1, 7 and 11, zero-shot and {shots}-shot ({over}) — {split}\n\n"
        f"{markdown_table(headers, rows)}\n\nBold: the best prompt of each model in each column."
    )


def sweep_tables(runs: Sequence[str | Path | tuple[str, str | Path]], out: str | Path) -> dict[str, str]:
    """``negkit nubench tables``: combine several models' sweep runs (folders, or ``(group, folder)`` pairs)
    into ``OUT/report.md``, ``OUT/report.html`` and ``OUT/nubench-tables.json``; return their paths."""
    from negkit.kit.render.html import markdown_to_html, page

    read = [read_sweep_run(run[1], run[0]) if isinstance(run, tuple) else read_sweep_run(run) for run in runs]
    if not read:
        raise NegkitError("no run folders given")
    table_splits(read)  # the runs of each table on one split
    _unique_names(read)
    data = sweep_tables_data(read)
    markdown = sweep_tables_markdown(data)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = {"report": out / "report.md", "html": out / "report.html", "tables": out / TABLES_FILE}
    atomic_write_text(files["report"], markdown)
    atomic_write_text(files["html"], page("Thunder-NUBench prompt sweep", [markdown_to_html(markdown)]))
    atomic_write_json(files["tables"], json.loads(json.dumps(data)))
    return {kind: str(path) for kind, path in files.items()}


def _unique_names(runs: Sequence[SweepRun]) -> None:
    """Two runs of the same model get their folder's name after the model's (and the group's, if still alike)."""
    for label in (lambda run: run.folder.name, lambda run: run.group):
        names = [run.name for run in runs]
        for run in runs:
            if names.count(run.name) > 1:
                run.name = f"{run.name} ({label(run)})"
    if len({run.name for run in runs}) < len(runs):
        raise NegkitError("the same run folder is given twice in one group")
