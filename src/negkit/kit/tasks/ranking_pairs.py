"""Contrastive ranking pairs, declared: each item is two queries and two documents, query 1 relevant to document 1
only and query 2 to document 2 only (NevIR's documents differ by a negation). A system is right on a pair when each
query ranks its own document first: **pairwise accuracy** (random ranking: 1/4; a system that always prefers the
same document, whatever the query, gets 0).

How a system scores a (query, document) pair depends on the model kind the task is built for (``model_kind``):

- ``embedding`` (a bi-encoder, ``embed:PATH``): the cosine similarity of the two texts' embeddings
  (:class:`negkit.engine.requests.SimilarityRequest`); one scorer, ``cosine``;
- ``language_model`` (a causal LM as a pointwise reranker): two scorers from the same run,
  ``yes``: the log-probability of ``" Yes"`` after the relevance prompt (:attr:`ContrastiveRanking.relevance_prompt`,
  the headline), and ``query_likelihood``: the log-probability of the query after the document
  (:attr:`ContrastiveRanking.query_prompt`; the classic query-likelihood model, both documents scored on the same
  query text, so its length does not matter);
- ``classifier`` (an NLI cross-encoder, ``nli:PATH``): the probability of ``entailment`` with the document as the
  premise and the query as the hypothesis; one scorer, ``entailment``.

A tie between the two documents counts as wrong. Metrics per scorer: ``pairwise_accuracy``, ``query_accuracy``
(each query on its own: is its document first; random 1/2) and ``same_document`` (both queries put the same
document first: the negation made no difference to the ranking); the headline ``pairwise_accuracy`` is the first
scorer's. Intervals resample the pairs (or each pair's ``unit`` when the reader names one). The LM Evaluation
Harness has no ranking task type: no export (:data:`RANKING_NO_HARNESS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from negkit.errors import InputFormatError, NegkitError, quoted
from negkit.kit.data.locate import locate_dataset
from negkit.kit.data.predictions import read_predictions, string
from negkit.kit.metrics.intervals import Estimand, ratio_estimand
from negkit.kit.render import plots
from negkit.kit.render.figures import triple
from negkit.kit.render.markdown import interval_note, markdown_table, with_interval
from negkit.kit.runs import need
from negkit.kit.tasks.base import TaskData, check_unique_ids, resolve_limit
from negkit.kit.tasks.declared import DeclaredTask, own_field
from negkit.kit.view import Figure
from negkit.models.base import ClassifyRequest, LoglikelihoodRequest, SimilarityRequest

#: The scorers of each model kind, the headline one first.
SCORERS: dict[str, tuple[str, ...]] = {
    "language_model": ("yes", "query_likelihood"),
    "embedding": ("cosine",),
    "classifier": ("entailment",),
}
#: A 2 x 2 score matrix: ``scores[q][d]`` is query ``q``'s score of document ``d``.
Matrix = list[list[float]]
RANKING_NO_HARNESS = (
    "a system is right on a pair only when each of two queries ranks its own document first; the LM Evaluation "
    "Harness scores continuations per item (multiple_choice, loglikelihood) and has no ranking over documents"
)
RELEVANCE_PROMPT = (
    "Document: {document}\nQuery: {query}\nIs the document relevant to the query? Answer Yes or No.\nAnswer:"
)
QUERY_PROMPT = "Document: {document}\nQuery:"


@dataclass(frozen=True)
class RankingPair:
    """Two queries and two documents: ``queries[i]`` is relevant to ``documents[i]`` only."""

    item_id: str
    queries: tuple[str, str]
    documents: tuple[str, str]
    #: The unit the intervals resample (None: the pair itself).
    unit: str | None = None
    #: Anything else to keep in the per-sample records (JSON-ready).
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ContrastiveRanking(DeclaredTask[RankingPair]):
    """How a contrastive-ranking benchmark is asked (see the module documentation): ``read(folder, split)`` gives
    the pairs, ``files(folder, split)`` the files read; ``note`` is printed with its tables (e.g. an overlap with
    another benchmark)."""

    unit: str = own_field("pair")
    splits: tuple[str, ...] = ("test",)
    relevance_prompt: str = RELEVANCE_PROMPT
    relevance_answer: str = " Yes"
    query_prompt: str = QUERY_PROMPT
    note: str = ""
    protocol: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def task(self, model_kind: str = "language_model") -> RankingTask:
        """The task for a model kind (the ``TaskEntry`` factory)."""
        return RankingTask(self, model_kind)


def pair_outcomes(matrix: Matrix) -> dict[str, bool]:
    """``q1`` / ``q2``: the query ranks its own document strictly first; ``pair``: both; ``same_document``: both
    queries put the same document strictly first."""
    first, second = matrix[0][0] > matrix[0][1], matrix[1][1] > matrix[1][0]
    first_other, second_other = matrix[0][1] > matrix[0][0], matrix[1][0] > matrix[1][1]
    return {
        "q1": first,
        "q2": second,
        "pair": first and second,
        "same_document": (first and second_other) or (first_other and second),
    }


class RankingTask:
    """A :class:`ContrastiveRanking` benchmark asked of one model kind."""

    uses_seed = False
    accepts: frozenset[str] = frozenset()

    def __init__(self, spec: ContrastiveRanking, model_kind: str = "language_model") -> None:
        if model_kind not in SCORERS:
            raise NegkitError(f"model_kind must be one of {', '.join(SCORERS)}, not {model_kind!r}")
        self.spec, self.model_kind, self.scorers = spec, model_kind, SCORERS[model_kind]
        self.name, self.dataset, self.splits = spec.name, spec.dataset or spec.name, spec.splits

    def config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "task": self.name,
            "style": "contrastive ranking pairs",
            "model_kind": self.model_kind,
            "scorers": list(self.scorers),
            **self.spec.protocol,
        }
        if self.model_kind == "language_model":
            config |= {
                "relevance_prompt": self.spec.relevance_prompt,
                "relevance_answer": self.spec.relevance_answer,
                "query_prompt": self.spec.query_prompt,
            }
        return config | ({"note": self.spec.note} if self.spec.note else {})

    def prompt_template(self, model: Any) -> str | None:
        return self.spec.relevance_prompt if self.model_kind == "language_model" else None

    def load(self, data: str | Path | None, split: str, limit: int | float | None, seed: int) -> TaskData:
        folder = locate_dataset(self.dataset, data)
        items = self.spec.read(folder, split)
        check_unique_ids(folder, split, [item.item_id for item in items])
        total = len(items)
        limit = resolve_limit(limit, total)
        items = items[:limit] if limit is not None else items
        selection = {"split": split, "limit": limit, "count": len(items), "items_in_split": total}
        return TaskData(items, self.spec.data_files(folder, split), selection)

    def requests(self, items: Sequence[RankingPair], model: Any = None) -> list[tuple[Any, ...]]:
        """Per pair, each scorer's four (query, document) requests in the order q1d1, q1d2, q2d1, q2d2."""
        spec, requests = self.spec, []
        for item in items:
            combos = [(query, document) for query in item.queries for document in item.documents]
            if self.model_kind == "embedding":
                asked: list[Any] = [SimilarityRequest(query, document) for query, document in combos]
            elif self.model_kind == "classifier":
                asked = [ClassifyRequest(document, query) for query, document in combos]
            else:
                asked = [
                    LoglikelihoodRequest(spec.relevance_prompt.format(document=d, query=q), spec.relevance_answer)
                    for q, d in combos
                ] + [LoglikelihoodRequest(spec.query_prompt.format(document=d), " " + q) for q, d in combos]
            requests.append(tuple(asked))
        return requests

    def _value(self, answer: Any) -> float:
        if self.model_kind == "language_model":
            return float(answer.logprob)
        if self.model_kind == "classifier":
            from negkit.models.hf_nli import map_labels  # only a classifier's answers come here

            return float(answer[map_labels(list(answer), ("entailment",))["entailment"]])
        return float(answer)

    def records(self, items: Sequence[RankingPair], responses: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
        records = []
        for item, answers in zip(items, responses):
            values = [self._value(answer) for answer in answers]
            scores = {
                scorer: [values[4 * index : 4 * index + 2], values[4 * index + 2 : 4 * index + 4]]
                for index, scorer in enumerate(self.scorers)
            }
            records.append(self._record(item, scores))
        return records

    def _record(self, item: RankingPair, scores: dict[str, Matrix]) -> dict[str, Any]:
        outcomes = {scorer: pair_outcomes(matrix) for scorer, matrix in scores.items()}
        first = next(iter(scores))
        return {
            "item_id": item.item_id,
            **item.fields,
            "scores": scores,
            "right": {scorer: [values["q1"], values["q2"]] for scorer, values in outcomes.items()},
            "correct": outcomes[first]["pair"],
            "unit": item.unit or item.item_id,
        }

    def answer_space(self, items: Sequence[RankingPair]) -> None:
        """None: a pair has no fixed answers, so only the random baseline applies."""
        return None

    def _scorer_names(self, records: Sequence[Mapping[str, Any]]) -> list[str]:
        return list(records[0]["scores"]) if records else list(self.scorers)

    def metrics(self, items: Sequence[RankingPair], records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        names = self._scorer_names(records)
        per_scorer = {}
        for scorer in names:
            outcomes = [pair_outcomes(record["scores"][scorer]) for record in records]
            count = len(outcomes) or 1
            per_scorer[scorer] = {
                "pairwise_accuracy": sum(o["pair"] for o in outcomes) / count,
                "correct_pairs": sum(o["pair"] for o in outcomes),
                "query_accuracy": sum(o["q1"] + o["q2"] for o in outcomes) / (2 * count),
                "same_document": sum(o["same_document"] for o in outcomes) / count,
            }
        headline = per_scorer[names[0]] if names else {"pairwise_accuracy": 0.0}
        metrics = {
            "count": len(records),
            "scorer": names[0] if names else "",
            "pairwise_accuracy": headline["pairwise_accuracy"],
            "scorers": per_scorer,
        }
        return metrics | ({"note": self.spec.note} if self.spec.note else {})

    def estimands(
        self, items: Sequence[RankingPair], records: Sequence[Mapping[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        units = [str(record.get("unit", record["item_id"])) for record in records]
        unit = self.spec.unit
        estimands = []
        for index, scorer in enumerate(self._scorer_names(records)):
            outcomes = [pair_outcomes(record["scores"][scorer]) for record in records]
            pair = np.array([o["pair"] for o in outcomes], dtype=float)
            if index == 0:
                estimands.append(
                    ratio_estimand(
                        "pairwise_accuracy", pair, None, units, unit, label="pairwise accuracy", headline=True
                    )
                )
            if headline_only:
                break
            key = f"scorers.{scorer}"
            queries = np.array([(o["q1"] + o["q2"]) / 2 for o in outcomes], dtype=float)
            same = np.array([o["same_document"] for o in outcomes], dtype=float)
            estimands += [
                ratio_estimand(f"{key}.pairwise_accuracy", pair, None, units, unit, label=f"{scorer}: pairwise"),
                ratio_estimand(f"{key}.query_accuracy", queries, None, units, unit, label=f"{scorer}: per query"),
                ratio_estimand(f"{key}.same_document", same, None, units, unit, label=f"{scorer}: same document"),
            ]
        return estimands

    def tables(self, metrics: dict[str, Any]) -> str:
        intervals = metrics.get("intervals")
        rows = [
            [
                scorer,
                values["correct_pairs"],
                with_interval(values["pairwise_accuracy"], intervals, f"scorers.{scorer}.pairwise_accuracy"),
                with_interval(values["query_accuracy"], intervals, f"scorers.{scorer}.query_accuracy"),
                with_interval(values["same_document"], intervals, f"scorers.{scorer}.same_document"),
            ]
            for scorer, values in metrics["scorers"].items()
        ]
        table = markdown_table(
            ["scorer", "pairs right", "pairwise accuracy", "per-query accuracy", "same document first"], rows
        )
        parts = [
            f"### {self.spec.title or self.name} — {metrics['count']} pairs",
            "A pair is right when each query ranks its own document first (random: 0.25 pairwise, 0.5 per query; "
            f"ties count as wrong). Headline: the {metrics['scorer']} scorer.",
            table,
        ]
        note = interval_note(intervals)
        return "\n\n".join(parts + ([metrics["note"]] if metrics.get("note") else []) + ([note] if note else [])) + "\n"

    def predictions(self, path: Path, items: Sequence[RankingPair]) -> list[dict[str, Any]]:
        """The records of a ranker's scores file: lines ``{"item_id": ..., "scores": [[q1d1, q1d2], [q2d1, q2d2]]}``
        (higher: more relevant), or ``scores`` as ``{SCORER: matrix}`` (``negkit eval``'s samples file)."""
        by_id = {item.item_id: item for item in items}

        def scores_of(line: int, record: Mapping[str, Any]) -> dict[str, Matrix]:
            value = record.get("scores")
            named = value if isinstance(value, dict) else {"scores": value}
            for scorer, matrix in named.items():
                if not _is_matrix(matrix):
                    raise InputFormatError(
                        path,
                        line,
                        f"field 'scores'{'' if scorer == 'scores' else f' of {scorer!r}'}: expected "
                        f"[[q1d1, q1d2], [q2d1, q2d2]] (numbers), found {quoted(matrix, 60)}",
                    )
            return {str(scorer): [[float(v) for v in row] for row in matrix] for scorer, matrix in named.items()}

        predicted = read_predictions(
            path, set(by_id), lambda line, record: string(path, line, record, "item_id"), scores_of
        )
        return [self._record(item, predicted[item.item_id]) for item in items if item.item_id in predicted]

    def items_from_records(self, records: Sequence[Mapping[str, Any]], path: Path) -> list[RankingPair]:
        """The pairs as far as the metrics need them (id and unit), from a samples file."""
        items = []
        for number, record in enumerate(records, start=1):
            need(dict(record), "scores", path, number)
            items.append(RankingPair(str(record["item_id"]), ("", ""), ("", ""), record.get("unit")))
        return items


def _is_matrix(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(
            isinstance(row, list)
            and len(row) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) for v in row)
            for row in value
        )
    )


def ranking_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Pairwise and per-query accuracy of each scorer (dashed: random pairwise, 0.25)."""
    scorers = list(metrics.get("scorers", {}))
    bars = plots.interval_bars(
        scorers,
        {
            "pairwise": [triple(metrics, f"scorers.{name}.pairwise_accuracy") for name in scorers],
            "per query": [triple(metrics, f"scorers.{name}.query_accuracy") for name in scorers],
        },
        "accuracy by scorer",
        "accuracy",
        (0, 1),
        reference=0.25,
    )
    return [("Pairwise and per-query accuracy (95% intervals; dashed: random pairwise accuracy)", bars)]
