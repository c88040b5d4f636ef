"""The vectorised tests behind thousands of algorithms give scipy's numbers, pair by pair.

The rank analysis of 1000 algorithms (half a million pairs) now computes every
pairwise test at once instead of one scipy call per pair; these checks hold the
vectorised code to scipy's own one-pair results on every path scipy can take
(exact, permutation, asymptotic; with and without ties and zeros).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from benchverdict.ranks import _stats
from benchverdict.ranks.win_tie_loss import _mann_whitney_pairs


def _sample(rng, shape, kind):
    if kind == "continuous":
        return rng.normal(size=shape)
    if kind == "integers":
        return rng.integers(0, 4, size=shape).astype(float)
    return np.round(rng.normal(size=shape), 1)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.sampled_from([3, 6, 9, 14, 30, 51]),
       kind=st.sampled_from(["continuous", "integers", "rounded"]))
def test_vectorised_wilcoxon_is_scipy_per_pair(seed, n, kind):
    rng = np.random.default_rng(seed)
    x = _sample(rng, (n, 4), kind)
    p, statistic, direction = _stats.wilcoxon_p_values(x)
    # The reference sees the decimals exactly: scipy on the rounded scores in tenths (whole
    # numbers), since 0.3 - 0.1 and 0.2 - 0.0 differ in floating point but are one tie.
    exact = np.round(x * 10) if kind == "rounded" else x
    for i in range(4):
        for j in range(i + 1, 4):
            if not (x[:, i] != x[:, j]).any():
                assert p[i, j] == 1.0
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = stats.wilcoxon(exact[:, i], exact[:, j])
            assert p[i, j] == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-300)
            assert statistic[i, j] == ref.statistic
            assert direction[i, j] == -direction[j, i]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), sizes=st.lists(st.sampled_from([2, 3, 4, 8, 9, 15]),
                                                  min_size=3, max_size=5),
       kind=st.sampled_from(["continuous", "integers", "rounded"]))
def test_vectorised_mann_whitney_is_scipy_per_pair(seed, sizes, kind):
    rng = np.random.default_rng(seed)
    cells = [_sample(rng, size, kind) for size in sizes]
    first, second = np.triu_indices(len(cells), 1)
    p, direction = _mann_whitney_pairs(cells, first, second)
    for row, (i, j) in enumerate(zip(first, second)):
        x, y = cells[i], cells[j]
        if np.ptp(np.concatenate([x, y])) == 0:
            assert p[row] == 1.0 and direction[row] == 0
            continue
        ref = stats.mannwhitneyu(x, y, alternative="two-sided")
        assert p[row] == pytest.approx(ref.pvalue, rel=1e-12)
        assert direction[row] == ref.statistic - x.size * y.size / 2


@pytest.mark.parametrize("k", [20, 300, 1000])
def test_studentized_range_spline_matches_scipy(k):
    # more distinct arguments than the direct limit: the spline path
    rng = np.random.default_rng(k)
    q = rng.uniform(0, 14, _stats._SRANGE_DIRECT + 500)
    ours = _stats._studentized_range_sf(q, k)
    check = rng.choice(q.size, 300, replace=False)
    ref = stats.studentized_range.sf(q[check], k, np.inf)
    assert np.max(np.abs(ours[check] - ref)) < 1e-10


def test_nemenyi_decisions_agree_with_the_critical_difference_at_scale():
    rng = np.random.default_rng(0)
    k, n = 800, 12
    ranks = _stats.block_ranks(rng.normal(size=(n, k)) + np.linspace(0, 4, k))
    mean = ranks.mean(axis=0)
    p = _stats.nemenyi_p_values(mean, n)
    cd = _stats.nemenyi_critical_difference(k, n, 0.05)
    gap = np.abs(mean[:, None] - mean[None, :])
    clear = np.abs(gap - cd) > 1e-6  # away from the boundary itself
    assert np.array_equal((p < 0.05)[clear], (gap > cd)[clear])
