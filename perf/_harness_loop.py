"""A plain transformers loop that scores log-likelihood requests the way the LM Evaluation Harness's ``hf`` model
does (``HFLM._loglikelihood_tokens``, lm_eval 0.4.x), for a same-process baseline where the Harness itself is not
installed (perf/gpu_check.py; perf/bench_vs_lm_eval.py runs the Harness itself).

What it copies from the Harness (facts about its behaviour, written anew here):

- each request ``(context, continuation)`` is encoded as a pair: trailing whitespace of the context moves to the
  front of the continuation, ``context + continuation`` and ``context`` are encoded (special tokens as the tokenizer
  adds them, as lm_eval 0.4.13 does; ``add_special_tokens=False`` for older versions), and the continuation's tokens
  are what the whole has beyond the context's;
- the model input is ``(context + continuation)[:-1]``; requests are sorted by descending total length (then by
  their tokens) and run in batches of ``batch_size`` (the usual 32), right-padded with token 0 and no attention mask
  (padding only follows the real tokens of a causal model);
- the whole vocabulary's log-softmax at every position, in the model's dtype (the Harness's ``softmax_dtype``
  default), the continuation's log-probabilities summed, and whether each continuation token is the argmax;
- ``logits_cache`` (the Harness's default): requests whose inputs are equal (same context, continuations that differ
  only in their last token, as "True"/"False" after a chat prompt's newline) share one row of the batch; without it
  every (context, choice) runs on its own row.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as functional


def encode_pair(
    tokenizer: Any, context: str, continuation: str, add_special_tokens: bool | None = None
) -> tuple[list[int], list[int]]:
    """Token ids of ``context`` and of ``continuation`` after it, split as the Harness splits them."""
    spaces = len(context) - len(context.rstrip())
    if spaces:
        context, continuation = context[:-spaces], context[-spaces:] + continuation
    options = {} if add_special_tokens is None else {"add_special_tokens": add_special_tokens}
    whole = tokenizer.encode(context + continuation, **options)
    context_ids = tokenizer.encode(context, **options)
    return context_ids, whole[len(context_ids) :]


def harness_loglikelihoods(
    model: Any,
    tokenizer: Any,
    requests: Sequence[tuple[str, str]],
    batch_size: int = 32,
    logits_cache: bool = True,
    add_special_tokens: bool | None = None,
) -> tuple[list[tuple[float, bool]], dict[str, Any]]:
    """(log-likelihood, is greedy) of each ``(context, continuation)`` in ``requests``, in their order, and what the
    loop did: rows and batches run, tokens run (padding excluded) and padded, seconds spent encoding and running."""
    started = time.perf_counter()
    encoded = [encode_pair(tokenizer, context, continuation, add_special_tokens) for context, continuation in requests]
    for number, (context_ids, continuation_ids) in enumerate(encoded):
        if not context_ids or not continuation_ids:
            raise ValueError(f"request {number}: an empty context or continuation after encoding")
    encode_s = time.perf_counter() - started
    order = sorted(
        range(len(encoded)), key=lambda i: (-len(encoded[i][0] + encoded[i][1]), tuple(encoded[i][0] + encoded[i][1]))
    )
    rows: list[list[int]] = []  # request indices per row (one, or all those whose inputs are equal)
    row_of: dict[tuple[int, ...], int] = {}
    for index in order:
        context_ids, continuation_ids = encoded[index]
        key = tuple(context_ids + continuation_ids[:-1])
        if logits_cache and key in row_of:
            rows[row_of[key]].append(index)
        else:
            row_of[key] = len(rows)
            rows.append([index])
    device = next(model.parameters()).device
    results: list[tuple[float, bool] | None] = [None] * len(encoded)
    tokens_run = padded = batches = 0
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    forward_started = time.perf_counter()
    with torch.no_grad():
        for start in range(0, len(rows), batch_size):
            batch = rows[start : start + batch_size]
            inputs = [(encoded[members[0]][0] + encoded[members[0]][1])[:-1] for members in batch]
            width = max(map(len, inputs))
            input_ids = torch.zeros((len(inputs), width), dtype=torch.long)
            for number, ids in enumerate(inputs):
                input_ids[number, : len(ids)] = torch.tensor(ids, dtype=torch.long)
            logprobs = functional.log_softmax(model(input_ids.to(device)).logits, dim=-1)
            for number, (members, ids) in enumerate(zip(batch, inputs)):
                for index in members:
                    continuation = torch.tensor(encoded[index][1], dtype=torch.long, device=device)
                    rows_of_continuation = logprobs[number, len(ids) - len(continuation) : len(ids)]
                    greedy = bool((rows_of_continuation.argmax(dim=-1) == continuation).all())
                    picked = rows_of_continuation.gather(1, continuation[:, None])
                    results[index] = (float(picked.sum()), greedy)
            tokens_run += sum(map(len, inputs))
            padded += len(inputs) * width
            batches += 1
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    forward_s = time.perf_counter() - forward_started
    stats = {
        "requests": len(encoded),
        "rows": len(rows),
        "batches": batches,
        "batch_size": batch_size,
        "logits_cache": logits_cache,
        "tokens_run": tokens_run,
        "padding_tokens": padded - tokens_run,
        "encode_s": round(encode_s, 4),
        "forward_s": round(forward_s, 4),
        "total_s": round(time.perf_counter() - started, 4),
    }
    return results, stats  # type: ignore[return-value]
