"""Data parallel runs on CPU (gloo): torchrun's 2 processes equal 1, per-rank stores, resume on another count."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from conftest import TESTS

from negkit.engine.requests import LoglikelihoodRequest, ModelFingerprint, NextTokenRequest
from negkit.errors import NegkitError
from negkit.runs.distributed import ProcessGroup, launcher_group, rank_device, shard, store_file
from negkit.runs.store import RunStore, request_key

SRC = TESTS.parent / "src"


@pytest.fixture(scope="module")
def model_folder(tiny_model_folder):
    return tiny_model_folder


@pytest.fixture(scope="module")
def data_folder(synthetic_data):
    return synthetic_data


def _env(**extra):
    return {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{TESTS}", "OMP_NUM_THREADS": "1", **extra}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _results(folder: Path, task: str) -> dict:
    return json.loads((folder / f"{task}.results.json").read_text())


def test_shard_cuts_prefix_ordered_blocks_and_keeps_the_choices_of_a_context_together():
    requests = [LoglikelihoodRequest(f"c{n}", ending) for n in (5, 9, 2, 7) for ending in (" a", " b")]
    requests += [NextTokenRequest(f"x{n}", ("True",)) for n in (3, 8)]

    def sort_key(request):
        return request.context

    def unit(request):
        return request.context

    shares = [shard(requests, ProcessGroup(rank, 2), sort_key, unit) for rank in (0, 1)]
    assert sorted(map(repr, shares[0] + shares[1])) == sorted(map(repr, requests))  # all, once
    assert not set(shares[0]) & set(shares[1])
    for share in shares:  # a context's two choices are on one rank
        contexts = [r.context for r in share if isinstance(r, LoglikelihoodRequest)]
        assert all(contexts.count(context) == 2 for context in contexts)
    # prefix order, one contiguous block each, about equal (units of 2, 2, 2, 2, 1 and 1 requests; a unit
    # goes to the block that holds its middle: c7's is the 5th of 10)
    assert [r.context for r in shares[0]] == ["c2", "c2", "c5", "c5"]
    assert [r.context for r in shares[1]] == ["c7", "c7", "c9", "c9", "x3", "x8"]
    # sizes balance the blocks: one heavy unit fills a rank
    heavy = shard(requests, ProcessGroup(0, 2), sort_key, unit, size=lambda r: 100 if r.context == "c2" else 1)
    assert [r.context for r in heavy] == ["c2", "c2"]
    assert shard(requests, ProcessGroup(), sort_key, unit) == requests  # alone: everything, in order
    three = [shard(requests, ProcessGroup(rank, 3), sort_key, unit) for rank in range(3)]
    assert sum(map(len, three)) == len(requests) and all(three)


def test_launcher_environment_and_rank_devices(monkeypatch):
    assert launcher_group({}).world_size == 1
    with pytest.raises(NegkitError, match="does not fit"):
        launcher_group({"RANK": "2", "WORLD_SIZE": "2"})
    with pytest.raises(NegkitError, match="MASTER_ADDR"):
        launcher_group({"RANK": "0", "WORLD_SIZE": "2"})
    group = ProcessGroup(rank=1, world_size=2, local_rank=1, local_world_size=2)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert rank_device(group, None) == "cpu" and rank_device(group, "cpu") == "cpu"
    assert rank_device(ProcessGroup(), "cuda:3") == "cuda:3"  # alone: as given
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert rank_device(group, "auto") == "cuda:1" and rank_device(group, "cuda") == "cuda:1"
    with pytest.raises(NegkitError, match="each rank takes cuda:LOCAL_RANK"):
        rank_device(group, "cuda:0")
    with pytest.raises(NegkitError, match="one rank per machine"):
        rank_device(group, None, {"device_map": "auto"})
    assert store_file(Path("out"), group).name == "requests.rank-1.jsonl"
    assert store_file(Path("out"), ProcessGroup()).name == "requests.jsonl"


def test_store_reads_other_files_and_never_changes_them(tmp_path):
    fingerprint = ModelFingerprint(backend="test", name="m", dtype="float32")
    keys = [request_key(fingerprint, "exact", NextTokenRequest(f"p{i}", ("True",))) for i in range(4)]
    other = tmp_path / "requests.rank-1.jsonl"
    lines = [json.dumps({"key": key, "response": {"True": -float(i)}}) + "\n" for i, key in enumerate(keys)]
    other.write_text(lines[0] + lines[1] + lines[2][:10])  # the other rank is writing its third line
    with RunStore(store_file(tmp_path, ProcessGroup()), siblings="requests*.jsonl") as store:
        assert len(store) == 2 and store.get(keys[1]) == {"True": -1.0}
        assert other.read_text().endswith(lines[2][:10])  # not cut: it is not this process's file
        with open(other, "a") as handle:
            handle.write(lines[2][10:] + lines[3])
        assert store.refresh() == 2 and store.get(keys[3]) == {"True": -3.0}
        store.put_many([(keys[0], {"True": 0.0})])
    assert (tmp_path / "requests.jsonl").read_text().count("\n") == 1


def _eval_command(launcher: list[str], model: Path, data: Path, out: Path) -> list[str]:
    return [*launcher, "-m", "negkit", *_eval_argv(model, data, out)]


def _eval_argv(model: Path, data: Path, out: Path) -> list[str]:
    """The arguments of ``negkit eval`` that the test's runs share (one process, ranks, resume)."""
    return [
        "eval",
        "--model",
        f"hf:{model}",
        "--tasks",
        "tind,tind-continuation",
        "--data",
        str(data),
        "--out",
        str(out),
        "--no-progress",
        "--device",
        "cpu",
        "--batch-size",
        "1",
    ]


def _in_this_process(argv: list[str]) -> int:
    """``negkit ARGV`` run in the test's own process (it has torch and negkit imported already; a child would spend
    seconds importing them), its output swallowed."""
    import contextlib
    import io

    from negkit.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


def _close(one, two, tolerance: float = 1e-5) -> bool:
    """Equal, except that numbers may differ by ``tolerance`` (the prefix tree packs prompts differently when
    each rank has its own share, so the float sums run in another order)."""
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(_close(one[key], two[key], tolerance) for key in one)
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(_close(a, b, tolerance) for a, b in zip(one, two))
    if isinstance(one, float) or isinstance(two, float):
        return isinstance(one, (int, float)) and isinstance(two, (int, float)) and abs(one - two) <= tolerance
    return one == two


def _samples(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_torchrun_two_processes_equal_one_and_resume_with_any_count(tmp_path, model_folder, data_folder):
    """``torchrun --nproc-per-node 2 -m negkit eval`` writes the same samples as one process (to 1e-5: the
    prefix tree packs each rank's share on its own); rerunning with one process computes nothing."""
    single, double = tmp_path / "one", tmp_path / "two"
    assert _in_this_process(_eval_argv(model_folder, data_folder, single)) == 0  # the one-process run
    torchrun = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc-per-node",
        "2",
        "--master-port",
        str(_free_port()),
    ]
    done = subprocess.run(
        _eval_command(torchrun, model_folder, data_folder, double),
        env=_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("tind: ") == 1  # only rank 0 writes and prints
    assert sorted(path.name for path in double.glob("requests*.jsonl")) == [
        "requests.rank-0.jsonl",
        "requests.rank-1.jsonl",
    ]
    for task in ("tind", "tind-continuation"):
        assert _close(_samples(double / f"{task}.samples.jsonl"), _samples(single / f"{task}.samples.jsonl"))
        one, two = _results(single, task), _results(double, task)
        assert _close(one["metrics"], two["metrics"]) and one["requests"] == two["requests"]
        ranks = two["distributed"]["ranks"]
        assert (
            two["distributed"]["world_size"] == 2
            and sum(rank["assigned"] for rank in ranks) == two["requests"]["unique"]
        )
        assert all(rank["assigned"] > 0 for rank in ranks)
    assert _in_this_process(_eval_argv(model_folder, data_folder, double)) == 0  # one process resumes
    for task in ("tind", "tind-continuation"):
        assert _results(double, task)["requests"]["computed"] == 0
    single_store = double / "requests.jsonl"  # created at the first write: the single process found every answer
    assert not single_store.exists() or single_store.read_text() == ""  # in the rank files


def _stored_keys(folder: Path) -> set[str]:
    keys = set()
    for path in folder.glob("requests*.jsonl"):
        for line in path.read_text().splitlines():
            try:
                keys.add(json.loads(line)["key"])
            except ValueError:
                pass  # a line torn by the kill
    return keys


def test_two_process_run_killed_midway_resumes_on_one_process(tmp_path, model_folder, data_folder):
    from negkit.models.hf_causal import HFCausalLM

    out = tmp_path / "run"
    port = str(_free_port())
    ranks = []
    for rank in (0, 1):
        env = _env(
            RANK=str(rank),
            LOCAL_RANK=str(rank),
            WORLD_SIZE="2",
            LOCAL_WORLD_SIZE="2",
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=port,
        )
        ranks.append(
            subprocess.Popen(
                [
                    sys.executable,
                    str(TESTS / "eval_child.py"),
                    str(model_folder),
                    str(data_folder),
                    str(out),
                    str(tmp_path / f"asked-rank{rank}.txt"),
                ],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    deadline = time.time() + 90
    while time.time() < deadline and not all(
        (out / f"requests.rank-{rank}.jsonl").exists() and (out / f"requests.rank-{rank}.jsonl").stat().st_size > 0
        for rank in (0, 1)
    ):
        time.sleep(0.05)
    for process in ranks:
        process.send_signal(signal.SIGKILL)
    for process in ranks:
        process.wait()
    stored = _stored_keys(out)
    assert stored, "the killed ranks stored nothing"

    # one process resumes: eval_child.py's run, in the test's own process (torch and negkit are imported here)
    from eval_child import SlowRecordingModel

    from negkit.commands.eval.evaluate import evaluate
    from negkit.commands.eval.options import EvalOptions

    model = HFCausalLM.from_pretrained(str(model_folder), batch_size=2)
    options = EvalOptions(data=str(data_folder), split="test", out=str(out), progress=False, chunk_size=4)
    evaluate(SlowRecordingModel(model, tmp_path / "asked-resume.txt"), ["tind"], options)
    asked_again = {
        request_key(model.fingerprint, "exact", NextTokenRequest(eval(line), ("True", "False")))  # noqa: S307
        for line in (tmp_path / "asked-resume.txt").read_text().splitlines()
    }
    assert not asked_again & stored  # nothing computed twice
    total = _results(out, "tind")["requests"]["unique"]
    assert len(stored) + len(asked_again) == total
    assert _results(out, "tind")["requests"]["from_store"] == len(stored)
