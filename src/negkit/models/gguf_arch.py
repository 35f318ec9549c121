"""GGUF files -> transformers: the configuration and the state dict of the architectures negkit converts.

A GGUF file (llama.cpp's format) names its tensors ``token_embd.weight``, ``blk.N.attn_q.weight``, ... and keeps the
model's hyper-parameters as metadata (``ARCH.embedding_length``, ``ARCH.attention.head_count``, ...). This module
maps both to transformers for three architectures:

=========  ====================  =====================================================================================
GGUF arch  transformers          what differs from a plain renaming
=========  ====================  =====================================================================================
llama      LlamaForCausalLM      the q and k projections are stored permuted for llama.cpp's rotary embedding (the
                                 two halves of each head interleaved): un-permuted here
qwen2      Qwen2ForCausalLM      none (q/k/v biases as stored)
gemma3     Gemma3ForCausalLM     every RMSNorm weight is stored as 1 + w (Gemma computes x * (1 + w)): 1 is taken
                                 off; the local (sliding-window) rotary base (10,000), one global layer in six and
                                 the query scaling (1 / sqrt(head_dim)) are not in the file: Gemma 3's values
=========  ====================  =====================================================================================

The weights are dequantized by :mod:`negkit.models.gguf_quants` (negkit's own numpy code), one tensor at a time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from negkit.errors import InputFormatError
from negkit.models.gguf_quants import dequantize, ggml_type

#: The GGUF architectures negkit converts -> transformers model type and class.
ARCHITECTURES: dict[str, tuple[str, str]] = {
    "llama": ("llama", "LlamaForCausalLM"),
    "qwen2": ("qwen2", "Qwen2ForCausalLM"),
    "gemma3": ("gemma3_text", "Gemma3ForCausalLM"),
}
#: Tensors outside the blocks: GGUF name -> transformers name.
GLOBAL_NAMES = {
    "token_embd.weight": "model.embed_tokens.weight",
    "output_norm.weight": "model.norm.weight",
    "output.weight": "lm_head.weight",
}
#: Tensors of block N (``blk.N.NAME.weight|bias``), every architecture: GGUF name -> transformers module.
BLOCK_NAMES = {
    "attn_norm": "input_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
#: Block tensors whose meaning depends on the architecture (Gemma 3 has four norms per block and q/k norms).
ARCH_BLOCK_NAMES = {
    "llama": {"ffn_norm": "post_attention_layernorm"},
    "qwen2": {"ffn_norm": "post_attention_layernorm"},
    "gemma3": {
        "post_attention_norm": "post_attention_layernorm",
        "ffn_norm": "pre_feedforward_layernorm",
        "post_ffw_norm": "post_feedforward_layernorm",
        "attn_q_norm": "self_attn.q_norm",
        "attn_k_norm": "self_attn.k_norm",
    },
}
_BLOCK_RE = re.compile(r"^blk\.(\d+)\.([a-z_]+)\.(weight|bias)$")
#: Gemma 3 facts that its GGUF files do not carry (the values of every Gemma 3 text model's configuration).
GEMMA3_LOCAL_ROPE_BASE = 10_000.0
GEMMA3_SLIDING_WINDOW_PATTERN = 6


@dataclass
class GGUFModel:
    """A GGUF file opened for conversion: its metadata, tensors and the transformers configuration they make."""

    path: Path
    architecture: str
    metadata: dict[str, Any]
    #: transformers configuration keywords (``AutoConfig.for_model(**config)``)
    config: dict[str, Any]
    #: GGUF tensor name -> (transformers name, shape in transformers' order, ggml type id)
    tensors: dict[str, tuple[str, tuple[int, ...], int]] = field(default_factory=dict)
    reader: Any = None

    def tensor_types(self) -> dict[str, int]:
        """How many tensors of each ggml type the file holds (e.g. ``{"Q5_0": 81, "F32": 109}``)."""
        counts: dict[str, int] = {}
        for _name, _shape, type_id in self.tensors.values():
            name = ggml_type(type_id).name
            counts[name] = counts.get(name, 0) + 1
        return dict(sorted(counts.items()))

    def weights(self, names: list[str] | None = None) -> Iterator[tuple[str, np.ndarray]]:
        """(transformers name, float32 array) for each tensor (only ``names``, GGUF names, when given)."""
        by_name = {tensor.name: tensor for tensor in self.reader.tensors}
        for gguf_name in names if names is not None else list(self.tensors):
            hf_name, shape, type_id = self.tensors[gguf_name]
            array = dequantize(by_name[gguf_name].data, type_id, shape)
            yield hf_name, self._transform(gguf_name, hf_name, array)

    def _transform(self, gguf_name: str, hf_name: str, array: np.ndarray) -> np.ndarray:
        if self.architecture == "llama" and re.search(r"\.attn_[qk]\.", gguf_name):
            heads = (
                self.config["num_attention_heads"] if ".attn_q." in gguf_name else self.config["num_key_value_heads"]
            )
            return unpermute_rotary(array, heads)
        if self.architecture == "gemma3" and hf_name.endswith("norm.weight"):
            return array - np.float32(1.0)
        return array


def unpermute_rotary(array: np.ndarray, heads: int) -> np.ndarray:
    """Undo llama.cpp's permutation of a llama q/k projection (rows, or a bias): each head's rows are stored with
    its two rotary halves interleaved (row 2 i + s holds row s * half + i of the head); put the halves back."""
    rows = array.shape[0]
    half = rows // heads // 2
    stored = array.reshape(heads, half, 2, *array.shape[1:])
    return np.ascontiguousarray(stored.swapaxes(1, 2).reshape(array.shape))


def open_gguf(path: Path) -> GGUFModel:
    """Read a GGUF file's metadata and tensor list and map them to transformers (nothing is dequantized yet).

    An architecture or tensor negkit cannot map is an :class:`InputFormatError` naming the file and the problem."""
    from gguf import GGUFReader  # the package's reader gives metadata and each tensor's raw blocks

    reader = GGUFReader(path)
    metadata = {key: _value(value) for key, value in reader.fields.items() if not _is_big_array(key)}
    architecture = str(metadata.get("general.architecture", ""))
    if architecture not in ARCHITECTURES:
        raise InputFormatError(
            path,
            None,
            f"GGUF architecture {architecture or '(none)'!r} is not supported "
            f"(negkit converts {', '.join(ARCHITECTURES)})",
        )
    names = {tensor.name for tensor in reader.tensors}
    config = _config(path, architecture, metadata, reader)
    model = GGUFModel(path, architecture, metadata, config, reader=reader)
    for tensor in reader.tensors:
        hf_name = _hf_name(tensor.name, architecture)
        if hf_name is None:
            raise InputFormatError(
                path,
                None,
                f"tensor {tensor.name!r} has no counterpart in transformers' "
                f"{ARCHITECTURES[architecture][1]} (not a plain {architecture} model?)",
            )
        ggml_type(int(tensor.tensor_type))  # an unsupported type is an error before anything is converted
        shape = tuple(int(size) for size in reversed(tensor.shape))
        model.tensors[tensor.name] = (hf_name, shape, int(tensor.tensor_type))
    if "token_embd.weight" not in names:
        raise InputFormatError(path, None, "the GGUF file has no token_embd.weight tensor")
    return model


def _hf_name(name: str, architecture: str) -> str | None:
    if name in GLOBAL_NAMES:
        return GLOBAL_NAMES[name]
    match = _BLOCK_RE.match(name)
    if match is None:
        return None
    layer, part, kind = match.groups()
    module = BLOCK_NAMES.get(part) or ARCH_BLOCK_NAMES[architecture].get(part)
    return f"model.layers.{layer}.{module}.{kind}" if module else None


def _config(path: Path, architecture: str, metadata: dict[str, Any], reader: Any) -> dict[str, Any]:
    """transformers configuration keywords from the GGUF metadata (see the module doc for what is not in it)."""
    model_type, class_name = ARCHITECTURES[architecture]

    def get(key: str, default: Any = None, required: bool = False) -> Any:
        value = metadata.get(f"{architecture}.{key}", default)
        if value is None and required:
            raise InputFormatError(path, None, f"the GGUF metadata has no {architecture}.{key}")
        return value

    embedding = next(tensor for tensor in reader.tensors if tensor.name == "token_embd.weight")
    heads = int(get("attention.head_count", required=True))
    hidden = int(get("embedding_length", required=True))
    config: dict[str, Any] = {
        "model_type": model_type,
        "architectures": [class_name],
        "vocab_size": int(embedding.shape[1]),
        "hidden_size": hidden,
        "intermediate_size": int(get("feed_forward_length", required=True)),
        "num_hidden_layers": int(get("block_count", required=True)),
        "num_attention_heads": heads,
        "num_key_value_heads": int(get("attention.head_count_kv", heads)),
        "max_position_embeddings": int(get("context_length", 2048)),
        "rms_norm_eps": float(get("attention.layer_norm_rms_epsilon", 1e-6)),
        "rope_theta": float(get("rope.freq_base", 10_000.0)),
        "tie_word_embeddings": not any(tensor.name == "output.weight" for tensor in reader.tensors),
        "dtype": "float32",
    }
    for token in ("bos", "eos", "padding"):
        value = metadata.get(f"tokenizer.ggml.{token}_token_id")
        if value is not None:
            config["pad_token_id" if token == "padding" else f"{token}_token_id"] = int(value)
    scaling = get("rope.scaling.type")
    if scaling not in (None, "none"):
        if scaling != "linear":
            raise InputFormatError(
                path, None, f"rotary scaling {scaling!r} is not supported (negkit reads none or linear)"
            )
        config["rope_scaling"] = {"rope_type": "linear", "factor": float(get("rope.scaling.factor", 1.0))}
    head_dim = get("attention.key_length", get("rope.dimension_count"))
    if architecture == "llama":
        config["head_dim"] = int(head_dim or hidden // heads)
    elif architecture == "gemma3":
        config["head_dim"] = int(head_dim or hidden // heads)
        config["query_pre_attn_scalar"] = config["head_dim"]
        config["rope_local_base_freq"] = GEMMA3_LOCAL_ROPE_BASE
        config["layer_types"] = _gemma3_layer_types(
            get("attention.sliding_window_pattern"), config["num_hidden_layers"]
        )
        if get("attention.sliding_window") is not None:
            config["sliding_window"] = int(get("attention.sliding_window"))
        for key in ("final_logit_softcapping", "attn_logit_softcapping"):
            if get(key) is not None:
                config[key] = float(get(key))
    return config


def _gemma3_layer_types(pattern: Any, layers: int) -> list[str]:
    """Which layers attend within the sliding window: the file's pattern (a period n: every n-th layer is global; or
    one flag per layer, true: sliding) where it has one, else Gemma 3's period of six."""
    if isinstance(pattern, list) and len(pattern) == layers:
        return ["sliding_attention" if flag else "full_attention" for flag in pattern]
    period = int(pattern) if isinstance(pattern, int) and pattern > 0 else GEMMA3_SLIDING_WINDOW_PATTERN
    return ["sliding_attention" if (layer + 1) % period else "full_attention" for layer in range(layers)]


#: Metadata arrays (the vocabulary) read only by the tokenizer conversion.
_BIG_ARRAYS = ("tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type", "tokenizer.ggml.merges")


def _is_big_array(key: str) -> bool:
    return key in _BIG_ARRAYS


def _value(field: Any) -> Any:
    """A metadata field's value as a Python value (strings decoded, arrays as lists)."""
    try:
        return field.contents()
    except (ValueError, IndexError, UnicodeDecodeError):
        return None
