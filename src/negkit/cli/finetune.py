"""``negkit finetune`` (LoRA on a causal LM, or a whole NLI classifier) and ``negkit merge-adapter``
(see :mod:`negkit.kit.training`)."""

from __future__ import annotations

import argparse
import json

from negkit.cli.groups import CommandGroups
from negkit.errors import NegkitError
from negkit.kit.suites import classifier_tasks
from negkit.kit.training.arguments import (
    add_data_arguments,
    add_lora_arguments,
    add_output_arguments,
    add_training_arguments,
    options_from_args,
)
from negkit.models.spec import parse_model_spec

#: Place in ``negkit --help``.
ORDER = 30


def register(groups: CommandGroups) -> None:
    parser = groups[""].add_parser(
        "finetune",
        help="fine-tune a model on TIND, Thunder-NUBench pairs, prompt/completion JSONL (LoRA) or NLI data",
        description="Fine-tune MODEL with LoRA on a negation training set (or an nli: classifier on NLI pairs). "
        "Writes the adapter, negkit_training.json (the exact command, data hashes, versions), the training log and "
        "checkpoints to --out. Rerunning the same command resumes from the last complete checkpoint.",
    )
    add_data_arguments(parser.add_argument_group("training data"))
    add_training_arguments(parser.add_argument_group("training"))
    add_lora_arguments(parser.add_argument_group("LoRA"))
    add_output_arguments(parser.add_argument_group("model and output"))
    parser.set_defaults(handler=run_finetune)

    merge = groups[""].add_parser(
        "merge-adapter",
        help="save a model with a LoRA adapter merged into its weights",
        description="Load MODEL, merge the adapter of --adapter into its weights and save an ordinary transformers "
        "folder (loadable with --model hf:OUT, without PEFT).",
    )
    merge.add_argument("--model", default="default", help="default | hf:PATH_OR_NAME | gguf:FILE")
    merge.add_argument("--adapter", required=True, metavar="DIR", help="the adapter folder (negkit finetune --out)")
    merge.add_argument("--out", required=True, help="a new folder for the merged model")
    merge.add_argument("--dtype", choices=("float32", "bfloat16", "float16"), default="float32")
    merge.set_defaults(handler=run_merge)


def run_finetune(args: argparse.Namespace) -> int:
    from negkit.kit.training import finetune  # loads torch: off the start-up path

    if parse_model_spec(args.model).is_server:
        raise NegkitError("a model behind an OpenAI-compatible server cannot be fine-tuned here")
    run = finetune(args.model, options_from_args(args))
    result = run["result"]
    print(
        f"fine-tuned: {args.out} ({run['kind']}, step {result['saved_step']} of {result['global_step']}, "
        f"train loss {_number(result['train_loss'])}, dev loss {_number(result['best_eval_loss'])})"
    )
    print(json.dumps({key: result[key] for key in ("tokens_seen", "session_tokens_per_second", "session_seconds")}))
    if run["status"] == "stopped":
        print(
            f"stopped by --max-minutes at step {result['global_step']} of {result['max_steps']}; the same command "
            "(with any --max-minutes) continues from there"
        )
    if parse_model_spec(args.model).is_classifier:
        print(f"evaluate: negkit eval --model nli:{args.out} --tasks {','.join(classifier_tasks())}")
    else:
        print(f"evaluate: negkit eval --model {args.model} --adapter {args.out} --seed {args.split_seed}")
    return 0


def run_merge(args: argparse.Namespace) -> int:
    from negkit.kit.training import merge_adapter  # loads torch: off the start-up path

    merged = merge_adapter(args.model, args.adapter, args.out, dtype=args.dtype)
    print(f"merged model: {merged['path']} (evaluate: negkit eval --model hf:{merged['path']})")
    return 0


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"
