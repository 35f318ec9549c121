"""One writer per output folder (the run lock) and durability by time (chunks sized by the measured rate)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from negkit.cli import main
from negkit.io.locks import LOCK_FILE, RunLock, RunLockedError, read_lock_owner, run_lock_for_rank
from negkit.models.base import ModelFingerprint, NextTokenRequest
from negkit.runs import runner
from negkit.runs.runner import answer_requests
from negkit.runs.store import RunStore


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_second_lock_on_a_folder_is_refused_and_names_the_owner(tmp_path):
    with RunLock(tmp_path / "out") as first:
        assert first.held and (tmp_path / "out" / LOCK_FILE).exists()
        owner = read_lock_owner(tmp_path / "out")
        assert owner["pid"] == os.getpid() and owner["host"] == socket.gethostname()
        with pytest.raises(
            RunLockedError,
            match=rf"out/{LOCK_FILE}: this output folder is in use by another "
            rf"negkit run \(pid {os.getpid()} on host",
        ):
            RunLock(tmp_path / "out").acquire()
    assert not (tmp_path / "out" / LOCK_FILE).exists()  # released and removed
    with RunLock(tmp_path / "out"):  # free again
        pass


def test_stale_lock_of_a_dead_process_is_taken_over_and_announced(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / LOCK_FILE).write_text(json.dumps({"pid": _dead_pid(), "host": socket.gethostname(), "acquired": 0}))
    messages: list[str] = []
    with RunLock(folder, announce=messages.append) as lock:
        assert lock.took_over is not None and read_lock_owner(folder)["pid"] == os.getpid()
    assert len(messages) == 1 and "taking over a stale lock" in messages[0] and "that process is gone" in messages[0]


def test_garbage_lock_file_is_stale(tmp_path):
    (tmp_path / LOCK_FILE).write_bytes(b"\x00\xff not json")
    messages: list[str] = []
    with RunLock(tmp_path, announce=messages.append):
        pass
    assert "stale lock" in messages[0]


def test_lock_of_a_live_process_without_flock_is_respected(tmp_path, monkeypatch):
    """Where flock is missing (or not shared), a live owner recorded in the file still blocks."""
    import negkit.io.locks as run_lock

    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        owner = {
            "pid": sleeper.pid,
            "host": socket.gethostname(),
            "start_time": run_lock.process_start_time(sleeper.pid),
        }
        (tmp_path / LOCK_FILE).write_text(json.dumps(owner))
        monkeypatch.setattr(run_lock, "fcntl", None)
        with pytest.raises(RunLockedError, match=f"pid {sleeper.pid}"):
            RunLock(tmp_path).acquire()
    finally:
        sleeper.kill()
        sleeper.wait()
    with RunLock(tmp_path, announce=lambda message: None) as lock:
        assert lock.took_over["pid"] == sleeper.pid


def test_wait_lock_waits_for_the_holder(tmp_path):
    first = RunLock(tmp_path).acquire()
    timer = threading.Timer(0.4, first.release)
    timer.start()
    messages: list[str] = []
    started = time.monotonic()
    with RunLock(tmp_path, wait=10, announce=messages.append):
        waited = time.monotonic() - started
    timer.join()
    assert 0.3 < waited < 5 and messages and "waiting for the run holding" in messages[0]
    held = RunLock(tmp_path).acquire()
    try:
        with pytest.raises(RunLockedError):
            RunLock(tmp_path, wait=0.3, announce=lambda message: None).acquire()
    finally:
        held.release()


def test_rank_lock_is_held_by_rank_zero_only(tmp_path):
    with run_lock_for_rank(tmp_path, rank=0, world_size=2) as lock:
        assert lock.held and read_lock_owner(tmp_path)["world_size"] == 2
        with run_lock_for_rank(tmp_path, rank=1, world_size=2) as other:
            assert not other.held  # ranks > 0 rely on rank 0's lock
        with pytest.raises(RunLockedError, match="for 2 processes"):
            RunLock(tmp_path).acquire()


def test_out_that_is_a_file_is_an_error(tmp_path, capsys):
    target = tmp_path / "file.txt"
    target.write_text("x")
    with pytest.raises(Exception, match="file.txt"):
        RunLock(target).acquire()


def _held_lock_child(folder: Path) -> subprocess.Popen:
    code = (
        "import sys, time; from negkit.io.locks import RunLock\n"
        f"lock = RunLock({str(folder)!r}).acquire(); print('locked', flush=True); time.sleep(60)"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "locked"
    return child


def test_two_concurrent_evals_on_one_folder_second_refuses(tmp_path, capsys):
    """A running `negkit eval` holds OUT's lock; a second one on OUT exits 2 at once, naming the owner."""
    out = tmp_path / "run"
    child = _held_lock_child(out)
    try:
        data = tmp_path / "data.jsonl"
        from tiny_models import save_tiny_causal, synthetic_truth_items

        from negkit.benchmarks.tind.data import write_tind_jsonl

        write_tind_jsonl(synthetic_truth_items(groups_per_pattern=1), data, extended=True)
        model = save_tiny_causal(tmp_path / "model")
        capsys.readouterr()
        status = main(
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
        captured = capsys.readouterr()
    finally:
        child.kill()
        child.wait()
    assert status == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"negkit: error: {out / LOCK_FILE}: this output folder is in use")
    assert f"pid {child.pid}" in lines[0]
    # the killed holder left its lock file: the next run takes it over (announced) and runs
    assert read_lock_owner(out)["pid"] == child.pid
    status = main(
        ["eval", "--model", f"hf:{model}", "--tasks", "tind", "--data", str(data), "--out", str(out), "--no-progress"]
    )
    captured = capsys.readouterr()
    assert status == 0 and "taking over a stale lock" in captured.err and (out / "tind.results.json").exists()
    assert not (out / LOCK_FILE).exists()


# -- durability by time -------------------------------------------------------------------------------


class SlowModel:
    """Answers each request in ``seconds_per_request`` of a fake clock."""

    fingerprint = ModelFingerprint(backend="test", name="slow", dtype="float32")

    def __init__(self, clock: list[float], seconds_per_request: float) -> None:
        self.clock, self.cost, self.calls = clock, seconds_per_request, []

    def next_token_logprobs(self, contexts, candidates):
        self.calls.append(len(contexts))
        self.clock[0] += self.cost * len(contexts)
        return [{candidate: -1.0 for candidate in candidates} for _ in contexts]


def test_chunks_are_sized_to_the_commit_interval(tmp_path, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(runner.time, "perf_counter", lambda: clock[0])
    model = SlowModel(clock, seconds_per_request=0.5)  # 20 requests fit in 10 s
    requests = [NextTokenRequest(f"prompt {index:04d}", ("True", "False")) for index in range(200)]
    with RunStore(tmp_path / "s.jsonl") as store:
        answer_requests(model, requests, store, chunk_size=256, commit_seconds=10)
    assert model.calls[0] == runner.FIRST_CHUNK_SIZE
    assert sum(model.calls) == 200 and max(model.calls) <= 20  # never more than ~10 s between two commits
    assert all(calls == 20 for calls in model.calls[1:-1])


def test_count_bound_still_applies_to_fast_models(tmp_path, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(runner.time, "perf_counter", lambda: clock[0])
    model = SlowModel(clock, seconds_per_request=0.0001)
    requests = [NextTokenRequest(f"p {index}", ("True",)) for index in range(500)]
    with RunStore(tmp_path / "s.jsonl") as store:
        answer_requests(model, requests, store, chunk_size=100, commit_seconds=10)
    assert max(model.calls) == 100 and model.calls[:3] == [16, 64, 100]  # grows fourfold at most per chunk


def test_a_fixed_batch_size_is_the_smallest_chunk(tmp_path, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(runner.time, "perf_counter", lambda: clock[0])
    model = SlowModel(clock, seconds_per_request=5.0)
    model.batch_size = 4
    requests = [NextTokenRequest(f"p {index}", ("True",)) for index in range(30)]
    with RunStore(tmp_path / "s.jsonl") as store:
        answer_requests(model, requests, store, chunk_size=256, commit_seconds=10)
    assert model.calls[0] == 16 and set(model.calls[1:-1]) == {4}


def test_on_a_loaded_cpu_chunks_follow_cpu_time_not_the_wall_time_spent_waiting(tmp_path, monkeypatch):
    clock, cpu = [0.0], [0.0]
    monkeypatch.setattr(runner.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(runner.time, "process_time", lambda: cpu[0])

    class LoadedCpuModel(SlowModel):  # 0.5 CPU s per request, but 10 times that on the wall clock (a busy machine)
        load_info = {"device": "cpu"}

        def next_token_logprobs(self, contexts, candidates):
            cpu[0] += 0.5 * len(contexts)
            return super().next_token_logprobs(contexts, candidates)

    model = LoadedCpuModel(clock, seconds_per_request=5.0)
    requests = [NextTokenRequest(f"prompt {index:04d}", ("True", "False")) for index in range(100)]
    with RunStore(tmp_path / "s.jsonl") as store:
        answer_requests(model, requests, store, chunk_size=256, commit_seconds=10)
    assert model.calls[0] == runner.FIRST_CHUNK_SIZE and set(model.calls[1:-1]) == {20}  # not 2 per chunk


def test_chunk_size_flag_is_validated(capsys):
    assert_usage_error(["eval", "--chunk-size", "0"], "--chunk-size", capsys)
    assert_usage_error(["eval", "--commit-seconds", "nan"], "--commit-seconds", capsys)


def assert_usage_error(argv, needle, capsys):
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("negkit: error:") and needle in lines[0]
