"""Issue 32: what negkit checks across runs and run files -- each test reproduces one finding as it was reported
(on the random/constant pseudo-models and the documented toy suite) and checks the guard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO_ROOT, shared_data_path

from negkit.cli import main
from negkit.errors import NegkitError
from negkit.kit.suites import DataSource, register_suite, unregister_suite
from negkit.kit.suites.kinds import declared_suite
from negkit.kit.tasks.choice import ChoiceQuestion, MultipleChoice

TOY_SUITE = REPO_ROOT / "docs" / "examples" / "toy_suite.py"
QUESTIONS = [
    {"id": f"q{n}", "question": f"Is {n} not even?", "answers": ["yes", "no"], "gold": n % 2} for n in range(8)
]


def write_questions(folder: Path, questions: list[dict] = QUESTIONS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return folder


def _reader(folder: Path, split: str = "test") -> list[ChoiceQuestion]:
    rows = [json.loads(line) for line in (folder / "questions.jsonl").read_text().splitlines()]
    return [ChoiceQuestion(r["id"], r["question"], tuple(r["answers"]), r["gold"]) for r in rows]


@pytest.fixture()
def versioned_suites():
    """Two suites whose task names differ only after a dot (``toy.v1``, ``toy.v2``), unregistered afterwards."""
    names = ["toy.v1", "toy.v2"]
    for name in names:
        spec = MultipleChoice(name, _reader, lambda folder, split: [folder / "questions.jsonl"], dataset="toy")
        register_suite(declared_suite(spec, DataSource("toy", "hand-written"), description=name, reader=_reader))
    yield names
    for name in names:
        unregister_suite(name)


def test_task_names_with_a_dot_keep_files_of_their_own(versioned_suites, tmp_path):
    """Finding 9: ``toy.v1`` and ``toy.v2`` both wrote ``toy.results.json`` (``Path.with_suffix``)."""
    data = write_questions(tmp_path / "data" / "toy").parent
    out = tmp_path / "run"
    assert (
        main(
            [
                "eval",
                "--model",
                "random",
                "--tasks",
                "toy.v1,toy.v2",
                "--data",
                str(data),
                "--out",
                str(out),
                "--no-progress",
                "--bootstrap",
                "0",
            ]
        )
        == 0
    )
    for name in versioned_suites:
        result = json.loads((out / f"{name}.results.json").read_text())
        assert result["task"]["task"] == name and (out / f"{name}.samples.jsonl").is_file()
    assert not (out / "toy.results.json").exists()


def test_a_task_name_that_cannot_name_a_file_is_refused():
    spec = MultipleChoice("../escape", _reader, lambda folder, split: [], dataset="toy")
    with pytest.raises(NegkitError, match="cannot name a run file"):
        register_suite(declared_suite(spec, DataSource("toy", "hand-written"), description="bad", reader=_reader))
    unregister_suite("../escape")


def test_repeated_item_ids_are_refused_by_the_choice_task(tmp_path, capsys):
    """Finding 9: item ids were not checked for uniqueness in the generic choice task."""
    data = tmp_path / "data"
    write_questions(data / "toy-negation", QUESTIONS + [QUESTIONS[3]])
    code = _toy_eval("random", data, tmp_path / "run")
    assert code == 2
    error = capsys.readouterr().err
    assert "item id 'q3' occurs more than once" in error and "Traceback" not in error


def _toy_argv(model: str, data: Path, out: Path, *extra: str) -> list[str]:
    """The command line of an eval of the documented toy suite (``--include``) on ``data``."""
    return [
        "eval",
        "--include",
        str(TOY_SUITE),
        "--model",
        model,
        "--tasks",
        "toy-negation",
        "--data",
        str(data),
        "--out",
        str(out),
        "--no-progress",
        *extra,
    ]


def _toy_eval(model: str, data: Path, out: Path, *extra: str) -> int:
    """The exit status of :func:`_toy_argv`'s eval; the toy suite is unregistered after."""
    try:
        return main(_toy_argv(model, data, out, *extra))
    finally:
        unregister_suite("toy-negation")


def _toy_run(tmp_path: Path, model: str, out: Path, questions: list[dict] = QUESTIONS) -> Path:
    """A run of the documented toy suite (``--include``) by a pseudo-model; the suite is unregistered after."""
    data = tmp_path / "toy-data"
    write_questions(data / "toy-negation", questions)
    assert _toy_eval(model, data, out, "--bootstrap", "20") == 0
    return out


def test_a_dollar_in_run_names_draws_as_written(tmp_path, capsys):
    """Finding 10: a ``$`` in a folder or model name crashed compare (matplotlib read it as a formula)."""
    pytest.importorskip("matplotlib", reason="the figures need matplotlib (negkit[report])")
    first = _toy_run(tmp_path, "random", tmp_path / "price$5")
    second = _toy_run(tmp_path, "constant:yes", tmp_path / "$x$")
    out = tmp_path / "compared"
    try:
        code = main(
            ["compare", str(first), str(second), "--include", str(TOY_SUITE), "--out", str(out), "--bootstrap", "20"]
        )
    finally:
        unregister_suite("toy-negation")
    assert code == 0, capsys.readouterr().err
    assert (out / "compare.html").is_file() and "price$5" in (out / "compare.md").read_text()


def test_leaderboard_links_are_url_encoded(tmp_path):
    """Finding 11: run folder names were HTML-escaped but not URL-encoded in links (``javascript:alert(1)``)."""
    from negkit.leaderboard.pages import model_html, url_path

    assert url_path("../../javascript:alert(1)/report.html") == "../../javascript%3Aalert%281%29/report.html"
    assert url_path("../runs/a#b?c%d/report.html") == "../runs/a%23b%3Fc%25d/report.html"
    data = {
        "models": [{"name": "m", "model": ["random"], "commands": []}],
        "columns": [],
        "cells": {"m": {}},
        "metrics": {"m": {}},
    }
    html = model_html(data, "m", [("javascript:alert(1)", "javascript:alert(1)/report.html")])
    assert 'href="javascript:' not in html and "javascript%3Aalert%281%29/report.html" in html


def test_a_lone_surrogate_escape_in_a_data_file_is_a_one_line_error(tmp_path):
    """Finding 13: a lone ``\\ud800`` escape in a JSON Lines data file gave a traceback later on."""
    from negkit.errors import InputFormatError
    from negkit.io.textfiles import iter_jsonl

    path = tmp_path / "data.jsonl"
    path.write_text('{"sentence": "fine \\ud83d\\ude00"}\n{"sentence": "cut \\ud800 here"}\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"data.jsonl:2: .*\\ud800 is half of a UTF-16 surrogate pair"):
        list(iter_jsonl(path))


def test_report_on_a_results_file_whose_task_name_is_not_a_string(tmp_path, capsys):
    """Finding 13: ``negkit report`` on a results file whose ``task.task`` is not a string was a traceback."""
    run = _toy_run(tmp_path, "random", tmp_path / "run")
    results = run / "toy-negation.results.json"
    record = json.loads(results.read_text())
    record["task"]["task"] = ["not", "a", "name"]
    results.write_text(json.dumps(record))
    try:
        code = main(["report", str(run), "--include", str(TOY_SUITE)])
    finally:
        unregister_suite("toy-negation")
    error = capsys.readouterr().err
    assert code == 2 and "task.task" in error and "Traceback" not in error


def test_an_included_file_runs_only_for_commands_that_take_it(tmp_path, capsys):
    """Finding 16: ``--include`` executed the file on every command, before the command line was read."""
    marker = tmp_path / "executed"
    suite = tmp_path / "suite.py"
    marking = f"\nfrom pathlib import Path\n\nPath({str(marker)!r}).write_text('ran')\n"
    suite.write_text(TOY_SUITE.read_text(encoding="utf-8") + marking)
    try:
        # a command that does not take --include, and a misspelt command: nothing is executed
        assert main(["resolution", "stats", "--include", str(suite)]) == 2
        assert main(["evaluate", "--include", str(suite), "--list"]) == 2
        assert not marker.exists()
        capsys.readouterr()
        assert main(["eval", "--include", str(suite), "--list"]) == 0
        assert marker.exists() and "toy-negation" in capsys.readouterr().out
    finally:
        unregister_suite("toy-negation")


@pytest.mark.parametrize("damage", ["cut-short", "duplicated-lines", "duplicated-without-a-record"])
@pytest.mark.parametrize("command", ["compare", "leaderboard"])
def test_compare_and_leaderboard_check_samples_against_results(damage, command, tmp_path, capsys):
    """Finding 2: compare and leaderboard used a cut-short samples file silently and counted duplicated ids."""
    run = _toy_run(tmp_path, "random", tmp_path / "run")
    samples, results = run / "toy-negation.samples.jsonl", run / "toy-negation.results.json"
    lines = samples.read_text().splitlines(keepends=True)
    if damage == "cut-short":
        samples.write_text("".join(lines[:4]))
        expected = "samples.jsonl"
    else:
        samples.write_text("".join(lines + lines[:2]))
        expected = "but toy-negation.results.json records 8 lines"  # the size check sees it first
        if damage == "duplicated-without-a-record":  # a results file without the samples' size and hash
            expected = f"toy-negation.samples.jsonl:{len(lines) + 1}: item 'q0' again (first on line 1)"
            record = json.loads(results.read_text())
            del record["samples"]
            results.write_text(json.dumps(record))
    argv = {
        "compare": ["compare", str(run)],
        "leaderboard": ["leaderboard", str(run), "--out", str(tmp_path / "site")],
    }[command]
    capsys.readouterr()
    try:
        code = main([*argv, "--include", str(TOY_SUITE), "--bootstrap", "20"])
    finally:
        unregister_suite("toy-negation")
    error = capsys.readouterr().err
    assert code == 2 and expected in error and "Traceback" not in error, error


def test_one_output_folder_holds_one_model(tmp_path, capsys):
    """Finding 4: ``eval --model B --out FOLDER_OF_MODEL_A`` added B's task without a word."""
    run = _toy_run(tmp_path, "random", tmp_path / "run")
    (run / "notes.txt").write_text("mine")
    data = tmp_path / "toy-data"
    argv = _toy_argv("constant:yes", data, run, "--bootstrap", "20")
    capsys.readouterr()
    try:
        assert main(argv) == 2
        error = capsys.readouterr().err
        assert "holds task toy-negation of model random" in error and "this run is model constant:yes" in error
        assert json.loads((run / "toy-negation.results.json").read_text())["model"]["name"] == "random"
        assert main([*argv, "--start-over"]) == 0  # the explicit way: the folder's run files go, other files stay
    finally:
        unregister_suite("toy-negation")
    assert json.loads((run / "toy-negation.results.json").read_text())["model"]["name"] == "constant:yes"
    assert (run / "notes.txt").read_text() == "mine"


def test_runs_on_different_data_are_not_paired_by_item_id(tmp_path, capsys):
    """Finding 3: runs on a file and on its rows reversed were paired by item id ("8 shared items")."""
    first = _toy_run(tmp_path / "a", "random", tmp_path / "first")
    second = _toy_run(tmp_path / "b", "random", tmp_path / "second", list(reversed(QUESTIONS)))
    capsys.readouterr()
    try:
        code = main(
            [
                "compare",
                str(first),
                str(second),
                "--baseline",
                str(first),
                "--include",
                str(TOY_SUITE),
                "--bootstrap",
                "20",
            ]
        )
        error = capsys.readouterr().err
        assert code == 2 and "task toy-negation: second read toy-negation/questions.jsonl with SHA-256" in error
        assert (
            main(
                [
                    "compare",
                    str(first),
                    str(second),
                    "--baseline",
                    str(first),
                    "--include",
                    str(TOY_SUITE),
                    "--bootstrap",
                    "20",
                    "--json",
                    "--allow-different-data",
                ]
            )
            == 0
        )
        rows = json.loads(capsys.readouterr().out)["tasks"]["toy-negation"]["rows"]
        other = next(row for row in rows if row["run"] == "second")
        assert "different data" in other["unpaired"] and "vs_baseline" not in other
        assert (
            main(
                [
                    "leaderboard",
                    str(first),
                    str(second),
                    "--out",
                    str(tmp_path / "site"),
                    "--include",
                    str(TOY_SUITE),
                    "--bootstrap",
                    "20",
                ]
            )
            == 2
        )
        assert "rank runs on the same data" in capsys.readouterr().err
    finally:
        unregister_suite("toy-negation")


@pytest.mark.parametrize("name", ["results.json", "report.md", "report.html"])
def test_eval_never_overwrites_a_file_it_did_not_write(name, tmp_path, capsys):
    """Finding 5: a user's report.md or results.json in --out was overwritten, and any .tmp-* file removed."""
    out = tmp_path / "run"
    out.mkdir()
    (out / name).write_text("my own notes\n")
    (out / ".tmp-draft.txt").write_text("mine too")
    data = tmp_path / "toy-data"
    write_questions(data / "toy-negation")
    code = _toy_eval("random", data, out)
    assert code == 2 and f"{out / name}: not written by negkit eval" in capsys.readouterr().err
    assert (out / name).read_text() == "my own notes\n" and (out / ".tmp-draft.txt").read_text() == "mine too"
    (out / name).unlink()
    _toy_run(tmp_path, "random", out)  # a folder holding only other files is fine, and they stay
    assert (out / ".tmp-draft.txt").read_text() == "mine too"


def test_the_folder_reports_cover_every_task_of_the_folder(versioned_suites, tmp_path):
    """Finding 12: results.json, report.md and report.html covered only the latest invocation in a folder."""
    data = write_questions(tmp_path / "data" / "toy").parent
    out = tmp_path / "run"
    for name in versioned_suites:  # one task per invocation, same model, same folder
        assert (
            main(
                [
                    "eval",
                    "--model",
                    "random",
                    "--tasks",
                    name,
                    "--data",
                    str(data),
                    "--out",
                    str(out),
                    "--no-progress",
                    "--bootstrap",
                    "0",
                ]
            )
            == 0
        )
    combined = json.loads((out / "results.json").read_text())
    assert sorted(combined["results"]) == ["toy.v1", "toy.v2"]
    report = (out / "report.md").read_text()
    assert "toy.v1" in report and "toy.v2" in report


def test_an_interrupted_run_of_another_model_is_not_in_the_timings(tmp_path):
    """Finding 15: the timing records of an interrupted run of another model were merged into the next run's."""
    out = tmp_path / "run"
    out.mkdir()
    killed = {"score_s": 99.0, "requests_done": 3, "interrupted": True, "model_key": "0123456789abcdef"}
    (out / "toy-negation.timings.json").write_text(json.dumps(killed))
    _toy_run(tmp_path, "random", out)
    runs = json.loads((out / "toy-negation.results.json").read_text())["timings"]["runs"]
    assert len(runs) == 1 and not runs[0].get("interrupted")
    # the same model's killed run is kept, marked interrupted
    key = json.loads((out / "toy-negation.results.json").read_text())["model"]["key"]
    (out / "toy-negation.timings.json").write_text(json.dumps({**killed, "model_key": key}))
    _toy_run(tmp_path, "random", out)
    runs = json.loads((out / "toy-negation.results.json").read_text())["timings"]["runs"]
    assert [bool(run.get("interrupted")) for run in runs] == [False, True, False]


@pytest.mark.parametrize("field, value", [("prediction", "Entailment"), ("gold", "NEUTRAL"), ("gold", "maybe")])
def test_labels_of_nli_samples_are_checked_when_runs_are_compared(field, value, tmp_path, capsys):
    """Finding 8: labels in another case in a samples file gave "binary accuracy 1.000 [1.000, 1.000]"."""
    data = shared_data_path("scone").parent
    out = tmp_path / "run"
    assert (
        main(
            [
                "eval",
                "--model",
                "random",
                "--tasks",
                "scone",
                "--limit",
                "6",
                "--data",
                str(data),
                "--out",
                str(out),
                "--no-progress",
                "--bootstrap",
                "0",
            ]
        )
        == 0
    )
    samples, results = out / "scone.samples.jsonl", out / "scone.results.json"
    lines = samples.read_text().splitlines()
    lines[1] = json.dumps({**json.loads(lines[1]), field: value})
    samples.write_text("\n".join(lines) + "\n")
    record = json.loads(results.read_text())
    del record["samples"]  # as an older run wrote it: the labels themselves are checked
    results.write_text(json.dumps(record))
    capsys.readouterr()
    assert main(["compare", str(out), "--bootstrap", "20"]) == 2
    error = capsys.readouterr().err
    assert "scone.samples.jsonl:2:" in error and repr(value) in error and "Traceback" not in error


def test_score_checks_the_gold_answers_of_a_samples_file_against_the_data(tmp_path, capsys):
    """Finding 6: ``negkit score`` ignored the gold labels inside a negkit samples file and scored it against
    whatever data it found (F1 0.349 instead of 0.343 on other data, without a warning)."""
    run = _toy_run(tmp_path, "random", tmp_path / "run")
    other = tmp_path / "other-data"
    flipped = [
        {**question, "gold": 1 - question["gold"]} if question["id"] == "q5" else question for question in QUESTIONS
    ]
    write_questions(other / "toy-negation", flipped)
    capsys.readouterr()
    try:
        code = main(
            [
                "score",
                "toy-negation",
                str(run / "toy-negation.samples.jsonl"),
                "--data",
                str(other),
                "--include",
                str(TOY_SUITE),
            ]
        )
        error = capsys.readouterr().err
        assert code == 2 and "toy-negation.samples.jsonl:6: item 'q5': the file's gold answer" in error
        assert (
            main(
                [
                    "score",
                    "toy-negation",
                    str(run / "toy-negation.samples.jsonl"),
                    "--data",
                    str(tmp_path / "toy-data"),
                    "--include",
                    str(TOY_SUITE),
                ]
            )
            == 0
        )  # the data it was made on
    finally:
        unregister_suite("toy-negation")
