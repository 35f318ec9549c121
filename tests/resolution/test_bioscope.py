"""Tests for the BioScope XML reader (negkit.resolution.corpora.bioscope).

The XML snippets below are hand-written for these tests in the BioScope schema (BioScope.dtd); they are
not taken from the corpus. The real-data tests read ../shared/data/bioscope in place.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_data_path

from negkit.errors import InputFormatError
from negkit.resolution.corpora.bioscope import read_bioscope
from negkit.resolution.corpora.formats import detect_format, read_corpus
from negkit.resolution.instances import TokenPart, corpus_statistics

HEADER = '<?xml version="1.0" encoding="utf-8"?>\n<Annotation created="hand-written">\n<DocumentSet>\n'
FOOTER = "</DocumentSet>\n</Annotation>\n"


def document(doc_id: str, *sentences: str) -> str:
    body = "\n".join(sentences)
    return (
        f'<Document type="Biological_abstract"><DocID type="PMID">{doc_id}</DocID>\n'
        f'<DocumentPart type="AbstractText">\n{body}\n</DocumentPart></Document>\n'
    )


# Hand-written sentences, one per feature.
NESTED = (
    '<sentence id="S1.1">These results <xcope id="X1.1.2"><cue type="speculation" ref="X1.1.2">suggest</cue> '
    'that the factor is <xcope id="X1.1.1"><cue type="negation" ref="X1.1.1">not</cue> required for '
    "replication</xcope></xcope>.</sentence>"
)
DISCONTINUOUS = (
    '<sentence id="S1.2"><xcope id="X1.2.1"><cue type="negation" ref="X1.2.1">Neither</cue> IL-2 '
    '<cue type="negation" ref="X1.2.1">nor</cue> IL-4 was detected</xcope>.</sentence>'
)
AFFIX = (
    '<sentence id="S1.3">The cells were <xcope id="X1.3.1"><cue type="negation" ref="X1.3.1">un</cue>able '
    "to bind DNA</xcope>.</sentence>"
)
MULTIWORD = (
    '<sentence id="S1.4">T cells <xcope id="X1.4.1"><cue type="negation" ref="X1.4.1">cannot</cue> '
    'respond</xcope> and <xcope id="X1.4.2"><cue type="negation" ref="X1.4.2">rather than</cue> '
    "die</xcope>.</sentence>"
)
MID_TOKEN = (
    '<sentence id="S1.5">The <xcope id="X1.5.1"><cue type="negation" ref="X1.5.1">lack</cue> of NF-K</xcope>B '
    "binding was clear.</sentence>"
)
PLAIN = '<sentence id="S1.6">\n\t\tNothing to see here.\n\t</sentence>'


def write(tmp_path: Path, text: str, name: str = "hand.xml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def hand_corpus(tmp_path: Path):
    xml = HEADER + document("123", NESTED, DISCONTINUOUS, AFFIX, MULTIWORD, MID_TOKEN, PLAIN) + FOOTER
    return read_bioscope(write(tmp_path, xml))


def parts(*pairs: tuple[int, str]) -> tuple[TokenPart, ...]:
    return tuple(TokenPart(index, text) for index, text in pairs)


def test_sentence_ids_text_and_offsets(hand_corpus) -> None:
    ids = [s.sentence_id for s in hand_corpus.sentences]
    assert ids == ["123/S1.1", "123/S1.2", "123/S1.3", "123/S1.4", "123/S1.5", "123/S1.6"]
    first = hand_corpus.sentences[0]
    assert first.text == "These results suggest that the factor is not required for replication."
    assert first.chapter == "123" and first.number == "0" and first.line == 6
    for token in first.tokens:
        assert first.text[token.char_start : token.char_end] == token.text
    assert hand_corpus.sentences[5].text == "Nothing to see here."


def test_nested_scopes_split_negation_and_speculation(hand_corpus) -> None:
    sentence = hand_corpus.sentences[0]
    # These0 results1 suggest2 that3 the4 factor5 is6 not7 required8 for9 replication10 .11
    (negation,) = sentence.instances
    assert negation.cue == parts((7, "not"))
    assert negation.scope == parts((8, "required"), (9, "for"), (10, "replication"))
    (speculation,) = sentence.speculation
    assert speculation.cue == parts((2, "suggest"))
    assert speculation.scope_indices == (3, 4, 5, 6, 7, 8, 9, 10)


def test_cues_sharing_a_scope_form_one_discontinuous_cue(hand_corpus) -> None:
    sentence = hand_corpus.sentences[1]
    # Neither0 IL-21 nor2 IL-43 was4 detected5 .6
    (instance,) = sentence.instances
    assert instance.cue == parts((0, "Neither"), (2, "nor"))
    assert instance.is_discontinuous()
    assert instance.scope == parts((1, "IL-2"), (3, "IL-4"), (4, "was"), (5, "detected"))


def test_affix_cue_leaves_the_rest_of_the_word_in_scope(hand_corpus) -> None:
    sentence = hand_corpus.sentences[2]
    # The0 cells1 were2 unable3 to4 bind5 DNA6 .7
    (instance,) = sentence.instances
    assert instance.cue == (TokenPart(3, "un", 0),)
    assert instance.is_affixal(sentence.tokens)
    assert instance.scope == (TokenPart(3, "able", 2), TokenPart(4, "to"), TokenPart(5, "bind"), TokenPart(6, "DNA"))


def test_multiword_cues(hand_corpus) -> None:
    sentence = hand_corpus.sentences[3]
    # T0 cells1 can2 not3 respond4 and5 rather6 than7 die8 .9
    cannot, rather_than = sentence.instances
    assert cannot.cue == parts((2, "can"), (3, "not")) and cannot.is_multiword()
    assert cannot.scope == parts((4, "respond"))
    assert rather_than.cue == parts((6, "rather"), (7, "than"))
    assert rather_than.scope == parts((8, "die"))


def test_suffix_and_hyphenated_prefix_affixes(tmp_path: Path) -> None:
    # Hand-written: "less" of "careless" and "non" of "non-specific" are cues inside one token each.
    sentences = (
        '<sentence id="S1.1">A <xcope id="X1.1.1">care<cue type="negation" ref="X1.1.1">less</cue> '
        "handling</xcope>.</sentence>",
        '<sentence id="S1.2">A <xcope id="X1.2.1"><cue type="negation" ref="X1.2.1">non</cue>-specific '
        "band</xcope>.</sentence>",
    )
    corpus = read_bioscope(write(tmp_path, HEADER + document("1", *sentences) + FOOTER))
    careless, nonspecific = (sentence.instances[0] for sentence in corpus.sentences)
    assert careless.cue == (TokenPart(1, "less", 4),)
    assert careless.scope == (TokenPart(1, "care", 0), TokenPart(2, "handling"))
    assert nonspecific.cue == (TokenPart(1, "non", 0),)
    assert nonspecific.scope == (TokenPart(1, "-specific", 3), TokenPart(2, "band"))
    assert corpus.unmapped == 0


def test_cue_in_scope_keeps_bioscope_scopes(tmp_path: Path) -> None:
    corpus = read_bioscope(write(tmp_path, HEADER + document("1", NESTED, AFFIX) + FOOTER), cue_in_scope=True)
    assert corpus.sentences[0].instances[0].scope_indices == (7, 8, 9, 10)
    assert corpus.sentences[1].instances[0].scope[0] == TokenPart(3, "unable", 0)


def test_span_ending_inside_a_token_is_counted_and_kept_partial(hand_corpus) -> None:
    sentence = hand_corpus.sentences[4]
    # The0 lack1 of2 NF-KB3 binding4 was5 clear6 .7
    (instance,) = sentence.instances
    assert instance.scope == (TokenPart(2, "of"), TokenPart(3, "NF-K", 0))
    assert hand_corpus.unmapped == 1
    assert len(hand_corpus.notes) == 1
    assert "scope that ends inside a token" in hand_corpus.notes[0]
    assert "hand.xml:" in hand_corpus.notes[0] and "'NF-K' of 'NF-KB'" in hand_corpus.notes[0]


def test_statistics_of_hand_corpus(hand_corpus) -> None:
    stats = corpus_statistics(hand_corpus.sentences, hand_corpus.unmapped)
    # negated: S1.1, S1.2, S1.3, S1.4 (two instances), S1.5; every instance keeps a non-empty scope.
    assert (stats.sentences, stats.negated_sentences, stats.instances, stats.scopes, stats.events) == (6, 5, 6, 6, 0)
    assert stats.unmapped == 1


def test_speculation_can_be_dropped(tmp_path: Path) -> None:
    corpus = read_bioscope(write(tmp_path, HEADER + document("1", NESTED) + FOOTER), keep_speculation=False)
    assert corpus.sentences[0].speculation == [] and len(corpus.sentences[0].instances) == 1


UNKNOWN_REF = (
    '<sentence id="S1.1">It is <xcope id="X1.1.1"><cue type="negation" ref="X9.9.9">not</cue> here</xcope>.</sentence>'
)


def test_unknown_scope_id_is_counted_or_raised(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + document("1", UNKNOWN_REF) + FOOTER)
    corpus = read_bioscope(path)
    # The cue refers to no scope, and the scope X1.1.1 has no cue: two unmapped references.
    assert corpus.unmapped == 2
    assert corpus.sentences[0].instances[0].scope == ()
    assert any("cue referring to an unknown scope id" in note and "'X9.9.9'" in note for note in corpus.notes)
    with pytest.raises(InputFormatError, match=r"hand\.xml:6: cue referring to an unknown scope id"):
        read_bioscope(path, strict=True)


def test_malformed_xml_names_file_and_line(tmp_path: Path) -> None:
    xml = HEADER + document("1", '<sentence id="S1.1">broken <xcope id="X1">text</sentence>') + FOOTER
    with pytest.raises(InputFormatError, match=r"hand\.xml:6: malformed XML: mismatched tag"):
        read_bioscope(write(tmp_path, xml))


def test_empty_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(InputFormatError, match=r"empty\.xml: file is empty"):
        read_bioscope(write(tmp_path, "", "empty.xml"))
    bad = tmp_path / "latin1.xml"
    bad.write_bytes((HEADER + document("1", '<sentence id="S1.1">caf\u00e9</sentence>') + FOOTER).encode("latin-1"))
    with pytest.raises(InputFormatError, match=r"latin1\.xml:6: bytes .* are not valid UTF-8"):
        read_bioscope(bad)


def test_wrong_root_and_missing_attributes(tmp_path: Path) -> None:
    with pytest.raises(InputFormatError, match="expected BioScope's <Annotation>"):
        read_bioscope(write(tmp_path, "<DOCUMENT></DOCUMENT>"))
    xml = HEADER + document("1", '<sentence id="S1.1"><cue type="negation">not</cue></sentence>') + FOOTER
    with pytest.raises(InputFormatError, match=r"hand\.xml:6: <cue> has no ref attribute"):
        read_bioscope(write(tmp_path, xml))


def test_empty_sentence_is_kept_and_noted(tmp_path: Path) -> None:
    corpus = read_bioscope(write(tmp_path, HEADER + document("7", '<sentence id="S7.1"> </sentence>', PLAIN) + FOOTER))
    assert [len(s.tokens) for s in corpus.sentences] == [0, 5]
    assert corpus.notes == ["1 sentences without tokens (kept; they cannot be written as CD-SCO lines): 7/S7.1"]
    assert corpus.unmapped == 0


def test_detect_format_and_read_corpus(tmp_path: Path) -> None:
    path = write(tmp_path, HEADER + document("1", PLAIN) + FOOTER)
    assert detect_format(path) == "bioscope"
    assert read_corpus(path).format == "bioscope"


# Real data: each file is parsed once per test session.
@pytest.fixture(scope="module")
def abstracts():
    return read_bioscope(shared_data_path("bioscope", "abstracts.xml"))


def test_abstracts_statistics(abstracts) -> None:
    stats = corpus_statistics(abstracts.sentences, abstracts.unmapped)
    assert (stats.sentences, stats.negated_sentences) == (11_871, 1_597)
    counts = (stats.instances, stats.cues, stats.scopes, stats.events, stats.unmapped)
    assert counts == (1_719, 1_719, 1_691, 0, 9)
    assert sum(len(s.speculation) for s in abstracts.sentences) == 2_659


def test_abstract_tokens_cover_the_text(abstracts) -> None:
    for sentence in abstracts.sentences:
        assert "".join(sentence.words) == "".join(sentence.text.split())
        assert all(sentence.text[t.char_start : t.char_end] == t.text for t in sentence.tokens)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("full_papers.xml", (2_670, 339, 376, 374, 0, 5)),
        ("clinical_records_anon.xml", (6_383, 865, 870, 849, 0, 4)),
    ],
)
def test_full_papers_and_clinical_statistics(name: str, expected: tuple[int, ...]) -> None:
    corpus = read_bioscope(shared_data_path("bioscope", name))
    stats = corpus_statistics(corpus.sentences, corpus.unmapped)
    counts = (stats.sentences, stats.negated_sentences, stats.instances, stats.scopes, stats.events, stats.unmapped)
    assert counts == expected
    assert detect_format(shared_data_path("bioscope", name)) == "bioscope"
