"""The OpenAI-compatible backend against a real HTTP server process on loopback."""

from __future__ import annotations

import json
import os
import urllib.request
import subprocess
import sys
from pathlib import Path

import pytest

from negkit.errors import NegkitError
from negkit.models.base import LoglikelihoodRequest
from negkit.models.hf_causal import HFCausalLM
from negkit.models.openai_server import OpenAICompatibleLM
from negkit.models.registry import load_model
from negkit.benchmarks.tind.task import TruthTask
from tiny_models import save_tiny_causal
from conftest import TESTS



@pytest.fixture(scope="module")
def model_folder(tmp_path_factory):
    return save_tiny_causal(tmp_path_factory.mktemp("served-model"))


@pytest.fixture(scope="module")
def reference(model_folder):
    return HFCausalLM.from_pretrained(str(model_folder), batch_size=4)


class Server:
    def __init__(self, folder: Path, *flags: str) -> None:
        env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": ""}
        self.process = subprocess.Popen([sys.executable, str(TESTS / "openai_test_server.py"), str(folder), *flags],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
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
    request = urllib.request.Request(server.url.removesuffix("/v1") + "/control", data=json.dumps(settings).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
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
        requests = [LoglikelihoodRequest(f"Is the following statement True or False? A {noun} is an animal.", ending)
                    for noun in ("dog", "cat") for ending in (" True", " False", " not a plant")]
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
