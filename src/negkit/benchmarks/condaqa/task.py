"""CondaQA asked of a language model (Ravichander et al., 2022; the dev split, 1,110 questions, and the test split,
7,240: ``--split dev`` or ``--split test``, the same protocol and metrics).

The paper evaluated generative models (UnifiedQA, GPT-3, InstructGPT) by letting them write the answer and
scoring exact match; negkit does the same by default, zero-shot, with one fixed prompt (:data:`PROMPT`):

- ``condaqa`` (the suite's main task): greedy generation of at most :data:`MAX_NEW_TOKENS` tokens, stopped at a
  newline; the output's first line is normalised and read as yes / no / don't know when it starts with one of
  them, else compared whole with the gold span (:func:`negkit.benchmarks.condaqa.metrics.canonical_answer`);
- ``condaqa-choice``: log-likelihood of the three closed answers ``yes``, ``no``, ``don't know`` as continuations
  of the prompt (target delimiter one space, none after a chat template), arg-max; the 14 dev questions whose
  gold answer is a span cannot be answered this way and count as wrong (the report says how many).

The paper's few-shot experiments drew 9 training examples per run from the train split (the authors' few-shot
splits are of the train and test sets); the train split is not available here, so negkit runs
zero-shot.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.condaqa.data import SPLIT_FILES, QAItem, read_condaqa
from negkit.kit.data.locate import locate_dataset
from negkit.errors import NegkitError
from negkit.benchmarks.condaqa.metrics import canonical_answer, condaqa_report, normalize_answer
from negkit.kit.metrics.choice import argmax
from negkit.models.base import AnswerSpace, GenerateRequest, LoglikelihoodRequest
from negkit.kit.tasks.base import TaskData, resolve_limit, wrap_prompt

PROMPT = (
    "{passage}\nQuestion: {question}\n"
    "Answer with yes, no, don't know, or a short phrase from the passage.\nAnswer:"
)
#: The closed answers of the choice variant, as scored (after the target delimiter) and as normalised.
CHOICES: dict[str, str] = {"yes": "yes", "no": "no", "don't know": "dont know"}
MAX_NEW_TOKENS = 16
STYLES = ("generate", "choice")


class CondaQATask:
    """CondaQA zero-shot: ``style="generate"`` (the paper's exact match on a written answer) or ``"choice"``."""

    dataset = "condaqa"
    model_kind = "language_model"
    #: The splits ``load`` takes (the train split is not distributed here).
    splits: tuple[str, ...] = ("dev", "test")

    @staticmethod
    def normalize_split(split: str) -> str:
        """``validation`` means ``dev``."""
        return "dev" if split == "validation" else split
    accepts = frozenset({"chat", "system_instruction"})
    uses_seed = False

    def __init__(self, style: str = "generate", chat: bool = False, system_instruction: str | None = None,
                 name: str = "condaqa") -> None:
        if style not in STYLES:
            raise NegkitError(f"unknown CondaQA style {style!r}; choose one of {', '.join(STYLES)}")
        self.name = name
        self.style = style
        self.chat = bool(chat)
        self.system_instruction = system_instruction

    def config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"task": self.name, "style": self.style, "prompt": PROMPT, "chat": self.chat,
                                  "system_instruction": self.system_instruction, "num_fewshot": 0}
        if self.style == "generate":
            config.update(max_new_tokens=MAX_NEW_TOKENS, stop=["\n"])
        else:
            config.update(choices=list(CHOICES), target_delimiter=self._delimiter())
        return config

    def _delimiter(self) -> str:
        return "" if self.chat else " "

    def prompt_template(self, model: Any) -> str:
        """The context with ``{passage}`` and ``{question}`` in place of the data."""
        return wrap_prompt(PROMPT, model, self.chat, self.system_instruction)

    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        """The dev or test split (``validation`` means dev); ``limit`` keeps the first questions."""
        split = self.normalize_split(split)
        if split not in SPLIT_FILES:
            raise NegkitError(f"CondaQA has no {split!r} split here (--split dev or --split test)")
        folder = locate_dataset(self.dataset, data)
        if not (folder / SPLIT_FILES[split]).is_file() and (folder / SPLIT_FILES["dev"]).is_file():
            raise NegkitError(f"{folder / SPLIT_FILES[split]}: no such file (CondaQA's {split} split; this data folder "
                              "has the dev split: --split dev)")
        items = read_condaqa(folder, split)
        total = len(items)
        limit = resolve_limit(limit, total)
        if limit is not None:
            items = items[:limit]
        selection = {"split": split, "limit": limit, "count": len(items), "items_in_split": total}
        return TaskData(items, [folder / SPLIT_FILES[split]], selection)

    def requests(self, items: Sequence[QAItem], model: Any = None) -> list[tuple[Any, ...]]:
        if self.chat and model is None:
            raise NegkitError("the chat template needs the model")
        requests: list[tuple[Any, ...]] = []
        for item in items:
            context = wrap_prompt(PROMPT.format(passage=item.passage, question=item.question), model, self.chat,
                                  self.system_instruction)
            if self.style == "generate":
                requests.append((GenerateRequest(context, MAX_NEW_TOKENS, ("\n",)),))
            else:
                requests.append(tuple(LoglikelihoodRequest(context, self._delimiter() + choice) for choice in CHOICES))
        return requests

    def records(self, items: Sequence[QAItem], responses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        records = []
        for item, answers in zip(items, responses):
            record: dict[str, Any] = {
                "item_id": item.item_id, "sample_id": item.sample_id, "passage_id": item.passage_id,
                "question_id": item.question_id, "edit": item.edit_name, "passage": item.passage,
                "question": item.question, "gold": item.answer,
            }
            if self.style == "generate":
                record["output"] = str(answers[0])
                record["prediction"] = canonical_answer(str(answers[0]))
            else:
                scores = {choice: answer.logprob for choice, answer in zip(CHOICES, answers)}
                record["scores"] = scores
                record["prediction"] = CHOICES[list(CHOICES)[argmax(list(scores.values()))]]
            record["correct"] = normalize_answer(record["prediction"]) == normalize_answer(item.answer)
            records.append(record)
        return records

    def metrics(self, items: Sequence[QAItem], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return condaqa_report(items, [record["prediction"] for record in records]) | {"style": self.style}

    def answer_space(self, items: Sequence[QAItem]) -> AnswerSpace | None:
        """yes / no / don't know and the gold answers, for the baselines (choice style; written answers have none).
        A span gold answer counts for no label."""
        if self.style != "choice":
            return None
        gold = tuple(label for item in items for label, text in CHOICES.items()
                     if normalize_answer(item.answer) == normalize_answer(text))
        return AnswerSpace({label: label for label in CHOICES}, gold)
