"""``tail_to_separate`` finds the crossing of its two tails, not every order statistic.

The answer must be the minimum over every order statistic (the plain form),
to the bit: checked on random samples of up to 6,000 draws, with ties and
with quantile levels near 1 (``0.5 ** (1 / k)`` for budgets up to 10^4).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from benchverdict.tuning import quantile_test as qt


def _every_order_statistic(za: np.ndarray, zb: np.ndarray, level: float) -> float:
    r = np.arange(1, za.size + 1)
    s = np.searchsorted(zb, za, side="left")
    ok = s >= 1
    if not ok.any():
        return 1.0
    lower = stats.binom.cdf(r[ok] - 1, za.size, level)
    upper = stats.binom.sf(s[ok] - 1, zb.size, level)
    return float(min(1.0, np.min(np.maximum(lower, upper))))


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 6000), st.integers(1, 6000), st.floats(-0.5, 0.5),
       st.floats(0.3, 3.0), st.integers(1, 10**4), st.booleans(), st.integers(0, 2**16))
def test_tail_to_separate_is_the_minimum_over_every_order_statistic(
        n_a, n_b, shift, spread, k, ties, seed):
    rng = np.random.default_rng(seed)
    za = np.sort(rng.normal(shift, 1.0, n_a))
    zb = np.sort(rng.normal(0.0, spread, n_b))
    if ties:
        za, zb = np.round(za, 1), np.round(zb, 1)
    for level in (0.5 ** (1.0 / k), 0.5, 0.05):
        assert qt.tail_to_separate(za, zb, level) == _every_order_statistic(za, zb, level)
        assert qt.tail_to_separate(zb, za, level) == _every_order_statistic(zb, za, level)


def test_a_dip_between_two_coarse_points_is_found():
    # The larger tail is 1.0 (in double precision) at every coarse point and dips to 0.946
    # only between two of them: the crossing of the tails, not the least coarse value,
    # says where to look.
    rng = np.random.default_rng(6)
    n_a, n_b = rng.integers(1000, 3000, 2)
    za, zb = np.sort(rng.normal(0.0, 1.0, n_a)), np.sort(rng.normal(0.0, 1.3, n_b))
    level = rng.uniform(0.95, 0.999)
    r = np.arange(1, n_a + 1)
    s = np.searchsorted(zb, za, side="left")
    ok = s >= 1
    larger = np.maximum(stats.binom.cdf(r[ok] - 1, n_a, level),
                        stats.binom.sf(s[ok] - 1, n_b, level))
    assert larger[::qt.TAIL_STEP].min() == 1.0 and larger.min() < 0.95
    assert qt.tail_to_separate(za, zb, level) == larger.min()
