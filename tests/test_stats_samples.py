"""The shared sample checks: ``sorted_copy`` is ``np.sort`` to the byte, without a sort."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from benchverdict.stats.samples import sorted_copy, sorted_finite_scores

VALUES = st.sampled_from([-np.inf, -1.0, -0.0, 0.0, 0.5, 1.0, 1e300, np.inf, np.nan])


@settings(max_examples=400, deadline=None)
@given(st.lists(VALUES, max_size=25), st.booleans())
def test_sorted_copy_is_np_sort_byte_for_byte(values, presort):
    y = np.array(values, dtype=float)
    if presort:  # the case it skips the sort for, with zeros of both signs mixed in
        y = np.sort(y)
    got = sorted_copy(y)
    assert got.tobytes() == np.sort(y).tobytes()
    assert got is not y and not np.shares_memory(got, y)


def test_sorted_finite_scores_returns_a_sorted_copy():
    y = np.array([0.1, 0.2, 0.3])
    out = sorted_finite_scores(y)
    out[0] = 9.0
    assert y[0] == 0.1
    assert sorted_finite_scores([0.3, 0.1, 0.2]).tolist() == [0.1, 0.2, 0.3]


@settings(max_examples=60, deadline=None)
@given(st.integers(17, 3000), st.integers(0, 2**32 - 1))
def test_sorted_copy_of_long_sorted_arrays_with_both_zeros(n, seed):
    # numpy's sort of a long array reorders 0.0 and -0.0 (they compare equal): an array in
    # order by comparison is not always in np.sort's order, so sorted_copy must sort it.
    rng = np.random.default_rng(seed)
    y = np.sort(rng.choice([-1.0, 0.0, 2.0], n))
    zero = y == 0.0
    y[zero] = rng.choice([-0.0, 0.0], int(zero.sum()))
    assert sorted_copy(y).tobytes() == np.sort(y).tobytes()


def test_sorted_copy_of_a_2d_array_is_np_sort():
    y = np.array([[3.0, 1.0], [4.0, 2.0]])  # rows in order, but not sorted along the last axis
    assert sorted_copy(y).tolist() == np.sort(y).tolist()
