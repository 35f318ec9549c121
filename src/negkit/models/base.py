"""The small protocols every model backend implements, and the requests they answer.

In the spirit of lm-evaluation-harness's ``LM`` class, a model answers batches of small, frozen,
hashable requests, so that the engine can sort, batch, deduplicate and store them:

- a :class:`LanguageModel` answers :class:`LoglikelihoodRequest` (log-probability of a continuation
  after a context), :class:`NextTokenRequest` (log-probabilities of a few candidate first tokens at
  the next position) and :class:`GenerateRequest` (greedy generation);
- a :class:`Classifier` answers :class:`ClassifyRequest` (a sentence pair, e.g. premise and
  hypothesis, mapped to a probability per label).

How a context string becomes tokens is part of the contract, because benchmark protocols depend on
it: a backend tokenizes a context *with* the tokenizer's special tokens and drops a final EOS token
when the tokenizer appends one (T5-style); continuations and candidates are tokenized *without*
special tokens, exactly as given (no space is added or removed).

Every model carries a :class:`ModelFingerprint` that identifies it exactly; the run store keys
answers on it and result files record it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Protocol, Union, runtime_checkable


@dataclass(frozen=True)
class LoglikelihoodRequest:
    """Log-probability of ``continuation`` right after ``context``."""

    context: str
    continuation: str


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


#: Any request a model can answer.
Request = Union[LoglikelihoodRequest, NextTokenRequest, GenerateRequest, ClassifyRequest]
#: The matching answers: LoglikelihoodResult, dict candidate -> log-prob, generated text, dict label -> prob.
Response = Union[LoglikelihoodResult, dict, str]


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

    def as_dict(self) -> dict:
        """A JSON-ready description, as written into result files."""
        data = asdict(self)
        data["extra"] = dict(self.extra)
        return data

    def key(self) -> str:
        """A short stable hash of the whole fingerprint (used in run store keys)."""
        text = json.dumps(self.as_dict(), sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@runtime_checkable
class LanguageModel(Protocol):
    """A model that scores and generates text (decoder-only or encoder-decoder)."""

    fingerprint: ModelFingerprint
    #: True for encoder-decoder models (the answer comes from the decoder, one step from its start token).
    is_encoder_decoder: bool

    @property
    def has_chat_template(self) -> bool:
        """Whether the model's tokenizer carries a chat template."""
        ...

    def apply_chat_template(self, messages: Sequence[dict[str, str]]) -> str:
        """Render chat ``messages`` (``{"role", "content"}``) as a prompt ending with the generation prompt."""
        ...

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        """Answer each request, in order."""
        ...

    def next_token_logprobs(self, contexts: Sequence[str], candidates: Sequence[str]) -> list[dict[str, float]]:
        """For each context, the log-probability of each candidate's first sub-token at the next position."""
        ...

    def generate(self, contexts: Sequence[str], max_new_tokens: int = 8, stop: Sequence[str] = ()) -> list[str]:
        """Greedy continuation of each context (the new text only)."""
        ...


@runtime_checkable
class Classifier(Protocol):
    """A sequence-pair classifier whose labels come from its own configuration."""

    fingerprint: ModelFingerprint
    #: The label names in the model's output order (from its config's ``id2label``).
    labels: tuple[str, ...]

    def classify(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        """For each ``(first, second)`` pair, the probability of each label."""
        ...


def request_payload(request: Request) -> dict:
    """A JSON-ready description of a request, with its kind (used for run store keys and records)."""
    return {"kind": type(request).__name__, **asdict(request)}
