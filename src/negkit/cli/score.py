"""``negkit score SUITE PREDICTIONS``: a suite's metrics for predictions made elsewhere (the scorers are the
library package :mod:`negkit.commands.score`; this module parses the arguments and prints).

``--json`` prints the metrics dictionary (the suite's own metric names, e.g. the TIND authors' keys);
otherwise the Markdown tables are printed. ``--out`` also writes the JSON to a file. A scorer with an
``intervals`` parameter also gets ``--bootstrap N`` and ``--seed``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from negkit.cli.arguments import add_include_argument
from negkit.cli.groups import CommandGroups
from negkit.commands.score import score_predictions, scored_suites
from negkit.errors import NegkitError
from negkit.io.atomic import atomic_write_text
from negkit.kit.arguments import seed_value
from negkit.kit.metrics.intervals import DEFAULT_RESAMPLES, IntervalSettings

#: Place in ``negkit --help``.
ORDER = 60
#: Command groups this module adds commands to.
GROUPS = {"score": "compute a suite's metrics from a predictions file made elsewhere"}


def register(groups: CommandGroups) -> None:
    for suite in scored_suites():
        # the suite's main task name is also accepted (e.g. nubench for thunder-nubench), as before suites existed
        aliases = [name for name in (*suite.aliases, suite.main_task) if name != suite.name]
        parser = groups["score"].add_parser(
            suite.name,
            aliases=list(dict.fromkeys(aliases)),
            help=suite.scorer_help or f"score {suite.name} predictions ({{item_id or index, prediction}} lines)",
            description=suite.scorer_help
            or f"Score {suite.name} predictions: JSON Lines of {{item_id (or index: "
            "the N-th item), prediction (an answer or its index)}, or negkit eval's samples file.",
        )
        parser.add_argument("predictions", metavar="PREDICTIONS", type=Path, help="the predictions file")
        parser.add_argument("--json", action="store_true", help="print the metrics as JSON instead of Markdown tables")
        parser.add_argument("--out", type=Path, help="also write the metrics as JSON to this file")
        parser.add_argument("--name", default="predictions", help="the run's name in the tables")
        parser.add_argument("--data", help="gold data for suites that need it: a data root or data set folder")
        parser.add_argument(
            "--bootstrap",
            type=int,
            default=DEFAULT_RESAMPLES,
            metavar="N",
            help=f"bootstrap resamples for the 95%% intervals (default: {DEFAULT_RESAMPLES}; 0: none)",
        )
        parser.add_argument("--seed", type=seed_value, default=0, help="seed of the bootstrap (default: 0)")
        add_include_argument(parser)
        parser.set_defaults(handler=run_score, suite=suite.name)


def run_score(args: argparse.Namespace) -> int:
    if args.bootstrap < 0:
        raise NegkitError(f"--bootstrap must be 0 (no intervals) or a number of resamples, got {args.bootstrap}")
    intervals = IntervalSettings(args.bootstrap, args.seed) if args.bootstrap else None
    result = score_predictions(args.suite, args.predictions, name=args.name, data=args.data, intervals=intervals)
    text = json.dumps(result.metrics, indent=2, ensure_ascii=False)
    if args.out:
        atomic_write_text(args.out, text + "\n")
    print(text if args.json else result.markdown, end="\n" if args.json else "")
    return 0
