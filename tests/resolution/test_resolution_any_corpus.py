"""``negkit resolution baseline`` on every corpus format (CD-SCO, BioScope XML, SFU Review), with --gold-out
and --score; hand-written corpora, scores worked out by hand below."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cdsco_helpers import S, conll
from conftest import shared_data_path

from negkit.cli import main
from negkit.resolution.corpora.cdsco import read_cdsco
from negkit.resolution.predict import baseline, corpus_sentences

BIOSCOPE = """<?xml version="1.0" encoding="utf-8"?>
<Annotation created="hand-written"><DocumentSet>
<Document type="Biological_abstract"><DocID type="PMID">111</DocID><DocumentPart type="AbstractText">
<sentence id="S1.1">IL-2 was <xcope id="X1.1.1"><cue type="negation" ref="X1.1.1">not</cue> detected in cells</xcope>, but IL-4 was.</sentence>
<sentence id="S1.2">It was <xcope id="X1.2.1"><cue type="negation" ref="X1.2.1">not</cue> seen</xcope> in the control.</sentence>
<sentence id="S1.3">Binding was clear.</sentence>
</DocumentPart></Document>
</DocumentSet></Annotation>
"""

SFU = """<?xml version="1.0" encoding="UTF-8"?>
<DOCUMENT><DESC></DESC><P>
<SENTENCE><W>I</W><cue ID="1" type="negation"><W>never</W></cue><xcope ID="2"><ref ID="3" SRC="1"/><W>liked</W><W>it</W></xcope><W>,</W><W>sadly</W><W>.</W></SENTENCE>
<SENTENCE><W>Fine</W><W>.</W></SENTENCE>
</P></DOCUMENT>
"""


@pytest.fixture
def bioscope_file(tmp_path: Path) -> Path:
    path = tmp_path / "abstracts.xml"
    path.write_text(BIOSCOPE, encoding="utf-8")
    return path


def scope_cells(path: Path) -> list[list[str]]:
    """The scope cell of every instance's tokens, per sentence (``[]`` for a sentence without negation)."""
    sentences = []
    for sentence in read_cdsco(path):
        sentences.append([" ".join(part.text for part in instance.scope) for instance in sentence.instances])
    return sentences


def test_baseline_reads_bioscope_and_writes_system_and_gold(bioscope_file, tmp_path, capsys):
    system, gold = tmp_path / "system.txt", tmp_path / "gold.txt"
    assert (
        main(["resolution", "baseline", str(bioscope_file), "--out", str(system), "--gold-out", str(gold), "--score"])
        == 0
    )
    # the walk stops at the comma in S1.1 and runs to the full stop in S1.2
    assert scope_cells(system) == [["detected in cells"], ["seen in the control"], []]
    assert scope_cells(gold) == [["detected in cells"], ["seen"], []]
    first = system.read_text().splitlines()[0].split("\t")
    assert first[:4] == ["111", "0", "0", "IL-2"] and first[7:] == ["_", "_", "_"]
    table = capsys.readouterr().out
    # SCM: 1 of 2 gold scopes exact, no fp -> P 100, R 50, F1 66.67; SCM-B: P = 1 / 2 system scopes -> F1 50;
    # scope tokens: gold 3 + 1, system 3 + 4,
    # shared 4 -> P 57.1, R 100, F1 72.7; NIS_tok: p = (1 + 1/4) / 2, r = 1 -> 62.5 / 100 / 76.9
    assert "| gold | 100.0 | 66.7 | 50.0 | 57.1 | 100.0 | 72.7 | 100.0 | 62.5 | 100.0 | 76.9 |" in table
    assert main(["resolution", "score", str(gold), str(system), "--json", "--bootstrap", "0"]) == 0
    rows = {row["row"]: row for row in json.loads(capsys.readouterr().out)["systems"][0]["starsem"]["rows"]}
    assert (rows["Scope tokens(no cue match)"]["tp"], rows["Scope tokens(no cue match)"]["fp"]) == (4, 3)


def test_baseline_reads_an_sfu_folder(tmp_path):
    folder = tmp_path / "sfu" / "BOOKS"
    folder.mkdir(parents=True)
    (folder / "yes1.xml").write_text(SFU, encoding="utf-8")
    document = baseline(tmp_path / "sfu")
    assert [[" ".join(p.text for p in i.scope) for i in s.instances] for s in document] == [["liked it"], []]
    assert main(["resolution", "baseline", str(tmp_path / "sfu"), "--out", str(tmp_path / "system.txt")]) == 0
    assert scope_cells(tmp_path / "system.txt") == [["liked it"], []]


def test_baseline_on_cdsco_keeps_the_file_layout(tmp_path):
    gold = tmp_path / "gold.txt"
    gold.write_text(conll(S(1, "No DT No _ _", "way NN _ way _", ", , _ _ _", "sir NN _ _ _"), final_blank=False))
    assert main(["resolution", "baseline", str(gold), "--out", str(tmp_path / "bl.txt")]) == 0
    text = (tmp_path / "bl.txt").read_text()
    assert not text.endswith("\n\n") and text.endswith("\n")
    assert scope_cells(tmp_path / "bl.txt") == [["way"]]


def test_blind_input_and_missing_input_are_clear_errors(tmp_path, capsys):
    blind = tmp_path / "blind.txt"
    blind.write_text("c\t1\t0\tNo\tno\tDT\t*\nc\t1\t1\tway\tway\tNN\t*\n")
    assert main(["resolution", "baseline", str(blind), "--out", str(tmp_path / "bl.txt")]) == 2
    assert "blind.txt: has no negation columns (a blind file)" in capsys.readouterr().err
    assert not (tmp_path / "bl.txt").exists()
    assert main(["resolution", "baseline", "--out", str(tmp_path / "bl.txt")]) == 2
    assert "give either an input file or --corpus NAME" in capsys.readouterr().err


@pytest.mark.parametrize(("corpus", "sentences", "instances"), [("bioscope", 1200, 185), ("sfu", 1404, 328)])
def test_baseline_on_the_test_split_of_a_named_corpus(corpus, sentences, instances):
    data = shared_data_path()
    document = corpus_sentences(corpus=corpus, split="test", data=data)
    assert len(document) == sentences and sum(len(s.instances) for s in document) == instances
    predicted = baseline(document)
    assert [len(s.instances) for s in predicted] == [len(s.instances) for s in document]
