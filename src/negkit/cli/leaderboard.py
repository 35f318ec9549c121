"""``negkit leaderboard RUN_DIR... --out DIR``: a static, offline site ranking every model on every task
(see :mod:`negkit.leaderboard.site`)."""

from __future__ import annotations

import argparse

from negkit.cli.arguments import add_include_argument, add_run_interval_arguments, selected_run_tasks
from negkit.cli.groups import CommandGroups
from negkit.kit.suites import suite_view
from negkit.leaderboard.scaling import parse_parameters
from negkit.leaderboard.site import LeaderboardOptions, leaderboard

#: Place in ``negkit --help``: after ``compare``.
ORDER = 25


def register(groups: CommandGroups) -> None:
    parser = groups[""].add_parser(
        "leaderboard",
        help="a static leaderboard site: every model ranked on every task, intervals, heatmap, paired tests",
        description="Build a static site from `negkit eval` output folders, readable offline from its files: "
        "index.html ranks every model on every task by the suite's primary metric with 95% intervals, draws a "
        "model x task heatmap and marks which differences from each task's best model are significant (paired "
        "bootstrap over the suite's unit, on the items both scored); models/NAME.html per model links to its "
        "runs' report.html; leaderboard.json holds the numbers, leaderboard.md the tables in Markdown; "
        "figures/scaling-TASK.svg plots each task's primary metric against the parameter count. A RUN_DIR may be "
        "NAME=RUN_DIR: folders given the same NAME form one model (e.g. a constant baseline run once per suite); "
        "RUN_DIR#TASK,... takes only those tasks from a folder (e.g. a suite rerun at full size).",
    )
    parser.add_argument(
        "runs", nargs="+", metavar="RUN_DIR", help="output folders of `negkit eval` (or NAME=RUN_DIR, RUN_DIR#TASK,...)"
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="folder to write the site into")
    parser.add_argument(
        "--published",
        action="append",
        default=[],
        metavar="FILE",
        help="CSV of published reference rows (header: model,task,metric,value,source[,note][,params]); shown "
        "apart, marked 'published, not run here', never ranked; repeatable",
    )
    parser.add_argument(
        "--parameters",
        action="append",
        default=[],
        metavar="NAME=COUNT,...",
        help="parameter counts of models the catalogue does not know (e.g. SmolLM2-135M=135M,qwen=1.5B), for the "
        "scaling figures; repeatable",
    )
    add_run_interval_arguments(parser, "comma-separated tasks to include (default: every task a run has)")
    add_include_argument(parser)
    parser.set_defaults(handler=run_leaderboard)


def run_leaderboard(args: argparse.Namespace) -> int:
    tasks = selected_run_tasks(args)
    paths = leaderboard(
        args.runs,
        args.out,
        LeaderboardOptions(args.bootstrap, args.seed, tasks=tasks, allow_different_data=args.allow_different_data),
        suite_view,
        args.published,
        parse_parameters(args.parameters),
    )
    print(paths["index"])
    return 0
