"""``negkit data get thunder-nubench`` against a stand-in hub on 127.0.0.1 (tests/hub_standin.py) serving the
hand-written fixture in the hub's layout: without a token the error says how to accept the licence and pass one;
with it the splits land in DATA/thunder-nubench/ in negkit's layout and the commit is recorded."""

from __future__ import annotations

import json

import pytest
from conftest import NUBENCH_FIXTURE
from hub_standin import COMMIT, hub_standin

from negkit.benchmarks.nubench.data import HUB_ID
from negkit.cli import main

pytest.importorskip("huggingface_hub")

FILES = {
    "multiple-choice/test-00000-of-00001.jsonl": (NUBENCH_FIXTURE / "multiple-choice" / "test.jsonl").read_bytes(),
    "multiple-choice/validation.jsonl": (NUBENCH_FIXTURE / "multiple-choice" / "validation.jsonl").read_bytes(),
    "sentence-negation-pair/train.jsonl": (NUBENCH_FIXTURE / "sentence-negation-pair" / "train.jsonl").read_bytes(),
    "README.md": b"gated",
}


def _rows(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines() if line.strip()]


@pytest.fixture
def hub(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_HUB_DISABLE_XET", "1")
    with hub_standin(HUB_ID, FILES, token="hf_stand_in") as url:
        monkeypatch.setenv("HF_ENDPOINT", url)
        yield url


def test_without_a_token_the_error_says_how_to_get_access(hub, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # no stored login
    assert main(["data", "get", "thunder-nubench", "--data", str(tmp_path / "data")]) == 2
    err = capsys.readouterr().err
    assert "is gated on the Hugging Face hub" in err and f"{hub}/datasets/{HUB_ID}" in err and "HF_TOKEN=" in err
    assert not (tmp_path / "data" / "thunder-nubench" / "multiple-choice").exists()


def test_with_a_token_the_splits_land_in_negkits_layout(hub, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_stand_in")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    data = tmp_path / "data"
    assert main(["data", "get", "thunder-nubench", "--data", str(data)]) == 0
    folder = data / "thunder-nubench"
    for config, split, name in (
        ("multiple-choice", "test", "multiple-choice/test-00000-of-00001.jsonl"),
        ("multiple-choice", "validation", "multiple-choice/validation.jsonl"),
        ("sentence-negation-pair", "train", "sentence-negation-pair/train.jsonl"),
    ):
        assert _rows((folder / config / f"{split}.jsonl").read_bytes()) == _rows(FILES[name])
    assert json.loads((folder / "SOURCE.json").read_text())["commit"] == COMMIT
    assert not (data / ".inputs" / "thunder-nubench").exists()  # the snapshot is not kept
    # negkit finds it there: the fixture's items, read from the data root
    from negkit.benchmarks.nubench.data import locate_nubench_root

    assert locate_nubench_root(data) == folder
