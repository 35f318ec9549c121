"""``negkit eval`` over the suites: default task selection, --list, and one combined report (tiny random model)."""

from __future__ import annotations

import json

import pytest
from conftest import NUBENCH_FIXTURE

from negkit.cli import main
from negkit.commands.status import default_suites, default_tasks, suite_status

FIXTURE = NUBENCH_FIXTURE


def test_default_tasks_follow_the_data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./data and no ../shared/data from here
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    assert default_tasks(FIXTURE) == ["nubench"]
    status = {s.suite: s for s in suite_status(tmp_path)}
    assert status["thunder-nubench"].location is None
    assert status["thunder-nubench"].hint == "negkit data get thunder-nubench"
    assert default_tasks(FIXTURE, classifier=True) == []


def test_list_names_suites_and_hints(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    assert main(["eval", "--list", "--data", str(FIXTURE)]) == 0
    out = capsys.readouterr().out
    assert f"thunder-nubench\t[nubench]\tdata: {FIXTURE}" in out
    assert "nan-nli\t[nan-nli]\tdata not found; get it:" in out


def test_eval_without_tasks_writes_one_report(tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch")
    from tiny_models import save_tiny_causal

    model = save_tiny_causal(tmp_path / "model", chat_template=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    out = tmp_path / "run"
    status = main(
        [
            "eval",
            "--model",
            f"hf:{model}",
            "--data",
            str(FIXTURE),
            "--limit",
            "3",
            "--num-fewshot",
            "2",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert status == 0
    report = (out / "report.md").read_text()
    assert "Thunder-NUBench multiple choice — prompt 7, 2-shot, 3 items" in report
    combined = json.loads((out / "results.json").read_text())
    results = combined["tasks"]
    assert [result["task"]["task"] for result in results] == ["nubench"]
    assert results[0]["task"]["seeds"] == [42, 1234, 3000, 5000, 7000]
    # every other suite is said, not silently left out
    # a guard asked for by name only (blimp-guard) is not a default suite left out for want of data
    assert set(combined["skipped"]) == default_suites() - {"thunder-nubench"}
    assert "blimp-guard" not in combined["skipped"]
    assert {"tind", "nan-nli", "scone", "condaqa", "negnli", "blimp-negation", "neqa"} <= set(combined["skipped"])
    samples = (out / "nubench.samples.jsonl").read_text().splitlines()
    assert len(samples) == 3 and set(json.loads(samples[0])["runs"]) == {
        "seed-42",
        "seed-1234",
        "seed-3000",
        "seed-5000",
        "seed-7000",
    }
