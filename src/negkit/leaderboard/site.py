"""``negkit leaderboard RUN_DIR... --out DIR``: every model ranked on every task, from ``negkit eval`` folders alone.

A *model* is one entry of the command line: a run folder (named after the folder), or ``NAME=RUN_DIR``, where
several folders given the same ``NAME`` form one model (e.g. a constant baseline run once per suite, each with
that suite's answer; their tasks must not overlap, and ``RUN_DIR#TASK,...`` takes only those tasks from a folder,
e.g. a suite rerun at full size beside a sample run of the others). A *column* is a task, with its split when runs
of the same task used different splits.

For each column, every model's value is the suite's primary metric recomputed from the model's per-sample records,
with its 95% percentile bootstrap interval over the suite's unit (the same estimands and draws as ``negkit eval``
and ``negkit compare``). The best model is the one with the highest value; every other model's difference from it
is the paired bootstrap over the units of the items both scored (:func:`negkit.kit.metrics.intervals.paired_bootstrap`),
with its interval and two-sided p-value: *significant* when the interval excludes 0. Ranks are average ranks
(ties share them); a model's mean rank is over the columns it has. All primary metrics are higher-is-better and
are shown in percent.

Which metric is primary, its scale, how a task's records become estimands and what a unit is: that is the suites'
knowledge, asked of the :data:`~negkit.kit.view.SuiteLookup` the caller passes (the registry's
:func:`negkit.kit.suites.suite_view`); nothing here names a benchmark. Tasks no suite can rebuild from their records
are listed as left out. Published reference rows (``--published``, :mod:`negkit.leaderboard.published`) are
kept apart from the run models (never ranked nor paired); parameter counts and the scaling figures are
:mod:`negkit.leaderboard.scaling`'s. The pages are written by :mod:`negkit.leaderboard.pages`, the
Markdown by :mod:`negkit.leaderboard.tables`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from negkit.commands.compare import CompareOptions, run_names
from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_json, atomic_write_text, make_folder
from negkit.kit.metrics.intervals import Estimand, bootstrap_intervals, paired_bootstrap
from negkit.kit.runs import RunFolder, TaskRun, different_data, read_run, record_estimands
from negkit.kit.suites import suite_view
from negkit.kit.view import SuiteLookup, SuiteView
from negkit.leaderboard.pages import MODELS_FOLDER, index_html, model_html, report_links, slug, unique_slugs
from negkit.leaderboard.published import reported_metrics
from negkit.leaderboard.scaling import add_references, recorded_parameters, write_scaling_figures
from negkit.leaderboard.tables import leaderboard_markdown

INDEX_FILE = "index.html"
JSON_FILE = "leaderboard.json"
MARKDOWN_FILE = "leaderboard.md"


#: Bootstrap settings and the tasks to include (None: every task some run has and negkit can rebuild): the same
#: settings as a comparison's.
LeaderboardOptions = CompareOptions


@dataclass
class _Model:
    name: str
    runs: list[RunFolder]

    @property
    def baseline(self) -> bool:
        """A baseline pseudo-model (random, majority, constant): drawn as a reference row, never ranked."""
        return all(run.model.backend == "baseline" for run in self.runs)

    def task_runs(self) -> list[tuple[RunFolder, TaskRun]]:
        return [(run, task) for run in self.runs for task in run.tasks.values()]


class Entry(NamedTuple):
    """One command-line entry: the model's name (None: named after its run), the run folder, and the tasks taken
    from it (None: all of them)."""

    name: str | None
    folder: Path
    tasks: tuple[str, ...] | None = None


def parse_entries(entries: Sequence[str | Path]) -> list[Entry]:
    """``RUN_DIR`` or ``NAME=RUN_DIR``, either with ``#TASK[,TASK...]`` after the folder to take only those tasks
    from it (e.g. a suite rerun at full size beside a folder holding the other suites on a sample). A folder that
    exists as written is never split at ``=`` or ``#``."""
    parsed: list[Entry] = []
    for entry in entries:
        text = str(entry)
        name, rest = None, text
        head, equals, tail = text.partition("=")
        if equals and head and not Path(text).is_dir():
            name, rest = head, tail
        folder, hash_sign, selection = rest.rpartition("#")
        if not hash_sign or Path(rest).is_dir():
            parsed.append(Entry(name, Path(rest)))
            continue
        tasks = tuple(task.strip() for task in selection.split(",") if task.strip())
        if not tasks:
            raise NegkitError(f"{text}: no task named after '#' (RUN_DIR#TASK[,TASK...])")
        parsed.append(Entry(name, Path(folder), tasks))
    return parsed


def _selected(run: RunFolder, tasks: tuple[str, ...] | None) -> RunFolder:
    if tasks is None:
        return run
    missing = [task for task in tasks if task not in run.tasks]
    if missing:
        raise NegkitError(
            f"{run.path}: no task {', '.join(missing)} in this run folder (it has: {', '.join(run.tasks)})"
        )
    return RunFolder(run.path, {name: task for name, task in run.tasks.items() if name in tasks})


def _models(entries: Sequence[str | Path]) -> list[_Model]:
    parsed = parse_entries(entries)
    if not parsed:
        raise NegkitError("leaderboard needs at least one run folder")
    # a folder that is not a run folder: one-line error naming it
    runs = [_selected(read_run(entry.folder), entry.tasks) for entry in parsed]
    default_names = _model_labels(runs, run_names([entry.folder for entry in parsed]))
    models: dict[str, _Model] = {}
    for entry, default, run in zip(parsed, default_names, runs):
        key = entry.name or default
        models.setdefault(key, _Model(key, [])).runs.append(run)
    for model in models.values():
        seen: dict[tuple[str, str], Path] = {}
        for run, task in model.task_runs():
            column = (task.name, _split(task))
            if column in seen:
                raise NegkitError(
                    f"model {model.name}: task {task.name} is in both {seen[column]} and {run.path} (take one "
                    "folder's tasks with RUN_DIR#TASK,...)"
                )
            seen[column] = run.path
    return list(models.values())


def _model_labels(runs: Sequence[RunFolder], folder_names: Sequence[str]) -> list[str]:
    """A row label per run folder given without a name: the model that answered; where two folders of one model
    hold the same task (two runs to rank against each other), the model with the folder's name beside it."""
    by_model: dict[str, list[int]] = {}
    for position, run in enumerate(runs):
        by_model.setdefault(run.model_name, []).append(position)
    labels = [run.model_name for run in runs]
    for model, positions in by_model.items():
        columns = [(task.name, _split(task)) for position in positions for task in runs[position].tasks.values()]
        if len(set(columns)) < len(columns) or model == "?":
            for position in positions:
                labels[position] = f"{model} ({folder_names[position]})"
    return labels


def _split(task: TaskRun) -> str:
    return (task.log.data.split or "") if task.log.data is not None else ""


def _command(task: TaskRun) -> str:
    """The command that ran a task, as its reproduction record says."""
    record = task.log.record
    return (record.command or "") if record is not None else ""


def _primary(view: SuiteView, estimands: Sequence[Estimand]) -> Estimand | None:
    """The estimand the suite ranks by (its first headline metric when the suite names none)."""
    path = view.primary_metric
    chosen = [e for e in estimands if e.path == path] if path else list(estimands[:1])
    return chosen[0] if chosen else None


def _percent(view: SuiteView) -> float:
    """The factor that puts the suite's values in percent (a suite on a 0-100 scale is already)."""
    return 1.0 if view.scale[1] == 100.0 else 100.0 / (view.scale[1] or 1.0)


def _comparable(view: SuiteView | None) -> bool:
    return view is not None and view.estimand_builder is not None


def _scaled(value: float | None, factor: float) -> float | None:
    return None if value is None else round(value * factor, 6)


def _average_ranks(values: dict[str, float]) -> dict[str, float]:
    """Rank 1 is the highest value; tied values share the average of their ranks."""
    ordered = sorted(values.items(), key=lambda item: -item[1])
    ranks: dict[str, float] = {}
    position = 0
    while position < len(ordered):
        end = position
        while end + 1 < len(ordered) and ordered[end + 1][1] == ordered[position][1]:
            end += 1
        for index in range(position, end + 1):
            ranks[ordered[index][0]] = (position + end) / 2 + 1
        position = end + 1
    return ranks


def leaderboard_data(
    entries: Sequence[str | Path],
    options: LeaderboardOptions | None = None,
    suites: SuiteLookup | None = None,
    published: Sequence[str | Path] = (),
    parameters: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """The leaderboard of the models in ``entries`` (see the module's docstring), JSON-ready; ``suites`` (the
    registry's :func:`negkit.kit.suites.suite_view`) says how each task's primary metric is rebuilt from its records;
    ``published``: CSV files of published reference rows; ``suites`` defaults to the registry's; ``parameters``: parameter counts by model name.

    Layout: ``{"settings", "models": [{"name", "model", "folders", "commands", "baseline", "parameters",
    "parameters_source"}], "columns": [{"key", "task", "split", "label", "suite", "metric", "metric_label", "unit",
    "percent_factor"}], "cells": {MODEL: {COLUMN: {"estimate", "ci", "items", "units", "rank", "best",
    "vs_best"}}}, "metrics": {MODEL: {COLUMN: [{"path", "label", "estimate", "ci"}]}}, "mean_rank": {MODEL:
    {"mean", "columns"}}, "skipped": [TASK...], "published": [ROW...], "scaling": [PANEL...]}``; values in percent.
    """
    options = options or LeaderboardOptions()
    suites = suites or suite_view  # the registry: built-in suites and those loaded with --include
    models = _models(entries)
    splits: dict[str, set[str]] = {}
    skipped: list[str] = []
    for model in models:
        for _, task in model.task_runs():
            if not _comparable(suites(task.name)):
                skipped.append(task.name)
            else:
                splits.setdefault(task.name, set()).add(_split(task))
    if options.tasks is not None:
        unknown = [name for name in options.tasks if name not in splits]
        if unknown:
            raise NegkitError(
                f"--tasks names tasks no run has: {', '.join(unknown)} "
                f"(runs have: {', '.join(splits) or 'none negkit can rank'})"
            )
        splits = {name: splits[name] for name in options.tasks}
    data: dict[str, Any] = {
        "settings": {
            "resamples": options.resamples,
            "seed": options.seed,
            "level": options.level,
            "method": "percentile bootstrap over each suite's unit; differences from the best: paired "
            "bootstrap on the items both scored",
        },
        "models": [
            {
                "name": model.name,
                "model": sorted({run.model_name for run in model.runs}),
                "folders": [str(run.path) for run in model.runs],
                "commands": [_command(task) for _, task in model.task_runs()],
                "baseline": model.baseline,
                "parameters": recorded_parameters([run.model.as_json() for run in model.runs]),
            }
            for model in models
        ],
        "columns": [],
        "cells": {model.name: {} for model in models},
        "metrics": {model.name: {} for model in models},
        "mean_rank": {},
        "skipped": sorted(set(skipped)),
    }
    # every task in splits has a comparable suite (the loop above skipped the others)
    views = {name: view for name in splits if (view := suites(name)) is not None}
    # columns in the order --tasks gives, else in the suites' report order
    ordered = (
        list(options.tasks)
        if options.tasks is not None
        else sorted(splits, key=lambda name: (views[name].order, views[name].name, name))
    )
    for task_name in ordered:
        task_splits = splits[task_name]
        for split in sorted(task_splits):
            key = task_name if len(task_splits) == 1 else f"{task_name} [{split}]"
            column = _column(task_name, split, key, models, data, options, views[task_name])
            if column is not None:
                data["columns"].append(column)
    _mean_ranks(data)
    add_references(data, published, parameters or {})
    return data


def _mean_ranks(data: dict[str, Any]) -> None:
    """Each model's mean rank over the columns every model has (the only ones where the ranks compare like with
    like), with its coverage: ``{"mean", "columns" (shared columns averaged), "covered" (columns it has), "of"}``.
    With no column shared by all models there is no overall order: every mean is None."""
    keys = [column["key"] for column in data["columns"]]
    references = {model["name"] for model in data["models"] if model["baseline"]}
    ranked = {name: cells for name, cells in data["cells"].items() if name not in references}
    shared = [key for key in keys if all(key in cells for cells in ranked.values())]
    for name, cells in data["cells"].items():
        if name in references:  # a baseline: a reference row, no rank
            data["mean_rank"][name] = {
                "mean": None,
                "columns": 0,
                "covered": sum(key in cells for key in keys),
                "of": len(keys),
                "reference": True,
            }
            continue
        ranks = [cells[key]["rank"] for key in shared]
        data["mean_rank"][name] = {
            "mean": round(sum(ranks) / len(ranks), 6) if ranks else None,
            "columns": len(ranks),
            "covered": sum(key in cells for key in keys),
            "of": len(keys),
        }


def _column(
    task_name: str,
    split: str,
    key: str,
    models: Sequence[_Model],
    data: dict[str, Any],
    options: LeaderboardOptions,
    view: SuiteView,
) -> dict[str, Any] | None:
    """Fill one column's cells (values, ranks, differences from the best); its description, or None if empty."""
    found: dict[str, TaskRun] = {}
    references = {model.name for model in models if model.baseline}
    for model in models:
        for _, task in model.task_runs():
            if task.name == task_name and _split(task) == split:
                found[model.name] = task
    unpaired = _check_same_data(task_name, found, options)
    primaries: dict[str, Estimand] = {}
    factor = _percent(view)
    view_paths: set[str] = set()
    for name, task in found.items():
        estimands = record_estimands(task.name, task.records, task.samples_file, view)
        intervals = bootstrap_intervals(estimands, options.resamples, options.seed, options.level)
        primary = _primary(view, estimands)
        view_paths.update(e.path for e in estimands)
        data["metrics"][name][key] = [
            {
                "path": e.path,
                "label": e.label or e.path,
                "estimate": _scaled(intervals[e.path].estimate, factor),
                "ci": [_scaled(intervals[e.path].low, factor), _scaled(intervals[e.path].high, factor)],
            }
            for e in estimands
        ]
        if primary is None or intervals[primary.path].estimate is None:
            continue
        primaries[name] = primary
        interval = intervals[primary.path]
        data["cells"][name][key] = {
            "estimate": _scaled(interval.estimate, factor),
            "ci": [_scaled(interval.low, factor), _scaled(interval.high, factor)],
            "items": len(task.records),
            "units": interval.units,
            "rank": None,
            "best": False,
            "vs_best": None,
        }
    if not primaries:
        return None
    cells = {name: data["cells"][name][key] for name in primaries}
    # baselines are reference rows: compared with the best model, never ranked among the models
    ranks = _average_ranks({name: cell["estimate"] for name, cell in cells.items() if name not in references})
    best = min(ranks, key=lambda name: (ranks[name], list(primaries).index(name))) if ranks else None
    competing = len(ranks) >= 2  # "best" only where two or more models compete
    for name, cell in cells.items():
        cell["rank"] = ranks.get(name)
        cell["reference"] = name in references
        cell["best"] = (
            best is not None and competing and name in ranks and ranks[name] == ranks[best]
        )  # tied values are all best
        if best is not None and name != best and name not in unpaired and best not in unpaired:
            cell["vs_best"] = _versus(found[name], found[best], primaries[name].path, factor, options, view)
    first = primaries[best] if best is not None else next(iter(primaries.values()))
    return {
        "key": key,
        "task": task_name,
        "split": split,
        "label": key,
        "suite": view.name,
        "metric": first.path,
        "metric_label": first.label or first.path,
        "unit": first.unit,
        "best": best if competing else None,
        "reported": sorted({*reported_metrics(t.metrics for t in found.values()), *view_paths}),
        "percent_factor": factor,
    }


def _check_same_data(task_name: str, found: dict[str, TaskRun], options: LeaderboardOptions) -> set[str]:
    """The models of a column whose runs read other data than the first model's: refused, or with
    ``allow_different_data`` kept out of the paired differences (returned)."""
    names = list(found)
    unpaired = set()
    for name in names[1:]:
        problem = different_data(task_name, found[names[0]], names[0], found[name], name)
        if problem is not None and not options.allow_different_data:
            raise NegkitError(
                f"{problem}; rank runs on the same data, or pass --allow-different-data to show "
                "them without paired differences"
            )
        if problem is not None:
            unpaired.update({name, names[0]})
    return unpaired


def _versus(
    task: TaskRun, best: TaskRun, path: str, factor: float, options: LeaderboardOptions, view: SuiteView
) -> dict[str, Any] | None:
    """``task - best`` on the primary metric over the items both scored, paired over their units."""
    by_id = {record["item_id"]: record for record in task.records}
    shared_best = [record for record in best.records if record["item_id"] in by_id]
    if not shared_best:
        return None
    shared = [by_id[record["item_id"]] for record in shared_best]
    runs = [e for e in record_estimands(task.name, shared, task.samples_file, view) if e.path == path]
    bests = [e for e in record_estimands(best.name, shared_best, best.samples_file, view) if e.path == path]
    difference = paired_bootstrap(runs, bests, options.resamples, options.seed, options.level).get(path)
    if difference is None or difference.estimate is None:
        return None
    return {
        "difference": _scaled(difference.estimate, factor),
        "ci": [_scaled(difference.low, factor), _scaled(difference.high, factor)],
        "p_value": difference.p_value,
        "significant": difference.significant,
        "shared_items": len(shared),
        "units": difference.units,
    }


def leaderboard(
    entries: Sequence[str | Path],
    out: str | Path,
    options: LeaderboardOptions | None = None,
    suites: SuiteLookup | None = None,
    published: Sequence[str | Path] = (),
    parameters: Mapping[str, int] | None = None,
) -> dict[str, Path]:
    """Build the leaderboard of ``entries`` and write the static site into ``out``: ``index.html`` (ranking,
    heatmap, published rows, differences from the best, scaling), ``leaderboard.md`` (the same tables),
    ``models/NAME.html`` per model, ``figures/scaling-TASK.svg`` and ``leaderboard.json``; their paths. The other
    arguments as for :func:`leaderboard_data`."""
    out = Path(out)
    data = leaderboard_data(entries, options, suites, published, parameters)
    make_folder(out / MODELS_FOLDER)
    links = report_links(data, out)
    slugs = unique_slugs([model["name"] for model in data["models"]])
    paths = {"index": out / INDEX_FILE, "json": out / JSON_FILE, "markdown": out / MARKDOWN_FILE}
    figures = write_scaling_figures(data, out, slug)
    paths.update({f"figure:{key}": out / name for key, (name, _) in figures.items()})
    atomic_write_json(paths["json"], data)
    atomic_write_text(paths["index"], index_html(data, slugs, figures))
    atomic_write_text(paths["markdown"], leaderboard_markdown(data))
    for model in data["models"]:
        page = out / MODELS_FOLDER / f"{slugs[model['name']]}.html"
        atomic_write_text(page, model_html(data, model["name"], links[model["name"]]))
        paths[f"model:{model['name']}"] = page
    return paths
