"""``negkit compare RUN_DIR...``: a leaderboard of runs with 95% intervals and paired differences from a baseline
(see :mod:`negkit.commands.compare`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from negkit.cli.arguments import add_include_argument, add_run_interval_arguments, selected_run_tasks
from negkit.cli.groups import CommandGroups
from negkit.commands.compare import CompareOptions, compare, compare_markdown
from negkit.commands.compare_page import write_comparison
from negkit.commands.report import write_run_folder_html
from negkit.kit.suites import suite_view
from negkit.resolution.report import resolution_sections

#: Place in ``negkit --help``.
ORDER = 20


def register(groups: CommandGroups) -> None:
    parser = groups[""].add_parser(
        "compare",
        help="compare runs: leaderboard per suite and metric, intervals, paired differences from a baseline",
        description="Compare `negkit eval` output folders: per task, every run's headline metrics with 95% "
        "intervals, sorted by the suite's main metric, and each run's difference from the baseline run on the "
        "items both scored (paired bootstrap: interval and p-value). Prints Markdown (or JSON with --json); "
        "--out DIR also writes compare.md, compare.json and compare.html (a self-contained page with figures).",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR", help="output folders of `negkit eval`")
    parser.add_argument(
        "--baseline",
        metavar="RUN_DIR",
        help="the run the others are compared with (default: the first RUN_DIR); e.g. a run of "
        "`negkit eval --model random` or the base model of a fine-tuned one",
    )
    add_run_interval_arguments(parser, "comma-separated tasks to compare (default: every task a run has)")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON instead of Markdown")
    parser.add_argument("--out", metavar="DIR", help="also write compare.md, compare.json and compare.html into DIR")
    add_include_argument(parser)
    parser.set_defaults(handler=run_compare)

    report = groups[""].add_parser(
        "report",
        help="(re)write report.html and samples.html of a run folder",
        description="Write RUN_DIR/report.html (the self-contained page with every task's figures and tables) and "
        "RUN_DIR/samples.html (every item with its prompt, gold answer, prediction and scores; filterable and "
        "searchable) from the run folder's TASK.results.json, TASK.samples.jsonl and TASK.md files, e.g. for a "
        "folder written by an older negkit, or after adding a resolution*.json score.",
    )
    report.add_argument("run", metavar="RUN_DIR", help="an output folder of `negkit eval`")
    add_include_argument(report)
    report.set_defaults(handler=run_report)


def run_compare(args: argparse.Namespace) -> int:
    tasks = selected_run_tasks(args)
    comparison = compare(
        args.runs,
        args.baseline,
        CompareOptions(args.bootstrap, args.seed, tasks=tasks, allow_different_data=args.allow_different_data),
        suite_view,
    )
    if args.out:
        write_comparison(comparison, Path(args.out))
    print(
        json.dumps(comparison, indent=2, ensure_ascii=False) if args.json else compare_markdown(comparison),
        end="\n" if args.json else "",
    )
    return 0


def run_report(args: argparse.Namespace) -> int:
    folder = Path(args.run)
    print(write_run_folder_html(folder, suite_view, resolution_sections(folder)))
    return 0
