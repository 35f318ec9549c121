"""``TASK.samples.jsonl``: one record per item (:class:`SampleRecord`: its ``item_id`` and the suite's fields).

A record's kind is told by the fields it holds together (:func:`sample_model`): a choice among scored answers
(:class:`ChoiceSample`), a minimal pair (:class:`PairSample`), a true/false judgement by log-likelihood
(:class:`TruthSample`) or a generated answer (:class:`GenerationSample`); the fields each kind fixes are typed,
and any other field (the item's own: premise, passage, paradigm, ...) is kept as it is, so that a record of
another kind reads as a plain :class:`SampleRecord`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from negkit.kit.runlog.base import LogModel, Number

#: A gold answer or a prediction: an answer's text, a choice's index, a truth value, or none.
Answer = str | int | bool | None


class SampleRecord(LogModel):
    """One item of a task: its ``item_id`` (unique in the file), the exact ``prompt`` where there is one (the
    contexts in order where the item was asked with several), and the suite's own fields."""

    item_id: str | int
    prompt: str | list[str] | None = None

    def fields(self) -> dict[str, Any]:
        """The record as its line holds it (the keys in their order)."""
        return self.as_json()


class ChoiceSample(SampleRecord):
    """A choice among answers scored by the model: the ``choices``, their ``scores`` (log-likelihoods, by choice
    or in order), the ``prediction`` and the ``gold`` answer (texts or indexes)."""

    choices: list[str]
    scores: dict[str, Number | None] | list[Number | None] | None = None
    prediction: Answer = None
    prediction_norm: Answer = None
    gold: Answer = None
    correct: bool | None = None


class PairSample(SampleRecord):
    """A minimal pair: the log-likelihood of the good and the bad sentence; ``prediction`` says which scored
    higher."""

    sentence_good: str
    sentence_bad: str
    logprob_good: Number | None = None
    logprob_bad: Number | None = None
    tokens_good: int | None = None
    tokens_bad: int | None = None
    prediction: str | None = None
    gold: str | None = None
    correct: bool | None = None


class TruthSample(SampleRecord):
    """A statement judged true or false by the log-likelihood of each answer."""

    logprob_true: Number | None
    logprob_false: Number | None
    p_true: Number | None = None
    label: bool | None = None
    prediction: bool | None = None


class GenerationSample(SampleRecord):
    """A generated answer (``output``) and what it was read as (``prediction``)."""

    output: str | None
    #: What the answer was read as, in the suite's terms (a text, a label, a truth value).
    prediction: Any = None
    gold: Any = None
    correct: bool | None = None


#: The kinds of sample records, each with the fields that mark it (all of them present).
SAMPLE_KINDS: tuple[tuple[tuple[str, ...], type[SampleRecord]], ...] = (
    (("sentence_good", "sentence_bad", "logprob_good"), PairSample),
    (("logprob_true", "logprob_false"), TruthSample),
    (("choices", "scores"), ChoiceSample),
    (("output", "prediction"), GenerationSample),
)


def sample_model(record: Mapping[str, Any]) -> type[SampleRecord]:
    """The model of a sample record, told by the fields it holds (a plain :class:`SampleRecord` for another kind)."""
    for markers, model in SAMPLE_KINDS:
        if all(marker in record for marker in markers):
            return model
    return SampleRecord
