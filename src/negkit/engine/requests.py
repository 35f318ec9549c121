"""The requests a model answers, their answers, and the fingerprint that identifies a model's answers.

These are the engine's currency: the run store keys answers on (fingerprint, mode, request), the runner
sorts, deduplicates and batches requests, and every backend in :mod:`negkit.models` answers them.
They live in the engine (the lowest floor of the model side) so that nothing here imports a backend;
:mod:`negkit.models.base` re-exports them next to the model protocols.

Requests are small, frozen, hashable dataclasses (lm-evaluation-harness's habit), so that the engine can
sort, batch, deduplicate and store them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class LoglikelihoodRequest:
    """Log-probability of ``continuation`` right after ``context``.

    ``add_bos`` is the BOS policy for the context: ``None`` (default) tokenizes it with the tokenizer's own
    special tokens (a BOS when the tokenizer adds one, as LM Evaluation Harness 0.4.13 does); ``False`` leaves
    any BOS out (the Harness's causal-LM default before it switched to the tokenizer's); ``True`` always starts
    with a BOS. A backend that cannot honour a policy other than ``None`` refuses the request.
    """

    context: str
    continuation: str
    add_bos: bool | None = None


@dataclass(frozen=True)
class LoglikelihoodResult:
    """Answer to a :class:`LoglikelihoodRequest`.

    ``logprob`` is the sum of the continuation tokens' log-probabilities, ``is_greedy`` tells whether
    every continuation token is the arg-max at its position, ``n_tokens`` is the number of
    continuation tokens.
    """

    logprob: float
    is_greedy: bool
    n_tokens: int


@dataclass(frozen=True)
class NextTokenRequest:
    """Log-probabilities, at the position right after ``context``, of each candidate's FIRST sub-token.

    The softmax runs over the whole vocabulary. Candidates are encoded without special tokens and
    without adding a leading space. The answer maps each candidate string to its log-probability.
    """

    context: str
    candidates: tuple[str, ...]


@dataclass(frozen=True)
class GenerateRequest:
    """Greedy continuation of ``context``: at most ``max_new_tokens`` tokens, cut at the first stop string."""

    context: str
    max_new_tokens: int = 8
    stop: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClassifyRequest:
    """A sentence pair for a sequence classifier (e.g. an NLI model: premise, hypothesis)."""

    first: str
    second: str


@dataclass(frozen=True)
class SimilarityRequest:
    """Cosine similarity of two texts' embeddings (an embedding model: a query and a document); the answer is a
    number in [-1, 1]."""

    first: str
    second: str


#: Any request a model can answer.
Request = LoglikelihoodRequest | NextTokenRequest | GenerateRequest | ClassifyRequest | SimilarityRequest
#: The matching answers: LoglikelihoodResult, dict candidate -> log-prob, generated text, dict label -> prob, cosine.
Response = LoglikelihoodResult | dict[str, float] | str | float


@dataclass(frozen=True)
class ModelFingerprint:
    """What identifies a model's answers exactly: where it came from, which version, which precision.

    ``name`` is the path or hub name as given, ``revision`` a hub revision or commit when known,
    ``sha256`` the hash of the weights file(s) when the model came from local files, ``dtype`` the
    precision it runs in, ``backend`` which backend runs it, ``extra`` anything else that changes
    answers (e.g. a server's model name).
    """

    backend: str
    name: str
    dtype: str
    revision: str | None = None
    sha256: str | None = None
    extra: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready description, as written into result files."""
        data = asdict(self)
        data["extra"] = dict(self.extra)
        return data

    def key(self) -> str:
        """A short stable hash of the whole fingerprint (used in run store keys)."""
        text = json.dumps(self.as_dict(), sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def request_payload(request: Request) -> dict[str, Any]:
    """A JSON-ready description of a request, with its kind (used for run store keys and records).

    Fields left at ``None`` (optional settings such as ``add_bos``) are omitted, so adding an optional field
    never changes the keys of requests that do not use it.
    """
    fields = {name: value for name, value in asdict(request).items() if value is not None}
    return {"kind": type(request).__name__, **fields}
