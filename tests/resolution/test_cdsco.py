"""CD-SCO reader and writer: byte-identical round trips, parts and offsets, statistics, malformed input."""

from __future__ import annotations

import io

import pytest
from conftest import shared_data_path

from negkit.errors import InputFormatError
from negkit.resolution.corpora.cdsco import CdscoDocument, format_cdsco, read_cdsco, write_cdsco
from negkit.resolution.instances import NegationInstance, ResolutionSentence, Token, TokenPart, corpus_statistics

GOLD_FILES = [
    "SEM-2012-SharedTask-CD-SCO-training-09032012.txt",
    "SEM-2012-SharedTask-CD-SCO-dev-09032012.txt",
    "SEM-2012-SharedTask-CD-SCO-test-cardboard-GOLD.txt",
    "SEM-2012-SharedTask-CD-SCO-test-circle-GOLD.txt",
]
BLIND_FILES = [
    "blind-test/SEM-2012-SharedTask-CD-SCO-test-cardboard.txt",
    "blind-test/SEM-2012-SharedTask-CD-SCO-test-circle.txt",
]

# "But the morning paper was uninteresting ." with the affix cue "un" (cardboard 8, shortened).
AFFIX_SENTENCE = (
    "cardboard\t8\t0\tpaper\tpaper\tNN\t(S*\t_\tpaper\t_\n"
    "cardboard\t8\t1\twas\tbe\tVBD\t(VP*\t_\twas\t_\n"
    "cardboard\t8\t2\tuninteresting\tuninteresting\tJJ\t*\tun\tinteresting\tinteresting\n"
    "cardboard\t8\t3\t.\t.\t.\t*VP)S)\t_\t_\t_\n"
)
NO_NEGATION = "c\t1\t0\tYes\tyes\tUH\t(S*\t***\nc\t1\t1\t.\t.\t.\t*S)\t***\n"


def write(tmp_path, text: str | bytes, name: str = "file.txt"):
    path = tmp_path / name
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    return path


@pytest.mark.parametrize("name", GOLD_FILES + BLIND_FILES)
def test_round_trip_is_byte_identical(name, tmp_path):
    path = shared_data_path("cd-sco", name)
    document = read_cdsco(path)
    out = tmp_path / "out.txt"
    write_cdsco(document, out)
    assert out.read_bytes() == path.read_bytes()


def test_layout_flags_of_the_released_files():
    train = read_cdsco(shared_data_path("cd-sco", GOLD_FILES[0]))
    test = read_cdsco(shared_data_path("cd-sco", GOLD_FILES[2]))
    blind = read_cdsco(shared_data_path("cd-sco", BLIND_FILES[0]))
    assert (train.annotated, train.final_newlines) == (True, 1)  # no final empty line
    assert (test.annotated, test.final_newlines) == (True, 2)  # one final empty line
    assert (blind.annotated, blind.final_newlines) == (False, 2)
    assert all(not s.instances for s in blind)


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ([GOLD_FILES[0]], (3644, 848, 984, 887, 616)),
        ([GOLD_FILES[1]], (787, 144, 173, 168, 122)),
        ([GOLD_FILES[2], GOLD_FILES[3]], (1089, 235, 264, 249, 173)),
    ],
)
def test_corpus_statistics(names, expected):
    sentences = [s for name in names for s in read_cdsco(shared_data_path("cd-sco", name))]
    stats = corpus_statistics(sentences)
    assert (stats.sentences, stats.negated_sentences, stats.cues, stats.scopes, stats.events) == expected
    assert stats.instances == expected[2]


def test_cue_kinds_of_the_test_set():
    # spec section 1: 36 affix cues, 9 multiword, 4 discontinuous, 15 empty scopes among the 264 instances
    pairs = [
        (s, i) for name in GOLD_FILES[2:] for s in read_cdsco(shared_data_path("cd-sco", name)) for i in s.instances
    ]
    assert len(pairs) == 264
    assert sum(i.is_affixal(s.tokens) for s, i in pairs) == 36
    assert sum(i.is_multiword() for _, i in pairs) == 9
    assert sum(i.is_discontinuous() for _, i in pairs) == 4
    assert sum(not i.scope for _, i in pairs) == 15


def test_tokens_and_affix_parts(tmp_path):
    [sentence] = read_cdsco(write(tmp_path, AFFIX_SENTENCE))
    assert sentence.tokens[2] == Token(text="uninteresting", lemma="uninteresting", pos="JJ", syntax="*")
    assert (sentence.chapter, sentence.number, sentence.sentence_id, sentence.line) == (
        "cardboard",
        "8",
        "cardboard/8",
        1,
    )
    assert sentence.source == str(tmp_path / "file.txt")
    [instance] = sentence.instances
    assert instance.cue == (TokenPart(2, "un", 0),)
    assert instance.scope == (TokenPart(0, "paper", 0), TokenPart(1, "was", 0), TokenPart(2, "interesting", 2))
    assert instance.event == (TokenPart(2, "interesting", 2),)
    assert instance.is_affixal(sentence.tokens)


def test_part_offsets_suffix_and_not_a_substring(tmp_path):
    text = (
        "c\t1\t0\tuseless\tuseless\tJJ\t*\tless\tuse\t_\n"
        "c\t1\t1\tcan't\tcan't\tMD\t*\t_\tcan\t_\n"
        "c\t1\t2\tx\tx\tNN\t*\t_\tother\t_\n"
    )
    [sentence] = read_cdsco(write(tmp_path, text))
    [instance] = sentence.instances
    assert instance.cue[0].start == 3  # "less" at the end of "useless"
    assert [p.start for p in instance.scope] == [0, 0, None]  # "other" is not part of "x"


def test_line_numbers_and_several_instances(tmp_path):
    text = (
        NO_NEGATION
        + "\n"
        + (
            "c\t2\t0\tnot\tnot\tRB\t*\tnot\t_\t_\t_\t_\t_\n"
            "c\t2\t1\tno\tno\tDT\t*\t_\t_\t_\tno\t_\t_\n"
            "c\t2\t2\tone\tone\tCD\t*\t_\tone\tone\t_\tone\t_\n"
        )
    )
    document = read_cdsco(write(tmp_path, text))
    assert [s.line for s in document] == [1, 4]
    assert document.final_newlines == 1
    first, second = document[1].instances
    assert first.cue_indices == (0,) and first.scope_indices == (2,) and first.event_indices == (2,)
    assert second.cue_indices == (1,) and second.scope_indices == (2,) and second.event == ()
    assert format_cdsco(document) == text


def test_writer_defaults_and_stream(tmp_path):
    sentence = ResolutionSentence(
        tokens=[Token("not"), Token("bad")],
        instances=[NegationInstance(cue=(TokenPart(0, "not"),), scope=(TokenPart(1, "bad"),))],
        sentence_id="s1",
    )
    stream = io.StringIO()
    write_cdsco([sentence], stream)
    # no chapter/number: the sentence id and position; missing lemma/POS/syntax: "_"; final empty line
    assert stream.getvalue() == "s1\t0\t0\tnot\t_\t_\t_\tnot\t_\t_\ns1\t0\t1\tbad\t_\t_\t_\t_\tbad\t_\n\n"
    assert format_cdsco([sentence], final_newlines=1).endswith("_\tbad\t_\n")
    with pytest.raises(ValueError, match="annotated=False"):
        format_cdsco([sentence], annotated=False)
    clash = ResolutionSentence(
        tokens=[Token("x")], instances=[NegationInstance(cue=(TokenPart(0, "x"), TokenPart(0, "y")))]
    )
    with pytest.raises(ValueError, match="two cue parts"):
        format_cdsco([clash])


def test_blind_layout_written_back(tmp_path):
    text = "c\t1\t0\tYes\tyes\tUH\t(S*\nc\t1\t1\t.\t.\t.\t*S)\n\n"
    document = read_cdsco(write(tmp_path, text))
    assert isinstance(document, CdscoDocument) and not document.annotated
    assert format_cdsco(document) == text
    # predictions written for a blind file get negation columns
    assert format_cdsco(list(document)).splitlines()[0].endswith("\t***")
    assert format_cdsco(document, annotated=True).splitlines()[0].endswith("\t***")
    document[0].instances.append(NegationInstance(cue=(TokenPart(0, "Yes"),)))
    with pytest.raises(ValueError, match="pass annotated=True"):
        format_cdsco(document)
    assert format_cdsco(document, annotated=True, final_newlines=0).endswith("\t*S)\t_\t_\t_")


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        (b"", None, "empty file"),
        (
            NO_NEGATION.encode() + b"\n" + "c\t2\t0\tna\xefve\tx\tJJ\t*\t***\n".encode("latin-1"),
            4,
            "not UTF-8: byte 0xef",
        ),
        ("c\t1\t0\tYes\tyes\tUH\n", 1, "expected at least 7 tab-separated fields, found 6"),
        (
            "c\t1\t0\tYes\tyes\tUH\t*\t***\n" + "c\t1\t1\t.\t.\t.\t*\t_\t_\t_\n",
            2,
            "inconsistent fields within a sentence: 10",
        ),
        ("c\t1\t0\tYes\tyes\tUH\t*\tnot\t_\n", 1, "unknown cue layout: 9 fields"),
        ("c\t1\t0\tYes\tyes\tUH\t*\tnot\t_\t_\t_\n", 1, "unknown cue layout: 11 fields"),
        ("c\t1\t0\tYes\tyes\tUH\t*\tnot\n", 1, "8 fields but field 8 is 'not'"),
        ("c\t1\t0\tYes\tyes\tUH\t*\t_\tYes\t_\n", 1, "negation instance 1 (fields 8-10) has no cue"),
        ("c\t1\t0\tYes\tyes\tUH\t*\tnot\t_\t_\t_\tYes\t_\n", 1, "negation instance 2 (fields 11-13) has no cue"),
        (NO_NEGATION + "\n\n" + NO_NEGATION, 4, "two consecutive empty lines"),
        ("\n" + NO_NEGATION, 1, "starts with an empty line"),
        ("c\t1\t0\tYes\tyes\tUH\t*\t***\nc\t1\t2\t.\t.\t.\t*\t***\n", 2, "token number '2', expected 1"),
        ("c\t1\t0\tYes\tyes\tUH\t*\t***\nc\t2\t1\t.\t.\t.\t*\t***\n", 2, "chapter/sentence c/2"),
        ("c\t1\t0\tYes\t\tUH\t*\t***\n", 1, "field 5 is empty"),
        ("c\t1\t0\tYes\tyes\tUH\t*\t***\r\n\r\n", 1, "the line ends with a carriage return (Windows line ends)"),
        (NO_NEGATION + "\n" + "c\t2\t0\tYes\tyes\tUH\t*\n", 4, "no negation columns (7 fields) unlike"),
    ],
)
def test_malformed_input(tmp_path, text, line, problem):
    path = write(tmp_path, text)
    with pytest.raises(InputFormatError) as info:
        read_cdsco(path)
    assert info.value.path == str(path)
    assert info.value.line == line
    assert problem in info.value.problem


def test_missing_file(tmp_path):
    with pytest.raises(InputFormatError, match="no such file"):
        read_cdsco(tmp_path / "absent.txt")
