"""Punct-BL on hand-built sentences (scopes worked out by hand from spec section 9)."""

from __future__ import annotations

from negkit.data.resolution import NegationInstance, ResolutionSentence, Token, TokenPart
from negkit.resolution.baseline import PunctuationBaseline, is_punctuation_tag, punctuation_scope


def sentence(words_and_tags: str, cues: list[list[tuple[int, str]]]) -> ResolutionSentence:
    """``"He/PRP did/VBD ..."`` plus cue parts per instance -> a gold sentence with empty scopes."""
    tokens = [Token(text=w, pos=t) for w, t in (item.rsplit("/", 1) for item in words_and_tags.split())]
    instances = [
        NegationInstance(cue=tuple(TokenPart(i, text, tokens[i].text.find(text)) for i, text in cue)) for cue in cues
    ]
    return ResolutionSentence(tokens=tokens, instances=instances)


def scope_of(predicted: ResolutionSentence, k: int = 0) -> list[tuple[int, str]]:
    return [(part.index, part.text) for part in predicted.instances[k].scope]


def test_punctuation_tags_follow_the_starsem_rule():
    for tag in [",", ".", ":", "``", "''", "-LRB-", "-RRB-"]:
        assert is_punctuation_tag(tag)
    for tag in ["POS", "NN", "JJ", "VB", "PRP$"]:
        assert not is_punctuation_tag(tag)


def test_scope_runs_right_from_the_cue_to_the_next_punctuation():
    gold = sentence("He/PRP did/VBD n't/RB say/VB anything/NN ,/, but/CC he/PRP left/VBD ./.", [[(2, "n't")]])
    (predicted,) = PunctuationBaseline().fit([gold]).predict([gold])
    assert scope_of(predicted) == [(3, "say"), (4, "anything")]
    assert predicted.instances[0].cue == gold.instances[0].cue
    assert predicted.instances[0].event == ()


def test_discontinuous_cue_parts_are_skipped_and_words_between_them_are_in_scope():
    gold = sentence("Neither/CC he/PRP nor/CC she/PRP came/VBD ./.", [[(0, "Neither"), (2, "nor")]])
    (predicted,) = PunctuationBaseline().predict([gold])
    assert scope_of(predicted) == [(1, "he"), (3, "she"), (4, "came")]


def test_affix_cue_token_gets_no_scope_cell():
    gold = sentence("It/PRP is/VBZ impossible/JJ to/TO say/VB !/.", [[(2, "im")]])
    (predicted,) = PunctuationBaseline().predict([gold])
    assert scope_of(predicted) == [(3, "to"), (4, "say")]


def test_cue_followed_by_punctuation_has_empty_scope_and_each_instance_is_separate():
    gold = sentence("No/DT ,/, I/PRP never/RB saw/VBD him/PRP", [[(0, "No")], [(3, "never")]])
    (predicted,) = PunctuationBaseline().predict([gold])
    assert scope_of(predicted, 0) == []
    assert scope_of(predicted, 1) == [(4, "saw"), (5, "him")]


def test_tokens_without_pos_tags_use_the_word_to_decide_punctuation():
    tokens = [Token("not"), Token("here"), Token(";"), Token("there")]
    assert punctuation_scope(tokens, (TokenPart(0, "not"),)) == (TokenPart(1, "here"),)
