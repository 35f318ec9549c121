"""``negkit tind generate``, ``negkit tind realise`` and ``negkit tind check``: TIND from WordNet.

``generate`` builds the data set from WordNet 3.0 and the side resources; ``realise`` re-instantiates every
group of a raw release from its header alone (so that ``diff -r`` against the release shows any difference);
``check`` verifies a raw release or a generation folder. Realised and generated sentences are decrypted text:
like ``convert``, these commands refuse to write inside a git working tree unless ``--allow-in-git``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from negkit.benchmarks.tind.data import DEFAULT_PASSWORD, read_tind_hf, read_tind_raw, write_tind_raw
from negkit.cli.groups import CommandGroups
from negkit.cli.tind.data import copy_example_counts
from negkit.errors import DataNotFoundError, InputFormatError, NegkitError, quoted
from negkit.io.atomic import check_output_folder
from negkit.io.privacy import refuse_inside_git
from negkit.kit.arguments import positive_int, seed_value
from negkit.kit.data.locate import locate_dataset
from negkit.studies.tind.generator.check import check_groups, check_splits, format_report
from negkit.studies.tind.generator.generate import Generator, write_generation
from negkit.studies.tind.generator.report import comparison_table


def register(groups: CommandGroups) -> None:
    tind = groups["tind"]
    generate = tind.add_parser(
        "generate",
        help="generate TIND from WordNet 3.0 (raw files + jsonl splits)",
        description="Generate TIND from WordNet 3.0 and the side resources: select triples per pattern, draw "
        "distractors, instantiate the templates, split by group, write OUT/raw and OUT/jsonl. Prints per-pattern "
        "counts next to the paper's Table 2 and the overlap with the public half's group sources.",
    )
    generate.add_argument("--out", required=True, help="output folder (outside any git working tree)")
    generate.add_argument("--seed", type=seed_value, default=0, help="distractor seed (default 0)")
    generate.add_argument("--split-seed", type=seed_value, default=0, help="seed of the group-level split (default 0)")
    generate.add_argument("--patterns", help="comma-separated pattern numbers (default: all 11)")
    generate.add_argument("--limit", type=positive_int, help="at most this many triples per pattern")
    generate.add_argument("--public", help="raw-public.zip (or any raw release) to measure source overlap with")
    generate.add_argument(
        "--english",
        choices=("release", "corrected"),
        default="release",
        help="articles and plurals as in the authors' release (default: 'a herb', 'radioes') or "
        "pronunciation-aware English ('an herb', 'radios'); realise always uses the release's",
    )
    _add_common(generate)
    generate.set_defaults(handler=run_generate)

    realise = tind.add_parser(
        "realise",
        help="re-instantiate every group of a raw release from its header line",
        description="Rebuild every group of SRC (raw folder or zip) from its header alone and write the raw "
        "layout to OUT, so that `diff -r` against the (extracted) source shows every difference.",
    )
    realise.add_argument("source", metavar="SRC", help="raw folder, zip or pattern file")
    realise.add_argument("--out", required=True, help="output folder (outside any git working tree)")
    _add_common(realise)
    realise.set_defaults(handler=run_realise)

    check = tind.add_parser(
        "check",
        help="verify a raw release or a generation folder (labels, realisation, distractor rules, splits)",
        description="Verify a TIND data set: labels against the templates and the truth table, sentences against "
        "their headers, distractors against the rules, no group in two splits (generation folders with jsonl/), "
        "counts per pattern. Exit status 1 when a problem is found.",
    )
    check.add_argument("source", metavar="SRC", help="raw folder or zip, or a folder written by `negkit tind generate`")
    check.add_argument("--no-distractor-rules", action="store_true", help="skip the distractor rules")
    _add_common(check)
    check.set_defaults(handler=run_check)


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data", help="data root holding wordnet/ (and tind/); default: NEGKIT_DATA, ./data, ../shared/data"
    )
    parser.add_argument(
        "--wordnet", help="WordNet 3.0 dict folder (default: WNSEARCHDIR, $WNHOME/dict, /usr/share/wordnet)"
    )
    parser.add_argument("--password", default=DEFAULT_PASSWORD, help="zip password (default: the authors' 'hitz')")
    parser.add_argument("--allow-in-git", action="store_true", help="allow writing sentences inside a git working tree")


def _generator(args: argparse.Namespace, spelling: str = "release") -> Generator:
    return Generator.load(locate_dataset("wordnet", args.data), args.wordnet, spelling)


def run_generate(args: argparse.Namespace) -> int:
    out = Path(args.out)
    refuse_inside_git(out, args.allow_in_git, "TIND sentences")
    check_output_folder(out)
    parts = args.patterns.split(",") if args.patterns is not None else [str(number) for number in range(1, 12)]
    if not all(part.strip().isdigit() and 1 <= int(part) <= 11 for part in parts):
        raise NegkitError(f"--patterns takes numbers from 1 to 11, got {quoted(args.patterns)}")
    patterns = [int(part) for part in parts]
    start = time.perf_counter()
    generator = _generator(args, args.english)
    groups = generator.generate_groups(args.seed, patterns, args.limit)
    write_generation(groups, out, args.split_seed)
    public = _public_groups(args)
    print(comparison_table(groups, public))
    print(
        f"wrote {len(groups)} groups, {sum(len(g.items) for g in groups)} sentences to {out} "
        f"in {time.perf_counter() - start:.1f} s (seed {args.seed}, split seed {args.split_seed}, english {args.english})"
    )
    return 0


def _public_groups(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    if args.public:
        return read_tind_raw(args.public, args.password)
    try:
        path = locate_dataset("tind", args.data) / "raw-public.zip"
    except DataNotFoundError:
        return None
    return read_tind_raw(path, args.password) if path.exists() else None


def run_realise(args: argparse.Namespace) -> int:
    out = Path(args.out)
    refuse_inside_git(out, args.allow_in_git, "TIND sentences")
    check_output_folder(out)
    groups = read_tind_raw(args.source, args.password)
    generator = _generator(args)
    realised = []
    for group in groups:
        rebuilt = generator.realiser.realise_header(group)
        rebuilt.header = group.header
        realised.append(rebuilt)
    write_tind_raw(realised, out)
    copy_example_counts(args.source, args.password, out)
    lines = sum(len(g.items) for g in groups)
    same = sum(1 for old, new in zip(groups, realised) for a, b in zip(old.items, new.items) if a == b)
    print(
        f"realised {len(groups)} groups to {out}: {same}/{lines} sentence lines identical ({same / max(lines, 1):.4%})"
    )
    return 0


def _split_items(path: Path) -> list:
    """The items of one split file of a generation folder (an empty file: a split no group fell into)."""
    if path.is_file() and path.stat().st_size == 0:
        return []
    return read_tind_hf(path)


def run_check(args: argparse.Namespace) -> int:
    source = Path(args.source)
    generated = (source / "raw").is_dir() and (source / "jsonl").is_dir()
    groups = read_tind_raw(source / "raw" if generated else source, args.password)
    generator = _generator(args)
    rules = None if args.no_distractor_rules else generator.rules
    report = check_groups(groups, rules, generator.realiser)
    if generated:
        splits = {name: _split_items(source / "jsonl" / f"{name}.jsonl") for name in ("train", "validation", "test")}
        in_splits = {item.group_key for items in splits.values() for item in items}
        missing = [group for group in groups if group.key not in in_splits]
        if missing:
            raise InputFormatError(
                source / "jsonl",
                None,
                f"{len(missing)} groups of raw/ are in no split file (the "
                f"first: #{missing[0].pattern_id:02d} test {missing[0].group_id})",
            )
        check_splits(splits, report)
    print(format_report(report))
    return 0 if report.ok else 1
