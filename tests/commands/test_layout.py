"""results.json, TASK.results.json and TASK.samples.jsonl keep their layout and values: the fixture runs of
``tests/layout_runs.py`` (every suite, baseline pseudo-models), made with the code before the benchmarks moved
into their folders and committed under ``tests/fixtures/layout/``, are made again and must be equal (dates,
timings, the environment and absolute paths aside). An intended change regenerates the fixture and says so in
docs/reproducibility.md."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import shared_data_path
from layout_runs import FIXTURE, RUNS, eval_arguments, normalised_run


def differences(before: Any, after: Any, path: str = "") -> list[str]:
    """Where two JSON values differ, as ``path: before -> after`` lines."""
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after)):
            where = f"{path}.{key}" if path else key
            if key not in after:
                found.append(f"{where}: removed")
            elif key not in before:
                found.append(f"{where}: added")
            else:
                found += differences(before[key], after[key], where)
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [
            line
            for index, (old, new) in enumerate(zip(before, after))
            for line in differences(old, new, f"{path}[{index}]")
        ]
    return [] if before == after else [f"{path}: {json.dumps(before)[:120]} -> {json.dumps(after)[:120]}"]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_run_folder_layout_and_values_are_unchanged(name, tmp_path):
    from negkit.cli import main

    data = shared_data_path()
    out = tmp_path / name
    assert main(eval_arguments(name, data, out)) == 0
    expected = json.loads((FIXTURE / f"{name}.json").read_text(encoding="utf-8"))
    found = differences(expected, json.loads(json.dumps(normalised_run(out, data))))
    assert not found, f"{len(found)} differences from tests/fixtures/layout/{name}.json:\n" + "\n".join(found[:40])
