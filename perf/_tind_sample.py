"""Shared by the TIND engine benchmarks: a fixed sample of TIND test sentences and a plain forward pass."""

from __future__ import annotations

import random
from pathlib import Path

import torch

from negkit.benchmarks.tind.data import read_tind
from negkit.benchmarks.tind.task import tind_source

REPO = Path(__file__).resolve().parents[1]


def tind_sample(sentences: int, seed: int = 0, data: str | None = None) -> list:
    """``sentences`` TIND test items drawn at random with ``seed`` (varied prompts; no group structure needed)."""
    source = tind_source(data or (REPO.parent / "shared" / "data"))
    items = read_tind(source, "test", seed)
    return random.Random(seed).sample(items, min(sentences, len(items)))


def plain_p_true(model, tokenizer, prompt: str, true_id: int, false_id: int) -> float:
    """The authors' way: tokenize one prompt with special tokens (dropping a final EOS), one full forward
    pass, softmax at the last position, P(True) / (P(True) + P(False))."""
    ids = tokenizer(prompt, add_special_tokens=True)["input_ids"]
    if len(ids) > 1 and ids[-1] == tokenizer.eos_token_id:
        ids = ids[:-1]
    with torch.inference_mode():
        logits = model(input_ids=torch.tensor([ids], device=model.device)).logits[0, -1]
    probabilities = torch.softmax(logits.float(), dim=-1)
    return float(probabilities[true_id] / (probabilities[true_id] + probabilities[false_id]))
