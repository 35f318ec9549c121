"""``negkit compare RUN_DIR...``: a leaderboard of runs per suite and headline metric, with 95% intervals and the
paired difference of every run from a baseline run (Markdown, JSON, HTML).

This is negkit's one comparison path: model against model, base against fine-tuned (per-suite deltas, as in TIND's
Table 6 or Thunder-NUBench's Tables 15-16: in-domain gain and transfer to another suite), model against a baseline
pseudo-model (``negkit eval --model random``).

- Every run's value and interval are computed from its own per-sample records (all its items), with the same
  definitions and units as ``negkit eval``'s intervals (:mod:`negkit.kit.runs`).
- A difference ``run - baseline`` uses only the items both runs scored (matched by ``item_id``) and the paired
  bootstrap: the same draws of units for both runs, so what the items share cancels out. Its interval, its
  two-sided bootstrap p-value and the number of shared items and units are reported; on fewer shared items the
  difference can differ from the difference of the two leaderboard values.
- The baseline is ``baseline`` (a run folder among, or besides, the others) or else the first run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.kit.metrics.intervals import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    ONE_UNIT,
    bootstrap_intervals,
    paired_bootstrap,
)
from negkit.kit.render.markdown import ONE_UNIT_MARK, markdown_table, number
from negkit.kit.render.plots import drawable
from negkit.kit.runs import RunFolder, different_data, read_run, record_estimands
from negkit.kit.suites import suite_view
from negkit.kit.view import SuiteLookup, SuiteView


@dataclass(frozen=True)
class CompareOptions:
    """Bootstrap settings of a comparison and the tasks to include (None: every task a run has)."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0
    level: float = DEFAULT_LEVEL
    tasks: tuple[str, ...] | None = None
    #: Show runs on other data (another split, data files with other hashes) beside the baseline, unpaired; without
    #: it such runs are refused (their item ids name different items).
    allow_different_data: bool = False


def run_names(folders: Sequence[Path]) -> list[str]:
    """Short unique names: each folder's name, with parent folders added until the names are unique."""
    depth = 1
    while True:
        names = [drawable("/".join(folder.resolve().parts[-depth:])) for folder in folders]
        if len(set(names)) == len(names) or depth >= max(len(folder.resolve().parts) for folder in folders):
            return names
        depth += 1


def compare(
    run_dirs: Sequence[str | Path],
    baseline: str | Path | None = None,
    options: CompareOptions | None = None,
    suites: SuiteLookup | None = None,
) -> dict[str, Any]:
    """Compare the runs in ``run_dirs`` (and ``baseline``) task by task; the JSON-ready comparison. ``suites`` says
    how each task's headline metrics are rebuilt from its samples (default: the registry's
    :func:`negkit.kit.suites.suite_view`, the built-in suites and those loaded with ``--include``); tasks no suite can
    rebuild are left out.

    Layout: ``{"baseline", "settings", "runs": [{"name", "path", "model", "tasks"}], "tasks": {TASK: {"suite",
    "primary", "digits", "scale", "metrics": [{"path", "label"} and, for a fraction in a suite printed in percent,
    "digits" and "scale"], "rows": [{"run", "model", "items", "baseline", "values": {PATH:
    {"estimate", "ci"}}, "vs_baseline": {PATH: {"difference", "ci", "p_value", "significant", "units", "rows"}},
    "shared_items"}]}}}`` with rows sorted by the primary metric, best first.
    """
    options = options or CompareOptions()
    suites = suites or suite_view
    folders = [Path(path) for path in run_dirs]
    if baseline is not None and Path(baseline).resolve() not in [folder.resolve() for folder in folders]:
        folders.insert(0, Path(baseline))
    if not folders:
        raise NegkitError("compare needs at least one run folder")
    runs = [read_run(folder) for folder in folders]
    names = run_names(folders)
    base_index = 0 if baseline is None else [f.resolve() for f in folders].index(Path(baseline).resolve())
    task_names = list(dict.fromkeys(name for run in runs for name in run.tasks if _comparable(suites(name))))
    if options.tasks is not None:
        unknown = [name for name in options.tasks if name not in task_names]
        if unknown:
            raise NegkitError(
                f"--tasks names tasks no run has: {', '.join(unknown)} (runs have: {', '.join(task_names)})"
            )
        task_names = list(options.tasks)
    comparison: dict[str, Any] = {
        "baseline": names[base_index],
        "settings": {
            "resamples": options.resamples,
            "seed": options.seed,
            "level": options.level,
            "method": "percentile bootstrap; differences: paired bootstrap on shared items",
        },
        "runs": [
            {"name": name, "path": str(run.path), "model": run.model_name, "tasks": list(run.tasks)}
            for name, run in zip(names, runs)
        ],
        "tasks": {},
    }
    for task_name in task_names:
        comparison["tasks"][task_name] = _compare_task(task_name, runs, names, base_index, options, suites(task_name))
    return comparison


def _comparable(view: SuiteView | None) -> bool:
    return view is not None and view.estimand_builder is not None


def _compare_task(
    task_name: str,
    runs: list[RunFolder],
    names: list[str],
    base_index: int,
    options: CompareOptions,
    view: SuiteView | None,
) -> dict[str, Any]:
    suite = view.name if view else task_name
    base = runs[base_index].tasks.get(task_name)
    rows, metrics = [], {}
    for index, (run, name) in enumerate(zip(runs, names)):
        task = run.tasks.get(task_name)
        if task is None:
            continue
        estimands = record_estimands(task_name, task.records, task.samples_file, view)
        metrics.update({e.path: e.label or e.path for e in estimands})
        intervals = bootstrap_intervals(estimands, options.resamples, options.seed, options.level)
        row: dict[str, Any] = {
            "run": name,
            "model": run.model_name,
            "items": len(task.records),
            "baseline": index == base_index,
            "values": {
                path: {"estimate": i.estimate, "ci": [i.low, i.high], "method": i.method}
                for path, i in intervals.items()
            },
        }
        problem = different_data(task_name, task, name, base, names[base_index]) if base is not None else None
        if problem is not None and not options.allow_different_data:
            raise NegkitError(
                f"{problem}; compare runs on the same data, or pass --allow-different-data to show them unpaired"
            )
        if problem is not None:
            row["unpaired"] = problem
        elif base is not None and index != base_index:
            row.update(
                _paired(task_name, task.records, base.records, task.samples_file, base.samples_file, options, view)
            )
        rows.append(row)
    primary = (view.primary_metric if view else None) or next(iter(metrics), "")
    rows.sort(key=lambda row: -(row["values"].get(primary, {}).get("estimate") or float("-inf")))
    return {
        "suite": suite,
        "primary": primary,
        "digits": view.digits if view else 3,
        "scale": list(view.scale) if view else [0.0, 1.0],
        "baseline_has_task": base is not None,
        "metrics": [_metric_entry(path, label, view) for path, label in metrics.items()],
        "rows": rows,
    }


def _metric_entry(path: str, label: str, view: SuiteView | None) -> dict[str, Any]:
    """A compared metric; one that is a fraction in a suite printed in percent carries its own decimals and axis."""
    if view is not None and path in view.fractions:
        return {"path": path, "label": label, "digits": 3, "scale": [0.0, 1.0]}
    return {"path": path, "label": label}


def _paired(
    task_name: str,
    records: list[dict[str, Any]],
    base_records: list[dict[str, Any]],
    path: Path | None,
    base_path: Path | None,
    options: CompareOptions,
    view: SuiteView | None,
) -> dict[str, Any]:
    """The paired differences of a run from the baseline on the items both scored."""
    by_id = {record["item_id"]: record for record in records}
    shared_base = [record for record in base_records if record["item_id"] in by_id]
    shared_run = [by_id[record["item_id"]] for record in shared_base]
    if not shared_base:
        return {"shared_items": 0, "vs_baseline": {}}
    differences = paired_bootstrap(
        record_estimands(task_name, shared_run, path, view),
        record_estimands(task_name, shared_base, base_path, view),
        options.resamples,
        options.seed,
        options.level,
    )
    return {"shared_items": len(shared_base), "vs_baseline": {p: d.as_dict() for p, d in differences.items()}}


# -- Markdown ---------------------------------------------------------------------------------------------


def _cell(entry: dict[str, Any] | None, digits: int) -> str:
    if not entry or entry.get("estimate") is None:
        return number(None)
    low, high = entry["ci"]
    if low is None or high is None:
        mark = f" {ONE_UNIT_MARK}" if entry.get("method") == ONE_UNIT else ""
        return number(entry["estimate"], digits) + mark
    return f"{entry['estimate']:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _difference_cell(entry: dict[str, Any] | None, digits: int) -> str:
    if not entry or entry.get("difference") is None:
        return number(None)
    low, high = entry["ci"]
    text = f"{entry['difference']:+.{digits}f}"
    if low is not None and high is not None:
        text += f" [{low:+.{digits}f}, {high:+.{digits}f}]"
    if entry.get("p_value") is not None:
        text += f" p={entry['p_value']:.3f}" + (" *" if entry.get("significant") else "")
    return text


def compare_markdown(comparison: dict[str, Any]) -> str:
    """The comparison as Markdown: per task a leaderboard and the differences from the baseline."""
    settings = comparison["settings"]
    parts = [
        "# negkit comparison",
        markdown_table(
            ["run", "model", "folder", "tasks"],
            [
                [
                    run["name"] + (" (baseline)" if run["name"] == comparison["baseline"] else ""),
                    f"`{run['model']}`",
                    f"`{run['path']}`",
                    ", ".join(run["tasks"]),
                ]
                for run in comparison["runs"]
            ],
        ),
        f"Values: `estimate [low, high]`, {settings['level']:.0%} percentile bootstrap intervals "
        f"({settings['resamples']:,} resamples, seed {settings['seed']}) resampling each suite's unit. Differences: "
        f"run − baseline on the items both scored, paired bootstrap; `*` marks an interval that excludes 0 "
        f"(two-sided p < {1 - settings['level']:.2f}); `{ONE_UNIT_MARK}` marks a value observed on a single unit "
        f"(no interval: the spread between units cannot be estimated from one).",
    ]
    for task_name, task in comparison["tasks"].items():
        parts.append(task_markdown(task_name, task, comparison["baseline"]))
    return "\n\n".join(parts) + "\n"


def task_markdown(task_name: str, task: dict[str, Any], baseline: str) -> str:
    """One task's leaderboard and difference table."""
    metrics = task["metrics"]
    digits = {m["path"]: m.get("digits", task.get("digits", 3)) for m in metrics}
    primary_label = next((m["label"] for m in metrics if m["path"] == task["primary"]), task["primary"])
    board = markdown_table(
        ["rank", "run", "items"] + [m["label"] for m in metrics],
        [
            [rank, row["run"] + (" (baseline)" if row["baseline"] else ""), row["items"]]
            + [_cell(row["values"].get(m["path"]), digits[m["path"]]) for m in metrics]
            for rank, row in enumerate(task["rows"], start=1)
        ],
    )
    text = f"## {task_name}\n\nLeaderboard (sorted by {primary_label}):\n\n{board}"
    others = [row for row in task["rows"] if not row["baseline"] and "vs_baseline" in row]
    if others:
        differences = markdown_table(
            ["metric"] + [f"{row['run']} − {baseline} ({row['shared_items']} shared items)" for row in others],
            [
                [m["label"]]
                + [_difference_cell(row["vs_baseline"].get(m["path"]), digits[m["path"]]) for row in others]
                for m in metrics
            ],
        )
        text += f"\n\nDifference from the baseline `{baseline}`:\n\n{differences}"
    elif not task["baseline_has_task"]:
        text += f"\n\nThe baseline `{baseline}` did not run {task_name}: no differences."
    return text
