"""The readers of BLiMP negation, NegNLI, NeQA and CondaQA's test split: the real files (counts from the data
folders' READMEs) and malformed input (``FILE:LINE: problem``), through the library and through ``negkit eval``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import shared_data_path
from malformed import assert_input_error

from negkit.benchmarks.blimp import PARADIGMS, read_blimp, read_blimp_paradigm
from negkit.benchmarks.condaqa.data import read_condaqa
from negkit.benchmarks.negnli.data import read_negnli
from negkit.benchmarks.neqa import read_neqa
from negkit.errors import InputFormatError

PAIR = {
    "sentence_good": "Had Bruce ever played?",
    "sentence_bad": "Bruce had ever played.",
    "UID": "npi_present_1",
    "pairID": "0",
    "field": "semantics",
    "linguistics_term": "npi_licensing",
}


def write_blimp(folder: Path, pairs_per_paradigm: int = 2) -> Path:
    """A hand-made ``blimp-negation`` folder: every paradigm with a few invented pairs (good: "not ... ever")."""
    folder.mkdir(parents=True, exist_ok=True)
    for paradigm in PARADIGMS:
        lines = [
            json.dumps(
                {
                    "sentence_good": f"Nobody has ever seen {k} cats.",
                    "sentence_bad": f"Somebody has ever seen {k} cats.",
                    "UID": paradigm,
                    "pairID": str(k),
                }
            )
            for k in range(pairs_per_paradigm)
        ]
        (folder / f"{paradigm}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


# -- the real files ------------------------------------------------------------------------------------------
def test_blimp_real_files():
    pairs = read_blimp(shared_data_path("blimp-negation"))
    assert len(pairs) == 7000
    assert Counter(pair.group for pair in pairs) == {paradigm: 1000 for paradigm in PARADIGMS}
    assert len({pair.item_id for pair in pairs}) == 7000
    first = pairs[0]
    assert first.group == PARADIGMS[0] and first.good == "Teresa had not ever sold a movie theater."
    assert first.item_id == f"blimp-{PARADIGMS[0]}-{first.fields['pair_id']}"


def test_negnli_real_files():
    expected = {
        "MNLI": {"contradiction": 539, "entailment": 372, "neutral": 589},
        "SNLI": {"contradiction": 405, "entailment": 248, "neutral": 847},
        "RTE": {"entailment": 316, "not_entailment": 1184},
    }
    for name, labels in expected.items():
        items = read_negnli(shared_data_path("negation-nli", f"{name}.txt"))
        assert len(items) == 1500 and Counter(item.label for item in items) == labels
        # rows come in threes from one original pair: negation in the premise, in the hypothesis, in both
        assert len({item.premise_id for item in items}) == 500
        assert Counter(item.condition for item in items) == {"premise": 500, "hypothesis": 500, "both": 500}
    rte = read_negnli(shared_data_path("negation-nli", "RTE.txt"))
    assert any("Québec" in item.premise for item in rte)  # Windows-1252 bytes read as the letters they are
    mnli = read_negnli(shared_data_path("negation-nli", "MNLI.txt"))
    assert mnli[0].item_id == "negnli-mnli-0" and mnli[0].suite == "negnli-mnli" and mnli[0].label == "neutral"
    assert mnli[0].premise == mnli[2].premise and mnli[1].hypothesis == mnli[2].hypothesis


def test_neqa_real_file():
    items = read_neqa(shared_data_path("neqa"))
    assert len(items) == 300
    assert {item.choices for item in items} == {(" A", " B")}
    assert all(item.prompt.endswith("Answer:") for item in items)
    assert Counter(item.gold for item in items) == {1: 163, 0: 137}


def test_condaqa_test_split_real_file():
    folder = shared_data_path("condaqa")
    test = read_condaqa(folder, "test")
    assert len(test) == 7240 and len({item.passage_id for item in test}) == 700
    labels = Counter(item.answer if not item.is_span else "span" for item in test)
    assert labels == {"NO": 3457, "YES": 3263, "DON'T KNOW": 431, "span": 89}
    dev_ids = {item.sample_id for item in read_condaqa(folder, "dev")}
    assert not dev_ids & {item.sample_id for item in test}


# -- malformed input -----------------------------------------------------------------------------------------
def _bad(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "line, problem",
    [
        ("{not json", "not valid JSON"),
        (json.dumps({"sentence_good": "A.", "pairID": "1"}), "missing field 'sentence_bad'"),
        (
            json.dumps({**PAIR, "pairID": "1", "sentence_bad": "  "}),
            "field 'sentence_bad': expected a non-empty text",
        ),
        (json.dumps({**PAIR, "pairID": "1", "UID": "npi_present_2"}), "is not this file's paradigm 'npi_present_1'"),
        (json.dumps({**PAIR, "pairID": "0"}), "pairID '0' appears twice"),
        (json.dumps([1, 2]), "expected a JSON object, found an array"),
    ],
)
def test_blimp_malformed_lines(tmp_path, line, problem):
    path = _bad(tmp_path / "npi_present_1.jsonl", json.dumps(PAIR) + "\n" + line + "\n")
    with pytest.raises(InputFormatError, match="npi_present_1.jsonl:2: ") as error:
        read_blimp_paradigm(path)
    assert problem in str(error.value)


def test_blimp_missing_paradigm_file(tmp_path):
    folder = write_blimp(tmp_path / "blimp-negation")
    (folder / "npi_present_2.jsonl").unlink()
    with pytest.raises(InputFormatError, match="npi_present_2.jsonl: no such file"):
        read_blimp(folder)


HEADER = "index\tText\tHypothesis\tgold_label\n"


@pytest.mark.parametrize(
    "name, text, line, problem",
    [
        ("MNLI.txt", "index,Text,Hypothesis,gold_label\n", 1, "expected the header"),
        (
            "MNLI.txt",
            HEADER + "0\tA cat.\tA dog.\tneutral\n1\tA cat.\tneutral\n",
            3,
            "expected 4 tab-separated fields, found 3",
        ),
        ("MNLI.txt", HEADER + "0\tA cat.\tA dog.\tmaybe\n", 2, "unknown label 'maybe'"),
        (
            "RTE.txt",
            HEADER + "0\tA cat.\tA dog.\tneutral\n",
            2,
            "unknown label 'neutral' (expected one of entailment, not_entailment)",
        ),
        ("SNLI.txt", HEADER + "x\tA cat.\tA dog.\tneutral\n", 2, "column 'index': 'x' is not a whole number"),
        ("SNLI.txt", HEADER + "0\tA cat.\tA dog.\tneutral\n0\tA cat.\tA cow.\tneutral\n", 3, "index 0 appears twice"),
        ("SNLI.txt", HEADER + "0\t \tA dog.\tneutral\n", 2, "empty 'Text' (premise) or 'Hypothesis'"),
    ],
)
def test_negnli_malformed(tmp_path, name, text, line, problem):
    path = _bad(tmp_path / name, text)
    with pytest.raises(InputFormatError, match=f"{name}:{line}: ") as error:
        read_negnli(path)
    assert problem in str(error.value)


def test_negnli_reads_windows_1252_and_utf8(tmp_path):
    cp1252 = _bad(tmp_path / "a" / "RTE.txt", (HEADER + "0\tQuébec is “big”.\tIt is.\tentailment\r\n").encode("cp1252"))
    utf8 = _bad(tmp_path / "b" / "RTE.txt", HEADER + "0\tQuébec is “big”.\tIt is.\tentailment\n")
    assert read_negnli(cp1252)[0].premise == read_negnli(utf8)[0].premise == "Québec is “big”."


NEQA_HEADER = ",prompt,classes,answer_index\n"


@pytest.mark.parametrize(
    "row, problem",
    [
        ("0,\"Q? Answer:\",\"[' A', ' B']\",2", "column 'answer_index': '2' is not the index of one of the 2 classes"),
        ('0,"Q? Answer:","[\' A\'",0', "column 'classes'"),
        ('0,"Q? Answer:","[\' A\']",0', "expected a list of at least two non-empty strings"),
        ("0,\"Q? Answer:\",\"[' A', ' A']\",0", "repeats a choice"),
        ("0,\"\",\"[' A', ' B']\",0", "column 'prompt': expected a non-empty text, found ''"),
        ("0,\"Q? Answer:\",\"[' A', ' B']\"", "expected 4 columns, found 3"),
    ],
)
def test_neqa_malformed(tmp_path, row, problem):
    good = "0,\"Q?\nAnswer:\",\"[' A', ' B']\",1\n"
    path = _bad(tmp_path / "neqa.csv", NEQA_HEADER + good + row + "\n")
    with pytest.raises(InputFormatError, match="neqa.csv:4: ") as error:  # the good row spans lines 2-3
        read_neqa(path)
    assert problem in str(error.value)


def test_neqa_missing_column(tmp_path):
    path = _bad(tmp_path / "neqa.csv", ",prompt,answer_index\n0,Q,1\n")
    with pytest.raises(InputFormatError, match="neqa.csv:1: missing column\\(s\\): classes"):
        read_neqa(path)


def test_malformed_files_through_eval(tmp_path, capsys):
    """A bad line in each new suite's data ends `negkit eval` with one FILE:LINE error before any model work."""
    blimp = write_blimp(tmp_path / "b" / "blimp-negation")
    (blimp / "only_npi_scope.jsonl").write_text(json.dumps({"sentence_good": "A.", "pairID": "0"}) + "\n")
    _bad(tmp_path / "n" / "negation-nli" / "MNLI.txt", HEADER + "0\tA cat.\tA dog.\tyes\n")
    _bad(tmp_path / "q" / "neqa" / "neqa.csv", NEQA_HEADER + "0,\"Q?\",\"[' A', ' B']\",7\n")
    _bad(tmp_path / "c" / "condaqa" / "condaqa_test.json", '{"SampleID": 1}\n')
    cases = [
        ("b", "blimp-negation", blimp / "only_npi_scope.jsonl", 1),
        ("n", "negnli-mnli", tmp_path / "n" / "negation-nli" / "MNLI.txt", 2),
        ("q", "neqa", tmp_path / "q" / "neqa" / "neqa.csv", 2),
        ("c", "condaqa", tmp_path / "c" / "condaqa" / "condaqa_test.json", 1),
    ]
    for root, task, path, line in cases:
        assert_input_error(
            [
                "eval",
                "--model",
                "random",
                "--tasks",
                task,
                "--data",
                tmp_path / root,
                "--split",
                "test",
                "--out",
                tmp_path / f"out-{root}",
                "--no-progress",
            ],
            capsys,
            where=path,
            line=line,
        )
        assert not (tmp_path / f"out-{root}" / "requests.jsonl").exists()
