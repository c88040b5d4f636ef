"""Orderings that depend on the data only, so results cannot depend on names or input order.

Bootstrap intervals draw random resamples in some order, and a percentile
interval of ``-D`` is not exactly minus the percentile interval of ``D``.
Left alone, both make an interval for ``b - a`` differ from minus the
interval for ``a - b``, and make results move when algorithms or benchmarks
are renamed (names fix the input order). The helpers here order samples,
pairs and blocks by their *values*, in a way that is unchanged by

* renaming or reordering algorithms, benchmarks and draws;
* negating the scores and flipping the objective (callers pass oriented
  values, larger is better);
* any strictly increasing transform of the (oriented) values, e.g.
  rescaling or shifting (only comparisons between values are used).

A computation run in this canonical order and mirrored back for the other
orientation is then exactly antisymmetric and name-free.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

__all__ = ["canonical_block_order", "compare_samples", "sample_key"]


def sample_key(sample) -> tuple:
    """A key for a sample that ignores the order of its draws.

    For an array: its sorted values. For a sequence of arrays (strata, e.g.
    one per benchmark): the sorted keys of its strata, so the strata's order
    does not matter either. Keys compare lexicographically; an increasing
    transform of every value keeps their order.

    Examples
    --------
    >>> sample_key(np.array([3.0, 1.0]))
    (1.0, 3.0)
    >>> sample_key([np.array([2.0]), np.array([1.0, 0.0])])
    ((0.0, 1.0), (2.0,))
    """
    if isinstance(sample, np.ndarray) and sample.ndim == 1:
        return tuple(np.sort(sample).tolist())
    if isinstance(sample, Sequence) and not isinstance(sample, (str, bytes)):
        return tuple(sorted(sample_key(np.asarray(g, dtype=float)) for g in sample))
    return sample_key(np.asarray(sample, dtype=float).ravel())


def compare_samples(a, b) -> int:
    """``-1`` if ``a`` comes first in the canonical order, ``1`` if ``b`` does, ``0`` if equal.

    Two samples compare equal exactly when they hold the same values (as
    multisets, stratum by stratum up to the strata's order); then any
    computation on the pair is symmetric by itself.

    Examples
    --------
    >>> compare_samples([1.0, 2.0], [2.0, 1.0]), compare_samples([0.0], [5.0])
    (0, -1)
    """
    ka, kb = sample_key(a), sample_key(b)
    return 0 if ka == kb else (-1 if ka < kb else 1)


def canonical_block_order(oriented: np.ndarray, max_rounds: int = 8) -> np.ndarray:
    """A row order of a blocks x algorithms matrix that no renaming or reordering changes.

    The values are replaced by their dense ranks over the whole matrix
    (so increasing transforms change nothing). Rows and columns then get
    colours by colour refinement (Weisfeiler-Leman on the bipartite
    row-column graph with the ranks as edge labels): a row's colour is
    the multiset of (column colour, rank) over its cells, and vice versa,
    repeated until the partition is stable. Rows are sorted by their final
    colour, then by their ranks in the columns' colour order.

    Two rows left tied are indistinguishable by refinement (in practice:
    identical rows, or a matrix with a symmetry that maps one onto the
    other); their relative order then follows the input, which for such
    symmetric data changes nothing but the random draws assigned to them.

    Returns
    -------
    numpy.ndarray
        A permutation of ``range(n_rows)``.

    Examples
    --------
    >>> x = np.array([[3.0, 1.0], [0.0, 2.0]])
    >>> canonical_block_order(x).tolist(), canonical_block_order(x[::-1, ::-1] * 10).tolist()
    ([1, 0], [0, 1])
    """
    x = np.asarray(oriented, dtype=float)
    n, k = x.shape
    if n <= 1:
        return np.arange(n)
    ranks = stats.rankdata(x, method="dense").reshape(n, k).astype(np.int64)
    row_colour = np.zeros(n, dtype=np.int64)
    col_colour = np.zeros(k, dtype=np.int64)
    for _ in range(max_rounds):
        new_col = _refine(ranks.T, row_colour, col_colour)
        new_row = _refine(ranks, new_col, row_colour)
        stable = (_n_classes(new_row) == _n_classes(row_colour)
                  and _n_classes(new_col) == _n_classes(col_colour))
        row_colour, col_colour = new_row, new_col
        if stable:
            break
    # Secondary key: the row's ranks with the columns in colour order (ties by input order,
    # which only matters between columns refinement cannot tell apart).
    col_order = np.argsort(col_colour, kind="stable")
    keys = [ranks[:, c] for c in col_order[::-1]] + [row_colour]
    return np.lexsort(keys)


def _refine(ranks: np.ndarray, other_colour: np.ndarray, own_colour: np.ndarray) -> np.ndarray:
    """New colours for the rows of ``ranks``: own colour, then the multiset of (other, rank)."""
    pairs = other_colour[None, :] * (int(ranks.max()) + 1) + ranks
    signature = np.column_stack([own_colour, np.sort(pairs, axis=1)])
    _, colour = np.unique(signature, axis=0, return_inverse=True)
    return colour.ravel().astype(np.int64)


def _n_classes(colour: np.ndarray) -> int:
    return int(np.unique(colour).size)
