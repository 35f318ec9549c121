"""``negkit resolution stats``: scope-length distributions, per-split counts, figures and the HTML page
(hand-computed on tiny corpora; the real-data counts are those of docs/corpora.md and the metrics spec)."""

from __future__ import annotations

import json

import pytest
from cdsco_helpers import S, conll
from conftest import shared_data_path

from negkit.cli import main
from negkit.resolution.corpora.cdsco import read_cdsco
from negkit.resolution.corpus_stats import count_split, split_statistics
from negkit.resolution.instances import scope_length_counts
from negkit.resolution.splits import CDSCO_FILES
from negkit.resolution.stats_report import length_table, split_table, write_figures

# sentence 1: scope "way , sir" -> length 2 (the comma is left out); sentence 3: an empty scope and a scope of 1
TINY = conll(
    S(1, "No DT No _ _", "way NN _ way _", ", , _ , _", "sir NN _ sir _"),
    S(2, "Fine JJ ***", ". . ***"),
    S(3, "Never RB Never _ _ _ _ _", "not RB _ _ _ not _ _", "me PRP _ _ _ _ me _"),
)


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.txt"
    path.write_text(TINY)
    return path


def test_scope_lengths_and_counts_by_hand(tiny):
    sentences = read_cdsco(tiny)
    assert scope_length_counts(sentences) == {0: 1, 1: 1, 2: 1}
    row = count_split("tiny", "all", sentences)
    assert (row.documents, row.sentences, row.negated_sentences, row.instances, row.scopes, row.scope_tokens) == (
        1,
        3,
        2,
        3,
        2,
        3,
    )
    assert row.mean_scope_length == 1.5


def test_stats_cli_prints_lengths_and_writes_figures(tiny, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    figures = tmp_path / "figures"
    assert main(["resolution", "stats", str(tiny), "--lengths", "--figures", str(figures)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("sentences: 3\nnegated sentences: 2\ninstances: 3\n")
    assert f"| scope length | {tiny} |\n|---|---|\n| 0 | 1 |\n| 1 | 1 |\n| 2 | 1 |" in out
    assert sorted(p.name for p in figures.iterdir()) == [
        "index.html",
        "scope-lengths-tiny.txt.png",
        "scope-lengths-tiny.txt.svg",
    ]
    page = (figures / "index.html").read_text()
    assert "<svg" in page and "<table>" in page and "negation instances by scope length" in page
    assert "Made by <code>negkit resolution stats" in page
    assert (figures / "scope-lengths-tiny.txt.png").read_bytes().startswith(b"\x89PNG")
    assert main(["resolution", "stats", str(tiny), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scope_lengths"] == {str(tiny): {"0": 1, "1": 1, "2": 1}}


def test_split_statistics_of_a_small_cdsco_root(tmp_path, capsys):
    folder = tmp_path / "cd-sco"
    folder.mkdir()
    for names in CDSCO_FILES.values():
        for name in names:  # the test split is two files: twice the tiny corpus
            (folder / name).write_text(TINY)
    report = split_statistics(["cd-sco"], tmp_path)
    assert [(r.split, r.sentences, r.instances, r.scope_tokens) for r in report.rows] == [
        ("train", 3, 3, 3),
        ("dev", 3, 3, 3),
        ("test", 6, 6, 6),
        ("all", 12, 12, 12),
    ]
    assert report.scope_lengths == {"cd-sco": {0: 4, 1: 4, 2: 4}}
    table = split_table(report.to_dict())
    assert "| CD-SCO | test | 1 | 6 | 4 | 6 | 4 | 6 | 1.50 |" in table
    assert length_table(report.to_dict()).endswith("| 2 | 4 |")
    assert main(["resolution", "stats", "--corpus", "cd-sco", "--data", str(tmp_path)]) == 0
    assert "| CD-SCO | all | 1 | 12 | 8 | 12 | 8 | 12 | 1.50 |" in capsys.readouterr().out


def test_stats_needs_files_or_corpus(tiny, capsys):
    assert main(["resolution", "stats"]) == 2
    assert main(["resolution", "stats", str(tiny), "--corpus", "cd-sco"]) == 2
    assert capsys.readouterr().err.count("give corpus files or --corpus") == 2


def test_split_counts_on_the_real_corpora():
    report = split_statistics(["bioscope"], shared_data_path())
    rows = {row.split: (row.documents, row.instances) for row in report.rows}
    assert rows == {"train": (1018, 1361), "dev": (127, 173), "test": (128, 185), "all": (1273, 1719)}
    assert sum(report.scope_lengths["bioscope"].values()) == 1719


def test_figures_without_matplotlib_still_write_the_page(tmp_path, monkeypatch):
    from negkit.kit.render import plots

    monkeypatch.setattr(plots, "available", lambda: False)
    written = write_figures({"rows": [], "scope_lengths": {"x": {"1": 2}}}, tmp_path)
    assert list(written) == ["index.html"] and "pip install negkit[report]" in written["index.html"].read_text()
