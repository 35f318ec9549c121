"""CondaQA's test split built from five few-shot files (negkit.benchmarks.condaqa.build) reproduces the declared
bytes. The five inputs are made here from ../shared/data's test split the way the authors' files are: overlapping
subsets with extra columns, in another order."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

from data_server import serve

from negkit.benchmarks.condaqa.build import FEWSHOT_FILES, build_test_split
from negkit.commands.data import build_files
from negkit.kit.data.declared import DataFile, check_file
from negkit.kit.suites import get_suite
from negkit.kit.suites.description import DataSource


def _make_inputs(shared_data: Path, folder: Path) -> None:
    rows = [json.loads(line) for line in (shared_data / "condaqa" / "condaqa_test.json").open(encoding="utf-8")]
    generator = random.Random(0)
    parts: list[list[dict]] = [[] for _ in FEWSHOT_FILES]
    for number, row in enumerate(rows):
        extra = {"Confidence": 1, "pre sentence": "", **row, "post cue": "x"}
        parts[number % 5].append(extra)
        if number % 7 == 0:  # some rows in two files, as in the authors' release
            parts[(number + 1) % 5].append(extra)
    for name, part in zip(FEWSHOT_FILES, parts):
        generator.shuffle(part)
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in part), encoding="utf-8")


def _declared_test_file() -> DataFile:
    return next(file for file in get_suite("condaqa").data.files if file.path.endswith("condaqa_test.json"))


def test_the_build_reproduces_the_declared_test_split(shared_data, tmp_path):
    _make_inputs(shared_data, tmp_path / "inputs")
    built = build_test_split(tmp_path / "inputs", tmp_path / "root")
    assert check_file(built, _declared_test_file()) is None


def test_data_get_builds_from_fetched_inputs_and_checks_the_result(shared_data, tmp_path):
    _make_inputs(shared_data, tmp_path / "served")
    with serve(tmp_path / "served") as server:
        inputs = tuple(
            DataFile(name, hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_size, f"{server.url}/{name}")
            for name in FEWSHOT_FILES
            for p in [tmp_path / "served" / name]
        )
        source = DataSource("condaqa", "", inputs=inputs, build=build_test_split)
        report = build_files(source, [_declared_test_file()], tmp_path / "root")
        assert report.failed == [] and len(report.fetched) == 5
        assert check_file(tmp_path / "root" / "condaqa" / "condaqa_test.json", _declared_test_file()) is None
        # a build whose result differs from the declaration is refused and removed
        wrong = DataFile("condaqa/condaqa_test.json", "0" * 64, _declared_test_file().size)
        report = build_files(source, [wrong], tmp_path / "other")
        assert report.failed and "built, but" in report.failed[0][1]
        assert not (tmp_path / "other" / "condaqa" / "condaqa_test.json").exists()


def test_condaqa_declares_its_build_inputs_at_the_pinned_commit():
    source = get_suite("condaqa").data
    assert len(source.inputs) == 5 and source.build is build_test_split
    assert all("bd4857f1f2819937f1505925ad8c809544e8e5ef" in file.url for file in source.inputs)
