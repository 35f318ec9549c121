"""negkit's base install (no extras) in a fresh virtual environment: the wheel built from this checkout installs,
and ``negkit --help``, ``--version``, ``eval --list``, ``data --help`` and a baseline evaluation work without torch or
transformers. No network: the wheel is built with the running interpreter's setuptools (no build isolation), it is
installed into the fresh environment by this environment's pip (``pip --python``; the fresh one has no pip of its own),
and the base dependencies (numpy, tqdm, pydantic) are linked in from the running environment rather than downloaded."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import shared_data_path

import negkit

ROOT = Path(__file__).resolve().parents[2]
# numpy, tqdm, pydantic and what pydantic needs (pooch is imported only by ``negkit data get``)
BASE_DEPENDENCIES = (
    "numpy",
    "tqdm",
    "pydantic",
    "pydantic_core",
    "annotated_types",
    "typing_extensions",
    "typing_inspection",
)


def run(command: list[str], **options) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **options)
    assert result.returncode == 0, (
        f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    )
    return result


def setuptools_for_the_build() -> None:
    """The build backend pyproject.toml asks for (license-files needs setuptools 77), or a skip naming it."""
    try:
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("setuptools is not installed (the wheel is built without build isolation, so without network)")
    if int(version.split(".")[0]) < 77:
        pytest.skip(f"setuptools {version} is older than 77 (pyproject.toml's build requirement)")


def build_wheel(tmp_path: Path) -> Path:
    """A wheel of a clean copy of the checkout (the checkout itself gets no build/ folder)."""
    setuptools_for_the_build()
    source = tmp_path / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    shutil.copytree(ROOT / "src", source / "src", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, source / name)
    wheels = tmp_path / "wheels"
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(source),
        ]
    )
    (wheel,) = wheels.glob("negkit-*.whl")
    return wheel


def fresh_venv(folder: Path) -> Path:
    """A new virtual environment (no pip: this environment's installs into it) with the base dependencies linked
    from this environment."""
    try:
        import venv  # noqa: F401
    except ImportError as missing:
        pytest.skip(f"Python's venv is not available ({missing}; Debian: python3-venv)")
    run([sys.executable, "-m", "venv", "--without-pip", str(folder)])
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    for name in BASE_DEPENDENCIES:
        distribution = importlib.metadata.distribution(name)
        tops = {Path(str(file)).parts[0] for file in distribution.files or () if not str(file).startswith("..")}
        for top in tops:
            target = Path(distribution.locate_file(top))
            if target.exists() and not (site / top).exists():
                (site / top).symlink_to(target)
    return python


def test_the_base_install_runs_without_torch(tmp_path):
    data = shared_data_path()
    shared_data_path("scone")
    wheel = build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(name for name in names if name.endswith(".dist-info/METADATA"))).decode()
    assert f"Version: {negkit.__version__}" in metadata and "License-Expression: Apache-2.0" in metadata
    if (ROOT / "LICENSE").exists():
        assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), names[-10:]
    assert "negkit/benchmarks/tind/__init__.py" in names
    # a benchmark's data declaration and BibTeX beside its module (package data, read when the suite registers)
    assert {"negkit/benchmarks/semantoneg_files.json", "negkit/benchmarks/semantoneg.bib"} <= set(names)

    python = fresh_venv(tmp_path / "venv")
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)])
    missing = run(
        [
            str(python),
            "-c",
            "import importlib.util as u; print([m for m in ('torch', 'transformers') if u.find_spec(m)])",
        ]
    )
    assert missing.stdout.strip() == "[]", "the fresh environment should have neither torch nor transformers"
    negkit_command = python.parent / ("negkit.exe" if os.name == "nt" else "negkit")
    work = tmp_path / "work"
    work.mkdir()
    environment = {**os.environ, "NEGKIT_DATA": str(data)}
    environment.pop("PYTHONPATH", None)  # the installed negkit, not this checkout's

    def negkit_cli(*arguments: str) -> str:
        return run([str(negkit_command), *arguments], cwd=work, env=environment).stdout

    assert "evaluate a model" in negkit_cli("--help")
    assert negkit_cli("--version").strip() == f"negkit {negkit.__version__}"
    listing = negkit_cli("eval", "--list")
    assert "scone\t[scone]\tdata: " in listing
    assert "@inproceedings{vahtola2022," in negkit_cli("cite", "semantoneg")
    data_help = negkit_cli("data", "--help")
    if " list " in data_help or "\n    list" in data_help:
        negkit_cli("data", "list")
    negkit_cli("eval", "--model", "random", "--tasks", "scone", "--out", str(work / "run"), "--no-progress")
    (results,) = (work / "run").glob("scone*.results.json")
    record = json.loads(results.read_text())
    assert record["model"]["name"] == "random" and record["negkit_version"] == negkit.__version__
    assert (work / "run" / "report.md").exists()
