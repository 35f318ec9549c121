"""``negkit resolution baseline|train|predict|evaluate|tag``: negation resolution systems.

Each handler calls one library function of :mod:`negkit.resolution` and renders its result.
"""

from __future__ import annotations

import argparse
import json
import sys

from negkit.cli.groups import CommandGroups
from negkit.cli.resolution.training import add_train_arguments, run_train
from negkit.errors import NegkitError
from negkit.io.textfiles import decode_utf8, read_text
from negkit.kit.arguments import non_negative, seed_value
from negkit.resolution.corpora.cdsco import format_cdsco
from negkit.resolution.evaluate import evaluate_model, format_evaluation, score_sentences
from negkit.resolution.predict import baseline, corpus_sentences, gold_document, predict, write_system
from negkit.resolution.splits import ALL_CORPORA
from negkit.resolution.tagging import load_tagging_system, raw_sentences, sentence_to_json


def register(groups: CommandGroups) -> None:
    """Add the system commands to the ``resolution`` group."""
    commands = groups["resolution"]

    baseline = commands.add_parser(
        "baseline",
        help="punctuation baseline (Punct-BL) on gold cues: write a CD-SCO system file",
        description="Keep the gold cues of a corpus (a CD-SCO file, BioScope XML, an SFU Review folder or file, "
        "or a split of a named corpus) and give each a scope from its first cue token rightwards up to the next "
        "punctuation token (Sineva et al. 2021); write the result as a CD-SCO system file.",
    )
    _add_input_arguments(baseline, "gold")
    baseline.add_argument("--out", required=True, help="system file to write ('-' for standard output)")
    _add_gold_out_and_score(baseline)
    baseline.set_defaults(handler=run_baseline)

    train = commands.add_parser(
        "train",
        help="train a negation resolution system (cue tagger + scope resolver, or a DP system) on a corpus",
        description="Train on a corpus's train split, choosing epochs on its dev split, and write a model folder. "
        "--system cue-scope (default): a cue tagger and a scope resolver; dp-direct, dp-nested (+ -synt): negation "
        "resolution as dependency graph parsing, cues and scopes in one step (Sineva et al. 2021). Every setting is "
        "recorded in the model folder.",
    )
    add_train_arguments(train)
    train.set_defaults(handler=run_train)

    predict = commands.add_parser("predict", help="predict cues and scopes for a corpus file, write CD-SCO")
    predict.add_argument("model", help="model folder written by `negkit resolution train`")
    _add_input_arguments(predict, "input")
    predict.add_argument("--out", required=True, help="system file to write ('-' for standard output)")
    predict.add_argument(
        "--gold-cues", action="store_true", help="keep the input's annotated cues and predict only their scopes"
    )
    _add_gold_out_and_score(predict)
    predict.set_defaults(handler=run_predict)

    evaluate = commands.add_parser("evaluate", help="score a model on the test split of one or more corpora")
    evaluate.add_argument("model", help="model folder written by `negkit resolution train`")
    evaluate.add_argument("--corpus", nargs="+", default=["cd-sco"], choices=ALL_CORPORA)
    evaluate.add_argument("--split", default="test", choices=("train", "dev", "test"))
    evaluate.add_argument(
        "--gold-cues",
        action="store_true",
        help="give the scope resolver the gold cues (scope resolution alone, as NegBERT reports it)",
    )
    evaluate.add_argument(
        "--bootstrap",
        type=non_negative,
        default=0,
        metavar="N",
        help="resamples of sentences for 95%% intervals of every score (default 0: none; 1000 is usual)",
    )
    evaluate.add_argument("--seed", type=seed_value, default=0, help="seed of the bootstrap (default: 0)")
    evaluate.add_argument("--data", help="data root holding the corpus folders")
    evaluate.add_argument("--json", action="store_true", help="print JSON instead of a table")
    evaluate.set_defaults(handler=run_evaluate)

    tag = commands.add_parser("tag", help="find negation cues and scopes in raw text")
    tag.add_argument("text", nargs="?", help="text to tag (or use --file)")
    tag.add_argument("--file", help="read the text from this file ('-' for standard input)")
    tag.add_argument(
        "--model",
        help="model folder (default: $NEGKIT_RESOLUTION_MODEL or the cache folder; "
        "without one a word-list + punctuation fallback is used and says so)",
    )
    tag.add_argument("--format", default="text", choices=("text", "json", "cdsco"))
    tag.set_defaults(handler=run_tag)


def _add_input_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument(
        name,
        nargs="?",
        metavar=name.upper(),
        help="CD-SCO file, BioScope XML file, SFU Review folder or XML file (or use --corpus)",
    )
    parser.add_argument(
        "--corpus",
        choices=ALL_CORPORA,
        help="read a split of this corpus instead of a file (BioScope, SFU: negkit's fixed splits; norec: "
        "NoReC_neg's own train / dev / test files)",
    )
    parser.add_argument(
        "--split", default="test", choices=("train", "dev", "test"), help="with --corpus (default: test)"
    )
    parser.add_argument("--data", help="with --corpus: data root holding the corpus folders")


def _add_gold_out_and_score(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--gold-out",
        metavar="FILE",
        help="also write the gold annotation of the same sentences as CD-SCO (to score BioScope or "
        "SFU output with `negkit resolution score`)",
    )
    parser.add_argument(
        "--score",
        action="store_true",
        help="print the *SEM and NIS headline scores of the output against the input's gold "
        "annotation (on standard error when --out is '-')",
    )
    parser.add_argument(
        "--bootstrap",
        type=non_negative,
        default=0,
        metavar="N",
        help="with --score: resamples of sentences for 95%% intervals of every score (default 0: none)",
    )
    parser.add_argument("--seed", type=seed_value, default=0, help="with --score: seed of the bootstrap (default: 0)")


def _finish(args: argparse.Namespace, gold, system, *, gold_cues: bool) -> int:
    """Write the system (and gold) files, then print the scores when asked."""
    if args.score:  # before writing: a gold that cannot be scored fails with nothing written
        name = args.out if args.out != "-" else "system"
        evaluation = score_sentences(
            gold,
            system,
            name,
            args.corpus or "",
            args.split if args.corpus else "",
            gold_cues=gold_cues,
            bootstrap=args.bootstrap,
            seed=args.seed,
        )
    write_system(system, args.out)
    if args.gold_out:
        write_system(gold_document(gold), args.gold_out)
    if args.score:
        print(format_evaluation([evaluation]), file=sys.stderr if args.out == "-" else sys.stdout)
    return 0


def run_baseline(args: argparse.Namespace) -> int:
    gold = corpus_sentences(args.gold, corpus=args.corpus, split=args.split, data=args.data)
    return _finish(args, gold, baseline(gold), gold_cues=True)


def run_predict(args: argparse.Namespace) -> int:
    gold = corpus_sentences(args.input, corpus=args.corpus, split=args.split, data=args.data)
    if args.score and not gold.annotated:
        raise NegkitError(f"{args.input}: --score needs an annotated input (this is a blind file)")
    system = predict(args.model, gold, gold_cues=args.gold_cues)
    return _finish(args, gold, system, gold_cues=args.gold_cues)


def run_evaluate(args: argparse.Namespace) -> int:
    results = evaluate_model(
        args.model,
        args.corpus,
        split=args.split,
        data=args.data,
        gold_cues=args.gold_cues,
        bootstrap=args.bootstrap,
        seed=args.seed,
    )
    if args.json:
        print(json.dumps([result.to_json() for result in results], indent=2))
    else:
        print(format_evaluation(results))
    return 0


def run_tag(args: argparse.Namespace) -> int:
    if args.file is not None and args.text is not None:
        raise NegkitError("give the text to tag as an argument or with --file, not both")
    if args.file is not None:
        text = (
            decode_utf8(sys.stdin.buffer.read(), "-")
            if args.file == "-"
            else read_text(args.file, "text file (--file)")
        )
    elif args.text is not None:
        text = args.text
    else:
        raise NegkitError("give the text to tag as an argument or with --file")
    if not text.strip():
        raise NegkitError(f"{args.file or 'the text argument'}: no text to tag (it is empty)")
    system = load_tagging_system(args.model)
    sentences = system.predict(raw_sentences(text))
    if args.format == "json":
        print(json.dumps({"system": system.name, "sentences": [sentence_to_json(s) for s in sentences]}, indent=2))
    elif args.format == "cdsco":
        sys.stdout.write(format_cdsco(sentences))
    else:
        print(f"# system: {system.name}")
        for sentence in sentences:
            print(" ".join(sentence.words))
            for instance in sentence.instances:
                cue = " ... ".join(part.text for part in instance.cue)
                scope = " ".join(part.text for part in instance.scope)
                print(f"  cue: {cue}\tscope: {scope or '(empty)'}")
    return 0
