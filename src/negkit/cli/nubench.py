"""``negkit nubench sweep`` (one model's prompt sweep, paper Tables 11-14), ``negkit nubench tables`` (several
models' sweeps in the paper's layout; see :mod:`negkit.studies.nubench.sweep`) and ``negkit nubench results``
(Tables 5, 15 and 6 / 17 from run folders; :mod:`negkit.benchmarks.nubench.results_tables`); ``negkit nubench
export-alpaca`` (the SFT pairs as Alpaca JSON; :mod:`negkit.benchmarks.nubench.export`)."""

from __future__ import annotations

import argparse
import sys

from negkit.benchmarks.nubench.export import register_export_alpaca
from negkit.benchmarks.nubench.task import BOS_POLICIES
from negkit.cli.evaluate import add_model_arguments, add_run_arguments, eval_options
from negkit.cli.groups import CommandGroups
from negkit.errors import NegkitError
from negkit.kit.arguments import non_negative, parse_limit, seed_value
from negkit.studies.nubench import sweep as sweep_study
from negkit.studies.nubench.sweep import SWEEP_SPLITS

ORDER = 58
GROUPS = {"nubench": "Thunder-NUBench prompt sweep (paper Tables 11-14) and results tables (5, 15, 6 / 17)"}


def register(groups: CommandGroups) -> None:
    sweep = groups["nubench"].add_parser(
        "sweep",
        help="one model's prompt sweep: prompts 1-12 and 7-1..7-5 zero-shot on validation (Tables 11-13), prompts "
        "1, 7, 11 zero- and 5-shot over five seeds on test (Table 14)",
        description="Run Thunder-NUBench's prompt sweep for one model into one output folder (tasks nubench-prompts "
        "and nubench-fewshot of `negkit eval`, each on the paper's split: Tables 11-13 on validation, Table 14 on "
        "test; one run store: what the prompts share is computed once; rerunning resumes). Combine several models' "
        "folders with `negkit nubench tables`.",
    )
    add_model_arguments(sweep.add_argument_group("model"))
    tasks = sweep.add_argument_group("sweep and data")
    tasks.add_argument(
        "--tables",
        default="prompts,fewshot",
        help="prompts (Tables 11-13), fewshot (Table 14), or both (default: prompts,fewshot)",
    )
    tasks.add_argument(
        "--data", help="data root or Thunder-NUBench folder (default: NEGKIT_DATA, ./data, ../shared/data)"
    )
    tasks.add_argument(
        "--split",
        help=f"one split for every sweep (default: the paper's: prompts on {SWEEP_SPLITS['prompts']}, fewshot on "
        f"{SWEEP_SPLITS['fewshot']})",
    )
    tasks.add_argument("--limit", type=parse_limit, metavar="N|F", help="the first N items (or a fraction F)")
    tasks.add_argument(
        "--num-fewshot",
        type=non_negative,
        default=5,
        metavar="K",
        help="examples per few-shot context of Table 14 (default: 5)",
    )
    tasks.add_argument(
        "--seed", type=seed_value, help="one few-shot seed instead of the paper's five (42, 1234, 3000, 5000, 7000)"
    )
    tasks.add_argument(
        "--bos", choices=tuple(BOS_POLICIES), help="a BOS token before the context (see negkit eval --help)"
    )
    tasks.add_argument(
        "--apply-chat-template",
        dest="chat",
        action="store_const",
        const=True,
        help="render every prompt with the model's chat template (default: plain prompts, as the paper)",
    )
    tasks.add_argument("--system-instruction", metavar="TEXT", help="a system message or text before each prompt")
    add_run_arguments(sweep.add_argument_group("run and output"))
    sweep.set_defaults(handler=run_sweep)

    tables = groups["nubench"].add_parser(
        "tables",
        help="combine several models' sweeps into Tables 11-14 (report.md, report.html, nubench-tables.json)",
        description="Combine `negkit nubench sweep` output folders into the layout of the paper's Tables 11-14: "
        "per group of models (Tables 11 and 12) prompts 1-12 with acc / acc_norm per model and the group's "
        "average, Table 13 the wording variants of prompt 7 with each group's average, Table 14 prompts 1, 7, 11 "
        "zero-shot and k-shot (mean ± SD over seeds). The best value of each column is in bold. Each table names "
        "its split (the paper's: validation for Tables 11-13, test for Table 14); one table's runs share a split.",
    )
    tables.add_argument("runs", nargs="*", metavar="RUN_DIR", help="sweep output folders (one group: 'all models')")
    tables.add_argument(
        "--group",
        nargs="+",
        action="append",
        metavar=("NAME", "RUN_DIR"),
        help="a named group of runs, e.g. --group 3-4B runs/qwen3b runs/llama3b (repeatable; "
        "the first group is Table 11, the second Table 12)",
    )
    tables.add_argument(
        "--out", required=True, metavar="DIR", help="where report.md, report.html and nubench-tables.json go"
    )
    tables.set_defaults(handler=run_tables)

    results = groups["nubench"].add_parser(
        "results",
        help="combine nubench runs into Table 5 (zero-shot, k-shot), Table 15 (with SFT) and the error analysis "
        "of Tables 6 / 17 (report.md, report.html, nubench-results.json)",
        description="Combine run folders of `negkit eval --tasks nubench` (prompt 7, zero-shot or --num-fewshot K) "
        "and/or of `negkit nubench sweep --tables fewshot` (its prompt-7 runs) into the paper's results tables, "
        "one row per model: Table 5 (zero-shot and k-shot acc / acc_norm, k-shot as mean ± SD over seeds), Table "
        "15 (the same beside the model after SFT) and the error analysis of Tables 6 / 17 per setting. A run of a "
        "model with --adapter is after SFT; so is every folder given with --sft.",
    )
    results.add_argument(
        "runs", nargs="*", metavar="[NAME=]RUN_DIR", help="run folders (NAME: the model's row, default its name)"
    )
    results.add_argument(
        "--sft",
        nargs="+",
        default=[],
        metavar="[NAME=]RUN_DIR",
        help="run folders of models after SFT that do not carry their adapter (e.g. merged with `negkit finetune "
        "merge`); NAME puts one in its base model's row",
    )
    results.add_argument(
        "--out", required=True, metavar="DIR", help="where report.md, report.html and nubench-results.json go"
    )
    results.set_defaults(handler=run_results)
    register_export_alpaca(groups["nubench"])


def run_sweep(args: argparse.Namespace) -> int:
    which = [name.strip() for name in args.tables.split(",") if name.strip()]
    sweep = sweep_study.run_sweep(args.model, which, eval_options(args), args.num_fewshot, args.seed, args.split)
    for split, result in sweep:
        print(f"{result['task']['task']} ({split} split): {result['files']['results']}")
        print(open(result["files"]["tables"], encoding="utf-8").read())
    return 0


def run_tables(args: argparse.Namespace) -> int:
    from negkit.studies.nubench.sweep import tables

    runs: list = list(args.runs)
    for group in args.group or []:
        if len(group) < 2:
            raise NegkitError(f"--group {group[0]} names no run folder (--group NAME RUN_DIR...)")
        runs += [(group[0], folder) for folder in group[1:]]
    if not runs:
        raise NegkitError("give the sweep output folders (RUN_DIR... or --group NAME RUN_DIR...)")
    files = tables(runs, args.out)
    print(open(files["report"], encoding="utf-8").read(), end="")
    print(f"\nreport: {files['report']}\nhtml: {files['html']}\ntables: {files['tables']}", file=sys.stderr)
    return 0


def run_results(args: argparse.Namespace) -> int:
    from negkit.benchmarks.nubench.results_tables import results_tables

    if not args.runs and not args.sft:
        raise NegkitError("give the run folders ([NAME=]RUN_DIR... and/or --sft [NAME=]RUN_DIR...)")
    files = results_tables(args.runs, args.out, args.sft)
    print(open(files["report"], encoding="utf-8").read(), end="")
    print(f"\nreport: {files['report']}\nhtml: {files['html']}\ntables: {files['tables']}", file=sys.stderr)
    return 0
