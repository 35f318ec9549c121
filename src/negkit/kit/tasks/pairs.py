"""Whole-sentence minimal pairs, declared: a benchmark whose items are an acceptable and an unacceptable sentence
states how it is asked in a :class:`MinimalPairs` and gets everything else from here.

Each sentence is scored whole: its log-probability is the sum over all its tokens after an empty context, the first
token conditioned on the model's prefix token (the LM Evaluation Harness's ``blimp_*`` protocol: the sentence is the
continuation after the target delimiter). A pair is right when the good sentence scores at least as high as the bad
one (a tie goes to the first choice, the good sentence, as the Harness's arg-max). The pairs fall into groups (e.g.
BLiMP's paradigms): the metrics are the accuracy per group, their mean (the headline) and the pooled accuracy, with
intervals resampling pairs. ``limit`` keeps the first ``ceil(N / groups)`` pairs of every group.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from negkit.errors import InputFormatError, quoted
from negkit.io.atomic import atomic_write_jsonl, atomic_write_text
from negkit.kit.data.predictions import field as record_field
from negkit.kit.data.predictions import is_number, read_predictions, string
from negkit.kit.harness.layout import harness_loader, harness_task_name, harness_task_yaml
from negkit.kit.metrics.intervals import Estimand, ratio_estimand
from negkit.kit.render import plots
from negkit.kit.render.figures import triple
from negkit.kit.render.markdown import interval_note, markdown_table, with_interval
from negkit.kit.runs import need
from negkit.kit.tasks.base import TaskData, load_grouped
from negkit.kit.tasks.declared import DeclaredTask, own_field
from negkit.kit.view import Figure
from negkit.models.base import LoglikelihoodRequest, LoglikelihoodResult


@dataclass(frozen=True)
class SentencePair:
    """One minimal pair: the acceptable sentence, the unacceptable one, its group, and fields to keep in records."""

    item_id: str
    group: str
    good: str
    bad: str
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MinimalPairs(DeclaredTask[SentencePair]):
    """How a minimal-pairs benchmark is asked (see the module documentation).

    ``read(folder, split)`` gives the pairs and ``files(folder, split)`` the files it read; ``group_field`` names the
    group in records (``paradigm``) and ``groups_key`` the metrics' table of groups (``paradigms``); ``groups`` is
    their report order (groups not listed follow, sorted); ``item_id_from(record)`` may name a pair in a predictions
    line without ``item_id`` (None: it does not)."""

    target_delimiter: str = " "
    unit: str = own_field("minimal pair")
    harness_task: str = ""
    item_id_from: Callable[[Mapping[str, Any]], str | None] | None = None

    def task(self) -> PairTask:
        return PairTask(self)

    @property
    def harness_name(self) -> str:
        return self.harness_task or harness_task_name(self.name)


def pair_correct(logprob_good: float, logprob_bad: float) -> bool:
    """The good sentence is chosen: its log-probability is at least the bad one's (ties go to the first choice)."""
    return not logprob_bad > logprob_good


class PairTask:
    """A :class:`MinimalPairs` benchmark as a task (its only split is the whole set, ``test``)."""

    model_kind = "language_model"
    accepts: frozenset[str] = frozenset()
    uses_seed = False
    splits: tuple[str, ...] = ("test",)

    def __init__(self, spec: MinimalPairs) -> None:
        self.spec, self.name, self.dataset = spec, spec.name, spec.dataset or spec.name
        self.target_delimiter = spec.target_delimiter

    def config(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "protocol": f"sum of the log-probabilities of every token of {self.target_delimiter!r}"
            " + sentence, the first conditioned on the model's prefix token (BOS, else EOS)",
            "context": "",
            "target_delimiter": self.target_delimiter,
            "first_token_conditioned_on": "the model's prefix token (results: model.load.prefix_token)",
            "choices": ["sentence_good", "sentence_bad"],
            self.spec.groups_key: list(self.spec.groups),
        }

    def prompt_template(self, model: Any) -> str:
        """What is scored: the sentence after the delimiter (the context is the prefix token alone)."""
        return self.target_delimiter + "{sentence}"

    def load(self, data: str | Path | None, split: str, limit: int | float | None, seed: int) -> TaskData:
        return load_grouped(self, data, split, limit, lambda pair: pair.group)

    def requests(self, items: Sequence[SentencePair], model: Any = None) -> list[tuple[LoglikelihoodRequest, ...]]:
        """Per pair: the good sentence, then the bad one, each a whole sequence after the empty context."""
        return [
            (
                LoglikelihoodRequest("", self.target_delimiter + pair.good),
                LoglikelihoodRequest("", self.target_delimiter + pair.bad),
            )
            for pair in items
        ]

    def records(
        self, items: Sequence[SentencePair], responses: Sequence[Sequence[LoglikelihoodResult]]
    ) -> list[dict[str, Any]]:
        return [
            self._record(
                pair,
                pair_correct(good.logprob, bad.logprob),
                {
                    "logprob_good": good.logprob,
                    "logprob_bad": bad.logprob,
                    "tokens_good": good.n_tokens,
                    "tokens_bad": bad.n_tokens,
                },
            )
            for pair, (good, bad) in zip(items, responses)
        ]

    def _record(self, pair: SentencePair, correct: bool, scores: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "item_id": pair.item_id,
            self.spec.group_field: pair.group,
            **pair.fields,
            "sentence_good": pair.good,
            "sentence_bad": pair.bad,
            **scores,
            "prediction": "good" if correct else "bad",
            "gold": "good",
            "correct": correct,
        }

    def metrics(self, items: Sequence[SentencePair], records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        return grouped_accuracy(records, self.spec) | {"protocol": "whole sentence after the prefix token"}

    def estimands(
        self, items: Sequence[SentencePair], records: Sequence[Mapping[str, Any]], headline_only: bool = False
    ) -> list[Estimand]:
        return grouped_estimands(records, self.spec, headline_only)

    def tables(self, metrics: dict[str, Any]) -> str:
        return grouped_tables(metrics, self.spec)

    def harness_scores(self, records: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        return {"acc": [float(bool(record["correct"])) for record in records]}

    def predictions(self, path: Path, items: Sequence[SentencePair]) -> list[dict[str, Any]]:
        """The records of a predictions file: lines name a pair by ``item_id`` and give ``prediction`` (``good`` /
        ``bad``, or 0 / 1: the index of the sentence chosen) or the two log-probabilities ``logprob_good`` and
        ``logprob_bad``; ``negkit eval``'s samples file is read as well."""
        by_id = {pair.item_id: pair for pair in items}

        def item_id_of(line: int, record: Mapping[str, Any]) -> str:
            if "item_id" not in record and self.spec.item_id_from is not None:
                named = self.spec.item_id_from(record)
                if named is not None:
                    return named
            if "item_id" not in record:
                raise InputFormatError(path, line, "missing field 'item_id'")
            return string(path, line, record, "item_id")

        def good_chosen(line: int, record: Mapping[str, Any]) -> bool:
            if "prediction" not in record and "logprob_good" in record:
                scores = [record_field(path, line, record, name) for name in ("logprob_good", "logprob_bad")]
                if not all(is_number(score) for score in scores):
                    raise InputFormatError(
                        path, line, "fields 'logprob_good' and 'logprob_bad' must be numbers (not NaN)"
                    )
                return pair_correct(float(scores[0]), float(scores[1]))
            value = record_field(path, line, record, "prediction")
            if value in ("good", 0) and not isinstance(value, bool):
                return True
            if value in ("bad", 1) and not isinstance(value, bool):
                return False
            raise InputFormatError(path, line, f"field 'prediction': {quoted(value, 40)} is not good, bad, 0 or 1")

        chosen = read_predictions(path, set(by_id), item_id_of, good_chosen)
        return [self._record(pair, chosen[pair.item_id], {}) for pair in items if pair.item_id in chosen]

    def items_from_records(self, records: Sequence[Mapping[str, Any]], path: Path) -> list[SentencePair]:
        """The pairs as far as ``negkit compare`` needs them (group and outcome), from a samples file."""
        items = []
        for number, record in enumerate(records, start=1):
            need(record, "correct", path, number, bool)
            items.append(
                SentencePair(str(record["item_id"]), str(need(record, self.spec.group_field, path, number)), "", "")
            )
        return items


def _groups(records: Sequence[Mapping[str, Any]], spec: MinimalPairs) -> list[str]:
    present = {record[spec.group_field] for record in records}
    return [name for name in spec.groups if name in present] + sorted(present - set(spec.groups))


def grouped_accuracy(records: Sequence[Mapping[str, Any]], spec: MinimalPairs) -> dict[str, Any]:
    """``GROUPS.NAME`` (correct, total, accuracy) per group, and ``overall``: the mean of the group accuracies (the
    headline), the pooled accuracy over every pair, and how many groups there were."""
    groups: dict[str, dict[str, Any]] = {}
    for name in _groups(records, spec):
        chosen = [bool(record["correct"]) for record in records if record[spec.group_field] == name]
        groups[name] = {"correct": sum(chosen), "total": len(chosen), "accuracy": sum(chosen) / len(chosen)}
    correct = sum(bool(record["correct"]) for record in records)
    accuracies = [values["accuracy"] for values in groups.values()]
    overall = {
        "accuracy": sum(accuracies) / len(accuracies) if accuracies else 0.0,
        "pooled_accuracy": correct / len(records) if records else 0.0,
        "correct": correct,
        "total": len(records),
        spec.groups_key: len(groups),
    }
    return {"count": len(records), spec.groups_key: groups, "overall": overall}


def _mean_of_ratios(sums: np.ndarray) -> np.ndarray:
    """Mean over groups of ``correct_g / pairs_g`` from columns ``[correct_1, pairs_1, ...]`` (a group a resample
    left empty is skipped)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        means: np.ndarray = np.nanmean(sums[:, 0::2] / np.where(sums[:, 1::2] == 0, np.nan, sums[:, 1::2]), axis=1)
    return means


def grouped_estimands(
    records: Sequence[Mapping[str, Any]], spec: MinimalPairs, headline_only: bool = False
) -> list[Estimand]:
    """Accuracy per group (``GROUPS.NAME.accuracy``), their mean (``overall.accuracy``, the headline) and the pooled
    accuracy (``overall.pooled_accuracy``), resampling pairs."""
    units = [str(record["item_id"]) for record in records]
    correct = np.array([bool(record["correct"]) for record in records], dtype=float)
    estimands, columns = [], []
    for name in _groups(records, spec):
        mask = np.array([record[spec.group_field] == name for record in records], dtype=float)
        columns += [correct * mask, mask]
        if not headline_only:
            estimands.append(
                ratio_estimand(f"{spec.groups_key}.{name}.accuracy", correct * mask, mask, units, spec.unit, label=name)
            )
    if columns:
        estimands.append(
            Estimand(
                "overall.accuracy",
                np.column_stack(columns),
                units,
                _mean_of_ratios,
                spec.unit,
                f"accuracy (mean of {spec.groups_key})",
                headline=True,
            )
        )
    if not headline_only:
        estimands.append(
            ratio_estimand("overall.pooled_accuracy", correct, None, units, spec.unit, label="accuracy (pooled)")
        )
    return estimands


def grouped_tables(metrics: dict[str, Any], spec: MinimalPairs) -> str:
    """Accuracy per group, their mean and the pooled accuracy, with 95% intervals."""
    intervals, overall = metrics.get("intervals"), metrics["overall"]
    rows = [
        [
            name,
            values["correct"],
            values["total"],
            with_interval(values["accuracy"], intervals, f"{spec.groups_key}.{name}.accuracy"),
        ]
        for name, values in metrics[spec.groups_key].items()
    ]
    rows.append(
        [
            f"mean of the {overall[spec.groups_key]} {spec.groups_key}",
            overall["correct"],
            overall["total"],
            with_interval(overall["accuracy"], intervals, "overall.accuracy"),
        ]
    )
    rows.append(
        [
            "pooled over every pair",
            overall["correct"],
            overall["total"],
            with_interval(overall["pooled_accuracy"], intervals, "overall.pooled_accuracy"),
        ]
    )
    parts = [
        f"### {spec.title or spec.name} — {metrics['count']} minimal pairs",
        "A pair is right when the good sentence has the higher total log-probability"
        + (f" ({metrics['protocol']})" if metrics.get("protocol") else "")
        + ":",
        markdown_table([spec.group_field, "right", "pairs", "accuracy"], rows),
    ]
    note = interval_note(intervals)
    return "\n\n".join(parts + ([note] if note else [])) + "\n"


def pair_figures(spec: MinimalPairs) -> Callable[[dict[str, Any], Sequence[dict[str, Any]] | None], list[Figure]]:
    """The figure builder of ``spec``: accuracy per group and their mean (95% intervals; dashed: chance)."""

    def figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
        names = list(metrics[spec.groups_key])
        bars = plots.interval_bars(
            [*names, f"mean of {spec.groups_key}"],
            {
                "accuracy": [triple(metrics, f"{spec.groups_key}.{name}.accuracy") for name in names]
                + [triple(metrics, "overall.accuracy")]
            },
            f"{spec.title or spec.name}: good sentence preferred",
            "accuracy",
            (0, 1),
            reference=0.5,
            width=8.0,
        )
        return [(f"Accuracy per {spec.group_field} and their mean (95% intervals; dashed: chance)", bars)]

    return figures


def write_pairs_harness(task: PairTask, loaded: TaskData, out: Path) -> dict[str, Any]:
    """The pairs for the LM Evaluation Harness as its ``blimp_*`` tasks ask them: an empty context and the choices
    ``[good, bad]`` after the target delimiter (gold: 0, the good sentence)."""
    name, spec = task.spec.harness_name, task.spec
    docs = [
        {
            "item_id": pair.item_id,
            spec.group_field: pair.group,
            "context": "",
            "choices": [pair.good, pair.bad],
            "gold": 0,
        }
        for pair in loaded.items
    ]
    atomic_write_jsonl(out / f"{name}.test.jsonl", docs)
    atomic_write_text(
        out / f"{name}.yaml",
        harness_task_yaml(
            name,
            harness_loader(name),
            "context",
            "choices",
            "gold",
            task.target_delimiter,
            f"{task.name}: each sentence scored whole after the empty context (arg-max; the Harness's blimp_* protocol).",
        ),
    )
    return {"docs": {"test": f"{name}.test.jsonl"}}
