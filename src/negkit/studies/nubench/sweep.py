"""The Thunder-NUBench prompt sweep (paper Tables 11-14): which tasks a sweep runs, on which split, and several
models' sweeps combined in the paper's layout.

A sweep is ``negkit eval`` of the sweep tasks of :mod:`negkit.benchmarks.nubench.sweep_tasks` (``nubench-prompts``:
prompts 1-12 and 7-1 ... 7-5 zero-shot; ``nubench-fewshot``: prompts 1, 7, 11 zero-shot and 5-shot over the five
seeds) into one output folder, each task on the paper's split (:data:`SWEEP_SPLITS`): Tables 11-13 are on the
validation split, Table 14 on the test split (its prompt-7 values are Table 5's test numbers). One run store serves
the folder, so rerunning resumes, and when both tasks are asked on one split (``--split``) the zero-shot requests of
prompts 1, 7 and 11 that both ask are computed once. In Python::

    from negkit.commands.eval import EvalOptions
    from negkit.studies.nubench.sweep import run_sweep
    for split, result in run_sweep("default", ["prompts", "fewshot"], EvalOptions(out="runs/sweep")):
        print(split, result["files"]["tables"])

:func:`tables` is :func:`negkit.benchmarks.nubench.sweep_tables.sweep_tables` (``negkit nubench tables``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

from negkit.benchmarks.nubench.sweep_tables import FEWSHOT_TASK, PROMPTS_TASK, sweep_tables
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.errors import NegkitError
from negkit.kit.results import TaskResult

#: The sweeps by the name ``--tables`` takes, and their tasks.
SWEEP_TASKS: dict[str, str] = {"prompts": PROMPTS_TASK, "fewshot": FEWSHOT_TASK}
#: The split of each sweep in the paper: Tables 11-13 on validation, Table 14 on test.
SWEEP_SPLITS: dict[str, str] = {"prompts": "validation", "fewshot": "test"}
#: The split of the paper's prompt sweep (Tables 11-13).
SWEEP_SPLIT = SWEEP_SPLITS["prompts"]

tables = sweep_tables


def sweep_tasks(which: Sequence[str] = ("prompts", "fewshot")) -> list[str]:
    """The task names of the sweeps named in ``which`` (``prompts``: Tables 11-13; ``fewshot``: Table 14)."""
    unknown = [name for name in which if name not in SWEEP_TASKS]
    if unknown or not which:
        raise NegkitError(f"unknown sweep {', '.join(unknown) or '(none given)'}; choose from {', '.join(SWEEP_TASKS)}")
    return [SWEEP_TASKS[name] for name in dict.fromkeys(which)]


def sweep_plan(which: Sequence[str] = ("prompts", "fewshot"), split: str | None = None) -> list[tuple[str, list[str]]]:
    """The ``negkit eval`` runs of a sweep, in order, as ``(split, tasks)``: each sweep of ``which`` on the paper's
    split (:data:`SWEEP_SPLITS`), or every one of them on ``split`` in a single run when it is given."""
    tasks = sweep_tasks(which)
    if split is not None:
        return [(split, tasks)]
    plan: dict[str, list[str]] = {}
    for name in dict.fromkeys(which):
        plan.setdefault(SWEEP_SPLITS[name], []).append(SWEEP_TASKS[name])
    return list(plan.items())


def run_sweep(
    model: Any,
    which: Sequence[str],
    options: EvalOptions,
    num_fewshot: int = 5,
    seed: int | None = None,
    split: str | None = None,
) -> Iterator[tuple[str, TaskResult]]:
    """Run the sweeps ``which`` (``prompts``, ``fewshot``) of ``model`` into ``options.out``, each on the paper's
    split (or ``split``), yielding each task's result with its split as it finishes; ``options`` holds the run's
    settings (its split, few-shot count and seed are the sweep's: ``num_fewshot`` examples per few-shot context,
    ``seed`` replacing the paper's five few-shot seeds)."""
    if isinstance(options.limit, dict):
        raise NegkitError("--limit takes one count or fraction here (both sweeps ask the same items)")
    fewshot = "fewshot" in which
    if fewshot and num_fewshot < 1:
        raise NegkitError(
            "--num-fewshot must be at least 1 for the fewshot sweep (its zero-shot runs are always there)"
        )
    if options.bootstrap < 0:
        raise NegkitError(f"--bootstrap must be 0 (no intervals) or a number of resamples, got {options.bootstrap}")
    if seed is not None and not fewshot:
        raise NegkitError("--seed changes nothing without the fewshot sweep (it draws the few-shot examples)")
    for run_split, tasks in sweep_plan(which, split):
        asks_fewshot = FEWSHOT_TASK in tasks
        run_options = dataclasses.replace(
            options,
            split=run_split,
            num_fewshot={FEWSHOT_TASK: num_fewshot} if asks_fewshot else None,
            seed=seed if asks_fewshot else None,
        )
        for result in evaluate(model, tasks, run_options):
            yield run_split, result
