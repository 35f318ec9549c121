"""Building blocks shared by the taggers and the parser: a scalar mix of encoder layers with layer dropout,
learning-rate schedules (linear warm-up/decay, Noam), devices and the encoder's own dropouts.

* :class:`ScalarMix` (Peters et al. 2018, as used by UDify and STEPS): the word vectors are a learned, softmax-weighted
  sum of every encoder layer (the embedding layer included) times a learned scale; during training each layer's
  weight is dropped with probability ``layer_dropout`` (its logit set to minus infinity, at least one layer kept).
* :func:`schedule_factor`: ``"linear"`` (warm-up over ``warmup`` steps, then linear decay to 0 at the last step),
  ``"noam"`` (Vaswani et al. 2017, normalised so that the factor is 1 at the end of the warm-up: ``min(step /
  warmup, sqrt(warmup / step))``) or ``"constant"``.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from negkit.errors import NegkitError

SCHEDULES = ("linear", "noam", "constant")
DEVICES = ("cpu", "cuda", "auto")


class ScalarMix(nn.Module):
    """``gamma * sum_i softmax(w)_i * layer_i`` over ``layers`` tensors of equal shape, with layer dropout."""

    def __init__(self, layers: int, layer_dropout: float = 0.0) -> None:
        super().__init__()
        if not 0.0 <= layer_dropout < 1.0:
            raise ValueError(f"layer dropout must be in [0, 1), not {layer_dropout}")
        self.weights = nn.Parameter(torch.zeros(layers))
        self.gamma = nn.Parameter(torch.ones(()))
        self.layer_dropout = layer_dropout

    def forward(self, layers: tuple[torch.Tensor, ...] | list[torch.Tensor]) -> torch.Tensor:
        if len(layers) != self.weights.numel():
            raise ValueError(f"expected {self.weights.numel()} layers, got {len(layers)}")
        logits: torch.Tensor = self.weights
        if self.training and self.layer_dropout > 0:
            dropped = torch.rand_like(logits) < self.layer_dropout
            if bool(dropped.all()):
                dropped[torch.randint(len(dropped), (1,))] = False
            logits = logits.masked_fill(dropped, -math.inf)
        mix = torch.softmax(logits, dim=0)
        return self.gamma * sum(weight * layer for weight, layer in zip(mix, layers))


def schedule_factor(name: str, step: int, warmup: int, total: int) -> float:
    """The learning-rate factor of schedule ``name`` before optimizer step ``step`` (0-based; ``linear`` is exactly
    transformers' ``get_linear_schedule_with_warmup``, whose first step has factor 0 when there is a warm-up)."""
    if name == "constant":
        return 1.0
    if name == "noam":
        step, warmup = step + 1, max(warmup, 1)
        return min(step / warmup, math.sqrt(warmup / step))
    if name == "linear":
        if step < warmup:
            return step / max(1, warmup)
        return max(0.0, (total - step) / max(1, total - warmup))
    raise NegkitError(f"unknown learning-rate schedule {name!r} (expected one of {', '.join(SCHEDULES)})")


def make_scheduler(
    optimizer: torch.optim.Optimizer, name: str, warmup: int, total: int
) -> torch.optim.lr_scheduler.LambdaLR:
    """A ``LambdaLR`` applying :func:`schedule_factor` (stepped once per optimizer step)."""
    schedule_factor(name, 0, warmup, total)  # an unknown name fails here, before any training
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: schedule_factor(name, step, warmup, total))


def resolve_device(name: str) -> torch.device:
    """``cpu``, ``cuda`` (an error without CUDA), ``cuda:N`` or ``auto`` (CUDA when available)."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise NegkitError(f"device {name!r} asked for, but torch sees no CUDA device here (use --device cpu)")
    try:
        return torch.device(name)
    except RuntimeError:
        raise NegkitError(f"unknown device {name!r} (expected cpu, cuda, cuda:N or auto)") from None


def encoder_config_overrides(config: object, hidden_dropout: float | None, attention_dropout: float | None) -> dict:
    """``from_pretrained`` keyword overrides setting the encoder's dropouts (BERT/RoBERTa/XLM-R names; DistilBERT's)."""
    overrides: dict[str, float] = {}
    for value, names in (
        (hidden_dropout, ("hidden_dropout_prob", "dropout")),
        (attention_dropout, ("attention_probs_dropout_prob", "attention_dropout")),
    ):
        if value is None:
            continue
        for name in names:
            if hasattr(config, name):
                overrides[name] = value
                break
    return overrides
