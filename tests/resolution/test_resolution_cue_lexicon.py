"""Cue labels and the affix / multiword lexicons that turn word labels into cue instances."""

from __future__ import annotations

from negkit.resolution.cue_lexicon import (
    AffixLexicon,
    MultiwordLexicon,
    affix_remainder,
    cue_labels_for,
    decode_cues,
)
from negkit.resolution.instances import NegationInstance, ResolutionSentence, Token, TokenPart


def annotated(words: str, cues: list[list[tuple[int, str]]]) -> ResolutionSentence:
    tokens = [Token(w) for w in words.split()]
    return ResolutionSentence(
        tokens,
        [NegationInstance(tuple(TokenPart(i, t, tokens[i].text.find(t)) for i, t in cue)) for cue in cues],
    )


TRAINING = [
    annotated("It was impossible and unnatural .", [[(2, "im")], [(4, "un")]]),
    annotated("He was restlessly careless .", [[(2, "less")], [(3, "less")]]),
    annotated(
        "Neither he nor she came , by no means .", [[(0, "Neither"), (2, "nor")], [(6, "by"), (7, "no"), (8, "means")]]
    ),
    annotated("I did not go .", [[(2, "not")]]),
]


def test_gold_labels_distinguish_whole_affix_and_multiword_cues():
    assert cue_labels_for(TRAINING[0]) == ["O", "O", "AFFIX", "O", "AFFIX", "O"]
    assert cue_labels_for(TRAINING[2]) == ["MULTI", "O", "MULTI", "O", "O", "O", "MULTI", "MULTI", "MULTI", "O"]
    assert cue_labels_for(TRAINING[3]) == ["O", "O", "CUE", "O", "O"]


def test_affix_lexicon_learns_prefixes_and_inner_affixes():
    lexicon = AffixLexicon.learn(TRAINING)
    assert lexicon.prefixes == {"im": 1, "un": 1}
    assert lexicon.inner == {"less": 2}
    assert lexicon.split(5, "Impolite") == TokenPart(5, "Im", 0)
    assert lexicon.split(0, "noiselessly") == TokenPart(0, "less", 5)
    assert lexicon.split(0, "good") is None
    assert lexicon.split(0, "un") is None  # an affix alone is not an affixed word
    assert AffixLexicon.from_json(lexicon.to_json()) == lexicon


def test_affix_remainder_is_the_rest_of_the_word():
    words = ["impossible", "noiselessly"]
    prefix = NegationInstance((TokenPart(0, "im", 0),))
    suffix = NegationInstance((TokenPart(1, "less", 5),))
    assert affix_remainder(prefix, words, 0) == TokenPart(0, "possible", 2)
    assert affix_remainder(suffix, words, 1) == TokenPart(1, "noise", 0)
    assert affix_remainder(prefix, words, 1) is None


def test_multiword_lexicon_groups_known_cues_and_leftovers():
    lexicon = MultiwordLexicon.learn(TRAINING)
    assert set(lexicon.cues) == {("neither", "nor"), ("by", "no", "means")}
    words = "neither by he nor no she means at".split()
    # neither..nor and by..no..means interleave; "at" is left over and becomes its own instance
    assert lexicon.group([0, 1, 3, 4, 6, 7], [], words) == ([[0, 3], [1, 4, 6]], [7])
    assert lexicon.single_words == {"not": 1}
    assert MultiwordLexicon.from_json(lexicon.to_json()) == lexicon


def test_words_only_seen_in_multiword_cues_pull_single_labelled_partners_into_one_instance():
    lexicon = MultiwordLexicon.learn(TRAINING)
    assert lexicon.only_in_multiword_cues("Neither") and not lexicon.only_in_multiword_cues("not")
    words = "neither he nor she , not he nor".split()
    # "neither" and the first "nor" were labelled single cues: known cue "neither nor" with an anchor
    assert lexicon.group([], [0, 2, 5, 7], words) == ([[0, 2]], [5, 7])
    # without "neither" nothing is grouped: "no" and "means" labelled single stay single
    assert lexicon.group([], [1, 2], "by no means".split()) == ([], [1, 2])
    assert lexicon.group([1, 2], [], "by no means".split()) == ([[1, 2]], [])


def test_decode_cues_builds_single_affix_and_discontinuous_instances():
    words = "Neither he nor she was unkind , not at all".split()
    labels = ["MULTI", "O", "MULTI", "O", "O", "AFFIX", "O", "CUE", "O", "O"]
    instances = decode_cues(words, labels, AffixLexicon.learn(TRAINING), MultiwordLexicon.learn(TRAINING))
    assert [instance.cue for instance in instances] == [
        (TokenPart(0, "Neither", 0), TokenPart(2, "nor", 0)),
        (TokenPart(5, "un", 0),),
        (TokenPart(7, "not", 0),),
    ]
