"""``negkit export lm-eval``: negkit's tasks as LM Evaluation Harness tasks (see :mod:`negkit.commands.export`)."""

from __future__ import annotations

import argparse

from negkit.cli.arguments import add_include_argument
from negkit.cli.groups import CommandGroups
from negkit.commands.export import export_lm_eval
from negkit.kit.arguments import non_negative, parse_limit, per_task_value, seed_value

#: Place in ``negkit --help``.
ORDER = 70
#: Command groups this module adds commands to.
GROUPS = {"export": "write negkit's tasks for other tools (the LM Evaluation Harness)"}


def register(groups: CommandGroups) -> None:
    parser = groups["export"].add_parser(
        "lm-eval",
        help="task YAML files and utils that `lm_eval --include_path DIR` loads (same items, prompts, predictions)",
        description="Write negkit's tasks for the LM Evaluation Harness: run `lm_eval --include_path OUT --tasks "
        "negkit_...` (OUT/README.md has the exact commands). The items are the ones `negkit eval` asks with the "
        "same --data, --split, --limit and --seed. TIND stays private: only item ids and sentence hashes are "
        "written; the Harness reads the encrypted release in place.",
    )
    parser.add_argument(
        "--tasks",
        required=True,
        help="comma-separated tasks or suites (a suite's name stands for its "
        "exported tasks, e.g. negnli: negnli-mnli, negnli-snli, negnli-rte; negkit eval --list lists them)",
    )
    parser.add_argument("--out", "--output-path", dest="out", required=True, help="folder to write the tasks to")
    parser.add_argument("--data", help="data root, data set folder or file (as for negkit eval)")
    parser.add_argument("--split", default="test", help="split to export (default: test)")
    parser.add_argument("--limit", type=parse_limit, metavar="N|F|TASK=N,...", help="as for negkit eval")
    parser.add_argument("--seed", type=seed_value, help="as for negkit eval (TIND samples and splits)")
    parser.add_argument(
        "--prompt", type=per_task_value(str), metavar="ID|TASK=ID,...", help="Thunder-NUBench prompt id (default 7)"
    )
    parser.add_argument(
        "--num-fewshot",
        "--num_fewshot",
        type=per_task_value(non_negative),
        metavar="K|TASK=K,...",
        help="Thunder-NUBench few-shot examples (the Harness draws them from the validation split)",
    )
    add_include_argument(parser)
    parser.set_defaults(handler=run_export)


def run_export(args: argparse.Namespace) -> int:
    tasks = [name.strip() for name in args.tasks.split(",") if name.strip()]
    manifest = export_lm_eval(
        tasks,
        args.out,
        data=args.data,
        split=args.split,
        limit=args.limit,
        seed=args.seed,
        prompt=args.prompt,
        num_fewshot=args.num_fewshot,
    )
    for name, entry in manifest["tasks"].items():
        print(f"{name}: {', '.join(entry['harness_tasks'])} ({entry['count']} items)")
    print(f"written to {args.out}; run them as {args.out}/README.md says")
    return 0
