"""``negkit tind human-eval-sample`` and ``negkit tind human-eval-table``: TIND's human evaluation (paper Table 3;
see :mod:`negkit.studies.tind.human_eval`)."""

from __future__ import annotations

import argparse
import json

from negkit.cli.groups import CommandGroups
from negkit.kit.arguments import seed_value


def register(groups: CommandGroups) -> None:
    sample = groups["tind"].add_parser(
        "human-eval-sample",
        help="TIND Table 3: write an annotation sheet of 20 sentences per pattern (220) and its key",
        description="Draw the human-evaluation sample (per pattern, --per-pattern sentences spread evenly over the "
        "four cells input/distractor x affirmative/negative, from different groups) and write the annotation sheet "
        "(CSV, one empty column per question) to the path you name, never inside a git working tree, with its key "
        "beside it (SHEET.key.json: ids and gold labels, no sentences). Then: negkit tind human-eval-table.",
    )
    sample.add_argument("--data", help="TIND: data root, raw folder or zip, HF files or hub name (default: found)")
    sample.add_argument("--split", default="all", help="all (default), train, validation or test")
    sample.add_argument("--split-seed", type=seed_value, default=0, help="seed of the raw release's group split")
    sample.add_argument("--per-pattern", type=int, default=20, help="sentences per pattern (default 20: 220 in all)")
    sample.add_argument("--seed", type=seed_value, default=0, help="seed of the sample and of the sheet's order")
    sample.add_argument("--out", required=True, help="the sheet to write (CSV), outside any git working tree")
    sample.set_defaults(handler=run_sample)

    table = groups["tind"].add_parser(
        "human-eval-table",
        help="TIND Table 3 from filled annotation sheets (one per annotator)",
        description="Read the filled sheets and the key of negkit tind human-eval-sample and print, per pattern and "
        "over all sentences, the percentage judged grammatical and meaningful and the percentage whose negation "
        "and truth judgements match the data (mean over annotators; with several sheets also their agreement).",
    )
    table.add_argument("sheets", nargs="+", metavar="SHEET", help="filled sheets (CSV)")
    table.add_argument("--key", help="the key (default: the first sheet's SHEET.key.json)")
    table.add_argument("--json", action="store_true", help="print the numbers as JSON instead of Markdown")
    table.set_defaults(handler=run_table)


def run_sample(args: argparse.Namespace) -> int:
    from negkit.benchmarks.tind.data import read_tind
    from negkit.benchmarks.tind.task import tind_source
    from negkit.studies.tind.human_eval import sample_for_annotation, write_sheet

    source = tind_source(args.data)
    items = read_tind(source, None if args.split == "all" else args.split, args.split_seed)
    chosen = sample_for_annotation(items, args.per_pattern, args.seed)
    key = write_sheet(args.out, chosen, args.seed)
    patterns = sorted({item.pattern_id for item in chosen})
    print(json.dumps({"sentences": len(chosen), "patterns": patterns, "sheet": args.out, "key": str(key)}))
    return 0


def run_table(args: argparse.Namespace) -> int:
    from negkit.studies.tind.human_eval import human_eval_markdown, human_eval_table, key_path, read_key, read_sheet

    key = read_key(args.key or key_path(args.sheets[0]))
    table = human_eval_table(key, [read_sheet(sheet, key) for sheet in args.sheets])
    print(json.dumps(table, indent=2) if args.json else human_eval_markdown(table), end="\n" if args.json else "")
    return 0
