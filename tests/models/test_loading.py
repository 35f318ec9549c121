"""Devices, precision, quantization, sharded loading and --model-args validation (CPU only)."""

from __future__ import annotations

import json
import sys
import types

import pytest
import torch
from tiny_models import save_tiny_causal, synthetic_truth_items

from negkit.benchmarks.tind.task import TruthTask
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions, model_options
from negkit.errors import NegkitError
from negkit.models import loading
from negkit.models.base import LoglikelihoodRequest
from negkit.models.registry import load_model


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return save_tiny_causal(tmp_path_factory.mktemp("tiny-causal"))


def test_devices_resolve_and_missing_gpus_are_clear_errors(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert loading.resolve_device("cpu") == "cpu"
    assert loading.resolve_device(None) in ("cpu", "mps")
    for name in ("cuda", "cuda:1"):
        with pytest.raises(NegkitError, match="no CUDA GPU is visible"):
            loading.resolve_device(name)
    with pytest.raises(NegkitError, match="unknown device"):
        loading.resolve_device("tpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert loading.resolve_device("auto") == "cuda:0"
    assert loading.resolve_device("cuda") == "cuda:0"
    assert loading.resolve_device("cuda:1") == "cuda:1"
    with pytest.raises(NegkitError, match="2 visible GPUs"):
        loading.resolve_device("cuda:2")


def test_auto_dtype_per_device(monkeypatch):
    assert loading.resolve_dtype_name("auto", "cpu") == "bfloat16"
    assert loading.resolve_dtype_name("float16", "cpu") == "float16"
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: False)
    assert loading.resolve_dtype_name(None, "cuda:0") == "float16"  # e.g. a V100 or T4
    with pytest.raises(NegkitError, match="unknown dtype"):
        loading.resolve_dtype_name("int3", "cpu")


def test_quantize_errors_name_what_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "bitsandbytes", None)  # import fails
    with pytest.raises(NegkitError, match="bitsandbytes package"):
        loading.quantization_config("4bit", "bfloat16", {})
    monkeypatch.setitem(sys.modules, "bitsandbytes", types.ModuleType("bitsandbytes"))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(NegkitError, match="needs a CUDA GPU"):
        loading.quantization_config("8bit", "float16", {})
    with pytest.raises(NegkitError, match="only apply with --quantize"):
        loading.quantization_config(None, "float16", {"bnb_4bit_quant_type": "fp4"})


def test_quantized_loading_arguments_and_fingerprint_label(monkeypatch):
    monkeypatch.setitem(sys.modules, "bitsandbytes", types.ModuleType("bitsandbytes"))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    options = {"bnb_4bit_quant_type": "fp4", "bnb_4bit_use_double_quant": True}
    kwargs = loading.pretrained_kwargs("bfloat16", "cuda:0", "4bit", options)
    config = kwargs["quantization_config"]
    assert config.load_in_4bit and config.bnb_4bit_quant_type == "fp4" and config.bnb_4bit_use_double_quant
    assert config.bnb_4bit_compute_dtype == torch.bfloat16
    assert kwargs["device_map"] == {"": "cuda:0"}  # quantized weights are placed while loading
    assert loading.quantization_label("4bit", options) == "bitsandbytes-4bit-fp4-double"
    assert loading.quantization_label("8bit", {}) == "bitsandbytes-8bit-t6"
    assert loading.pretrained_kwargs("float16", "cuda:0", "8bit", {})["quantization_config"].load_in_8bit


def test_unknown_model_args_list_the_known_keys(folder):
    with pytest.raises(
        NegkitError, match=r"unknown key attn_impl for the hf backend; known keys: .*attn_implementation"
    ):
        load_model(f"hf:{folder}", attn_impl="sdpa")
    with pytest.raises(NegkitError, match="unknown keys colour, size for the openai backend"):
        load_model("openai:http://127.0.0.1:9/v1#m", colour="red", size=3)
    with pytest.raises(NegkitError, match="max_memory needs device_map"):
        load_model(f"hf:{folder}", max_memory="cpu:1GiB")
    with pytest.raises(NegkitError, match="either --device or --model-args device_map"):
        load_model(f"hf:{folder}", device="cpu", device_map="auto")
    with pytest.raises(NegkitError, match="trust_remote_code takes true or false"):
        load_model(f"hf:{folder}", trust_remote_code="yes")


def test_loader_options_are_resolved_and_recorded(folder, tmp_path):
    options = EvalOptions(
        data=None,
        out=tmp_path / "run",
        progress=False,
        device="cpu",
        model_args={"attn_implementation": "eager", "low_cpu_mem_usage": True, "prefix_reuse": False},
    )
    lm = load_model(f"hf:{folder}", dtype="float32", **model_options(options))
    info = lm.load_info
    assert info["device"] == "cpu" and info["dtype"] == "float32" and info["quantization"] is None
    assert info["loader"] == {"dtype": "float32", "attn_implementation": "eager", "low_cpu_mem_usage": True}
    assert info["prefix_reuse"] is False and info["batch_size"] == "auto" and info["device_map"] is None
    assert "trust_remote_code" not in info["loader"]  # never on unless asked
    assert lm.model.config._attn_implementation == "eager"


def test_flag_and_model_arg_given_twice_is_an_error():
    with pytest.raises(NegkitError, match="device given both as a flag and in --model-args"):
        model_options(EvalOptions(device="cpu", model_args={"device": "cpu"}))


def test_fast_mode_auto_dtype_loads_the_calibrated_dtype_on_cpu_and_results_record_it(folder, tmp_path, monkeypatch):
    from negkit.benchmarks.tind.data import write_tind_jsonl
    from negkit.models import fast_dtype

    monkeypatch.setenv("NEGKIT_FAST_DTYPE_CACHE", str(tmp_path / "fast-dtype.json"))
    monkeypatch.setattr(
        fast_dtype, "calibrate", lambda *_: ({"float32": 1.0, "bfloat16": 0.5, "float16": 2.0}, "mocked")
    )

    data = tmp_path / "tind"
    data.mkdir()
    write_tind_jsonl(synthetic_truth_items(groups_per_pattern=1, patterns=(1,)), data / "test.jsonl", extended=True)
    (result,) = evaluate(
        f"hf:{folder}",
        ["tind"],
        EvalOptions(
            data=str(data),
            mode="fast",
            device="cpu",
            out=tmp_path / "run",
            progress=False,
        ),
    )
    assert result["model"]["dtype"] == "bfloat16"
    load = json.loads((tmp_path / "run" / "tind.results.json").read_text())["model"]["load"]
    assert load["dtype"] == "bfloat16" and load["dtype_requested"] == "auto" and load["device"] == "cpu"
    (task,) = json.loads((tmp_path / "run" / "results.json").read_text())["tasks"]
    choice = task["model"]["load"]["fast_dtype"]
    assert choice["chosen"] == "bfloat16" and choice["seconds"]["float32"] == 1.0 and "2.00x" in choice["reason"]


def test_secrets_in_model_args_are_never_recorded():
    from negkit.models.model_args import redact_model_args

    assert redact_model_args({"api_key": "sk-1", "timeout": 5}) == {"api_key": "***", "timeout": 5}


@pytest.mark.parametrize("prefix_tree", [True, False])
def test_sharded_loading_with_offload_matches_one_device(folder, tmp_path, prefix_tree):
    """device_map=auto with the weights offloaded to disk (accelerate's hooks run each layer on the CPU):
    prefix reuse (along the prefix tree, with anchors, or per batch) and context groups give the same answers
    as the model on one device."""
    sharded = load_model(
        f"hf:{folder}",
        device_map="auto",
        max_memory=["cpu:40KB"],
        offload_folder=str(tmp_path / "offload"),
        batch_size=4,
        prefix_tree=prefix_tree,
    )
    sharded.scorer.tree and setattr(sharded.scorer.tree, "row_tokens", 24)  # small rows: anchors hold the prefixes
    single = load_model(f"hf:{folder}", device="cpu", batch_size=4)
    assert sharded.load_info["device_map"] == {"disk": 1} and sharded.load_info["device"] == "cpu"
    assert sharded.load_info["loader"]["max_memory"] == {"cpu": "40KB"}
    contexts = [TruthTask().prompt(item.sentence, single) for item in synthetic_truth_items(groups_per_pattern=1)[:10]]
    for a, b in zip(
        sharded.next_token_logprobs(contexts, ["True", "False"]),
        single.next_token_logprobs(contexts, ["True", "False"]),
    ):
        assert abs(a["True"] - b["True"]) < 1e-4 and abs(a["False"] - b["False"]) < 1e-4
    assert sharded.scorer.stats.batches_with_prefix > 0
    assert sharded.scorer.stats.prefix_tree == ("on" if prefix_tree else "")
    requests = [
        LoglikelihoodRequest(context, ending) for context in contexts[:3] for ending in (" True", " False is it")
    ]
    for a, b in zip(sharded.loglikelihood(requests), single.loglikelihood(requests)):
        assert abs(a.logprob - b.logprob) < 1e-4 and a.is_greedy == b.is_greedy


def test_secrets_stay_out_of_the_reproduction_record():
    from negkit.commands.eval.flags import eval_command
    from negkit.commands.eval.record import resolved_options

    options = EvalOptions(model_args={"api_key": "sk-secret", "timeout": 5}, device="cpu", mode="exact")  # as resolved
    assert "sk-secret" not in json.dumps(resolved_options(options))
    command = eval_command("openai:http://127.0.0.1:1/v1#m", ["tind"], options, "float32")
    assert "sk-secret" not in " ".join(command) and command[command.index("--device") + 1] == "cpu"
