"""How many tokens a BLiMP negation run puts through the model: the LM Evaluation Harness against negkit's prefix tree.

Exact mode cannot skip arithmetic: every token of every sentence needs its log-probability. What negkit can save
is running a shared beginning once. This script counts, with SmolLM2-135M-Instruct's tokenizer (negkit's
``default``), over the 14,000 sentences of ``../shared/data/blimp-negation``:

- the tokens the Harness runs: each sentence alone after the prefix token (its ``loglikelihood`` with an empty
  context; the last token is never an input);
- the tokens negkit runs if it shared only the beginning of each pair's two sentences;
- the tokens negkit's prefix tree runs: every distinct beginning of every sentence once (the trie's size).

The ratio of the first to the last bounds exact mode's speed-up from sharing (docs/results/export-lm-eval.md).

    PYTHONPATH=src python perf/blimp_token_bound.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from negkit.models.registry import load_model


def shared_length(first: tuple[int, ...], second: tuple[int, ...]) -> int:
    """How many leading tokens two sequences share."""
    for index, (a, b) in enumerate(zip(first, second)):
        if a != b:
            return index
    return min(len(first), len(second))


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data", help="the data folder (holds blimp-negation/)")
    args = parser.parse_args()
    files = sorted((Path(args.data) / "blimp-negation").glob("*.jsonl"))
    if not files:
        sys.exit(f"no BLiMP paradigm files in {Path(args.data) / 'blimp-negation'}")
    model = load_model("default")
    prefix = model.rules.prefix_token_id()
    pairs = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            pairs.append(
                tuple(
                    tuple([prefix, *model.tokenizer(record[key], add_special_tokens=False)["input_ids"]])
                    for key in ("sentence_good", "sentence_bad")
                )
            )
    sentences = [sentence for pair in pairs for sentence in pair]
    harness = sum(len(sentence) - 1 for sentence in sentences)
    per_pair = sum(len(good) + len(bad) - 2 - (shared_length(good, bad) - 1) for good, bad in pairs)
    trie = {sentence[:end] for sentence in sentences for end in range(1, len(sentence))}
    print(f"{len(pairs)} pairs, {len(sentences)} sentences (SmolLM2 tokenizer, prefix token {prefix})")
    print(f"tokens the Harness runs:                      {harness:>8,}")
    print(f"negkit sharing each pair's beginning only:    {per_pair:>8,}  ({harness / per_pair:.2f}x fewer)")
    print(f"negkit's prefix tree (every beginning once): {len(trie):>8,}  ({harness / len(trie):.2f}x fewer)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
