"""The main job (scripts/main.sh) runs what ``negkit eval --list`` calls the default set: the main task of every
default suite whose data is found, never a guard asked for by name only (blimp-guard, heldout-text)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import shared_data_path

from negkit.cli import main

ROOT = Path(__file__).resolve().parents[2]


def main_job_command(*options: str) -> list[str]:
    """The ``negkit eval`` command line scripts/main.sh runs (its --print-command)."""
    if shutil.which("bash") is None:
        pytest.skip("bash not found")
    printed = subprocess.run(
        ["bash", str(ROOT / "scripts" / "main.sh"), "--print-command", *options],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return shlex.split(printed)


def listed_default_tasks(capsys) -> list[str]:
    """The main tasks of ``negkit eval --list``'s first section (the suites run without --tasks) whose data is found."""
    capsys.readouterr()
    assert main(["eval", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("Suites (run by `negkit eval` without --tasks when their data is found):") + 1
    tasks = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        _suite, task, where = line.strip().split("\t")
        if where.startswith("data: "):
            tasks.append(task.strip("[]"))
    return tasks


def test_the_main_job_runs_the_default_set_and_no_guard(tmp_path, monkeypatch, capsys):
    data = shared_data_path()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEGKIT_DATA", str(data))
    chosen: list[list[str]] = []

    def record_tasks(model, tasks, options):
        chosen.append(list(tasks))
        return []

    monkeypatch.setattr("negkit.cli.evaluate.evaluate", record_tasks)
    command = main_job_command()
    assert command[:2] == ["negkit", "eval"] and "--tasks" not in command
    assert main(command[1:]) == 0
    default = listed_default_tasks(capsys)
    assert chosen == [default]
    assert "blimp-guard" not in default and "heldout-text" not in default
    assert "blimp-negation" in default and "scone" in default
    # every per-task limit names a task the job runs (a misspelt one would run that task in full)
    limits = command[command.index("--limit") + 1]
    assert {entry.split("=")[0] for entry in limits.split(",")} <= set(default)
    # --full drops the limits only: the same tasks
    full = main_job_command("--full")
    assert "--limit" not in full and main(full[1:]) == 0 and chosen[-1] == default


def test_list_names_the_guards_apart(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NEGKIT_DATA", raising=False)
    assert main(["eval", "--list"]) == 0
    out = capsys.readouterr().out
    by_name = out.split("Suites asked for by name only")[1].split("Groups of suites")[0]
    assert "blimp-guard\t[blimp-guard]" in by_name and "heldout-text\t[heldout-text]" in by_name
