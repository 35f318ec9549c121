"""argparse helpers of several commands: ``--include``, and the interval flags of the commands that read run
folders. The value types (counts, seeds, limits, ...) are :mod:`negkit.kit.arguments`."""

from __future__ import annotations

import argparse

from negkit.errors import NegkitError
from negkit.kit.arguments import seed_value
from negkit.kit.metrics.intervals import DEFAULT_RESAMPLES


def add_include_argument(parser: argparse._ActionsContainer) -> None:
    """``--include PATH`` (repeatable): suites from a user's ``.py`` file or folder (:mod:`negkit.kit.suites.include`).
    :func:`negkit.cli.main` loads them before the parser is built, so their names are known to every command."""
    parser.add_argument(
        "--include",
        "--include-path",
        "--include_path",
        dest="include",
        action="append",
        metavar="PATH",
        help="also load the suites of this .py file, or of every .py file in this folder "
        "(see docs/suites.md; the Harness's YAML task folders are not read); may be repeated",
    )


def add_run_interval_arguments(parser: argparse._ActionsContainer, tasks_help: str) -> None:
    """``--tasks``, ``--bootstrap`` and ``--seed`` of the commands that recompute intervals from run folders
    (``compare``, ``leaderboard``); :func:`selected_run_tasks` checks them."""
    parser.add_argument("--tasks", help=tasks_help)
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help=f"bootstrap resamples (default: {DEFAULT_RESAMPLES})",
    )
    parser.add_argument("--seed", type=seed_value, default=0, help="seed of the bootstrap (default: 0)")
    parser.add_argument(
        "--allow-different-data",
        action="store_true",
        help="show runs of a task on other data (another split, data files with other SHA-256) "
        "without paired differences; without it they are refused",
    )


def selected_run_tasks(args: argparse.Namespace) -> tuple[str, ...] | None:
    """Check ``--bootstrap`` (at least 1) and return the ``--tasks`` names (None: every task a run has)."""
    if args.bootstrap < 1:
        raise NegkitError(f"--bootstrap must be at least 1, got {args.bootstrap}")
    if args.tasks is None:
        return None
    tasks = tuple(name.strip() for name in args.tasks.split(",") if name.strip())
    if not tasks:
        raise NegkitError("--tasks names no task")
    return tasks
