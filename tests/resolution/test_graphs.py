"""The direct and nested graph encodings of negation instances: hand-computed graphs, lossless round trips over
every instance of CD-SCO, BioScope and SFU, and decoding of random edge sets into valid instances."""

from __future__ import annotations

import random

import pytest

from negkit.errors import NegkitError
from negkit.resolution.corpora.cdsco import format_cdsco, lines_from_text, parse_cdsco
from negkit.resolution.corpora.formats import read_corpus
from negkit.resolution.graphs import (
    ENCODINGS,
    GraphEncodingError,
    canonical_instances,
    choose_anchors,
    decode,
    encode,
    label_roles,
    nesting_parents,
)
from negkit.resolution.instances import NegationInstance, ResolutionSentence, Token, TokenPart
from negkit.resolution.metrics.nis import score_nis
from negkit.resolution.metrics.starsem import score_starsem
from negkit.resolution.splits import load_split, read_document_corpus


def sentence(text: str, *instances: NegationInstance) -> ResolutionSentence:
    tokens = [Token(word, pos="." if word in ".," else "NN") for word in text.split()]
    return ResolutionSentence(tokens, list(instances), sentence_id="t/1", chapter="t", number="1")


def whole(text: str, *indices: int) -> tuple[TokenPart, ...]:
    words = text.split()
    return tuple(TokenPart(i, words[i], 0) for i in indices)


# "I do not think that he is not here ." -- the second "not" (7) and its scope (5, 6, 8) lie inside the first's.
NESTED_TEXT = "I do not think that he is not here ."
OUTER = NegationInstance(whole(NESTED_TEXT, 2), whole(NESTED_TEXT, 0, 1, 3, 4, 5, 6, 7, 8), whole(NESTED_TEXT, 3))
INNER = NegationInstance(whole(NESTED_TEXT, 7), whole(NESTED_TEXT, 5, 6, 8), whole(NESTED_TEXT, 8))


def test_direct_encoding_links_every_scope_token_to_its_cue():
    graph = encode(sentence(NESTED_TEXT, OUTER, INNER), "direct")
    assert graph == {
        (0, 3): "cue",
        (0, 8): "cue",
        (3, 1): "scope",
        (3, 2): "scope",
        (3, 4): "scope|event",
        (3, 5): "scope",
        (3, 6): "scope",
        (3, 7): "scope",
        (3, 8): "scope",
        (3, 9): "scope",
        (8, 6): "scope",
        (8, 7): "scope",
        (8, 9): "scope|event",
    }


def test_nested_encoding_links_the_shared_tokens_to_the_inner_cue_only():
    graph = encode(sentence(NESTED_TEXT, OUTER, INNER), "nested")
    assert graph == {
        (0, 3): "cue",
        (0, 8): "cue",
        (3, 1): "scope",
        (3, 2): "scope",
        (3, 4): "scope|event",
        (3, 5): "scope",
        (3, 8): "scope|nest",
        (8, 6): "scope",
        (8, 7): "scope",
        (8, 9): "scope|event",
    }
    assert decode(NESTED_TEXT.split(), graph, "nested") == [OUTER, INNER]
    # read as a direct graph, the outer scope loses the tokens it shares with the inner one
    assert decode(NESTED_TEXT.split(), graph, "direct")[0].scope == whole(NESTED_TEXT, 0, 1, 3, 4, 7)


def test_no_nesting_when_the_inner_scope_reaches_outside_the_outer_one():
    inner = NegationInstance(whole(NESTED_TEXT, 7), whole(NESTED_TEXT, 6, 8, 9))  # "." is outside OUTER's scope
    s = sentence(NESTED_TEXT, OUTER, inner)
    assert nesting_parents(s, choose_anchors(s)) == [None, None]
    assert encode(s, "nested") == encode(s, "direct")


def test_affix_cues_multiword_cues_and_remainders():
    text = "neither he nor she was impossible or careless ."
    words = text.split()
    multiword = NegationInstance(whole(text, 0, 2), whole(text, 1, 3, 4))
    prefix = NegationInstance(
        (TokenPart(5, "im", 0),), (TokenPart(4, "was", 0), TokenPart(5, "possible", 2)), (TokenPart(5, "possible", 2),)
    )
    suffix = NegationInstance((TokenPart(7, "less", 4),), (TokenPart(7, "care", 0),))
    s = sentence(text, multiword, prefix, suffix)
    graph = encode(s, "direct")
    assert graph[(0, 1)] == "cue" and graph[(1, 3)] == "mwc"
    assert graph[(0, 6)] == "cue:pre=im|scope|event" and graph[(6, 5)] == "scope"
    assert graph[(0, 8)] == "cue:suf=less|scope"
    assert decode(words, graph, "direct") == [multiword, prefix, suffix]


def test_parts_that_are_no_affix_are_spelt_out():
    text = "not Mr. Holmes ."
    instance = NegationInstance(whole(text, 0), (TokenPart(1, "Mr", 0), TokenPart(2, "Holmes", 0)))
    graph = encode(sentence(text, instance), "direct")
    assert graph[(1, 2)] == "scope:=Mr"
    odd = NegationInstance((TokenPart(1, "r|:", None),))  # a cell that is no part of its word, with label syntax
    graph = encode(sentence(text, odd), "nested")
    assert decode(text.split(), graph, "nested") == [odd]


def test_two_instances_sharing_a_first_cue_token_get_different_anchors():
    text = "no way , no ."
    no_way = NegationInstance(whole(text, 0, 1))
    no = NegationInstance(whole(text, 0), whole(text, 2))
    s = sentence(text, no_way, no)
    assert choose_anchors(s) == [1, 0]
    for encoding in ENCODINGS:
        assert decode(text.split(), encode(s, encoding), encoding) == canonical_instances([no_way, no])
    with pytest.raises(GraphEncodingError, match="instance 2 has no cue token of its own"):
        encode(sentence(text, no, no), "direct")


def test_unknown_encoding_is_an_error():
    with pytest.raises(NegkitError, match="unknown graph encoding 'flat'"):
        encode(sentence("not ."), "flat")


def all_corpus_sentences(data):
    for split in ("train", "dev", "test"):
        yield from load_split("cd-sco", split, data)
    for name in ("abstracts.xml", "full_papers.xml", "clinical_records_anon.xml"):
        yield from read_corpus(data / "bioscope" / name).sentences
    yield from read_document_corpus("sfu", data)


def test_every_instance_of_the_three_corpora_round_trips(shared_data):
    counted = 0
    for s in all_corpus_sentences(shared_data):
        expected = canonical_instances(s.instances)
        for encoding in ENCODINGS:
            assert decode(s.words, encode(s, encoding), encoding) == expected, (s.source, s.line, encoding)
        counted += len(s.instances)
    # CD-SCO 1,421 + BioScope 1,719 + 376 + 870 + SFU 3,528
    assert counted == 1421 + 1719 + 376 + 870 + 3528


def assert_valid(words: list[str], instances: list[NegationInstance]) -> None:
    """What a valid instance is: a cue, parts inside the sentence, one part per token and component, in token
    order, writable as CD-SCO and read back the same, and scored by both scorers."""
    for instance in instances:
        assert instance.cue
        for parts in (instance.cue, instance.scope, instance.event):
            indices = [part.index for part in parts]
            assert indices == sorted(set(indices))
            assert all(0 <= i < len(words) for i in indices)
            assert all(part.text and not any(c.isspace() for c in part.text) for part in parts)
    s = ResolutionSentence([Token(w, pos="NN") for w in words], instances, sentence_id="r/1", chapter="r", number="1")
    text = format_cdsco([s])
    assert parse_cdsco(lines_from_text(text, "random"))[0].instances == instances
    gold = lines_from_text(format_cdsco([sentence("not here .", NegationInstance(whole("not here .", 0)))]))
    if len(words) == 3:
        system = lines_from_text(
            format_cdsco(
                [
                    ResolutionSentence(
                        [Token(w, pos="NN") for w in "not here .".split()],
                        instances,
                        sentence_id="t/1",
                        chapter="t",
                        number="1",
                    )
                ]
            )
        )
        score_starsem(gold, system)
        score_nis(gold, system)


LABELS = [
    "cue",
    "mwc",
    "scope",
    "event",
    "nest",
    "scope|event",
    "scope|nest",
    "cue:pre=un|scope",
    "cue:suf=less",
    "cue:mid=less|scope|event",
    "mwc:pre=im",
    "scope:=x",
    "scope:=Mr@0",
    "event:=%7C@",
    "cue:=@@",
    "junk",
    "",
    "cue:pre=",
    "scope:=x@-3",
    "|||",
    "nest|nest",
    "cue:suf=careless",
    "scope:=a%20b",
]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_random_edge_sets_decode_to_valid_instances(encoding):
    generator = random.Random(2021)
    vocabulary = ["not", "unhappy", "careless", "Mr.", "no", "x", "carelessly", "nor", "a", "un"]
    for _ in range(3000):
        n = generator.randint(1, 7)
        words = [generator.choice(vocabulary) for _ in range(n)]
        graph = {}
        for _ in range(generator.randint(0, 3 * n)):
            head, dependent = generator.randint(-1, n + 1), generator.randint(-1, n + 1)
            graph[(head, dependent)] = generator.choice(LABELS)
        instances = decode(words, graph, encoding)
        assert_valid(words, instances)
        assert len(instances) == len({d for (h, d) in graph if h == 0 and 1 <= d <= n})


def test_label_roles():
    assert label_roles("cue:pre=un|scope|event") == {"cue", "scope", "event"}
    assert label_roles("") == frozenset()
