"""Ties that floating point broke: values equal but for round-off are made equal again.

Rank tests see only the order of the scores in a block, so a difference of one
unit in the last place decides a rank. Means of seeds are sums in some order:
three algorithms whose runs average to 0.938 exactly (in decimal) get means
0.93800000000000006 and 0.93799999999999994, and the Friedman statistic, the
average ranks and the Wilcoxon tests then depend on the summation order -- and
change when every score is multiplied by 1000, which must change nothing.
Inputs carry such differences too (normalised accuracies that differ in the
16th digit).

Here, within each row (a block of a rank test), sorted neighbours whose gap is
at most ``rel`` times the larger of their magnitudes are one group, and every
member gets the group's midpoint (the mean of its smallest and largest
member). ``rel`` = :data:`ROUND_OFF` (1e-13) is about 500 units in the last
place: above the error of a mean of thousands of values, far below any
difference a benchmark score can mean. It is relative to each pair of
values, so a benchmark on a scale of 1e4 beside others of 1e-9 (regrets)
ties nothing it should not; rescaling the scores rescales it, and negating
them negates every midpoint exactly. Round-off of a difference of two values
is relative to those values, not to the (small) difference: pass their
magnitude as ``scale``.
"""

from __future__ import annotations

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
        Sorted neighbours whose gap is at most ``rel`` times the larger of
        their ``scale`` are one group (groups chain).
    scale : array_like, optional
        The magnitude each value's round-off is relative to, the shape of
        ``values``: e.g. the scores a difference was taken from. Default: each
        value's own magnitude.

    Returns
    -------
    numpy.ndarray
        The same shape, float; every member of a group holds the group's
        midpoint, every other value is unchanged.

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
    >>> snap_round_off([1e6, 1e-8, 3e-8]).tolist()  # small values beside a large one
    [1000000.0, 1e-08, 3e-08]
    """
    x = np.array(values, dtype=float)
    flat = x.ndim == 1
    rows = np.atleast_2d(x)
    if rows.size == 0 or rows.shape[1] < 2:
        return x.copy()
    size = (np.abs(rows) if scale is None
            else np.broadcast_to(np.abs(np.asarray(scale, dtype=float)), rows.shape))
    order = np.argsort(rows, axis=1, kind="stable")  # NaN sorts last
    ordered = np.take_along_axis(rows, order, axis=1)
    sizes = np.take_along_axis(size, order, axis=1)
    gaps = np.diff(ordered, axis=1)
    with np.errstate(invalid="ignore"):
        joined = gaps <= rel * np.maximum(sizes[:, 1:], sizes[:, :-1])  # NaN: False
    if not (joined & (gaps > 0)).any():
        return x.copy()  # no broken tie (exact ties need nothing)
    k = rows.shape[1]
    position = np.broadcast_to(np.arange(k), rows.shape)
    ones = np.ones((rows.shape[0], 1), dtype=bool)
    starts = np.concatenate([ones, ~joined], axis=1)
    ends = np.concatenate([~joined, ones], axis=1)
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, position, k - 1)[:, ::-1], axis=1)[:, ::-1]
    # The midpoint of a group: exactly negated when the values are (a sum is not).
    middle = (np.take_along_axis(ordered, first, axis=1)
              + np.take_along_axis(ordered, last, axis=1)) / 2
    out = np.empty_like(rows)
    np.put_along_axis(out, order, np.where(np.isnan(ordered), np.nan, middle), axis=1)
    return out[0] if flat else out


__all__ = ["ROUND_OFF", "snap_round_off"]
