"""The run store: durable appends, resume without recomputation, torn lines, kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import TESTS
from eval_child import SlowRecordingModel
from tiny_models import synthetic_truth_items

from negkit.commands.eval.evaluate import evaluate
from negkit.commands.eval.options import EvalOptions
from negkit.errors import InputFormatError
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult, ModelFingerprint, NextTokenRequest
from negkit.models.hf_causal import HFCausalLM
from negkit.runs.runner import answer_requests
from negkit.runs.store import RunStore, request_key


class CountingModel:
    """A fake language model that answers from the context length and counts what it was asked."""

    fingerprint = ModelFingerprint(backend="test", name="counting", dtype="float32")
    is_encoder_decoder = False
    has_chat_template = False

    def __init__(self):
        self.asked: list[str] = []

    def next_token_logprobs(self, contexts, candidates):
        self.asked += contexts
        return [
            {candidate: -float(len(context) + index) for index, candidate in enumerate(candidates)}
            for context in contexts
        ]

    def loglikelihood(self, requests):
        self.asked += [request.context for request in requests]
        return [LoglikelihoodResult(-1.5, True, 2) for _ in requests]


def _requests(count):
    return [NextTokenRequest(f"prompt number {index}", ("True", "False")) for index in range(count)]


def test_resume_recomputes_nothing(tmp_path):
    store_path = tmp_path / "requests.jsonl"
    model = CountingModel()
    with RunStore(store_path) as store:
        first = answer_requests(model, _requests(10), store, chunk_size=3)
    assert len(model.asked) == 10
    again = CountingModel()
    with RunStore(store_path) as store:
        assert len(store) == 10
        second = answer_requests(again, _requests(12), store, chunk_size=3)
    assert again.asked == ["prompt number 10", "prompt number 11"]  # only the new ones
    assert second[:10] == first


def test_duplicates_are_asked_once_and_types_survive(tmp_path):
    model = CountingModel()
    requests = [LoglikelihoodRequest("a", " b")] * 3 + [NextTokenRequest("x", ("True",))]
    with RunStore(tmp_path / "s.jsonl") as store:
        answers = answer_requests(model, requests, store)
    assert model.asked == ["a", "x"]
    with RunStore(tmp_path / "s.jsonl") as store:
        key = request_key(model.fingerprint, "exact", requests[0])
        assert store.get(key) == LoglikelihoodResult(-1.5, True, 2) == answers[0]


def test_key_depends_on_model_mode_and_request():
    fingerprint = ModelFingerprint(backend="hf", name="m", dtype="float32")
    request = NextTokenRequest("p", ("True", "False"))
    keys = {
        request_key(fingerprint, "exact", request),
        request_key(fingerprint, "fast", request),
        request_key(ModelFingerprint(backend="hf", name="m", dtype="bfloat16"), "exact", request),
        request_key(fingerprint, "exact", NextTokenRequest("p ", ("True", "False"))),
    }
    assert len(keys) == 4


def test_torn_last_line_is_cut_off(tmp_path):
    path = tmp_path / "requests.jsonl"
    with RunStore(path) as store:
        store.put_many([("k1", {"True": -1.0}), ("k2", {"True": -2.0})])
    complete = path.read_bytes()
    path.write_bytes(complete + b'{"key": "k3", "respo')
    with RunStore(path) as store:
        assert len(store) == 2 and store.truncated_bytes == len(b'{"key": "k3", "respo')
        store.put_many([("k3", {"True": -3.0})])
    with RunStore(path) as store:
        assert store.get("k3") == {"True": -3.0} and len(store) == 3


def test_damaged_middle_line_names_file_and_line(tmp_path):
    path = tmp_path / "requests.jsonl"
    path.write_text('{"key": "a", "response": 1}\nnot json\n{"key": "b", "response": 2}\n')
    with pytest.raises(InputFormatError, match=r"requests.jsonl:2: damaged run store line"):
        RunStore(path)


def _child(model, data, out, log):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, str(TESTS / "eval_child.py"), str(model), str(data), str(out), str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _stored_keys(path: Path) -> list[str]:
    return [json.loads(line)["key"] for line in path.read_text().splitlines() if line.strip()]


def _samples(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_kill_9_loses_nothing_and_resume_recomputes_nothing(tmp_path, tiny_model_folder, synthetic_data):
    out = tmp_path / "run"
    first_log, second_log = tmp_path / "asked-1.txt", tmp_path / "asked-2.txt"
    child = _child(tiny_model_folder, synthetic_data, out, first_log)
    store = out / "requests.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline and (not store.exists() or len(store.read_text().splitlines()) < 8):
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL
    stored = _stored_keys(store)  # every line parses: nothing torn or corrupt was left behind
    total = len({item.sentence for item in synthetic_truth_items(groups_per_pattern=2)})  # distinct prompts
    assert 8 <= len(stored) < total

    # the resumed run in this process (torch and negkit are imported here already; a child spends seconds on it)
    resumed = SlowRecordingModel(HFCausalLM.from_pretrained(str(tiny_model_folder), batch_size=2), second_log, pause=0)
    options = EvalOptions(data=str(synthetic_data), split="test", out=out, progress=False, chunk_size=4)
    evaluate(resumed, ["tind"], options)
    asked_before = first_log.read_text().splitlines()
    asked_again = second_log.read_text().splitlines()
    assert len(asked_again) == total - len(stored)  # only what was not stored
    assert len(set(_stored_keys(store))) == total
    # the killed run's time is kept beside the resumed run's
    runs = json.loads((out / "tind.results.json").read_text())["timings"]["runs"]
    assert [run.get("interrupted", False) for run in runs] == [True, False] and runs[0]["score_s"] >= 0
    assert runs[1]["requests_computed"] == total - len(stored) and not (out / "tind.timings.json").exists()

    # an uninterrupted run of the same evaluation gives identical per-sample results
    model = HFCausalLM.from_pretrained(str(tiny_model_folder), batch_size=2)
    evaluate(
        model, ["tind"], EvalOptions(data=str(synthetic_data), split="test", out=tmp_path / "fresh", progress=False)
    )
    resumed_samples = _samples(out / "tind.samples.jsonl")
    fresh_samples = _samples(tmp_path / "fresh" / "tind.samples.jsonl")
    assert [s["prediction"] for s in resumed_samples] == [s["prediction"] for s in fresh_samples]
    # same ids and fields; probabilities equal up to float rounding (batches are composed differently)
    for resumed, fresh in zip(resumed_samples, fresh_samples):
        assert resumed.keys() == fresh.keys() and resumed["item_id"] == fresh["item_id"]
        assert abs(resumed["p_true"] - fresh["p_true"]) < 1e-5
    assert set(asked_again).isdisjoint(set(asked_before[: len(stored)]))


def test_progress_counts_every_request_once(tmp_path):
    from tiny_models import tiny_causal_lm

    lm = tiny_causal_lm(batch_size=2)
    requests = _requests(5) + _requests(2)  # two duplicates
    counted = []
    with RunStore(tmp_path / "s.jsonl") as store:
        answer_requests(lm, requests, store, chunk_size=4, progress=counted.append)
    assert sum(counted) == len(requests) and lm.progress is None
    assert len([n for n in counted if n]) >= 3  # per batch of 2, not only per chunk
    again = []
    with RunStore(tmp_path / "s.jsonl") as store:
        answer_requests(lm, requests, store, progress=again.append)
    assert again == [7]
