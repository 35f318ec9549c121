"""A plain batched forward pass over rendered TIND prompts (the baseline of bench_tind_vs_harness.py).

Usage: python _plain_forward.py MODEL_FOLDER DOCS_JSONL OUT_JSON [--batch-size 32] [--dtype float32] [--device cpu]

Each prompt is tokenized as negkit's contract says (special tokens added, a final EOS dropped); prompts are
run in batches in file order, right-padded, with the full logits of every position (no prefix reuse, no
trimming of the LM head: what a straightforward script does); p(True) = P(True) / (P(True) + P(False)) over
the first tokens of "True" and "False" at the last real position. Writes the list of p(True).
"""

from __future__ import annotations

import argparse
import json

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False)
    parser.add_argument("model")
    parser.add_argument("docs")
    parser.add_argument("out")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=getattr(torch, args.dtype)).to(args.device).eval()
    prompts = [json.loads(line)["prompt"] for line in open(args.docs, encoding="utf-8")]
    true_id = tokenizer("True", add_special_tokens=False)["input_ids"][0]
    false_id = tokenizer("False", add_special_tokens=False)["input_ids"][0]
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    p_true = []
    for start in range(0, len(prompts), args.batch_size):
        rows = []
        for prompt in prompts[start : start + args.batch_size]:
            ids = tokenizer(prompt, add_special_tokens=True)["input_ids"]
            if len(ids) > 1 and ids[-1] == tokenizer.eos_token_id:
                ids = ids[:-1]
            rows.append(ids)
        width = max(map(len, rows))
        input_ids = torch.full((len(rows), width), pad, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for number, ids in enumerate(rows):
            input_ids[number, : len(ids)] = torch.tensor(ids)
            mask[number, : len(ids)] = 1
        with torch.inference_mode():
            logits = model(input_ids=input_ids.to(args.device), attention_mask=mask.to(args.device)).logits
        for number, ids in enumerate(rows):
            row = torch.log_softmax(logits[number, len(ids) - 1].float(), dim=-1)
            true, false = float(row[true_id]), float(row[false_id])
            top = max(true, false)
            p_true.append(
                float(
                    torch.tensor(true - top).exp() / (torch.tensor(true - top).exp() + torch.tensor(false - top).exp())
                )
            )
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(p_true, handle)


if __name__ == "__main__":
    main()
