"""``negkit nan-nli ...``: NaN-NLI's own commands (the MNLI-neg extractor of the paper's Table 5)."""

from __future__ import annotations

import argparse
import json

from negkit.kit.command_context import CommandContext, CommandGroups

#: Place in ``negkit --help``.
ORDER = 55
#: The command group this benchmark adds.
GROUPS = {"nan-nli": "NaN-NLI: the MNLI-neg extractor (Table 5), analyses of a run (§5.1, Table 7)"}


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

    analysis = groups["nan-nli"].add_parser(
        "analysis",
        help="NaN-NLI §5.1 and Table 7: predicted labels by negation type with chi-squared tests, examples",
        description="Read one model's NaN-NLI predictions (negkit eval's nan-nli.samples.jsonl, or {item_id, "
        "prediction} lines) and print the predicted labels by the negation type of the hypothesis and of the "
        "premise, chi-squared tests of independence between negation groups and the predicted (and gold) label, "
        "and examples per construction with the model's labels.",
    )
    analysis.add_argument("predictions", metavar="PREDICTIONS", help="nan-nli.samples.jsonl or a predictions file")
    analysis.add_argument("--data", help="data root or NaN-NLI folder (default: NEGKIT_DATA, ./data, ../shared/data)")
    analysis.add_argument("--examples", type=int, default=2, help="examples per construction (default 2; 0: all)")
    analysis.add_argument("--wrong-only", action="store_true", help="list only wrongly labelled pairs")
    analysis.add_argument("--json", action="store_true", help="print the numbers as JSON instead of Markdown")
    analysis.add_argument("--out", help="also write the Markdown (or with --json the JSON) to this file")
    analysis.set_defaults(handler=run_analysis)


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


def run_analysis(args: argparse.Namespace) -> int:
    from pathlib import Path

    from negkit.benchmarks.nan_nli import DATA_FILE, NanNLITask
    from negkit.benchmarks.nan_nli.analysis import analysis_markdown, nan_nli_analysis
    from negkit.benchmarks.nan_nli.data import read_nan_nli
    from negkit.errors import NegkitError
    from negkit.io.atomic import atomic_write_text
    from negkit.kit.data.locate import locate_dataset

    if args.examples < 0:
        raise NegkitError(f"--examples must be 0 (all) or more, got {args.examples}")
    items = read_nan_nli(locate_dataset("nan-nli", args.data) / DATA_FILE)
    task = NanNLITask()
    records = task.predictions(Path(args.predictions), items)
    by_id = {record["item_id"]: record for record in records}
    chosen = [item for item in items if item.item_id in by_id]
    if not chosen:
        raise NegkitError(f"{args.predictions}: no prediction names a NaN-NLI pair")
    predicted = task.predicted_labels([by_id[item.item_id] for item in chosen])
    numbers = nan_nli_analysis(chosen, predicted, args.examples, args.wrong_only)
    text = json.dumps(numbers, indent=2, ensure_ascii=False) + "\n" if args.json else analysis_markdown(numbers)
    if args.out:
        atomic_write_text(args.out, text)
    print(text, end="")
    return 0
