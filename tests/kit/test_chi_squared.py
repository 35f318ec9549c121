"""Pearson's chi-squared test of independence against cases worked out by hand and textbook critical values."""

from __future__ import annotations

import math

import pytest

from negkit.kit.metrics.chi_squared import chi_squared_independence, chi_squared_survival


def test_two_by_two_by_hand():
    """[[10, 20], [20, 10]]: every expected count 15, statistic 4 x 25 / 15 = 20/3, dof 1, p = erfc(sqrt(10/3))."""
    result = chi_squared_independence([[10, 20], [20, 10]])
    assert result.statistic == pytest.approx(20 / 3)
    assert result.dof == 1 and result.n == 60 and result.min_expected == 15
    assert result.p_value == pytest.approx(math.erfc(math.sqrt(10 / 3)), rel=1e-9)


def test_two_by_three_by_hand():
    """[[10, 10, 10], [20, 5, 5]]: expected 15, 7.5, 7.5 in each row; statistic 2 x (25/15 + 2 x 6.25/7.5) = 20/3;
    dof 2, where the survival function is exp(-x / 2)."""
    result = chi_squared_independence([[10, 10, 10], [20, 5, 5]])
    assert result.statistic == pytest.approx(20 / 3) and result.dof == 2
    assert result.p_value == pytest.approx(math.exp(-10 / 3), rel=1e-9)


def test_zero_rows_and_columns_are_dropped():
    assert chi_squared_independence([[10, 0, 20], [0, 0, 0], [20, 0, 10]]) == chi_squared_independence(
        [[10, 20], [20, 10]]
    )
    single = chi_squared_independence([[5, 0], [7, 0]])
    assert (single.statistic, single.dof, single.p_value) == (0.0, 0, 1.0)
    assert chi_squared_independence([]).p_value == 1.0
    with pytest.raises(ValueError):
        chi_squared_independence([[1, 2], [3]])


@pytest.mark.parametrize(
    ("critical", "dof"), [(3.841, 1), (5.991, 2), (7.815, 3), (9.488, 4), (18.307, 10), (43.773, 30)]
)
def test_survival_at_the_five_percent_critical_values(critical, dof):
    assert chi_squared_survival(critical, dof) == pytest.approx(0.05, abs=2e-4)


def test_survival_edges():
    assert chi_squared_survival(0.0, 3) == 1.0
    assert chi_squared_survival(2.0, 2) == pytest.approx(math.exp(-1.0))
    assert chi_squared_survival(200.0, 2) == pytest.approx(math.exp(-100.0), rel=1e-9)
