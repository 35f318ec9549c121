"""Malformed inputs of `negkit eval`: model folders and files, hub names offline, server replies, the run store and
every flag. One `negkit: error: FILE[:LINE]: problem` line, exit 2, nothing on stdout, no traceback, no hang."""

from __future__ import annotations

import json
import pickle
import socket
import struct
import threading
import time
from pathlib import Path

import pytest
from malformed import assert_input_error
from tiny_models import save_tiny_causal, synthetic_truth_items

from negkit.benchmarks.tind.data import write_tind_jsonl


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("eval-data") / "test.jsonl"
    write_tind_jsonl(synthetic_truth_items(groups_per_pattern=1, patterns=(1,)), path, extended=True)
    return path


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return save_tiny_causal(tmp_path_factory.mktemp("eval-model") / "m")


def _eval(spec, data, tmp_path, *extra) -> list:
    return [
        "eval",
        "--model",
        spec,
        "--tasks",
        "tind",
        "--data",
        data,
        "--out",
        tmp_path / "run",
        "--no-progress",
        *extra,
    ]


def _copy_model(model: Path, target: Path, drop: tuple[str, ...] = ()) -> Path:
    target.mkdir(parents=True)
    for path in model.iterdir():
        if path.name not in drop:
            (target / path.name).write_bytes(path.read_bytes())
    return target


MODEL_CASES = {  # name -> (breakage of a copy of the tiny model folder, file the error names, relative)
    "empty-folder": (lambda m: [p.unlink() for p in m.iterdir()], ""),
    "no-tokenizer": (
        lambda m: [
            p.unlink() for p in m.iterdir() if "token" in p.name or p.name.startswith(("vocab", "merges", "special"))
        ],
        "",
    ),
    "garbage-config": (lambda m: (m / "config.json").write_text("{garbage"), "config.json"),
    "config-not-object": (lambda m: (m / "config.json").write_text("[1]"), "config.json"),
    "config-without-model-type": (lambda m: (m / "config.json").write_text('{"hidden_size": 4}'), "config.json"),
    "config-not-utf8": (lambda m: (m / "config.json").write_bytes(b'{"model_type": "\xff"}'), "config.json"),
    "no-weights": (lambda m: (m / "model.safetensors").unlink(), ""),
    "truncated-weights": (
        lambda m: (m / "model.safetensors").write_bytes((m / "model.safetensors").read_bytes()[:5000]),
        "model.safetensors",
    ),
    "garbage-weights": (lambda m: (m / "model.safetensors").write_bytes(b"\xff" * 64), "model.safetensors"),
    "pickle-weights": (
        lambda m: ((m / "model.safetensors").unlink(), (m / "pytorch_model.bin").write_bytes(pickle.dumps(Path("x")))),
        "",
    ),
}


@pytest.mark.parametrize("case", sorted(MODEL_CASES))
@pytest.mark.parametrize("scheme", ["hf:", "", "nli:"])
def test_broken_model_folder(scheme, case, model, data, tmp_path, capsys):
    folder = _copy_model(model, tmp_path / "model")
    breakage, name = MODEL_CASES[case]
    breakage(folder)
    where = folder / name if name else folder
    argv = _eval(f"{scheme}{folder}", data, tmp_path)
    if scheme == "nli:":  # a classifier task, on tiny NaN-NLI data
        from test_malformed_suites import _csv_text, _nan_rows

        (tmp_path / "nli" / "nan-nli").mkdir(parents=True)
        (tmp_path / "nli" / "nan-nli" / "nan.csv").write_text(_csv_text(_nan_rows()))
        argv[4:7] = ["nan-nli", "--data", tmp_path / "nli"]
    assert_input_error(argv, capsys, where=where)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("silenced", [False, True], ids=["default-logging", "transformers-silenced"])
def test_weights_of_another_shape(model, data, tmp_path, capsys, silenced):
    """The error quotes the first mismatch, also after an earlier caller (the resolution taggers do) silenced
    transformers' warnings."""
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    if silenced:
        hf_logging.set_verbosity_error()
    folder = _copy_model(model, tmp_path / "model")
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "hidden_size": 2 * config["hidden_size"]}))
    before = hf_logging.get_verbosity()
    try:
        line = assert_input_error(_eval(f"hf:{folder}", data, tmp_path), capsys, where=folder, allow_notes=True)
        assert hf_logging.get_verbosity() == before  # the load leaves the caller's verbosity as it found it
    finally:
        hf_logging.set_verbosity(level)
    assert "size mismatch" in line and "above report" not in line


def _gguf_header(tensors: int = 1, metadata: int = 0, version: int = 3) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, tensors, metadata)


GGUF_CASES = {
    "empty": b"",
    "not-gguf": b"PK\x03\x04 this is a zip, not a gguf file",
    "header-only": _gguf_header(tensors=0),
    "cut-in-header": _gguf_header()[:12],
    "bad-version": _gguf_header(version=99),
    "truncated": _gguf_header(tensors=3, metadata=2) + b"\x05\x00\x00\x00\x00\x00\x00\x00abc",
}


@pytest.mark.parametrize("case", sorted(GGUF_CASES))
def test_broken_gguf_file(case, data, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("NEGKIT_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "model.gguf"
    path.write_bytes(GGUF_CASES[case])
    assert_input_error(_eval(f"gguf:{path}", data, tmp_path), capsys, where=path)
    assert not list((tmp_path / "cache").rglob("*.partial"))  # a failed conversion leaves nothing behind


@pytest.mark.parametrize(
    "spec",
    [
        "gguf:{tmp}/missing.gguf",
        "gguf:{tmp}",
        "nli:{tmp}/absent",
        "hf:./absent-here",
        "{tmp}/a/b/c",
        "~/surely-absent-model",
        "openai:http://[::1#m",
    ],
)
def test_missing_model_paths(spec, data, tmp_path, capsys):
    spec = spec.format(tmp=tmp_path)
    line = assert_input_error(_eval(spec, data, tmp_path), capsys)
    assert "hub" not in line


@pytest.mark.parametrize("spec", ["hf:some-org/some-model", "nli:some-org/some-nli", "some-org/bare-name"])
def test_hub_names_offline_fail_fast(spec, data, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    started = time.monotonic()
    assert_input_error(_eval(spec, data, tmp_path), capsys, contains="the Hugging Face hub cannot be used")
    assert time.monotonic() - started < 10


# -- OpenAI-compatible servers that answer badly --------------------------------------------------------


class CannedServer:
    """Accepts connections on 127.0.0.1 and answers each with ``reply`` bytes (None: never answers)."""

    def __init__(self, reply: bytes | None) -> None:
        self.reply = reply
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(8)
        self.port = self.socket.getsockname()[1]
        self.connections: list[socket.socket] = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.connections.append(connection)
            connection.recv(65536)
            if self.reply is not None:
                connection.sendall(self.reply)
                connection.close()

    def close(self) -> None:
        for connection in self.connections:
            connection.close()
        self.socket.close()


def _http(body: bytes, status: str = "200 OK") -> bytes:
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode() + body


SERVER_CASES = {
    "not-json": (_http(b"<html>hello</html>"), "did not answer JSON"),
    "not-http": (b"SSH-2.0-OpenSSH_9.0\r\n" * 3, "did not answer HTTP"),
    "json-list": (_http(b"[1, 2, 3]"), "not an object"),
    "no-choices": (_http(b'{"id": "x"}'), "no list of choices"),
    "choices-wrong-type": (_http(b'{"choices": [{"logprobs": {"top_logprobs": "nope"}}]}'), "no top_logprobs"),
    "logprob-not-a-number": (
        _http(b'{"choices": [{"logprobs": {"top_logprobs": [{"True": "high"}]}}]}'),
        "not what the OpenAI API returns",
    ),
    "http-404": (_http(b'{"error": "no such route"}', "404 Not Found"), "HTTP 404"),
    "never-answers": (None, "no answer within 1 s"),
}


@pytest.mark.parametrize("case", sorted(SERVER_CASES))
def test_bad_server_replies(case, data, tmp_path, capsys):
    reply, fragment = SERVER_CASES[case]
    server = CannedServer(reply)
    url = f"http://127.0.0.1:{server.port}/v1"
    try:
        started = time.monotonic()
        argv = _eval(f"openai:{url}#m", data, tmp_path, "--timeout", "1", "--retries", "1", "--batch-size", "1")
        assert_input_error(argv, capsys, where=url, contains=fragment)
        assert time.monotonic() - started < 15
    finally:
        server.close()


def test_server_options_only_for_servers(model, data, tmp_path, capsys):
    assert_input_error(
        _eval(f"hf:{model}", data, tmp_path, "--timeout", "5"), capsys, contains="--timeout apply to openai: models"
    )


# -- the run store -----------------------------------------------------------------------------------

RUN_STORE_CASES = {
    "damaged-middle-line": (b'{"key": "a", "response": 1}\nnot json\n{"key": "b", "response": 2}\n', 2),
    "not-utf8-middle-line": (b'{"key": "a", "response": 1}\n\xff\xfe\n{"key": "b", "response": 2}\n', 2),
    "array-middle-line": (b'{"key": "a", "response": 1}\n[1, 2]\n{"key": "b", "response": 2}\n', 2),
}


@pytest.mark.parametrize("case", sorted(RUN_STORE_CASES))
def test_damaged_run_store(case, model, data, tmp_path, capsys):
    content, line = RUN_STORE_CASES[case]
    (tmp_path / "run").mkdir()
    store = tmp_path / "run" / "requests.jsonl"
    store.write_bytes(content)
    assert_input_error(_eval(f"hf:{model}", data, tmp_path), capsys, where=store, line=line)
    assert store.read_bytes() == content  # nothing earlier is lost


def test_run_store_that_is_a_folder(model, data, tmp_path, capsys):
    (tmp_path / "run" / "requests.jsonl").mkdir(parents=True)
    assert_input_error(_eval(f"hf:{model}", data, tmp_path), capsys, where=tmp_path / "run" / "requests.jsonl")


# -- flags --------------------------------------------------------------------------------------------

FLAG_CASES = [
    ["--limit", "abc"],
    ["--limit", "0"],
    ["--limit", "-3"],
    ["--limit", "tind="],
    ["--limit", "x" * 100_000],
    ["--batch-size", "0"],
    ["--batch-size", "many"],
    ["--seed", "x"],
    ["--split", ""],
    ["--split", "dev2"],
    ["--model-args", "=broken"],
    ["--model-args", "no_such_key=1"],
    ["--chunk-size", "0"],
    ["--commit-seconds", "-1"],
    ["--wait-lock", "-1"],
    ["--timeout", "0"],
    ["--retries", "-1"],
    ["--mode", "exact", "--dtype", "bfloat16"],
    ["--tasks", "no-such-task"],
    ["--tasks", ","],
    ["--prompt", "99"],
    ["--num-fewshot", "-1"],
    ["--unknown-flag"],
    ["--seed", "-1"],
    ["--bootstrap-seed", "-1"],
    ["--seed", str(2**32)],
    ["--model-args", "k" * 100_000 + "=1"],
    ["--model-args", "a='" + "x" * 100_000],
    ["--device", "gpu0"],
    ["--model-args", "batch_size=0"],
]


@pytest.mark.parametrize("flags", FLAG_CASES, ids=lambda flags: " ".join(flags)[:30])
def test_bad_flags(flags, model, data, tmp_path, capsys):
    argv = _eval(f"hf:{model}", data, tmp_path)
    if "--tasks" in flags:
        argv = argv[:3] + argv[5:]
    assert_input_error(argv + flags, capsys)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("response", ['"oops"', '{"True": "high", "False": -1.0}', '{"loglikelihood": [1, 2]}', "[]"])
def test_run_store_answer_of_the_wrong_form(response, model, data, tmp_path, capsys):
    from negkit.cli import main

    argv = _eval(f"hf:{model}", data, tmp_path)
    capsys.readouterr()
    assert main([str(a) for a in argv]) == 0
    store = tmp_path / "run" / "requests.jsonl"
    lines = store.read_text().splitlines()
    first = json.loads(lines[0])
    lines[0] = json.dumps({"key": first["key"], "response": json.loads(response)})
    store.write_text("\n".join(lines) + "\n")
    assert_input_error(argv, capsys, where=store, line=1, contains="damaged run store line", allow_notes=True)
