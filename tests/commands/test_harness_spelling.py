"""The LM Evaluation Harness's spellings in ``negkit eval``: ``--model hf --model_args pretrained=...,dtype=...``
and the other Harness flags give the same run as negkit's own spelling; the model names and keys are read as
docs/harness.md says; on a GPU the default is the checkpoint's dtype, on the CPU exact float32."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from conftest import shared_data_path

from negkit.cli import main
from negkit.commands.eval.harness import parse_gen_kwargs, resolve_harness, with_gen_kwargs
from negkit.commands.eval.options import EvalOptions
from negkit.engine.requests import GenerateRequest
from negkit.errors import NegkitError
from negkit.kit.arguments import harness_seed
from negkit.models.harness_spelling import from_harness


def test_harness_model_names_read_as_negkit_specs():
    hf = from_harness("hf", {"pretrained": "org/name", "dtype": "bfloat16", "revision": "main", "parallelize": True})
    assert (hf.spec, hf.dtype, hf.model_args) == ("hf:org/name", "bfloat16", {"revision": "main", "device_map": "auto"})
    assert from_harness("hf", {"pretrained": "m", "dtype": "auto"}).dtype == "checkpoint"
    assert from_harness("hf", {"pretrained": "m", "load_in_4bit": True}).quantize == "4bit"
    assert from_harness("vllm", {"pretrained": "m", "tensor_parallel_size": 2}).spec == "vllm:m"
    server = from_harness(
        "local-completions",
        {"model": "smol", "base_url": "http://127.0.0.1:8000/v1/completions", "num_concurrent": 1, "max_retries": 5},
    )
    assert server.spec == "openai:http://127.0.0.1:8000/v1#smol"
    assert server.model_args == {"retries": 5} and server.unused == ("num_concurrent",)
    chat = from_harness("local-chat-completions", {"model": "smol", "base_url": "http://h:1/v1/chat/completions"})
    assert chat.spec == "openai:http://h:1/v1#smol?chat"
    assert from_harness("hf:m", {"revision": "x"}).spec == "hf:m"  # negkit's own spelling is left as it is
    with pytest.raises(NegkitError, match="--model hf needs --model_args pretrained=NAME_OR_PATH"):
        from_harness("hf", {"dtype": "float32"})
    with pytest.raises(NegkitError, match="both name a model"):
        from_harness("hf:a", {"pretrained": "b"})
    with pytest.raises(NegkitError, match="needs --model_args model=NAME,base_url="):
        from_harness("local-completions", {"model": "smol"})
    with pytest.raises(NegkitError, match="unknown dtype"):
        from_harness("hf", {"pretrained": "m", "dtype": "int3"})


def test_the_mode_follows_the_device(monkeypatch):
    monkeypatch.setattr("negkit.commands.eval.harness.gpu_visible", lambda device, device_map=None: False)
    assert resolve_harness("hf:m", EvalOptions())[1].mode == "exact"  # the CPU: exact float32
    _, bf16 = resolve_harness("hf", EvalOptions(model_args={"pretrained": "m", "dtype": "bfloat16"}))
    assert (bf16.mode, bf16.dtype) == ("fast", "bfloat16")
    monkeypatch.setattr("negkit.commands.eval.harness.gpu_visible", lambda device, device_map=None: True)
    _, gpu = resolve_harness("hf:m", EvalOptions())
    assert (gpu.mode, gpu.dtype) == ("fast", "checkpoint")  # the Harness's default there
    assert resolve_harness("hf:m", EvalOptions(mode="exact"))[1].mode == "exact"  # float32 one flag away
    assert resolve_harness("hf:m", EvalOptions(dtype="float32"))[1].mode == "exact"
    assert resolve_harness("random", EvalOptions())[1].mode == "exact"  # no weights: no precision to choose
    _, vllm = resolve_harness("vllm", EvalOptions(model_args={"pretrained": "m"}))
    assert (vllm.mode, vllm.dtype) == ("fast", "checkpoint")  # vLLM's own dtype=auto
    with pytest.raises(NegkitError, match="differ"):
        resolve_harness("hf", EvalOptions(dtype="float16", model_args={"pretrained": "m", "dtype": "bfloat16"}))


def test_checkpoint_dtype_reads_the_config():
    pytest.importorskip("torch")
    import torch

    from negkit.models.loading import checkpoint_dtype

    assert checkpoint_dtype(argparse.Namespace(dtype=torch.bfloat16)) == "bfloat16"
    assert checkpoint_dtype(argparse.Namespace(torch_dtype="float16")) == "float16"
    assert checkpoint_dtype(argparse.Namespace()) == "float32"
    assert checkpoint_dtype(argparse.Namespace(dtype=torch.float64)) == "float32"


def test_seeds_and_gen_kwargs_the_harness_way():
    assert harness_seed("42") == 42 and harness_seed("0,1234,1234,7") == 7 and harness_seed("1,2,3,None") == 3
    with pytest.raises(argparse.ArgumentTypeError):
        harness_seed("1,2")
    settings = parse_gen_kwargs("max_gen_toks=5,until=[.,!],do_sample=false,temperature=0")
    assert settings == {"max_gen_toks": 5, "until": (".", "!")}
    request, other = GenerateRequest("Q:", 8, ("\n",)), object()
    assert with_gen_kwargs([request, other], settings) == [GenerateRequest("Q:", 5, (".", "!")), other]
    with pytest.raises(NegkitError, match="greedily"):
        parse_gen_kwargs("do_sample=true")
    with pytest.raises(NegkitError, match="unknown key top_p"):
        parse_gen_kwargs("top_p=0.9")


def run_results(out: Path) -> tuple[dict, list[dict]]:
    results = json.loads((out / "scone.results.json").read_text())
    samples = [json.loads(line) for line in (out / "scone.samples.jsonl").read_text().splitlines()]
    return results, samples


def test_the_harness_command_equals_negkits_own(tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tiny_models import save_tiny_causal

    data = shared_data_path()
    shared_data_path("scone")
    model = save_tiny_causal(tmp_path / "model", chat_template=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEGKIT_DATA", str(data))
    harness, own = tmp_path / "harness", tmp_path / "own"
    common = ["--tasks", "scone", "--limit", "20", "--no-progress", "--bootstrap", "50", "--device", "cpu"]
    assert (
        main(
            [
                "eval",
                "--model",
                "hf",
                "--model_args",
                f"pretrained={model},dtype=float32",
                "--batch_size",
                "4",
                "--output_path",
                str(harness),
                "--log_samples",
                *common,
            ]
        )
        == 0
    )
    assert main(["eval", "--model", f"hf:{model}", "--batch-size", "4", "--out", str(own), *common]) == 0
    capsys.readouterr()
    (harness_results, harness_samples), (own_results, own_samples) = run_results(harness), run_results(own)
    assert harness_results["metrics"] == own_results["metrics"] and harness_samples == own_samples
    assert harness_results["model"]["key"] == own_results["model"]["key"]
    assert harness_results["mode"] == own_results["mode"] == "exact"
    assert harness_results["model"]["load"]["dtype"] == "float32"
    # the recorded command is negkit's spelling
    assert f"--model hf:{model} " in harness_results["command"] and "--mode exact" in harness_results["command"]


def test_gen_kwargs_reach_the_generation_requests_and_the_record(tmp_path, monkeypatch, capsys):
    data = shared_data_path()
    shared_data_path("condaqa")
    seen = []
    from negkit.models.baselines import BaselineModel

    original = BaselineModel.generate

    def recording(self, contexts, max_new_tokens=8, stop=()):
        seen.append((len(contexts), max_new_tokens, tuple(stop)))
        return original(self, contexts, max_new_tokens, stop)

    monkeypatch.setattr(BaselineModel, "generate", recording)
    out = tmp_path / "run"
    arguments = ["eval", "--model", "random", "--tasks", "condaqa,scone", "--limit", "4", "--data", str(data)]
    assert main([*arguments, "--gen_kwargs", "max_gen_toks=3,until=[.]", "--out", str(out), "--no-progress"]) == 0
    assert "--gen-kwargs: scone generates no text" in capsys.readouterr().err
    assert seen and all(tokens == 3 and stop == (".",) for _, tokens, stop in seen)
    results = json.loads((out / "condaqa.results.json").read_text())
    assert "--gen-kwargs 'max_gen_toks=3,until=[.]'" in results["command"]
    assert results["record"]["options"]["gen_kwargs"] == {"max_gen_toks": 3, "until": ["."]}
