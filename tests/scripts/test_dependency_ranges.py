"""pyproject.toml's declared ranges hold the versions the tests ran with (constraints-tested.txt), and that file pins
torch exactly as constraints.txt does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO_ROOT

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11's tomllib")

ROOT = REPO_ROOT


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line.strip())
        if match:
            pins[re.sub(r"[-_.]+", "-", match.group(1)).lower()] = match.group(2)
    return pins


def test_torch_is_pinned_as_constraints_txt_pins_it():
    assert _pins(ROOT / "constraints-tested.txt")["torch"] == _pins(ROOT / "constraints.txt")["torch"]
    assert "constraints-tested.txt" in (ROOT / "scripts" / "setup.sh").read_text()


@pytest.mark.parametrize("package", ["torch", "transformers", "accelerate", "peft", "gguf", "tokenizers"])
def test_declared_ranges_hold_the_tested_versions(package):
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = [
        Requirement(text)
        for extra in project["optional-dependencies"].values()
        for text in extra
        if Requirement(text).name == package
    ]
    assert declared, f"{package} has no declared range"
    tested = _pins(ROOT / "constraints-tested.txt")[package]
    for requirement in declared:
        assert requirement.specifier.contains(tested), f"{package} {tested} is outside {requirement}"
    if package in ("torch", "transformers", "accelerate", "peft", "gguf"):
        assert any(spec.operator == "<" for requirement in declared for spec in requirement.specifier), (
            f"{package}: no upper bound"
        )
