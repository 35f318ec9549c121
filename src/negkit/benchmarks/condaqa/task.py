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

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.benchmarks.condaqa.data import EDITS, SPLIT_FILES, QAItem, read_condaqa
from negkit.benchmarks.condaqa.intervals import condaqa_estimands
from negkit.benchmarks.condaqa.metrics import canonical_answer, condaqa_report, normalize_answer
from negkit.benchmarks.condaqa.tables import condaqa_tables
from negkit.errors import InputFormatError, NegkitError, quoted
from negkit.io.textfiles import iter_json_objects
from negkit.kit.data.locate import locate_dataset
from negkit.kit.data.predictions import field, read_predictions, string
from negkit.kit.metrics.choice import argmax
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.runs import need
from negkit.kit.tasks.base import TaskData, resolve_limit, wrap_prompt
from negkit.models.base import AnswerSpace, GenerateRequest, LoglikelihoodRequest

PROMPT = (
    "{passage}\nQuestion: {question}\nAnswer with yes, no, don't know, or a short phrase from the passage.\nAnswer:"
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

    def __init__(
        self, style: str = "generate", chat: bool = False, system_instruction: str | None = None, name: str = "condaqa"
    ) -> None:
        if style not in STYLES:
            raise NegkitError(f"unknown CondaQA style {style!r}; choose one of {', '.join(STYLES)}")
        self.name = name
        self.style = style
        self.chat = bool(chat)
        self.system_instruction = system_instruction

    def config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "task": self.name,
            "style": self.style,
            "prompt": PROMPT,
            "chat": self.chat,
            "system_instruction": self.system_instruction,
            "num_fewshot": 0,
        }
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
            raise NegkitError(
                f"{folder / SPLIT_FILES[split]}: no such file (CondaQA's {split} split; this data folder "
                "has the dev split: --split dev)"
            )
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
            context = wrap_prompt(
                PROMPT.format(passage=item.passage, question=item.question), model, self.chat, self.system_instruction
            )
            if self.style == "generate":
                requests.append((GenerateRequest(context, MAX_NEW_TOKENS, ("\n",)),))
            else:
                requests.append(tuple(LoglikelihoodRequest(context, self._delimiter() + choice) for choice in CHOICES))
        return requests

    def records(self, items: Sequence[QAItem], responses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        records = []
        for item, answers in zip(items, responses):
            if self.style == "generate":
                made: dict[str, Any] = {"output": str(answers[0])}
                prediction = canonical_answer(str(answers[0]))
            else:
                made = {"scores": {choice: answer.logprob for choice, answer in zip(CHOICES, answers)}}
                prediction = CHOICES[list(CHOICES)[argmax(list(made["scores"].values()))]]
            records.append(self._record(item, prediction, made))
        return records

    @staticmethod
    def _record(item: QAItem, prediction: str, made: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """A question's record: the item, how the answer was made (``output`` or ``scores``), the answer."""
        return {
            "item_id": item.item_id,
            "sample_id": item.sample_id,
            "passage_id": item.passage_id,
            "question_id": item.question_id,
            "edit": item.edit_name,
            "passage": item.passage,
            "question": item.question,
            "gold": item.answer,
            **(made or {}),
            "prediction": prediction,
            "correct": normalize_answer(prediction) == normalize_answer(item.answer),
        }

    def metrics(self, items: Sequence[QAItem], records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Accuracy, group consistency and the answer counts; ``style`` says how the answers were made: written
        (``generate``), chosen (``choice``), or read from a predictions file made elsewhere (``predictions``)."""
        return condaqa_report(items, [record["prediction"] for record in records]) | {"style": answer_style(records)}

    def estimands(
        self, items: Sequence[QAItem], records: Sequence[Mapping[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        """Accuracy and consistency, resampling passages (:mod:`negkit.benchmarks.condaqa.intervals`)."""
        return condaqa_estimands(records)

    def tables(self, metrics: dict[str, Any]) -> str:
        return condaqa_tables(metrics)

    def harness_scores(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        return {"acc": [float(bool(record["correct"])) for record in records]}

    def scored_items(self, data: str | Path | None) -> dict[str, list[QAItem]]:
        """The questions a predictions file may answer: every split whose file the data folder has (their
        SampleIDs differ), by split."""
        folder = locate_dataset(self.dataset, data)
        if not folder.is_dir():
            return {"file": read_condaqa(folder)}
        return {
            split: read_condaqa(folder, split)
            for split, file in SPLIT_FILES.items()
            if (folder / file).is_file() or split == "dev"
        }

    def predictions(self, path: Path, items: Sequence[QAItem]) -> list[dict[str, Any]]:
        """The records of a predictions file: lines ``{"item_id": "condaqa-5294", "prediction": "yes"}`` (or
        ``{"SampleID": 5294, ...}``; the answer as text, normalised as the eval's); ``negkit eval``'s samples file
        is read as well (its ``output`` or ``scores`` kept)."""
        by_id = {item.item_id: item for item in items}
        answers = read_answer_predictions(path, set(by_id))
        made = {str(record.get("item_id")): record for _, record in iter_json_objects(path)}
        records = []
        for item in items:
            if item.item_id in answers:
                record = self._record(item, canonical_answer(answers[item.item_id]))
                records.append(
                    record
                    | {
                        key: made[item.item_id][key]
                        for key in ("output", "scores")
                        if key in made.get(item.item_id, {})
                    }
                )
        return records

    def items_from_records(self, records: Sequence[Mapping[str, Any]], path: Path) -> list[QAItem]:
        """The questions as far as the intervals need them (passage, question, edit), from a samples file."""
        items = []
        for number, record in enumerate(records, start=1):
            edit = next((code for code, name in EDITS.items() if name == need(record, "edit", path, number)), -1)
            need(record, "correct", path, number, bool)
            items.append(
                QAItem(
                    str(record["item_id"]),
                    -1,
                    need(record, "passage_id", path, number, int),
                    str(need(record, "question_id", path, number)),
                    edit,
                    "",
                    "",
                    str(record.get("gold", "")),
                )
            )
        return items

    def answer_space(self, items: Sequence[QAItem]) -> AnswerSpace | None:
        """yes / no / don't know and the gold answers, for the baselines; a span gold answer counts for no label.
        Written answers (the generation style) are free text: ``constant:yes`` writes "yes" to every question,
        and any other constant text is written as it is."""
        gold = tuple(
            label
            for item in items
            for label, text in CHOICES.items()
            if normalize_answer(item.answer) == normalize_answer(text)
        )
        return AnswerSpace({label: label for label in CHOICES}, gold, free_text=self.style != "choice")


def answer_style(records: Sequence[Mapping[str, Any]]) -> str:
    """How a run's answers were made: ``generate`` (records keep the written ``output``), ``choice`` (the
    answers' ``scores``), else ``predictions`` (a file made elsewhere)."""
    if records and all("output" in record for record in records):
        return "generate"
    if records and all("scores" in record for record in records):
        return "choice"
    return "predictions"


def read_answer_predictions(path: str | Path, item_ids: set[str]) -> dict[str, str]:
    """CondaQA predictions: item id -> the answer text as given. Lines are ``{"item_id": "condaqa-5294",
    "prediction": "yes"}`` (or ``{"SampleID": 5294, ...}``)."""
    path = Path(path)

    def item_id_of(line: int, record: Mapping[str, Any]) -> str:
        if "item_id" not in record and "SampleID" in record:
            sample = record["SampleID"]
            if isinstance(sample, bool) or not isinstance(sample, (int, str)) or not str(sample).strip().isdigit():
                raise InputFormatError(path, line, f"field 'SampleID': expected an integer, found {quoted(sample, 40)}")
            return f"condaqa-{int(sample)}"
        if "item_id" not in record:
            raise InputFormatError(path, line, "missing field 'item_id' (or 'SampleID')")
        return string(path, line, record, "item_id")

    def answer_of(line: int, record: Mapping[str, Any]) -> str:
        value = field(path, line, record, "prediction")
        if not isinstance(value, str):
            raise InputFormatError(
                path, line, f"field 'prediction': expected the answer as text, found {quoted(value, 40)}"
            )
        return value

    return read_predictions(path, item_ids, item_id_of, answer_of)
