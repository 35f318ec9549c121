"""``negkit resolution score|stats|validate``: the *SEM 2012 + NIS scorer and corpus statistics."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import TextIO

from negkit.cli.groups import CommandGroups
from negkit.errors import NegkitError
from negkit.kit.arguments import seed_value
from negkit.kit.metrics.intervals import DEFAULT_RESAMPLES, IntervalSettings
from negkit.resolution.corpora.cdsco import read_lines
from negkit.resolution.corpora.formats import read_corpus
from negkit.resolution.corpus_stats import ALL, CorpusStatisticsReport, count_split, split_statistics
from negkit.resolution.instances import CorpusStatistics, corpus_statistics, scope_length_counts
from negkit.resolution.metrics.nis import NisScores, mean_scores, score_nis
from negkit.resolution.metrics.starsem import count_starsem_by_sentence, score_starsem, validate_system
from negkit.resolution.metrics.starsem_intervals import starsem_intervals
from negkit.resolution.splits import ALL_CORPORA
from negkit.resolution.stats_report import length_table, markdown, split_table, write_figures


def register(groups: CommandGroups) -> None:
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
    score.add_argument(
        "--bootstrap",
        type=int,
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help="with --json: resamples of sentences for the 95%% interval of every row's P/R/F1 "
        f"(default: {DEFAULT_RESAMPLES}; 0: none)",
    )
    score.add_argument("--seed", type=seed_value, default=0, help="seed of the bootstrap (default: 0)")
    score.set_defaults(handler=run_score)

    stats = group.add_parser(
        "stats",
        help="count sentences, negation instances, cues, scopes and events; scope lengths; split tables",
        description="Corpus statistics of one or more files (one row per file and, for several files, their "
        "total), or with --corpus the counts of every split of the named corpora (CD-SCO's *SEM files, negkit's "
        "BioScope and SFU splits, NoReC_neg's files) and the negation instances by scope length (Sineva et al. "
        "2021, Figures 3-5).",
    )
    stats.add_argument("files", nargs="*", metavar="FILE", help="CD-SCO, BioScope or SFU file (or SFU folder)")
    stats.add_argument(
        "--corpus",
        nargs="+",
        choices=ALL_CORPORA,
        metavar="NAME",
        help=f"instead of files: per-split counts of these corpora ({', '.join(ALL_CORPORA)}; cd-neg: "
        "CD-SCO with coordinated negation split; norec: NoReC_neg, Norwegian)",
    )
    stats.add_argument("--data", help="with --corpus: data root holding the corpus folders")
    stats.add_argument("--lengths", action="store_true", help="also print negation instances by scope length")
    stats.add_argument(
        "--figures",
        metavar="DIR",
        help="write scope-length histograms (SVG and PNG) and an HTML page with the tables into DIR",
    )
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


def score_files(
    gold_path: str,
    system_paths: list[str],
    *,
    corrected: bool = False,
    strict: bool = True,
    bootstrap: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> dict:
    """Score every system file; return ``{"gold", "systems": [...], "intervals": {path: ...}, "nis_mean"?}`` with
    result objects; ``intervals`` holds 95% intervals of every *SEM row resampling sentences (none if
    ``bootstrap`` is 0).

    Everything is computed before anything is printed, so an error in the last file leaves no output.
    """
    gold = read_lines(gold_path)
    results = []
    intervals = {}
    for path in system_paths:
        system = read_lines(path)
        starsem = score_starsem(gold, system, strict=strict, corrected=corrected)
        nis = score_nis(gold, system, validate=False)  # validated by score_starsem
        results.append((path, starsem, nis))
        if bootstrap:
            sentences = count_starsem_by_sentence(gold, system, corrected=corrected)
            intervals[path] = starsem_intervals(sentences, IntervalSettings(bootstrap, seed))
    report: dict = {"gold": gold_path, "systems": results, "intervals": intervals}
    if len(results) > 1:
        report["nis_mean"] = mean_scores([nis.scores for _, _, nis in results])
    return report


def run_score(args: argparse.Namespace) -> int:
    if args.bootstrap < 0:
        raise NegkitError(f"--bootstrap must be 0 (no intervals) or a number of resamples, got {args.bootstrap}")
    report = score_files(
        args.gold,
        args.systems,
        corrected=args.corrected,
        strict=not args.lenient,
        bootstrap=args.bootstrap if args.json else 0,
        seed=args.seed,
    )
    out = sys.stdout
    if args.json:
        payload = {
            "gold": report["gold"],
            "corrected": args.corrected,
            "strict": not args.lenient,
            "systems": [
                {
                    "system": path,
                    "starsem": starsem.to_dict(),
                    "nis": nis.to_dict(),
                    **({"intervals": report["intervals"][path]} if path in report["intervals"] else {}),
                }
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


_STAT_COLUMNS = ("sentences", "negated_sentences", "instances", "cues", "scopes", "events", "unmapped")


def _write_stats_table(rows: list[tuple[str, CorpusStatistics]], out: TextIO, show_unmapped: bool) -> None:
    """One row per file (and a total row when there are several), columns right-aligned."""
    columns = [c for c in _STAT_COLUMNS if show_unmapped or c != "unmapped"]
    headers = ["file"] + [c.replace("_", " ") for c in columns]
    body = [[name] + [f"{getattr(stats, c):,}" for c in columns] for name, stats in rows]
    widths = [max(len(row[i]) for row in [headers, *body]) for i in range(len(headers))]
    for row in [headers, *body]:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
        out.write("  ".join(cells).rstrip() + "\n")


def _write_stats(stats: CorpusStatistics, out: TextIO, show_unmapped: bool) -> None:
    for column in _STAT_COLUMNS:
        if column != "unmapped" or show_unmapped:
            out.write(f"{column.replace('_', ' ')}: {getattr(stats, column)}\n")


def run_stats(args: argparse.Namespace) -> int:
    if bool(args.files) == bool(args.corpus):
        raise NegkitError("give corpus files or --corpus NAME..., not both and not neither")
    if args.corpus:
        return _run_split_stats(args)
    corpora = [read_corpus(path) for path in args.files]
    per_file = [(corpus.path, corpus_statistics(corpus.sentences, unmapped=corpus.unmapped)) for corpus in corpora]
    sentences = [sentence for corpus in corpora for sentence in corpus.sentences]
    total = corpus_statistics(sentences, unmapped=sum(corpus.unmapped for corpus in corpora))
    xml = any(corpus.format != "cdsco" for corpus in corpora)
    lengths = {str(path): scope_length_counts(corpus.sentences) for path, corpus in zip(args.files, corpora)}
    report = CorpusStatisticsReport(
        [count_split(str(path), ALL, corpus.sentences) for path, corpus in zip(args.files, corpora)], lengths
    )

    def as_dict(stats: CorpusStatistics) -> dict:
        return {k: v for k, v in vars(stats).items() if xml or k != "unmapped"}

    if args.figures:
        write_figures(report.to_dict(), args.figures, _command_line())
    if args.json:
        payload = {"files": list(args.files), **as_dict(total), "scope_lengths": report.to_dict()["scope_lengths"]}
        if len(per_file) > 1:
            payload["per_file"] = [{"file": path, **as_dict(stats)} for path, stats in per_file]
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if len(per_file) == 1:
        _write_stats(total, sys.stdout, xml)
    else:
        _write_stats_table([*per_file, ("total", total)], sys.stdout, xml)
    if args.lengths:
        sys.stdout.write("\n" + length_table(report.to_dict()) + "\n")
    return 0


def _run_split_stats(args: argparse.Namespace) -> int:
    report = split_statistics(args.corpus, args.data).to_dict()
    if args.figures:
        write_figures(report, args.figures, _command_line())
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.lengths:
        sys.stdout.write(markdown(report))
    else:
        sys.stdout.write(split_table(report) + "\n")
    return 0


def _command_line() -> str:
    """The command as typed (``negkit resolution stats ...``), quoted for a shell."""
    return shlex.join(["negkit", *sys.argv[1:]]) if sys.argv[1:2] == ["resolution"] else "negkit resolution stats"


def run_validate(args: argparse.Namespace) -> int:
    gold = read_lines(args.gold)
    system = read_lines(args.system)
    validate_system(gold, system, strict=not args.lenient)
    print(f"{args.system}: OK ({len(system.lines)} lines match {args.gold})")
    return 0
