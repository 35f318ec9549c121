"""Where a model's inputs go, for models on one device and for models sharded with ``device_map``.

A model loaded with ``device_map`` (accelerate's dispatch) may have its layers on several GPUs, in CPU
memory or on disk; the inputs belong where the input embedding runs: the execution device of its
accelerate hook when it has one (offloaded weights are brought there for each pass), else the device of
its weights. The engine never assumes one device: it sends inputs there and reads results back to the CPU.
"""

from __future__ import annotations

from typing import Any

import torch


def input_device(model: Any) -> torch.device:
    """The device that a model's ``input_ids`` must be on."""
    embedding = model.get_input_embeddings() if hasattr(model, "get_input_embeddings") else None
    if embedding is not None:
        hook = getattr(embedding, "_hf_hook", None)
        execution = getattr(hook, "execution_device", None)
        if execution is not None:
            return torch.device(f"cuda:{execution}" if isinstance(execution, int) else execution)
        weight = getattr(embedding, "weight", None)
        if weight is not None and weight.device.type != "meta":
            device: torch.device = weight.device
            return device
    parameter: torch.nn.Parameter
    for parameter in model.parameters():
        if parameter.device.type != "meta":
            return parameter.device
    return torch.device("cpu")
