"""The small protocols every model backend implements, and the requests they answer.

In the spirit of lm-evaluation-harness's ``LM`` class, a model answers batches of small, frozen,
hashable requests, so that the engine can sort, batch, deduplicate and store them:

- a :class:`LanguageModel` answers :class:`LoglikelihoodRequest` (log-probability of a continuation
  after a context), :class:`NextTokenRequest` (log-probabilities of a few candidate first tokens at
  the next position) and :class:`GenerateRequest` (greedy generation);
- a :class:`Classifier` answers :class:`ClassifyRequest` (a sentence pair, e.g. premise and
  hypothesis, mapped to a probability per label);
- an :class:`EmbeddingModel` answers :class:`SimilarityRequest` (the cosine similarity of two texts'
  embeddings, e.g. a query and a document).

How a context string becomes tokens is part of the contract, because benchmark protocols depend on
it: a backend tokenizes a context *with* the tokenizer's special tokens and drops a final EOS token
when the tokenizer appends one (T5-style); continuations and candidates are tokenized *without*
special tokens, exactly as given (no space is added or removed).

Every model carries a :class:`ModelFingerprint` that identifies it exactly; the run store keys
answers on it and result files record it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from negkit.engine.requests import (
    ClassifyRequest,
    GenerateRequest,
    LoglikelihoodRequest,
    LoglikelihoodResult,
    ModelFingerprint,
    NextTokenRequest,
    Request,
    Response,
    SimilarityRequest,
    request_payload,
)

__all__ = [
    "AnswerSpace",
    "Classifier",
    "ClassifyRequest",
    "EmbeddingModel",
    "GenerateRequest",
    "LanguageModel",
    "LoglikelihoodRequest",
    "LoglikelihoodResult",
    "ModelFingerprint",
    "NextTokenRequest",
    "Request",
    "Response",
    "SimilarityRequest",
    "request_payload",
]


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


@runtime_checkable
class EmbeddingModel(Protocol):
    """A bi-encoder: each text becomes one vector, and two texts are as similar as their vectors' cosine."""

    fingerprint: ModelFingerprint

    def similarity(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """For each ``(first, second)`` pair, the cosine similarity of the two texts' embeddings."""
        ...


@dataclass(frozen=True)
class AnswerSpace:
    """A task's fixed answers, for the baseline pseudo-models (:mod:`negkit.models.baselines`).

    ``answers`` maps each label (``"true"``, ``"entailment"``, ...) to the text a model gives for it: the
    candidate of a next-token request or a continuation without its delimiter (ScoNe: ``entailment -> Yes``).
    ``gold`` holds the gold label of every evaluated item (the majority baseline answers the most frequent).
    Tasks whose candidates differ per item (Thunder-NUBench) have no answer space; a generation task's answer
    space is ``free_text``.
    """

    answers: dict[str, str]
    gold: tuple[str, ...] = ()
    #: The task scores written answers (generation): a constant baseline may answer any text, not only a label
    #: (CondaQA's ``constant:yes``, or ``constant:"I don't know"``).
    free_text: bool = False
