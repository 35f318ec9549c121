"""NLI benchmarks, declared: a benchmark states how its pairs are asked and scored in an :class:`NLIQuestions`, and
:class:`NLITask` (below) runs it, asked with label words or an NLI classifier.

The declaration names the task, its reader and the files it reads (``read``, ``files``: :class:`~negkit.kit.tasks.
declared.DeclaredTask`), the prompt (with ``{premise}`` and ``{hypothesis}``) and the answer words with the label each
stands for, its splits (``split_aliases``: other names read as one of them) and the unit its intervals resample,
and the benchmark's own numbers over the items and the predicted labels: ``metrics(items, predicted)``,
``estimands(items, predicted, headline_only)`` and ``tables(metrics)``. The rest is optional and says how the
benchmark differs from a plain 3-way NLI set:

- ``fit_label``: how a 3-way label is read on the benchmark's labels (:func:`neutral_for_contradiction` for a
  suite whose gold labels are entailment and neutral; ``to_binary`` for entailment / not_entailment), applied to
  the predictions of the answer words, of a classifier and of a predictions file;
- ``labels``: the labels a classifier with as many labels is read under (default: the three NLI labels);
- ``prediction_words``, ``item_id_from``, ``item_id_alternatives``: how ``negkit score`` reads a predictions file
  (answers read as labels, a line naming its item by other fields); ``item_id_pattern``: the condition and row of
  samples written without them; ``for_predictions``: the declaration whose items a predictions file names, when a
  suite has several;
- ``options``: task options of the benchmark's own (:class:`TaskOption`, set by a ``negkit eval`` flag its suite
  declares), with ``keep(item, options)`` (which items the options keep) and ``limit(items, n, options)`` (which
  items ``--limit N`` keeps; default: the first N);
- ``protocol``: facts for the results' ``task`` entry; ``scored_metrics(metrics, items)``: ``negkit score``'s
  metrics (default: the metrics and ``data_count``).

:class:`NLITask` asks a declaration one of two ways. A language model, in lm-eval's multiple-choice style: each
answer word is scored as the continuation ``" " + word`` of the prompt (no delimiter after a chat template), and the
arg-max of the log-likelihoods is the prediction. An NLI sequence classifier: each pair goes to the model as
``(premise, hypothesis)`` (see :mod:`negkit.models.hf_nli` for ``pair_encoding``); the label names come from the
model's configuration (``id2label``) or an explicit ``--model-args labels=[...]`` map, and are mapped onto the
declaration's labels (a model with as many) or onto entailment / neutral / contradiction by name with
:func:`negkit.models.hf_nli.map_labels` (a clear error names any label that cannot be mapped), then fitted
(``fit_label``). On the one path from records to numbers (:mod:`negkit.kit.scoring`) the task reads a label
predictions file as records in the eval's own shape (``negkit score``), rebuilds the items from a samples file as
far as the headline estimands need them (:func:`negkit.kit.tasks.nli.items_from_records`, for ``negkit compare``)
and gives the Harness's per-item ``acc``.

With :func:`~negkit.kit.suites.kinds.declared_suite` a declaration (and the suite's other declarations) makes the
suite: each task's entry (a language model or an NLI classifier), the ``headline`` metric, the ``figures`` and the
Harness export of each task (negkit's prompt and answer words).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any

from negkit.errors import NegkitError
from negkit.kit.data.locate import locate_dataset
from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.kit.data.predictions import read_label_predictions
from negkit.kit.metrics.choice import argmax
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.tasks.base import TaskData, resolve_limit, wrap_prompt
from negkit.kit.tasks.declared import DeclaredTask, own_field
from negkit.kit.tasks.nli import items_from_records, nli_record
from negkit.kit.view import FigureBuilder
from negkit.models.base import AnswerSpace, ClassifyRequest, LoglikelihoodRequest

#: ``metrics(items, predicted_labels) -> metrics``.
NLIMetrics = Callable[[Sequence[NLIItem], Sequence[str]], dict[str, Any]]
#: ``estimands(items, predicted_labels, headline_only) -> estimands``.
NLIEstimands = Callable[[Sequence[NLIItem], Sequence[str], bool], list[Estimand]]
#: ``item_id_from(path, line, record) -> item id``: the item a predictions line without ``item_id`` names (None:
#: such a line is an error).
ItemIdFrom = Callable[[Path, int, Mapping[str, Any]], str | None]


def unchanged(value: Any) -> Any:
    """The value as it is (the default ``fit_label`` and an option's default ``parse`` and ``config``)."""
    return value


def neutral_for_contradiction(label: str) -> str:
    """A 3-way label read on entailment / neutral gold labels: a contradiction is not entailed, so neutral."""
    return "neutral" if label == "contradiction" else label


@dataclass(frozen=True)
class TaskOption:
    """A task option of a benchmark's own (e.g. the conditions asked), set by a ``negkit eval`` flag that its suite
    declares: its name, its default, how a given value is read (``parse``: the flag's text, a list or None in, the
    value the task keeps out; it raises :class:`~negkit.errors.NegkitError` on a bad one) and its entry in the
    task's config (``config``: None for no entry, e.g. for the default, so that such a run reads as before)."""

    name: str
    default: Any = None
    parse: Callable[[Any], Any] = unchanged
    config: Callable[[Any], Any] = unchanged


@dataclass(frozen=True)
class NLIQuestions(DeclaredTask[NLIItem]):
    """How an NLI benchmark is asked and scored (see the module documentation)."""

    _: KW_ONLY
    prompt: str
    #: Answer word -> the label it stands for (``{"Yes": "entailment", "No": "neutral"}``), in the order asked.
    answers: Mapping[str, str]
    metrics: NLIMetrics
    estimands: NLIEstimands
    tables: Callable[[dict[str, Any]], str]
    #: What the intervals resample, in words.
    unit: str = own_field("pair")
    splits: tuple[str, ...] = ("test",)
    #: Other names of a split (``{"dev": "validation"}``), read as that split.
    split_aliases: Mapping[str, str] = field(default_factory=dict, hash=False)
    labels: tuple[str, ...] = NLI_LABELS
    fit_label: Callable[[str], str] = unchanged
    #: Answers of a predictions file read as labels (lower case; e.g. ``{"yes": "entailment"}``).
    prediction_words: Mapping[str, str] = field(default_factory=dict, hash=False)
    item_id_from: ItemIdFrom | None = None
    #: How ``item_id_from`` names an item, for the error of a line without ``item_id`` (``" (or 'index')"``).
    item_id_alternatives: str = ""
    #: Item ids with the groups ``condition`` and ``row``: read from samples that lack those fields.
    item_id_pattern: re.Pattern[str] | None = None
    for_predictions: Callable[[Path], NLIQuestions | None] | None = None
    options: tuple[TaskOption, ...] = ()
    keep: Callable[[NLIItem, Mapping[str, Any]], bool] | None = None
    limit: Callable[[list[NLIItem], int, Mapping[str, Any]], list[NLIItem]] | None = None
    scored_metrics: Callable[[dict[str, Any], Sequence[NLIItem]], dict[str, Any]] | None = None
    #: Facts about the protocol for the results' ``task`` entry (after the prompt and answers).
    protocol: Mapping[str, Any] = field(default_factory=dict, hash=False)
    #: One line for ``negkit eval --list``.
    description: str = ""
    #: The metric the suite leads with (its primary metric) and the suite's figures (:func:`~negkit.kit.suites.
    #: kinds.declared_suite`).
    headline: str = ""
    figures: FigureBuilder | None = None

    def task(
        self,
        model_kind: str = "language_model",
        chat: bool = False,
        system_instruction: str | None = None,
        **options: Any,
    ) -> NLITask:
        """The task, for a language model (plain prompt or chat template) or a classifier, with the benchmark's own
        ``options`` (the ``TaskEntry`` factory)."""
        return NLITask(self, model_kind, chat, system_instruction, **options)

    @property
    def option_names(self) -> frozenset[str]:
        return frozenset(option.name for option in self.options)

    def normalize_split(self, split: str) -> str:
        """The split ``split`` names (``split_aliases``; what the task's :class:`~negkit.kit.tasks.spec.TaskSpec`
        reads without building it)."""
        return self.split_aliases.get(split, split)


class NLITask:
    """An :class:`NLIQuestions` benchmark asked one way: a language model's label words (plain prompt or chat
    template) or an NLI classifier's labels; its items read, its requests built, the answers turned into labelled
    records, predictions files and samples read back (see the module documentation)."""

    uses_seed = False

    def __init__(
        self,
        spec: NLIQuestions,
        model_kind: str = "language_model",
        chat: bool = False,
        system_instruction: str | None = None,
        **options: Any,
    ) -> None:
        unknown = sorted(set(options) - spec.option_names)
        if unknown:
            raise NegkitError(f"{spec.name}: no task option {', '.join(unknown)}")
        if model_kind not in ("language_model", "classifier"):
            raise NegkitError(f"model_kind must be 'language_model' or 'classifier', not {model_kind!r}")
        if model_kind == "classifier" and (chat or system_instruction):
            raise NegkitError(
                f"{spec.name}: a classifier reads (premise, hypothesis) pairs; there is no prompt to "
                "put a chat template or a system instruction on"
            )
        self.spec = spec
        self.name, self.dataset, self.splits = spec.name, spec.dataset or spec.name, spec.splits
        self.prompt, self.answers = spec.prompt, dict(spec.answers)
        #: The options as given (another declaration's task is built with them) and as read.
        self.given = dict(options)
        self.options = {option.name: option.parse(options.get(option.name, option.default)) for option in spec.options}
        self.model_kind = model_kind
        #: With the chat template the prompt is the user message and the answer words follow the generation
        #: prompt directly (no target delimiter), as the LM Evaluation Harness does with --apply_chat_template.
        self.chat = bool(chat)
        self.system_instruction = system_instruction

    @property
    def accepts(self) -> frozenset[str]:
        asked = frozenset() if self.model_kind == "classifier" else frozenset({"chat", "system_instruction"})
        return asked | self.spec.option_names

    @property
    def target_delimiter(self) -> str:
        return "" if self.chat else " "

    def normalize_split(self, split: str) -> str:
        """The split ``split`` names (the declaration's ``split_aliases``)."""
        return self.spec.normalize_split(split)

    def config(self) -> dict[str, Any]:
        """The task's settings, the declaration's ``protocol``, and each option's entry (where it has one)."""
        if self.model_kind == "classifier":
            asked: dict[str, Any] = {"task": self.name, "model_kind": self.model_kind, "input": "(premise, hypothesis)"}
        else:
            asked = {
                "task": self.name,
                "model_kind": self.model_kind,
                "prompt": self.prompt,
                "answers": self.answers,
                "target_delimiter": self.target_delimiter,
                "chat": self.chat,
                "system_instruction": self.system_instruction,
            }
        entries = {option.name: option.config(self.options[option.name]) for option in self.spec.options}
        return asked | dict(self.spec.protocol) | {k: v for k, v in entries.items() if v is not None}

    def prompt_template(self, model: Any) -> str | None:
        """The context with ``{premise}`` and ``{hypothesis}`` in place of the pair (None for a classifier)."""
        if self.model_kind == "classifier":
            return None
        return wrap_prompt(self.prompt, model, self.chat, self.system_instruction)

    def read(self, folder: Path, split: str) -> list[NLIItem]:
        """The split's items (all read, so that the files are checked), those the options keep."""
        items = self.spec.read(folder, split)
        keep = self.spec.keep
        return items if keep is None else [item for item in items if keep(item, self.options)]

    def load(self, data: str | Path | None, split: str, limit: int | None, seed: int) -> TaskData:
        """Read ``split``; ``limit`` keeps about that many items (the declaration's ``limit``, else the first)."""
        folder = locate_dataset(self.dataset, data)
        items = self.read(folder, split)
        total = len(items)
        limit = resolve_limit(limit, total)
        if limit is not None:
            items = items[:limit] if self.spec.limit is None else self.spec.limit(items, limit, self.options)
        selection = {"split": split, "limit": limit, "count": len(items), "items_in_split": total}
        return TaskData(items, self.spec.data_files(folder, split), selection)

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
        label = self.spec.fit_label(item.label)
        for index, meaning in enumerate(self.answers.values()):
            if self.spec.fit_label(meaning) == label:
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
            records.append(nli_record(item, self.spec.fit_label(label), {**extra, "scores": scores}))
        return records

    def answer_space(self, items: Sequence[NLIItem]) -> AnswerSpace:
        """Label -> answer word (the declaration's labels themselves for a classifier) and the gold labels, for the
        baselines."""
        gold = tuple(item.label for item in items)
        if self.model_kind == "classifier":
            return AnswerSpace({label: label for label in self.spec.labels}, gold)
        return AnswerSpace({label: word for word, label in self.answers.items()}, gold)

    def _classifier_scores(self, probabilities: dict[str, float]) -> dict[str, float]:
        """The classifier's probabilities under label names (its labels are mapped by name): the declaration's
        labels when the model has as many, else the three NLI labels (the prediction then fitted to the
        benchmark's labels)."""
        from negkit.models.hf_nli import map_labels  # only a classifier's answers come here

        labels = self.spec.labels if len(probabilities) == len(self.spec.labels) else NLI_LABELS
        mapping = map_labels(list(probabilities), labels)
        return {label: probabilities[model_label] for label, model_label in mapping.items()}

    def predicted_labels(self, records: Sequence[Mapping[str, Any]]) -> list[str]:
        """Each record's predicted label."""
        return [record["prediction"] for record in records]

    def item_id_from(self, path: Path, line: int, record: Mapping[str, Any]) -> str | None:
        """The item a predictions line without ``item_id`` names (None: such a line is an error)."""
        return None if self.spec.item_id_from is None else self.spec.item_id_from(path, line, record)

    def predictions(self, path: Path, items: Sequence[NLIItem]) -> list[dict[str, Any]]:
        """The records of a label predictions file (``{"item_id": ..., "prediction": LABEL}``; labels in any case,
        the declaration's ``prediction_words`` read as labels), in the eval's shape and the items' order; ``negkit
        eval``'s samples file is one such file."""
        predicted = read_label_predictions(
            path,
            {item.item_id for item in items},
            self.item_id_from,
            self.spec.item_id_alternatives,
            self.spec.prediction_words,
        )
        return [
            nli_record(item, self.spec.fit_label(predicted[item.item_id]), {})
            for item in items
            if item.item_id in predicted
        ]

    def items_from_records(self, records: Sequence[Mapping[str, Any]], path: Path) -> list[NLIItem]:
        """The items as far as the headline estimands need them, from a samples file (:func:`items_from_records`)."""
        return items_from_records(records, path, self.name, self.spec.item_id_pattern)

    def harness_scores(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        """Per-item ``acc`` (the prediction is the gold label) for results.json's Harness layout."""
        return {"acc": [float(record["prediction"] == record["gold"]) for record in records]}

    def metrics(self, items: Sequence[NLIItem], records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        return self.spec.metrics(items, self.predicted_labels(records))

    def estimands(
        self, items: Sequence[NLIItem], records: Sequence[Mapping[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        return self.spec.estimands(items, self.predicted_labels(records), headline_only)

    def tables(self, metrics: dict[str, Any]) -> str:
        return self.spec.tables(metrics)

    def scored_metrics(self, metrics: dict[str, Any], name: str, items: Sequence[NLIItem]) -> dict[str, Any]:
        """What ``negkit score`` reports: the declaration's ``scored_metrics``, else the metrics and how many items
        the data has (``data_count``)."""
        if self.spec.scored_metrics is None:
            return metrics | {"data_count": len(items)}
        return self.spec.scored_metrics(metrics, items)

    def task_for_predictions(self, path: Path) -> NLITask:
        """The task whose items the predictions file ``path`` names (``for_predictions``; else this one)."""
        chosen = None if self.spec.for_predictions is None else self.spec.for_predictions(path)
        if chosen is None or chosen.name == self.name:
            return self
        return NLITask(chosen, self.model_kind, self.chat, self.system_instruction, **self.given)
