"""The key/value cache of a transformers causal LM, through the API each transformers version supports.

transformers 5 names a model's cache argument and output ``cache`` (``past_key_values`` is deprecated from 5.2x and
goes away in 5.40); 4.x names both ``past_key_values``. The engine passes and reads caches only through these
helpers, which ask the model's ``forward`` signature which name it takes, so that no deprecation warning is raised
and nothing breaks when the old name goes. Caches are ``DynamicCache`` objects built from per-layer (keys, values)
tensors, read back through ``cache.layers``.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

import torch

#: Per layer: (keys, values), each (batch, heads, positions, head size).
Layers = list[tuple[torch.Tensor, torch.Tensor]]


def cache_keyword(model: Any) -> str:
    """The name of ``model.forward``'s cache argument: ``cache`` (transformers 5) or ``past_key_values`` (4.x)."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model  # a PEFT wrapper forwards **kwargs
    for forward in (base.forward, getattr(type(base), "forward", None)):  # a wrapped forward: the class's says
        parameters = inspect.signature(forward).parameters if callable(forward) else {}
        if "cache" in parameters or "past_key_values" in parameters:
            return "cache" if "cache" in parameters else "past_key_values"
    return "past_key_values"


def with_cache(model: Any, kwargs: dict[str, Any], cache: Any) -> dict[str, Any]:
    """``kwargs`` with ``cache`` passed under the name ``model`` takes."""
    kwargs[cache_keyword(model)] = cache
    return kwargs


def output_cache(output: Any) -> Any:
    """The cache a forward pass returned (its ``cache`` field, or ``past_key_values`` in transformers 4.x)."""
    keys = output.keys() if hasattr(output, "keys") else ()
    if "cache" in keys:
        return output["cache"]
    return output["past_key_values"] if "past_key_values" in keys else None


def cache_layers(cache: Any) -> Layers:
    """Each layer's (keys, values) of a ``DynamicCache``."""
    return [(layer.keys, layer.values) for layer in cache.layers]


def new_cache(layers: Iterable[tuple[torch.Tensor, torch.Tensor]], config: Any) -> Any:
    """A ``DynamicCache`` holding ``layers`` (the tensors themselves: views stay views, nothing is copied)."""
    from transformers import DynamicCache  # heavy: off the start-up path

    return DynamicCache(ddp_cache_data=list(layers), config=config)
