"""docs/architecture.md's layer picture is the import-linter contract of pyproject.toml, layer for layer: the
picture's first column lists the contract's layers in its order, and every package the contract names appears in
the picture."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]


def contract_layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    [layers] = [contract["layers"] for contract in contracts if contract["type"] == "layers"]
    return [" | ".join(part.strip() for part in layer.split("|")) for layer in layers]


def pictured_layers() -> list[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = text.split("```")[1]  # the first code block: the layer picture
    rows = block.strip("\n").splitlines()
    assert rows[0].split()[:3] == ["layer", "(pyproject.toml)", "package"], rows[0]
    layers = []
    for row in rows[1:]:
        first = re.split(r"\s{2,}", row.strip())[0] if row[:2].strip() else ""
        if first:
            layers.append(first)
    return layers


def test_the_picture_lists_the_contracts_layers_in_order():
    assert pictured_layers() == contract_layers()


def test_every_layer_package_is_named_in_the_picture():
    block = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split("```")[1]
    for layer in contract_layers():
        for package in layer.split(" | "):
            assert f"negkit.{package}" in block, package
