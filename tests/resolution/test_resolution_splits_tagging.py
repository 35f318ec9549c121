"""Corpus splits, in-memory evaluation and raw-text tagging (the fallback system; no model needed)."""

from __future__ import annotations

import json

import pytest

from negkit.cli import main
from negkit.resolution.evaluate import score_sentences
from negkit.resolution.instances import NegationInstance, ResolutionSentence, Token, TokenPart
from negkit.resolution.splits import (
    document_id,
    documents_of_split,
    load_split,
    make_document_split,
    read_document_corpus,
)
from negkit.resolution.tagging import split_sentences, tag


def test_document_split_is_seeded_sorted_and_80_10_10():
    documents = [f"d{i}" for i in range(20)]
    split = make_document_split(documents)
    assert split == make_document_split(list(reversed(documents)) + documents)  # order and duplicates ignored
    assert [len(split[name]) for name in ("train", "dev", "test")] == [16, 2, 2]
    assert sorted(split["train"] + split["dev"] + split["test"]) == sorted(documents)
    assert make_document_split(documents, seed=1) != split


@pytest.mark.parametrize("corpus,documents", [("bioscope", 1273), ("sfu", 400)])
def test_packaged_splits_are_disjoint_and_cover_the_corpus(corpus, documents):
    from conftest import shared_data_path

    parts = {name: set(documents_of_split(corpus, name)) for name in ("train", "dev", "test")}
    assert not parts["train"] & parts["dev"] and not parts["train"] & parts["test"] and not parts["dev"] & parts["test"]
    assert sum(len(p) for p in parts.values()) == documents
    shared_data_path()
    sentences = read_document_corpus(corpus, shared_data_path())
    assert {document_id(s) for s in sentences} == set().union(*parts.values())
    assert make_document_split([document_id(s) for s in sentences]) == {k: documents_of_split(corpus, k) for k in parts}


def test_cdsco_test_split_is_cardboard_then_circle():
    from conftest import shared_data_path

    test = load_split("cd-sco", "test", shared_data_path())
    assert len(test) == 1089 and sum(len(s.instances) for s in test) == 264
    assert test[0].chapter == "cardboard" and test[-1].chapter.startswith("circle")


def test_score_sentences_counts_a_missed_scope_token_by_hand():
    tokens = [Token(w, pos="." if w == "." else "NN") for w in "he did not come home .".split()]
    gold = ResolutionSentence(
        tokens,
        [
            NegationInstance(
                (TokenPart(2, "not"),),
                (TokenPart(0, "he"), TokenPart(1, "did"), TokenPart(3, "come"), TokenPart(4, "home")),
            )
        ],
        chapter="c",
        number="1",
    )
    system = ResolutionSentence(
        tokens,
        [NegationInstance((TokenPart(2, "not"),), (TokenPart(3, "come"), TokenPart(4, "home")))],
        chapter="c",
        number="1",
    )
    headline = score_sentences([gold], [system]).headline()
    # cue right; scope 2 of 4 tokens: token P 100, R 50, F1 66.67; SCM fn 1 -> 0; NIS_tok P 1, R 0.5
    assert headline["cues_b_f1"] == 100.0
    assert headline["scm_f1"] == 0.0
    assert (headline["scope_tokens_p"], headline["scope_tokens_r"], headline["scope_tokens_f1"]) == (100.0, 50.0, 66.67)
    assert (headline["nis_tok_p"], headline["nis_tok_r"]) == (100.0, 50.0)
    assert round(headline["nis_tok_f1"], 2) == 66.67


def test_sentences_are_split_after_final_punctuation_and_closing_quotes():
    text = 'I did not see anyone. "It is impossible!" said Mr. Holmes. (Really.) Yes'
    assert [[t.text for t in s] for s in split_sentences(text)] == [
        ["I", "did", "not", "see", "anyone", "."],
        ['"', "It", "is", "impossible", "!", '"'],
        ["said", "Mr.", "Holmes", "."],
        ["(", "Really", ".", ")"],
        ["Yes"],
    ]


def test_tag_without_a_model_uses_the_labelled_fallback(monkeypatch, tmp_path):
    monkeypatch.delenv("NEGKIT_RESOLUTION_MODEL", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    (sentence,) = tag("Nobody came, and I never knew why")
    assert [[(p.index, p.text) for p in i.cue] for i in sentence.instances] == [[(0, "Nobody")], [(5, "never")]]
    assert [[p.text for p in i.scope] for i in sentence.instances] == [["came"], ["knew", "why"]]


def test_tag_cli_prints_cue_and_scope(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("NEGKIT_RESOLUTION_MODEL", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["resolution", "tag", "I did not see anyone."]) == 0
    out = capsys.readouterr().out
    assert "fallback" in out
    assert "cue: not\tscope: see anyone" in out
    assert main(["resolution", "tag", "I did not see anyone.", "--format", "json"]) == 0
    negation = json.loads(capsys.readouterr().out)["sentences"][0]["negations"][0]
    assert negation["cue"] == [{"token": 2, "text": "not", "char_start": 6, "char_end": 9}]
    assert [s["text"] for s in negation["scope"]] == ["see", "anyone"]
    assert main(["resolution", "tag", "I did not see anyone.", "--format", "cdsco"]) == 0
    assert capsys.readouterr().out.splitlines()[2].split("\t")[3:] == ["not", "_", "_", "_", "not", "_", "_"]


def test_tag_cli_with_a_folder_that_is_no_model_is_a_clear_error(tmp_path, capsys):
    assert main(["resolution", "tag", "I did not.", "--model", str(tmp_path)]) == 2
    assert "negkit resolution train" in capsys.readouterr().err
