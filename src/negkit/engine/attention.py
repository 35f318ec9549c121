"""What the engine's custom-mask paths (the prefix-tree scorer, the shared-prefix and trie generators) need to know
about a model's attention: which implementations take an explicit mask, the model's sliding window, and the mask in
the form the implementation reads."""

from __future__ import annotations

from typing import Any

import torch

#: Attention implementations that take a custom 4D mask (boolean for SDPA, additive for eager) and a 2D padding
#: mask with holes (padding between real tokens).
MASKABLE_ATTENTION = ("sdpa", "eager")


def sliding_window(model: Any) -> int | None:
    """The model's sliding attention window in tokens, or None when it attends over the whole context."""
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    window = getattr(config, "sliding_window", None)
    if isinstance(window, int) and getattr(config, "use_sliding_window", True) is not False:
        return window
    return None


def attention_mask(model: Any, allowed: torch.Tensor) -> torch.Tensor:
    """``allowed`` (True: may attend) in the form ``model``'s attention implementation reads: boolean for SDPA,
    additive (0 or the dtype's minimum) for eager attention."""
    if model.config._attn_implementation == "sdpa":
        return allowed
    dtype = model.get_input_embeddings().weight.dtype
    dtype = dtype if dtype.is_floating_point else torch.float32
    return torch.zeros(allowed.shape, dtype=dtype).masked_fill(~allowed, torch.finfo(dtype).min)
