"""``negkit nan-nli ...``: NaN-NLI's own commands (the MNLI-neg extractor of the paper's Table 5)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from negkit.cli.groups import CommandGroups

#: Place in ``negkit --help``.
ORDER = 55
#: The command group this benchmark adds.
GROUPS = {"nan-nli": "NaN-NLI: the MNLI-neg extractor (Table 5), analyses of a run (§5.1, Table 7)"}


def register(groups: CommandGroups) -> None:
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

    similarity = groups["nan-nli"].add_parser(
        "bertscore",
        help="NaN-NLI Table 4: premise-hypothesis BERTScore F1 per class of NaN-NLI, NegNLI and MNLI-neg",
        description="Score every premise-hypothesis pair with BERTScore (Zhang et al., 2020: greedy cosine matching of "
        "contextual token embeddings; hypothesis against premise) and print the mean F1 per class and over all pairs "
        "for each data set: NaN-NLI, NegNLI (MNLI.txt) and MNLI-neg (when DATA/mnli-neg holds it), or the files of "
        "--set. The encoder and its layer are named in the output.",
    )
    similarity.add_argument("--data", help="data root (default: NEGKIT_DATA, ./data, ../shared/data)")
    similarity.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="a data set to score instead of the defaults (nan.csv, mnli_neg.jsonl, or a tab-separated NLI file); "
        "repeatable",
    )
    similarity.add_argument(
        "--model",
        default="roberta-large",
        help="encoder: hub name or local folder (default: roberta-large, the BERTScore package's English default)",
    )
    similarity.add_argument("--layer", type=int, help="hidden layer (default: 17 for roberta-large, else the last)")
    similarity.add_argument("--idf", action="store_true", help="weight tokens by idf over the premises (default: off)")
    similarity.add_argument("--limit", type=int, help="only the first N pairs of each data set (a quick look)")
    similarity.add_argument("--json", action="store_true", help="print the numbers as JSON instead of Markdown")
    similarity.add_argument("--out", help="also write the Markdown (or with --json the JSON) to this file")
    similarity.set_defaults(handler=run_bertscore)

    swap = groups["nan-nli"].add_parser(
        "gender-swap",
        help="NaN-NLI §5.3: write a copy of the data with gendered words swapped (he/she, his/her, brother/sister...)",
        description="Write OUT/nan-nli/nan.csv: nan.csv with the gendered words of every premise and hypothesis "
        "swapped, every other column as it was. Evaluate the model on it (negkit eval --data OUT ...) and compare "
        "its predictions with the original run's: negkit nan-nli gender-swap-change BEFORE AFTER.",
    )
    swap.add_argument("--data", help="data root or NaN-NLI folder (default: NEGKIT_DATA, ./data, ../shared/data)")
    swap.add_argument("--out", required=True, help="a new data root: the copy goes to OUT/nan-nli/nan.csv")
    swap.add_argument("--swap", action="append", default=[], metavar="A=B", help="one more pair, e.g. Ed=Emma")
    swap.set_defaults(handler=run_gender_swap)

    change = groups["nan-nli"].add_parser(
        "gender-swap-change",
        help="NaN-NLI §5.3: how a model's labels changed from the original to the gender-swapped pairs",
        description="Read the model's predictions on the original pairs and on the swapped ones (negkit eval's "
        "nan-nli.samples.jsonl of each run) and print accuracy and All F1 before and after, over all pairs and over "
        "the pairs the swap changed, and which labels changed.",
    )
    change.add_argument("before", metavar="BEFORE", help="predictions on the original pairs")
    change.add_argument("after", metavar="AFTER", help="predictions on the swapped pairs")
    change.add_argument("--data", help="the original data root or NaN-NLI folder")
    change.add_argument("--swap", action="append", default=[], metavar="A=B", help="the pairs added to the swap")
    change.add_argument("--json", action="store_true", help="print the numbers as JSON instead of Markdown")
    change.set_defaults(handler=run_gender_swap_change)


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

    from negkit.benchmarks.nan_nli import DATA_FILE, NAN_NLI
    from negkit.benchmarks.nan_nli.data import read_nan_nli
    from negkit.errors import NegkitError
    from negkit.io.atomic import atomic_write_text
    from negkit.kit.data.locate import locate_dataset
    from negkit.studies.nan_nli.analysis import analysis_markdown, nan_nli_analysis

    if args.examples < 0:
        raise NegkitError(f"--examples must be 0 (all) or more, got {args.examples}")
    items = read_nan_nli(locate_dataset("nan-nli", args.data) / DATA_FILE)
    task = NAN_NLI.task()
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


def _data_sets(args: argparse.Namespace) -> dict[str, list[tuple[str, str, str]]]:
    from negkit.errors import DataNotFoundError, NegkitError
    from negkit.kit.data.locate import locate_dataset
    from negkit.studies.nan_nli.similarity import read_pairs

    files: dict[str, str | Path] = {}
    for entry in args.set:
        name, _, path = entry.partition("=")
        if not name or not path:
            raise NegkitError(f"--set {entry!r}: expected NAME=FILE")
        files[name] = path
    if not files:
        files = {"NaN-NLI": locate_dataset("nan-nli", args.data) / "nan.csv"}
        for name, folder, file in (("NegNLI", "negation-nli", "MNLI.txt"), ("MNLI-neg", "mnli-neg", "mnli_neg.jsonl")):
            try:
                files[name] = locate_dataset(folder, args.data) / file
            except DataNotFoundError:
                print(f"negkit: note: {name} not found; left out of the table", file=sys.stderr)
    sets = {name: read_pairs(path) for name, path in files.items()}
    if args.limit is not None:
        sets = {name: pairs[: args.limit] for name, pairs in sets.items()}
    return sets


def run_bertscore(args: argparse.Namespace) -> int:
    from negkit.io.atomic import atomic_write_text
    from negkit.studies.nan_nli.similarity import TokenEncoder, bertscore_markdown, bertscore_table

    sets = _data_sets(args)
    table = bertscore_table(sets, TokenEncoder(args.model, args.layer), args.idf)
    text = json.dumps(table, indent=2) + "\n" if args.json else bertscore_markdown(table)
    if args.out:
        atomic_write_text(args.out, text)
    print(text, end="")
    return 0


def _swap_pairs(values: list[str]) -> list[tuple[str, str]]:
    from negkit.errors import NegkitError

    pairs = []
    for value in values:
        left, _, right = value.partition("=")
        if not left.strip() or not right.strip():
            raise NegkitError(f"--swap {value!r}: expected A=B")
        pairs.append((left.strip(), right.strip()))
    return pairs


def run_gender_swap(args: argparse.Namespace) -> int:
    from pathlib import Path

    from negkit.benchmarks.nan_nli import DATA_FILE
    from negkit.kit.data.locate import locate_dataset
    from negkit.studies.nan_nli.gender_swap import write_swapped

    source = locate_dataset("nan-nli", args.data) / DATA_FILE
    summary = write_swapped(source, Path(args.out) / "nan-nli" / DATA_FILE, _swap_pairs(args.swap))
    print(json.dumps(summary))
    print(f"next: negkit eval --data {args.out} --tasks nan-nli ... (the same model and options as the original run)")
    return 0


def run_gender_swap_change(args: argparse.Namespace) -> int:
    from pathlib import Path

    from negkit.benchmarks.nan_nli import DATA_FILE, NAN_NLI
    from negkit.benchmarks.nan_nli.data import read_nan_nli
    from negkit.errors import NegkitError
    from negkit.kit.data.locate import locate_dataset
    from negkit.studies.nan_nli.gender_swap import swap_change, swap_change_markdown

    items = read_nan_nli(locate_dataset("nan-nli", args.data) / DATA_FILE)
    task = NAN_NLI.task()
    labels = []
    for path in (args.before, args.after):
        by_id = {record["item_id"]: record["prediction"] for record in task.predictions(Path(path), items)}
        labels.append(by_id)
    common = [item for item in items if item.item_id in labels[0] and item.item_id in labels[1]]
    if not common:
        raise NegkitError(f"{args.before}, {args.after}: no NaN-NLI pair has a prediction in both")
    report = swap_change(
        common,
        [labels[0][item.item_id] for item in common],
        [labels[1][item.item_id] for item in common],
        _swap_pairs(args.swap),
    )
    print(json.dumps(report, indent=2) if args.json else swap_change_markdown(report), end="\n" if args.json else "")
    return 0
