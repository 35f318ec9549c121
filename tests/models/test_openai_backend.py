"""The OpenAI-compatible backend against a real HTTP server process on loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import TESTS, shared_data_path
from tiny_models import save_tiny_causal

from negkit.benchmarks.tind.task import TruthTask
from negkit.errors import NegkitError
from negkit.models.base import LoglikelihoodRequest
from negkit.models.hf_causal import HFCausalLM
from negkit.models.openai_server import OpenAICompatibleLM
from negkit.models.registry import load_model


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory):
    return save_tiny_causal(tmp_path_factory.mktemp("served-model"))


@pytest.fixture(scope="module")
def reference(model_folder):
    return HFCausalLM.from_pretrained(str(model_folder), batch_size=4)


class Server:
    def __init__(self, folder: Path, *flags: str) -> None:
        env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": ""}
        self.process = subprocess.Popen(
            [sys.executable, str(TESTS / "openai_test_server.py"), str(folder), *flags],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        line = self.process.stdout.readline()
        assert line.startswith("PORT "), f"server did not start: {line!r}"
        self.url = f"http://127.0.0.1:{int(line.split()[1])}/v1"

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture(scope="module")
def server(model_folder):
    running = Server(model_folder, "--fail-first", "2")
    yield running
    running.close()


def test_next_token_and_loglikelihood_agree_with_transformers(server, reference):
    # the first two requests get HTTP 503: the client retries with backoff
    client = load_model(f"openai:{server.url}#tiny", backoff=0.05, top_k=500)  # the whole tiny vocabulary
    assert isinstance(client, OpenAICompatibleLM) and not client.has_chat_template
    contexts = [f"Is the following statement True or False? A {noun} is an animal." for noun in ("dog", "cat", "rose")]
    served = client.next_token_logprobs(contexts, ["True", "False"])
    local = reference.next_token_logprobs(contexts, ["True", "False"])
    for a, b in zip(served, local):
        for candidate in ("True", "False"):
            assert abs(a[candidate] - b[candidate]) < 1e-4
    requests = [LoglikelihoodRequest(context, " True") for context in contexts]
    for a, b in zip(client.loglikelihood(requests), reference.loglikelihood(requests)):
        assert abs(a.logprob - b.logprob) < 1e-4 and a.n_tokens == b.n_tokens
    assert client.load_info["continuation_scoring"] == "echo"


def test_chat_prompts_go_to_chat_completions(server, reference):
    client = load_model(f"openai:{server.url}#tiny?chat", backoff=0.05, top_k=500)
    task = TruthTask()
    context = task.prompt("A dog is an animal.", client)
    answer = client.next_token_logprobs([context], ["True", "False"])[0]
    local_context = task.prompt("A dog is an animal.", reference)
    local = reference.next_token_logprobs([local_context], ["True", "False"])[0]
    for candidate in ("True", "False"):
        assert abs(answer[candidate] - local[candidate]) < 1e-4


def _control(server, **settings):
    request = urllib.request.Request(
        server.url.removesuffix("/v1") + "/control",
        data=json.dumps(settings).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    urllib.request.urlopen(request, timeout=10).read()


def test_clear_error_when_the_server_returns_no_logprobs(server):
    _control(server, logprobs=False)
    try:
        client = OpenAICompatibleLM(server.url, "tiny", retries=0)
        with pytest.raises(NegkitError, match="no logprobs"):
            client.next_token_logprobs(["A dog is"], ["True"])
        with pytest.raises(NegkitError, match="neither echo"):
            client.loglikelihood([LoglikelihoodRequest("A dog is", " an animal")])
    finally:
        _control(server, logprobs=True)


def test_continuation_scoring_through_prompt_logprobs_where_echo_is_refused(server, reference):
    _control(server, echo=False, prompt_logprobs=True)
    try:
        client = OpenAICompatibleLM(server.url, "tiny", retries=0)
        requests = [
            LoglikelihoodRequest(f"Is the following statement True or False? A {noun} is an animal.", ending)
            for noun in ("dog", "cat")
            for ending in (" True", " False", " not a plant")
        ]
        for a, b in zip(client.loglikelihood(requests), reference.loglikelihood(requests)):
            assert abs(a.logprob - b.logprob) < 1e-4 and a.n_tokens == b.n_tokens and a.is_greedy == b.is_greedy
        assert client.load_info["continuation_scoring"] == "prompt_logprobs"
        _control(server, echo=False, prompt_logprobs=False)
        with pytest.raises(NegkitError, match="neither echo\\+logprobs nor prompt_logprobs.*next-token tasks"):
            OpenAICompatibleLM(server.url, "tiny", retries=0).loglikelihood(requests[:1])
    finally:
        _control(server, echo=True, prompt_logprobs=False)


def test_gives_up_after_retries_with_a_clear_error(server):
    _control(server, fail_next=100)
    try:
        client = OpenAICompatibleLM(server.url, "tiny", retries=2, backoff=0.01)
        with pytest.raises(NegkitError, match=r"failed after 3 tries: HTTP 503"):
            client.next_token_logprobs(["A dog is"], ["True"])
    finally:
        _control(server, fail_next=0)


def test_unreachable_server_and_bad_spec():
    client = OpenAICompatibleLM("http://127.0.0.1:9/v1", "x", retries=1, backoff=0.01, timeout=2)
    with pytest.raises(NegkitError, match="failed after 2 tries"):
        client.generate(["hello"])
    with pytest.raises(NegkitError, match="needs a URL"):
        load_model("openai:localhost#x")


def test_an_api_key_reaches_no_file_a_run_writes(server, tmp_path, monkeypatch):
    """Issue 32, finding 1: ``--model-args api_key=...`` was redacted in the record's command and model_args but
    written in plain text through ``record.argv`` and the run's lock file. Every file a run writes is searched."""
    from negkit.cli import main
    from negkit.io.locks import RunLock
    from negkit.models.model_args import redact_command_line

    data = shared_data_path("scone")
    secret = "sk-negkit-test-9f2c"
    out = tmp_path / "run"
    argv = [
        "eval",
        "--model",
        f"openai:{server.url}#tiny",
        "--model-args",
        f"api_key={secret},timeout=30",
        "--tasks",
        "scone",
        "--limit",
        "2",
        "--data",
        str(data.parent),
        "--out",
        str(out),
        "--no-progress",
    ]
    seen_locks: list[str] = []
    acquire = RunLock.acquire

    def acquire_and_read(lock):  # the lock file as it stands during the run (a kill leaves it behind)
        held = acquire(lock)
        seen_locks.append(Path(lock.path).read_text())
        return held

    monkeypatch.setattr(RunLock, "acquire", acquire_and_read)
    monkeypatch.setattr(sys, "argv", ["negkit", *argv])
    assert main(argv) == 0
    assert seen_locks and all(secret not in text for text in seen_locks)
    written = [path for path in out.rglob("*") if path.is_file()]
    assert any(path.name == "results.json" for path in written)
    leaks = [path.name for path in written if secret.encode() in path.read_bytes()]
    assert leaks == []
    record = json.loads((out / "results.json").read_text())["record"]
    assert "api_key=***" in " ".join(record["argv"])
    assert redact_command_line(["--model-args", f"api_key=\"{secret}\",token='t,1'", f"hf_token={secret}"]) == [
        "--model-args",
        "api_key=***,token=***",
        "hf_token=***",
    ]


def test_eval_against_a_server_that_never_answers_fails_after_the_stated_timeout(tmp_path, capsys):
    """Issue 32, finding 18: a server that accepts the connection and never answers made eval hang; it now fails
    with a one-line error naming the timeout (``--model-args timeout=S``) after about twice that time."""
    import time

    from negkit.cli import main

    data = shared_data_path("scone")
    started = time.monotonic()
    with silent_server() as url:
        code = main(
            [
                "eval",
                "--model",
                f"openai:{url}#silent",
                "--model-args",
                "timeout=1",
                "--tasks",
                "scone",
                "--limit",
                "2",
                "--data",
                str(data.parent),
                "--out",
                str(tmp_path / "run"),
                "--no-progress",
            ]
        )
    elapsed = time.monotonic() - started
    error = capsys.readouterr().err
    assert code == 2 and "sent no answer within 1 s (the start-up probe" in error and "Traceback" not in error
    assert elapsed < 30


@contextmanager
def silent_server():
    """A loopback socket that accepts every connection and never answers; yields its URL."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept_and_stay_silent():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept_and_stay_silent, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stop.set()
        thread.join()
        for connection in accepted:
            connection.close()
        listener.close()


def test_the_start_up_probe_gives_up_on_a_silent_server_within_about_ten_seconds():
    """A server that accepts the connection and never answers: with the default request timeout (30 s, tried
    twice) the first request would wait a minute; the start-up probe (GET /models, for the fingerprint, before any
    request) waits 10 s once and says so. The probe's timeout is configurable and never longer than ``timeout``."""
    import time

    with silent_server() as url:
        client = OpenAICompatibleLM(url, "silent")  # default timeout 30 s, probe 10 s
        assert client.timeout == 30 and client.probe_timeout == 10
        started = time.monotonic()
        with pytest.raises(
            NegkitError, match=r"accepted the connection but sent no answer within 10 s .*probe_timeout"
        ):
            client.fingerprint  # noqa: B018 (the probe runs when the fingerprint is first read)
        assert 9 <= time.monotonic() - started < 15
        quick = OpenAICompatibleLM(url, "silent", probe_timeout=0.5)
        started = time.monotonic()
        with pytest.raises(NegkitError, match="within 0.5 s"):
            quick.fingerprint  # noqa: B018
        assert time.monotonic() - started < 5
    assert OpenAICompatibleLM(url, "x", timeout=2).probe_timeout == 2  # never longer than a request's timeout
    with pytest.raises(NegkitError, match="probe_timeout is out of range"):
        OpenAICompatibleLM(url, "x", probe_timeout=0)


def test_the_fingerprint_holds_what_the_server_reports_about_the_model(server):
    """Issue 32, finding 17: an OpenAI-compatible server's fingerprint was its URL and model name only, so a server
    that swapped the weights behind the same name resumed with the old answers. It now holds the server's
    ``/v1/models`` entry, without the fields that change per request (vLLM's ``created`` and ``permission``)."""
    from negkit.models.server_identity import NOT_REPORTED

    def fingerprint(model: str = "tiny"):
        client = OpenAICompatibleLM(server.url, model, retries=0)
        return client.fingerprint, client.load_info["server_model"]

    first, record = fingerprint()
    assert record["reported"] and record["entry"]["root"] and "permission" in record["entry"]
    assert record["fingerprinted"] == ["id", "max_model_len", "owned_by", "root"]
    assert json.loads(dict(first.extra)["server_model"])["root"] == record["entry"]["root"]
    again, record_again = fingerprint()
    assert record_again["entry"]["permission"] != record["entry"]["permission"]  # a fresh id per request...
    assert again.key() == first.key()  # ...does not change the keys
    try:
        _control(server, models=[{"id": "tiny", "owned_by": "negkit-test", "root": "/other/weights"}])
        swapped, _ = fingerprint()
        assert swapped.key() != first.key()  # other weights under the same name: other store keys
        _control(server, models=[{"id": "tiny", "owned_by": "llamacpp", "meta": {"n_params": 7, "size": 99}}])
        llama, _ = fingerprint()
        assert json.loads(dict(llama.extra)["server_model"])["meta"] == {"n_params": 7, "size": 99}
        listed_elsewhere, record = fingerprint("other-name")
        assert dict(listed_elsewhere.extra)["server_model"] == NOT_REPORTED
        assert not record["reported"] and "lists no model 'other-name'" in record["reason"]
        _control(server, models=None)  # the server has no /v1/models
        silent, record = fingerprint()
        assert dict(silent.extra)["server_model"] == NOT_REPORTED and "HTTP 404" in record["reason"]
    finally:
        _control(server, models=[{"id": "tiny", "owned_by": "negkit-test", "root": record_again["entry"]["root"]}])


def test_a_client_is_built_offline_and_an_unreachable_server_is_not_reported():
    client = OpenAICompatibleLM("http://127.0.0.1:9/v1", "x", retries=0, timeout=2)  # builds without asking
    assert "server_model" not in client.load_info
    assert dict(client.fingerprint.extra)["server_model"] == "not reported"
    assert not client.load_info["server_model"]["reported"]
    assert "GET /models failed" in client.load_info["server_model"]["reason"]


def test_a_server_that_swaps_the_weights_does_not_resume_with_stale_answers(server, tmp_path, capsys):
    """Issue 32, finding 17, end to end: the same command against the same server resumes (nothing recomputed,
    although the server's ``created`` and ``permission`` changed); once the server reports other weights under the
    same name, the folder's answers are not reused (the folder is refused as another model's)."""
    from negkit.cli import main

    data = shared_data_path("scone")
    out = tmp_path / "run"
    argv = ["eval", "--model", f"openai:{server.url}#tiny", "--tasks", "scone", "--limit", "2"]
    argv += ["--data", str(data.parent), "--out", str(out), "--no-progress", "--bootstrap", "0"]
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    first = json.loads((out / "scone.results.json").read_text())
    assert first["model"]["load"]["server_model"]["reported"]
    assert main(argv) == 0, capsys.readouterr().err
    again = json.loads((out / "scone.results.json").read_text())
    assert again["requests"]["computed"] == 0 and again["model"]["key"] == first["model"]["key"]
    root = first["model"]["load"]["server_model"]["entry"]["root"]
    try:
        _control(server, models=[{"id": "tiny", "owned_by": "negkit-test", "root": root + "-v2"}])
        capsys.readouterr()
        assert main(argv) == 2
        error = capsys.readouterr().err
        assert "a run folder holds one" in error and first["model"]["key"] in error and "Traceback" not in error
    finally:
        _control(server, models=[{"id": "tiny", "owned_by": "negkit-test", "root": root, "max_model_len": 64}])


def test_the_servers_system_fingerprints_are_recorded(server):
    """Issue 32, finding 17: OpenAI's ``system_fingerprint`` (the backend configuration that answered) comes with
    each answer; every value seen is recorded, so a change during a run shows in the results."""
    client = OpenAICompatibleLM(server.url, "tiny", retries=0)
    try:
        _control(server, system_fingerprint="fp_one")
        client.next_token_logprobs(["A dog is"], ["True", "False"])
        client.next_token_logprobs(["A cat is"], ["True", "False"])
        _control(server, system_fingerprint="fp_two")
        client.next_token_logprobs(["A rose is"], ["True", "False"])
    finally:
        _control(server)
    assert client.load_info["system_fingerprints"] == ["fp_one", "fp_two"]
