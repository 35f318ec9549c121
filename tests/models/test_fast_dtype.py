"""Fast mode's dtype: chosen on the machine by a short calibration (mocked here: no timed assertions), cached per
machine, recorded in the results, never a 16-bit dtype slower than exact mode's float32; ``--dtype`` wins."""

from __future__ import annotations

import json

import pytest
import torch

from negkit.models import fast_dtype
from negkit.models.fast_dtype import MARGIN, choose_fast_dtype, decide


@pytest.fixture
def calibrations(monkeypatch, tmp_path):
    """The cache in a temporary file; ``calibrations.seconds`` is what the mocked calibration returns, and
    ``calibrations.calls`` counts the calibrations run."""

    class Calibrations:
        seconds = {"float32": 1.0, "bfloat16": 0.4, "float16": 0.8}
        calls = 0

    def calibrate(config, auto_class_name):
        Calibrations.calls += 1
        return dict(Calibrations.seconds), "mocked"

    monkeypatch.setenv("NEGKIT_FAST_DTYPE_CACHE", str(tmp_path / "cache" / "fast-dtype.json"))
    monkeypatch.setattr(fast_dtype, "calibrate", calibrate)
    return Calibrations


def _config(hidden=32):
    from transformers import LlamaConfig

    return LlamaConfig(
        vocab_size=100,
        hidden_size=hidden,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
    )


def test_the_fastest_dtype_wins_but_16_bits_only_when_clearly_faster_than_float32():
    assert decide({"float32": 1.0, "bfloat16": 0.4, "float16": 0.8})[0] == "bfloat16"
    assert decide({"float32": 1.0, "bfloat16": 0.9, "float16": 0.5})[0] == "float16"
    # slower 16-bit arithmetic (AVX-512 BF16 without AMX: bf16 matmuls at half float32's rate): float32
    chosen, reason = decide({"float32": 1.0, "bfloat16": 1.9, "float16": 1.1})
    assert chosen == "float32" and "never slower than exact mode" in reason and "bfloat16 1900.0 CPU ms" in reason
    assert decide({"float32": 1.0, "bfloat16": MARGIN + 0.01, "float16": 2.0})[0] == "float32"  # within the margin


def test_the_choice_is_cached_per_machine_threads_and_shapes(calibrations, monkeypatch):
    chosen, info = choose_fast_dtype(_config(), "cpu")
    assert chosen == "bfloat16" and info["cached"] is False and calibrations.calls == 1
    assert info["seconds"] == calibrations.seconds and "2.50x as fast as float32" in info["reason"]
    assert info["machine"]["threads"] == torch.get_num_threads() and info["machine"]["torch"] == torch.__version__
    assert info["machine"]["cpu"] and info["machine"]["shapes"]["hidden_size"] == 32
    again, cached = choose_fast_dtype(_config(), "cpu")
    assert again == "bfloat16" and cached["cached"] is True and calibrations.calls == 1
    stored = json.loads(fast_dtype.cache_file().read_text())
    assert [entry["chosen"] for entry in stored.values()] == ["bfloat16"]
    choose_fast_dtype(_config(hidden=64), "cpu")  # other shapes: calibrated again
    assert calibrations.calls == 2
    monkeypatch.setattr(torch, "get_num_threads", lambda: 97)  # other threads: calibrated again
    calibrations.seconds = {"float32": 1.0, "bfloat16": 2.0, "float16": 1.5}
    assert choose_fast_dtype(_config(), "cpu")[0] == "float32" and calibrations.calls == 3


def test_a_damaged_cache_is_calibrated_again(calibrations):
    fast_dtype.cache_file().parent.mkdir(parents=True)
    fast_dtype.cache_file().write_text("{not json")
    assert choose_fast_dtype(_config(), "cpu")[0] == "bfloat16" and calibrations.calls == 1
    assert json.loads(fast_dtype.cache_file().read_text())  # rewritten whole


def test_a_real_calibration_runs_on_a_tiny_model(monkeypatch, tmp_path):
    monkeypatch.setenv("NEGKIT_FAST_DTYPE_CACHE", str(tmp_path / "fast-dtype.json"))
    seconds, workload = fast_dtype.calibrate(_config(), "AutoModelForCausalLM")
    assert set(seconds) == {"float32", "bfloat16", "float16"} and all(value > 0 for value in seconds.values())
    assert workload.startswith("one-layer llama")
    # an architecture that cannot be built small: matmuls at its sizes
    seconds, workload = fast_dtype.calibrate(_config(), "NoSuchAutoClass")
    assert workload.startswith("matmuls") and set(seconds) == {"float32", "bfloat16", "float16"}


def test_fast_mode_loads_the_chosen_dtype_and_records_why_an_explicit_dtype_wins(calibrations, tiny_model_folder):
    from negkit.models.registry import load_model

    calibrations.seconds = {"float32": 1.0, "bfloat16": 1.8, "float16": 1.2}
    lm = load_model(f"hf:{tiny_model_folder}", dtype="auto", device="cpu")
    assert lm.model.dtype == torch.float32 and lm.fingerprint.dtype == "float32"
    assert lm.load_info["dtype"] == "float32" and lm.load_info["fast_dtype"]["chosen"] == "float32"
    assert "never slower than exact mode" in lm.load_info["fast_dtype"]["reason"]
    explicit = load_model(f"hf:{tiny_model_folder}", dtype="float16", device="cpu")
    assert explicit.model.dtype == torch.float16 and "fast_dtype" not in explicit.load_info
    assert calibrations.calls == 1
