"""Tiny llama / qwen2 / gemma3 models written as GGUF files here load through negkit's own conversion with the
logits of the same weights loaded directly in transformers (and of transformers' own GGUF loader)."""

from __future__ import annotations

import json

import pytest
import torch
from gguf_files import gpt2_vocabulary, sentencepiece_vocabulary, tiny_model, write_tiny_gguf

from negkit.errors import InputFormatError, NegkitError

ARCHS = ["llama", "qwen2", "gemma3"]
#: Per architecture, the quantization of each kind of tensor in the mixed file (as in real Q4_K_M files).
MIXED = {
    "llama": {
        "token_embd": "Q8_0",
        "attn_q": "Q4_1",
        "attn_k": "Q4_1",
        "attn_v": "Q5_1",
        "attn_output": "Q4_0",
        "ffn_gate": "Q4_1",
        "ffn_up": "Q2_K",
        "ffn_down": "Q3_K",
        "output": "Q6_K",
    },
    "qwen2": {
        "token_embd": "Q5_0",
        "attn_q": "Q5_0",
        "attn_k": "Q4_K",
        "attn_v": "Q8_0",
        "attn_output": "Q5_K",
        "ffn_gate": "F16",
        "ffn_up": "BF16",
        "ffn_down": "Q6_K",
        "output": "Q8_0",
    },
    "gemma3": {
        "token_embd": "Q8_0",
        "attn_q": "Q5_0",
        "attn_k": "Q5_0",
        "attn_v": "Q8_0",
        "attn_output": "Q4_K",
        "ffn_gate": "Q5_0",
        "ffn_up": "Q5_0",
        "ffn_down": "Q6_K",
    },
}
IDS = torch.tensor([[2, 40, 71, 250, 5, 99, 13, 200, 81, 64, 22, 7]])


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NEGKIT_CACHE", str(tmp_path / "cache"))


def _vocabulary(arch):
    return sentencepiece_vocabulary() if arch == "gemma3" else gpt2_vocabulary()


def _written(arch, tmp_path, types=None):
    vocabulary = _vocabulary(arch)
    model = tiny_model(arch, len(vocabulary["tokens"]))
    path = tmp_path / f"{arch}.gguf"
    write_tiny_gguf(path, arch, model, vocabulary, types)
    return path, model


def _logits(model, ids=IDS):
    with torch.no_grad():
        return model(input_ids=ids).logits


@pytest.mark.parametrize("arch", ARCHS)
def test_float32_file_gives_the_models_logits(arch, tmp_path):
    from transformers import AutoModelForCausalLM

    from negkit.models.gguf import converted_folder

    path, model = _written(arch, tmp_path)
    folder = converted_folder(path)
    loaded = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    torch.testing.assert_close(_logits(loaded), _logits(model), rtol=1e-5, atol=1e-5)
    # transformers' own GGUF reader agrees on the weights' layout (rotary permutation, Gemma's 1 + w norms); its
    # Gemma 3 configuration is another matter (it takes query scaling and sliding layers from the 7B defaults)
    reference = AutoModelForCausalLM.from_pretrained(tmp_path, gguf_file=path.name, dtype=torch.float32).state_dict()
    for name, tensor in loaded.state_dict().items():
        torch.testing.assert_close(tensor, reference[name], rtol=0, atol=0, msg=name)
    summary = json.loads((folder / "gguf.json").read_text())
    assert summary["architecture"] == arch and summary["tensor_types"] == {
        "F32": len(model.state_dict()) - (arch == "gemma3")
    }


@pytest.mark.parametrize("arch", ARCHS)
def test_mixed_quantizations_load_through_negkit(arch, tmp_path):
    """A file mixing the quantization types of real Q4_K_M files (Q5_0 included), loaded by name as negkit loads
    any GGUF model: the logits are those of the decoded weights in transformers, and the run record names the file."""
    from negkit.models.fingerprints import file_sha256
    from negkit.models.registry import load_model

    path, model = _written(arch, tmp_path, MIXED[arch])
    lm = load_model(f"gguf:{path}", dtype="float32")
    torch.testing.assert_close(_logits(lm.model), _logits(model), rtol=1e-4, atol=1e-4)
    assert lm.fingerprint.sha256 == file_sha256(path) and lm.fingerprint.name == path.name
    gguf = lm.load_info["gguf"]
    assert gguf["sha256"] == file_sha256(path) and gguf["architecture"] == arch
    assert set(gguf["tensor_types"]) == {"F32", *MIXED[arch].values()}
    assert lm.generate(["the"], max_new_tokens=3) is not None  # a tokenizer came along


def test_gemma3_sliding_layers_without_a_pattern_are_one_in_six():
    from negkit.models.gguf_arch import _gemma3_layer_types

    assert _gemma3_layer_types(None, 7) == ["sliding_attention"] * 5 + ["full_attention", "sliding_attention"]
    assert _gemma3_layer_types([True, False], 2) == ["sliding_attention", "full_attention"]
    assert _gemma3_layer_types(3, 3) == ["sliding_attention"] * 2 + ["full_attention"]


def test_tokenizers_come_from_the_file(tmp_path):
    from transformers import AutoTokenizer

    from negkit.models.gguf import converted_folder

    for arch in ("llama", "gemma3"):
        path, _model = _written(arch, tmp_path)
        tokenizer = AutoTokenizer.from_pretrained(converted_folder(path))
        ids = tokenizer("the cat is not")["input_ids"]
        assert tokenizer.decode(ids, skip_special_tokens=True) == "the cat is not"
        assert ids[0] == 2  # the file says add_bos_token


def test_unsupported_architecture_and_tensor_are_one_clear_error(tmp_path):
    import numpy as np
    from gguf import GGUFWriter

    from negkit.models.gguf import converted_folder

    path = tmp_path / "falcon.gguf"
    writer = GGUFWriter(str(path), "falcon")
    writer.add_tensor("token_embd.weight", np.zeros((8, 32), dtype=np.float32))
    for write in (
        writer.write_header_to_file,
        writer.write_kv_data_to_file,
        writer.write_tensors_to_file,
        writer.close,
    ):
        write()
    with pytest.raises(InputFormatError, match="GGUF architecture 'falcon' is not supported"):
        converted_folder(path)
    path = tmp_path / "extra.gguf"
    vocabulary = gpt2_vocabulary()
    model = tiny_model("llama", len(vocabulary["tokens"]))
    write_tiny_gguf(path, "llama", model, vocabulary)
    from gguf import GGUFReader  # append a tensor no Llama has: rewrite the file with it

    reader = GGUFReader(path)
    writer = GGUFWriter(str(tmp_path / "extra2.gguf"), "llama")
    for field in reader.fields.values():
        if not field.name.startswith("GGUF.") and field.name != "general.architecture":
            writer.add_key_value(
                field.name, field.contents(), field.types[0], sub_type=field.types[-1] if len(field.types) > 1 else None
            )
    for tensor in reader.tensors:
        writer.add_tensor(tensor.name, np.array(tensor.data), raw_dtype=tensor.tensor_type)
    writer.add_tensor("blk.0.ssm_conv1d.weight", np.zeros((4, 32), dtype=np.float32))
    for write in (
        writer.write_header_to_file,
        writer.write_kv_data_to_file,
        writer.write_tensors_to_file,
        writer.close,
    ):
        write()
    with pytest.raises(NegkitError, match="tensor 'blk.0.ssm_conv1d.weight' has no counterpart"):
        converted_folder(tmp_path / "extra2.gguf")
    assert not list((tmp_path / "cache" / "gguf").glob("*.partial"))
