"""Pearson's chi-squared test of independence for a table of counts (no SciPy needed).

:func:`chi_squared_independence` takes an r x c table of observed counts (rows: groups, columns: outcomes), drops
the rows and columns that are all zero, and returns the statistic sum((O - E)^2 / E) with E = row total x column
total / N, its degrees of freedom (r - 1)(c - 1) and the p-value P(X >= statistic) for X chi-squared with those
degrees of freedom, computed as the regularized upper incomplete gamma function Q(dof / 2, statistic / 2) (a power
series below a + 1, a continued fraction above). No continuity correction (Yates) is applied. ``min_expected``
reports the smallest expected count: the usual rule of thumb asks for at least 5 in every cell.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

_EPSILON = 1e-15
_ITERATIONS = 1000


@dataclass(frozen=True)
class ChiSquared:
    """The test's result: ``statistic``, ``dof``, ``p_value``, ``n`` (the table's total) and ``min_expected``."""

    statistic: float
    dof: int
    p_value: float
    n: int
    min_expected: float


def _lower_series(a: float, x: float) -> float:
    """The regularized lower incomplete gamma P(a, x) by its power series (x < a + 1)."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(_ITERATIONS):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPSILON:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """The regularized upper incomplete gamma Q(a, x) by its continued fraction, modified Lentz (x >= a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, _ITERATIONS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPSILON:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi_squared_survival(statistic: float, dof: int) -> float:
    """P(X >= ``statistic``) for X chi-squared with ``dof`` degrees of freedom (1.0 for dof 0 or statistic <= 0)."""
    if dof <= 0 or statistic <= 0:
        return 1.0
    a, x = dof / 2.0, statistic / 2.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return _upper_fraction(a, x)


def chi_squared_independence(table: Sequence[Sequence[float]]) -> ChiSquared:
    """Pearson's chi-squared test of independence of the rows and columns of ``table`` (counts; see the module)."""
    rows = [list(row) for row in table if any(row)]
    if not rows:
        return ChiSquared(0.0, 0, 1.0, 0, 0.0)
    width = len(rows[0])
    if any(len(row) != width for row in rows):
        raise ValueError("every row of a contingency table has the same number of cells")
    if any(value < 0 for row in rows for value in row):
        raise ValueError("a contingency table holds counts (no negative cells)")
    keep = [j for j in range(width) if any(row[j] for row in rows)]
    rows = [[row[j] for j in keep] for row in rows]
    row_totals = [sum(row) for row in rows]
    column_totals = [sum(row[j] for row in rows) for j in range(len(keep))]
    n = sum(row_totals)
    statistic = 0.0
    expected_cells = []
    for i, row in enumerate(rows):
        for j, observed in enumerate(row):
            expected = row_totals[i] * column_totals[j] / n
            expected_cells.append(expected)
            statistic += (observed - expected) ** 2 / expected
    dof = (len(rows) - 1) * (len(keep) - 1)
    return ChiSquared(statistic, dof, chi_squared_survival(statistic, dof), int(n), min(expected_cells))
