"""``negkit resolution score|stats|validate``: the *SEM 2012 + NIS scorer and corpus statistics."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from negkit.data.cdsco import read_lines
from negkit.data.corpora import read_corpus
from negkit.data.resolution import CorpusStatistics, corpus_statistics
from negkit.metrics.nis import NisScores, mean_scores, score_nis
from negkit.metrics.starsem import score_starsem, validate_system


def register(groups) -> None:
    """Add the ``resolution`` sub-commands."""
    group = groups["resolution"]

    score = group.add_parser(
        "score",
        help="score CD-SCO system files with the *SEM 2012 scorer and NIS",
        description=(
            "Score one or more CD-SCO system files against a gold file: the official *SEM 2012 table "
            "(eval.cd-sco.pl v2.2, identical numbers) and the NIS metrics; with several system files, "
            "the mean of each NIS number follows."
        ),
    )
    score.add_argument("gold", help="gold CD-SCO file")
    score.add_argument("systems", nargs="+", metavar="SYSTEM", help="system CD-SCO file(s)")
    score.add_argument("--json", action="store_true", help="print JSON instead of tables")
    score.add_argument(
        "--corrected", action="store_true", help="fix the official scorer's known quirks (see docs/scorer.md)"
    )
    score.add_argument(
        "--lenient",
        action="store_true",
        help="accept what the official scorer accepts (7-field system sentences, empty sentences, ...)",
    )
    score.set_defaults(handler=run_score)

    stats = group.add_parser(
        "stats",
        help="count sentences, negation instances, cues, scopes and events",
        description="Corpus statistics of one or more files (several files are counted as one corpus).",
    )
    stats.add_argument("files", nargs="+", metavar="FILE", help="CD-SCO, BioScope or SFU file (or SFU folder)")
    stats.add_argument("--json", action="store_true", help="print JSON")
    stats.set_defaults(handler=run_stats)

    validate = group.add_parser(
        "validate",
        help="check a CD-SCO system file against its gold file without scoring it",
        description="Run every check the scorer makes (alignment, columns, cue layout) and report the first problem.",
    )
    validate.add_argument("system", help="system CD-SCO file")
    validate.add_argument("--gold", required=True, help="gold CD-SCO file")
    validate.add_argument("--lenient", action="store_true", help="only the official scorer's checks")
    validate.set_defaults(handler=run_validate)


def score_files(gold_path: str, system_paths: list[str], *, corrected: bool = False, strict: bool = True) -> dict:
    """Score every system file; return ``{"gold", "systems": [...], "nis_mean"?}`` with result objects.

    Everything is computed before anything is printed, so an error in the last file leaves no output.
    """
    gold = read_lines(gold_path)
    results = []
    for path in system_paths:
        system = read_lines(path)
        starsem = score_starsem(gold, system, strict=strict, corrected=corrected)
        nis = score_nis(gold, system, validate=False)  # validated by score_starsem
        results.append((path, starsem, nis))
    report: dict = {"gold": gold_path, "systems": results}
    if len(results) > 1:
        report["nis_mean"] = mean_scores([nis.scores for _, _, nis in results])
    return report


def run_score(args: argparse.Namespace) -> int:
    report = score_files(args.gold, args.systems, corrected=args.corrected, strict=not args.lenient)
    out = sys.stdout
    if args.json:
        payload = {
            "gold": report["gold"],
            "corrected": args.corrected,
            "strict": not args.lenient,
            "systems": [
                {"system": path, "starsem": starsem.to_dict(), "nis": nis.to_dict()}
                for path, starsem, nis in report["systems"]
            ],
        }
        if "nis_mean" in report:
            payload["nis_mean"] = report["nis_mean"].to_dict()
        json.dump(payload, out, indent=2)
        out.write("\n")
        return 0
    several = len(report["systems"]) > 1
    for path, starsem, nis in report["systems"]:
        if several:
            out.write(f"== {path}\n")
        out.write(starsem.format_table())
        out.write(nis.scores.format_block())
        if several:
            out.write("\n")
    if several:
        mean: NisScores = report["nis_mean"]
        out.write(mean.format_block(f"NIS mean of {len(report['systems'])} files"))
    return 0


def _write_stats(stats: CorpusStatistics, out: TextIO, show_unmapped: bool) -> None:
    out.write(f"sentences: {stats.sentences}\n")
    out.write(f"negated sentences: {stats.negated_sentences}\n")
    out.write(f"instances: {stats.instances}\n")
    out.write(f"cues: {stats.cues}\n")
    out.write(f"scopes: {stats.scopes}\n")
    out.write(f"events: {stats.events}\n")
    if show_unmapped:
        out.write(f"unmapped: {stats.unmapped}\n")


def run_stats(args: argparse.Namespace) -> int:
    corpora = [read_corpus(path) for path in args.files]
    sentences = [sentence for corpus in corpora for sentence in corpus.sentences]
    stats = corpus_statistics(sentences, unmapped=sum(corpus.unmapped for corpus in corpora))
    xml = any(corpus.format != "cdsco" for corpus in corpora)
    if args.json:
        payload = {"files": list(args.files), **{k: v for k, v in vars(stats).items() if xml or k != "unmapped"}}
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _write_stats(stats, sys.stdout, xml)
    return 0


def run_validate(args: argparse.Namespace) -> int:
    gold = read_lines(args.gold)
    system = read_lines(args.system)
    validate_system(gold, system, strict=not args.lenient)
    print(f"{args.system}: OK ({len(system.lines)} lines match {args.gold})")
    return 0
