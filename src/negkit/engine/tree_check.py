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
#: largest difference of their log-probabilities of likely tokens, in float32 (floating-point noise is far below;
#: a wrong mask or position is far above).
CHECK_TOLERANCE = {torch.float32: (1e-3, 1e-3), torch.float64: (1e-3, 1e-3)}
#: In 16 bits the tolerance is this many times the dtype's noise, measured on the checked prompt as the distance
#: between the model's 16-bit plain pass and a float32 plain pass of the same weights (the tree's and the plain
#: pass's rounding errors are each about that large; a model that ignores position ids is 20 times further off).
NOISE_FACTOR = 8.0
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
                    "cache gap": (offsets[row.anchor] + plan.anchors[row.anchor].end if row.anchor >= 0 else 0)
                    < prefix,
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


def plain_logprobs(model: Any, prompt: Any) -> torch.Tensor:
    """The log-softmax of a plain forward pass of ``prompt`` alone at its scored positions (float32, on the CPU)."""
    scored = prompt.last_scored - prompt.first_scored + 1
    kwargs: dict[str, Any] = {"use_cache": False}
    if "logits_to_keep" in inspect.signature(model.forward).parameters:
        kwargs["logits_to_keep"] = scored
    with torch.inference_mode():
        ids = torch.tensor([prompt.ids[: prompt.last_scored + 1]], dtype=torch.long, device=input_device(model))
        logits = model(input_ids=ids, **kwargs).logits[0, -scored:]
    return torch.log_softmax(logits.float(), dim=-1).cpu()


def distance(first: torch.Tensor, second: torch.Tensor) -> tuple[float, float]:
    """The largest total variation distance between two sets of next-token log-distributions (row by row), and
    the largest difference of log-probabilities among the tokens that either gives at least :data:`LIKELY`."""
    variation = float(0.5 * (first.exp() - second.exp()).abs().sum(dim=-1).max())
    likely = torch.maximum(first, second) >= math.log(LIKELY)
    if not bool(likely.any()):  # a flat distribution (e.g. a random model): no likely token to compare
        return variation, 0.0
    return variation, float((first - second).abs()[likely].max())


def tree_distance(model: Any, prompt: Any, tree_logprobs: torch.Tensor) -> tuple[float, float]:
    """How far ``tree_logprobs`` are from a plain forward pass of ``prompt`` alone (:func:`distance`)."""
    return distance(plain_logprobs(model, prompt), tree_logprobs)


def compute_dtype(model: Any) -> torch.dtype:
    """The dtype the model computes in (its input embedding's)."""
    dtype: torch.dtype = model.get_input_embeddings().weight.dtype
    return dtype


def rounding_noise(model: Any) -> tuple[float, float]:
    """The noise expected of the model's compute dtype without a measurement: half its machine epsilon in total
    variation and four epsilons in log-probability (bfloat16: 0.0039 and 0.031; float16: 0.0005 and 0.0039,
    about what :func:`measured_noise` finds on the tests' tiny models)."""
    epsilon = torch.finfo(compute_dtype(model)).eps
    return epsilon / 2, 4 * epsilon


def measured_noise(model: Any, prompt: Any) -> tuple[tuple[float, float], str]:
    """The 16-bit noise on ``prompt``: :func:`distance` between the model's plain pass and a float32 plain pass
    of the same weights, and how it was found ("measured"). The model's tensors are cast to float32 in place and
    back to their own dtypes (lossless: every 16-bit number is a float32 number). Where that cannot run (quantized or dispatched weights,
    out of memory, any failure), :func:`rounding_noise` and why."""
    if getattr(model, "is_quantized", False) or getattr(model, "hf_device_map", None):
        return rounding_noise(model), "estimated from the dtype (quantized or dispatched weights)"
    half = plain_logprobs(model, prompt)
    tensors = [tensor for tensor in (*model.parameters(), *model.buffers()) if tensor.is_floating_point()]
    dtypes = [tensor.dtype for tensor in tensors]  # restored one by one (some modules are kept in float32)
    try:
        for tensor in tensors:
            tensor.data = tensor.data.to(torch.float32)
        full = plain_logprobs(model, prompt)
    except Exception as error:  # noqa: BLE001 - out of memory, a model that cannot be cast: estimate instead
        return rounding_noise(model), f"estimated from the dtype (float32 pass failed: {type(error).__name__})"
    finally:
        for tensor, original in zip(tensors, dtypes):
            tensor.data = tensor.data.to(original)
    return distance(half, full), "measured"


def tolerance_for(model: Any, prompt: Any = None) -> tuple[tuple[float, float], str]:
    """The check's tolerances (total variation, log-probability) for the model's compute dtype and how they were
    found: :data:`CHECK_TOLERANCE` in float32; in 16 bits :data:`NOISE_FACTOR` times the noise of the dtype
    measured on ``prompt`` (:func:`measured_noise`), never below the float32 tolerances."""
    dtype = compute_dtype(model)
    if dtype in CHECK_TOLERANCE:
        return CHECK_TOLERANCE[dtype], "float32"
    if prompt is None:
        noise, how = rounding_noise(model), "estimated from the dtype"
    else:
        noise, how = measured_noise(model, prompt)
    floor = CHECK_TOLERANCE[torch.float32]
    tolerance = (max(floor[0], NOISE_FACTOR * noise[0]), max(floor[1], NOISE_FACTOR * noise[1]))
    return (
        tolerance,
        f"{NOISE_FACTOR:g} x the {str(dtype).removeprefix('torch.')} noise {how} ({noise[0]:.2g}, {noise[1]:.2g})",
    )
