"""Answer a list of requests with any model, through the run store, in durable chunks.

:func:`answer_requests` deduplicates requests, takes every answer the store already holds, and asks
the model for the rest in chunks (longest prompts first); each chunk's answers are stored durably before
the next chunk starts. It dispatches each request kind to the matching protocol method.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from negkit.errors import NegkitError
from negkit.engine.store import RunStore, request_key
from negkit.engine.requests import (
    ClassifyRequest,
    GenerateRequest,
    LoglikelihoodRequest,
    NextTokenRequest,
    Request,
    Response,
)

#: Requests per durable chunk: at most this much work is redone after a kill.
DEFAULT_CHUNK_SIZE = 256


def answer_requests(
    model: Any,
    requests: Sequence[Request],
    store: RunStore | None = None,
    mode: str = "exact",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: Callable[[int], None] | None = None,
) -> list[Response]:
    """The answer to each request, in order, reusing and filling ``store``.

    ``progress(n)`` is called as ``n`` more requests are answered (stored ones count at once).
    """
    unique = list(dict.fromkeys(requests))
    keys = {request: request_key(model.fingerprint, mode, request) for request in unique}
    answers: dict[Request, Response] = {}
    missing = []
    for request in unique:
        stored = store.get(keys[request]) if store is not None else None
        if stored is None:
            missing.append(request)
        else:
            answers[request] = stored
    if progress is not None:
        progress(len(requests) - _count_uses(requests, missing))
    uses = _use_counts(requests)
    missing.sort(key=_sort_key, reverse=True)
    # Backends with a per-batch ``progress`` hook report as each batch finishes, not only per chunk.
    per_batch = progress is not None and hasattr(model, "progress")
    if per_batch:
        model.progress = progress
    try:
        for group in _group_by_call(missing):
            for start in range(0, len(group), chunk_size):
                chunk = group[start : start + chunk_size]
                responses = _call_model(model, chunk)
                if len(responses) != len(chunk):
                    raise NegkitError(f"model returned {len(responses)} answers for {len(chunk)} requests")
                answers.update(zip(chunk, responses))
                if store is not None:
                    store.put_many((keys[request], response) for request, response in zip(chunk, responses))
                if progress is not None:  # duplicates (and, without the hook, everything) count here
                    progress(sum(uses[request] for request in chunk) - (len(chunk) if per_batch else 0))
    finally:
        if per_batch:
            model.progress = None
    return [answers[request] for request in requests]


def _use_counts(requests: Sequence[Request]) -> dict[Request, int]:
    counts: dict[Request, int] = {}
    for request in requests:
        counts[request] = counts.get(request, 0) + 1
    return counts


def _count_uses(requests: Sequence[Request], subset: Sequence[Request]) -> int:
    wanted = set(subset)
    return sum(1 for request in requests if request in wanted)


def _request_length(request: Request) -> int:
    if isinstance(request, LoglikelihoodRequest):
        return len(request.context) + len(request.continuation)
    if isinstance(request, ClassifyRequest):
        return len(request.first) + len(request.second)
    return len(request.context)


def _sort_key(request: Request) -> tuple[int, str]:
    """Longest first; the continuations of one context stay together (so that it runs once per chunk)."""
    if isinstance(request, LoglikelihoodRequest):
        return len(request.context), request.context
    return _request_length(request), ""


def _group_by_call(requests: Sequence[Request]) -> list[list[Request]]:
    """Requests grouped so that each group is answered by one kind of model call (order kept)."""
    groups: dict[tuple, list[Request]] = {}
    for request in requests:
        if isinstance(request, NextTokenRequest):
            signature: tuple = ("next", request.candidates)
        elif isinstance(request, GenerateRequest):
            signature = ("generate", request.max_new_tokens, request.stop)
        else:
            signature = (type(request).__name__,)
        groups.setdefault(signature, []).append(request)
    return list(groups.values())


def _call_model(model: Any, chunk: Sequence[Request]) -> list[Response]:
    first = chunk[0]
    if isinstance(first, NextTokenRequest):
        return list(model.next_token_logprobs([request.context for request in chunk], list(first.candidates)))
    if isinstance(first, LoglikelihoodRequest):
        return list(model.loglikelihood(chunk))
    if isinstance(first, GenerateRequest):
        return list(model.generate([request.context for request in chunk], first.max_new_tokens, first.stop))
    if isinstance(first, ClassifyRequest):
        if not hasattr(model, "classify"):
            raise NegkitError("this task needs a classifier model (e.g. nli:PATH); the model given cannot classify")
        return list(model.classify([(request.first, request.second) for request in chunk]))
    raise NegkitError(f"unsupported request type {type(first).__name__}")
