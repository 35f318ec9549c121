"""NoReC_neg's reader: the README's counts, the JSON and the *SEM (CD-SCO) gold agree on every cue and scope, an
affixal cue by hand, and malformed files."""

from __future__ import annotations

import json

import pytest
from conftest import shared_data_path

from negkit.errors import InputFormatError
from negkit.resolution.corpora.cdsco import read_cdsco
from negkit.resolution.corpora.norec import SPLITS, instance_spans, read_norec
from negkit.resolution.instances import TokenPart


def test_counts_and_the_starsem_gold_agree():
    folder = shared_data_path("norec-neg")
    counts = {}
    for split in SPLITS:
        sentences = read_norec(folder, split)
        counts[split] = (
            len(sentences),
            sum(s.has_negation for s in sentences),
            sum(len(s.instances) for s in sentences),
        )
    assert counts == {"train": (8543, 1768, 2025), "dev": (1531, 301, 342), "test": (1272, 263, 305)}
    for split in ("dev", "test"):
        json_gold, starsem_gold = read_norec(folder, split), read_cdsco(folder / f"neg_{split}.starsem")
        assert [s.words for s in json_gold] == [s.words for s in starsem_gold]
        assert instance_spans(json_gold) == instance_spans(starsem_gold)


def test_an_affixal_cue_and_a_discontinuous_scope_by_hand(tmp_path):
    record = {
        "sent_id": "1-01-01",
        "text": "Det er uvanlig og ikke bra .",
        "negations": [
            {"Cue": [["u"], ["7:8"]], "Scope": [["vanlig"], ["8:14"]], "Affixal": True},
            {"Cue": [["ikke"], ["18:22"]], "Scope": [["Det er", "bra"], ["0:6", "23:26"]], "Affixal": False},
        ],
    }
    path = tmp_path / "negation_dev.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    (sentence,) = read_norec(tmp_path, "dev")
    affixal, plain = sentence.instances
    assert affixal.cue == (TokenPart(2, "u", 0),) and affixal.scope == (TokenPart(2, "vanlig", 1),)
    assert affixal.is_affixal(sentence.tokens) and not plain.is_affixal(sentence.tokens)
    assert plain.cue_indices == (4,) and plain.scope_indices == (0, 1, 5)


def test_malformed_files(tmp_path):
    path = tmp_path / "negation_test.json"
    path.write_text(
        json.dumps(
            [{"sent_id": "a", "text": "Ikke bra .", "negations": [{"Cue": [["ikke"], ["0:4"]], "Scope": [[], []]}]}]
        ),
        encoding="utf-8",
    )
    with pytest.raises(
        InputFormatError,
        match=r"negation_test.json: sentence 1 \('a'\), negation 1, Cue: offsets '0:4' "
        r"do not hold 'ikke'",
    ):
        read_norec(tmp_path, "test")
    path.write_text(json.dumps([{"sent_id": "a", "text": "Ikke bra ."}]), encoding="utf-8")
    with pytest.raises(
        InputFormatError, match=r"sentence 1 \('a'\): expected 'sent_id', 'text' and a list 'negations'"
    ):
        read_norec(tmp_path, "test")
    path.write_text('[{"sent_id": "a",\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"negation_test.json:2: invalid JSON"):
        read_norec(tmp_path, "test")
    with pytest.raises(InputFormatError, match=r"unknown NoReC_neg split 'validation'"):
        read_norec(tmp_path, "validation")
