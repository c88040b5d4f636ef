"""Ties that floating point broke: values equal but for round-off are made equal again.

Rank tests see only the order of the scores in a block, so a difference of one
unit in the last place decides a rank. Means of seeds are sums in some order:
three algorithms whose runs average to 0.938 exactly (in decimal) get means
0.93800000000000006 and 0.93799999999999994, and the Friedman statistic, the
average ranks and the Wilcoxon tests then depend on the summation order -- and
change when every score is multiplied by 1000, which must change nothing.
Inputs carry such differences too (normalised accuracies that differ in the
16th digit).

Here, within each row (a block of a rank test), values whose sorted neighbours
lie within ``rel`` times the row's largest magnitude are one group, and every
member gets the group's mean. ``rel`` = :data:`ROUND_OFF` (1e-13) is about
500 units in the last place: above the error of a mean of thousands of
values, far below any difference a benchmark score can mean. It is relative
to the row's scale, so rescaling the scores rescales it; negating them
negates every group's mean exactly.
"""

from __future__ import annotations

import math

import numpy as np

#: Differences at most this share of a block's largest magnitude are round-off.
ROUND_OFF = 1e-13


def snap_round_off(values: object, rel: float = ROUND_OFF, *,
                   scale: object | None = None) -> np.ndarray:
    """Each row of ``values`` with its round-off differences removed (a new array).

    Parameters
    ----------
    values : array_like
        A 1-d array (one block) or 2-d array (one block per row). NaN stays NaN
        and joins no group.
    rel : float
        Sorted neighbours at most ``rel * scale`` apart are one group.
    scale : array_like, optional
        The magnitude round-off is relative to, one per row (or one for all):
        e.g. the scores' magnitude when ``values`` are differences of scores.
        Default: each row's largest magnitude.

    Returns
    -------
    numpy.ndarray
        The same shape, float; every member of a group holds the group's mean,
        every other value is unchanged.

    Examples
    --------
    >>> a = 0.1 + 0.2 + 0.3 + 0.4       # 1.0000000000000002 (one summation order)
    >>> b = 0.4 + 0.3 + 0.2 + 0.1       # 1.0
    >>> a == b
    False
    >>> x = snap_round_off([[a, b, 0.5]])
    >>> bool(x[0, 0] == x[0, 1]), float(x[0, 2])
    (True, 0.5)
    >>> snap_round_off([1.0, 1.0 + 1e-9]).tolist()  # a real difference stays
    [1.0, 1.000000001]
    """
    x = np.array(values, dtype=float)
    flat = x.ndim == 1
    rows = np.atleast_2d(x)
    if rows.size == 0 or rows.shape[1] < 2:
        return x.copy()
    order = np.argsort(rows, axis=1, kind="stable")  # NaN sorts last
    ordered = np.take_along_axis(rows, order, axis=1)
    if scale is None:
        scale = np.max(np.where(np.isnan(rows), 0.0, np.abs(rows)), axis=1)
    tol = rel * np.broadcast_to(np.asarray(scale, dtype=float), rows.shape[:1])[:, None]
    gaps = np.diff(ordered, axis=1)
    near = (gaps > 0) & (gaps <= tol)  # exact ties need nothing
    out = rows.copy()
    for r in np.flatnonzero(near.any(axis=1)):  # rare: only rows with a broken tie
        starts = np.flatnonzero(np.concatenate([[True], ~(gaps[r] <= tol[r, 0])]))
        ends = np.append(starts[1:], rows.shape[1])
        for lo, hi in zip(starts, ends):
            members = ordered[r, lo:hi]
            if hi - lo > 1 and not np.isnan(members).any():
                # fsum: the correctly rounded sum, in no order, so -x snaps to exactly -mean.
                out[r, order[r, lo:hi]] = math.fsum(members.tolist()) / (hi - lo)
    return out[0] if flat else out


__all__ = ["ROUND_OFF", "snap_round_off"]
