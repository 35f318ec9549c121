"""``negkit nubench export-alpaca``: Thunder-NUBench's sentence-negation pairs as the Alpaca JSON file the paper's
SFT reads (LLaMA-Factory, Listing 11), for training with another tool than ``negkit finetune --train nubench``.

Each record is ``instruction`` = prompt 7's instruction block, ``input`` = ``Sentence: {premise}\\nNegation:``,
``output`` = the negation (:func:`negkit.benchmarks.nubench.data.alpaca_records`); the file is one JSON list, in
the pairs' order.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from negkit.benchmarks.nubench.data import (
    alpaca_records,
    load_negation_pairs,
    locate_nubench_root,
    write_alpaca_json,
)
from negkit.benchmarks.nubench.task import instruction_block
from negkit.errors import NegkitError


def export_alpaca(data: str | Path | None, out: str | Path) -> dict[str, Any]:
    """Write the sentence-negation pairs of the Thunder-NUBench copy found from ``data`` (a data root or the
    Thunder-NUBench folder; None: negkit's data locations, else the gated hub data set) to ``out`` as Alpaca JSON.
    Returns where the pairs came from, where they went and how many there are."""
    root = locate_nubench_root(data)
    pairs = load_negation_pairs(root)
    if not pairs:
        raise NegkitError(f"no Thunder-NUBench sentence-negation pairs in {root or 'the hub data set'}")
    out = Path(out)
    if out.is_dir():
        raise NegkitError(f"{out}: is a folder; --out takes the JSON file to write (e.g. {out / 'nubench_sft.json'})")
    write_alpaca_json(alpaca_records(pairs, instruction_block()), out)
    return {"source": str(root) if root else "hub", "out": str(out), "records": len(pairs)}


def register_export_alpaca(group: Any) -> None:
    """Add ``export-alpaca`` to the ``negkit nubench`` command group."""
    parser = group.add_parser(
        "export-alpaca",
        help="write the sentence-negation pairs as Alpaca JSON (the paper's SFT file for LLaMA-Factory)",
        description="Write Thunder-NUBench's sentence-negation pairs as one Alpaca JSON list: instruction = prompt "
        "7's instruction block, input = 'Sentence: {premise}\\nNegation:', output = the negation (the paper's SFT "
        "data, Listing 11). `negkit finetune --train nubench` trains on the same records itself.",
    )
    parser.add_argument(
        "--data", help="data root or Thunder-NUBench folder (default: NEGKIT_DATA, ./data, ../shared/data, the hub)"
    )
    parser.add_argument("--out", required=True, metavar="FILE.json", help="the JSON file to write")
    parser.set_defaults(handler=run_export_alpaca)


def run_export_alpaca(args: argparse.Namespace) -> int:
    written = export_alpaca(args.data, args.out)
    print(f"{written['out']}: {written['records']} Alpaca records from {written['source']}", file=sys.stderr)
    return 0
