"""``negkit compare``: leaderboards with intervals and paired differences from a baseline run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import NUBENCH_FIXTURE, shared_data_path

from negkit.cli import main
from negkit.commands.compare import CompareOptions, compare, compare_markdown, run_names
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.errors import InputFormatError, NegkitError
from negkit.kit.suites import suite_view

FIXTURE = NUBENCH_FIXTURE
OPTIONS = CompareOptions(resamples=300)


def _run(model: str, out: Path, limits: dict[str, int]) -> Path:
    data = shared_data_path()
    evaluate(
        model,
        ["tind", "nan-nli", "scone"],
        EvalOptions(data=str(data), limit=limits, out=out, progress=False, bootstrap=0),
    )
    if model == "random":  # a constant answer does not exist on Thunder-NUBench (candidates differ per item)
        evaluate(model, ["nubench"], EvalOptions(data=str(FIXTURE), out=out, progress=False, bootstrap=0))
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    limits = {"tind": 300, "scone": 60}
    return {
        "random": _run("random", root / "random", limits),
        "majority": _run("majority", root / "majority", {**limits, "scone": 30}),
        "random-again": _run("random", root / "again" / "random", limits),
    }


def test_leaderboard_and_differences(runs):
    comparison = compare(
        [runs["majority"], runs["random"]], baseline=runs["random"], options=OPTIONS, suites=suite_view
    )
    assert comparison["baseline"] == "random" and [r["name"] for r in comparison["runs"]] == ["majority", "random"]
    assert set(comparison["tasks"]) == {"tind", "nan-nli", "scone", "nubench"}
    tind = comparison["tasks"]["tind"]
    assert tind["primary"] == "all.accuracy" and len(tind["metrics"]) == 13  # 7 accuracies, 5 coherences, 1 AUC
    assert tind["metrics"][-1] == {"path": "p_true_auc.all", "label": "AUC p(True)", "digits": 3, "scale": [0.0, 1.0]}
    majority = next(row for row in tind["rows"] if row["run"] == "majority")
    assert majority["values"]["p_true_auc.all"]["estimate"] == 0.5  # one p(True) for every sentence: every pair tied
    auc_difference = majority["vs_baseline"]["p_true_auc.all"]  # a paired interval, as for every headline metric
    assert auc_difference["ci"][0] <= auc_difference["difference"] <= auc_difference["ci"][1]
    values = [row["values"]["all.accuracy"]["estimate"] for row in tind["rows"]]
    assert values == sorted(values, reverse=True)
    other = next(row for row in tind["rows"] if not row["baseline"])
    assert other["shared_items"] == other["items"]
    difference = other["vs_baseline"]["all.accuracy"]
    expected = (
        other["values"]["all.accuracy"]["estimate"]
        - next(row for row in tind["rows"] if row["baseline"])["values"]["all.accuracy"]["estimate"]
    )
    assert difference["difference"] == pytest.approx(expected, abs=1e-4)
    assert difference["ci"][0] <= difference["difference"] <= difference["ci"][1] and 0 < difference["p_value"] <= 1
    # ScoNe: the majority run scored 5 rows per condition, the baseline 10 -- differences use the 30 shared items
    scone = next(row for row in comparison["tasks"]["scone"]["rows"] if not row["baseline"])
    assert scone["items"] == 30 and scone["shared_items"] == 30
    assert scone["vs_baseline"]["accuracy.overall"]["units"] == 5
    assert [row["run"] for row in comparison["tasks"]["nubench"]["rows"]] == ["random"]
    markdown = compare_markdown(comparison)
    assert "## tind" in markdown and "(baseline)" in markdown
    assert f"majority − random ({other['items']} shared items)" in markdown
    assert "p=" in markdown and "[" in markdown
    assert "| AUC p(True) | " in markdown and " 0.500 [" in markdown  # AUCs with 3 decimals, percentages with 2


def test_identical_runs_differ_by_nothing(runs):
    comparison = compare([runs["random"], runs["random-again"]], options=OPTIONS, suites=suite_view)
    assert comparison["baseline"].endswith("/random") and comparison["baseline"] != "again/random"
    for task in comparison["tasks"].values():
        row = next(row for row in task["rows"] if not row["baseline"])
        for entry in row["vs_baseline"].values():
            assert entry["difference"] == 0 and entry["p_value"] == 1.0 and not entry["significant"]


def test_names_are_made_unique_with_parent_folders(tmp_path):
    assert run_names([tmp_path / "a" / "run", tmp_path / "b" / "run"]) == ["a/run", "b/run"]
    assert run_names([tmp_path / "x", tmp_path / "y"]) == ["x", "y"]


def test_cli_prints_and_writes_every_format(runs, tmp_path, capsys):
    out = tmp_path / "cmp"
    assert (
        main(
            [
                "compare",
                str(runs["random"]),
                str(runs["majority"]),
                "--tasks",
                "nan-nli,scone",
                "--bootstrap",
                "200",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert printed.startswith("# negkit comparison") and "## nan-nli" in printed and "## tind" not in printed
    assert (out / "compare.md").read_text() == printed
    assert json.loads((out / "compare.json").read_text())["settings"]["resamples"] == 200
    assert "<svg" in (out / "compare.html").read_text()
    assert main(["compare", str(runs["random"]), "--json", "--tasks", "scone", "--bootstrap", "100"]) == 0
    assert list(json.loads(capsys.readouterr().out)["tasks"]) == ["scone"]


def _copy_results_without_samples_record(results: Path, folder: Path) -> None:
    """A results file as negkit wrote it before it recorded its samples file's size and hash (so that a samples
    file edited by a test is read, not refused as edited)."""
    record = json.loads(results.read_text())
    record.pop("samples", None)
    (folder / results.name).write_text(json.dumps(record))


def test_errors_name_the_problem(runs, tmp_path, capsys):
    with pytest.raises(NegkitError, match="not a run folder"):
        compare([tmp_path / "missing"], suites=suite_view)
    (tmp_path / "empty").mkdir()
    with pytest.raises(NegkitError, match="no TASK.results.json files"):
        compare([tmp_path / "empty"], suites=suite_view)
    with pytest.raises(NegkitError, match="--tasks names tasks no run has: condaqa"):
        compare([runs["random"]], options=CompareOptions(resamples=10, tasks=("condaqa",)), suites=suite_view)
    broken = tmp_path / "broken"
    broken.mkdir()
    _copy_results_without_samples_record(runs["random"] / "scone.results.json", broken)  # else its hash check fires
    lines = (runs["random"] / "scone.samples.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    del record["gold"]
    (broken / "scone.samples.jsonl").write_text("\n".join([lines[0], json.dumps(record), *lines[2:]]) + "\n")
    with pytest.raises(InputFormatError, match="scone.samples.jsonl:2: sample record lacks 'gold'"):
        compare([broken], suites=suite_view)
    assert main(["compare", str(tmp_path / "empty")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("negkit: error:")


def test_old_nan_nli_samples_without_premises_drop_strict(runs, tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    _copy_results_without_samples_record(runs["random"] / "nan-nli.results.json", old)  # as an older run wrote it
    records = [json.loads(line) for line in (runs["random"] / "nan-nli.samples.jsonl").read_text().splitlines()]
    (old / "nan-nli.samples.jsonl").write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "premise_id"}) + "\n" for r in records)
    )
    task = compare([old], options=OPTIONS, suites=suite_view)["tasks"]["nan-nli"]
    assert [m["path"] for m in task["metrics"]] == [
        "standard.all_f1",
        "standard.accuracy",
        "binary.all_f1",
        "binary.accuracy",
    ]
