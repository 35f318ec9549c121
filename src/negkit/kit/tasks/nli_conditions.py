"""NLI scored by condition: accuracy overall and per condition (where a negation was inserted; a negated set and its
no-negation control), the gap between two sets of conditions, and the share of each predicted label.

A benchmark states its conditions in a :class:`ByCondition` and its :class:`~negkit.kit.tasks.nli_declared.
NLIQuestions` declaration uses its ``metrics``, ``estimands``, ``tables`` and ``limit`` (with its ``title``,
``unit`` and ``headline``, and :func:`condition_figures`): ``conditions`` (their order), ``gap`` (``(minuend,
subtrahend)``: two tuples of conditions; the gap is the accuracy over the first set minus the accuracy over the
second), ``labels`` (those whose share of the predictions is reported) and ``headline`` (the metric path the suite
leads with). Each item's ``condition`` names its condition and ``premise_id`` the unit the intervals resample
(items of one unit are drawn together); ``--limit N`` keeps the first ``ceil(N / conditions)`` items of each.

Metrics: ``count``, ``acc``, ``conditions.NAME.{count, correct, acc}``, ``gap`` (with ``gap_between``: the two
sets), ``predicted.LABEL`` (share of the predictions); all with intervals, the headline flagged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Any

import numpy as np

from negkit.kit.data.nli import NLIItem
from negkit.kit.metrics.intervals import Estimand, ratio_estimand
from negkit.kit.render import plots
from negkit.kit.render.figures import triple
from negkit.kit.render.markdown import interval_note, markdown_table, number, with_interval
from negkit.kit.tasks.base import first_per_group
from negkit.kit.view import Figure


@dataclass(frozen=True)
class ByCondition:
    """How an NLI benchmark whose items fall into conditions is scored (see the module documentation)."""

    #: The heading of the tables.
    title: str
    conditions: tuple[str, ...]
    _: KW_ONLY
    gap: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    #: The labels whose share of the predictions is reported (the benchmark's gold labels).
    labels: tuple[str, ...] = ()
    headline: str = "acc"
    #: What the intervals resample, in words.
    unit: str = "premise"

    def scoring(self) -> dict[str, Any]:
        """The fields of an :class:`~negkit.kit.tasks.nli_declared.NLIQuestions` that this scoring fills: its
        metrics, estimands, tables, ``--limit`` rule, interval unit, title, headline and figures
        (``NLIQuestions(NAME, read, files, prompt=..., answers=..., **BY_CONDITION.scoring())``)."""
        return {
            "metrics": self.metrics,
            "estimands": self.estimands,
            "tables": self.tables,
            "limit": self.limit,
            "unit": self.unit,
            "title": self.title,
            "headline": self.headline,
            "figures": condition_figures,
        }

    def limit(self, items: list[NLIItem], limit: int, options: Mapping[str, Any]) -> list[NLIItem]:
        """The first items of each condition, as evenly as can be."""
        return first_per_group(items, limit, lambda item: item.condition)

    def _columns(self, items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, np.ndarray]:
        conditions = np.array([item.condition for item in items])
        return {
            "right": np.array([p == item.label for p, item in zip(predicted, items)], dtype=float),
            **{f"in:{name}": (conditions == name).astype(float) for name in self._condition_names(items)},
            **{f"said:{label}": np.array([p == label for p in predicted], dtype=float) for label in self.labels},
        }

    def _condition_names(self, items: Sequence[NLIItem]) -> list[str]:
        present = {item.condition for item in items}
        return [name for name in self.conditions if name in present] + sorted(present - set(self.conditions))

    def _gap_masks(self, columns: dict[str, np.ndarray], count: int) -> tuple[np.ndarray, np.ndarray] | None:
        if self.gap is None:
            return None
        masks = tuple(
            sum((columns.get(f"in:{name}", np.zeros(count)) for name in side), np.zeros(count)) for side in self.gap
        )
        return (masks[0], masks[1]) if all(mask.sum() > 0 for mask in masks) else None

    def metrics(self, items: Sequence[NLIItem], predicted: Sequence[str]) -> dict[str, Any]:
        """Accuracy overall and per condition, the gap and the share of each label predicted."""
        columns, count = self._columns(items, predicted), len(items)
        right = columns["right"]
        metrics: dict[str, Any] = {"count": count, "acc": float(right.mean()) if count else 0.0, "conditions": {}}
        for name in self._condition_names(items):
            mask = columns[f"in:{name}"]
            correct = int((right * mask).sum())
            metrics["conditions"][name] = {"count": int(mask.sum()), "correct": correct, "acc": correct / mask.sum()}
        masks = self._gap_masks(columns, count)
        if masks is not None and self.gap is not None:
            first, second = ((right * mask).sum() / mask.sum() for mask in masks)
            metrics["gap"] = float(first - second)
            metrics["gap_between"] = [list(side) for side in self.gap]
        metrics["predicted"] = {
            label: float(columns[f"said:{label}"].mean()) if count else 0.0 for label in self.labels
        }
        return metrics

    def estimands(self, items: Sequence[NLIItem], predicted: Sequence[str], headline_only: bool) -> list[Estimand]:
        """The metrics' estimands, resampling each item's ``premise_id`` (else the item); the gap and
        :attr:`headline` are the headline."""
        columns, count = self._columns(items, predicted), len(items)
        units = [item.premise_id or item.item_id for item in items]
        unit, right = self.unit, columns["right"]
        estimands = [ratio_estimand("acc", right, None, units, unit, label="accuracy", headline=self.headline == "acc")]
        for name in self._condition_names(items):
            path, mask = f"conditions.{name}.acc", columns[f"in:{name}"]
            estimands.append(
                ratio_estimand(
                    path, right * mask, mask, units, unit, label=f"acc: {name}", headline=self.headline == path
                )
            )
        masks = self._gap_masks(columns, count)
        if masks is not None:
            counts = np.column_stack([right * masks[0], masks[0], right * masks[1], masks[1]])
            estimands.append(Estimand("gap", counts, units, _difference, unit, "gap", headline=True))
        if not headline_only:
            estimands += [
                ratio_estimand(f"predicted.{label}", columns[f"said:{label}"], None, units, unit, label=f"says {label}")
                for label in self.labels
            ]
        return [estimand for estimand in estimands if estimand.headline or not headline_only]

    def tables(self, metrics: dict[str, Any]) -> str:
        """Accuracy by condition, the gap and the labels predicted, in Markdown."""
        intervals = metrics.get("intervals")
        rows = [["all", metrics["count"], "", with_interval(metrics["acc"], intervals, "acc")]] + [
            [
                name,
                values["count"],
                values["correct"],
                with_interval(values["acc"], intervals, f"conditions.{name}.acc"),
            ]
            for name, values in metrics["conditions"].items()
        ]
        parts = [
            f"### {self.title} — {metrics['count']} pairs",
            "Accuracy by condition:",
            markdown_table(["condition", "pairs", "right", "accuracy"], rows),
        ]
        if "gap" in metrics:
            first, second = (" + ".join(side) for side in metrics["gap_between"])
            parts.append(
                f"Gap, accuracy on {first} minus accuracy on {second}: {with_interval(metrics['gap'], intervals, 'gap')}"
            )
        shares = [
            [label, with_interval(value, intervals, f"predicted.{label}")]
            for label, value in metrics["predicted"].items()
        ]
        parts += ["Labels predicted:", markdown_table(["label", "share of the predictions"], shares)]
        note = interval_note(intervals)
        return "\n\n".join(parts + ([note] if note else [])) + "\n"


def _difference(sums: np.ndarray) -> np.ndarray:
    """The gap of resampled sums (columns: right and count of the first set, right and count of the second)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        gaps: np.ndarray = sums[:, 0] / sums[:, 1] - sums[:, 2] / sums[:, 3]
    return gaps


def condition_figures(metrics: dict[str, Any], records: Sequence[dict[str, Any]] | None = None) -> list[Figure]:
    """Accuracy overall and per condition (95% intervals; dashed: chance for the labels predicted)."""
    names = list(metrics.get("conditions", {}))
    labels = list(metrics.get("predicted", {}))
    bars = plots.interval_bars(
        ["all", *names],
        {"accuracy": [triple(metrics, "acc")] + [triple(metrics, f"conditions.{name}.acc") for name in names]},
        "accuracy by condition",
        "accuracy",
        (0, 1),
        reference=1 / len(labels) if labels else None,
    )
    title = "Accuracy overall and by condition (95% intervals" + ("; dashed: chance)" if labels else ")")
    if "gap" in metrics:
        title += f"; gap {number(metrics['gap'])}"
    return [(title, bars)]
