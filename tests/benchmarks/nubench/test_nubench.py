"""Thunder-NUBench loader on the hand-written fixture: schema, 3-choice items, file formats, errors, Alpaca export."""

from __future__ import annotations

import csv
import json
import sys
import types
from collections import Counter

import pytest
from conftest import NUBENCH_FIXTURE

from negkit.benchmarks.nubench.data import (
    CHOICE2_TYPES,
    alpaca_records,
    load_choice_items,
    load_negation_pairs,
    read_choice_items,
    read_records,
    write_alpaca_json,
)
from negkit.benchmarks.nubench.task import instruction_block
from negkit.errors import DataNotFoundError, InputFormatError

FIXTURE = NUBENCH_FIXTURE


def test_fixture_has_every_choice2_type():
    items = load_choice_items("test", FIXTURE)
    assert len(items) == 24
    assert set(Counter(item.choice2_type for item in items)) == set(CHOICE2_TYPES)
    assert len(load_choice_items("validation", FIXTURE)) >= 5
    assert all(item.choices[0].strip() for item in items)


def test_non_applicable_items_offer_three_candidates():
    items = load_choice_items("test", FIXTURE)
    regular = next(item for item in items if item.choice2_type == "relative_part")
    lonely = next(item for item in items if item.choice2_type == "non-applicable")
    assert regular.candidate_names == ("choice1", "choice2", "choice3", "choice4")
    assert regular.candidates == regular.choices
    assert lonely.candidate_names == ("choice1", "choice3", "choice4")
    assert lonely.candidates == (lonely.choices[0], lonely.choices[2], lonely.choices[3])
    assert lonely.gold == regular.gold == 0
    assert regular.item_id == "nubench-test-0"


def test_csv_and_parquet_read_like_jsonl(tmp_path):
    records = [record for _, record in read_records(FIXTURE / "multiple-choice" / "test.jsonl")]
    folder = tmp_path / "multiple-choice"
    folder.mkdir()
    with open(folder / "test.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(records[0]))
        writer.writeheader()
        writer.writerows(records)
    assert load_choice_items("test", tmp_path) == load_choice_items("test", FIXTURE)
    (folder / "test.csv").unlink()
    pyarrow = pytest.importorskip("pyarrow")
    import pyarrow.parquet as parquet

    parquet.write_table(pyarrow.Table.from_pylist(records), folder / "test.parquet")
    assert load_choice_items("test", tmp_path) == load_choice_items("test", FIXTURE)


def _write(tmp_path, lines):
    folder = tmp_path / "multiple-choice"
    folder.mkdir(exist_ok=True)
    (folder / "test.jsonl").write_text("\n".join(lines) + "\n")


def test_bad_records_name_file_and_line(tmp_path):
    good = (FIXTURE / "multiple-choice" / "test.jsonl").read_text().splitlines()[0]
    _write(tmp_path, [good, "{not json"])
    with pytest.raises(InputFormatError) as error:
        load_choice_items("test", tmp_path)
    assert error.value.line == 2 and "test.jsonl" in error.value.path
    broken = json.loads(good) | {"choice2_type": "clause_part"}
    _write(tmp_path, [json.dumps(broken)])
    with pytest.raises(InputFormatError, match="choice2_type"):
        load_choice_items("test", tmp_path)
    missing = {key: value for key, value in json.loads(good).items() if key != "choice3"}
    _write(tmp_path, [json.dumps(missing)])
    with pytest.raises(InputFormatError, match="choice3"):
        load_choice_items("test", tmp_path)
    _write(tmp_path, [good, good])
    with pytest.raises(InputFormatError, match="duplicate"):
        load_choice_items("test", tmp_path)


def test_empty_choice2_only_allowed_for_non_applicable():
    record = {
        "index": 1,
        "sentence": "s",
        "choice1": "a",
        "choice2": "",
        "choice2_type": "pp_part",
        "choice2_element": "",
        "choice3": "c",
        "choice4": "d",
    }
    with pytest.raises(InputFormatError, match="choice2"):
        read_choice_items([(1, record)], "mem", "test")
    (item,) = read_choice_items([(1, record | {"choice2_type": "non-applicable"})], "mem", "test")
    assert item.candidates == ("a", "c", "d")


def test_missing_local_split_and_hub_failure(tmp_path, monkeypatch):
    with pytest.raises(DataNotFoundError, match="multiple-choice/test"):
        load_choice_items("test", tmp_path)
    with pytest.raises(DataNotFoundError, match="no split"):
        load_choice_items("train", FIXTURE)

    def refuse(*args, **kwargs):
        raise ConnectionError("offline")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=refuse))
    with pytest.raises(DataNotFoundError, match="gated"):
        load_choice_items("test", None)


def test_hub_records_are_read_through_datasets(monkeypatch):
    record = {
        "wikipedia_index": 3,
        "index": 7,
        "sentence": "s",
        "choice1": "a",
        "choice2": "b",
        "choice2_type": "pp_part",
        "choice2_element": "e",
        "choice3": "c",
        "choice4": "d",
    }
    calls = []

    def fake_load(hub_id, config, split):
        calls.append((hub_id, config, split))
        return [record]

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=fake_load))
    monkeypatch.setattr("negkit.benchmarks.nubench.data.hub_offline", lambda: False)  # as if the hub were reachable
    (item,) = load_choice_items("validation", None)
    assert calls == [("thunder-research-group/SNU_Thunder-NUBench", "multiple-choice", "validation")]
    assert item.item_id == "nubench-validation-7" and item.wikipedia_index == 3


def test_alpaca_export(tmp_path):
    pairs = load_negation_pairs(FIXTURE)
    assert len(pairs) == 5
    records = alpaca_records(pairs, instruction_block())
    assert records[0] == {
        "instruction": instruction_block(),
        "input": f"Sentence: {pairs[0].premise}\nNegation:",
        "output": pairs[0].hypothesis,
    }
    path = tmp_path / "alpaca.json"
    write_alpaca_json(records, path)
    assert json.loads(path.read_text()) == records
