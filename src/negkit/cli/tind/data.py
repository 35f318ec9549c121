"""``negkit tind convert`` and ``negkit tind stats``: move TIND between its formats and describe a data set.

Sources are a raw folder, the authors' encrypted zip (read in place), a ``#NN.Pattern.txt`` file, an
HF-layout ``.jsonl``/``.parquet`` file or folder, or the hub name. The authors keep their data encrypted so
that it stays out of LM training corpora: ``convert`` refuses to write decrypted sentences inside a git
working tree unless ``--allow-in-git`` is given.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from negkit.benchmarks.tind.data import (
    DEFAULT_PASSWORD,
    assign_splits,
    format_example_counts,
    is_raw_source,
    normalize_split,
    read_example_counts,
    read_tind_hf,
    read_tind_raw,
    split_groups,
    write_tind_jsonl,
    write_tind_parquet,
    write_tind_raw,
)
from negkit.benchmarks.tind.stats import tind_statistics
from negkit.benchmarks.tind.tables import statistics_table
from negkit.cli.groups import CommandGroups
from negkit.errors import InputFormatError
from negkit.io.atomic import atomic_write_text, check_output_folder
from negkit.io.privacy import refuse_inside_git
from negkit.kit.arguments import seed_value

_HF_SUFFIXES = (".jsonl", ".json", ".parquet")


def register(groups: CommandGroups) -> None:
    convert = groups["tind"].add_parser(
        "convert",
        help="convert between the raw files (folder or zip) and the HF layout (jsonl, parquet)",
        description="Convert TIND: raw folder/zip -> .jsonl/.parquet (HF layout) or raw folder; "
        "HF layout -> .jsonl/.parquet. The output format follows DST: a .jsonl/.json/.parquet file, else a folder.",
    )
    _add_source_arguments(convert, split_help="keep one split only (train, validation/dev, test)")
    convert.add_argument(
        "destination", metavar="DST", help="output .jsonl, .json or .parquet file, or a folder for raw files"
    )
    convert.add_argument("--extended", action="store_true", help="add template_id and kind to HF-layout records")
    convert.add_argument(
        "--allow-in-git", action="store_true", help="allow writing decrypted data inside a git working tree"
    )
    convert.set_defaults(handler=run_convert)

    stats = groups["tind"].add_parser(
        "stats",
        help="groups, sentences, label balance and split sizes per pattern",
        description="Describe a TIND data set: per pattern groups, sentences, True/False, kinds, negated "
        "sentences, and (raw sources) the group-level split sizes.",
    )
    _add_source_arguments(stats, split_help="one split only (raw sources: of the group-level split drawn with --seed)")
    stats.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    stats.set_defaults(handler=run_stats)


def _add_source_arguments(parser: argparse.ArgumentParser, split_help: str) -> None:
    parser.add_argument(
        "source", metavar="SRC", help="raw folder, zip or pattern file; or HF-layout file/folder/hub name"
    )
    parser.add_argument("--split", help=split_help)
    parser.add_argument(
        "--seed", type=seed_value, default=0, help="seed of the group-level split of raw sources (default 0)"
    )
    parser.add_argument("--password", default=DEFAULT_PASSWORD, help="zip password (default: the authors' 'hitz')")


def run_convert(args: argparse.Namespace) -> int:
    destination = Path(args.destination)
    refuse_inside_git(destination, args.allow_in_git, "decrypted data")
    to_raw = destination.suffix not in _HF_SUFFIXES
    if to_raw:
        check_output_folder(destination)
    if is_raw_source(args.source):
        groups = read_tind_raw(args.source, args.password)
        if args.split is not None:
            groups = split_groups(groups, args.seed)[normalize_split(args.split)]
        if to_raw:
            written = write_tind_raw(groups, destination)
            copy_example_counts(args.source, args.password, destination)
            print(f"wrote {len(groups)} groups in {len(written)} pattern files to {destination}")
            return 0
        items = [item for group in groups for item in group.items]
    else:
        if to_raw:
            raise InputFormatError(
                args.source,
                None,
                "cannot write raw files: the HF layout has no group headers "
                "(source triples, distractors). Convert from the raw folder or zip instead.",
            )
        items = read_tind_hf(args.source, args.split)
    if destination.suffix == ".parquet":
        count = write_tind_parquet(items, destination, extended=args.extended)
    else:
        count = write_tind_jsonl(items, destination, extended=args.extended)
    print(f"wrote {count} sentences to {destination}")
    return 0


def copy_example_counts(source: str, password: str, destination: Path) -> None:
    """Copy ``example_count.txt`` of a raw source into ``destination`` (used by convert and realise)."""
    try:
        counts = read_example_counts(source, password)
    except InputFormatError:  # a source without example_count.txt: nothing to copy
        return
    atomic_write_text(destination / "example_count.txt", format_example_counts(counts))


def run_stats(args: argparse.Namespace) -> int:
    if is_raw_source(args.source):
        groups = read_tind_raw(args.source, args.password)
        if args.split is not None:  # the groups of one split of the group-level split (seeded)
            groups = split_groups(groups, args.seed)[normalize_split(args.split)]
        items = [item for group in groups for item in group.items]
        stats = tind_statistics(items, assign_splits([group.key for group in groups], args.seed))
    else:
        stats = tind_statistics(read_tind_hf(args.source, args.split))
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        print(statistics_table(stats))
    return 0
