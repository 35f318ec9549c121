"""The benchmark scripts that write decrypted TIND sentences under ``--work`` refuse a folder inside a git working
tree before writing anything, as ``negkit tind convert`` does (negkit.io.privacy.refuse_inside_git)."""

from __future__ import annotations

import importlib.util

import pytest
from conftest import REPO_ROOT

BENCHMARKS = REPO_ROOT / "perf"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(f"negkit_bench_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("bench_tind_vs_harness", ["--harness-python", "python"]),
        ("bench_export_lm_eval", ["--tasks", "tind,scone"]),
    ],
)
def test_work_inside_a_git_working_tree_is_refused(name, argv, tmp_path, capsys):
    repository = tmp_path / "checkout"
    (repository / ".git").mkdir(parents=True)
    work = repository / "runs" / "bench"
    assert _script(name).main([*argv, "--work", str(work)]) == 2
    error = capsys.readouterr().err
    assert f"{name}: error: {work}: inside the git working tree {repository}" in error and "--allow-in-git" in error
    assert not (repository / "runs").exists()  # nothing was written


def test_export_benchmark_without_tind_is_not_refused(tmp_path, monkeypatch):
    """Without TIND nothing private is written, so the check does not apply (the run then needs the Harness: the
    script is stopped at its first step here)."""
    repository = tmp_path / "checkout"
    (repository / ".git").mkdir(parents=True)
    module = _script("bench_export_lm_eval")

    def stop(spec):
        raise RuntimeError("stopped after the check")

    monkeypatch.setattr(module, "model_folder", stop)
    with pytest.raises(RuntimeError, match="stopped after the check"):
        module.main(["--tasks", "scone", "--work", str(repository / "w")])
