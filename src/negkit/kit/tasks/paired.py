"""Paired questions, declared: a benchmark whose items are a statement and its negated twin (or a question and its
negated or decomposed variants), each part asked as a small multiple-choice question, states how in a
:class:`PairedQuestions` and gets the task, metrics, intervals, tables, figures and predictions-file records here.

Each part of an item is a :class:`PartQuestion` (a prompt, its answers, the right one). ``style``:

- ``"first-token"``: one next-token distribution after the prompt, each answer scored by its first sub-token
  (:class:`~negkit.models.base.NextTokenRequest`): TIND's protocol with the answers ``True`` / ``False`` (and the
  prompt in the model's chat template where the declaration says ``chat="auto"`` and the model has one);
- ``"continuation"``: each answer's log-likelihood as the continuation of the prompt (the Harness's multiple choice).

The prediction is the best-scoring answer (an exact tie goes to the first answer). Per item the records keep each
part's scores, prediction and whether it is right, and two measures across the declared ``twins`` (two parts whose
right answers differ, e.g. a true statement and its false negation): ``consistent`` (both right or both wrong: the
two answers differ as the right ones do) and ``both_correct``. Metrics (:mod:`negkit.kit.metrics.grouped`):
``PART.accuracy``, ``accuracy`` (every part pooled), ``consistency``, ``both_correct`` and the declaration's own
``extra_metrics`` (read from each item's record), per group and overall;
intervals resample items, so a statement and its negated twin are drawn together.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, NegkitError, quoted
from negkit.kit.data.predictions import read_predictions, string
from negkit.kit.metrics.grouped import RecordMetric, grouped_means
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.render.grouped import grouped_tables
from negkit.kit.runs import need
from negkit.kit.tasks.base import TaskData, grouped_record_estimands, load_grouped, wrap_prompt
from negkit.kit.tasks.declared import DeclaredTask, own_field
from negkit.models.base import AnswerSpace, LoglikelihoodRequest, NextTokenRequest, Request

STYLES = ("first-token", "continuation")
CHAT = ("never", "auto")


@dataclass(frozen=True)
class PartQuestion:
    """One part: the plain ``prompt``, the user message for a chat template (``chat_prompt``; None: the prompt), the
    answers (as scored: with any leading space), the index of the right one and of any other right ones
    (``also_right``: a question with several right answers, such as "give a wrong answer")."""

    prompt: str
    choices: tuple[str, ...]
    gold: int
    chat_prompt: str | None = None
    also_right: tuple[int, ...] = ()


@dataclass(frozen=True)
class PairedItem:
    """One item: its parts by name (the declaration's ``parts``), its group, unit (None: the item), fields to keep."""

    item_id: str
    group: str
    parts: Mapping[str, PartQuestion]
    unit: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PairedQuestions(DeclaredTask[PairedItem]):
    """How a paired benchmark is asked (see the module documentation). ``twins`` names the two parts compared by
    ``consistent``; ``headline`` the metric paths flagged as headline numbers (the first is the primary metric)."""

    parts: tuple[str, ...] = ("affirmative", "negated")
    twins: tuple[str, str] = ("affirmative", "negated")
    style: str = "first-token"
    chat: str = "never"
    average: str = "records"
    unit: str = own_field("pair")
    headline: tuple[str, ...] = ("accuracy",)
    protocol: str = ""
    #: The benchmark's own per-item metrics, read from each record after the kind's (e.g. whether the prediction
    #: changed between the twins).
    extra_metrics: tuple[RecordMetric, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.style not in STYLES or self.chat not in CHAT or not set(self.twins) <= set(self.parts):
            raise ValueError(f"paired {self.name}: style in {STYLES}, chat in {CHAT}, twins among the parts")

    def task(self, chat: bool | None = None, system_instruction: str | None = None) -> PairedTask:
        return PairedTask(self, chat, system_instruction)

    def metrics(self) -> list[RecordMetric]:
        found = [RecordMetric("accuracy", _pooled(self.parts), "accuracy (all parts)")]
        found += [RecordMetric(f"{part}.accuracy", _flag(part, "correct"), f"{part} accuracy") for part in self.parts]
        found += [
            RecordMetric("consistency", _flag(None, "consistent"), f"{' / '.join(self.twins)} consistent"),
            RecordMetric("both_correct", _flag(None, "both_correct"), "both right"),
            *self.extra_metrics,
        ]
        return [RecordMetric(m.path, m.value, m.label, m.path in self.headline) for m in found]


def _flag(part: str | None, name: str) -> Callable[[Mapping[str, Any]], float | None]:
    def value(record: Mapping[str, Any]) -> float | None:
        flag = (record.get(part) or {}).get(name) if part else record.get(name)
        return None if flag is None else float(bool(flag))

    return value


def _pooled(parts: Sequence[str]) -> Callable[[Mapping[str, Any]], float | None]:
    def value(record: Mapping[str, Any]) -> float | None:
        flags = [(record.get(part) or {}).get("correct") for part in parts]
        flags = [flag for flag in flags if flag is not None]
        return sum(map(bool, flags)) / len(flags) if flags else None

    return value


def predicted(scores: Sequence[float]) -> int:
    """The best-scoring answer (the first of equal best scores)."""
    return max(range(len(scores)), key=lambda position: (scores[position], -position))


class PairedTask:
    """A :class:`PairedQuestions` benchmark asked one way (``chat``: None follows the declaration)."""

    model_kind = "language_model"
    accepts = frozenset({"chat", "system_instruction"})
    uses_seed = False
    splits: tuple[str, ...] = ("test",)

    def __init__(self, spec: PairedQuestions, chat: bool | None = None, system_instruction: str | None = None) -> None:
        self.spec, self.name, self.dataset = spec, spec.name, spec.dataset or spec.name
        self.chat, self.system_instruction = chat, system_instruction

    def config(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "style": self.spec.style,
            "parts": list(self.spec.parts),
            "twins": list(self.spec.twins),
            "chat": self.spec.chat if self.chat is None else self.chat,
            "system_instruction": self.system_instruction,
            "protocol": self.spec.protocol,
        }

    def uses_chat(self, model: Any) -> bool:
        if self.chat is None:
            return self.spec.chat == "auto" and bool(getattr(model, "has_chat_template", False))
        if self.chat and not getattr(model, "has_chat_template", False):
            raise NegkitError("the chat prompt was asked for but the model has no chat template")
        return self.chat

    def prompt_template(self, model: Any) -> str:
        return wrap_prompt("{prompt}", model, self.uses_chat(model), self.system_instruction)

    def load(self, data: str | Path | None, split: str, limit: int | float | None, seed: int) -> TaskData:
        return load_grouped(self, data, split, limit, lambda item: item.group)

    def _prompt(self, part: PartQuestion, model: Any) -> str:
        if self.uses_chat(model):
            return wrap_prompt(part.chat_prompt or part.prompt, model, True, self.system_instruction)
        return wrap_prompt(part.prompt, model, False, self.system_instruction)

    def requests(self, items: Sequence[PairedItem], model: Any = None) -> list[tuple[Request, ...]]:
        result = []
        for item in items:
            requests: list[Request] = []
            for name in self.spec.parts:
                part = item.parts[name]
                prompt = self._prompt(part, model)
                if self.spec.style == "first-token":
                    requests.append(NextTokenRequest(prompt, part.choices))
                else:
                    requests += [LoglikelihoodRequest(prompt, choice) for choice in part.choices]
            result.append(tuple(requests))
        return result

    def records(self, items: Sequence[PairedItem], responses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        records = []
        for item, answers in zip(items, responses):
            position, parts = 0, {}
            for name in self.spec.parts:
                part = item.parts[name]
                if self.spec.style == "first-token":
                    scores = [float(answers[position][choice]) for choice in part.choices]
                    position += 1
                else:
                    scores = [float(answer.logprob) for answer in answers[position : position + len(part.choices)]]
                    position += len(part.choices)
                parts[name] = _part_record(part, predicted(scores), scores)
            records.append(self._record(item, parts))
        return records

    def _record(self, item: PairedItem, parts: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        first, second = (parts[name]["correct"] for name in self.spec.twins)
        return {
            "item_id": item.item_id,
            self.spec.group_field: item.group,
            **item.fields,
            **parts,
            "consistent": first == second,
            "both_correct": first and second,
            "unit": item.unit or item.item_id,
        }

    def answer_space(self, items: Sequence[PairedItem]) -> AnswerSpace | None:
        """The answers by name (stripped) for ``constant`` and ``majority`` (the most frequent right answer over every
        part) when every part of every item offers the same answers; None otherwise."""
        offered = {part.choices for item in items for part in item.parts.values()}
        if not offered:  # before the data is read: the answers come from it
            return AnswerSpace({})
        if len(offered) != 1:
            return None
        choices = offered.pop()
        return AnswerSpace(
            {choice.strip(): choice for choice in choices},
            tuple(part.choices[part.gold].strip() for item in items for part in item.parts.values()),
        )

    def metrics(self, items: Sequence[PairedItem], records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        groups = [str(record[self.spec.group_field]) for record in records]
        metrics = grouped_means(
            records, self.spec.metrics(), groups, self.spec.groups_key, self.spec.groups, average=self.spec.average
        )
        return {**metrics, "parts": list(self.spec.parts), "average": self.spec.average}

    def estimands(
        self, items: Sequence[PairedItem], records: Sequence[Mapping[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        return grouped_record_estimands(self.spec, records, self.spec.average, headline_only)

    def tables(self, metrics: dict[str, Any]) -> str:
        spec = self.spec
        return grouped_tables(
            metrics, spec.title or spec.name, spec.groups_key, spec.group_field, f"{spec.unit}s", spec.protocol
        )

    def harness_scores(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        """Per item, the share of its parts answered rightly (results.json's ``acc``)."""
        return {"acc": [float(_pooled(self.spec.parts)(record) or 0.0) for record in records]}

    def predictions(self, path: Path, items: Sequence[PairedItem]) -> list[dict[str, Any]]:
        """The records of a predictions file made elsewhere: lines ``{"item_id": ..., "PART": {"prediction": INDEX or
        ANSWER}}`` for every part (``"PART": ANSWER`` for short); ``negkit eval``'s samples file is read as well."""
        by_id = {item.item_id: item for item in items}

        def item_id_of(line: int, record: Mapping[str, Any]) -> str:
            if "item_id" not in record:
                raise InputFormatError(path, line, "missing field 'item_id'")
            return string(path, line, record, "item_id")

        def parts_of(line: int, record: Mapping[str, Any]) -> dict[str, Any]:
            item = by_id[item_id_of(line, record)]
            parts = {}
            for name in self.spec.parts:
                if name not in record:
                    raise InputFormatError(path, line, f"missing field {name!r}")
                value = (
                    record[name]["prediction"]
                    if isinstance(record[name], dict) and "prediction" in record[name]
                    else record[name]
                )
                parts[name] = _part_record(item.parts[name], _answer(path, line, item.parts[name], value, name), None)
            return self._record(item, parts)

        predicted_records = read_predictions(path, set(by_id), item_id_of, parts_of)
        return [predicted_records[item.item_id] for item in items if item.item_id in predicted_records]

    def items_from_records(self, records: Sequence[Mapping[str, Any]], path: Path) -> list[PairedItem]:
        """The items as far as ``negkit compare`` needs them (group, unit), from a samples file."""
        items = []
        for number, record in enumerate(records, start=1):
            need(record, "consistent", path, number, bool)
            items.append(
                PairedItem(
                    str(record["item_id"]),
                    str(need(record, self.spec.group_field, path, number)),
                    {},
                    record.get("unit"),
                )
            )
        return items


def _part_record(part: PartQuestion, prediction: int, scores: Sequence[float] | None) -> dict[str, Any]:
    record: dict[str, Any] = {"choices": list(part.choices), "gold": part.gold}
    if scores is not None:
        record["scores"] = list(scores)
        if len(scores) == 2:  # P(first) / (P(first) + P(second)): TIND's p(True) for True / False
            top = max(scores)
            first, second = (math.exp(score - top) for score in scores)
            record["p_first"] = first / (first + second)
    return {**record, "prediction": prediction, "correct": prediction == part.gold or prediction in part.also_right}


def _answer(path: Path, line: int, part: PartQuestion, value: Any, name: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(part.choices):
        return value
    if isinstance(value, bool) and [c.strip().lower() for c in part.choices] == ["true", "false"]:
        return 0 if value else 1
    if isinstance(value, str):
        for index, choice in enumerate(part.choices):
            if value.strip().casefold() == choice.strip().casefold():
                return index
    raise InputFormatError(
        path,
        line,
        f"field {name!r}: {quoted(value, 40)} is not one of the answers "
        f"{[choice.strip() for choice in part.choices]} or their index",
    )
