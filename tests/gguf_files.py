"""Tiny GGUF files written by the tests (gguf.GGUFWriter): random blocks of every quantization type, and tiny
llama / qwen2 / gemma3 models with a tokenizer, written from a transformers model the way llama.cpp's converter
writes them (llama q/k rows permuted for its rotary embedding, Gemma norms stored as 1 + w)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

#: Byte offsets of the float16 scales in each quantized type's block (kept finite and small in random blocks).
F16_FIELDS = {
    "Q4_0": [0],
    "Q4_1": [0, 2],
    "Q5_0": [0],
    "Q5_1": [0, 2],
    "Q8_0": [0],
    "Q2_K": [80, 82],
    "Q3_K": [108],
    "Q4_K": [0, 2],
    "Q5_K": [0, 2],
    "Q6_K": [208],
}
#: Types the gguf package can quantize (the others get random blocks).
QUANTIZABLE = ("F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0")


def random_blocks(type_name: str, shape: tuple[int, int], rng: np.random.Generator, scale: float = 1.0) -> np.ndarray:
    """Raw bytes (rows, bytes per row) of a tensor of ``shape`` in ``type_name``: random packed integers, random
    float16 scales of size about ``scale`` (plain types: random values)."""
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    kind = GGMLQuantizationType[type_name]
    rows, cols = shape
    if type_name == "F32":
        return (scale * rng.standard_normal(shape)).astype(np.float32).view(np.uint8)
    if type_name == "F16":
        return (scale * rng.standard_normal(shape)).astype(np.float16).view(np.uint8)
    if type_name == "BF16":
        values = (scale * rng.standard_normal(shape)).astype(np.float32)
        return (values.view(np.uint32) >> 16).astype(np.uint16).view(np.uint8)
    elements, size = GGML_QUANT_SIZES[kind]
    raw = rng.integers(0, 256, size=(rows, cols // elements * size), dtype=np.uint8)
    blocks = raw.reshape(-1, size)
    for offset in F16_FIELDS[type_name]:
        blocks[:, offset : offset + 2] = (
            (scale * rng.standard_normal((len(blocks), 1))).astype(np.float16).view(np.uint8)
        )
    return raw


def encode(values: np.ndarray, type_name: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(bytes to write, what they decode to): ``values`` quantized by the gguf package where it can, else random
    blocks of about the values' size (the K-quants, which the package decodes but cannot encode)."""
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize, quantize

    kind = GGMLQuantizationType[type_name]
    if type_name == "F32":
        return values.astype(np.float32), values.astype(np.float32)
    if type_name in QUANTIZABLE:
        raw = quantize(values.astype(np.float32), kind)
    else:
        raw = random_blocks(type_name, values.shape, rng, scale=float(np.abs(values).mean()) / 8)
    return raw, dequantize(raw, kind).astype(np.float32).reshape(values.shape)


# --- tiny models --------------------------------------------------------------------------------------------

#: Hidden size 256: every quantization type's block fits a row (the K-quants hold 256 weights a block).
HIDDEN, HEADS, KV_HEADS, INTERMEDIATE, LAYERS = 256, 4, 2, 512, 2


def tiny_model(arch: str, vocab_size: int, seed: int = 0):
    """A 2-layer transformers model of ``arch`` (llama, qwen2 or gemma3) with random weights."""
    from transformers import AutoConfig, AutoModelForCausalLM

    torch.manual_seed(seed)
    common = dict(
        vocab_size=vocab_size,
        hidden_size=HIDDEN,
        intermediate_size=INTERMEDIATE,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS,
        max_position_embeddings=256,
        rms_norm_eps=1e-6,
        bos_token_id=2,
        eos_token_id=1,
        pad_token_id=0,
    )
    if arch == "llama":
        config = AutoConfig.for_model("llama", rope_theta=10_000.0, tie_word_embeddings=False, **common)
    elif arch == "qwen2":
        config = AutoConfig.for_model("qwen2", rope_theta=1_000_000.0, tie_word_embeddings=False, **common)
    else:
        config = AutoConfig.for_model(
            "gemma3_text",
            head_dim=64,
            query_pre_attn_scalar=64,
            sliding_window=8,
            rope_theta=1_000_000.0,
            rope_local_base_freq=10_000.0,
            layer_types=["sliding_attention", "full_attention"],
            tie_word_embeddings=True,
            **common,
        )
    model = AutoModelForCausalLM.from_config(config).eval()
    with torch.no_grad():
        for name, parameter in model.named_parameters():  # norms and biases away from their initial 1 / 0
            if name.endswith("norm.weight") or name.endswith(".bias"):
                parameter.add_(0.1 * torch.randn_like(parameter))
    return model


def _gguf_name(hf_name: str, arch: str) -> str:
    names = {
        "model.embed_tokens.weight": "token_embd.weight",
        "model.norm.weight": "output_norm.weight",
        "lm_head.weight": "output.weight",
    }
    if hf_name in names:
        return names[hf_name]
    _model, _layers, layer, *module, kind = hf_name.split(".")
    parts = {
        "input_layernorm": "attn_norm",
        "self_attn.q_proj": "attn_q",
        "self_attn.k_proj": "attn_k",
        "self_attn.v_proj": "attn_v",
        "self_attn.o_proj": "attn_output",
        "mlp.gate_proj": "ffn_gate",
        "mlp.up_proj": "ffn_up",
        "mlp.down_proj": "ffn_down",
        "self_attn.q_norm": "attn_q_norm",
        "self_attn.k_norm": "attn_k_norm",
        "pre_feedforward_layernorm": "ffn_norm",
        "post_feedforward_layernorm": "post_ffw_norm",
        "post_attention_layernorm": "post_attention_norm" if arch == "gemma3" else "ffn_norm",
    }
    return f"blk.{layer}.{parts['.'.join(module)]}.{kind}"


def _permute(array: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's rotary permutation of a q/k projection (what negkit undoes)."""
    half = array.shape[0] // heads // 2
    return array.reshape(heads, 2, half, *array.shape[1:]).swapaxes(1, 2).reshape(array.shape)


def write_tiny_gguf(
    path: Path, arch: str, model, tokenizer: dict, types: dict[str, str] | None = None, seed: int = 0
) -> None:
    """Write ``model`` as a GGUF file of ``arch`` with ``tokenizer`` metadata (:func:`gpt2_vocabulary` or
    :func:`sentencepiece_vocabulary`). ``types`` maps a GGUF tensor-name part (``attn_q``, ``ffn_down``,
    ``token_embd``, ...) to a quantization type (default F32; 1-D tensors stay F32). The model's own weights are
    replaced by what the file decodes to, so that it is the reference for the file."""
    from gguf import GGMLQuantizationType, GGUFWriter

    rng = np.random.default_rng(seed)
    config = model.config
    writer = GGUFWriter(str(path), arch)
    writer.add_block_count(config.num_hidden_layers)
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_head_count(config.num_attention_heads)
    writer.add_head_count_kv(config.num_key_value_heads)
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    rope = getattr(config, "rope_parameters", None)  # transformers 5; 4.x: rope_theta
    writer.add_rope_freq_base(rope.get("full_attention", rope)["rope_theta"] if rope else config.rope_theta)
    if arch == "gemma3":
        writer.add_key_length(config.head_dim)
        writer.add_value_length(config.head_dim)
        writer.add_sliding_window(config.sliding_window)
        writer.add_array(
            "gemma3.attention.sliding_window_pattern", [kind == "sliding_attention" for kind in config.layer_types]
        )
    if arch == "llama":
        writer.add_rope_dimension_count(config.head_dim)
    writer.add_tokenizer_model(tokenizer["model"])
    writer.add_token_list(tokenizer["tokens"])
    writer.add_token_types(tokenizer["types"])
    if "merges" in tokenizer:
        writer.add_token_merges(tokenizer["merges"])
    if "scores" in tokenizer:
        writer.add_token_scores(tokenizer["scores"])
    writer.add_bos_token_id(2)
    writer.add_eos_token_id(1)
    writer.add_pad_token_id(0)
    writer.add_add_bos_token(arch != "qwen2")
    state = model.state_dict()
    decoded: dict[str, torch.Tensor] = {}
    for hf_name, tensor in state.items():
        if hf_name == "lm_head.weight" and config.tie_word_embeddings:
            continue
        gguf_name = _gguf_name(hf_name, arch)
        values = tensor.detach().float().numpy()
        if arch == "gemma3" and hf_name.endswith("norm.weight"):
            values = values + np.float32(1.0)
        heads = {"attn_q": config.num_attention_heads, "attn_k": config.num_key_value_heads}.get(
            gguf_name.split(".")[-2]
        )
        if arch == "llama" and heads:
            values = _permute(values, heads)
        type_name = "F32" if values.ndim == 1 else (types or {}).get(gguf_name.split(".")[-2], "F32")
        raw, values = encode(values, type_name, rng)
        writer.add_tensor(gguf_name, raw, raw_dtype=GGMLQuantizationType[type_name])
        if arch == "llama" and heads:  # back to transformers' order
            half = values.shape[0] // heads // 2
            values = values.reshape(heads, half, 2, -1).swapaxes(1, 2).reshape(values.shape)
        if arch == "gemma3" and hf_name.endswith("norm.weight"):
            values = values - np.float32(1.0)
        decoded[hf_name] = torch.from_numpy(np.ascontiguousarray(values))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    model.load_state_dict(decoded, strict=False)
    if config.tie_word_embeddings:
        model.tie_weights()


# --- tokenizers ---------------------------------------------------------------------------------------------

SPECIAL = ["<pad>", "<eos>", "<bos>", "<unk>"]


def gpt2_vocabulary() -> dict:
    """A byte-level BPE vocabulary (llama.cpp's ``gpt2`` tokenizer model): 4 special tokens, the 256 byte symbols,
    a few merges."""
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    symbols = list(bytes_to_unicode().values())
    merges = ["Ġ t", "h e", "Ġt he", "Ġ a", "i s", "Ġ is", "n o", "o t", "Ġ n", "Ġn ot"]
    merged = [merge.replace(" ", "") for merge in merges]
    tokens = SPECIAL + symbols + merged
    return {"model": "gpt2", "tokens": tokens, "merges": merges, "types": [3] * len(SPECIAL) + [1] * (len(tokens) - 4)}


def sentencepiece_vocabulary() -> dict:
    """A SentencePiece-style vocabulary (llama.cpp's ``llama`` tokenizer model, as Gemma files have): special tokens,
    byte fallbacks, letters and a few pieces with ``▁`` for a space; scores in file order."""
    pieces = ["▁", *"abcdefghijklmnopqrstuvwxyzTIA.,", "▁t", "he", "▁the", "▁a", "is", "▁is", "▁n", "ot", "▁not"]
    byte_tokens = [f"<0x{value:02X}>" for value in range(256)]
    tokens = SPECIAL + byte_tokens + pieces
    types = [3] * len(SPECIAL) + [6] * len(byte_tokens) + [1] * len(pieces)
    return {"model": "llama", "tokens": tokens, "scores": [-float(i) for i in range(len(tokens))], "types": types}
