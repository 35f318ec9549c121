"""NegNLI (Hossain et al., 2020) asked as NaN-NLI is: an NLI classifier, or a language model scored on answer words.

Three tasks, one per file: ``negnli-mnli`` and ``negnli-snli`` (3-way: negkit's NaN-NLI prompt and its answer words
``entailment``, ``contradiction``, ``neutral``) and ``negnli-rte`` (2-way: :data:`RTE_PROMPT`, answers ``yes``
(entailment) and ``no`` (not_entailment)). Each answer word is scored as the continuation ``" " + word`` (no
delimiter after a chat template), the arg-max is the prediction. A classifier reads ``(premise, hypothesis)``;
on RTE a two-label classifier (entailment / not_entailment) is read as it is, a three-label one (MNLI) has its
contradiction and neutral merged into not_entailment, as the NaN-NLI paper's binary setting does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from negkit.data.negnli import NEGNLI_SOURCES, read_negnli
from negkit.data.nli import NLI_LABELS, NLIItem
from negkit.errors import NegkitError
from negkit.metrics.negnli import negnli_report
from negkit.metrics.nli import to_binary
from negkit.models.base import AnswerSpace
from negkit.tasks.base import register_task
from negkit.tasks.nli import NAN_NLI_ANSWERS, NAN_NLI_PROMPT, _NLITask

RTE_PROMPT = ("Premise: {premise}\nHypothesis: {hypothesis}\n"
              "Does the premise entail the hypothesis? Answer yes or no.\nAnswer:")
RTE_ANSWERS: dict[str, str] = {"yes": "entailment", "no": "not_entailment"}
#: Task name -> the title its tables use.
TITLES: dict[str, str] = {"negnli-mnli": "NegNLI-MNLI", "negnli-snli": "NegNLI-SNLI", "negnli-rte": "NegNLI-RTE"}


class NegNLITask(_NLITask):
    """One NegNLI file (``source``: mnli, snli or rte); all 1,500 pairs, a single test set."""

    dataset = "negation-nli"
    splits: tuple[str, ...] = ("test",)

    def __init__(self, source: str = "mnli", model_kind: str = "language_model", chat: bool = False,
                 system_instruction: str | None = None) -> None:
        if source not in NEGNLI_SOURCES:
            raise NegkitError(f"unknown NegNLI source {source!r}; choose one of {', '.join(NEGNLI_SOURCES)}")
        self.source = source
        self.name = f"negnli-{source}"
        self.labels: tuple[str, ...] = NEGNLI_SOURCES[source][1]
        self.two_way = source == "rte"
        self.prompt = RTE_PROMPT if self.two_way else NAN_NLI_PROMPT
        self.answers = RTE_ANSWERS if self.two_way else NAN_NLI_ANSWERS
        super().__init__(model_kind, chat, system_instruction)

    def config(self) -> dict[str, Any]:
        return super().config() | {"labels": list(self.labels)}

    def read(self, folder: Path, split: str) -> list[NLIItem]:
        return read_negnli(folder / NEGNLI_SOURCES[self.source][0], self.source)

    def files(self, folder: Path, split: str) -> list[Path]:
        return [folder / NEGNLI_SOURCES[self.source][0]]

    def limit_items(self, items: list[NLIItem], limit: int) -> list[NLIItem]:
        """The first ``limit`` pairs, rounded up to whole original pairs (their three rows stay together)."""
        units = list(dict.fromkeys(item.premise_id for item in items[:limit]))
        keep = set(units)
        return [item for item in items if item.premise_id in keep]

    def _classifier_scores(self, probabilities: dict[str, float]) -> dict[str, float]:
        """Two-way on RTE when the model's labels allow it, else the three NLI labels (merged by :meth:`_fit_label`)."""
        from negkit.models.hf_nli import map_labels  # only a classifier's answers come here

        if self.two_way and len(probabilities) == len(self.labels):
            mapping = map_labels(list(probabilities), self.labels)
            return {label: probabilities[model_label] for label, model_label in mapping.items()}
        return super()._classifier_scores(probabilities)

    def _fit_label(self, label: str) -> str:
        return to_binary(label) if self.two_way else label

    def answer_space(self, items: Sequence[NLIItem]) -> AnswerSpace:
        if self.model_kind == "classifier":
            return AnswerSpace({label: label for label in self.labels}, tuple(item.label for item in items))
        return super().answer_space(items)

    def metrics(self, items: Sequence[NLIItem], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return negnli_report(items, self.predictions(records), self.labels) | {"source": TITLES[self.name]}

    def intervals(self, items: Sequence[NLIItem], records: Sequence[dict[str, Any]], settings: Any = None) -> dict[str, Any]:
        """95% intervals of every metric, resampling original pairs (:mod:`negkit.metrics.negnli`)."""
        from negkit.metrics.intervals import intervals_json
        from negkit.metrics.negnli import negnli_estimands

        return intervals_json(negnli_estimands(items, self.predictions(records), self.labels), settings)

    def tables(self, metrics: dict[str, Any]) -> str:
        from negkit.report.negnli import negnli_tables

        return negnli_tables(metrics)


for _source in NEGNLI_SOURCES:
    register_task(f"negnli-{_source}", f"NegNLI ({_source.upper()}, Hossain et al. 2020): NLI pairs with negation "
                  f"({'2' if _source == 'rte' else '3'}-way prompt, or --classifier)")(
        lambda source=_source, **options: NegNLITask(source=source, **options))

__all__ = ["NLI_LABELS", "NegNLITask", "RTE_ANSWERS", "RTE_PROMPT"]
