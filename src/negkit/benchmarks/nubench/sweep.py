"""The Thunder-NUBench prompt sweep (paper Tables 11-14): which tasks a sweep runs, on which split, and several
models' sweeps combined in the paper's layout.

A sweep is a ``negkit eval`` run of the sweep tasks of :mod:`negkit.benchmarks.nubench.sweep_tasks`
(``nubench-prompts``: prompts 1-12 and 7-1 ... 7-5 zero-shot; ``nubench-fewshot``: prompts 1, 7, 11 zero-shot and
5-shot over the five seeds) on the validation split by default, in one output folder: one run store, so a request
both tasks ask (the zero-shot requests of prompts 1, 7 and 11) is computed once, and rerunning resumes. In Python::

    from negkit.commands.eval import EvalOptions, evaluate
    evaluate("default", sweep_tasks(["prompts", "fewshot"]), EvalOptions(split=SWEEP_SPLIT, out="runs/sweep"))

:func:`tables` is :func:`negkit.benchmarks.nubench.sweep_tables.sweep_tables` (``negkit nubench tables``).
"""

from __future__ import annotations

from collections.abc import Sequence

from negkit.benchmarks.nubench.sweep_tables import FEWSHOT_TASK, PROMPTS_TASK, sweep_tables
from negkit.errors import NegkitError

#: The sweeps by the name ``--tables`` takes, and their tasks.
SWEEP_TASKS: dict[str, str] = {"prompts": PROMPTS_TASK, "fewshot": FEWSHOT_TASK}
#: The split of the paper's prompt sweep.
SWEEP_SPLIT = "validation"

tables = sweep_tables


def sweep_tasks(which: Sequence[str] = ("prompts", "fewshot")) -> list[str]:
    """The task names of the sweeps named in ``which`` (``prompts``: Tables 11-13; ``fewshot``: Table 14)."""
    unknown = [name for name in which if name not in SWEEP_TASKS]
    if unknown or not which:
        raise NegkitError(f"unknown sweep {', '.join(unknown) or '(none given)'}; choose from {', '.join(SWEEP_TASKS)}")
    return [SWEEP_TASKS[name] for name in dict.fromkeys(which)]
