"""The prefix tree's checks against plain forward passes, once per model and per way of sharing.

A packed forward pass of the prefix tree relies on the model honouring what it is given: a 4D attention
mask, position ids that are not the column numbers, and key/value caches placed side by side. A model can
honour one of these and not another (ALiBi-style biases computed from column distances honour the mask but
not the position ids), so each way in which a prompt's computation differs from a plain pass is a *feature*,
and the first batch in which a feature occurs has one of its prompts compared with a plain forward pass of
that prompt alone. A feature is checked once per model; a mismatch turns the tree off for the model.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from typing import Any

import torch

from negkit.engine.placement import input_device
from negkit.engine.prefix_tree import Lane, TreePlan, cache_columns

#: What can make a prompt's computation differ from a plain pass, in the order they are looked for.
FEATURES = (
    "shared row",  # other prompts' tokens in the same row (masked out)
    "gap",  # the prompt's own tokens are not one contiguous run of columns (its position ids skip columns)
    "lane offset",  # the row does not start at column 0 of its sequence
    "anchor",  # the prompt runs on top of an anchor's cache
    "anchor offset",  # that cache does not start at column 0 of the sequence's cache
    "cache gap",  # unused (masked) cache columns lie between the prompt's cache and its row
)
#: Largest total variation distance between the tree's and a plain pass's next-token distributions, and
#: largest difference of their log-probabilities of likely tokens, by compute precision (floating-point noise
#: is far below; a wrong mask or position is far above).
CHECK_TOLERANCE = {torch.float32: (1e-3, 1e-3), torch.float64: (1e-3, 1e-3)}
HALF_PRECISION_TOLERANCE = (0.1, 1.0)
#: Tokens at least this likely count for the log-probability check.
LIKELY = 1e-4


def prompt_features(plan: TreePlan, lanes: Sequence[Lane]) -> dict[int, tuple[int, int, frozenset[str]]]:
    """Per prompt scored in ``lanes``: its row, its place in the row's ``scored`` list, and its features."""
    found: dict[int, tuple[int, int, frozenset[str]]] = {}
    prefix = cache_columns(plan, lanes)
    for lane in lanes:
        offsets = lane.anchor_offsets(plan)
        for index, start in zip(lane.rows, lane.starts):
            row = plan.rows[index]
            for place, (prompt, columns) in enumerate(row.scored):
                last = columns[-1]
                features = {
                    "shared row": len(row.scored) > 1,
                    "gap": last != row.positions[last] - row.positions[0],
                    "lane offset": start > 0,
                    "anchor": row.anchor >= 0,
                    "anchor offset": row.anchor >= 0 and offsets[row.anchor] > 0,
                    "cache gap": (offsets[row.anchor] + plan.anchors[row.anchor].end if row.anchor >= 0 else 0) < prefix,
                }
                found[prompt] = (index, place, frozenset(name for name, present in features.items() if present))
    return found


def choose_prompts(found: dict[int, tuple[int, int, frozenset[str]]], unchecked: set[str]) -> list[int]:
    """A few prompts that together show every unchecked feature present (each feature's prompt is the one
    with the most features, so that one plain pass usually covers several)."""
    chosen: list[int] = []
    covered: set[str] = set()
    for feature in FEATURES:
        if feature not in unchecked or feature in covered:
            continue
        having = [prompt for prompt, (_row, _place, features) in found.items() if feature in features]
        if having:
            best = max(having, key=lambda prompt: len(found[prompt][2]))
            chosen.append(best)
            covered |= found[best][2]
    return chosen


def tree_distance(model: Any, prompt: Any, tree_logprobs: torch.Tensor) -> tuple[float, float]:
    """How far ``tree_logprobs`` are from the next-token distributions of a plain forward pass of ``prompt``
    alone, over its scored positions: the largest total variation distance, and the largest difference of
    log-probabilities among the tokens that either gives a probability of at least :data:`LIKELY`."""
    scored = prompt.last_scored - prompt.first_scored + 1
    kwargs: dict[str, Any] = {"use_cache": False}
    if "logits_to_keep" in inspect.signature(model.forward).parameters:
        kwargs["logits_to_keep"] = scored
    with torch.inference_mode():
        ids = torch.tensor([prompt.ids[: prompt.last_scored + 1]], dtype=torch.long, device=input_device(model))
        logits = model(input_ids=ids, **kwargs).logits[0, -scored:]
    plain = torch.log_softmax(logits.float(), dim=-1).cpu()
    variation = float(0.5 * (plain.exp() - tree_logprobs.exp()).abs().sum(dim=-1).max())
    likely = torch.maximum(plain, tree_logprobs) >= math.log(LIKELY)
    if not bool(likely.any()):  # a flat distribution (e.g. a random model): no likely token to compare
        return variation, 0.0
    return variation, float((plain - tree_logprobs).abs()[likely].max())


def tolerance_for(model: Any) -> tuple[float, float]:
    """The check's tolerances (total variation, log-probability) for the model's compute dtype."""
    return CHECK_TOLERANCE.get(model.get_input_embeddings().weight.dtype, HALF_PRECISION_TOLERANCE)
