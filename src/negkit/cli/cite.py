"""``negkit cite [TARGET ...]``: print the BibTeX of negkit and of the papers behind tasks or a run
(see :mod:`negkit.commands.cite`)."""

from __future__ import annotations

import argparse
import sys

from negkit.cli.arguments import add_include_argument
from negkit.cli.groups import CommandGroups
from negkit.commands.cite import cite
from negkit.io.atomic import atomic_write_text
from negkit.kit.citations import bibtex_text

#: Place in ``negkit --help``: after ``data``.
ORDER = 85


def register(groups: CommandGroups) -> None:
    parser = groups[""].add_parser(
        "cite",
        help="BibTeX for negkit and the papers behind tasks or a run folder",
        description="Print the BibTeX entries to cite: negkit's own, then those of the papers whose data and "
        "protocols the named tasks, suites or groups use, or that a `negkit eval` output folder used (each paper "
        "once). With no target, every benchmark's.",
    )
    parser.add_argument(
        "targets",
        nargs="*",
        metavar="TASKS|RUN_DIR",
        help="task, suite or group names (comma-separated) or run folders",
    )
    parser.add_argument("--keys", action="store_true", help="print only the citation keys, one per line")
    parser.add_argument("--out", help="write the BibTeX to this file instead of printing it")
    add_include_argument(parser)
    parser.set_defaults(handler=run_cite)


def run_cite(args: argparse.Namespace) -> int:
    entries = cite(args.targets)
    text = "\n".join(entries) + "\n" if args.keys else bibtex_text(entries)
    if args.out:
        atomic_write_text(args.out, text)
        print(f"{len(entries)} entries written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
