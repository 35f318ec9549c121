"""Suites from a user's file: ``--include PATH`` through eval (random baseline and the tiny model), score,
report (Markdown and HTML), compare and export lm-eval; docs/examples/toy_suite.py (shown in docs/suites.md) is
the file; bad include files; suites of installed packages (a temporary dist-info with a ``negkit.suites`` entry
point)."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from conftest import REPO_ROOT

from negkit.cli import main
from negkit.errors import NegkitError
from negkit.kit.suites import get_suite, get_task, registered_tasks, unregister_suite
from negkit.kit.suites.include import include_suites, load_plugins

EXAMPLE = REPO_ROOT / "docs" / "examples" / "toy_suite.py"
QUESTIONS = [
    {"id": "q1", "question": "The cup is not full. Is the cup full?", "answers": ["yes", "no"], "gold": 1},
    {"id": "q2", "question": "No bird sang. Did a bird sing?", "answers": ["yes", "no"], "gold": 1},
    {"id": "q3", "question": "The door is open. Is the door open?", "answers": ["yes", "no"], "gold": 0},
    {"id": "q4", "question": "Nobody is absent. Is anyone absent?", "answers": ["yes", "no"], "gold": 1},
    {"id": "q5", "question": "It is not untrue. Is it true?", "answers": ["yes", "no"], "gold": 0},
    {"id": "q6", "question": "The shop never closes. Does the shop close?", "answers": ["yes", "no"], "gold": 1},
]


@pytest.fixture()
def toy(tmp_path):
    """The documented toy suite copied into a temporary folder, with its data; unregistered afterwards."""
    suites = tmp_path / "suites"
    suites.mkdir()
    shutil.copy(EXAMPLE, suites / "toy_suite.py")
    data = tmp_path / "data"
    (data / "toy-negation").mkdir(parents=True)
    (data / "toy-negation" / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    yield suites, data
    unregister_suite("toy-negation")


def test_the_documented_example_is_about_forty_lines_and_included_by_the_docs():
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 40
    docs = (EXAMPLE.parents[1] / "suites.md").read_text(encoding="utf-8")
    assert "docs/examples/toy_suite.py" in docs and EXAMPLE.read_text(encoding="utf-8") in docs


def test_eval_score_report_compare_export_through_include(toy, tmp_path, tiny_model_folder, capsys):
    suites, data = toy
    include = ["--include", str(suites)]
    random_run, tiny_run = tmp_path / "random", tmp_path / "tiny"
    assert (
        main(
            [
                "eval",
                *include,
                "--model",
                "random",
                "--tasks",
                "toy-negation",
                "--data",
                str(data),
                "--out",
                str(random_run),
                "--no-progress",
                "--bootstrap",
                "50",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "eval",
                *include,
                "--model",
                f"hf:{tiny_model_folder}",
                "--tasks",
                "toy-negation",
                "--data",
                str(data),
                "--out",
                str(tiny_run),
                "--no-progress",
                "--bootstrap",
                "50",
            ]
        )
        == 0
    )
    capsys.readouterr()
    for run in (random_run, tiny_run):
        result = json.loads((run / "toy-negation.results.json").read_text())
        assert result["metrics"]["count"] == 6 and "acc" in result["metrics"]["intervals"]
        assert (run / "toy-negation.samples.jsonl").is_file() and "### Toy negation questions" in (
            run / "report.md"
        ).read_text()
        assert "toy-negation" in (run / "report.html").read_text()

    # score: negkit eval's own samples file, and a hand-written predictions file
    assert (
        main(
            [
                "score",
                "toy-negation",
                str(tiny_run / "toy-negation.samples.jsonl"),
                "--json",
                "--data",
                str(data),
                *include,
            ]
        )
        == 0
    )
    scored = json.loads(capsys.readouterr().out)
    evaluated = json.loads((tiny_run / "toy-negation.results.json").read_text())["metrics"]
    assert scored["acc"] == evaluated["acc"] and scored["data_count"] == 6
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"item_id": q["id"], "prediction": "no"}) + "\n" for q in QUESTIONS))
    assert main(["score", "toy-negation", str(predictions), "--json", "--data", str(data), *include]) == 0
    assert json.loads(capsys.readouterr().out)["acc"] == 4 / 6

    # report: the run folder's HTML page again, with the toy suite's figure
    (random_run / "report.html").unlink()
    assert main(["report", str(random_run), *include]) == 0
    page = (random_run / "report.html").read_text()
    assert "<h2>toy-negation</h2>" in page
    capsys.readouterr()

    # compare: the two runs, paired on the six questions
    assert (
        main(
            [
                "compare",
                str(tiny_run),
                str(random_run),
                "--baseline",
                str(random_run),
                "--json",
                "--bootstrap",
                "50",
                *include,
            ]
        )
        == 0
    )
    comparison = json.loads(capsys.readouterr().out)
    task = comparison["tasks"]["toy-negation"]
    assert task["primary"] == "acc" and task["suite"] == "toy-negation" and len(task["rows"]) == 2

    # export lm-eval: the questions, a YAML file and a loader in utils.py
    out = tmp_path / "harness"
    assert main(["export", "lm-eval", "--tasks", "toy-negation", "--data", str(data), "--out", str(out), *include]) == 0
    assert (out / "negkit_toy_negation.yaml").is_file()
    assert "def load_toy_negation(" in (out / "utils.py").read_text()
    docs = [json.loads(line) for line in (out / "negkit_toy_negation.test.jsonl").read_text().splitlines()]
    assert [doc["gold"] for doc in docs] == [q["gold"] for q in QUESTIONS]


def test_include_loads_once_and_registers_the_tasks(toy):
    suites, _ = toy
    first = include_suites([suites / "toy_suite.py"])
    assert [suite.name for suite in first] == ["toy-negation"] and "toy-negation" in registered_tasks()
    assert include_suites([suites]) == first  # the same file again: nothing new
    assert get_task("toy-negation").name == "toy-negation" and get_suite("toy-negation") is first[0]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("def broken(:\n", "bad.py:1: syntax error"),
        ("import negkit\n\nraise RuntimeError('no data here')\n", "bad.py:3: RuntimeError: no data here"),
        ("X = 1\n", "bad.py: registers no suite"),
    ],
)
def test_bad_include_files_are_one_line_naming_the_file(tmp_path, capsys, text, problem):
    bad = tmp_path / "bad.py"
    bad.write_text(text)
    assert main(["eval", "--include", str(bad), "--list"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and problem in captured.err and captured.err.count("\n") == 1


def test_include_of_a_missing_path_or_another_kind_of_file(tmp_path, capsys):
    assert main(["eval", "--include", str(tmp_path / "absent.py"), "--list"]) == 2
    assert "absent.py: no such file or folder (--include)" in capsys.readouterr().err
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(NegkitError, match="not a Python file"):
        include_suites([tmp_path / "notes.txt"])


def test_unknown_suite_names_the_closest():
    with pytest.raises(NegkitError, match="did you mean scone"):
        get_suite("scome")


def test_a_suite_of_an_installed_package(tmp_path, monkeypatch):
    package = tmp_path / "site"
    package.mkdir()
    (package / "negkit_toy_plugin.py").write_text(EXAMPLE.read_text().replace('"toy-negation"', '"toy-plugin"'))
    info = package / "negkit_toy_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: negkit-toy-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[negkit.suites]\ntoy-plugin = negkit_toy_plugin\n")
    monkeypatch.syspath_prepend(str(package))
    try:
        assert load_plugins() == ["toy-plugin"]
        assert get_suite("toy-plugin").main_task == "toy-plugin"
    finally:
        unregister_suite("toy-plugin")
        sys.modules.pop("negkit_toy_plugin", None)
