"""Answer a list of requests with any model, through the run store, in durable chunks.

:func:`answer_requests` deduplicates requests, takes every answer the store already holds, and asks
the model for the rest in chunks, in prefix order (prompts that begin alike stay together, so that the
engine runs what they share once); each chunk's answers are stored durably before the next chunk starts.
It dispatches each request kind to the matching protocol method.

Durability is bounded by time as well as by count: a chunk holds at most ``chunk_size`` requests and is
sized from the rate measured on the previous chunks so that it takes about ``commit_seconds`` (10 s by
default; on the CPU the smaller of wall and CPU time counts, so that a machine loaded by other jobs does not
shrink the chunks); the first chunk is small. A kill therefore loses at most about ``commit_seconds`` of work (or
one model batch, when a single batch takes longer than that).

With ``seal=True`` (a task whose data is private, run inside a git working tree: TIND) the generated text is
stored sealed (:mod:`negkit.runs.sealing`): encrypted with a key only the request itself gives, so the run folder
holds no text a model wrote about a decrypted sentence, while a resumed run still reads every answer back. Sealed
answers are opened whatever ``seal`` says (a run moved out of the tree resumes too).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

from negkit.engine.requests import (
    ClassifyRequest,
    GenerateRequest,
    LoglikelihoodRequest,
    LoglikelihoodResult,
    NextTokenRequest,
    Request,
    Response,
    SimilarityRequest,
)
from negkit.errors import NegkitError
from negkit.runs import sealing
from negkit.runs.store import RunStore, decode_response, encode_response, request_key

#: Requests per durable chunk at most: at most this much work is redone after a kill.
DEFAULT_CHUNK_SIZE = 256
#: Seconds of model work per durable chunk at most (about): chunks are sized from the measured rate.
DEFAULT_COMMIT_SECONDS = 10.0
#: Requests in the first chunk of a run (before any rate is known), at most.
FIRST_CHUNK_SIZE = 16


def answer_requests(
    model: Any,
    requests: Sequence[Request],
    store: RunStore | None = None,
    mode: str = "exact",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: Callable[[int], None] | None = None,
    commit_seconds: float = DEFAULT_COMMIT_SECONDS,
    seal: bool = False,
) -> list[Response]:
    """The answer to each request, in order, reusing and filling ``store``.

    Answers are stored durably after every chunk of at most ``chunk_size`` requests and about
    ``commit_seconds`` of model time, whichever is smaller. ``progress(n)`` is called as ``n`` more
    requests are answered (stored ones count at once). ``seal``: store generated text sealed (see above).
    """
    if chunk_size < 1:
        raise NegkitError(f"the chunk size must be at least 1, got {chunk_size}")
    if not commit_seconds > 0:
        raise NegkitError(f"the commit interval must be more than 0 seconds, got {commit_seconds}")
    unique = list(dict.fromkeys(requests))
    keys = {request: request_key(model.fingerprint, mode, request) for request in unique}
    answers: dict[Request, Response] = {}
    missing = []
    for request in unique:
        stored = _stored_answer(store, keys[request], request) if store is not None else None
        if stored is None:
            missing.append(request)
        elif store is not None and not fits(request, stored):
            raise store.damaged(keys[request], "the stored answer does not have the form of its request's answer")
        else:
            answers[request] = stored
    if progress is not None:
        progress(len(requests) - _count_uses(requests, missing))
    uses = _use_counts(requests)
    missing.sort(key=request_sort_key)
    # Backends with a per-batch ``progress`` hook report as each batch finishes, not only per chunk.
    per_batch = progress is not None and hasattr(model, "progress")
    if per_batch:
        model.progress = progress
    sizer = _ChunkSizer(chunk_size, commit_seconds, getattr(model, "batch_size", None))
    on_cpu = str((getattr(model, "load_info", None) or {}).get("device", "")).startswith("cpu")
    try:
        for group in _group_by_call(missing):
            start = 0
            while start < len(group):
                chunk = group[start : start + sizer.next_size()]
                start += len(chunk)
                began, began_cpu = time.perf_counter(), time.process_time()
                responses = _call_model(model, chunk)
                sizer.measured(len(chunk), _work_seconds(began, began_cpu, on_cpu))
                if len(responses) != len(chunk):
                    raise NegkitError(f"model returned {len(responses)} answers for {len(chunk)} requests")
                answers.update(zip(chunk, responses))
                if store is not None:
                    store.put_many(
                        (keys[request], _to_store(request, response, seal))
                        for request, response in zip(chunk, responses)
                    )
                if progress is not None:  # duplicates (and, without the hook, everything) count here
                    progress(sum(uses[request] for request in chunk) - (len(chunk) if per_batch else 0))
    finally:
        if per_batch:
            model.progress = None
    return [answers[request] for request in requests]


def _stored_answer(store: RunStore, key: str, request: Request) -> Response | None:
    """The stored answer of ``request`` (opened when sealed), or None."""
    stored = store.get(key)
    if not sealing.is_sealed(stored):
        return stored
    try:
        return decode_response(sealing.unseal(stored, request))
    except (sealing.SealError, TypeError) as error:
        raise store.damaged(key, str(error)) from None


def _to_store(request: Request, response: Response, sealed: bool) -> Any:
    """What the store keeps for ``response``: generated text sealed when ``sealed``, anything else as it is."""
    if sealed and isinstance(request, GenerateRequest):
        return sealing.seal(encode_response(response), request)
    return response


class _ChunkSizer:
    """Chunk sizes that keep each durable chunk to about ``seconds`` of model work and ``cap`` requests.

    The first chunk is small; later ones follow the rate of the last chunk (growing at most fourfold, so that
    a chunk of short prompts does not make the next one, perhaps of long ones, huge). A fixed model batch size
    is the smallest chunk (one batch is the unit of work; splitting it would only slow the run down).
    """

    def __init__(self, cap: int, seconds: float, batch_size: Any = None) -> None:
        self.cap, self.seconds = cap, seconds
        self.floor = min(cap, batch_size) if isinstance(batch_size, int) and batch_size > 0 else 1
        self.size = max(self.floor, min(cap, FIRST_CHUNK_SIZE))

    def next_size(self) -> int:
        return self.size

    def measured(self, count: int, elapsed: float) -> None:
        if elapsed <= 0:
            self.size = self.cap
            return
        fitting = int(count / elapsed * self.seconds)
        # grow at most fourfold per chunk, so that one fast chunk does not make the next one huge
        self.size = max(self.floor, min(self.cap, fitting, 4 * max(count, 1)))


def _work_seconds(began: float, began_cpu: float, on_cpu: bool) -> float:
    """Seconds of model work since ``began`` (wall clock) / ``began_cpu`` (this process's CPU clock). A model that
    computes on the CPU counts the smaller of its wall time and its CPU time: on a machine shared with other jobs
    most of the wall time is spent waiting for a core, and chunks sized from it would shrink to a request or two,
    which runs slower still (no batching, no shared prefixes); on a quiet machine the two agree (CPU time counts
    every thread, so it is the larger there)."""
    wall = time.perf_counter() - began
    return min(wall, time.process_time() - began_cpu) if on_cpu else wall


def fits(request: Request, response: Response) -> bool:
    """Whether ``response`` has the form of an answer to ``request`` (a damaged store line may not)."""
    if isinstance(request, NextTokenRequest):
        return isinstance(response, dict) and all(
            candidate in response and _is_number(response[candidate]) for candidate in request.candidates
        )
    if isinstance(request, LoglikelihoodRequest):
        return isinstance(response, LoglikelihoodResult) and _is_number(response.logprob)
    if isinstance(request, GenerateRequest):
        return isinstance(response, str)
    if isinstance(request, ClassifyRequest):
        return isinstance(response, dict) and bool(response) and all(_is_number(v) for v in response.values())
    if isinstance(request, SimilarityRequest):
        return _is_number(response)
    return True


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _use_counts(requests: Sequence[Request]) -> dict[Request, int]:
    counts: dict[Request, int] = {}
    for request in requests:
        counts[request] = counts.get(request, 0) + 1
    return counts


def _count_uses(requests: Sequence[Request], subset: Sequence[Request]) -> int:
    wanted = set(subset)
    return sum(1 for request in requests if request in wanted)


def request_sort_key(request: Request) -> tuple[str, ...]:
    """Prefix order: requests whose prompts begin alike sort next to each other (the engine runs what they
    share once), the choices of one context together."""
    if isinstance(request, LoglikelihoodRequest):
        return request.context, request.continuation
    if isinstance(request, (ClassifyRequest, SimilarityRequest)):
        return request.first, request.second
    return (request.context,)


def _group_by_call(requests: Sequence[Request]) -> list[list[Request]]:
    """Requests grouped so that each group is answered by one kind of model call (order kept)."""
    groups: dict[tuple[Any, ...], list[Request]] = {}
    for request in requests:
        if isinstance(request, NextTokenRequest):
            signature: tuple[Any, ...] = ("next", request.candidates)
        elif isinstance(request, GenerateRequest):
            signature = ("generate", request.max_new_tokens, request.stop)
        else:
            signature = (type(request).__name__,)
        groups.setdefault(signature, []).append(request)
    return list(groups.values())


def _call_model(model: Any, chunk: Sequence[Request]) -> list[Response]:
    responses = _responses(model, chunk)
    check_no_nan(model, responses)
    return responses


def check_no_nan(model: Any, responses: Sequence[Response]) -> None:
    """A clear error when a model answered with NaN scores (broken weights: a diverged adapter, a float16
    overflow): compared with anything, NaN is neither larger nor smaller, so a metric would count it silently."""
    bad = 0
    for response in responses:
        if isinstance(response, LoglikelihoodResult):
            values: Iterable[Any] = (response.logprob,)
        elif isinstance(response, dict):
            values = response.values()
        elif isinstance(response, (list, tuple)):
            values = response
        elif isinstance(response, float):
            values = (response,)
        else:
            continue
        bad += any(isinstance(value, float) and math.isnan(value) for value in values)
    if bad:
        name = getattr(getattr(model, "fingerprint", None), "name", type(model).__name__)
        raise NegkitError(
            f"the model {name} returned NaN scores for {bad} of {len(responses)} requests: its weights are not "
            "finite (a diverged adapter, or an overflow in float16); nothing was scored from them"
        )


def _responses(model: Any, chunk: Sequence[Request]) -> list[Response]:
    # a chunk holds requests of one kind (_group_by_call), the kind of its first: the casts below say so
    first = chunk[0]
    if isinstance(first, NextTokenRequest):
        contexts = [request.context for request in cast("Sequence[NextTokenRequest]", chunk)]
        return list(model.next_token_logprobs(contexts, list(first.candidates)))
    if isinstance(first, LoglikelihoodRequest):
        return list(model.loglikelihood(chunk))
    if isinstance(first, GenerateRequest):
        contexts = [request.context for request in cast("Sequence[GenerateRequest]", chunk)]
        return list(model.generate(contexts, first.max_new_tokens, first.stop))
    if isinstance(first, ClassifyRequest):
        if not hasattr(model, "classify"):
            raise NegkitError("this task needs a classifier model (e.g. nli:PATH); the model given cannot classify")
        pairs = [(request.first, request.second) for request in cast("Sequence[ClassifyRequest]", chunk)]
        return list(model.classify(pairs))
    if isinstance(first, SimilarityRequest):
        if not hasattr(model, "similarity"):
            raise NegkitError("this task needs an embedding model (embed:PATH); the model given cannot embed texts")
        pairs = [(request.first, request.second) for request in cast("Sequence[SimilarityRequest]", chunk)]
        return [float(value) for value in model.similarity(pairs)]
    raise NegkitError(f"unsupported request type {type(first).__name__}")
