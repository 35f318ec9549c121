"""``negkit finetune``'s flags as argparse groups, and :class:`FinetuneOptions` from the parsed command line: the
command and a benchmark's own fine-tuning commands (e.g. ``negkit tind transfer-train``) share them. A training
source's own flags come from the suite registry (:attr:`negkit.kit.suites.TrainingSource.flags`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from negkit.kit.arguments import label_list, seed_value
from negkit.kit.suites import default_training_source, training_recipes, training_sources
from negkit.kit.training.mix import BALANCE_BY
from negkit.models.model_args import parse_model_args

if TYPE_CHECKING:
    from negkit.kit.training.options import FinetuneOptions


def add_data_arguments(parser: argparse._ActionsContainer) -> None:
    sources = training_sources()
    parser.add_argument(
        "--train",
        default=default_training_source(),
        metavar="|".join([*sources, "FILE"]),
        help=", ".join(f"{name} ({source.description})" for name, source in sources.items())
        + ', or a JSON Lines file of {"prompt", "completion"} (nli: models: premise, hypothesis, '
        "label as .jsonl/.csv/.tsv), or a mix of sources, each in its own evaluation format: "
        "SOURCE[:affirmative|:negative]=COUNT,... (exact answer balance per source; docs/negation-training.md); "
        f"default: {default_training_source()}",
    )
    mix = parser  # the training mix's options (--train SOURCE=COUNT,...)
    mix.add_argument(
        "--phases",
        metavar="A;B,C",
        help="train the mix's parts in phases, in order: parts separated by ',', phases by ';' (default: one phase)",
    )
    mix.add_argument(
        "--dev-per-format",
        type=int,
        metavar="N",
        help="hold out N examples of every source: development accuracy and the largest answer share per format at "
        "every evaluation, and the checkpoint chosen on the worst format",
    )
    mix.add_argument(
        "--balance-by",
        choices=BALANCE_BY,
        default="answer",
        help="balance each part of the mix over its answers (default), or over answer x negated input so that a "
        "negation cue does not predict the answer",
    )
    mix.add_argument(
        "--select-by",
        choices=("worst-format", "dev-loss"),
        help="the checkpoint kept (default with --dev-per-format: worst-format)",
    )
    for name, meaning in (
        ("unlikelihood", "unlikelihood of the wrong answers on negated examples (BERTNOT-style)"),
        ("consistency", "consistency of minimal pairs in a batch: as sure of the right answer on both sides"),
        ("kl", "KL to the base model (the adapter off) at every trained position and on replay text"),
    ):
        mix.add_argument(f"--{name}-weight", type=float, default=0.0, metavar="W", help=f"{meaning}; 0: off")
    parser.add_argument(
        "--data", help="data root, data set folder or file (default: NEGKIT_DATA, ./data, ../shared/data)"
    )
    parser.add_argument("--split", default="train", help="TIND split to train on (default: train)")
    parser.add_argument(
        "--split-seed",
        type=seed_value,
        default=0,
        help="seed of TIND's group-level split of the raw release; evaluate with --seed equal to it",
    )
    parser.add_argument(
        "--limit",
        type=int,
        help="at most N training examples (TIND: about N sentences as whole "
        "groups stratified by pattern, drawn with --seed)",
    )
    add_source_arguments(parser)
    chat = parser.add_mutually_exclusive_group()
    chat.add_argument(
        "--chat",
        dest="chat",
        action="store_const",
        const=True,
        help="render prompts with the model's chat template (TIND default when the model has one)",
    )
    chat.add_argument("--no-chat", dest="chat", action="store_const", const=False, help="never use the chat template")
    parser.add_argument(
        "--conversation-template",
        metavar="NAME",
        help="render the chat prompts in this named format instead of the tokenizer's chat template (implies "
        "--chat; e.g. llama3 as Thunder-NUBench's LLaMA-Factory runs, vicuna-v1.1, llama-2-chat; names: negkit eval "
        "--list-conversation-templates)",
    )
    parser.add_argument(
        "--dev",
        metavar="split|FRACTION|FILE",
        help="development data for the loss during training and early stopping: TIND's validation "
        "split, a held-out fraction of the training examples (e.g. 0.05), or a file",
    )
    parser.add_argument("--dev-limit", type=int, help="at most N development examples")
    recipes = training_recipes()
    parser.add_argument(
        "--recipe",
        metavar="NAME",
        choices=tuple(recipes) or None,
        help="a paper's hyper-parameters for the options left at their defaults: "
        + "; ".join(f"{name} ({recipe.description})" for name, recipe in recipes.items())
        + "; see docs/finetuning.md",
    )
    parser.add_argument(
        "--labels",
        type=label_list,
        help="nli: label names in output order (default: the model's own; else entailment,neutral,contradiction)",
    )


def add_source_arguments(parser: argparse._ActionsContainer) -> None:
    """The flags the suites' training sources accept (``TrainingSource.flags``), each declared once."""
    declared: set[str] = set()
    for source in training_sources().values():
        for flag in source.flags:
            if declared.isdisjoint(flag.names):
                parser.add_argument(*flag.names, **flag.settings)
            declared.update(flag.names)


def source_options(args: argparse.Namespace) -> dict[str, Any]:
    """``FinetuneOptions`` keyword arguments from every training source's flags (``TrainingSource.options``); two
    sources that set one option to different values are a suite author's error."""
    options: dict[str, Any] = {}
    for source in training_sources().values():
        if source.options is None:
            continue
        values = {flag.dest: getattr(args, flag.dest, flag.settings.get("default")) for flag in source.flags}
        for name, value in source.options(values).items():
            if name in options and options[name] != value:
                raise ValueError(
                    f"training source {source.name!r} sets finetune option {name!r} to {value!r}, "
                    f"another source to {options[name]!r}"
                )
            options[name] = value
    return options


def add_training_arguments(parser: argparse._ActionsContainer) -> None:
    parser.add_argument("--seed", type=seed_value, default=0, help="seed of LoRA's initialisation, data order, dropout")
    parser.add_argument("--learning-rate", type=float, help="default 2e-4 (LoRA), 2e-5 (nli: classifiers)")
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--max-steps", type=int, help="stop after N optimizer steps (overrides --epochs)")
    parser.add_argument(
        "--max-minutes",
        type=float,
        help="stop after M minutes of training (a time budget; the "
        "learning-rate schedule stays planned for the full run)",
    )
    parser.add_argument("--batch-size", type=int, default=8, help="examples per device batch")
    parser.add_argument("--gradient-accumulation", type=int, default=1, help="batches per optimizer step")
    parser.add_argument(
        "--scheduler", default="cosine", choices=("cosine", "linear", "constant", "constant_with_warmup")
    )
    parser.add_argument("--warmup-ratio", type=float, default=0.03)
    parser.add_argument("--weight-decay", type=float, default=0.0)
    parser.add_argument("--max-grad-norm", type=float, default=1.0)
    parser.add_argument("--max-length", type=int, default=512, help="longer examples are left out (and counted)")
    parser.add_argument(
        "--prompt-loss-weight",
        type=float,
        default=0.0,
        help="share of the loss on prompt tokens (TIND authors: 0.05; 0 = completion only)",
    )
    parser.add_argument("--eval-steps", type=int, help="evaluate on --dev every N steps (default: --save-steps)")
    parser.add_argument(
        "--early-stopping",
        dest="early_stopping_patience",
        type=int,
        metavar="PATIENCE",
        help="stop after PATIENCE evaluations without a lower development loss; keep the best",
    )
    parser.add_argument("--early-stopping-threshold", type=float, default=0.0)
    parser.add_argument("--gradient-checkpointing", action="store_true", help="less memory, more compute")
    parser.add_argument(
        "--no-share-prefix",
        dest="share_prefix",
        action="store_false",
        help="run every example whole (default: a batch's common prompt prefix runs once)",
    )


def add_lora_arguments(parser: argparse._ActionsContainer) -> None:
    parser.add_argument("--lora-r", type=int, default=8, help="rank (default 8)")
    parser.add_argument("--lora-alpha", type=float, default=16.0)
    parser.add_argument("--lora-dropout", type=float, default=0.05)
    parser.add_argument(
        "--lora-targets",
        default="all-linear",
        help="all-linear, peft-default (e.g. q_proj,v_proj for Llama), or module names",
    )
    parser.add_argument(
        "--lora-layers",
        metavar="LAYERS",
        help="LoRA on these transformer layers only, e.g. 12-29 or 0,2,4 (default: all); layers below "
        "the lowest need no backward pass",
    )


def add_output_arguments(parser: argparse._ActionsContainer) -> None:
    parser.add_argument("--model", default="default", help="default | hf:PATH_OR_NAME | gguf:FILE | nli:PATH_OR_NAME")
    parser.add_argument("--model-args", metavar="KEY=VALUE,...", help="options for the model loader")
    parser.add_argument(
        "--dtype",
        choices=("float32", "bfloat16", "float16"),
        default="float32",
        help="weights and compute (bfloat16/float16: mixed precision on a GPU)",
    )
    parser.add_argument("--device", help="cpu, cuda, cuda:N (default: a GPU when there is one)")
    parser.add_argument(
        "--quantize",
        choices=("8bit", "4bit"),
        help="frozen base weights quantized with bitsandbytes (QLoRA; needs a CUDA GPU)",
    )
    parser.add_argument("--out", required=True, help="output folder (adapter, record, log, checkpoints)")
    parser.add_argument("--merge-out", metavar="DIR", help="also save the model with the adapter merged into it here")
    parser.add_argument("--save-steps", type=int, default=50, help="checkpoint every N optimizer steps")
    parser.add_argument("--save-minutes", type=float, default=5.0, help="and at least every M minutes")
    parser.add_argument("--keep-checkpoints", type=int, default=2, help="newest checkpoints kept (plus the best)")
    parser.add_argument("--logging-steps", type=int, default=5)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def options_from_args(args: argparse.Namespace) -> FinetuneOptions:
    from negkit.kit.training.options import FinetuneOptions
    from negkit.kit.training.recipes import apply_recipe

    options = FinetuneOptions(
        out=args.out,
        train=args.train,
        data=args.data,
        split=args.split,
        split_seed=args.split_seed,
        limit=args.limit,
        chat=args.chat,
        conversation_template=getattr(args, "conversation_template", None),
        dev=args.dev,
        dev_limit=args.dev_limit,
        seed=args.seed,
        learning_rate=args.learning_rate,
        epochs=args.epochs,
        max_steps=args.max_steps,
        max_minutes=args.max_minutes,
        batch_size=args.batch_size,
        gradient_accumulation=args.gradient_accumulation,
        scheduler=args.scheduler,
        warmup_ratio=args.warmup_ratio,
        weight_decay=args.weight_decay,
        max_grad_norm=args.max_grad_norm,
        max_length=args.max_length,
        prompt_loss_weight=args.prompt_loss_weight,
        lora_r=args.lora_r,
        lora_alpha=args.lora_alpha,
        lora_dropout=args.lora_dropout,
        lora_targets=args.lora_targets,
        lora_layers=args.lora_layers,
        eval_steps=args.eval_steps,
        early_stopping_patience=args.early_stopping_patience,
        early_stopping_threshold=args.early_stopping_threshold,
        save_steps=args.save_steps,
        save_minutes=args.save_minutes,
        keep_checkpoints=args.keep_checkpoints,
        logging_steps=args.logging_steps,
        dtype=args.dtype,
        device=args.device,
        quantize=args.quantize,
        gradient_checkpointing=args.gradient_checkpointing,
        share_prefix=args.share_prefix,
        merge_out=args.merge_out,
        progress=not args.no_progress,
        model_args=parse_model_args(args.model_args),
        labels=args.labels,
        phases=args.phases,
        dev_per_format=args.dev_per_format,
        balance_by=args.balance_by,
        select_by=args.select_by,
        unlikelihood_weight=args.unlikelihood_weight,
        consistency_weight=args.consistency_weight,
        kl_weight=args.kl_weight,
        **source_options(args),
    )
    return apply_recipe(options, args.recipe) if getattr(args, "recipe", None) else options
