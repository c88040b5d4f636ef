"""The cached studentized-range quantile agrees with scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchverdict.stats.studentized_range import studentized_range_quantile


@pytest.mark.parametrize(("k", "df"), [(2, 5.0), (3, 20.0), (5, 580.884128187), (10, np.inf)])
def test_matches_scipy(k, df):
    want = stats.studentized_range.ppf(0.95, k, df)
    assert studentized_range_quantile(0.95, k, df) == pytest.approx(want, rel=1e-8)


def test_demsar_nemenyi_value():
    # Demsar (2006), Table 5: q_0.05 for k = 4 is 2.569 (= studentized range / sqrt 2).
    assert studentized_range_quantile(0.95, 4, np.inf) / np.sqrt(2) == pytest.approx(2.569,
                                                                                        abs=5e-4)


def test_arrays_keep_shape_and_nearly_equal_dfs_share_one_value():
    dfs = np.array([580.884128187, 580.884128193, 12.0])
    got = studentized_range_quantile(0.95, 5, dfs)
    assert got.shape == (3,)
    assert got[0] == got[1]
    assert got[2] == pytest.approx(stats.studentized_range.ppf(0.95, 5, 12.0), rel=1e-8)


@pytest.mark.parametrize(("probability", "k", "df"), [
    (0.95, 2, 2.0), (0.95, 4, 23.7), (0.99, 10, 3.3), (0.9, 30, 570.0000004), (0.95, 5, 1e4)])
def test_secant_search_finds_scipys_quantile(probability, k, df):
    """The cached secant search returns scipy's ppf (bisection) to the cdf's precision."""
    got = studentized_range_quantile(probability, k, df)
    want = stats.studentized_range.ppf(probability, k, df)
    assert got == pytest.approx(want, rel=1e-10)  # both stop within the integral's error


def test_degenerate_degrees_of_freedom_give_no_test_and_never_hang():
    """A Satterthwaite df of 3.5e-10 (a variance component at its boundary, after runs that
    stop early left two benchmarks unbalanced) made the quantile's bracket search run for
    ever, and the tail was 5e-9 where it is 1 - 1e-8: a degenerate fit looked significant.
    Below MIN_DF there is no test."""
    from scipy import stats as st

    from benchverdict.stats.studentized_range import (
        MIN_DF,
        studentized_range_quantile,
        studentized_range_sf,
    )

    for df in (3.5e-10, 1e-3, 0.1, MIN_DF / 2):
        assert float(studentized_range_sf(5.0, 3, df)) == 1.0
        assert studentized_range_quantile(0.95, 3, df) == np.inf
    # From MIN_DF on, the integral holds scipy's values (scipy is slow but accurate here).
    for df in (MIN_DF, 1.0, 1.5):
        for q in (1.0, 5.0, 50.0):
            assert float(studentized_range_sf(q, 3, df)) == pytest.approx(
                st.studentized_range.sf(q, 3, df), rel=1e-9)
