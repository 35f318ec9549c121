"""NevIR's test split rebuilt from the third-party copy that negkit data get fetches: the hub's columns only, sorted
by id. The copy is not in ../shared/data, so it is made here from the shared split itself: every row with LLM-added
fields (as that copy has them), shuffled, as one JSON array; the build must give back the shared file byte for byte
(its declared SHA-256)."""

from __future__ import annotations

import json
import random

import pytest
from conftest import shared_data_path

from negkit.benchmarks.nevir import FILE, NAME, SOURCE, SUITE, build_test_file
from negkit.errors import InputFormatError
from negkit.kit.data.declared import sha256_of


def test_build_reproduces_the_declared_file(tmp_path):
    shared = shared_data_path(NAME, FILE)
    rows = [json.loads(line) for line in shared.read_text(encoding="utf-8").splitlines()]
    noisy = [{**row, "rewritten_query_q1": "an LLM's rewrite", "status": "success"} for row in rows]
    random.Random(0).shuffle(noisy)
    source = tmp_path / "inputs" / SOURCE
    source.parent.mkdir(parents=True)
    source.write_text(json.dumps(noisy, ensure_ascii=False, indent=1), encoding="utf-8")
    built = build_test_file(tmp_path / "inputs", tmp_path / "root")
    [declared] = SUITE.data.files
    assert built == tmp_path / "root" / declared.path
    assert sha256_of(built) == declared.sha256 == sha256_of(shared)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"id": "1-2"}', "expected a JSON array of objects"),
        ('[{"id": "1-2", "WorkerId": 0, "q1": "a", "doc1": "b", "q2": "c"}]', "expected a JSON array of objects"),
        ('[{"id": "x", "WorkerId": 0, "q1": "a", "doc1": "b", "q2": "c", "doc2": "d"}]', "expected PASSAGE-EDIT"),
        ("[{", "not valid JSON"),
    ],
)
def test_a_malformed_source_names_the_file(tmp_path, content, message):
    source = tmp_path / SOURCE
    source.parent.mkdir(parents=True)
    source.write_text(content, encoding="utf-8")
    with pytest.raises(InputFormatError, match=message) as error:
        build_test_file(tmp_path, tmp_path / "root")
    assert "NevIR_test_final.json" in str(error.value)
