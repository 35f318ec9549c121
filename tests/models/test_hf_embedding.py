"""The sentence embedding backend (``embed:PATH``, or a sentence-transformers folder by its path) on a tiny random
BERT saved in that layout: the spec, mean pooling and cosine worked out from the model's hidden states, the
folder's pooling configuration, and NevIR's task refusing a language model's tasks for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import transformers
from probe_fixtures import run, write_jsonl

from negkit.errors import NegkitError
from negkit.models.hf_embedding import HFEmbeddingModel, folder_settings
from negkit.models.registry import load_model
from negkit.models.spec import parse_model_spec

WORDS = ["the", "cat", "sat", "did", "not", "sit", "dog", "ran", "?", "."]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A 2-layer BERT with random weights in the sentence-transformers layout (mean pooling, 16 tokens at most)."""
    folder = tmp_path_factory.mktemp("tiny-embedder")
    (folder / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    transformers.BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=15, hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32
    )
    transformers.BertModel(config).save_pretrained(folder)
    (folder / "modules.json").write_text(json.dumps([{"idx": 0, "name": "0", "path": "", "type": "Transformer"}]))
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps({"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False})
    )
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 16}))
    return folder


def test_spec_names_an_embedding_model(folder):
    assert parse_model_spec(f"embed:{folder}").is_embedding and parse_model_spec(str(folder)).is_embedding
    assert parse_model_spec(str(folder)).model_kind == "embedding"
    assert parse_model_spec("hf:gpt2").model_kind == "language_model"
    assert folder_settings(folder) == ("mean", 16)


def test_cosine_of_mean_pooled_embeddings(folder):
    model = load_model(str(folder), dtype="float32")
    assert isinstance(model, HFEmbeddingModel) and model.fingerprint.backend == "embed"
    texts = ["the cat sat .", "the cat did not sit ."]
    tokenizer, bert = transformers.AutoTokenizer.from_pretrained(folder), transformers.AutoModel.from_pretrained(folder)
    vectors = []
    for text in texts:  # one at a time: no padding, so the mean is over every token
        encoded = tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            vectors.append(bert(**encoded).last_hidden_state[0].mean(dim=0))
    expected = float(torch.nn.functional.cosine_similarity(vectors[0], vectors[1], dim=0))
    answers = model.similarity([(texts[0], texts[1]), (texts[0], texts[0])])
    assert answers[0] == pytest.approx(expected, abs=1e-5) and answers[1] == pytest.approx(1.0, abs=1e-5)


def test_unsupported_pooling_is_refused(folder, tmp_path):
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_max_tokens": True}))
    with pytest.raises(NegkitError, match="pooling_mode_max_tokens"):
        folder_settings(tmp_path)
    with pytest.raises(NegkitError, match="--model-args pooling"):
        load_model(f"embed:{folder}", dtype="float32", pooling="max")


def test_nevir_runs_and_other_tasks_refuse_it(folder, tmp_path):
    row = {"id": "1-1", "WorkerId": 0, "q1": "the cat sat ?", "doc1": "the cat sat .", "q2": "the dog ?"}
    write_jsonl(tmp_path / "data" / "nevir" / "NevIR_test.jsonl", [{**row, "doc2": "the cat did not sit ."}])
    result = run(f"embed:{folder}", "nevir", tmp_path / "data", tmp_path / "r")
    assert result["metrics"]["scorer"] == "cosine" and result["metrics"]["count"] == 1
    write_jsonl(tmp_path / "data" / "semantoneg" / "SemAntoNeg_v1.0.json", [])
    with pytest.raises(NegkitError, match="needs a language model, not an embedding model"):
        run(str(folder), "semantoneg", tmp_path / "data", tmp_path / "s")
