"""Word completions, declared: a benchmark whose items are a query to continue with one word ("Air doesn't have") and
the words that count as hits, asked in one or more forms (the query and its opposite, "Air has"), states how in a
:class:`Completions` and gets the task, metrics, intervals, tables and predictions-file records here.

The model continues each form's prompt greedily for ``max_new_tokens`` tokens (stopping at a line break); the
prediction is the first word of the continuation that is not a function word (:data:`FUNCTION_WORDS`; the text is
cleaned as :func:`clean_word` says), and a **hit** is a prediction among the form's words. Per form the metric
``hit_at_1`` is the share of hits (the weighted hit rate at 1, WHR@1, of Truong et al. 2023: with one word its
weight cancels); across the first two forms ``same_word`` is the share of items whose two predictions are the same
word (the model ignores what changes between the forms). Means per group and overall
(:mod:`negkit.kit.metrics.grouped`); intervals resample items.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError
from negkit.kit.data.predictions import read_predictions, string
from negkit.kit.metrics.grouped import RecordMetric, grouped_means
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.render.grouped import grouped_tables
from negkit.kit.runs import need
from negkit.kit.tasks.base import TaskData, grouped_record_estimands, load_grouped
from negkit.kit.tasks.declared import DeclaredTask
from negkit.models.base import AnswerSpace, GenerateRequest

#: English function words skipped before the predicted word (articles, pronouns, auxiliaries, prepositions,
#: conjunctions, quantifiers): the authors of the MKR-NQ and MWR sets ban such words from the generated word.
FUNCTION_WORDS = frozenset(
    """
a an the this that these those some any no every each all both either neither other another such what which who whom
whose i me my mine we us our ours you your yours he him his she her hers it its they them their theirs myself yourself
himself herself itself ourselves themselves am is are was were be been being have has had having do does did doing
will would shall should can could may might must ought not nor and or but if then than so as of at by for with about
against between into through during before after above below to from up down in out on off over under again further
once here there when where why how only own same too very just also s t don now
""".split()
)
_EDGES = "!;.,:?\"'“”‘’()[]{}"


def clean_word(text: str) -> str:
    """A generated word as the authors clean it: lower-cased (words of two characters or more), curly quotes and
    replacement characters removed, punctuation stripped from both ends."""
    if len(text) < 2:
        return text
    word = text.lower()
    for mark in ("\ufffd", "’", "”", "“", "‘", '"'):
        word = word.replace(mark, "")
    return word.strip(_EDGES).strip()


def predicted_word(output: str) -> str:
    """The first word of ``output`` (split at spaces) that, cleaned, is not empty nor a function word; ``""`` if none."""
    for token in re.split(r"\s+", output.strip()):
        word = clean_word(token)
        if word and word not in FUNCTION_WORDS:
            return word
    return ""


@dataclass(frozen=True)
class CompletionForm:
    """One form of an item: the prompt to continue and the words that count as hits."""

    prompt: str
    words: tuple[str, ...]


@dataclass(frozen=True)
class CompletionItem:
    item_id: str
    group: str
    forms: Mapping[str, CompletionForm]
    unit: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Completions(DeclaredTask[CompletionItem]):
    """How a word-completion benchmark is asked (see the module documentation). ``misses`` names the forms whose hits
    are wrong answers: they also get ``FORM.miss_at_1``, one minus ``hit_at_1`` (higher is better, as every primary
    metric; 1 - WHR@1). ``headline`` metrics come first, in its order (the first is the primary metric)."""

    forms: tuple[str, ...] = ("query", "opposite")
    max_new_tokens: int = 6
    misses: tuple[str, ...] = ()
    headline: tuple[str, ...] = ("query.hit_at_1",)
    protocol: str = ""

    def task(self) -> CompletionTask:
        return CompletionTask(self)

    def metrics(self) -> list[RecordMetric]:
        found = [RecordMetric(f"{form}.hit_at_1", _hit(form), f"{form} hit@1") for form in self.forms]
        found += [RecordMetric(f"{form}.miss_at_1", _miss(form), f"{form} miss@1") for form in self.misses]
        if len(self.forms) > 1:
            found.append(
                RecordMetric(
                    "same_word",
                    lambda record: None if record.get("same_word") is None else float(record["same_word"]),
                    "same word",
                )
            )
        found.sort(key=lambda m: self.headline.index(m.path) if m.path in self.headline else len(self.headline))
        return [RecordMetric(m.path, m.value, m.label, m.path in self.headline) for m in found]


def _miss(form: str) -> Callable[[Mapping[str, Any]], float | None]:
    def value(record: Mapping[str, Any]) -> float | None:
        part = record.get(form)
        return None if not part else float(not part["hit"])

    return value


def _hit(form: str) -> Callable[[Mapping[str, Any]], float | None]:
    def value(record: Mapping[str, Any]) -> float | None:
        part = record.get(form)
        return None if not part else float(bool(part["hit"]))

    return value


class CompletionTask:
    """A :class:`Completions` benchmark as a task (split ``test``; ``--limit`` keeps the first items of each group)."""

    model_kind = "language_model"
    accepts: frozenset[str] = frozenset()
    uses_seed = False
    splits: tuple[str, ...] = ("test",)

    def __init__(self, spec: Completions) -> None:
        self.spec, self.name, self.dataset = spec, spec.name, spec.dataset or spec.name

    def config(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "style": "greedy generation, first content word",
            "forms": list(self.spec.forms),
            "max_new_tokens": self.spec.max_new_tokens,
            "stop": ["\n"],
            "protocol": self.spec.protocol,
        }

    def prompt_template(self, model: Any) -> str:
        return "{prompt}"

    def load(self, data: str | Path | None, split: str, limit: int | float | None, seed: int) -> TaskData:
        return load_grouped(self, data, split, limit, lambda item: item.group)

    def requests(self, items: Sequence[CompletionItem], model: Any = None) -> list[tuple[GenerateRequest, ...]]:
        return [
            tuple(
                GenerateRequest(item.forms[form].prompt, self.spec.max_new_tokens, ("\n",)) for form in self.spec.forms
            )
            for item in items
        ]

    def records(self, items: Sequence[CompletionItem], responses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        return [
            self._record(item, {form: str(output) for form, output in zip(self.spec.forms, answers)})
            for item, answers in zip(items, responses)
        ]

    def _record(self, item: CompletionItem, outputs: Mapping[str, str]) -> dict[str, Any]:
        parts = {}
        for form in self.spec.forms:
            word = predicted_word(outputs[form])
            parts[form] = {
                "words": list(item.forms[form].words),
                "output": outputs[form],
                "word": word,
                "hit": word in item.forms[form].words,
            }
        extra = {}
        if len(self.spec.forms) > 1:
            first, second = (parts[form]["word"] for form in self.spec.forms[:2])
            extra = {"same_word": first == second if first and second else None}
        return {
            "item_id": item.item_id,
            self.spec.group_field: item.group,
            **item.fields,
            **parts,
            **extra,
            "unit": item.unit or item.item_id,
        }

    def answer_space(self, items: Sequence[CompletionItem]) -> AnswerSpace | None:
        """None: the words differ per item (only ``random`` applies, and it answers nothing: no hit)."""
        return AnswerSpace({}) if not items else None

    def metrics(self, items: Sequence[CompletionItem], records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        groups = [str(record[self.spec.group_field]) for record in records]
        metrics = grouped_means(
            records, self.spec.metrics(), groups, self.spec.groups_key, self.spec.groups, average="records"
        )
        return {**metrics, "forms": list(self.spec.forms), "average": "records"}

    def estimands(
        self, items: Sequence[CompletionItem], records: Sequence[Mapping[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        return grouped_record_estimands(self.spec, records, "records", headline_only)

    def tables(self, metrics: dict[str, Any]) -> str:
        spec = self.spec
        return grouped_tables(
            metrics, spec.title or spec.name, spec.groups_key, spec.group_field, f"{spec.unit}s", spec.protocol
        )

    def predictions(self, path: Path, items: Sequence[CompletionItem]) -> list[dict[str, Any]]:
        """The records of a predictions file made elsewhere: lines ``{"item_id": ..., "FORM": "generated text"}`` (or
        ``{"FORM": {"output": ...}}``, as ``negkit eval``'s samples file has it) for every form."""
        by_id = {item.item_id: item for item in items}

        def item_id_of(line: int, record: Mapping[str, Any]) -> str:
            if "item_id" not in record:
                raise InputFormatError(path, line, "missing field 'item_id'")
            return string(path, line, record, "item_id")

        def outputs_of(line: int, record: Mapping[str, Any]) -> dict[str, Any]:
            item = by_id[item_id_of(line, record)]
            outputs = {}
            for form in self.spec.forms:
                value = record.get(form)
                value = value.get("output") if isinstance(value, dict) else value
                if not isinstance(value, str):
                    raise InputFormatError(
                        path, line, f"field {form!r}: expected the generated text (or an object with 'output')"
                    )
                outputs[form] = value
            return self._record(item, outputs)

        predicted = read_predictions(path, set(by_id), item_id_of, outputs_of)
        return [predicted[item.item_id] for item in items if item.item_id in predicted]

    def items_from_records(self, records: Sequence[Mapping[str, Any]], path: Path) -> list[CompletionItem]:
        """The items as far as ``negkit compare`` needs them (group, unit), from a samples file."""
        items = []
        for number, record in enumerate(records, start=1):
            for form in self.spec.forms:
                need(record, form, path, number)
            items.append(
                CompletionItem(
                    str(record["item_id"]),
                    str(need(record, self.spec.group_field, path, number)),
                    {},
                    record.get("unit"),
                )
            )
        return items
