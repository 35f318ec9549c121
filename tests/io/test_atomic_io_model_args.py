"""The shared atomic writer and the strict ``--model-args`` parser."""

from __future__ import annotations

import os
import stat

import pytest

from negkit.errors import NegkitError
from negkit.io.atomic import TEMP_PREFIX, atomic_write_json, atomic_write_jsonl, atomic_write_text, atomic_writer
from negkit.models.model_args import format_model_args, parse_model_args


def test_atomic_write_replaces_whole_file(tmp_path):
    target = tmp_path / "out.txt"
    atomic_write_text(target, "old\n")
    atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_failed_write_keeps_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "results.json"
    atomic_write_json(target, {"a": 1})
    with pytest.raises(RuntimeError):
        with atomic_writer(target) as handle:
            handle.write('{"a": 2, "trunc')
            raise RuntimeError("killed mid-write")
    assert target.read_text() == '{\n  "a": 1\n}\n'
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)]


def test_written_files_get_the_usual_mode_not_mkstemps_private_one(tmp_path):
    mask = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.json"
        atomic_write_json(fresh, {"a": 1})
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
        kept = tmp_path / "kept.txt"
        kept.write_text("old")
        kept.chmod(0o640)
        atomic_write_text(kept, "new")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o640 and kept.read_text() == "new"
    finally:
        os.umask(mask)


def test_jsonl_count_and_folder_target_is_an_error(tmp_path):
    assert atomic_write_jsonl(tmp_path / "s.jsonl", [{"x": 1}, {"x": 2}]) == 2
    assert (tmp_path / "s.jsonl").read_text().count("\n") == 2
    os.mkdir(tmp_path / "folder")
    with pytest.raises(NegkitError, match="is a folder"):
        atomic_write_text(tmp_path / "folder", "x")


def test_write_into_missing_folder_is_a_negkit_error(tmp_path):
    with pytest.raises(NegkitError, match="cannot write"):
        atomic_write_text(tmp_path / "missing" / "x.txt", "x")


def test_model_args_typed_values():
    parsed = parse_model_args(
        "revision=main,trust_remote_code=TRUE,max_memory_gb=10,scale=0.5,"
        'labels=[entailment,neutral,contradiction],system="Be brief, please.",dm=none'
    )
    assert parsed == {
        "revision": "main",
        "trust_remote_code": True,
        "max_memory_gb": 10,
        "scale": 0.5,
        "labels": ["entailment", "neutral", "contradiction"],
        "system": "Be brief, please.",
        "dm": None,
    }
    assert parse_model_args(format_model_args(parsed)) == parsed
    assert parse_model_args(None) == {} and parse_model_args("  ") == {}


@pytest.mark.parametrize(
    "text, message",
    [
        ("revision", "not KEY=VALUE"),
        ("a=1,,b=2", "not KEY=VALUE"),
        ("labels=entailment,neutral", "brackets"),
        ("=3", "no valid key"),
        ("a=1,a=2", "given twice"),
        ("a=[1,2", "unclosed"),
        ("a='x", "unclosed quote"),
        ("a=1]", "unbalanced"),
    ],
)
def test_model_args_malformed_pairs_are_errors(text, message):
    with pytest.raises(NegkitError, match=message):
        parse_model_args(text)
