"""``negkit resolution score|stats|validate``: output, JSON, exit codes, nothing on stdout on error."""

from __future__ import annotations

import json

import pytest
from cdsco_helpers import S, conll
from conftest import shared_data_path

from negkit.cli import main

GOLD = conll(S(1, "No DT No _ _", "way NN _ way way", ". . _ _ _"), S(2, "Fine JJ ***", ". . ***"))
PARTIAL = conll(S(1, "No DT No _ _", "way NN _ _ _", ". . _ _ _"), S(2, "Fine JJ ***", ". . ***"))


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in {"gold": GOLD, "same": GOLD, "partial": PARTIAL, "bad": GOLD.replace("way", "wax", 1)}.items():
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text(text, encoding="utf-8")
    return {name: str(path) for name, path in paths.items()}


def test_score_prints_table_and_nis_block(files, capsys):
    assert main(["resolution", "score", files["gold"], files["partial"]]) == 0
    out = capsys.readouterr().out
    assert out.startswith("---------------------------+------+")
    assert (
        "Cues:                            1 |      1 |    1 |    0 |    0 |        100.00 |     100.00 |  100.00" in out
    )
    assert (
        "Scopes(cue match):               1 |      0 |    0 |    0 |    1 |          0.00 |       0.00 |    0.00" in out
    )
    # NIS: one pair, empty system scope against gold "way": p = 1, r = 0
    assert "NIS_tok:                          |         100.0 |        0.0 |     0.0" in out


def test_score_several_systems_prints_each_and_the_mean(files, capsys):
    assert main(["resolution", "score", files["gold"], files["same"], files["partial"]]) == 0
    out = capsys.readouterr().out
    assert out.count("# sentences: 2") == 2 and f"== {files['partial']}" in out
    assert "NIS mean of 2 files" in out
    assert "NIS_tok:                          |         100.0 |       50.0 |    50.0" in out.split("NIS mean")[1]


def test_score_json(files, capsys):
    assert main(["resolution", "score", files["gold"], files["same"], files["partial"], "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["gold"] == files["gold"] and payload["corrected"] is False and payload["strict"] is True
    first, second = payload["systems"]
    assert first["starsem"]["rows"][0]["f1"] == 100.0
    assert second["starsem"]["rows"][1] == {
        "row": "Scopes(cue match)",
        "gold": 1,
        "system": 0,
        "tp": 0,
        "fp": 0,
        "fn": 1,
        "tp_scored": 0,
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
    }
    assert second["nis"]["nis_tok"] == {"precision": 100.0, "recall": 0.0, "f1": 0.0}
    assert payload["nis_mean"]["nis_tok"]["recall"] == 50.0


def test_score_corrected_option(files, capsys):
    assert main(["resolution", "score", files["gold"], files["partial"], "--corrected", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["corrected"] is True
    # Negated through the cue pair: gold event "way", no system event: fn
    negated = payload["systems"][0]["starsem"]["rows"][4]
    assert (negated["tp"], negated["fp"], negated["fn"]) == (0, 0, 1)


def test_score_error_exit_code_and_no_stdout(files, capsys):
    # the second system file is bad: nothing at all is printed for the first one either
    assert main(["resolution", "score", files["gold"], files["same"], files["bad"]]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"negkit: error: {files['bad']}:2: mismatch with the gold file in the word")


def test_score_missing_and_empty_files(files, tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert main(["resolution", "score", files["gold"], str(empty)]) == 2
    assert main(["resolution", "score", files["gold"], str(tmp_path / "absent.txt")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "empty file" in captured.err and "no such file" in captured.err


def test_validate(files, capsys):
    assert main(["resolution", "validate", files["partial"], "--gold", files["gold"]]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["resolution", "validate", files["bad"], "--gold", files["gold"]]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and ":2: mismatch" in captured.err


def test_stats_small_file(files, capsys):
    assert main(["resolution", "stats", files["gold"]]) == 0
    assert capsys.readouterr().out == (
        "sentences: 2\nnegated sentences: 1\ninstances: 1\ncues: 1\nscopes: 1\nevents: 1\n"
    )


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["SEM-2012-SharedTask-CD-SCO-training-09032012.txt"], (3644, 848, 984, 984, 887, 616)),
        (["SEM-2012-SharedTask-CD-SCO-dev-09032012.txt"], (787, 144, 173, 173, 168, 122)),
        (
            ["SEM-2012-SharedTask-CD-SCO-test-cardboard-GOLD.txt", "SEM-2012-SharedTask-CD-SCO-test-circle-GOLD.txt"],
            (1089, 235, 264, 264, 249, 173),
        ),
    ],
)
def test_stats_reproduces_the_cd_sco_counts(names, expected, capsys):
    paths = [str(shared_data_path("cd-sco", name)) for name in names]
    assert main(["resolution", "stats", *paths, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    keys = ("sentences", "negated_sentences", "instances", "cues", "scopes", "events")
    assert tuple(payload[key] for key in keys) == expected
    assert "unmapped" not in payload


def test_stats_error(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"c\t1\t0\tNo\tno\tDT\t*\tNo\t_\n")
    assert main(["resolution", "stats", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "unknown cue layout: 9 fields" in captured.err


def test_stats_of_several_files_prints_one_row_each_and_a_total(files, capsys):
    assert main(["resolution", "stats", files["gold"], files["gold"]]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["file", "sentences", "negated", "sentences", "instances", "cues", "scopes", "events"]
    assert lines[1].split()[1:] == ["2", "1", "1", "1", "1", "1"]
    assert lines[3].split() == ["total", "4", "2", "2", "2", "2", "2"]
