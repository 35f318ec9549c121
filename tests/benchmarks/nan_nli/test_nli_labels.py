"""NLI classifiers: explicit label maps, the NaN-NLI authors' LABEL_0..2 convention, and the pair encoding."""

from __future__ import annotations

import json

import pytest
import torch
from tiny_models import tiny_tokenizer

from negkit.errors import NegkitError
from negkit.models.hf_common import fingerprint_for
from negkit.models.hf_nli import AUTHORS_LABELS, HFClassifier, authors_pair_text

GENERIC = {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}


def _bert(id2label=GENERIC, seed=0):
    from transformers import BertConfig, BertForSequenceClassification

    tokenizer = tiny_tokenizer(chat_template=False)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=len(id2label),
        id2label=dict(id2label),
        label2id={name: index for index, name in id2label.items()},
    )
    return BertForSequenceClassification(config).eval(), tokenizer


def _classifier(name="tiny-bert", id2label=GENERIC, **options):
    model, tokenizer = _bert(id2label)
    return HFClassifier(model, tokenizer, fingerprint_for("nli", model, name, "float32"), batch_size=2, **options)


def test_generic_labels_need_a_map_and_the_error_says_how():
    with pytest.raises(NegkitError, match=r"labels=\[entailment,neutral,contradiction\]"):
        _classifier()


def test_explicit_label_map_wins_and_is_recorded():
    classifier = _classifier(labels=["Contradiction", "entailment", "neutral"])
    assert classifier.labels == ("contradiction", "entailment", "neutral")
    assert {key: classifier.load_info[key] for key in ("labels", "labels_from", "pair_encoding")} == {
        "labels": ["contradiction", "entailment", "neutral"],
        "labels_from": "model-args",
        "pair_encoding": "pair",
    }
    answer = classifier.classify([("A dog is an animal.", "A dog is not a plant.")])[0]
    assert list(answer) == ["contradiction", "entailment", "neutral"]
    # the map is part of the fingerprint: answers stored under another map are never reused
    other = _classifier(labels=["entailment", "neutral", "contradiction"])
    assert dict(classifier.fingerprint.extra)["labels"] == "contradiction,entailment,neutral"
    assert classifier.fingerprint.key() != other.fingerprint.key()
    # a config that names its labels is overridden by an explicit map too
    named = _classifier(
        id2label={0: "entailment", 1: "neutral", 2: "contradiction"}, labels=["neutral", "entailment", "contradiction"]
    )
    assert named.labels == ("neutral", "entailment", "contradiction")


def test_authors_convention():
    assert AUTHORS_LABELS == ("entailment", "neutral", "contradiction")  # nli_infer.py: LABEL_0, LABEL_1, LABEL_2
    for name in ("joey234/cuenb-mnli", "joey234/roberta-base-mnli-negnli", "/models/cuenb-mnli-negnli"):
        classifier = _classifier(name=name)
        assert classifier.labels == AUTHORS_LABELS and classifier.load_info["labels_from"] == "authors"
    preset = _classifier(labels="authors")
    assert preset.labels == AUTHORS_LABELS and preset.load_info["labels_from"] == "authors"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"labels": ["entailment", "neutral"]}, "3 outputs but 2 labels"),
        ({"labels": ["entailment", "entailment", "neutral"]}, "distinct"),
        ({"labels": "mnli"}, "expected a list in brackets"),
        ({"labels": AUTHORS_LABELS, "pair_encoding": "glued"}, "pair_encoding"),
    ],
)
def test_bad_label_maps_and_encodings(options, message):
    with pytest.raises(NegkitError, match=message):
        _classifier(**options)


def test_pair_encodings():
    pair = _classifier(labels="authors")
    authors = _classifier(labels="authors", pair_encoding="authors")
    assert (
        authors.load_info["pair_encoding"] == "authors"
        and dict(authors.fingerprint.extra)["pair_encoding"] == "authors"
    )
    premise, hypothesis = "A dog is an animal.", "A dog is not a plant."
    assert (
        authors_pair_text(premise, hypothesis, "x/roberta")
        == "<s>A dog is an animal.</s></s> A dog is not a plant.</s>"
    )
    assert (
        authors_pair_text(premise, hypothesis, "x/deberta-v3")
        == "[CLS] A dog is an animal. [SEP] A dog is not a plant. [SEP]"
    )
    tokenizer = authors.tokenizer
    # the authors' string goes through the tokenizer as ONE text, special tokens added again around it
    ids = tokenizer(authors_pair_text(premise, hypothesis, "tiny"))["input_ids"]
    assert ids[:2] == [tokenizer.bos_token_id] * 2 and ids.count(tokenizer.eos_token_id) == 3
    with torch.no_grad():
        expected_authors = torch.softmax(
            authors.model(**tokenizer(authors_pair_text(premise, hypothesis, "tiny"), return_tensors="pt")).logits[0],
            -1,
        )
        expected_pair = torch.softmax(pair.model(**tokenizer(premise, hypothesis, return_tensors="pt")).logits[0], -1)
    got_authors = authors.classify([(premise, hypothesis)])[0]
    got_pair = pair.classify([(premise, hypothesis)])[0]
    assert got_authors["neutral"] == pytest.approx(float(expected_authors[1]), abs=1e-5)
    assert got_pair["neutral"] == pytest.approx(float(expected_pair[1]), abs=1e-5)
    assert got_authors != got_pair


def test_negkit_eval_nli_with_label_map(tmp_path, shared_data):
    from negkit.cli import main

    model, tokenizer = _bert()
    folder = tmp_path / "generic-nli"
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    out = tmp_path / "run"
    base = [
        "eval",
        "--model",
        f"nli:{folder}",
        "--tasks",
        "nan-nli",
        "--data",
        str(shared_data),
        "--limit",
        "10",
        "--no-progress",
        "--out",
        str(out),
    ]
    assert main(base) == 2  # generic labels, no map
    assert main(base + ["--model-args", "labels=[entailment,neutral,contradiction],pair_encoding=authors"]) == 0
    result = json.loads((out / "nan-nli.results.json").read_text())
    assert result["model"]["load"]["labels"] == ["entailment", "neutral", "contradiction"]
    assert result["model"]["load"]["pair_encoding"] == "authors"
    assert result["model"]["model_args"] == {
        "labels": ["entailment", "neutral", "contradiction"],
        "pair_encoding": "authors",
    }
