"""``negkit tind transfer-train`` and ``negkit tind transfer-matrix``: TIND's Figure 2 (train on one pattern, test
on every pattern; see :mod:`negkit.studies.tind.transfer`)."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from negkit.benchmarks.tind.training import pattern_list
from negkit.cli.groups import CommandGroups
from negkit.kit.arguments import seed_value
from negkit.kit.training.arguments import (
    add_data_arguments,
    add_lora_arguments,
    add_output_arguments,
    add_training_arguments,
    options_from_args,
)


def register(groups: CommandGroups) -> None:
    train = groups["tind"].add_parser(
        "transfer-train",
        conflict_handler="resolve",
        help="TIND Figure 2: fine-tune on each pattern alone and score every adapter on every pattern",
        description="Run one `negkit finetune` per TIND pattern (the recipe's flags are finetune's) and score each "
        "adapter, and the base model, on a per-pattern test sample. Resumable: finished runs are skipped, a killed "
        "run resumes from its last checkpoint. Then: negkit tind transfer-matrix OUT.",
    )
    add_data_arguments(train.add_argument_group("training data (as negkit finetune)"))
    add_training_arguments(train.add_argument_group("training (as negkit finetune)"))
    add_lora_arguments(train.add_argument_group("LoRA (as negkit finetune)"))
    add_output_arguments(train.add_argument_group("model and output (as negkit finetune)"))
    transfer = train.add_argument_group("transfer")
    transfer.add_argument(
        "--patterns",
        type=transfer_patterns,
        default=tuple(range(1, 12)),
        help="the patterns to train on, one run each (default: 1-11; none: no per-pattern run, with --all-row)",
    )
    transfer.add_argument(
        "--out", required=True, help="output folder: OUT/pattern-NN/adapter, predictions, transfer.json"
    )
    transfer.add_argument("--test-groups", type=int, default=8, help="test groups per pattern (default 8)")
    transfer.add_argument(
        "--test-per-group",
        type=int,
        default=16,
        help="test sentences per group, balanced over its four cells (default 16; 0: whole groups)",
    )
    transfer.add_argument("--test-split", default="test", help="the split tested on (default: test)")
    transfer.add_argument("--test-seed", type=seed_value, default=0, help="seed of the test sample")
    transfer.add_argument("--no-base", action="store_true", help="do not score the base model")
    transfer.add_argument(
        "--all-row",
        action="store_true",
        help="also fine-tune on every pattern at once and score it (Figure 2's All row, OUT/all); with "
        "--patterns none, only that row",
    )
    transfer.add_argument("--jobs", type=int, default=1, help="patterns fine-tuned at once, one process each")
    transfer.add_argument(
        "--threads",
        type=int,
        default=1,
        metavar="N",
        help="torch threads of every fine-tuning and scoring, whatever --jobs is (default: 1), so "
        "that the numbers do not depend on --jobs; on C cores use --jobs C, or --jobs 1 --threads C",
    )
    transfer.add_argument("--eval-batch-size", type=int, help="batch size when scoring")
    transfer.add_argument(
        "--eval-quantize",
        choices=("8bit", "4bit"),
        help="score with the base model quantized (TIND's authors: 8bit; needs a CUDA GPU)",
    )
    train.set_defaults(handler=run_transfer_train)

    matrix = groups["tind"].add_parser(
        "transfer-matrix",
        help="assemble TIND Figure 2 from transfer-train's folder: JSON, Markdown, SVG/PNG heatmap",
        description="Read the rows scored by negkit tind transfer-train and write OUT/matrix.json, matrix.md, "
        "matrix.svg and matrix.png: accuracy per test pattern with 95% bootstrap intervals over groups, and each "
        "row's paired difference from the base model.",
    )
    matrix.add_argument("out", metavar="OUT", help="the --out folder of negkit tind transfer-train")
    matrix.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")
    matrix.add_argument("--bootstrap-seed", type=seed_value, default=0)
    matrix.add_argument("--no-plots", action="store_true", help="no heatmap (no matplotlib needed)")
    matrix.set_defaults(handler=run_transfer_matrix)


def transfer_patterns(text: str) -> tuple[int, ...]:
    """``--patterns``: pattern numbers, or ``none`` (only the All row)."""
    return () if text.strip().lower() == "none" else pattern_list(text)


def run_transfer_train(args: argparse.Namespace) -> int:
    from negkit.studies.tind.transfer import TransferOptions, transfer_train  # loads torch: off the start-up path

    patterns, args.patterns, args.exclude_patterns = args.patterns, None, None
    recipe = replace(options_from_args(args), out="OUT")
    options = TransferOptions(
        out=args.out,
        finetune=recipe,
        patterns=patterns,
        test_groups=args.test_groups,
        test_per_group=args.test_per_group or None,
        test_split=args.test_split,
        test_seed=args.test_seed,
        base=not args.no_base,
        all_patterns=args.all_row,
        jobs=args.jobs,
        threads=args.threads,
        batch_size=args.eval_batch_size,
        eval_quantize=args.eval_quantize,
    )
    statuses = transfer_train(args.model, options)
    print(json.dumps(statuses))
    print(f"next: negkit tind transfer-matrix {args.out}")
    return 0


def run_transfer_matrix(args: argparse.Namespace) -> int:
    from negkit.studies.tind.transfer import transfer_matrix  # loads torch: off the start-up path

    numbers = transfer_matrix(args.out, args.bootstrap, args.bootstrap_seed, plots=not args.no_plots)
    print(
        f"matrix: {len(numbers['rows'])} rows x {len(numbers['columns'])} patterns -> {args.out}/matrix.md"
        + ("" if args.no_plots else ", matrix.svg, matrix.png, matrix.json")
    )
    return 0
