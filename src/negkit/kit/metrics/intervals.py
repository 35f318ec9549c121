"""Confidence intervals: a percentile bootstrap clustered by the unit a benchmark depends on, closed-form
standard errors, and the paired bootstrap for the difference between two runs on the same items.

The data model is additive counts. An :class:`Estimand` is one metric: every row (an item, or a group for a
group-level measure) carries a small vector of counts, belongs to one *unit* (the thing that is sampled:
a TIND group, a NaN-NLI premise, a ScoNe base pair, a Thunder-NUBench item), and the metric is a vectorised
function of the summed counts (``statistic``: array ``(B, K)`` -> ``(B,)``). Accuracy is the counts
``[correct, 1]`` with ``statistic = 100 * c[:, 0] / c[:, 1]``; an F1 needs true positives, predicted and gold
counts per class; coherence is one row per group.

Resampling units with replacement is the same as weighting each unit's summed counts by how often it was
drawn, so a whole batch of bootstrap replicates is one matrix product ``W @ T`` (``W``: ``(B, C)`` draw counts,
``T``: ``(C, K)`` unit totals). Every estimand of a suite shares one draw of units per replicate, and the
paired bootstrap applies the same draws to both runs. Units are ordered by ``repr`` before drawing, so the
result does not depend on the order of the rows; ``seed`` fixes every draw.

- :func:`bootstrap_intervals`: the percentile interval of each estimand (a replicate whose statistic is
  undefined, e.g. a bucket left empty by the draw, is dropped and counted). When every outcome of a ratio
  estimand is the same (0 of 17 groups coherent), every resample repeats it and the percentile interval
  collapses to a point, which would print a sample as if it were exact; such an estimand gets the Wilson
  score interval with the number of units as ``n`` instead (its ``method`` says so); a metric observed on a single
  unit gets no interval, whatever its outcomes (``ci`` is ``[null, null]`` and ``method`` :data:`ONE_UNIT`: the
  spread between units cannot be estimated from one; reports mark such a cell and say why);
- closed-form standard errors for ratio (mean) estimands, ``se`` and ``se_clustered``
  (:mod:`negkit.kit.metrics.standard_errors`);
- :func:`paired_bootstrap`: the difference ``run - baseline`` of every estimand both runs have, its percentile
  interval and a two-sided bootstrap p-value ``min(1, 2 * (min(#{d* <= 0}, #{d* >= 0}) + 1) / (B + 1))``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from negkit.kit.metrics.standard_errors import active_rows, all_outcomes_equal, ratio_se, sum_rows, wilson_interval

#: Resamples used unless a caller asks for another number (the issue asks for at least 1,000).
DEFAULT_RESAMPLES = 1000
DEFAULT_LEVEL = 0.95
#: Upper bound on the cells of one block of draw counts (replicates x units), to bound memory.
_BLOCK_CELLS = 4_000_000

Statistic = Callable[[np.ndarray], np.ndarray]
#: The method of an interval whose outcomes are all equal (see :func:`bootstrap_intervals`).
WILSON = "wilson score (all outcomes equal, n = units)"
#: The method of a metric observed on a single unit: no interval can be estimated.
ONE_UNIT = "none (a single unit: no interval)"


@dataclass(frozen=True)
class Estimand:
    """One metric to put an interval on.

    ``counts`` is ``(N, K)`` (one row per observation), ``units`` the unit of each row, ``statistic`` maps
    summed counts ``(B, K)`` to the metric ``(B,)``. ``ratio_scale`` is set for ratio metrics
    ``scale * sum(c0) / sum(c1)`` (means, rates, shares), which also get closed-form standard errors.
    ``path`` says where the metric lives in the task's metrics (dotted); ``label`` names it in tables.
    """

    path: str
    counts: np.ndarray
    units: Sequence[Hashable]
    statistic: Statistic
    unit: str
    label: str = ""
    ratio_scale: float | None = None
    #: Shown in leaderboards (``negkit compare``) and headline plots.
    headline: bool = False
    #: For a metric that is no function of summed counts (an AUC): the metric ``(B,)`` from row weights ``(B, N)``,
    #: each row's weight being how often its unit was drawn. Replicates then use it instead of ``statistic``
    #: (which still gives the point estimate).
    row_statistic: Statistic | None = None


@dataclass(frozen=True)
class Interval:
    """A point estimate with its percentile bootstrap interval (and closed-form errors for ratios)."""

    estimate: float | None
    low: float | None
    high: float | None
    level: float
    unit: str
    units: int
    rows: int
    resamples: int
    seed: int
    #: Replicates in which the statistic was undefined (dropped before taking percentiles).
    undefined: int = 0
    bootstrap_se: float | None = None
    se: float | None = None
    se_clustered: float | None = None
    method: str = "percentile bootstrap"

    def as_dict(self) -> dict[str, Any]:
        """The JSON entry written next to the metric (with ``no_interval_reason`` when ``ci`` is ``[null, null]``
        because the metric was observed on a single unit)."""
        reason = (
            {
                "no_interval_reason": f"a single {self.unit} in the sample here: the spread between "
                f"{self.unit}s cannot be estimated from one"
            }
            if self.method == ONE_UNIT
            else {}
        )
        return {
            "estimate": _clean(self.estimate),
            "ci": [_clean(self.low), _clean(self.high)],
            "level": self.level,
            "method": self.method,
            "unit": self.unit,
            "units": self.units,
            "rows": self.rows,
            "resamples": self.resamples,
            "seed": self.seed,
            "undefined_resamples": self.undefined,
            "bootstrap_se": _clean(self.bootstrap_se),
            "se": _clean(self.se),
            "se_clustered": _clean(self.se_clustered),
            **reason,
        }


@dataclass(frozen=True)
class Difference:
    """``run - baseline`` for one estimand on the units both runs share, with its interval and p-value."""

    estimate: float | None
    low: float | None
    high: float | None
    p_value: float | None
    level: float
    units: int
    rows: int
    resamples: int
    seed: int
    undefined: int = 0

    @property
    def significant(self) -> bool:
        """True when the interval excludes 0 (equivalently, p < 1 - level up to the bootstrap's granularity)."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "difference": _clean(self.estimate),
            "ci": [_clean(self.low), _clean(self.high)],
            "p_value": _clean(self.p_value),
            "significant": self.significant,
            "level": self.level,
            "method": "paired percentile bootstrap",
            "units": self.units,
            "rows": self.rows,
            "resamples": self.resamples,
            "seed": self.seed,
            "undefined_resamples": self.undefined,
        }


def _clean(value: float | None, digits: int = 6) -> float | None:
    if value is None or not np.isfinite(value):
        return None
    return round(float(value), digits)


# -- statistics ------------------------------------------------------------------------------------------
def ratio(scale: float = 1.0) -> Statistic:
    """``scale * c0 / c1`` (NaN where ``c1`` is 0)."""

    def statistic(sums: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return scale * sums[:, 0] / np.where(sums[:, 1] == 0, np.nan, sums[:, 1])

    return statistic


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with 0 where the denominator is 0 (scikit-learn's convention)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator == 0, 0.0, numerator / np.where(denominator == 0, 1, denominator))


# -- core ------------------------------------------------------------------------------------------------
def ratio_estimand(
    path: str,
    numerator: Sequence[float] | np.ndarray,
    denominator: Sequence[float] | np.ndarray | None,
    units: Sequence[Hashable],
    unit: str,
    scale: float = 1.0,
    label: str = "",
    headline: bool = False,
) -> Estimand:
    """A ratio metric ``scale * sum(numerator) / sum(denominator)`` (a mean when ``denominator`` is None)."""
    numerators = np.asarray(numerator, dtype=float)
    denominators = np.ones_like(numerators) if denominator is None else np.asarray(denominator, dtype=float)
    counts = np.column_stack([numerators, denominators]) if len(numerators) else np.zeros((0, 2))
    return Estimand(path, counts, list(units), ratio(scale), unit, label, scale, headline)


def _unit_index(estimands: Sequence[Estimand]) -> dict[Hashable, int]:
    """Position of every unit of ``estimands`` (ordered by ``repr``, so independent of the row order)."""
    seen: set[Hashable] = set()
    done: set[int] = set()
    for estimand in estimands:
        if id(estimand.units) not in done:  # estimands of one suite usually share their units list
            done.add(id(estimand.units))
            seen.update(estimand.units)
    return {unit: position for position, unit in enumerate(sorted(seen, key=repr))}


def _positions(estimands: Sequence[Estimand], index: dict[Hashable, int]) -> list[np.ndarray]:
    """Each estimand's rows as unit positions (computed once per distinct units list)."""
    cache: dict[int, np.ndarray] = {}
    result = []
    for estimand in estimands:
        key = id(estimand.units)
        if key not in cache:
            cache[key] = np.fromiter(
                (index[unit] for unit in estimand.units), dtype=np.int64, count=len(estimand.units)
            )
        result.append(cache[key])
    return result


def _totals(
    estimands: Sequence[Estimand], positions: Sequence[np.ndarray], size: int
) -> tuple[np.ndarray, list[slice]]:
    """Per-unit sums of every estimand's counts side by side: ``(C, sum K)`` and each estimand's columns."""
    blocks = [sum_rows(estimand.counts, rows, size) for estimand, rows in zip(estimands, positions)]
    slices, start = [], 0
    for block in blocks:
        slices.append(slice(start, start + block.shape[1]))
        start += block.shape[1]
    return (np.hstack(blocks) if blocks else np.zeros((size, 0))), slices


def draw_blocks(units: int, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of draw counts ``W`` (replicates x units): row ``b`` says how often each unit was drawn when
    ``units`` units are drawn with replacement. The blocks together hold ``resamples`` rows; ``seed`` fixes them."""
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_CELLS // max(units, 1))
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        if units == 0:
            yield np.zeros((size, 0))
            continue
        drawn = rng.integers(0, units, size=(size, units))
        offsets = (np.arange(size)[:, None] * units + drawn).ravel()
        yield np.bincount(offsets, minlength=size * units).reshape(size, units).astype(float)


def _replicates(
    runs: Sequence[tuple[Sequence[Estimand], Sequence[np.ndarray], np.ndarray]],
    slices: Sequence[slice],
    units: int,
    resamples: int,
    seed: int,
) -> list[list[np.ndarray]]:
    """Each estimand's statistic on every replicate, for each run's ``(estimands, row positions, totals)`` (the same
    draws for all runs)."""
    out: list[list[list[np.ndarray]]] = [[[] for _ in estimands] for estimands, _, _ in runs]
    for weights in draw_blocks(units, resamples, seed):
        for which, (estimands, positions, totals) in enumerate(runs):
            sums = weights @ totals
            for position, (estimand, rows, columns) in enumerate(zip(estimands, positions, slices)):
                if estimand.row_statistic is not None:  # row weights, a bounded number of replicates at a time
                    step = max(1, _BLOCK_CELLS // max(len(rows), 1))
                    values = np.concatenate(
                        [
                            estimand.row_statistic(weights[start : start + step][:, rows])
                            for start in range(0, weights.shape[0], step)
                        ]
                    )
                else:
                    values = estimand.statistic(sums[:, columns])
                out[which][position].append(np.asarray(values, dtype=float))
    return [[np.concatenate(parts) if parts else np.zeros(0) for parts in per_run] for per_run in out]


def _point(estimand: Estimand, counts: np.ndarray) -> float | None:
    value = float(np.asarray(estimand.statistic(counts.sum(axis=0, keepdims=True)), dtype=float)[0])
    return value if np.isfinite(value) else None


def percentile_interval(replicates: np.ndarray, level: float = DEFAULT_LEVEL) -> tuple[float | None, float | None, int]:
    """The ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles (linear interpolation) of the finite
    replicates, and how many were not finite. ``(None, None, n)`` when none is finite."""
    replicates = np.asarray(replicates, dtype=float)
    finite = replicates[np.isfinite(replicates)]
    undefined = int(replicates.size - finite.size)
    if finite.size == 0:
        return None, None, undefined
    low, high = np.quantile(finite, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high), undefined


def bootstrap_intervals(
    estimands: Sequence[Estimand], resamples: int = DEFAULT_RESAMPLES, seed: int = 0, level: float = DEFAULT_LEVEL
) -> dict[str, Interval]:
    """The percentile bootstrap interval of every estimand, all from the same draws of units, by path."""
    _check(resamples, level)
    index = _unit_index(estimands)
    positions = _positions(estimands, index)
    totals, slices = _totals(estimands, positions, len(index))
    replicates = _replicates([(estimands, positions, totals)], slices, len(index), resamples, seed)[0]
    result: dict[str, Interval] = {}
    for estimand, rows, columns, values in zip(estimands, positions, slices, replicates):
        low, high, undefined = percentile_interval(values, level)
        finite = values[np.isfinite(values)]
        active = active_rows(estimand.counts)
        used_units = np.unique(rows[active])
        se = se_clustered = None
        if estimand.ratio_scale is not None:
            se = ratio_se(estimand.counts[active], estimand.ratio_scale)
            se_clustered = ratio_se(totals[used_units][:, columns], estimand.ratio_scale)
        method = "percentile bootstrap"
        if used_units.size < 2:  # whatever the outcomes, as every metric observed on one unit
            low, high, method = None, None, ONE_UNIT
        elif estimand.ratio_scale is not None and all_outcomes_equal(estimand.counts[active]):
            low, high = wilson_interval(float(estimand.counts[active, 0].sum() > 0), int(used_units.size), level)
            assert low is not None and high is not None  # an interval exists for two units or more
            low, high, method = low * estimand.ratio_scale, high * estimand.ratio_scale, WILSON
        result[estimand.path] = Interval(
            estimate=_point(estimand, estimand.counts) if active.any() else None,
            method=method,
            low=low,
            high=high,
            level=level,
            unit=estimand.unit,
            units=int(used_units.size),
            rows=int(active.sum()),
            resamples=resamples,
            seed=seed,
            undefined=undefined,
            bootstrap_se=float(np.std(finite, ddof=1)) if finite.size > 1 else None,
            se=se,
            se_clustered=se_clustered,
        )
    return result


def paired_bootstrap(
    runs: Sequence[Estimand],
    baselines: Sequence[Estimand],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
) -> dict[str, Difference]:
    """``run - baseline`` for every path the two lists share, with the same draws of units for both.

    The estimands of a path must describe the same rows (same items, same units) in both runs: build them
    from the items both runs scored. The units are those of the run's estimands.
    """
    _check(resamples, level)
    by_path = {estimand.path: estimand for estimand in baselines}
    pairs = [(run, by_path[run.path]) for run in runs if run.path in by_path]
    if not pairs:
        return {}
    runs_, bases = [run for run, _ in pairs], [base for _, base in pairs]
    index = _unit_index(runs_ + bases)
    positions_run, positions_base = _positions(runs_, index), _positions(bases, index)
    totals_run, slices = _totals(runs_, positions_run, len(index))
    totals_base, slices_base = _totals(bases, positions_base, len(index))
    if [(s.start, s.stop) for s in slices] != [(s.start, s.stop) for s in slices_base]:
        raise ValueError("paired estimands must have the same number of count columns")
    run_values, base_values = _replicates(
        [(runs_, positions_run, totals_run), (bases, positions_base, totals_base)], slices, len(index), resamples, seed
    )
    result: dict[str, Difference] = {}
    for (run, base), run_reps, base_reps in zip(pairs, run_values, base_values):
        differences = run_reps - base_reps
        low, high, undefined = percentile_interval(differences, level)
        point_run, point_base = _point(run, run.counts), _point(base, base.counts)
        estimate = None if point_run is None or point_base is None else point_run - point_base
        active = active_rows(run.counts) | active_rows(base.counts)
        result[run.path] = Difference(
            estimate=estimate,
            low=low,
            high=high,
            p_value=bootstrap_p_value(differences),
            level=level,
            units=len({unit for unit, keep in zip(run.units, active) if keep}),
            rows=int(active.sum()),
            resamples=resamples,
            seed=seed,
            undefined=undefined,
        )
    return result


def bootstrap_p_value(differences: np.ndarray) -> float | None:
    """Two-sided p-value of ``difference = 0`` from bootstrap replicates of the difference:
    ``min(1, 2 * (min(#{d <= 0}, #{d >= 0}) + 1) / (B + 1))`` over the finite replicates."""
    finite = np.asarray(differences, dtype=float)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return None
    tail = min(int(np.sum(finite <= 0)), int(np.sum(finite >= 0)))
    return min(1.0, 2 * (tail + 1) / (int(finite.size) + 1))


def _check(resamples: int, level: float) -> None:
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")


@dataclass(frozen=True)
class IntervalSettings:
    """How intervals are computed for a run: resamples, seed and level (recorded with every interval)."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0
    level: float = DEFAULT_LEVEL


def intervals_json(
    estimands: Sequence[Estimand], settings: IntervalSettings | None = None
) -> dict[str, dict[str, Any]]:
    """:func:`bootstrap_intervals` as JSON-ready entries keyed by metric path (the ``intervals`` of a task's
    metrics), each with its table label and headline flag; an estimand with no rows is left out."""
    settings = settings or IntervalSettings()
    present = {estimand.path: estimand for estimand in estimands if active_rows(estimand.counts).any()}
    intervals = bootstrap_intervals(list(present.values()), settings.resamples, settings.seed, settings.level)
    return {
        path: {**interval.as_dict(), "label": present[path].label or path, "headline": present[path].headline}
        for path, interval in intervals.items()
    }


def precision_recall_statistic(which: str) -> Statistic:
    """Precision, recall or F1 (``which``; percent) from summed columns ``[precision numerator, precision
    denominator, recall numerator, recall denominator]``; F1 is the harmonic mean of the two."""

    def statistic(sums: np.ndarray) -> np.ndarray:
        precision = 100 * safe_divide(sums[:, 0], sums[:, 1])
        recall = 100 * safe_divide(sums[:, 2], sums[:, 3])
        if which == "precision":
            return precision
        if which == "recall":
            return recall
        return safe_divide(2 * precision * recall, precision + recall)

    return statistic
