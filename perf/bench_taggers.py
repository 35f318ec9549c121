"""Train a MiniLM negation resolver on CD-SCO (dev for model selection) and print time and test scores.

    python perf/bench_taggers.py --data ../shared/data --out MODEL_DIR
    python perf/bench_taggers.py --data ../shared/data --model MODEL_DIR --cross bioscope sfu

With ``--model`` the training is skipped and the saved model is scored (its recorded training time is
printed). The punctuation baseline on gold cues is printed for reference. Done-when target of issue 6:
training <= 30 minutes, Cues-B F1 >= 88 and NIS_tok F1 >= 80 on the CD-SCO test set.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from negkit.resolution.baseline import PunctuationBaseline  # noqa: E402
from negkit.resolution.evaluate import evaluate_model, format_evaluation, score_sentences  # noqa: E402
from negkit.resolution.splits import load_split  # noqa: E402
from negkit.resolution.train import NegationResolver, ResolverSettings  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(
        allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", help="data root (default: NEGKIT_DATA, ./data, ../shared/data)")
    parser.add_argument("--encoder", default="all-MiniLM-L6-v2")
    parser.add_argument("--scope-variant", default="marker", choices=("marker", "bilstm"))
    parser.add_argument("--model", help="score this saved model instead of training one")
    parser.add_argument("--out", default="negkit-minilm-cdsco", help="where the trained model is saved")
    parser.add_argument("--minutes", type=float, default=27.0, help="training budget for both stages")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--cross",
        nargs="*",
        default=[],
        choices=("bioscope", "sfu"),
        help="also score on the test split of these corpora (cross-domain)",
    )
    args = parser.parse_args()

    if args.model:
        model = Path(args.model)
        recorded = json.loads((model / "negkit_resolution.json").read_text())
        seconds = recorded.get("training_seconds")
    else:
        settings = ResolverSettings.for_budget(
            args.minutes, encoder=args.encoder, scope_variant=args.scope_variant, threads=args.threads
        )
        started = time.monotonic()
        resolver = NegationResolver(settings).fit(
            load_split("cd-sco", "train", args.data),
            load_split("cd-sco", "dev", args.data),
            log=lambda message: print(message, flush=True),
            corpus="cd-sco",
        )
        seconds = time.monotonic() - started
        resolver.save(args.out)
        model = Path(args.out)
    print(f"training time: {seconds / 60:.1f} min (encoder {args.encoder}, model {model})")

    gold = load_split("cd-sco", "test", args.data)
    baseline = score_sentences(gold, PunctuationBaseline().predict(gold), "Punct-BL (gold cues)", "cd-sco", "test")
    results = evaluate_model(model, ["cd-sco", *args.cross], data=args.data)
    print(format_evaluation([baseline, *results]))
    headline = results[0].headline()
    passed = (seconds or 0) <= 30 * 60 and headline["cues_b_f1"] >= 88 and headline["nis_tok_f1"] >= 80
    print(f"done-when (<= 30 min, Cues-B F1 >= 88, NIS_tok F1 >= 80): {'met' if passed else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
