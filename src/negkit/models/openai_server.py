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

The fingerprint (the run store's keys) is the URL, the model name, ``top_k``, the chat mode and what the server
reports about the model in ``GET /v1/models`` (:mod:`negkit.models.server_identity`), asked once when the
fingerprint is first needed (building the client asks nothing); ``load_info["server_model"]`` records the entry,
or why there was none (a server that lists no models, or cannot be reached: fingerprinted as ``not reported``).

Requests time out after ``timeout`` seconds (default :data:`DEFAULT_TIMEOUT`, ``--timeout``), and failures that
may pass (connection errors, HTTP 408, 429 and 5xx) are retried ``retries`` times (default
:data:`DEFAULT_RETRIES`, ``--retries``) with exponential backoff; a request that timed out is tried at most twice
(a request's own timeout may be long). The start-up probe (``GET /v1/models``, for the fingerprint) is asked once
with a short timeout (``probe_timeout``, default :data:`DEFAULT_PROBE_TIMEOUT`): a server that accepts the
connection and never answers fails there within about 10 s, with an error that says so. A server
that cannot return what a task needs (no logprobs, no echo), does not speak HTTP, or answers something other
than the expected JSON raises a :class:`NegkitError` that names the URL and says so.
"""

from __future__ import annotations

import functools
import http.client
import json
import math
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from negkit.errors import NegkitError
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult, ModelFingerprint
from negkit.models.conversation import ConversationTemplate
from negkit.models.server_identity import model_identity, not_reported

#: Marks a context that holds chat messages (JSON) rather than text; made by ``apply_chat_template``.
CHAT_MARKER = "\x00chat:"
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
#: Seconds to wait for a server's answer, and tries after a failure that may pass.
DEFAULT_TIMEOUT = 30.0
DEFAULT_RETRIES = 3
#: Seconds the start-up probe (``GET /v1/models``, before any request) waits for an answer, at most (and never
#: longer than ``timeout``): a server that accepts connections and never answers fails fast there.
DEFAULT_PROBE_TIMEOUT = 10.0
#: Tries of a request that timed out, at most (a server that never answers is not waited for again and again).
TIMEOUT_TRIES = 2


class ServerSilent(NegkitError):
    """The server accepted the connection and sent nothing within the start-up probe's timeout."""

    def __init__(self, url: str) -> None:
        super().__init__(f"{url}: no answer")
        self.url = url


class ServerRefused(NegkitError):
    """The server answered a request with an HTTP error that retrying does not cure (``status``)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _detail(raw: bytes, limit: int = 200) -> str:
    """A short, printable excerpt of what a server sent."""
    text = raw[: limit * 4].decode("utf-8", "replace").strip()
    text = " ".join(text.split())
    return repr(text[:limit] + ("..." if len(text) > limit else "")) if text else "nothing"


def check_numbers(**values: Any) -> None:
    """The numeric options of the backend are numbers in range (a clear error otherwise)."""
    for name, value in values.items():
        if value is None and name == "batch_size":
            continue
        whole = name in ("retries", "top_k", "batch_size")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and not isinstance(value, int)):
            raise NegkitError(f"openai model option {name} must be a {'whole ' if whole else ''}number, got {value!r}")
        if (name == "retries" and value < 0) or (name != "retries" and not value > 0) or not math.isfinite(value):
            raise NegkitError(f"openai model option {name} is out of range: {value!r}")


def _unexpected_replies(method: Any) -> Any:
    """A reply of the wrong shape (a field missing or of another type) becomes one error naming the server."""

    @functools.wraps(method)
    def wrapper(self: OpenAICompatibleLM, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except NegkitError as error:  # every message names the server
            if str(error).startswith(self.base_url):
                raise
            raise NegkitError(f"{self.base_url}: {error}") from None
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as error:
            raise NegkitError(
                f"{self.base_url}: the server's answer is not what the OpenAI API returns "
                f"({type(error).__name__}: {_detail(str(error).encode())})"
            ) from None

    return wrapper


class OpenAICompatibleLM:
    """A language model served over the OpenAI completions / chat completions API."""

    is_encoder_decoder = False
    #: ``--model-args`` keys (and Python options) this backend knows.
    MODEL_ARGS = {
        "timeout": f"seconds to wait for an answer (default {DEFAULT_TIMEOUT:g}; --timeout)",
        "retries": f"tries after a connection error, HTTP 408/429/5xx (default {DEFAULT_RETRIES}; --retries); a "
        "timed-out request is tried twice at most",
        "backoff": "first wait between tries in seconds, doubled each time (default 0.5)",
        "probe_timeout": f"seconds the start-up probe (GET /models) waits for an answer (default {DEFAULT_PROBE_TIMEOUT:g}, "
        "at most timeout); a server that accepts and never answers fails then",
        "top_k": "top logprobs asked per next token (default 20)",
        "api_key": "bearer token (default: none; never recorded)",
        "batch_size": "prompts per completions request (default 16)",
    }

    def __init__(
        self,
        base_url: str,
        model: str,
        chat: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        backoff: float = 0.5,
        top_k: int = 20,
        api_key: str | None = None,
        batch_size: int | None = None,
        probe_timeout: float = DEFAULT_PROBE_TIMEOUT,
    ) -> None:
        check_numbers(
            timeout=timeout,
            retries=retries,
            backoff=backoff,
            top_k=top_k,
            batch_size=batch_size,
            probe_timeout=probe_timeout,
        )
        self.probe_timeout = min(float(probe_timeout), float(timeout))
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.chat = chat
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.top_k = top_k
        self.api_key = api_key
        self.batch_size = batch_size or 16
        self._fingerprint: ModelFingerprint | None = None  # asks the server, at the first use
        self.load_info: dict[str, Any] = {
            "backend": "openai",
            "url": self.base_url,
            "model": model,
            "chat": chat,
            "timeout": timeout,
            "retries": retries,
            "top_k": top_k,
            "batch_size": self.batch_size,
            "probe_timeout": self.probe_timeout,
        }

    @property
    def fingerprint(self) -> ModelFingerprint:
        """URL, model name, ``top_k``, chat mode and the server's ``/v1/models`` entry (see the module
        documentation); the server is asked once, when this is first read."""
        if self._fingerprint is None:
            reported, record = self._server_model()
            self.load_info["server_model"] = record
            extra = (("model", self.model), ("top_k", str(self.top_k)), ("chat", str(self.chat)))
            self._fingerprint = ModelFingerprint(
                backend="openai",
                name=f"{self.base_url}#{self.model}",
                dtype="server",
                extra=(*extra, ("server_model", reported)),
            )
        return self._fingerprint

    @fingerprint.setter
    def fingerprint(self, value: ModelFingerprint) -> None:
        self._fingerprint = value

    def _server_model(self) -> tuple[str, dict[str, Any]]:
        """The fingerprint's ``server_model`` and what ``load_info`` records about the served model."""
        try:
            answer = self._request("GET", "/models", timeout=self.probe_timeout)
        except ServerSilent as silent:
            raise NegkitError(
                f"{silent.url}: the server accepted the connection but sent no answer within {self.probe_timeout:g} s "
                "(the start-up probe, GET /models; --model-args probe_timeout=S to wait longer)"
            ) from None
        except NegkitError as error:
            return not_reported(f"GET /models failed: {error}")
        return model_identity(answer, self.model)

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> OpenAICompatibleLM:
        """Build from ``URL#MODEL`` or ``URL#MODEL?chat``."""
        url, _, model = spec.partition("#")
        if not url.startswith(("http://", "https://")):
            raise NegkitError(f"openai model spec needs a URL: openai:http://HOST:PORT/v1#MODEL, got {spec!r}")
        model, _, flags = model.partition("?")
        return cls(url, model or "default", chat="chat" in flags.split("&"), **options)

    # -- chat ---------------------------------------------------------------------------------------
    #: A named template rendered here (the text goes to the completions endpoint) instead of the server's own.
    conversation_template: ConversationTemplate | None = None

    @property
    def has_chat_template(self) -> bool:
        return self.chat or self.conversation_template is not None

    def apply_chat_template(self, messages: Sequence[dict[str, str]]) -> str:
        """Chat messages travel to the server as messages and the server applies its own template; with a
        conversation template negkit renders them, and the text is an ordinary completion prompt."""
        if self.conversation_template is not None:
            return self.conversation_template.render(messages)
        return CHAT_MARKER + json.dumps(list(messages), ensure_ascii=False, sort_keys=True)

    # -- HTTP ---------------------------------------------------------------------------------------
    def _post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        return self._request("POST", path, {"model": self.model, **payload})

    def _request(
        self, method: str, path: str, payload: dict[str, Any] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        """The server's JSON answer to ``method path`` (with ``payload`` as the JSON body), retried as the module
        documentation says. With ``timeout`` (the start-up probe) a request that times out is not tried again:
        :class:`ServerSilent`."""
        body = None if payload is None else json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        url = f"{self.base_url}{path}"
        last_problem, tries, timeouts = "", 0, 0
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            tries += 1
            request = urllib.request.Request(url, data=body, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=timeout or self.timeout) as response:
                    raw = response.read()
            except urllib.error.HTTPError as error:
                detail = _detail(error.read())
                if error.code not in RETRY_STATUSES:
                    raise ServerRefused(f"{url}: the server answered HTTP {error.code}: {detail}", error.code) from None
                last_problem = f"HTTP {error.code}: {detail}"
                continue
            except (TimeoutError, urllib.error.URLError, ConnectionError, http.client.HTTPException, OSError) as error:
                reason = getattr(error, "reason", error)
                if isinstance(reason, TimeoutError) or isinstance(error, TimeoutError):
                    if timeout is not None:
                        raise ServerSilent(url) from None
                    timeouts += 1
                    last_problem = f"no answer within {self.timeout:g} s (--timeout)"
                    if timeouts >= TIMEOUT_TRIES:
                        break
                    continue
                if isinstance(error, http.client.HTTPException) and not isinstance(error, ConnectionError):
                    raise NegkitError(
                        f"{url}: the server did not answer HTTP ({type(error).__name__}: "
                        f"{_detail(str(error).encode())})"
                    ) from None
                last_problem = _detail(str(reason).encode())
                continue
            try:
                answer = json.loads(raw.decode("utf-8"))
            except (ValueError, RecursionError):
                raise NegkitError(f"{url}: the server did not answer JSON (it answered {_detail(raw)})") from None
            if not isinstance(answer, dict):
                raise NegkitError(f"{url}: the server answered a JSON {type(answer).__name__}, not an object")
            self._note_system_fingerprint(answer.get("system_fingerprint"))
            return answer
        raise NegkitError(f"{url}: failed after {tries} tries: {last_problem}")

    def _note_system_fingerprint(self, value: Any) -> None:
        """Record each ``system_fingerprint`` the server's answers carry (OpenAI's name for the backend
        configuration that answered), in ``load_info["system_fingerprints"]``: it comes with the answers, so it
        cannot enter the store keys, but the results show when it changed during a run."""
        if isinstance(value, str) and value not in self.load_info.setdefault("system_fingerprints", []):
            self.load_info["system_fingerprints"].append(value)

    def _completions(self, prompts: Sequence[str], **payload: Any) -> list[dict[str, Any]]:
        answer = self._post("/completions", {"prompt": list(prompts), "temperature": 0, **payload})
        choices = answer.get("choices")
        if not isinstance(choices, list) or not all(isinstance(choice, dict) for choice in choices):
            raise NegkitError(
                f"{self.base_url}/completions: the server's answer has no list of choices "
                f"({_detail(json.dumps(answer).encode())})"
            )
        choices = sorted(
            choices, key=lambda choice: choice.get("index", 0) if isinstance(choice.get("index"), int) else 0
        )
        if len(choices) != len(prompts):
            raise NegkitError(
                f"{self.base_url}/completions: the server returned {len(choices)} completions for "
                f"{len(prompts)} prompts"
            )
        return choices

    def _batches(self, items: Sequence[Any]) -> list[Sequence[Any]]:
        return [items[start : start + self.batch_size] for start in range(0, len(items), self.batch_size)]

    # -- protocol -----------------------------------------------------------------------------------
    @_unexpected_replies
    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        results: list[LoglikelihoodResult] = []
        if any(request.add_bos is not None for request in requests):
            raise NegkitError(
                "an OpenAI-compatible server tokenizes the prompt itself: negkit cannot set its BOS "
                "policy (use the default, the server's tokenizer)"
            )
        for batch in self._batches(list(requests)):
            if any(request.context.startswith(CHAT_MARKER) for request in batch):
                raise NegkitError("log-likelihoods of chat prompts need the server's template text; use a text prompt")
            mode = self.load_info.get("continuation_scoring")
            if mode != "prompt_logprobs":
                try:
                    choices = self._completions(
                        [r.context + r.continuation for r in batch], max_tokens=0, echo=True, logprobs=1
                    )
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
            raise NegkitError(
                f"the server at {self.base_url} scores no prompt tokens (neither echo+logprobs nor "
                "prompt_logprobs on /completions): log-likelihood tasks cannot run against it; "
                "next-token tasks (e.g. tind) can"
            )
        return [
            _prompt_logprobs_score(choice["prompt_logprobs"], request.continuation)
            for request, choice in zip(batch, choices)
        ]

    @_unexpected_replies
    def next_token_logprobs(self, contexts: Sequence[str], candidates: Sequence[str]) -> list[dict[str, float]]:
        answers: list[dict[str, float]] = []
        for context in contexts:
            if context.startswith(CHAT_MARKER):
                answers.append(self._chat_next_token(json.loads(context[len(CHAT_MARKER) :]), candidates))
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
        answer = self._post(
            "/chat/completions",
            {"messages": messages, "max_tokens": 1, "temperature": 0, "logprobs": True, "top_logprobs": self.top_k},
        )
        try:
            content = answer["choices"][0]["logprobs"]["content"]
            top = {entry["token"]: entry["logprob"] for entry in content[0]["top_logprobs"]}
        except (KeyError, IndexError, TypeError):
            raise NegkitError("the server's chat completion has no top_logprobs; this task needs them") from None
        return _pick(top, candidates)

    @_unexpected_replies
    def generate(self, contexts: Sequence[str], max_new_tokens: int = 8, stop: Sequence[str] = ()) -> list[str]:
        outputs = []
        for context in contexts:
            if context.startswith(CHAT_MARKER):
                payload = {
                    "messages": json.loads(context[len(CHAT_MARKER) :]),
                    "max_tokens": max_new_tokens,
                    "temperature": 0,
                }
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
    logprobs: dict[str, Any] | None = choice.get("logprobs")
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
        raise MissingLogprobs(
            "the server did not echo the prompt's token logprobs (echo=true); log-likelihood tasks need them"
        )
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
        raise NegkitError(
            f"the continuation {continuation!r} does not start at a token boundary of the server's "
            f"tokenization (its last tokens decode to {text!r}); use the echo path or another prompt"
        )
    return LoglikelihoodResult(total, greedy, count)
