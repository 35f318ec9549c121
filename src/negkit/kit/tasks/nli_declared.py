"""NLI benchmarks, declared: a benchmark states how its pairs are asked and scored in an :class:`NLIQuestions`, and
:class:`NLITask` runs it, asked with label words or an NLI classifier (:class:`~negkit.kit.tasks.nli.NLIBase`).

The declaration names the task, its reader and the files it reads (``read``, ``files``: :class:`~negkit.kit.tasks.
declared.DeclaredTask`), the prompt (with ``{premise}`` and ``{hypothesis}``) and the answer words with the label each
stands for, its splits (and ``split_aliases``: other names read as one of them) and the unit its intervals resample, and the benchmark's own numbers over the items and the
predicted labels: ``metrics(items, predicted)``, ``estimands(items, predicted, headline_only)`` and
``tables(metrics)``. The rest is optional and says how the benchmark differs from a plain 3-way NLI set:

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
from negkit.kit.data.nli import NLI_LABELS, NLIItem
from negkit.kit.metrics.intervals import Estimand
from negkit.kit.tasks.declared import DeclaredTask, own_field
from negkit.kit.tasks.nli import NLIBase
from negkit.kit.view import FigureBuilder
from negkit.models.base import AnswerSpace

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


class NLITask(NLIBase):
    """An :class:`NLIQuestions` benchmark asked one way: a language model's label words (plain prompt or chat
    template) or an NLI classifier's labels."""

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
        self.spec = spec
        self.name, self.dataset, self.splits = spec.name, spec.dataset or spec.name, spec.splits
        self.prompt, self.answers = spec.prompt, dict(spec.answers)
        self.prediction_words = spec.prediction_words
        self.item_id_alternatives, self.item_id_pattern = spec.item_id_alternatives, spec.item_id_pattern
        #: The options as given (another declaration's task is built with them) and as read.
        self.given = dict(options)
        self.options = {option.name: option.parse(options.get(option.name, option.default)) for option in spec.options}
        super().__init__(model_kind, chat, system_instruction)

    @property
    def accepts(self) -> frozenset[str]:
        return super().accepts | self.spec.option_names

    def normalize_split(self, split: str) -> str:
        """The split ``split`` names (the declaration's ``split_aliases``)."""
        return self.spec.split_aliases.get(split, split)

    def config(self) -> dict[str, Any]:
        """The task's settings, the declaration's ``protocol``, and each option's entry (where it has one)."""
        entries = {option.name: option.config(self.options[option.name]) for option in self.spec.options}
        return super().config() | dict(self.spec.protocol) | {k: v for k, v in entries.items() if v is not None}

    def read(self, folder: Path, split: str) -> list[NLIItem]:
        """The split's items (all read, so that the files are checked), those the options keep."""
        items = self.spec.read(folder, split)
        keep = self.spec.keep
        return items if keep is None else [item for item in items if keep(item, self.options)]

    def files(self, folder: Path, split: str) -> list[Path]:
        return self.spec.data_files(folder, split)

    def limit_items(self, items: list[NLIItem], limit: int) -> list[NLIItem]:
        return items[:limit] if self.spec.limit is None else self.spec.limit(items, limit, self.options)

    def _fit_label(self, label: str) -> str:
        return self.spec.fit_label(label)

    def _classifier_scores(self, probabilities: dict[str, float]) -> dict[str, float]:
        """Read under the declaration's labels when the model has as many, else under the three NLI labels (the
        prediction then fitted to the benchmark's labels)."""
        if len(probabilities) != len(self.spec.labels):
            return super()._classifier_scores(probabilities)
        from negkit.models.hf_nli import map_labels  # only a classifier's answers come here

        mapping = map_labels(list(probabilities), self.spec.labels)
        return {label: probabilities[model_label] for label, model_label in mapping.items()}

    def answer_space(self, items: Sequence[NLIItem]) -> AnswerSpace:
        if self.model_kind == "classifier":
            return AnswerSpace({label: label for label in self.spec.labels}, tuple(item.label for item in items))
        return super().answer_space(items)

    def item_id_from(self, path: Path, line: int, record: Mapping[str, Any]) -> str | None:
        return None if self.spec.item_id_from is None else self.spec.item_id_from(path, line, record)

    def metrics(self, items: Sequence[NLIItem], records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        return self.spec.metrics(items, self.predicted_labels(records))

    def estimands(
        self, items: Sequence[NLIItem], records: Sequence[Mapping[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        return self.spec.estimands(items, self.predicted_labels(records), headline_only)

    def tables(self, metrics: dict[str, Any]) -> str:
        return self.spec.tables(metrics)

    def scored_metrics(self, metrics: dict[str, Any], name: str, items: Sequence[NLIItem]) -> dict[str, Any]:
        if self.spec.scored_metrics is None:
            return super().scored_metrics(metrics, name, items)
        return self.spec.scored_metrics(metrics, items)

    def task_for_predictions(self, path: Path) -> NLITask:
        """The task whose items the predictions file ``path`` names (``for_predictions``; else this one)."""
        chosen = None if self.spec.for_predictions is None else self.spec.for_predictions(path)
        if chosen is None or chosen.name == self.name:
            return self
        return NLITask(chosen, self.model_kind, self.chat, self.system_instruction, **self.given)
