"""Every ```python block of docs/*.md runs as written: each in a fresh interpreter, from a scratch folder that sees
the repository's docs/ (examples name files such as docs/examples/toy_suite.py) and finds the shared data
(NEGKIT_DATA), so that what a reader copies works."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_DATA

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def python_blocks() -> list[tuple[str, int, str]]:
    """(file, line, code) of every Python block in docs/*.md."""
    blocks = []
    for path in sorted((ROOT / "docs").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            blocks.append((path.name, text[: match.start()].count("\n") + 1, match.group(1)))
    return blocks


BLOCKS = python_blocks()


def test_the_docs_have_python_examples():
    assert {name for name, _, _ in BLOCKS} >= {"reports.md", "suites.md"}


@pytest.mark.parametrize(("name", "line", "code"), BLOCKS, ids=[f"{name}:{line}" for name, line, _ in BLOCKS])
def test_a_python_block_runs_as_written(name, line, code, tmp_path):
    if "evaluate(" in code and not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found: {SHARED_DATA} (docs/{name}:{line} evaluates on it)")
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    environment = {**os.environ, "NEGKIT_DATA": str(SHARED_DATA), "PYTHONPATH": str(ROOT / "src")}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"docs/{name}:{line} failed:\n{result.stderr[-3000:]}"
