"""Tests for the CD-SCO-style tokenizer (negkit.resolution.tokenize)."""

from __future__ import annotations

import pytest
from conftest import shared_data_path

from negkit.resolution.tokenize import tokenize


def words(text: str) -> list[str]:
    return [token.text for token in tokenize(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I don't know.", ["I", "do", "n't", "know", "."]),
        ("He can't and won't.", ["He", "ca", "n't", "and", "wo", "n't", "."]),
        ("T cells cannot respond", ["T", "cells", "can", "not", "respond"]),
        ("Holmes's dog'll bark", ["Holmes", "'s", "dog", "'ll", "bark"]),
        ("It\u2019s here", ["It", "\u2019s", "here"]),
        ("Mr. Holmes, Dr. Watson.", ["Mr.", "Holmes", ",", "Dr.", "Watson", "."]),
        ("see Fig. 2, e.g. here", ["see", "Fig.", "2", ",", "e.g.", "here"]),
        ("Dr. J. P. Smith met M.R.C.S. men", ["Dr.", "J.", "P.", "Smith", "met", "M.R.C.S.", "men"]),
        ("by protein kinase C.", ["by", "protein", "kinase", "C", "."]),
        ("to the C.C.H.", ["to", "the", "C.C.H", "."]),
        ("No. 3 said no.", ["No.", "3", "said", "no", "."]),
        ("Chapter 1.", ["Chapter", "1."]),
        ("(HIV-1) and 1.5 or 10,000", ["(", "HIV-1", ")", "and", "1.5", "or", "10,000"]),
        ("``Well,'' said he -- at o'clock", ["``", "Well", ",", "''", "said", "he", "--", "at", "o'clock"]),
        ('"not" ... really?!', ['"', "not", '"', "...", "really", "?", "!"]),
        ("word--word", ["word", "--", "word"]),
        ("differentiation/activation moor-gate", ["differentiation/activation", "moor-gate"]),
    ],
)
def test_tokenize_follows_cd_sco_conventions(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_offsets_slice_the_input() -> None:
    text = "  He didn't (really)  go."
    tokens = tokenize(text)
    assert [(t.char_start, t.char_end) for t in tokens[:4]] == [(2, 4), (5, 8), (8, 11), (12, 13)]
    for token in tokens:
        assert text[token.char_start : token.char_end] == token.text


def test_empty_text_has_no_tokens() -> None:
    assert tokenize("   \n") == []


def _detokenize(words: list[str]) -> str:
    """Rebuild plausible running text from CD-SCO tokens (the inverse of the tokenizer's splits)."""
    attach_left = {",", ".", ";", ":", "!", "?", ")", "]", "''", "n't", "'s", "'ll", "'ve", "'re", "'m", "'d", "'"}
    attach_right = {"(", "[", "``", "`"}
    text = ""
    for i, word in enumerate(words):
        after_opening = i > 0 and words[i - 1] in attach_right
        joined = word in attach_left or after_opening or (word == "not" and words[i - 1] == "can")
        text += ("" if i == 0 or joined else " ") + word
    return text


def test_round_trip_of_cd_sco_dev_sentences() -> None:
    """Every CD-SCO dev sentence, joined back into text, is re-tokenised into its CD-SCO tokens."""
    path = shared_data_path("cd-sco", "SEM-2012-SharedTask-CD-SCO-dev-09032012.txt")
    sentences, current = [], []
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if line:
            current.append(line.split("\t")[3])
        elif current:
            sentences.append(current)
            current = []
    assert len(sentences) == 787
    mismatches = [s for s in sentences if words(_detokenize(s)) != s]
    assert mismatches == []
