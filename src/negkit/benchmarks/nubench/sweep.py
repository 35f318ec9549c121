"""The Thunder-NUBench prompt sweep (paper Tables 11-14): which tasks a sweep runs, on which split, and several
models' sweeps combined in the paper's layout.

A sweep is ``negkit eval`` of the sweep tasks of :mod:`negkit.benchmarks.nubench.sweep_tasks` (``nubench-prompts``:
prompts 1-12 and 7-1 ... 7-5 zero-shot; ``nubench-fewshot``: prompts 1, 7, 11 zero-shot and 5-shot over the five
seeds) into one output folder, each task on the paper's split (:data:`SWEEP_SPLITS`): Tables 11-13 are on the
validation split, Table 14 on the test split (its prompt-7 values are Table 5's test numbers). One run store serves
the folder, so rerunning resumes, and when both tasks are asked on one split (``--split``) the zero-shot requests of
prompts 1, 7 and 11 that both ask are computed once. In Python::

    from negkit.commands.eval import EvalOptions, evaluate
    for split, tasks in sweep_plan(["prompts", "fewshot"]):
        evaluate("default", tasks, EvalOptions(split=split, out="runs/sweep"))

:func:`tables` is :func:`negkit.benchmarks.nubench.sweep_tables.sweep_tables` (``negkit nubench tables``).
"""

from __future__ import annotations

from collections.abc import Sequence

from negkit.benchmarks.nubench.sweep_tables import FEWSHOT_TASK, PROMPTS_TASK, sweep_tables
from negkit.errors import NegkitError

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
