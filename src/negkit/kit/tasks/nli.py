"""NLI suites asked two ways: a language model scored on label words, or an NLI sequence classifier.

Language model (lm-eval's multiple-choice style: each answer word is scored as the continuation ``" " + word``
of the prompt, and the arg-max of the log-likelihoods is the prediction): a benchmark gives the prompt (with
``{premise}`` and ``{hypothesis}``) and its answer words with the label each stands for.

Classifier: each pair goes to the model as ``(premise, hypothesis)`` (the backend encodes it; see
:mod:`negkit.models.hf_nli` for ``pair_encoding``); the label names come from the model's configuration
(``id2label``) or an explicit ``--model-args labels=[...]`` map, and are mapped onto entailment / neutral /
contradiction by name with the backend's :func:`negkit.models.hf_nli.map_labels` (a clear error names any label
that cannot be mapped). A suite whose gold labels are only entailment and neutral maps a contradiction prediction
to neutral (not entailed), as the ScoNe paper did with MNLI models.

The one path from records to numbers (:mod:`negkit.kit.scoring`): a benchmark gives its ``metrics`` and
``estimands`` over the items and the predicted labels (:meth:`NLIBase.predicted_labels`); the task itself reads a
label predictions file as records in the eval's own shape (:meth:`NLIBase.predictions`, for ``negkit score``),
rebuilds the items from a samples file as far as the headline estimands need them (gold label, premise, condition
and row: :meth:`NLIBase.items_from_records`, for ``negkit compare``) and gives the Harness's per-item ``acc``.

:class:`NLIBase` is that asking and reading back. A benchmark declares its NLI task as an
:class:`~negkit.kit.tasks.nli_declared.NLIQuestions`, which :class:`~negkit.kit.tasks.nli_declared.NLITask` runs;
:class:`~negkit.kit.tasks.nli_conditions.ConditionNLITask` (accuracy by condition) subclasses it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from negkit.errors import InputFormatError, NegkitError
from negkit.kit.data.locate import locate_dataset
from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.kit.data.predictions import read_label_predictions
from negkit.kit.metrics.choice import argmax
from negkit.kit.metrics.nli import NOT_ENTAILMENT
from negkit.kit.runs import need
from negkit.kit.tasks.base import TaskData, resolve_limit, wrap_prompt
from negkit.models.base import AnswerSpace, ClassifyRequest, LoglikelihoodRequest

#: The labels a samples file of an NLI task may hold (gold and predicted, as negkit eval writes them).
RECORD_LABELS: tuple[str, ...] = (*NLI_LABELS, NOT_ENTAILMENT)


class NLIBase:
    """An NLI task asked with label words or a classifier: reading items, building requests, turning answers into
    labelled records, reading predictions files and samples back. What a task sets: its ``name``, ``dataset``,
    ``prompt``, ``answers`` and ``read(folder, split)`` / ``files(folder, split)``, and its ``metrics``,
    ``estimands`` and ``tables``; optionally ``prediction_words`` (answers of a predictions file read as labels,
    e.g. ``yes`` -> entailment), ``item_id_from`` (a predictions line naming its item by other fields) and
    ``item_id_pattern`` (the condition and row of samples written without them)."""

    name = ""
    dataset = ""
    prompt = ""
    answers: dict[str, str] = {}
    uses_seed = False
    #: Answers of a predictions file read as labels (lower case; e.g. ``{"yes": "entailment"}``).
    prediction_words: Mapping[str, str] = {}
    #: How :meth:`item_id_from` names an item, for the error of a line without ``item_id`` (``" (or 'index')"``).
    item_id_alternatives = ""
    #: Item ids with the groups ``condition`` and ``row``: read from samples that lack those fields (None: none).
    item_id_pattern: re.Pattern[str] | None = None

    def __init__(
        self, model_kind: str = "language_model", chat: bool = False, system_instruction: str | None = None
    ) -> None:
        if model_kind not in ("language_model", "classifier"):
            raise NegkitError(f"model_kind must be 'language_model' or 'classifier', not {model_kind!r}")
        if model_kind == "classifier" and (chat or system_instruction):
            raise NegkitError(
                f"{self.name}: a classifier reads (premise, hypothesis) pairs; there is no prompt to "
                "put a chat template or a system instruction on"
            )
        self.model_kind = model_kind
        #: With the chat template the prompt is the user message and the answer words follow the generation
        #: prompt directly (no target delimiter), as the LM Evaluation Harness does with --apply_chat_template.
        self.chat = bool(chat)
        self.system_instruction = system_instruction

    @property
    def accepts(self) -> frozenset[str]:
        return frozenset() if self.model_kind == "classifier" else frozenset({"chat", "system_instruction"})

    @property
    def target_delimiter(self) -> str:
        return "" if self.chat else " "

    def config(self) -> dict[str, Any]:
        if self.model_kind == "classifier":
            return {"task": self.name, "model_kind": self.model_kind, "input": "(premise, hypothesis)"}
        return {
            "task": self.name,
            "model_kind": self.model_kind,
            "prompt": self.prompt,
            "answers": self.answers,
            "target_delimiter": self.target_delimiter,
            "chat": self.chat,
            "system_instruction": self.system_instruction,
        }

    def prompt_template(self, model: Any) -> str | None:
        """The context with ``{premise}`` and ``{hypothesis}`` in place of the pair (None for a classifier)."""
        if self.model_kind == "classifier":
            return None
        return wrap_prompt(self.prompt, model, self.chat, self.system_instruction)

    def read(self, folder: Path, split: str) -> list[NLIItem]:
        raise NotImplementedError

    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        """Read ``split``; ``limit`` keeps about that many items (see :meth:`limit_items`)."""
        folder = locate_dataset(self.dataset, data)
        items = self.read(folder, split)
        total = len(items)
        limit = resolve_limit(limit, total)
        if limit is not None:
            items = self.limit_items(items, limit)
        selection = {"split": split, "limit": limit, "count": len(items), "items_in_split": total}
        return TaskData(items, self.files(folder, split), selection)

    def files(self, folder: Path, split: str) -> list[Path]:
        """The data files :meth:`read` reads (hashed into the results)."""
        raise NotImplementedError

    def limit_items(self, items: list[NLIItem], limit: int) -> list[NLIItem]:
        """The first ``limit`` items."""
        return items[:limit]

    def requests(self, items: Sequence[NLIItem], model: Any = None) -> list[tuple[Any, ...]]:
        if self.model_kind == "classifier":
            return [(ClassifyRequest(item.premise, item.hypothesis),) for item in items]
        if self.chat and model is None:
            raise NegkitError("the chat template needs the model")
        requests = []
        for item in items:
            text = self.prompt.format(premise=item.premise, hypothesis=item.hypothesis)
            context = wrap_prompt(text, model, self.chat, self.system_instruction)
            requests.append(
                tuple(LoglikelihoodRequest(context, self.target_delimiter + answer) for answer in self.answers)
            )
        return requests

    def gold_choice(self, item: NLIItem) -> int:
        """The index of the answer word (of :meth:`requests`) that stands for the item's gold label (fitted to the
        task's labels: a two-way task reads a 3-way label as entailment or not); for training on the format."""
        label = self._fit_label(item.label)
        for index, meaning in enumerate(self.answers.values()):
            if self._fit_label(meaning) == label:
                return index
        raise NegkitError(f"{self.name}: no answer word stands for the label {item.label!r} (item {item.item_id})")

    def records(self, items: Sequence[NLIItem], responses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        records = []
        for item, answers in zip(items, responses):
            if self.model_kind == "classifier":
                scores = self._classifier_scores(answers[0])
            else:
                scores = {word: answer.logprob for word, answer in zip(self.answers, answers)}
            words = list(scores)
            best = words[argmax([scores[word] for word in words])]
            label = best if self.model_kind == "classifier" else self.answers[best]
            extra = {} if self.model_kind == "classifier" else {"choices": list(self.answers)}
            records.append(self._record(item, self._fit_label(label), {**extra, "scores": scores}))
        return records

    def _record(self, item: NLIItem, prediction: str, extra: Mapping[str, Any]) -> dict[str, Any]:
        """An item's record: its texts, ``extra`` (answer words, scores), the prediction and the gold label."""
        record = {
            "item_id": item.item_id,
            "premise": item.premise,
            "hypothesis": item.hypothesis,
            **extra,
            "prediction": prediction,
            "gold": item.label,
        }
        # the unit intervals resample (premise; ScoNe base pair), so that runs can be compared from samples alone
        record.update({"premise_id": item.premise_id} if item.premise_id else {})
        record.update({"condition": item.condition, "row": item.row} if item.condition else {})
        return record

    def answer_space(self, items: Sequence[NLIItem]) -> AnswerSpace:
        """Label -> answer word (the label itself for a classifier) and the gold labels, for the baselines."""
        if self.model_kind == "classifier":
            return AnswerSpace({label: label for label in NLI_LABELS}, tuple(item.label for item in items))
        return AnswerSpace({label: word for word, label in self.answers.items()}, tuple(item.label for item in items))

    def _classifier_scores(self, probabilities: dict[str, float]) -> dict[str, float]:
        """The classifier's probabilities under NLI label names (its labels are mapped by name)."""
        from negkit.models.hf_nli import map_labels  # only a classifier's answers come here

        mapping = map_labels(list(probabilities), NLI_LABELS)
        return {label: probabilities[model_label] for label, model_label in mapping.items()}

    def _fit_label(self, label: str) -> str:
        return label

    def predicted_labels(self, records: Sequence[Mapping[str, Any]]) -> list[str]:
        """Each record's predicted label."""
        return [record["prediction"] for record in records]

    def item_id_from(self, path: Path, line: int, record: Mapping[str, Any]) -> str | None:
        """The item a predictions line without ``item_id`` names (None: such a line is an error)."""
        return None

    def predictions(self, path: Path, items: Sequence[NLIItem]) -> list[dict[str, Any]]:
        """The records of a label predictions file (``{"item_id": ..., "prediction": LABEL}``; labels in any case,
        :attr:`prediction_words` read as labels), in the eval's shape and the items' order; ``negkit eval``'s samples
        file is one such file."""
        predicted = read_label_predictions(
            path, {item.item_id for item in items}, self.item_id_from, self.item_id_alternatives, self.prediction_words
        )
        return [
            self._record(item, self._fit_label(predicted[item.item_id]), {})
            for item in items
            if item.item_id in predicted
        ]

    def items_from_records(self, records: Sequence[Mapping[str, Any]], path: Path) -> list[NLIItem]:
        """The items as far as the headline estimands need them (gold label, premise, condition and row), from a
        samples file (a record without ``gold`` or ``prediction`` is an error naming its line)."""
        items = []
        for number, record in enumerate(records, start=1):
            item_id = str(record["item_id"])
            condition, row = record.get("condition", ""), record.get("row", -1)
            match = self.item_id_pattern.match(item_id) if self.item_id_pattern is not None else None
            if match and row == -1:
                condition, row = match["condition"], int(match["row"])
            gold = str(need(record, "gold", path, number))
            prediction = need(record, "prediction", path, number)
            if gold not in RECORD_LABELS:
                raise InputFormatError(path, number, f"gold label {gold!r} is not one of {', '.join(RECORD_LABELS)}")
            if isinstance(prediction, str) and prediction not in RECORD_LABELS and prediction.lower() in RECORD_LABELS:
                raise InputFormatError(
                    path,
                    number,
                    f"predicted label {prediction!r}: labels are written in lower "
                    f"case ({prediction.lower()!r}); as written it would count as wrong",
                )
            items.append(
                NLIItem(
                    item_id,
                    "",
                    "",
                    gold,
                    self.name,
                    premise_id=str(record.get("premise_id", "")),
                    condition=str(condition),
                    row=int(row),
                )
            )
        return items

    def harness_scores(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        """Per-item ``acc`` (the prediction is the gold label) for results.json's Harness layout."""
        return {"acc": [float(record["prediction"] == record["gold"]) for record in records]}

    def scored_metrics(self, metrics: dict[str, Any], name: str, items: Sequence[NLIItem]) -> dict[str, Any]:
        """What ``negkit score`` reports: the metrics and how many items the data has (``data_count``)."""
        return metrics | {"data_count": len(items)}
