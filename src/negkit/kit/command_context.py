"""What the command line hands a benchmark's own commands (``negkit tind ...``, ``negkit nubench ...``).

A benchmark may add a command group: a module ``cli`` in its package (``negkit/benchmarks/NAME/cli.py`` or a
``cli`` sub-package) with ``GROUPS = {NAME: HELP}``, an ``ORDER`` in ``negkit --help`` and
``register(groups, context)``, found by the command line as it finds its own modules. The benchmarks sit below the
commands layer, so what they need of ``negkit eval`` comes in the :class:`CommandContext` instead of an import.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from negkit.kit.results import TaskResult

#: argparse's sub-command groups by name (``""``: the top level).
CommandGroups = dict[str, "argparse._SubParsersAction[Any]"]


@dataclass(frozen=True)
class CommandContext:
    """``negkit eval``'s own flags and pipeline, for a benchmark's commands that run an evaluation."""

    #: Adds eval's model flags (``--model``, ``--model-args``, ``--batch-size``, ``--device``, ``--dtype``, ...).
    add_model_arguments: Callable[[argparse._ActionsContainer], None]
    #: Adds eval's run and output flags (``--out``, ``--bootstrap``, ``--chunk-size``, ...).
    add_run_arguments: Callable[[argparse._ActionsContainer], None]
    #: ``eval_options(args, **fields)``: an ``EvalOptions`` from parsed eval flags, ``fields`` replacing values.
    eval_options: Callable[..., Any]
    #: ``evaluate(model, tasks, options)``: :func:`negkit.commands.eval.evaluate`.
    evaluate: Callable[[Any, Sequence[str], Any], list[TaskResult]]
