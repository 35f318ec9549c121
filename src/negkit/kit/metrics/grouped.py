"""Means of per-record values by group, and their intervals: the metric layer of the probe kinds
(:mod:`negkit.kit.tasks.cloze`, :mod:`negkit.kit.tasks.paired`, :mod:`negkit.kit.tasks.completion`).

A :class:`RecordMetric` reads one number from each per-sample record (1/0 for a hit, a correlation, ...), or None
where the metric does not apply to that record (a probe without a gold answer). Its value on a set of records is the
mean over the records where it applies. Records fall into groups (LAMA's relations, a data set's topics), and groups
optionally into families (LAMA's sources): a group's value is the mean over its records, a family's the mean over
its groups, and the overall value either the mean over all groups (``average="groups"``, LAMA's and BLiMP's habit)
or over all records (``average="records"``).

:func:`grouped_means` gives the metrics dictionary (``overall``, ``GROUPS.NAME``, ``families.NAME``; a metric
``a.b`` is nested as ``{"a": {"b": ...}}``); :func:`grouped_estimands` the matching estimands, each resampling the
records' units (a fact and its negated twin are one record, so they are drawn together).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from negkit.kit.metrics.intervals import Estimand, ratio_estimand

AVERAGES = ("groups", "records")


@dataclass(frozen=True)
class RecordMetric:
    """One metric: its dotted ``path`` (``affirmative.p_at_1``), the per-record value (None: does not apply), a table
    label, and whether it is a headline number (shown by ``negkit compare`` and leaderboards)."""

    path: str
    value: Callable[[Mapping[str, Any]], float | None]
    label: str = ""
    headline: bool = False


def put(target: dict[str, Any], path: str, value: Any) -> None:
    """Set ``target[a][b] = value`` for the dotted ``path`` ``a.b`` (creating the inner dictionaries)."""
    *parents, last = path.split(".")
    for part in parents:
        target = target.setdefault(part, {})
    target[last] = value


def _columns(records: Sequence[Mapping[str, Any]], metric: RecordMetric) -> tuple[np.ndarray, np.ndarray]:
    """Each record's value (0 where it does not apply) and whether it applies."""
    values = [metric.value(record) for record in records]
    applies = np.array([value is not None for value in values], dtype=float)
    return np.array([0.0 if value is None else float(value) for value in values]), applies


def _mean(values: np.ndarray, applies: np.ndarray, mask: np.ndarray) -> float | None:
    count = float((applies * mask).sum())
    return float((values * applies * mask).sum()) / count if count else None


def _mean_of(parts: Sequence[float | None]) -> float | None:
    present = [part for part in parts if part is not None]
    return sum(present) / len(present) if present else None


def ordered_names(names: Sequence[str], order: Sequence[str] = ()) -> list[str]:
    """``names`` without repeats: those in ``order`` first, in its order, then the others sorted."""
    present = set(names)
    return [name for name in order if name in present] + sorted(present - set(order))


def grouped_means(
    records: Sequence[Mapping[str, Any]],
    metrics: Sequence[RecordMetric],
    groups: Sequence[str],
    groups_key: str = "groups",
    order: Sequence[str] = (),
    families: Sequence[str] | None = None,
    average: str = "groups",
) -> dict[str, Any]:
    """``{"count", "overall", GROUPS_KEY: {name: {"count", ...}}, "families": ...}``: each metric's mean per group
    (``groups``: each record's group), per family (``families``: each record's family; the mean of its groups) and
    overall (see the module documentation)."""
    if average not in AVERAGES:
        raise ValueError(f"average must be one of {AVERAGES}, got {average!r}")
    names = ordered_names(groups, order)
    result: dict[str, Any] = {"count": len(records), "overall": {}, groups_key: {name: {"count": 0} for name in names}}
    masks = {name: np.array([group == name for group in groups], dtype=float) for name in names}
    for name in names:
        result[groups_key][name]["count"] = int(masks[name].sum())
    family_of = dict(zip(groups, families)) if families is not None else {}
    family_names = ordered_names(list(family_of.values()), order) if families is not None else []
    if family_names:
        result["families"] = {
            family: {
                "groups": sum(family_of[name] == family for name in names),
                "count": sum(int(masks[name].sum()) for name in names if family_of[name] == family),
            }
            for family in family_names
        }
    everything = np.ones(len(records))
    for metric in metrics:
        values, applies = _columns(records, metric)
        per_group = {name: _mean(values, applies, masks[name]) for name in names}
        for name, value in per_group.items():
            put(result[groups_key][name], metric.path, value)
        for family in family_names:
            put(
                result["families"][family],
                metric.path,
                _mean_of([per_group[name] for name in names if family_of[name] == family]),
            )
        overall = _mean_of(list(per_group.values())) if average == "groups" else _mean(values, applies, everything)
        put(result["overall"], metric.path, overall)
    return result


def _mean_of_ratios(sums: np.ndarray) -> np.ndarray:
    """Mean over groups of ``sum_g / count_g`` from columns ``[sum_1, count_1, ...]`` (a group without any applying
    record in a resample is skipped; NaN when none has one)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = sums[:, 0::2] / np.where(sums[:, 1::2] == 0, np.nan, sums[:, 1::2])
        valid = ~np.isnan(ratios)
        counts = valid.sum(axis=1)
        return np.where(counts == 0, np.nan, np.nansum(ratios, axis=1) / np.where(counts == 0, 1, counts))


def grouped_estimands(
    records: Sequence[Mapping[str, Any]],
    metrics: Sequence[RecordMetric],
    groups: Sequence[str],
    units: Sequence[Hashable],
    unit: str,
    groups_key: str = "groups",
    order: Sequence[str] = (),
    families: Sequence[str] | None = None,
    average: str = "groups",
    headline_only: bool = False,
) -> list[Estimand]:
    """The estimands of :func:`grouped_means` (paths ``overall.PATH``, ``GROUPS_KEY.NAME.PATH``,
    ``families.NAME.PATH``), resampling ``units`` (one per record). With ``headline_only`` only the overall values of
    the headline metrics."""
    names = ordered_names(groups, order)
    masks = {name: np.array([group == name for group in groups], dtype=float) for name in names}
    family_of = dict(zip(groups, families)) if families is not None else {}
    family_names = ordered_names(list(family_of.values()), order) if families is not None else []
    estimands: list[Estimand] = []
    for metric in metrics:
        if headline_only and not metric.headline:
            continue
        values, applies = _columns(records, metric)
        if not applies.any():  # the metric applies to no record: nothing to resample (nor to compare)
            continue
        label = metric.label or metric.path
        if average == "records":
            estimands.append(
                ratio_estimand(
                    f"overall.{metric.path}",
                    values * applies,
                    applies,
                    units,
                    unit,
                    label=label,
                    headline=metric.headline,
                )
            )
        else:
            columns = np.column_stack(
                [column for name in names for column in (values * applies * masks[name], applies * masks[name])]
            )
            estimands.append(
                Estimand(
                    f"overall.{metric.path}",
                    columns if names else np.zeros((len(records), 2)),
                    list(units),
                    _mean_of_ratios,
                    unit,
                    f"{label} (mean of {groups_key})",
                    headline=metric.headline,
                )
            )
        if headline_only:
            continue
        for name in names:
            estimands.append(
                ratio_estimand(
                    f"{groups_key}.{name}.{metric.path}",
                    values * applies * masks[name],
                    applies * masks[name],
                    units,
                    unit,
                    label=f"{label}: {name}",
                )
            )
        for family in family_names:
            members = [name for name in names if family_of[name] == family]
            columns = np.column_stack(
                [column for name in members for column in (values * applies * masks[name], applies * masks[name])]
            )
            estimands.append(
                Estimand(
                    f"families.{family}.{metric.path}",
                    columns,
                    list(units),
                    _mean_of_ratios,
                    unit,
                    f"{label}: {family}",
                )
            )
    return estimands
