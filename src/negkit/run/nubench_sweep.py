"""``negkit nubench sweep`` and ``negkit nubench tables`` as library functions: the Thunder-NUBench prompt sweep
(paper Tables 11-14) of one model, and several models' sweeps combined in the paper's layout.

:func:`sweep` is :func:`negkit.run.evaluate.evaluate` with the sweep tasks of :mod:`negkit.tasks.nubench_sweep`
(``nubench-prompts``: prompts 1-12 and 7-1 ... 7-5 zero-shot; ``nubench-fewshot``: prompts 1, 7, 11 zero-shot
and 5-shot over the five seeds) on the validation split by default, in one output folder: one run store, so a
request both tasks ask (the zero-shot requests of prompts 1, 7 and 11) is computed once, and rerunning resumes.
:func:`tables` is :func:`negkit.report.nubench_sweep.sweep_tables`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from negkit.errors import NegkitError
from negkit.run.evaluate import evaluate
from negkit.run.options import EvalOptions
from negkit.report.nubench_sweep import FEWSHOT_TASK, PROMPTS_TASK, sweep_tables

#: The sweeps :func:`sweep` can run, by the name ``--tables`` takes.
SWEEP_TASKS: dict[str, str] = {"prompts": PROMPTS_TASK, "fewshot": FEWSHOT_TASK}
#: The split of the paper's prompt sweep.
SWEEP_SPLIT = "validation"

tables = sweep_tables


def sweep(model: str | Any, options: EvalOptions | None = None,
          which: Sequence[str] = ("prompts", "fewshot")) -> list[dict[str, Any]]:
    """Run the sweeps named in ``which`` (``prompts``: Tables 11-13; ``fewshot``: Table 14) for ``model`` into
    ``options.out``; ``options.split`` defaults to the validation split. Returns each task's results."""
    unknown = [name for name in which if name not in SWEEP_TASKS]
    if unknown or not which:
        raise NegkitError(f"unknown sweep {', '.join(unknown) or '(none given)'}; choose from {', '.join(SWEEP_TASKS)}")
    options = options or EvalOptions(split=SWEEP_SPLIT)
    return evaluate(model, [SWEEP_TASKS[name] for name in dict.fromkeys(which)], options)


def sweep_options(**fields: Any) -> EvalOptions:
    """:class:`EvalOptions` for :func:`sweep` (split: validation unless given)."""
    return replace(EvalOptions(split=SWEEP_SPLIT), **fields)
