"""How close a SmolLM2-135M forward pass runs to this machine's matmul rate, and what fusing its elementwise work gives.

Why: negkit's exact mode against the LM Evaluation Harness is bounded by how many tokens each tool runs through the
model (docs/results/bench_vs_lm_eval.md). Faster kernels could only move that bound if the forward pass were far
below the machine's float32 matmul rate. This script measures, in one process:

1. the float32 (and bfloat16) matmul rate at 2048 x 2048 (GFLOP/s);
2. a forward pass of SmolLM2-135M's shape (30 layers, hidden 576, random weights: speed does not depend on them,
   no LM head: negkit runs it on scored positions only) at batch shapes the engine uses, with its rate in GFLOP/s
   of the linear layers' arithmetic and as a fraction of the matmul rate;
3. the same forward with the attention, MLP and RMSNorm modules given hand-fused forwards (q/k/v and gate/up as one
   matmul each, rotary embedding and RMSNorm without temporaries: an experiment kept in this script, not in
   negkit), its speed-up over the stock forward and the largest log-probability change on the batch.

Stock and fused runs alternate (three rounds, the fastest of each counts).

    OMP_NUM_THREADS=2 PYTHONPATH=src python perf/bench_forward_rate.py [--dtypes float32,bfloat16]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import types
from typing import Any

import torch
import torch.nn.functional as functional

SHAPES = ((32, 40), (4, 256))


def matmul_rate(dtype: torch.dtype, size: int = 2048, rounds: int = 5) -> float:
    """GFLOP/s of a ``size`` x ``size`` matmul in ``dtype`` (the fastest of ``rounds``)."""
    a, b = torch.randn(size, size).to(dtype), torch.randn(size, size).to(dtype)
    a @ b
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - started)
    return 2 * size**3 / best / 1e9


def smollm2_shape(dtype: torch.dtype) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM  # heavy: off the start-up path

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=49152,
        hidden_size=576,
        intermediate_size=1536,
        num_hidden_layers=30,
        num_attention_heads=9,
        num_key_value_heads=3,
        max_position_embeddings=2048,
        rms_norm_eps=1e-5,
        tie_word_embeddings=True,
        attn_implementation="sdpa",
    )
    return LlamaForCausalLM(config).eval().to(dtype)


def linear_flops_per_token(model: Any) -> int:
    """2 x the parameters of the decoder layers' linear projections (the matmul arithmetic per token)."""
    return 2 * sum(
        module.weight.numel()
        for name, module in model.model.layers.named_modules()
        if isinstance(module, torch.nn.Linear)
    )


# --- the fused-forward experiment -------------------------------------------------------------------------------


def _rotate(states: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = states.shape[-1] // 2
    first, second = states[..., :half], states[..., half:]
    cos, sin = cos[..., :half], sin[..., :half]
    out = torch.empty_like(states)
    torch.mul(first, cos, out=out[..., :half])
    out[..., :half].addcmul_(second, sin, value=-1)
    torch.mul(second, cos, out=out[..., half:])
    out[..., half:].addcmul_(first, sin)
    return out


def _attention(
    self: Any,
    hidden_states: torch.Tensor,
    position_embeddings: Any = None,
    attention_mask: Any = None,
    past_key_values: Any = None,
    **kwargs: Any,
) -> Any:
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS  # heavy: off the start-up path

    shape = hidden_states.shape[:-1]
    stacked = functional.linear(hidden_states, self.stacked)
    queries, keys = self.q_proj.weight.shape[0], self.k_proj.weight.shape[0]
    query = stacked[..., :queries].view(*shape, -1, self.head_dim).transpose(1, 2)
    key = stacked[..., queries : queries + keys].view(*shape, -1, self.head_dim).transpose(1, 2)
    value = stacked[..., queries + keys :].view(*shape, -1, self.head_dim).transpose(1, 2)
    cos, sin = (table.unsqueeze(1) for table in position_embeddings)
    query, key = _rotate(query, cos, sin), _rotate(key, cos, sin)
    attention = ALL_ATTENTION_FUNCTIONS.get_interface(self.config._attn_implementation, None)
    output, weights = attention(self, query, key, value, attention_mask, dropout=0.0, scaling=self.scaling, **kwargs)
    return self.o_proj(output.reshape(*shape, -1)), weights


def _mlp(self: Any, hidden_states: torch.Tensor) -> torch.Tensor:
    stacked = functional.linear(hidden_states, self.stacked)
    half = stacked.shape[-1] // 2
    gate = functional.silu(stacked[..., :half])
    return self.down_proj(gate.mul_(stacked[..., half:]))


def _norm(self: Any, hidden: torch.Tensor) -> torch.Tensor:
    states = hidden.to(torch.float32)
    variance = (states * states).mean(-1, keepdim=True)
    variance.add_(self.variance_epsilon).rsqrt_()
    return (states * variance).to(hidden.dtype).mul_(self.weight)


def set_fused(model: Any, fused: bool) -> None:
    """Give the decoder's modules the fused forwards (``fused``) or their stock ones back."""
    for layer in model.model.layers:
        attention, mlp = layer.self_attn, layer.mlp
        if not hasattr(attention, "stacked"):
            attention.stacked = torch.cat([attention.q_proj.weight, attention.k_proj.weight, attention.v_proj.weight])
            mlp.stacked = torch.cat([mlp.gate_proj.weight, mlp.up_proj.weight])
        pairs = (
            (attention, _attention),
            (mlp, _mlp),
            (layer.input_layernorm, _norm),
            (layer.post_attention_layernorm, _norm),
        )
        for module, forward in pairs:
            if fused:
                module.forward = types.MethodType(forward, module)
            else:
                module.__dict__.pop("forward", None)


# ------------------------------------------------------------------------------------------------------------------


def time_shape(model: Any, rows: int, tokens: int, rounds: int = 3) -> dict[str, Any]:
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, model.config.vocab_size, (rows, tokens), generator=generator)
    positions = torch.arange(tokens).expand(rows, tokens)
    mask = torch.tril(torch.ones(tokens, tokens, dtype=torch.bool))[None, None].expand(rows, 1, tokens, tokens)

    @torch.inference_mode()
    def forward() -> torch.Tensor:
        hidden = model.model(input_ids=ids, position_ids=positions, attention_mask=mask, use_cache=False)
        return torch.log_softmax(model.lm_head(hidden.last_hidden_state[:, -1]).float(), dim=-1)

    best = {"stock": float("inf"), "fused": float("inf")}
    outputs = {}
    for _ in range(rounds):
        for name in best:
            set_fused(model, name == "fused")
            forward()
            started = time.perf_counter()
            outputs[name] = forward()
            best[name] = min(best[name], time.perf_counter() - started)
    set_fused(model, False)
    return {
        "stock_s": best["stock"],
        "fused_s": best["fused"],
        "logprob_change": float((outputs["stock"] - outputs["fused"]).abs().max()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("--dtypes", default="float32,bfloat16", help="comma-separated torch dtypes")
    args = parser.parse_args()
    print(
        f"machine: {platform.processor() or platform.machine()}, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads, capability {torch.backends.cpu.get_cpu_capability()}"
    )
    print(
        "| dtype | rows x tokens | matmul GFLOP/s (2048^2) | forward s | forward GFLOP/s (linear layers) "
        "| of the matmul rate | fused forward s | fused speed-up | max log-prob change |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.dtypes.split(","):
        dtype = getattr(torch, name)
        peak = matmul_rate(dtype)
        model = smollm2_shape(dtype)
        per_token = linear_flops_per_token(model)
        for rows, tokens in SHAPES:
            timing = time_shape(model, rows, tokens)
            rate = per_token * rows * tokens / timing["stock_s"] / 1e9
            print(
                f"| {name} | {rows} x {tokens} | {peak:.0f} | {timing['stock_s']:.3f} | {rate:.0f} | "
                f"{rate / peak:.0%} | {timing['fused_s']:.3f} | {timing['stock_s'] / timing['fused_s']:.2f}x | "
                f"{timing['logprob_change']:.1e} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
