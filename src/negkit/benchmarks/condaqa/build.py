"""CondaQA's test split built from the authors' public files: the repository publishes it only as five few-shot
files (``data/few-shot/test_splits/conda_fewshot_test_{1..5}.json``, JSON Lines, with extra columns); the test split
is their union, one row per ``SampleID`` (a row repeated across files is identical on the kept keys), sorted by
``SampleID``, with the development file's keys in its order. This reproduces ``condaqa_test.json`` byte for byte
(7,240 rows; its SHA-256 is declared in ``files.json``)."""

from __future__ import annotations

import json
from pathlib import Path

from negkit.benchmarks.condaqa.data import TEST_FILE
from negkit.errors import InputFormatError
from negkit.io.atomic import atomic_write_text
from negkit.io.textfiles import iter_jsonl

#: The development file's keys, in its order: the test split keeps these.
KEYS = (
    "QuestionID",
    "original cue",
    "PassageEditID",
    "original passage",
    "SampleID",
    "label",
    "original sentence",
    "sentence2",
    "PassageID",
    "sentence1",
)
#: The few-shot test files under the inputs root (``condaqa/few-shot/...``).
FEWSHOT_FILES = tuple(f"condaqa/few-shot/conda_fewshot_test_{number}.json" for number in range(1, 6))


def build_test_split(inputs: Path, root: Path) -> Path:
    """Write ``ROOT/condaqa/condaqa_test.json`` from the five few-shot files under ``inputs``; returns its path."""
    rows: dict[int, dict] = {}
    for name in FEWSHOT_FILES:
        path = inputs / name
        for line, record in iter_jsonl(path):
            if not isinstance(record, dict) or not set(KEYS) <= set(record):
                raise InputFormatError(path, line, f"expected an object with the keys {', '.join(KEYS)}")
            kept = {key: record[key] for key in KEYS}
            earlier = rows.setdefault(kept["SampleID"], kept)
            if earlier != kept:
                raise InputFormatError(path, line, f"SampleID {kept['SampleID']} differs from an earlier file's row")
    text = "".join(json.dumps(rows[sample], ensure_ascii=False) + "\n" for sample in sorted(rows))
    target = root / "condaqa" / TEST_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, text)
    return target
