"""A small OpenAI-compatible server for the tests, backed by a transformers model folder.

Usage: python openai_test_server.py MODEL_FOLDER [--fail-first N] [--no-logprobs] [--no-echo] [--prompt-logprobs]
Serves /v1/completions (echo + logprobs, top_logprobs, max_tokens 0 or 1) and /v1/chat/completions
(top_logprobs of the first generated token) on 127.0.0.1 at a free port, printed as "PORT <n>" once ready.
``--fail-first N`` answers HTTP 503 to the first N requests; ``--no-logprobs`` never returns logprobs;
``--no-echo`` answers HTTP 400 to ``echo`` (as some servers do); ``--prompt-logprobs`` serves vLLM's
``prompt_logprobs`` extension (per prompt token after the first: ``{"<id>": {"logprob", "rank",
"decoded_token"}}``), which is ignored otherwise. POST /control {"fail_next": N, "logprobs": bool,
"echo": bool, "prompt_logprobs": bool} changes them while the server runs. GET /v1/models lists one model, ``tiny``,
as vLLM does (``created`` the time of the request, a fresh ``permission`` id, ``root`` the model folder); POST
/control {"models": [ENTRY, ...]} serves those entries instead (with ``created`` set per request), and
{"models": null} answers HTTP 404 there; {"system_fingerprint": "fp_..."} adds that field to every completion.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


class Backend:
    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
        self.lock = threading.Lock()

    def logprobs(self, text: str) -> tuple[list[int], list[tuple[int, int]], torch.Tensor]:
        encoding = self.tokenizer(text, add_special_tokens=True, return_offsets_mapping=True)
        ids = encoding["input_ids"]
        with self.lock, torch.no_grad():
            logits = self.model(input_ids=torch.tensor([ids])).logits[0]
        return ids, encoding["offset_mapping"], torch.log_softmax(logits, dim=-1)

    def top(self, row: torch.Tensor, k: int) -> dict[str, float]:
        values, indices = row.topk(min(k, row.numel()))
        return {self.tokenizer.decode([int(i)]): float(v) for v, i in zip(values, indices)}

    def prompt_logprobs(self, prompt: str) -> list:
        ids, _offsets, logprobs = self.logprobs(prompt)
        rows: list = [None]
        for position in range(1, len(ids)):
            row, token = logprobs[position - 1], ids[position]
            rank = int((row > row[token]).sum()) + 1
            rows.append(
                {
                    str(token): {
                        "logprob": float(row[token]),
                        "rank": rank,
                        "decoded_token": self.tokenizer.decode([token]),
                    }
                }
            )
        return rows

    def completion(self, prompt: str, max_tokens: int, echo: bool, k: int | None) -> dict:
        ids, offsets, logprobs = self.logprobs(prompt)
        result: dict = {"text": "", "logprobs": None}
        if k is None:
            return result
        tokens, values, text_offsets, tops = [], [], [], []
        if echo:
            for position, (token_id, (start, end)) in enumerate(zip(ids, offsets)):
                if start == end:  # a special token added by the tokenizer: not part of the prompt text
                    continue
                tokens.append(prompt[start:end])
                text_offsets.append(start)
                values.append(float(logprobs[position - 1, token_id]) if position else None)
                tops.append(self.top(logprobs[position - 1], max(1, k)) if position else None)
        if max_tokens >= 1:
            row = logprobs[-1]
            best = int(row.argmax())
            word = self.tokenizer.decode([best])
            tokens.append(word)
            values.append(float(row[best]))
            text_offsets.append(len(prompt))
            tops.append(self.top(row, max(1, k)))
            result["text"] = word
        result["logprobs"] = {
            "tokens": tokens,
            "token_logprobs": values,
            "text_offset": text_offsets,
            "top_logprobs": tops,
        }
        return result


def make_handler(
    backend: Backend, fail_first: int, no_logprobs: bool, echo: bool = True, prompt_logprobs: bool = False
):
    state = {"failures_left": fail_first, "no_logprobs": no_logprobs, "echo": echo, "prompt_logprobs": prompt_logprobs}
    state["models"] = [{"id": "tiny", "owned_by": "negkit-test", "root": backend.folder, "max_model_len": 64}]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def reply(self, status: int, payload: dict) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            if self.path != "/v1/models" or state["models"] is None:
                return self.reply(404, {"error": f"no route {self.path}"})
            now = int(time.time())
            entries = [
                {
                    "object": "model",
                    "created": now,
                    **entry,
                    "permission": [{"id": f"modelperm-{uuid.uuid4().hex}", "created": now}],
                }
                for entry in state["models"]
            ]
            return self.reply(200, {"object": "list", "data": entries})

        def do_POST(self) -> None:  # noqa: N802 - http.server naming
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path == "/control":
                state["failures_left"] = int(request.get("fail_next", 0))
                state["no_logprobs"] = not request.get("logprobs", True)
                state["echo"] = request.get("echo", True)
                state["prompt_logprobs"] = request.get("prompt_logprobs", False)
                if "models" in request:
                    state["models"] = request["models"]
                state["system_fingerprint"] = request.get("system_fingerprint")
                return self.reply(200, {"ok": True})
            no_logprobs = state["no_logprobs"]
            if state["failures_left"] > 0:
                state["failures_left"] -= 1
                return self.reply(503, {"error": "warming up"})
            if self.path == "/v1/completions":
                if request.get("echo") and not state["echo"]:
                    return self.reply(400, {"error": {"message": "echo is not supported"}})
                prompts = request["prompt"] if isinstance(request["prompt"], list) else [request["prompt"]]
                k = None if no_logprobs or request.get("logprobs") is None else int(request["logprobs"])
                choices = []
                for index, prompt in enumerate(prompts):
                    choice = backend.completion(
                        prompt, int(request.get("max_tokens", 16)), bool(request.get("echo")), k
                    )
                    if state["prompt_logprobs"] and request.get("prompt_logprobs") is not None:
                        choice["prompt_logprobs"] = backend.prompt_logprobs(prompt)
                    choices.append({"index": index, "finish_reason": "length", **choice})
                extra = {"system_fingerprint": state["system_fingerprint"]} if state.get("system_fingerprint") else {}
                return self.reply(200, {"object": "text_completion", "choices": choices, **extra})
            if self.path == "/v1/chat/completions":
                prompt = backend.tokenizer.apply_chat_template(
                    request["messages"], tokenize=False, add_generation_prompt=True
                )
                k = int(request.get("top_logprobs", 1))
                choice = backend.completion(prompt, 1, False, k)
                content = None
                if request.get("logprobs") and not no_logprobs:
                    lp = choice["logprobs"]
                    content = [
                        {
                            "token": lp["tokens"][0],
                            "logprob": lp["token_logprobs"][0],
                            "top_logprobs": [{"token": t, "logprob": v} for t, v in lp["top_logprobs"][0].items()],
                        }
                    ]
                return self.reply(
                    200,
                    {
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": choice["text"]},
                                "logprobs": {"content": content} if content else None,
                            }
                        ]
                    },
                )
            return self.reply(404, {"error": f"no route {self.path}"})

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(allow_abbrev=False)
    parser.add_argument("folder")
    parser.add_argument("--fail-first", type=int, default=0)
    parser.add_argument("--no-logprobs", action="store_true")
    parser.add_argument("--no-echo", action="store_true")
    parser.add_argument("--prompt-logprobs", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0),
        make_handler(Backend(args.folder), args.fail_first, args.no_logprobs, not args.no_echo, args.prompt_logprobs),
    )
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
