"""``negkit data get | list | verify | mirror | stats``: the data of the benchmarks and corpora.

``get``, ``list``, ``verify`` and ``mirror`` are thin over :mod:`negkit.commands.data` (docs/data.md).
``stats SUITE`` prints the data statistics tables of a benchmark suite (Markdown or JSON); it is generic: it asks the suite registry for the suite's statistics function
(``SuiteDescription.statistics``, :func:`statistics_function`) and renders the
:class:`negkit.kit.data.statistics.DataStatistics` it returns.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from negkit.cli.groups import CommandGroups
from negkit.commands.data import (
    data_get,
    data_list,
    data_mirror,
    data_path,
    data_verify,
    download_for_tasks,
    render_list,
)
from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_text
from negkit.kit.data.declared import human_size
from negkit.kit.data.fetch import MIRROR_VARIABLE
from negkit.kit.data.statistics import DataStatistics
from negkit.kit.suites.registry import all_suites, get_suite

#: Place in ``negkit --help`` (after ``export``).
ORDER = 80
GROUPS = {"data": "get, list, verify and mirror the benchmarks' data; a suite's data statistics tables"}

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


def register(groups: CommandGroups) -> None:
    """Add ``negkit data get``, ``list``, ``verify``, ``mirror`` and ``stats``."""
    _register_get(groups)
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


_DATA_HELP = "data root (default: NEGKIT_DATA, else the cache ~/.cache/negkit/data or NEGKIT_DATA_CACHE)"
_MIRROR_HELP = (
    f"fetch from this mirror (URL or folder with the data root's layout) instead of the sources ({MIRROR_VARIABLE})"
)


def _register_get(groups) -> None:
    get = groups["data"].add_parser(
        "get",
        help="download benchmark data, pinned and verified by SHA-256 (resumable; safe with two processes)",
        description="Download what is missing of the named data sets into the data cache (or --data DIR), each "
        "file from its source at a pinned commit (or --mirror), its SHA-256 checked before it gets its name.",
    )
    get.add_argument("names", nargs="*", metavar="NAME", help="data sets (negkit data list), e.g. scone cd-sco")
    get.add_argument("--all", action="store_true", dest="everything", help="every benchmark and corpus")
    get.add_argument(
        "--default",
        action="store_true",
        help="the suites negkit eval runs by default, those whose data is not found anywhere (scripts/main.sh)",
    )
    get.add_argument("--data", help=_DATA_HELP)
    get.add_argument("--mirror", help=_MIRROR_HELP)
    get.set_defaults(handler=run_data_get)
    listing = groups["data"].add_parser(
        "list", help="every data set: files, size, where it is found, licence, citation key"
    )
    listing.add_argument(
        "--data", help="data root looked at first (then NEGKIT_DATA, the cache, ./data, ../shared/data)"
    )
    listing.set_defaults(handler=run_data_list)
    path = groups["data"].add_parser(
        "path",
        help="print the folder a data set is found in (lookup order), e.g. $(negkit data path cd-sco)/FILE in scripts",
    )
    path.add_argument("name", metavar="NAME", help="a data set (negkit data list)")
    path.add_argument("--data", help="data root looked at first")
    path.set_defaults(handler=run_data_path)
    verify = groups["data"].add_parser("verify", help="re-hash every present data file against its declaration")
    verify.add_argument("names", nargs="*", metavar="NAME", help="data sets (default: all)")
    verify.add_argument("--data", help="data root looked at first")
    verify.set_defaults(handler=run_data_verify)
    mirror = groups["data"].add_parser(
        "mirror",
        help="write a folder that serves as a mirror (NEGKIT_DATA_MIRROR) with every declared file",
        description="Copy every declared file (hash-checked) from the data found locally, or fetch it, into OUT "
        "under its path; serve OUT over HTTP (python -m http.server) or point NEGKIT_DATA_MIRROR at it.",
    )
    mirror.add_argument("out", help="the mirror folder to write")
    mirror.add_argument("names", nargs="*", metavar="NAME", help="data sets (default: all)")
    mirror.add_argument("--data", help="data root looked at first")
    mirror.add_argument("--mirror", help=_MIRROR_HELP)
    mirror.set_defaults(handler=run_data_mirror)


def run_data_get(args: argparse.Namespace) -> int:
    if args.default:
        report = download_for_tasks(None, args.data, args.mirror)
    else:
        report = data_get(args.names, args.everything, args.data, args.mirror)
    print(
        f"{len(report.fetched)} file(s) downloaded ({human_size(report.downloaded_bytes)}), "
        f"{len(report.present)} already present"
    )
    return 0


def run_data_path(args: argparse.Namespace) -> int:
    print(data_path(args.name, args.data))
    return 0


def run_data_list(args: argparse.Namespace) -> int:
    sys.stdout.write(render_list(data_list(args.data), args.data))
    return 0


def run_data_verify(args: argparse.Namespace) -> int:
    bad = 0
    for status in data_verify(args.names, args.data):
        name = status.data_set.name
        if status.root is None:
            print(f"{name}\tmissing")
            continue
        for problem in status.problems:
            print(f"{name}\tCHANGED\t{problem}")
        bad += len(status.problems)
        missing = status.needed - status.present
        state = "ok" if not status.problems and not missing else f"{missing} missing" if missing else "changed"
        print(f"{name}\t{state}\t{status.root}")
    return 1 if bad else 0


def run_data_mirror(args: argparse.Namespace) -> int:
    report = data_mirror(args.out, args.names, args.data, args.mirror)
    print(
        f"{args.out}: {len(report.fetched)} file(s) written, {len(report.present)} already there, "
        f"{len(report.failed)} missing"
    )
    return 1 if report.failed else 0
