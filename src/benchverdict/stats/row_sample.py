"""Uniform random samples of rows that do not depend on the engine or the partitioning.

A row's key is a hash (splitmix64) of its global position in the input and
a seed, mapped to [0, 1); a sample at ``rate`` keeps the rows whose key is
below ``rate``. So every row is kept independently with probability
``rate``, whatever its score -- a uniform random subset of IID draws is a
set of IID draws of the same law -- and the same rows are kept in memory
and on Dask, however the rows are split into partitions.
"""

from __future__ import annotations

import numpy as np

__all__ = ["keep", "row_keys"]


def row_keys(positions: np.ndarray, seed: int) -> np.ndarray:
    """Uniform keys in [0, 1) from global row positions and a seed (splitmix64).

    Examples
    --------
    >>> k = row_keys(np.arange(5), seed=0)
    >>> bool(np.all((k >= 0) & (k < 1))), bool(np.array_equal(k, row_keys(np.arange(5), 0)))
    (True, True)
    """
    with np.errstate(over="ignore"):
        z = positions.astype(np.uint64) + np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) / float(2**53)


def keep(positions: np.ndarray, rate: float, seed: int) -> np.ndarray:
    """Whether each row (by global position) is in the sample at ``rate``.

    Examples
    --------
    >>> rows = np.arange(100_000)
    >>> kept = keep(rows, 0.1, seed=0)
    >>> bool(abs(kept.mean() - 0.1) < 0.005), bool(np.array_equal(kept, keep(rows, 0.1, 0)))
    (True, True)
    """
    return row_keys(np.asarray(positions), seed) < rate
