"""An OpenAI-compatible HTTP server (vLLM, llama.cpp's server, TGI, ...) as a language model.

Spec: ``openai:http://HOST:PORT/v1#MODEL`` (append ``?chat`` to the model to send chat prompts to
``/v1/chat/completions``). Standard library only (urllib).

- ``loglikelihood``: ``/v1/completions`` with ``echo`` and ``logprobs``, ``max_tokens=0``; the
  continuation's tokens are those whose ``text_offset`` lies at or after the end of the context. A server
  that refuses ``echo`` or echoes no prompt logprobs is asked with vLLM's ``prompt_logprobs=0`` instead
  (each prompt token's log-probability and rank; the continuation's tokens are found from the end by their
  decoded text); a server that offers neither gets a clear error (next-token tasks still work there).
  Which way was used is recorded in ``load_info["continuation_scoring"]``.
- ``next_token_logprobs``: one generated token with ``top_logprobs`` (completions ``logprobs=K``, or chat
  ``logprobs=true, top_logprobs=K``); a candidate absent from the top K gets ``-inf`` (the server does not
  expose the whole vocabulary, which the result records through the fingerprint's ``top_k``).
- ``generate``: greedy (``temperature=0``) completions.

Requests time out, and failures that may pass (connection errors, HTTP 429 and 5xx) are retried with
exponential backoff; a server that cannot return what a task needs (no logprobs, no echo) raises a
:class:`NegkitError` that says so.
"""

from __future__ import annotations

import json
import math
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from negkit.errors import NegkitError
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult, ModelFingerprint

#: Marks a context that holds chat messages (JSON) rather than text; made by ``apply_chat_template``.
CHAT_MARKER = "\x00chat:"
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


class ServerRefused(NegkitError):
    """The server answered a request with an HTTP error that retrying does not cure (``status``)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class OpenAICompatibleLM:
    """A language model served over the OpenAI completions / chat completions API."""

    is_encoder_decoder = False
    #: ``--model-args`` keys (and Python options) this backend knows.
    MODEL_ARGS = {
        "timeout": "seconds to wait for an answer (default 60)",
        "retries": "tries after a connection error, HTTP 408/429/5xx (default 4)",
        "backoff": "first wait between tries in seconds, doubled each time (default 0.5)",
        "top_k": "top logprobs asked per next token (default 20)",
        "api_key": "bearer token (default: none; never recorded)",
        "batch_size": "prompts per completions request (default 16)",
    }

    def __init__(self, base_url: str, model: str, chat: bool = False, timeout: float = 60.0, retries: int = 4,
                 backoff: float = 0.5, top_k: int = 20, api_key: str | None = None, batch_size: int | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.chat = chat
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.top_k = top_k
        self.api_key = api_key
        self.batch_size = batch_size or 16
        extra = (("model", model), ("top_k", str(top_k)), ("chat", str(chat)))
        self.fingerprint = ModelFingerprint(backend="openai", name=f"{self.base_url}#{model}", dtype="server", extra=extra)
        self.load_info: dict[str, Any] = {"backend": "openai", "url": self.base_url, "model": model, "chat": chat,
                                          "timeout": timeout, "retries": retries, "top_k": top_k,
                                          "batch_size": self.batch_size}

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> OpenAICompatibleLM:
        """Build from ``URL#MODEL`` or ``URL#MODEL?chat``."""
        url, _, model = spec.partition("#")
        if not url.startswith(("http://", "https://")):
            raise NegkitError(f"openai model spec needs a URL: openai:http://HOST:PORT/v1#MODEL, got {spec!r}")
        model, _, flags = model.partition("?")
        return cls(url, model or "default", chat="chat" in flags.split("&"), **options)

    # -- chat ---------------------------------------------------------------------------------------
    @property
    def has_chat_template(self) -> bool:
        return self.chat

    def apply_chat_template(self, messages: Sequence[dict[str, str]]) -> str:
        """Chat messages travel to the server as messages; the server applies its own template."""
        return CHAT_MARKER + json.dumps(list(messages), ensure_ascii=False, sort_keys=True)

    # -- HTTP ---------------------------------------------------------------------------------------
    def _post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        body = json.dumps({"model": self.model, **payload}).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last_problem = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            request = urllib.request.Request(f"{self.base_url}{path}", data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as error:
                detail = error.read().decode("utf-8", "replace")[:300]
                if error.code not in RETRY_STATUSES:
                    raise ServerRefused(f"server {self.base_url}{path} answered HTTP {error.code}: {detail}",
                                        error.code) from None
                last_problem = f"HTTP {error.code}: {detail}"
            except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
                last_problem = str(getattr(error, "reason", error))
            except ValueError as error:
                raise NegkitError(f"server {self.base_url}{path} did not answer JSON: {error}") from None
        raise NegkitError(f"server {self.base_url}{path} failed after {self.retries + 1} tries: {last_problem}")

    def _completions(self, prompts: Sequence[str], **payload: Any) -> list[dict[str, Any]]:
        answer = self._post("/completions", {"prompt": list(prompts), "temperature": 0, **payload})
        choices = sorted(answer.get("choices", []), key=lambda choice: choice.get("index", 0))
        if len(choices) != len(prompts):
            raise NegkitError(f"server returned {len(choices)} completions for {len(prompts)} prompts")
        return choices

    def _batches(self, items: Sequence[Any]) -> list[Sequence[Any]]:
        return [items[start : start + self.batch_size] for start in range(0, len(items), self.batch_size)]

    # -- protocol -----------------------------------------------------------------------------------
    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        results: list[LoglikelihoodResult] = []
        if any(request.add_bos is not None for request in requests):
            raise NegkitError("an OpenAI-compatible server tokenizes the prompt itself: negkit cannot set its BOS "
                              "policy (use the default, the server's tokenizer)")
        for batch in self._batches(list(requests)):
            if any(request.context.startswith(CHAT_MARKER) for request in batch):
                raise NegkitError("log-likelihoods of chat prompts need the server's template text; use a text prompt")
            mode = self.load_info.get("continuation_scoring")
            if mode != "prompt_logprobs":
                try:
                    choices = self._completions([r.context + r.continuation for r in batch], max_tokens=0, echo=True,
                                                logprobs=1)
                    results += [_continuation_score(choice, len(r.context)) for r, choice in zip(batch, choices)]
                    self.load_info["continuation_scoring"] = "echo"
                    continue
                except (ServerRefused, MissingLogprobs) as problem:
                    if mode == "echo" or (isinstance(problem, ServerRefused) and problem.status not in (400, 422)):
                        raise
            results += self._prompt_logprob_scores(batch)
            self.load_info["continuation_scoring"] = "prompt_logprobs"
        return results

    def _prompt_logprob_scores(self, batch: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        """Continuation scores from vLLM's ``prompt_logprobs`` (the servers that refuse ``echo``)."""
        try:
            choices = self._completions([r.context + r.continuation for r in batch], max_tokens=1, prompt_logprobs=0)
        except ServerRefused as problem:
            if problem.status not in (400, 422):
                raise
            choices = []
        if not choices or any(not choice.get("prompt_logprobs") for choice in choices):
            raise NegkitError(f"the server at {self.base_url} scores no prompt tokens (neither echo+logprobs nor "
                              "prompt_logprobs on /completions): log-likelihood tasks cannot run against it; "
                              "next-token tasks (e.g. tind) can")
        return [_prompt_logprobs_score(choice["prompt_logprobs"], request.continuation)
                for request, choice in zip(batch, choices)]

    def next_token_logprobs(self, contexts: Sequence[str], candidates: Sequence[str]) -> list[dict[str, float]]:
        answers: list[dict[str, float]] = []
        for context in contexts:
            if context.startswith(CHAT_MARKER):
                answers.append(self._chat_next_token(json.loads(context[len(CHAT_MARKER):]), candidates))
        text_contexts = [context for context in contexts if not context.startswith(CHAT_MARKER)]
        text_answers: list[dict[str, float]] = []
        for batch in self._batches(text_contexts):
            for choice in self._completions(batch, max_tokens=1, logprobs=self.top_k):
                top = _require_logprobs(choice).get("top_logprobs") or []
                if not top or not isinstance(top[0], dict):
                    raise NegkitError("the server returned no top_logprobs for the next token; this task needs them")
                text_answers.append(_pick(top[0], candidates))
        chat_iter, text_iter = iter(answers), iter(text_answers)
        return [next(chat_iter) if c.startswith(CHAT_MARKER) else next(text_iter) for c in contexts]

    def _chat_next_token(self, messages: list[dict[str, str]], candidates: Sequence[str]) -> dict[str, float]:
        answer = self._post("/chat/completions", {"messages": messages, "max_tokens": 1, "temperature": 0,
                                                  "logprobs": True, "top_logprobs": self.top_k})
        try:
            content = answer["choices"][0]["logprobs"]["content"]
            top = {entry["token"]: entry["logprob"] for entry in content[0]["top_logprobs"]}
        except (KeyError, IndexError, TypeError):
            raise NegkitError("the server's chat completion has no top_logprobs; this task needs them") from None
        return _pick(top, candidates)

    def generate(self, contexts: Sequence[str], max_new_tokens: int = 8, stop: Sequence[str] = ()) -> list[str]:
        outputs = []
        for context in contexts:
            if context.startswith(CHAT_MARKER):
                payload = {"messages": json.loads(context[len(CHAT_MARKER):]), "max_tokens": max_new_tokens, "temperature": 0}
                if stop:
                    payload["stop"] = list(stop)
                outputs.append(self._post("/chat/completions", payload)["choices"][0]["message"]["content"] or "")
            else:
                payload = {"max_tokens": max_new_tokens, **({"stop": list(stop)} if stop else {})}
                outputs.append(self._completions([context], **payload)[0].get("text", ""))
        return outputs


class MissingLogprobs(NegkitError):
    """The server answered without the logprobs that were asked for."""


def _require_logprobs(choice: dict[str, Any]) -> dict[str, Any]:
    logprobs = choice.get("logprobs")
    if not logprobs:
        raise MissingLogprobs("the server returned no logprobs; this task needs a server that supports logprobs")
    return logprobs


def _pick(top: dict[str, float], candidates: Sequence[str]) -> dict[str, float]:
    """Each candidate's log-probability among the top tokens (-inf when absent)."""
    return {candidate: float(top.get(candidate, -math.inf)) for candidate in candidates}


def _continuation_score(choice: dict[str, Any], context_chars: int) -> LoglikelihoodResult:
    logprobs = _require_logprobs(choice)
    offsets = logprobs.get("text_offset")
    values = logprobs.get("token_logprobs")
    tokens = logprobs.get("tokens")
    if not offsets or values is None or tokens is None:
        raise MissingLogprobs("the server did not echo the prompt's token logprobs (echo=true); log-likelihood tasks need them")
    top = logprobs.get("top_logprobs") or [None] * len(tokens)
    total, greedy, count = 0.0, True, 0
    for offset, token, value, alternatives in zip(offsets, tokens, values, top):
        if offset + len(token) <= context_chars:
            continue
        if value is None:
            raise NegkitError("the server returned no logprob for a continuation token")
        total += float(value)
        count += 1
        if alternatives:
            greedy = greedy and max(alternatives, key=alternatives.get) == token
    return LoglikelihoodResult(total, greedy, count)


def _prompt_logprobs_score(rows: list[Any], continuation: str) -> LoglikelihoodResult:
    """Sum the last prompt tokens' log-probabilities whose decoded text makes up ``continuation`` exactly.

    ``rows`` is vLLM's ``prompt_logprobs`` with ``prompt_logprobs=0``: None for the first token, then one
    ``{token_id: {"logprob", "rank", "decoded_token"}}`` per prompt token (the prompt token itself)."""
    total, greedy, count, text = 0.0, True, 0, ""
    for row in reversed(rows):
        if len(text) >= len(continuation):
            break
        if not row:
            break
        entry = next(iter(row.values()))
        total += float(entry["logprob"])
        greedy = greedy and entry.get("rank") == 1
        count += 1
        text = str(entry.get("decoded_token") or "") + text
    if text != continuation:
        raise NegkitError(f"the continuation {continuation!r} does not start at a token boundary of the server's "
                          f"tokenization (its last tokens decode to {text!r}); use the echo path or another prompt")
    return LoglikelihoodResult(total, greedy, count)
