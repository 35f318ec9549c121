"""What survives a kill -9 at every output write, a full disk, and a file cut short after the run."""

from __future__ import annotations

import errno
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TESTS
from malformed import assert_input_error
from tiny_models import save_tiny_causal, synthetic_truth_items

from negkit.benchmarks.tind.data import write_tind_jsonl
from negkit.runs.store import RunStore


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("durability-data") / "test.jsonl"
    write_tind_jsonl(synthetic_truth_items(groups_per_pattern=2, patterns=(1, 5)), path, extended=True)
    return path


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(TESTS.parent / "src"), "OMP_NUM_THREADS": "1"}


def _normalised(text: str) -> str:
    return re.sub(r"\d+\.\d+", "X", text)  # report.md holds timings: compare the rest


def _same_as_one_of(path: Path, old: Path, new: Path) -> bool:
    """``path`` is the old or the new version of its file (never a truncated or mixed one)."""
    name = path.name
    candidates = [version / name for version in (old, new) if (version / name).exists()]
    if name.endswith(".jsonl"):
        return any(path.read_bytes() == candidate.read_bytes() for candidate in candidates)
    if name.endswith(".json"):
        content = json.loads(path.read_text())  # complete JSON, whatever else
        key = "metrics" if "metrics" in content else "results" if "results" in content else None
        if key is None:
            return True  # the interim timings file: whole JSON is all it promises
        return any(content[key] == json.loads(candidate.read_text())[key] for candidate in candidates)
    if name == "report.md":
        return any(_normalised(path.read_text()) == _normalised(candidate.read_text()) for candidate in candidates)
    return any(path.read_bytes() == candidate.read_bytes() for candidate in candidates)


def test_kill_9_at_every_write_leaves_old_or_new_files(data, tmp_path):
    done = subprocess.run(
        [sys.executable, str(TESTS / "kill_at_write_child.py"), str(data), str(tmp_path)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    events = int(done.stdout.split("EVENTS")[1])
    assert events >= 15  # store appends, the lock, the interim timings, samples, results, tables and the reports
    old, new = tmp_path / "old", tmp_path / "new"
    old_keys = {json.loads(line)["key"] for line in (old / "requests.jsonl").read_text().splitlines()}
    for number in range(1, events + 1):
        killed = tmp_path / f"killed-{number}"
        for path in killed.iterdir():
            if path.name.startswith(".tmp-") or path.name == ".negkit.lock":
                continue  # an interrupted write's temporary file (never read), a dead run's lock (taken over)
            if path.name == "requests.jsonl":
                with RunStore(path) as store:  # a torn last line is cut; everything before it is whole
                    assert old_keys <= set(store._answers), f"event {number}: stored answers were lost"
                continue
            assert _same_as_one_of(path, old, new), f"event {number}: {path.name} is neither the old nor the new file"
        resumed = tmp_path / f"resumed-{number}"
        assert (resumed / "tind.samples.jsonl").read_bytes() == (new / "tind.samples.jsonl").read_bytes()
        keys = [json.loads(line)["key"] for line in (resumed / "requests.jsonl").read_text().splitlines()]
        assert len(keys) == len(set(keys)), f"event {number}: an answer was stored twice"
        assert not list(resumed.glob(".tmp-*"))  # the killed run's temporary files are removed by the next run


def _limited(argv: list[str], limit: int) -> subprocess.CompletedProcess:
    """``negkit ARGV`` in a child whose files cannot grow past ``limit`` bytes (writes fail with EFBIG, as on a
    full disk)."""
    code = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))\n"
        "from negkit.cli import main\n"
        f"sys.exit(main({[str(a) for a in argv]!r}))\n"
    )
    return subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=300)


def _one_error(done: subprocess.CompletedProcess, where: Path) -> str:
    assert done.returncode == 2 and done.stdout == "", (done.returncode, done.stdout, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("negkit: error: ")]
    assert len(errors) == 1 and errors[0].startswith(f"negkit: error: {where}"), done.stderr[-2000:]
    return errors[0]


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return save_tiny_causal(tmp_path_factory.mktemp("durability-model") / "m")


def test_full_disk_while_writing_the_run_store(model, data, tmp_path):
    out = tmp_path / "run"
    argv = [
        "eval",
        "--model",
        f"hf:{model}",
        "--tasks",
        "tind",
        "--data",
        data,
        "--out",
        out,
        "--no-progress",
        "--chunk-size",
        "4",
        "--batch-size",
        "2",
    ]
    message = _one_error(_limited(argv, 1500), out / "requests.jsonl")
    assert "cannot write the run store" in message and "rerun the same command to resume" in message
    stored = (out / "requests.jsonl").read_text()
    assert stored.endswith("\n") and 0 < len(stored) <= 1500  # whole lines only: the failed append was cut back
    kept = [json.loads(line)["key"] for line in stored.splitlines()]
    from negkit.cli import main

    assert main([str(a) for a in argv]) == 0  # room again: the run resumes
    results = json.loads((out / "tind.results.json").read_text())
    assert results["requests"]["from_store"] == len(kept) and results["requests"]["computed"] == results["requests"][
        "unique"
    ] - len(kept)


def test_full_disk_while_writing_samples_keeps_the_old_file(model, data, tmp_path):
    out = tmp_path / "run"
    argv = ["eval", "--model", f"hf:{model}", "--tasks", "tind", "--data", data, "--out", out, "--no-progress"]
    from negkit.cli import main

    assert main([str(a) for a in argv]) == 0
    before = {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()}
    (out / "tind.samples.jsonl").write_bytes(before["tind.samples.jsonl"])
    message = _one_error(_limited(argv, 600), out / "tind.samples.jsonl")
    assert "file too large" in message.lower() or "no space" in message.lower() or "cannot write" in message
    assert (out / "tind.samples.jsonl").read_bytes() == before["tind.samples.jsonl"]
    assert (out / "requests.jsonl").read_bytes() == before["requests.jsonl"]
    assert not list(out.glob(".tmp-*"))


def test_full_disk_while_converting_a_gguf_file_leaves_no_partial_folder(tmp_path, monkeypatch):
    from negkit.errors import NegkitError
    from negkit.models import gguf

    monkeypatch.setenv("NEGKIT_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "m.gguf"
    source.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + (1).to_bytes(8, "little") + (0).to_bytes(8, "little"))

    def full_disk(path, folder):
        folder.mkdir(parents=True)
        (folder / "model.safetensors").write_bytes(b"partly")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(gguf, "_convert", full_disk)
    with pytest.raises(NegkitError, match="cannot write the converted model: no space left on the device"):
        gguf.converted_folder(source)
    assert not list((tmp_path / "cache" / "gguf").glob("*.partial"))
    # a partial folder of a killed conversion (its pid is gone) is removed by the next conversion
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / "cache" / "gguf" / f"abc.{dead.stdout.strip()}@{socket.gethostname()}.partial"
    stale.mkdir()
    other_host = tmp_path / "cache" / "gguf" / "abc.1@another-machine.partial"
    other_host.mkdir()
    with pytest.raises(NegkitError):
        gguf.converted_folder(source)
    assert not stale.exists() and other_host.exists()


def test_a_samples_file_cut_short_is_reported_by_its_reader(model, data, tmp_path, capsys):
    from negkit.cli import main

    out = tmp_path / "run"
    assert (
        main(
            [
                "eval",
                "--model",
                f"hf:{model}",
                "--tasks",
                "tind",
                "--data",
                str(data),
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    samples = out / "tind.samples.jsonl"
    assert main(["score", "tind", str(samples), "--json"]) == 0
    lines = samples.read_bytes().splitlines(keepends=True)
    samples.write_bytes(b"".join(lines[: len(lines) // 2]))
    assert_input_error(["score", "tind", samples], capsys, where=samples, contains=f"{len(lines) // 2} lines")
