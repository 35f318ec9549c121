"""NaN-NLI Table 4 (BERTScore F1 of premise and hypothesis per class) with a tiny random BERT built here: a pair
whose hypothesis repeats its premise scores exactly 1, the class means are the means of the pairs, special tokens
are left out, and the command names the encoder and its layer."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from tiny_models import tiny_tokenizer  # noqa: E402

from negkit.cli import main  # noqa: E402
from negkit.studies.nan_nli.similarity import (  # noqa: E402
    TokenEncoder,
    bertscore_markdown,
    bertscore_table,
    by_class,
    read_pairs,
)


@pytest.fixture(scope="module")
def encoder_path(tmp_path_factory):
    import torch
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    tokenizer = tiny_tokenizer(chat_template=False)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    path = tmp_path_factory.mktemp("tiny-bert")
    BertModel(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def test_encoder_leaves_special_tokens_out(encoder_path):
    encoder = TokenEncoder(str(encoder_path))
    assert encoder.layer == 2  # the last layer of a model without a BERTScore default
    ids, rows = encoder.embed("A dog is an animal.")
    plain = encoder.tokenizer("A dog is an animal.", add_special_tokens=False)["input_ids"]
    assert ids == plain and rows.shape == (len(plain), 16)
    assert TokenEncoder(str(encoder_path), layer=0).layer == 0


def test_identical_pair_scores_one_and_classes_average(encoder_path):
    encoder = TokenEncoder(str(encoder_path), layer=1)
    pairs = [
        ("A dog is an animal.", "A dog is an animal.", "entailment"),
        ("A dog is an animal.", "A cat is not a plant.", "contradiction"),
        ("The sun is hot.", "The snow is cold.", "contradiction"),
    ]
    table = bertscore_table({"toy": pairs}, encoder)
    rows = table["data_sets"]["toy"]
    assert table["encoder"] == {"model": str(encoder_path), "layer": 1, "idf": False}
    assert rows["entailment"]["f1"] == pytest.approx(1.0) and rows["entailment"]["pairs"] == 1
    assert "neutral" not in rows and rows["all"]["pairs"] == 3
    second, third = (bertscore_table({"one": [pair]}, encoder)["data_sets"]["one"]["all"]["f1"] for pair in pairs[1:])
    assert rows["contradiction"]["f1"] == pytest.approx((second + third) / 2)
    assert rows["all"]["f1"] == pytest.approx((1 + second + third) / 3)
    assert by_class(pairs, [{"precision": 1, "recall": 1, "f1": f} for f in (0.2, 0.4, 0.9)])["contradiction"][
        "f1"
    ] == pytest.approx(0.65)
    markdown = bertscore_markdown(table)
    assert "| E | 1.000 (1) |" in markdown and f"Encoder: {encoder_path}, layer 1, idf weighting off" in markdown
    weighted = bertscore_table({"toy": pairs}, encoder, idf=True)["data_sets"]["toy"]
    assert weighted["entailment"]["f1"] == pytest.approx(1.0)


def test_command_with_sets(encoder_path, tmp_path, capsys):
    negnli = tmp_path / "MNLI.txt"
    negnli.write_bytes(
        "index\tText\tHypothesis\tgold_label\n0\tA dog is an animal.\tA dog is an animal.\tentailment\n"
        "1\tBirds can fly \u201chigh\u201d.\tFish cannot walk.\tneutral\n".encode("cp1252")
    )
    assert read_pairs(negnli)[1] == ("Birds can fly \u201chigh\u201d.", "Fish cannot walk.", "neutral")
    argv = ["nan-nli", "bertscore", "--set", f"NegNLI={negnli}", "--model", str(encoder_path), "--json"]
    assert main(argv) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["encoder"]["layer"] == 2 and table["data_sets"]["NegNLI"]["entailment"]["f1"] == pytest.approx(1.0)
    assert main(["nan-nli", "bertscore", "--set", f"x={negnli}", "--model", str(tmp_path / "nothing")]) == 2
    assert "cannot load the encoder" in capsys.readouterr().err
