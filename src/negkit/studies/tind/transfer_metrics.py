"""The numbers of TIND's Figure 2 (train on one pattern, test on every pattern): accuracy of each row (a model:
the base, or the adapter trained on one pattern) on each pattern's test sentences, with 95% percentile bootstrap
intervals resampling groups, and each row's paired difference from the base row.

A row's records are dicts with ``pattern_id``, ``group`` (the group's number within its pattern), ``label`` and
``prediction``. Accuracy is ``100 * correct / sentences`` of a pattern, rounded to 2 decimals like the authors'
scorer. Every row is resampled with the same draws of groups (one seed), so the differences are paired.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from negkit.kit.metrics.intervals import DEFAULT_RESAMPLES, bootstrap_intervals, paired_bootstrap, ratio_estimand


def column_name(pattern: int) -> str:
    return f"#{pattern:02d}"


def transfer_estimands(records: Sequence[Mapping[str, Any]], patterns: Sequence[int]) -> list[Any]:
    """One accuracy estimand per pattern of ``patterns`` (its path is the column name), units = groups."""
    estimands = []
    for pattern in patterns:
        rows = [row for row in records if int(row["pattern_id"]) == pattern]
        correct = [float(bool(row["prediction"]) == bool(row["label"])) for row in rows]
        units = [(pattern, int(row["group"])) for row in rows]
        estimands.append(
            ratio_estimand(
                column_name(pattern),
                correct,
                None,
                units,
                "group",
                scale=100.0,
                label=f"accuracy {column_name(pattern)}",
            )
        )
    return estimands


def transfer_numbers(
    rows: Mapping[str, Sequence[Mapping[str, Any]]],
    base: str | None = "base",
    trained: Mapping[str, int] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> dict[str, Any]:
    """The matrix: ``cells[row][column]`` = accuracy with interval, sentences and groups;
    ``differences[row][column]`` = row minus the ``base`` row (paired over groups) when there is one;
    ``summary[row]``: the trained pattern's cell (``trained[row]``), the mean of the other columns and its
    difference from the base row's mean of the same columns."""
    patterns = sorted({int(record["pattern_id"]) for records in rows.values() for record in records})
    columns = [column_name(pattern) for pattern in patterns]
    estimands = {name: transfer_estimands(records, patterns) for name, records in rows.items()}
    cells: dict[str, dict[str, Any]] = {}
    for name, row_estimands in estimands.items():
        intervals = bootstrap_intervals(row_estimands, resamples, seed)
        cells[name] = {}
        for estimand in row_estimands:
            interval = intervals[estimand.path]
            cells[name][estimand.path] = {
                "accuracy": _round(interval.estimate),
                "ci": [_round(interval.low), _round(interval.high)],
                "sentences": int(len(estimand.counts)),
                "groups": interval.units,
            }
    differences: dict[str, dict[str, Any]] = {}
    if base is not None and base in estimands:
        for name, row_estimands in estimands.items():
            if name == base:
                continue
            paired = paired_bootstrap(row_estimands, estimands[base], resamples, seed)
            differences[name] = {
                path: {
                    "difference": _round(d.estimate),
                    "ci": [_round(d.low), _round(d.high)],
                    "p_value": d.p_value,
                    "significant": d.significant,
                }
                for path, d in paired.items()
            }
    summary = {
        name: row_summary(cells[name], cells.get(base) if base else None, (trained or {}).get(name)) for name in cells
    }
    for name, entry in summary.items():  # the paired estimate, from unrounded accuracies
        estimate = differences.get(name, {}).get(entry["trained_pattern"] or "")
        if estimate is not None:
            entry["diagonal_minus_base"] = estimate["difference"]
    return {
        "columns": columns,
        "rows": list(rows),
        "cells": cells,
        "differences": differences,
        "summary": summary,
        "resamples": resamples,
        "seed": seed,
        "unit": "group",
        "level": 0.95,
    }


def row_summary(row: Mapping[str, Any], base: Mapping[str, Any] | None, trained: int | None) -> dict[str, Any]:
    """The trained pattern's accuracy (the diagonal), the unweighted mean over the other columns, and both
    minus the base row's accuracy on the same columns."""
    own = column_name(trained) if trained is not None else None
    others = [column for column in row if column != own and row[column]["accuracy"] is not None]
    mean = _mean([row[column]["accuracy"] for column in others])
    summary: dict[str, Any] = {
        "trained_pattern": own,
        "diagonal": row[own]["accuracy"] if own is not None and own in row else None,
        "off_diagonal_mean": mean,
        "off_diagonal_columns": len(others),
    }
    if base is not None:
        base_mean = _mean([base[column]["accuracy"] for column in others if base[column]["accuracy"] is not None])
        summary["off_diagonal_minus_base"] = (
            _round(mean - base_mean) if mean is not None and base_mean is not None else None
        )
        if own is not None and own in row and own in base and None not in (row[own]["accuracy"], base[own]["accuracy"]):
            summary["diagonal_minus_base"] = _round(row[own]["accuracy"] - base[own]["accuracy"])
    return summary


def _mean(values: Sequence[float]) -> float | None:
    return _round(sum(values) / len(values)) if values else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(float(value), 2)
