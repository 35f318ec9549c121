"""``negkit nan-nli ...``: NaN-NLI's own commands (the MNLI-neg extractor of the paper's Table 5)."""

from __future__ import annotations

import argparse
import json

from negkit.kit.command_context import CommandContext, CommandGroups

#: Place in ``negkit --help``.
ORDER = 55
#: The command group this benchmark adds.
GROUPS = {"nan-nli": "NaN-NLI: the MNLI-neg extractor (Table 5)"}


def register(groups: CommandGroups, context: CommandContext) -> None:
    extract = groups["nan-nli"].add_parser(
        "mnli-neg",
        help="NaN-NLI Table 5: write MNLI-neg, MNLI's pairs with negation, from a copy of MNLI",
        description="Select the pairs of an MNLI file (the release's .jsonl or .txt, GLUE's .tsv, or the Hugging "
        "Face layout) whose premise (--side) carries a negation cue, and write them as mnli_neg.jsonl; put the file "
        "in DATA/mnli-neg/ and evaluate the task mnli-neg (with negnli-mnli and nan-nli the run's report prints "
        "Table 5 with its three columns). MNLI is not distributed with negkit.",
    )
    extract.add_argument("mnli", metavar="MNLI_FILE", help="an MNLI file, e.g. multinli_1.0_dev_matched.jsonl")
    extract.add_argument("--out", required=True, help="the file to write (DATA/mnli-neg/mnli_neg.jsonl)")
    extract.add_argument(
        "--side",
        choices=("premise", "hypothesis", "either", "both"),
        default="premise",
        help="the sentence that must carry a negation cue (default: premise)",
    )
    extract.add_argument(
        "--cues", help="a cue list, one cue per line (default: not, n't, no, never, nothing, nobody, none, ...)"
    )
    extract.set_defaults(handler=run_mnli_neg)


def run_mnli_neg(args: argparse.Namespace) -> int:
    from negkit.benchmarks.nan_nli.mnli_neg import (
        DEFAULT_CUES,
        extract_mnli_neg,
        read_cues,
        read_mnli,
        write_mnli_neg,
    )

    cues = read_cues(args.cues) if args.cues else DEFAULT_CUES
    kept, summary = extract_mnli_neg(read_mnli(args.mnli), args.side, cues)
    write_mnli_neg(args.out, kept)
    print(json.dumps(summary | {"out": args.out}))
    return 0
