"""In-domain and cross-domain table (Sineva et al. 2021, Tables 2-3): each model on each corpus's test split.

    python perf/bench_cross_domain.py --data ../shared/data \\
        --model cd-sco=MODEL_CD --model bioscope=MODEL_BIO --model sfu=MODEL_SFU

Models come from ``negkit resolution train --corpus CORPUS --out MODEL``. Prints one Markdown matrix per
metric (rows: training corpus, columns: test corpus) and writes every number as JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from negkit.resolution.evaluate import evaluate_model  # noqa: E402
from negkit.resolution.splits import CORPORA  # noqa: E402

METRICS = {
    "cues_b_f1": "Cues-B F1",
    "scm_b_f1": "SCM-B F1",
    "scope_tokens_f1": "Scope tokens F1",
    "nis_tok_f1": "NIS_tok F1",
}


def main() -> int:
    parser = argparse.ArgumentParser(
        allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", action="append", required=True, help="TRAIN_CORPUS=MODEL_DIR (repeatable)")
    parser.add_argument("--test", nargs="+", default=list(CORPORA), choices=CORPORA)
    parser.add_argument("--data", help="data root")
    parser.add_argument("--json", help="write all numbers to this JSON file")
    args = parser.parse_args()
    table: dict[str, dict[str, dict[str, float]]] = {}
    for item in args.model:
        train_corpus, _, folder = item.partition("=")
        results = evaluate_model(folder, args.test, data=args.data)
        table[train_corpus] = {result.corpus: result.headline() for result in results}
    for key, title in METRICS.items():
        print(f"\n{title} (rows: trained on, columns: tested on)\n")
        print("| train \\ test | " + " | ".join(args.test) + " |")
        print("|---|" + "---|" * len(args.test))
        for train_corpus, row in table.items():
            print(f"| {train_corpus} | " + " | ".join(f"{row[test][key]:.1f}" for test in args.test) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
