"""BibTeX parsing and merging (negkit.kit.citations), every benchmark's declared citation, and `negkit cite`."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from negkit.cli import main
from negkit.commands.cite import cite
from negkit.kit.citations import NEGKIT_BIBTEX, BibtexError, bibtex_entries, bibtex_text, merge_bibtex
from negkit.kit.corpora.citations import CORPUS_BIBTEX, corpus_bibtex
from negkit.kit.corpora.sources import CORPUS_SOURCES
from negkit.kit.suites.registry import all_suites
from negkit.resolution.splits import ALL_CORPORA

# Hand-written entries (labelled fixtures): a nested brace in a title, a comma inside a field.
FIRST = "@article{first2020,\n  title = {A {Nested} Title, with a comma},\n  year = {2020}\n}"
SECOND = "@misc{second2021,\n  title = {Second}\n}"


def test_entries_are_split_by_key_with_nested_braces():
    entries = bibtex_entries(f"{FIRST}\n\n{SECOND}\n")
    assert list(entries) == ["first2020", "second2021"]
    assert entries["first2020"] == FIRST
    assert bibtex_text(entries) == f"{FIRST}\n\n{SECOND}\n"
    assert bibtex_entries("") == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("@article{open2020,\n  title = {never closed}\n", "never closed"),
        (f"{FIRST}\n{FIRST}", "given twice"),
        ("not bibtex", "expected a BibTeX entry"),
        (f"{FIRST}\nstray text", "expected a BibTeX entry"),
    ],
)
def test_malformed_bibtex_is_an_error(text, message):
    with pytest.raises(BibtexError, match=message):
        bibtex_entries(text)


def test_merge_keeps_each_key_once_in_order():
    assert list(merge_bibtex([SECOND, f"{FIRST}\n{SECOND}"])) == ["second2021", "first2020"]


def test_every_registered_benchmark_declares_its_papers():
    for suite in all_suites():
        entries = bibtex_entries(suite.bibtex)
        assert entries, f"suite {suite.name} declares no BibTeX entry"
        for key, entry in entries.items():
            assert "title" in entry and "year" in entry and "author" in entry, f"{suite.name}: {key} is incomplete"


def test_every_declared_citation_key_is_among_the_suites_entries():
    for suite in all_suites():
        declared = {key for key in suite.data.citation.split(",") if key}
        assert declared, f"suite {suite.name}: its DataSource names no citation key"
        assert declared <= set(bibtex_entries(suite.bibtex)), suite.name


def test_every_resolution_corpus_is_cited_under_its_declared_key():
    assert set(CORPUS_BIBTEX) == set(CORPUS_SOURCES)
    for corpus, source in CORPUS_SOURCES.items():
        assert source.citation in bibtex_entries(CORPUS_BIBTEX[corpus]), corpus
    for alias in ("cd-neg", "sfu", "norec"):
        assert alias in ALL_CORPORA and corpus_bibtex(alias) is not None


def test_cite_names_negkit_first_and_each_paper_once():
    entries = cite(["scone,nan-nli", "nan-nli"])
    assert list(entries)[0] == "negkit"
    assert entries["negkit"] == NEGKIT_BIBTEX
    assert {"she2023", "truong2022"} <= set(entries)
    assert len(entries) == 3
    everything = cite()
    assert {key for suite in all_suites() for key in bibtex_entries(suite.bibtex)} <= set(everything)
    assert {"morante2012", "morante2012a", "vincze2008", "maehlum2021", "silveira2014"} <= set(everything)


def test_cite_reads_a_run_folder(tmp_path):
    (tmp_path / "scone.results.json").write_text(json.dumps({"task": {"task": "scone"}}), encoding="utf-8")
    assert list(cite([str(tmp_path)])) == ["negkit", "she2023"]


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_cite_command_prints_bibtex_keys_and_writes_a_file(tmp_path):
    code, out, _ = _run(["cite", "scone", "cd-sco"])
    assert code == 0 and out.startswith("@software{negkit,") and "morante2012a" in out
    assert bibtex_entries(out).keys() == {"negkit", "she2023", "morante2012", "morante2012a"}
    code, out, _ = _run(["cite", "--keys", "scone"])
    assert (code, out) == (0, "negkit\nshe2023\n")
    target = tmp_path / "refs.bib"
    code, out, err = _run(["cite", "scone", "--out", str(target)])
    assert code == 0 and out == "" and "2 entries" in err
    assert bibtex_entries(target.read_text(encoding="utf-8")).keys() == {"negkit", "she2023"}


def test_cite_command_unknown_name_is_a_one_line_error():
    code, out, err = _run(["cite", "no-such-task"])
    assert code == 2 and out == ""
    assert "'no-such-task' is neither a task" in err and "Traceback" not in err


def test_a_run_lists_its_citations_in_results_json_and_report_html(tmp_path):
    data = Path(__file__).resolve().parents[2].parent / "shared" / "data"
    if not (data / "scone").is_dir():
        pytest.skip(f"data folder missing: {data / 'scone'}")
    out = tmp_path / "run"
    code, _, _ = _run(
        ["eval", "--model", "random", "--tasks", "scone", "--limit", "6", "--data", str(data), "--out", str(out)]
    )
    assert code == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert list(results["citations"]) == ["negkit", "she2023"]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "How to cite" in page and "@inproceedings{she2023," in page
