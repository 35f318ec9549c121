"""``negkit score tind``, ``negkit tind convert|stats`` and the TIND Markdown report.

The prediction files here are hand-written with invented sentences; the zip is only read in place and
converted into pytest's tmp_path.
"""

from __future__ import annotations

import json

import pytest
from tind_support import public_zip

from negkit.benchmarks.tind.tables import overview_table, tind_report
from negkit.cli import main
from negkit.commands.score import scored_suites


def record(test_id, is_distractor, negation, label, prediction, pattern_id=5, pattern="Hypernymy"):
    negation_type, semantic_type, syntactic_scope = (
        ("affirmation", "none", "none") if negation == "aff" else ("verbal", "analytic", "clausal")
    )
    return {
        "pattern_id": pattern_id,
        "pattern": pattern,
        "test_id": test_id,
        "negation_type": negation_type,
        "semantic_type": semantic_type,
        "syntactic_scope": syntactic_scope,
        "isDistractor": is_distractor,
        "label": label,
        "sentence": f"An invented sentence {test_id}.",
        "prediction": prediction,
    }


# Group 1 answered perfectly; group 2 answers True everywhere.
PREDICTIONS = [
    record(1, False, "aff", True, True),
    record(1, False, "neg", False, False),
    record(1, True, "aff", False, False),
    record(1, True, "neg", True, True),
    record(2, False, "aff", True, True),
    record(2, False, "neg", False, True),
    record(2, True, "aff", False, True),
    record(2, True, "neg", True, True),
]


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_score_tind_json_keeps_the_authors_names(tmp_path, capsys):
    path = write_jsonl(tmp_path / "predictions.jsonl", PREDICTIONS)
    assert main(["score", "tind", str(path), "--json", "--out", str(tmp_path / "scores.json")]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores == json.loads((tmp_path / "scores.json").read_text(encoding="utf-8"))
    # 6 of 8 correct; affirmations 3 of 4; negations 3 of 4; input negation 1 of 2; distractor affirmation 1 of 2
    assert scores["all"]["accuracy"] == 75.0
    assert scores["all_affirmations"]["accuracy"] == 75.0
    assert scores["input_negation"]["accuracy"] == 50.0
    assert scores["distractor_affirmation"]["accuracy"] == 50.0
    assert scores["distractor_negation"]["accuracy"] == 100.0
    assert scores["Negation_analysis"]["verbal_input"]["accuracy"] == 50.0
    # group 1 coherent everywhere, group 2 nowhere (input aff True == input neg True, etc.)
    for measure in (
        "All",
        "Affirmation-Negation_Input",
        "Affirmation-Negation_Distractor",
        "Input-Distractor_Affirmation",
        "Input-Distractor_Negation",
    ):
        assert scores["coherence_scores"][measure]["Coherence_percentage"] == 50.0
    assert scores["Hypernymy"]["all"]["accuracy"] == 75.0


def test_score_tind_markdown(tmp_path, capsys):
    path = write_jsonl(tmp_path / "predictions.jsonl", PREDICTIONS)
    assert main(["score", "tind", str(path), "--name", "my-model", "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    assert (
        "| my-model | 50.00 | 50.00 | 50.00 | 50.00 | 50.00 | 75.00 | 75.00 | 75.00 | 100.00 | 50.00 | 50.00 | 100.00 |"
        in out
    )
    assert "| #05 Hypernymy | 8 | 75.00 |" in out
    assert "| verbal | 4 | 75.00 | 50.00 | 100.00 |" in out
    assert "Note:" not in out  # no empty cells
    # with intervals (the default): every cell is value [low, high], resampling the 2 groups
    assert main(["score", "tind", str(path), "--name", "my-model"]) == 0
    out = capsys.readouterr().out
    assert "| my-model | 50.00 [" in out and "| verbal | 4 | 75.00 [" in out
    assert "resampling whole TIND groups (2 in all; 1,000 resamples, seed 0)" in out


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"prediction": "maybe"}, ":3: field 'prediction': expected a boolean, found 'maybe'"),
        ({"isDistractor": None}, ":3: field 'isDistractor': expected a boolean, found None"),
        ({"pattern_id": 12}, ":3: field 'pattern_id': expected 1-11, found 12"),
    ],
)
def test_bad_prediction_line_is_reported_with_file_line_field(tmp_path, capsys, change, problem):
    records = [dict(r) for r in PREDICTIONS]
    records[2].update(change)
    path = write_jsonl(tmp_path / "bad.jsonl", records)
    assert main(["score", "tind", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == f"negkit: error: {path}{problem}"


def test_missing_and_empty_prediction_files(tmp_path, capsys):
    assert main(["score", "tind", str(tmp_path / "absent.jsonl")]) == 2
    assert "absent.jsonl: no such file" in capsys.readouterr().err
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    assert main(["score", "tind", str(tmp_path / "empty.jsonl")]) == 2
    assert "no predictions in the file" in capsys.readouterr().err


def test_every_registered_suite_reads_predictions():
    names = {suite.name for suite in scored_suites()}
    assert {"tind", "thunder-nubench", "nan-nli", "scone", "condaqa", "blimp-negation", "negnli", "neqa"} <= names
    for suite in scored_suites():
        assert callable(suite.task(suite.main_task).factory().predictions)


def test_empty_cells_are_reported_in_markdown(tmp_path, capsys):
    # pattern #09 group without distractor-negative sentence: two measures cannot be compared
    records = [
        record(3, False, "aff", True, True, 9, "Agent"),
        record(3, False, "neg", False, False, 9, "Agent"),
        record(3, True, "aff", False, False, 9, "Agent"),
    ]
    path = write_jsonl(tmp_path / "p.jsonl", records)
    assert main(["score", "tind", str(path), "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    assert "Note: 1 group(s) had a compared cell with no sentence" in out
    assert "(All 1, Affirmation-Negation_Distractor 1, Input-Distractor_Negation 1)" in out
    assert "| acc. distr. neg |" in out and "| 100.00 | – |" in out  # empty bucket printed as a dash


def test_overview_table_has_one_row_per_run():
    from negkit.benchmarks.tind.hf import RecordReader
    from negkit.benchmarks.tind.metrics import tind_metrics

    reader = RecordReader("inline")
    items = [reader.item(r, n) for n, r in enumerate(PREDICTIONS, start=1)]
    runs = {"gold": tind_metrics(items, [i.label for i in items]), "all-true": tind_metrics(items, [True] * 8)}
    table = overview_table(runs)
    assert table.count("\n") == 3
    assert "| gold | 100.00 |" in table and "| all-true | 0.00 |" in table
    assert tind_report(runs["gold"]).startswith("## TIND results\n\n8 sentences in 2 groups.")


# ---------------------------------------------------------------------------------------------- tind CLI


INVENTED_RAW = (
    "% Test 000001\tSource: hyp(00000001-n kite_1,00000002-n toy_1)\tDistractor: spoon [00000003-n]\n"
    "\n"
    "1-1\taffirmation\tnone\tnone\tInput     \tT\tA kite is a toy.\n"
    "1-1\taffirmation\tnone\tnone\tDistractor\tF\tA spoon is a toy.\n"
    "2-1\tverbal\tanalytic\tclausal\tInput     \tF\tA kite is not a toy.\n"
    "2-1\tverbal\tanalytic\tclausal\tDistractor\tT\tA spoon is not a toy.\n"
    "\n"
)


def test_convert_raw_folder_both_ways(tmp_path, capsys):
    source = tmp_path / "raw"
    source.mkdir()
    (source / "#05.Pattern.txt").write_text(INVENTED_RAW, encoding="utf-8")
    assert main(["tind", "convert", str(source), str(tmp_path / "out.jsonl"), "--extended"]) == 0
    lines = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4 and json.loads(lines[1])["kind"] == "Distractor"
    assert main(["tind", "convert", str(source), str(tmp_path / "copy")]) == 0
    assert (tmp_path / "copy" / "#05.Pattern.txt").read_text(encoding="utf-8") == INVENTED_RAW
    assert main(["tind", "convert", str(tmp_path / "out.jsonl"), str(tmp_path / "out.parquet")]) == 0
    assert main(["tind", "stats", str(tmp_path / "out.parquet"), "--json"]) == 0
    capsys.readouterr()
    assert main(["tind", "convert", str(tmp_path / "out.jsonl"), str(tmp_path / "raw-again")]) == 2
    assert "HF layout has no group headers" in capsys.readouterr().err


def test_convert_refuses_to_write_inside_a_git_tree(tmp_path, capsys):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    source = tmp_path / "raw"
    source.mkdir()
    (source / "#05.Pattern.txt").write_text(INVENTED_RAW, encoding="utf-8")
    assert main(["tind", "convert", str(source), str(tmp_path / "repo" / "data.jsonl")]) == 2
    assert "inside the git working tree" in capsys.readouterr().err
    assert not (tmp_path / "repo" / "data.jsonl").exists()


def test_zip_to_jsonl_then_score_gold_predictions(tmp_path, capsys):
    out = tmp_path / "validation.jsonl"
    assert main(["tind", "convert", str(public_zip()), str(out), "--split", "dev"]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    predictions = write_jsonl(tmp_path / "gold.jsonl", [{**r, "prediction": r["label"]} for r in records])
    capsys.readouterr()
    assert main(["score", "tind", str(predictions), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["all"]["accuracy"] == 100.0
    assert scores["coherence_scores"]["All"]["Coherence_percentage"] == 100.0
    assert scores["summary"]["groups"] == 122  # the validation groups of the public half's split (seed 0)


def test_stats_of_the_zip(capsys):
    assert main(["tind", "stats", str(public_zip()), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["total"]["groups"] == 2052 and stats["total"]["sentences"] == 190765
    assert stats["total"]["split_groups"] == {"train": 1441, "validation": 122, "test": 489}
    assert stats["Synonymy1"]["split_groups"] == {"train": 1198, "validation": 50, "test": 250}
