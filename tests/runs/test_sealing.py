"""Sealed answers in the run store (negkit.runs.sealing): the text is unreadable in the file, opens only with its
request, and a damaged or misplaced sealed answer is an error naming the store file and line."""

from __future__ import annotations

import json

import pytest

from negkit.errors import InputFormatError
from negkit.models.base import GenerateRequest, ModelFingerprint, NextTokenRequest
from negkit.runs.runner import answer_requests
from negkit.runs.sealing import SEALED, SealError, is_sealed, seal, unseal
from negkit.runs.store import RunStore

SECRET = "A dog is not an animal."


class EchoModel:
    """A fake language model that restates the statement it is asked about, and counts what it was asked."""

    fingerprint = ModelFingerprint(backend="test", name="echo", dtype="float32")

    def __init__(self):
        self.asked: list[str] = []

    def generate(self, contexts, max_new_tokens=8, stop=()):
        self.asked += contexts
        return [f"{context.split(': ', 1)[-1]} That is True." for context in contexts]

    def next_token_logprobs(self, contexts, candidates):
        self.asked += contexts
        return [{candidate: -1.0 - index for index, candidate in enumerate(candidates)} for _ in contexts]


def test_seal_round_trip_and_refusals():
    request = GenerateRequest(f"Statement: {SECRET}", 5)
    sealed = seal("restating: " + SECRET, request)
    assert is_sealed(sealed) and SECRET not in json.dumps(sealed) and "dog" not in json.dumps(sealed)
    assert unseal(sealed, request) == "restating: " + SECRET
    assert seal("x", request) != seal("x", request)  # a fresh nonce each time: no keystream is used twice
    with pytest.raises(SealError, match="does not open"):
        unseal(sealed, GenerateRequest("Statement: A cat is a plant.", 5))
    blob = sealed[SEALED]
    tampered = {SEALED: blob[:-4] + ("AAAA" if blob[-4:] != "AAAA" else "BBBB")}
    with pytest.raises(SealError):
        unseal(tampered, request)
    with pytest.raises(SealError, match="base64"):
        unseal({SEALED: "not base64!"}, request)
    with pytest.raises(SealError, match="too short"):
        unseal({SEALED: "AAAA"}, request)
    assert not is_sealed({"True": -1.0}) and not is_sealed("text") and not is_sealed({SEALED: 3})


def test_sealed_store_holds_no_generated_text_and_resumes(tmp_path):
    path = tmp_path / "requests.jsonl"
    requests = [GenerateRequest(f"Statement: {SECRET}", 5), GenerateRequest("Statement: The sun is cold.", 5)]
    model = EchoModel()
    with RunStore(path) as store:
        first = answer_requests(model, requests, store, seal=True)
    assert first == [f"{SECRET} That is True.", "The sun is cold. That is True."]
    text = path.read_text()
    assert SECRET not in text and "sun" not in text and "That is" not in text
    again = EchoModel()
    with RunStore(path) as store:
        assert answer_requests(again, requests, store, seal=True) == first
        assert answer_requests(again, requests, store, seal=False) == first  # sealed answers open either way
    assert again.asked == []


def test_only_generated_text_is_sealed(tmp_path):
    path = tmp_path / "requests.jsonl"
    with RunStore(path) as store:
        answer_requests(EchoModel(), [NextTokenRequest("Statement: x", ("True", "False"))], store, seal=True)
    (line,) = [json.loads(line) for line in path.read_text().splitlines()]
    assert line["response"] == {"True": -1.0, "False": -2.0}


def test_a_sealed_answer_moved_to_another_key_is_a_damaged_line(tmp_path):
    path = tmp_path / "requests.jsonl"
    requests = [GenerateRequest("Statement: one.", 5), GenerateRequest("Statement: two.", 5)]
    with RunStore(path) as store:
        answer_requests(EchoModel(), requests, store, seal=True)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[0]["response"], lines[1]["response"] = lines[1]["response"], lines[0]["response"]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with (
        RunStore(path) as store,
        pytest.raises(InputFormatError, match=r"requests\.jsonl:[12]: damaged run store line: .*does not open"),
    ):
        answer_requests(EchoModel(), requests, store, seal=True)
