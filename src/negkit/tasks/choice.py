"""Multiple choice by log-likelihood, for any benchmark whose items are a prompt, a few answers and the right one.

A suite gives a reader ``read(folder, split) -> [ChoiceQuestion]`` and builds a :class:`ChoiceTask` with its name
and data folder: each answer is scored as the continuation ``delimiter + answer`` of the prompt (the LM
Evaluation Harness's ``multiple_choice``), the arg-max is the prediction, and the metric is the accuracy with a
95% interval resampling items (or the units the questions name). This is the shortest way to a suite of one's own
(docs/suites.md); :func:`choice_estimands`, :func:`choice_records` and :func:`choice_table` serve a suite's
scorer, ``negkit compare`` and its report.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.data.locate import locate_dataset
from negkit.errors import NegkitError
from negkit.metrics.intervals import Estimand, intervals_json, ratio_estimand
from negkit.metrics.multiple_choice import argmax
from negkit.models.base import AnswerSpace, LoglikelihoodRequest
from negkit.tasks.base import TaskData, resolve_limit, wrap_prompt


@dataclass(frozen=True)
class ChoiceQuestion:
    """One question: its id, the prompt, the answers offered and the index of the right one."""

    item_id: str
    prompt: str
    choices: tuple[str, ...]
    gold: int
    #: The unit the intervals resample (None: the item itself), e.g. the passage several questions share.
    unit: str | None = None
    #: Anything else to keep in the per-sample records (JSON-ready).
    fields: dict[str, Any] = field(default_factory=dict)


#: ``read(folder, split) -> questions``.
ChoiceReader = Callable[[Path, str], list[ChoiceQuestion]]


class ChoiceTask:
    """Multiple choice by log-likelihood over the questions a reader gives (see the module documentation)."""

    model_kind = "language_model"
    accepts = frozenset({"chat", "system_instruction"})
    uses_seed = False

    def __init__(self, name: str, dataset: str, read: ChoiceReader, files: Callable[[Path, str], list[Path]],
                 chat: bool = False, system_instruction: str | None = None, delimiter: str = " ") -> None:
        self.name, self.dataset, self.read, self.files = name, dataset, read, files
        self.chat, self.system_instruction = bool(chat), system_instruction
        #: Between the prompt and an answer (none after a chat template, as the Harness does).
        self.delimiter = "" if self.chat else delimiter

    def config(self) -> dict[str, Any]:
        return {"task": self.name, "style": "multiple choice by log-likelihood", "target_delimiter": self.delimiter,
                "chat": self.chat, "system_instruction": self.system_instruction}

    def prompt_template(self, model: Any) -> str:
        return wrap_prompt("{prompt}", model, self.chat, self.system_instruction)

    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        folder = locate_dataset(self.dataset, data)
        items = self.read(folder, split)
        total = len(items)
        limit = resolve_limit(limit, total)
        items = items[:limit] if limit is not None else items
        return TaskData(items, self.files(folder, split), {"split": split, "limit": limit, "count": len(items),
                                                           "items_in_split": total})

    def requests(self, items: Sequence[ChoiceQuestion], model: Any = None) -> list[tuple[Any, ...]]:
        if self.chat and model is None:
            raise NegkitError("the chat template needs the model")
        return [tuple(LoglikelihoodRequest(wrap_prompt(item.prompt, model, self.chat, self.system_instruction),
                                           self.delimiter + choice) for choice in item.choices) for item in items]

    def records(self, items: Sequence[ChoiceQuestion], responses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        records = []
        for item, answers in zip(items, responses):
            scores = [answer.logprob for answer in answers]
            prediction = argmax(scores)
            records.append({"item_id": item.item_id, **item.fields, "choices": list(item.choices), "scores": scores,
                            "prediction": prediction, "gold": item.gold, "correct": prediction == item.gold,
                            "unit": item.unit or item.item_id})
        return records

    def answer_space(self, items: Sequence[ChoiceQuestion]) -> AnswerSpace | None:
        """The baselines need the same answers for every question; a task whose choices vary has none."""
        if len({item.choices for item in items}) != 1:
            return None
        choices = items[0].choices
        return AnswerSpace({choice: choice for choice in choices}, tuple(choices[item.gold] for item in items))

    def metrics(self, items: Sequence[ChoiceQuestion], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return choice_metrics(records)

    def intervals(self, items: Sequence[ChoiceQuestion], records: Sequence[dict[str, Any]], settings: Any = None) -> dict[str, Any]:
        return intervals_json(choice_estimands(records), settings)

    def tables(self, metrics: dict[str, Any]) -> str:
        return choice_table(self.name, metrics)


def choice_metrics(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``{"count", "correct", "accuracy"}`` from records with a boolean ``correct``."""
    correct = sum(bool(record["correct"]) for record in records)
    return {"count": len(records), "correct": correct, "accuracy": correct / len(records) if records else None}


def choice_estimands(records: Sequence[dict[str, Any]]) -> list[Estimand]:
    """The accuracy's estimand: its unit is each record's ``unit`` (else its item)."""
    units = [str(record.get("unit", record["item_id"])) for record in records]
    return [ratio_estimand("accuracy", [float(bool(record["correct"])) for record in records], None, units,
                           "question", label="accuracy", headline=True)]


def choice_table(title: str, metrics: dict[str, Any]) -> str:
    """The accuracy as a Markdown table (with its interval when there is one)."""
    accuracy = metrics.get("accuracy")
    entry = metrics.get("intervals", {}).get("accuracy") or {}
    low, high = entry.get("ci", (None, None))
    value = "–" if accuracy is None else f"{accuracy:.3f}"
    if low is not None and high is not None:
        value += f" [{low:.3f}, {high:.3f}]"
    return f"## {title}\n\n| items | correct | accuracy |\n|---|---|---|\n| {metrics['count']} | {metrics['correct']} | {value} |\n"
