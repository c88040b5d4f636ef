"""Sample-size guidance never allocates by a budget's value and accepts any real budget >= 1.

Before the fix ``sample_size(1e9)`` built CDF bands for billions of draws (the report was
killed for memory; ``--at-budget 1e9``), and budgets below 1 aborted a whole report with a
bare "k must be at least 1".
"""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

from benchverdict.tuning import guidance, largest_budget, sample_size


@pytest.mark.parametrize("k", [1.0, 2.5, 37.0, 1e4, 1e9, 1e12])
def test_sample_size_is_bounded_in_memory_for_any_budget(k):
    tracemalloc.start()
    try:
        n = sample_size(k)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The exact bands for n <= 4096 take well under 10 MB; nothing may grow with k.
    assert peak < 20e6, peak
    assert isinstance(n, int)
    assert largest_budget(n) >= k > largest_budget(n - 1) if n > 1 else largest_budget(n) >= k


@pytest.mark.parametrize("band", ["ld_highest_density", "ld_equal_tailed", "ks", "dkw"])
@pytest.mark.parametrize("calibrate", ["curve", "cdf"])
def test_largest_budget_increases_across_the_exact_limit(band, calibrate):
    ns = [guidance.EXACT_MAX_N - 1, guidance.EXACT_MAX_N, guidance.EXACT_MAX_N + 1,
          10**5, 10**8, 10**12]
    values = [largest_budget(n, band=band, calibrate=calibrate) for n in ns]
    assert all(np.diff(values) > 0), values


@pytest.mark.parametrize(("band", "q"), [("ld_highest_density", 0.5), ("ks", 0.9)])
def test_extrapolation_is_conservative_and_within_half_a_percent(band, q):
    # Against the exact band at n = 16384 (four times the exact limit).
    n, levels = 16384, (q, 1.0)
    exact = math.log(q) / math.log(guidance._exact_top(n, 0.8, band, levels))
    approx = largest_budget(n, 0.8, band, q)
    assert exact * (1 - 0.005) <= approx <= exact


@pytest.mark.parametrize("k", [0.5, 0.0, -3, math.nan, math.inf, "10", True])
def test_budgets_that_are_not_tuning_curve_budgets_get_a_clear_error(k):
    with pytest.raises(ValueError, match="at least 1 random-search trial"):
        sample_size(k)


@pytest.mark.parametrize("n", [0, 2.5, -1, math.nan])
def test_sample_sizes_must_be_whole_numbers(n):
    with pytest.raises(ValueError, match="whole number"):
        largest_budget(n)


def test_fractional_budgets_are_ordered():
    sizes = [sample_size(k) for k in (1.0, 1.5, 2.0, 2.5, 3.0)]
    assert sizes == sorted(sizes)
