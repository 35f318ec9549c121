"""Validation before work: every task's data, split, flags and the model spec are checked before the model loads."""

from __future__ import annotations

import time

import pytest

import negkit.models.registry as registry
from negkit.cli import main
from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.commands.eval.preflight import RUN_CHECKS, TASK_CHECKS, prepare_run
from negkit.errors import NegkitError


@pytest.fixture
def no_model_load(monkeypatch):
    """Fail the test if anything tries to load a model."""

    def refuse(*_args, **_kwargs):
        raise AssertionError("the model was loaded before the run was validated")

    monkeypatch.setattr(registry, "load_model", refuse)


def _error(argv, capsys) -> str:
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 2 and captured.out == "", captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("negkit: error: "), lines
    assert "Traceback" not in captured.err
    return lines[0]


def test_missing_second_suite_fails_before_the_first_runs(shared_data, no_model_load, tmp_path):
    with pytest.raises(NegkitError, match="Thunder-NUBench not found in"):
        evaluate(
            "default", ["scone", "nubench"], EvalOptions(data=str(shared_data), out=tmp_path / "o", progress=False)
        )
    assert not (tmp_path / "o").exists()  # nothing was started


def test_unknown_split_fails_before_the_model_loads(shared_data, no_model_load, tmp_path, capsys):
    line = _error(
        ["eval", "--tasks", "nan-nli", "--split", "dev", "--data", str(shared_data), "--out", str(tmp_path / "o")],
        capsys,
    )
    assert "task nan-nli has no split 'dev' (its splits: test)" in line
    line = _error(["eval", "--tasks", "scone", "--split", "validation", "--data", str(shared_data)], capsys)
    assert "task scone has no split 'validation'" in line


def test_tind_split_aliases_are_accepted(shared_data, no_model_load):
    plan = prepare_run("default", ["tind"], EvalOptions(data=str(shared_data), split="dev", limit=30))
    assert plan.tasks[0].data.selection["split"] == "dev" and plan.tasks[0].data.items


@pytest.mark.parametrize("tasks", [",", "", " , ", "tind,,scone"])
def test_empty_task_lists_are_errors(tasks, no_model_load, capsys):
    line = _error(["eval", "--tasks", tasks], capsys)
    assert "--tasks" in line


def test_task_named_twice_is_an_error(no_model_load, capsys):
    assert "task named twice in --tasks: scone" in _error(["eval", "--tasks", "scone,scone"], capsys)


def test_missing_data_path_is_an_error_not_a_fallback(no_model_load, tmp_path, capsys):
    missing = tmp_path / "nowhere"
    line = _error(["eval", "--tasks", "nan-nli", "--data", str(missing)], capsys)
    assert line == f"negkit: error: {missing}: no such file or folder (--data)"
    line = _error(["eval", "--data", str(missing)], capsys)  # default tasks too
    assert f"{missing}: no such file or folder" in line
    (tmp_path / "empty").mkdir()
    line = _error(["eval", "--tasks", "nan-nli", "--data", str(tmp_path / "empty")], capsys)
    assert "data set 'nan-nli' not found in" in line


def test_missing_model_path_is_a_missing_path(shared_data, tmp_path, capsys):
    for spec in (f"hf:{tmp_path}/absent", "./absent-model", "~/absent-model-folder", "nli:models/x/y", "hf:x.gguf"):
        line = _error(["eval", "--model", spec, "--tasks", "nan-nli", "--data", str(shared_data)], capsys)
        assert "no such model folder" in line and "hub" not in line, line


def test_hub_name_fails_fast_offline(shared_data, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    started = time.monotonic()
    line = _error(
        ["eval", "--model", "hf:some-org/some-model", "--tasks", "nan-nli", "--data", str(shared_data)], capsys
    )
    assert time.monotonic() - started < 10
    assert (
        "'some-org/some-model' is not a local path and the Hugging Face hub cannot be used (HF_HUB_OFFLINE is set)"
        in line
    )


def test_hub_name_fails_fast_without_network(shared_data, monkeypatch, capsys):
    import negkit.io.hub as hub

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(hub, "_probe_result", None)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens on the discard port
    line = _error(["eval", "--model", "some-org/some-model", "--tasks", "nan-nli", "--data", str(shared_data)], capsys)
    assert "http://127.0.0.1:9 cannot be reached" in line
    monkeypatch.setattr(hub, "_probe_result", None)


def test_wrong_model_kind_fails_before_loading(shared_data, tmp_path, capsys):
    from tiny_models import save_tiny_causal

    folder = save_tiny_causal(tmp_path / "m")
    capsys.readouterr()
    line = _error(["eval", "--model", f"nli:{folder}", "--tasks", "tind", "--data", str(shared_data)], capsys)
    assert "task tind needs a language model" in line


@pytest.mark.parametrize("out_kind", ["file", "under-file", "dev-null"])
def test_out_that_cannot_be_a_folder(out_kind, shared_data, no_model_load, tmp_path, capsys):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    out = {"file": blocker, "under-file": blocker / "run", "dev-null": "/dev/null"}[out_kind]
    line = _error(["eval", "--tasks", "nan-nli", "--data", str(shared_data), "--out", str(out)], capsys)
    assert str(out if out_kind != "under-file" else out) in line and "folder" in line


def test_checks_are_extensible(shared_data, no_model_load, monkeypatch):
    calls = []
    monkeypatch.setattr("negkit.commands.eval.preflight.RUN_CHECKS", RUN_CHECKS + [lambda request: calls.append("run")])

    def refuse_prompt(request, name, task):
        raise NegkitError(f"--prompt does not apply to task {name}")

    monkeypatch.setattr("negkit.commands.eval.preflight.TASK_CHECKS", TASK_CHECKS + [refuse_prompt])
    with pytest.raises(NegkitError, match="--prompt does not apply to task nan-nli"):
        prepare_run("default", ["nan-nli"], EvalOptions(data=str(shared_data)))
    assert calls == ["run"]


def test_list_with_a_missing_data_path(tmp_path, capsys):
    assert _error(["eval", "--list", "--data", str(tmp_path / "nowhere")], capsys).endswith(
        "no such file or folder (--data)"
    )


def test_name_under_a_local_folder_is_a_missing_path(shared_data, tmp_path, monkeypatch, capsys):
    (tmp_path / "runs").mkdir()
    monkeypatch.chdir(tmp_path)
    line = _error(["eval", "--model", "hf:runs/model", "--tasks", "nan-nli", "--data", str(shared_data)], capsys)
    assert line == "negkit: error: runs/model: no such model folder"
