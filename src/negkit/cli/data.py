"""``negkit data stats SUITE``: the data statistics tables of a benchmark suite (Markdown or JSON).

The command is generic: it asks the suite registry for the suite's statistics function
(``SuiteDescription.statistics``, :func:`statistics_function`) and renders the
:class:`negkit.kit.data.statistics.DataStatistics` it returns.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_text
from negkit.kit.data.statistics import DataStatistics
from negkit.kit.suites.registry import all_suites, get_suite

#: Place in ``negkit --help`` (after ``export``).
ORDER = 80
GROUPS = {"data": "describe a benchmark suite's data (the papers' data statistics tables)"}

StatisticsFunction = Callable[[str | Path | None], DataStatistics]


def statistics_function(suite: str) -> StatisticsFunction:
    """The registered suite's statistics function (``SuiteDescription.statistics``), or a :class:`NegkitError`
    naming the suites that have one."""
    description = get_suite(suite)
    if description.statistics is None:
        having = [s.name for s in all_suites() if s.statistics is not None]
        raise NegkitError(
            f"suite {description.name!r} has no data statistics (suites with statistics: {', '.join(having) or 'none'})"
        )
    return description.statistics


def data_stats(suite: str, data: str | Path | None = None) -> DataStatistics:
    """The data statistics of ``suite`` read from the data root ``data`` (or the usual places)."""
    return statistics_function(suite)(data)


def register(groups, context) -> None:
    """Add ``negkit data stats``."""
    stats = groups["data"].add_parser(
        "stats",
        help="a suite's data statistics tables (NaN-NLI Tables 1-3, Thunder-NUBench Tables 4 and 9)",
        description="Count a benchmark suite's data the way its paper's data tables do, from the data on disk.",
    )
    stats.add_argument("suite", help="suite name or alias (nan-nli, thunder-nubench, ...: see the error for the list)")
    stats.add_argument("--data", help="data root holding the suite's folder (or the folder itself)")
    stats.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    stats.add_argument("--out", help="write to this file instead of standard output")
    stats.set_defaults(handler=run_data_stats)


def run_data_stats(args: argparse.Namespace) -> int:
    result = data_stats(args.suite, args.data)
    text = json.dumps(result.to_dict(), indent=2) + "\n" if args.json else result.to_markdown()
    if args.out:
        atomic_write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return 0
