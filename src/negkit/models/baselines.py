"""Baseline pseudo-models: ``random``, ``constant:ANSWER`` and ``majority``, so that the papers' baseline rows
come out of the same tasks, engine, run store and result files as any model (``negkit eval --model random``).

They answer every request kind a task sends (next-token candidates, continuation log-likelihoods, greedy
generation, NLI classification) without a network:

- ``random``: each answer is a pseudo-random log-probability ``log(u)``, ``u`` uniform in (0, 1) drawn from
  a hash of the seed and the request (so answers do not depend on batching, order or resuming). Every
  candidate of an item is then equally likely to score highest: TIND's ``P(True) > 0.5`` half the time, a
  3-way NLI label a third of the time, a Thunder-NUBench choice 1/4 (1/3 for three candidates) for ``acc``
  (``acc_norm`` divides by the choice length, so it is random but not uniform). ``--model-args seed=N``.
- ``constant:ANSWER``: always the same answer, named by label or by answer text, case-insensitively:
  ``constant:true`` / ``constant:false`` (TIND), ``constant:entailment|neutral|contradiction`` (NaN-NLI;
  ScoNe: entailment or neutral, or its answer words ``yes`` / ``no``). The answer's candidate gets
  log-probability 0 and every other ``-1000``.
- ``majority``: the constant answer that is the most frequent gold label among the items evaluated (the
  split after ``--limit``; ties go to the label listed first by the task). It reads the gold labels, which
  is what a majority baseline is; the label chosen is recorded in the results (``model.extra.answer``).

``constant`` and ``majority`` need a task with a fixed set of answers (:class:`~negkit.models.base.AnswerSpace`);
Thunder-NUBench's candidates are sentences that differ per item, so only ``random`` applies there. Before a
task's requests are sent, ``negkit eval`` calls :meth:`BaselineModel.bind_answers` with the task's answer space.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from negkit.engine.requests import LoglikelihoodRequest, LoglikelihoodResult, ModelFingerprint
from negkit.errors import NegkitError
from negkit.models.base import AnswerSpace
from negkit.models.loader_options import check_options

KINDS = ("random", "constant", "majority")
#: Log-probability of every candidate a constant baseline does not choose.
OTHER_LOGPROB = -1000.0
_DEFAULT_LABELS = ("contradiction", "entailment", "neutral")


#: ``--model-args`` keys a pseudo-model accepts (checked before work by the registry, and here).
BASELINE_ARGS: dict[str, str] = {
    "device": "accepted with every model; nothing runs on it",
    "batch_size": "accepted with every model; nothing is batched",
    "seed": "seed of the random answers (random)",
}


def is_baseline_spec(spec: str) -> bool:
    """True for ``random``, ``majority`` and ``constant:ANSWER``."""
    return spec in ("random", "majority") or spec.startswith("constant:")


def load_baseline(
    spec: str,
    dtype: str | None = "none",
    batch_size: int | None = None,
    seed: int = 0,
    device: str | None = None,
    **options: Any,
) -> BaselineModel:
    """The pseudo-model named by ``spec``; its only option is ``seed`` (``random``). ``dtype``, ``batch_size``
    and ``device`` are accepted (they come with every model) and mean nothing here."""
    check_options(spec, options, BASELINE_ARGS)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**32:
        raise NegkitError(f"--model-args seed must be a whole number from 0 to 2**32-1, got {seed!r}")
    kind, _, value = spec.partition(":")
    if kind not in KINDS or (kind == "constant") != bool(value.strip()):
        raise NegkitError(f"unknown baseline {spec!r}; use random, majority or constant:ANSWER (e.g. constant:true)")
    return BaselineModel(kind, value.strip(), seed)


def check_baseline_task(spec: str, task_name: str, space: AnswerSpace | None, items_read: bool = True) -> None:
    """Before any work: ``constant:ANSWER`` and ``majority`` need task ``task_name`` to have fixed answers, and
    ANSWER must be one of them, checked on the task's answer ``space`` over its items (the data, read before the
    model loads; None: the task has no fixed answers). Before the data is read (``items_read`` False) a task whose
    answers differ per item is refused, and one whose answers come only from its data (an empty answer space) is
    left to the check with the items."""
    if spec == "random":
        return
    if not items_read and space is not None and not space.answers:
        return
    load_baseline(spec).bind_answers(space, task_name, check_only=True)


def _uniform(*parts: object) -> float:
    """A number in (0, 1) fixed by ``parts`` (SHA-256 of their text)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return (int.from_bytes(digest[:8], "big") + 0.5) / 2**64


class BaselineModel:
    """A pseudo-model answering every request kind (see the module docstring)."""

    is_encoder_decoder = False
    has_chat_template = False

    def __init__(self, kind: str, value: str = "", seed: int = 0) -> None:
        self.kind, self.value, self.seed = kind, value, seed
        name = f"constant:{value}" if kind == "constant" else kind
        extra = (("seed", str(seed)),) if kind == "random" else ()
        self._base = ModelFingerprint(backend="baseline", name=name, dtype="none", extra=extra)
        self.fingerprint = self._base
        self.space: AnswerSpace | None = None
        self.answer: str | None = None  # the label a constant or majority baseline gives for the bound task
        self.labels: tuple[str, ...] = _DEFAULT_LABELS
        self.load_info: dict[str, Any] = {"baseline": kind, **({"seed": seed} if kind == "random" else {})}

    def apply_chat_template(self, messages: Sequence[dict[str, str]]) -> str:
        raise NegkitError("baseline pseudo-models have no chat template")

    # -- binding to a task -------------------------------------------------------------------------------
    def bind_answers(self, space: AnswerSpace | None, task: str, check_only: bool = False) -> None:
        """Take ``task``'s answer space; resolve the constant or majority answer (recorded in the fingerprint).
        ``check_only``: only check that the baseline applies to the task (no gold labels needed)."""
        self.space = space
        if space is not None:
            self.labels = tuple(space.answers)
        if self.kind == "random":
            return
        if space is None:
            raise NegkitError(
                f"the {self.fingerprint.name} baseline needs a task with a fixed set of answers; "
                f"{task}'s candidates differ per item (use --model random)"
            )
        if check_only:
            if self.kind == "constant":
                self._resolve(space, task)
            return
        if self.kind == "majority":
            counts = Counter(space.gold)
            if not counts:
                raise NegkitError(f"the majority baseline found no gold labels in {task}")
            self.answer = max(space.answers, key=lambda label: (counts[label], -list(space.answers).index(label)))
        else:
            self.answer = self._resolve(space, task)
        self.fingerprint = replace(self._base, extra=(("answer", self.answer),))
        self.load_info = {
            "baseline": self.kind,
            "task": task,
            "answer": self.answer,
            "text": space.answers.get(self.answer, self.answer),
        }

    def _resolve(self, space: AnswerSpace, task: str) -> str:
        wanted = self.value.casefold()
        for label, text in space.answers.items():
            if wanted in (label.casefold(), text.strip().casefold()):
                return label
        if space.free_text:  # a generation task scores any written answer: the constant text is the answer
            return self.value
        offered = ", ".join(
            f"{label} ({text.strip()})" if text.strip() != label else label for label, text in space.answers.items()
        )
        raise NegkitError(f"constant:{self.value} is not an answer of {task}; its answers: {offered}")

    def _target_text(self) -> str:
        if self.answer is None or self.space is None:
            raise NegkitError(f"{self.fingerprint.name} was not bound to a task's answers (negkit eval does this)")
        return self.space.answers[self.answer].strip().casefold()

    # -- answering -------------------------------------------------------------------------------------------
    def next_token_logprobs(self, contexts: Sequence[str], candidates: Sequence[str]) -> list[dict[str, float]]:
        if self.kind == "random":
            return [{c: math.log(_uniform(self.seed, "next", context, c)) for c in candidates} for context in contexts]
        target = self._target_text()
        if not any(c.strip().casefold() == target for c in candidates):
            raise NegkitError(
                f"{self.fingerprint.name}: the answer {target!r} is not among the candidates {list(candidates)}"
            )
        row = {c: 0.0 if c.strip().casefold() == target else OTHER_LOGPROB for c in candidates}
        return [dict(row) for _ in contexts]

    def loglikelihood(self, requests: Sequence[LoglikelihoodRequest]) -> list[LoglikelihoodResult]:
        if self.kind == "random":
            return [
                LoglikelihoodResult(math.log(_uniform(self.seed, "loglikelihood", r.context, r.continuation)), False, 1)
                for r in requests
            ]
        target = self._target_text()
        return [
            LoglikelihoodResult(0.0, True, 1)
            if r.continuation.strip().casefold() == target
            else LoglikelihoodResult(OTHER_LOGPROB, False, 1)
            for r in requests
        ]

    def generate(self, contexts: Sequence[str], max_new_tokens: int = 8, stop: Sequence[str] = ()) -> list[str]:
        if self.kind != "random":
            text = self.space.answers.get(self.answer, self.answer) if self.space and self.answer else ""
            return [text.strip() for _ in contexts]
        texts = [text.strip() for text in self.space.answers.values()] if self.space else [""]
        return [texts[int(_uniform(self.seed, "generate", context) * len(texts))] for context in contexts]

    def classify(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        if self.kind != "random":
            self._target_text()
            return [{label: float(label == self.answer) for label in self.labels} for _ in pairs]
        answers = []
        for first, second in pairs:
            weights = {label: _uniform(self.seed, "classify", first, second, label) for label in self.labels}
            total = sum(weights.values())
            answers.append({label: weight / total for label, weight in weights.items()})
        return answers
