"""Tests for the SFU Review corpus reader (negkit.resolution.corpora.sfu).

The reviews below are hand-written for these tests in the SFU Review XML schema; they are not taken
from the corpus. The real-data test reads ../shared/data/sfu-review in place.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_data_path

from negkit.errors import InputFormatError
from negkit.resolution.corpora.formats import detect_format, read_corpus
from negkit.resolution.corpora.sfu import read_sfu
from negkit.resolution.instances import TokenPart, corpus_statistics

# Hand-written review: one sentence per line so that messages can name lines 3-7.
REVIEW = """<?xml version="1.0" encoding="UTF-8"?>
<DOCUMENT><DESC></DESC><P>
<SENTENCE><W>I</W><cue ID="1" type="negation"><W>do</W><W>n't</W></cue><xcope ID="2"><ref ID="3" SRC="1"/><W>like</W><W>it</W></xcope><W>.</W></SENTENCE>
<SENTENCE><cue ID="4" type="negation"><W>Neither</W></cue><xcope ID="5"><ref ID="6" SRC="4 7"/><W>the</W><W>plot</W></xcope><cue ID="7" type="negation"><W>nor</W></cue><xcope ID="8"><ref ID="9" SRC="4 7"/><W>the</W><W>cast</W></xcope><W>works</W><W>.</W></SENTENCE>
<SENTENCE><W>It</W><C><cue ID="10" type="speculation"><W>may</W></cue></C><xcope ID="11"><ref ID="12" SRC="10"/><W>be</W><cue ID="13" type="negation"><W>not</W></cue><xcope ID="14"><ref ID="15" SRC="13"/><W>worth</W><W></W><W>it</W></xcope></xcope><W>.</W></SENTENCE>
<SENTENCE><xcope ID="20"><ref ID="22" SRC="21"/><W>There</W><W>is</W><cue ID="21" type="negation"><W>no</W></cue><W>plot</W></xcope><W>.</W></SENTENCE>
<SENTENCE><W>Great</W><xcope ID="30"><ref ID="31" SRC="99"/><W>fun</W></xcope><W>!</W></SENTENCE>
</P></DOCUMENT>
"""


def write(folder: Path, text: str, name: str = "BOOKS/yes1done.xml") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def review(tmp_path: Path):
    return read_sfu(write(tmp_path, REVIEW))


def parts(*pairs: tuple[int, str]) -> tuple[TokenPart, ...]:
    return tuple(TokenPart(index, text) for index, text in pairs)


def test_sentences_ids_and_text(review) -> None:
    assert [s.sentence_id for s in review.sentences] == [f"BOOKS/yes1done/{n}" for n in range(5)]
    first = review.sentences[0]
    assert first.words == ["I", "do", "n't", "like", "it", "."]
    assert first.text == "I do n't like it ."
    assert (first.tokens[2].char_start, first.tokens[2].char_end) == (5, 8)
    assert first.line == 3 and first.chapter == "BOOKS/yes1done"
    assert all(token.lemma is None and token.pos is None for token in first.tokens)


def test_multiword_cue(review) -> None:
    (instance,) = review.sentences[0].instances
    assert instance.cue == parts((1, "do"), (2, "n't"))
    assert instance.scope == parts((3, "like"), (4, "it"))


def test_scopes_shared_by_two_cues(review) -> None:
    # Neither0 the1 plot2 nor3 the4 cast5 works6 .7 -- both scopes refer to cues 4 and 7.
    neither, nor = review.sentences[1].instances
    assert neither.cue == parts((0, "Neither")) and nor.cue == parts((3, "nor"))
    assert neither.scope_indices == nor.scope_indices == (1, 2, 4, 5)


def test_nested_scopes_and_speculation(review) -> None:
    # It0 may1 be2 not3 worth4 it5 .6 -- the empty <W> is skipped.
    sentence = review.sentences[2]
    assert sentence.words == ["It", "may", "be", "not", "worth", "it", "."]
    (speculation,) = sentence.speculation
    assert speculation.cue == parts((1, "may")) and speculation.scope_indices == (2, 3, 4, 5)
    (negation,) = sentence.instances
    assert negation.cue == parts((3, "not")) and negation.scope_indices == (4, 5)
    assert "1 empty <W> elements skipped (they hold no text)" in review.notes


def test_scope_leaves_out_its_own_cue_unless_asked(tmp_path: Path, review) -> None:
    # There0 is1 no2 plot3 .4 -- the scope element contains its cue.
    assert review.sentences[3].instances[0].scope_indices == (0, 1, 3)
    kept = read_sfu(write(tmp_path, REVIEW), cue_in_scope=True)
    assert kept.sentences[3].instances[0].scope_indices == (0, 1, 2, 3)


def test_unknown_cue_id_is_counted_or_raised(tmp_path: Path, review) -> None:
    assert review.unmapped == 1
    assert any("scope referring to an unknown cue id" in note and "yes1done.xml:7:" in note for note in review.notes)
    with pytest.raises(InputFormatError, match=r"yes1done\.xml:7: scope referring to an unknown cue id: SRC='99'"):
        read_sfu(write(tmp_path, REVIEW), strict=True)


def test_duplicate_cue_ids_and_stray_references(tmp_path: Path) -> None:
    # Hand-written: cue ID 1 is used in both sentences; the first <ref> sits in a <cue>, not an <xcope>.
    xml = (
        '<DOCUMENT><P><SENTENCE><cue ID="1" type="negation"><ref ID="2" SRC="1"/><W>No</W></cue><W>way</W></SENTENCE>\n'
        '<SENTENCE><cue ID="1" type="negation"><W>not</W></cue><xcope ID="3"><ref ID="4" SRC="1"/><W>here</W></xcope>'
        "</SENTENCE></P></DOCUMENT>"
    )
    path = write(tmp_path, xml, "dup.xml")
    corpus = read_sfu(path)
    assert corpus.unmapped == 2
    assert corpus.sentences[0].instances[0].scope == ()
    assert corpus.sentences[1].instances[0].scope == parts((1, "here"))
    kinds = " ".join(corpus.notes)
    assert "cue id used twice in a review" in kinds and "reference outside a scope" in kinds
    with pytest.raises(InputFormatError, match=r"dup\.xml:2: cue id used twice in a review: cue ID='1'"):
        read_sfu(path, strict=True)


def test_statistics_and_speculation_switch(tmp_path: Path, review) -> None:
    stats = corpus_statistics(review.sentences, review.unmapped)
    assert (stats.sentences, stats.negated_sentences, stats.instances, stats.scopes, stats.events) == (5, 4, 5, 5, 0)
    dropped = read_sfu(write(tmp_path, REVIEW), keep_speculation=False)
    assert all(not s.speculation for s in dropped.sentences)


def test_folder_of_domains(tmp_path: Path) -> None:
    one = "<DOCUMENT><P><SENTENCE><W>Fine</W><W>.</W></SENTENCE></P></DOCUMENT>"
    write(tmp_path, one, "CARS/no1done.xml")
    write(tmp_path, one, "BOOKS/no2done.xml")
    assert detect_format(tmp_path) == "sfu" and detect_format(tmp_path / "CARS" / "no1done.xml") == "sfu"
    corpus = read_corpus(tmp_path)
    assert corpus.format == "sfu"
    assert [s.sentence_id for s in corpus.sentences] == ["BOOKS/no2done/0", "CARS/no1done/0"]


def test_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputFormatError, match=r"bad\.xml:5: malformed XML: mismatched tag"):
        read_sfu(write(tmp_path, REVIEW.replace("<W>It</W>", "<W>It</X>"), "bad.xml"))
    with pytest.raises(InputFormatError, match=r"empty\.xml: file is empty"):
        read_sfu(write(tmp_path, "", "empty.xml"))
    latin = tmp_path / "latin.xml"
    latin.write_bytes(REVIEW.replace("plot", "caf\u00e9").encode("latin-1"))
    with pytest.raises(InputFormatError, match=r"latin\.xml:4: bytes .* are not valid UTF-8"):
        read_sfu(latin)
    with pytest.raises(InputFormatError, match="expected SFU's <DOCUMENT>"):
        read_sfu(write(tmp_path, "<Annotation/>", "root.xml"))
    with pytest.raises(InputFormatError, match=r"odd\.xml:1: unexpected <B> inside <SENTENCE>"):
        read_sfu(write(tmp_path, "<DOCUMENT><P><SENTENCE><B>x</B></SENTENCE></P></DOCUMENT>", "odd.xml"))
    with pytest.raises(InputFormatError, match="holds no .xml files"):
        (tmp_path / "void").mkdir()
        read_sfu(tmp_path / "void")


@pytest.fixture(scope="module")
def sfu_corpus():
    return read_sfu(shared_data_path("sfu-review", "SFU_Review_Corpus_Negation_Speculation"))


def test_sfu_statistics(sfu_corpus) -> None:
    stats = corpus_statistics(sfu_corpus.sentences, sfu_corpus.unmapped)
    assert stats.sentences == 17_263
    assert stats.negated_sentences == 3_119
    assert stats.instances == 3_528
    assert stats.events == 0
    assert sum(len(s.speculation) for s in sfu_corpus.sentences) == 5_363
    assert stats.unmapped == 103
    assert any(
        note.startswith("1 sentences without tokens") and "COOKWARE/no8done/10" in note for note in sfu_corpus.notes
    )


def test_a_folder_read_again_is_a_copy_and_a_changed_file_is_read_anew(tmp_path: Path) -> None:
    """The corpora a process read are kept (negkit.resolution.corpora.remembered): an unchanged folder read again
    gives equal sentences whose lists are the caller's own; a file changed below it, or other options, read anew."""
    write(tmp_path, REVIEW)
    first = read_sfu(tmp_path)
    first.sentences[0].instances.clear()
    first.sentences.pop()
    second = read_sfu(tmp_path)
    assert len(second.sentences) == 5 and len(second.sentences[0].instances) == 1
    assert second.sentences[1].instances == read_sfu(tmp_path).sentences[1].instances
    assert read_sfu(tmp_path, keep_speculation=False).sentences[2].speculation == []
    write(tmp_path, REVIEW.replace("<W>plot</W></xcope><W>.</W>", "<W>plot</W></xcope><W>!</W><W>.</W>"))
    assert read_sfu(tmp_path).sentences[3].words[-2:] == ["!", "."]


def test_a_corpus_read_under_another_spelling_names_places_as_a_fresh_read(tmp_path: Path, monkeypatch) -> None:
    """Kept corpora are found by the files they hold, whatever the path's spelling (relative or absolute, the
    folder of XML files or a folder around it); the copy names its path, sources and notes as a fresh read of that
    spelling would."""
    from negkit.resolution.corpora import remembered

    outer = tmp_path / "sfu-review"
    write(outer / "SFU_Review_Corpus_Negation_Speculation", REVIEW)
    (outer / "README.md").write_text("not a review")
    monkeypatch.chdir(tmp_path)
    spellings = [
        str(outer),
        "sfu-review/SFU_Review_Corpus_Negation_Speculation",
        f"{outer}/",
        "./sfu-review/SFU_Review_Corpus_Negation_Speculation/",
    ]
    fresh = {}
    for spelling in spellings:
        remembered._KEPT.clear()
        fresh[spelling] = read_sfu(spelling)
    for first in spellings:
        remembered._KEPT.clear()
        read_sfu(first)
        for spelling in spellings:
            assert read_sfu(spelling) == fresh[spelling], (first, spelling)
            assert len(remembered._KEPT) == 1  # one read, the others copies
    assert fresh[spellings[1]].sentences[0].source.startswith("sfu-review/SFU_Review_Corpus_Negation_Speculation/")
