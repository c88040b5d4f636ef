r"""The studentized range distribution: fast cdf, tail probability and cached quantiles.

Tukey's HSD and the Nemenyi test need tail probabilities and quantiles of
the studentized range :math:`Q = R / S` of ``k`` means: :math:`R` is the
range of ``k`` independent standard normals and :math:`S =
\sqrt{\chi^2_{df} / df}` is independent of it (:math:`S = 1` for
``df = inf``). scipy integrates numerically with adaptive nested
quadrature, about 30 ms per value with finite ``df``;
:func:`studentized_range_sf` and :func:`studentized_range_cdf` compute the
same double integral with fixed, vectorised Gauss–Legendre rules on ranges
chosen per argument from rigorous bounds, a few hundred times faster, and
keep relative accuracy far into the upper tail (Tukey p-values of 1e-10
and below are reported).

Many arguments at once (Tukey's HSD over all pairs of 200 algorithms is
19,900 values at one ``(k, df)``) share the inner integral:
:math:`P(Q > q) = \int P(R > q s) f_S(s) ds`, and :math:`P(R > w)`
depends on neither ``q`` nor ``df``. From 32 finite-``df`` arguments in
one call, ``log P(R > w)`` is computed once per ``k`` (and cached) at the
Chebyshev points of panels of width 0.5 over ``[0, 54]``, by the same
rule as the direct path but summed in logs, and interpolated by a
polynomial of degree 16 on each panel; each argument's outer rule (the same
points as the direct path) then weighs interpolated values. The outer
integrand and its weights are positive, so the relative error of the
result is at most the largest relative error of the interpolated
:math:`P(R > w)`. Measured against the inner integral at 6,400 random
``w`` from 0 to 54 (down to 1e-300) for each of ``k`` = 3, 20, 200, 1000,
5000 and 20000: at most 1.5e-12 relative (the rounding of ``log P`` near
-700), and at most 2e-13 (6e-13 for ``k = 20000``) for ``w < 20``; the
whole tail probability at 1,000 random ``q`` for each of ``k`` = 3, 20,
200, 1000 and ``df`` = 5, 37.4, 570 (values from 1 down to 1e-288): at
most 3e-13 relative to the direct path. 19,900 values at ``k = 200``,
``df = 570`` take 0.5 s instead of 25 s.

The quantiles are cached, since a report asks for the same
``(probability, k, df)`` for every pair of algorithms. Satterthwaite
degrees of freedom of a balanced design agree to many digits but not
exactly (e.g. 570.0000004 and 570.0000007), so ``df`` is rounded to 8
significant digits before the look-up. The quantile's derivative in ``df``
is below 1e-3 for ``df >= 2``, so this changes it by less than 1e-8
relative: far below any test tolerance or reported digit.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

__all__ = ["MIN_DF", "studentized_range_cdf", "studentized_range_quantile", "studentized_range_sf"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
#: Parts of an integral dropped at the ends of its range are below this, relative to it.
_LOG_NEGLIGIBLE = math.log(1e-17)
#: The outer range keeps every point whose integrand's upper bound is within e**40 of the
#: bound's maximum, less the bound's own slack log(k (k - 1) / 2).
_OUTER_DROP = 40.0
#: Points on which the outer range is found (a scan of the integrand's upper bound).
_SCAN = 256
#: Arguments per block of the vectorised double integral (bounds the memory: ~4 MB a block).
_BLOCK = 128
#: Beyond this range even Bonferroni's bound on ``P(R > w)`` is below 1e-300: it underflows.
_W_MAX = 54.0
#: The table of ``log P(R > w)``: panels of this width in ``w`` over ``[0, _W_MAX]``, ...
_PANEL = 0.5
#: ... each interpolated at this many Chebyshev points (a polynomial of degree one less).
_PANEL_POINTS = 17
#: From this many finite-``df`` arguments in one call, ``P(R > w)`` comes from the table.
_TABLE_MIN = 32


def _nodes(k: int) -> int:
    """Gauss–Legendre points per integral, enough for ~1e-11 relative error.

    The range of many means is concentrated (the maximum of k normals has a
    standard deviation shrinking like 1/sqrt(2 log k)), so larger k need
    more points. Measured against 160-point rules over q from 0.5 to 3000
    and df from 2 to inf: 64 points err by at most 2e-11 relative up to
    k = 100 (but 4e-9 at k = 200), 96 by 9e-12 up to k = 500, 128 by 1e-12
    up to k = 5000 (7e-13 for df = inf at k = 20000).
    """
    return 64 if k <= 100 else 96 if k <= 500 else 128


@functools.lru_cache(maxsize=8)
def _legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(n)


def _stirling_error(x: np.ndarray) -> np.ndarray:
    """``lgamma(x) - ((x - 1/2) log x - x + log sqrt(2 pi))``, without cancellation for big x."""
    big = x >= 15
    xb = np.where(big, x, 15.0)
    series = (1 / 12 - (1 / 360 - (1 / 1260 - 1 / (1680 * xb**2)) / xb**2) / xb**2) / xb
    xs = np.where(big, 1.0, x)
    direct = special.gammaln(xs) - ((xs - 0.5) * np.log(xs) - xs + _LOG_SQRT_2PI)
    return np.where(big, series, direct)


def _log_range_sf_bound(w: np.ndarray, k: int) -> np.ndarray:
    """Log of Bonferroni's bound ``min(1, k (k - 1) Phi(-w / sqrt 2))`` on ``P(R > w)``.

    ``P(R > w)`` lies between ``P(|Z_1 - Z_2| > w) = 2 Phi(-w / sqrt 2)`` and
    this bound, a factor of at most ``k (k - 1) / 2`` apart.
    """
    return np.minimum(0.0, math.log(k * (k - 1.0)) + special.log_ndtr(-w / math.sqrt(2)))


def _inner_rule(w: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre points ``z`` (one row per ``w``) and half-widths of ``P(R > w)``'s rule.

    ``w`` is 1-d with ``0 < w < 54``; see :func:`_range_sf` for the bounds that
    place the range.
    """
    x = _legendre(_nodes(k))[0]
    target = _LOG_NEGLIGIBLE + math.log(2.0) + special.log_ndtr(-w / math.sqrt(2))
    z_hi = np.sqrt(2 * np.maximum(math.log(k) - _LOG_SQRT_2PI - target, 1.0))
    z_lo_max = special.ndtri_exp(np.minimum(target / k, -1e-300))
    lower = target - math.log(k * (k - 1.0))
    c1 = w / 2 - np.sqrt(np.maximum(-lower - w**2 / 4 - math.log(4.0), 0.0))
    c2 = w - np.sqrt(np.maximum(-2 * (lower + math.log(2.0)), 0.0))
    z_lo_pair = np.maximum(np.where(c1 <= 0, c1, -np.inf), np.where(c2 <= w, c2, -np.inf))
    z_lo = np.minimum(np.maximum(z_lo_max, z_lo_pair), z_hi - 1.0)
    half = (z_hi - z_lo) / 2
    return ((z_hi + z_lo) / 2)[:, None] + half[:, None] * x, half


def _range_sf(w: np.ndarray, k: int) -> np.ndarray:
    r"""``P(R > w)`` for the range ``R`` of ``k`` standard normals (``w`` >= 0, any shape).

    :math:`P(R > w) = k \int \phi(z) [\Phi(z)^{k-1} - (\Phi(z) - \Phi(z - w))^{k-1}] dz`
    (the largest normal is at ``z``, and not all others lie within ``w`` below
    it). The bracket is written :math:`\Phi(z)^{k-1} (1 - (1 - b)^{k-1})` with
    :math:`b = \Phi(z - w) / \Phi(z)`, evaluated by ``log1p`` and ``expm1``,
    so no difference of nearly equal numbers is formed and the tail keeps its
    relative accuracy. One Gauss–Legendre rule per ``w`` covers the ``z``
    where the integrand can matter, from three bounds on what is left out,
    each below ``1e-17`` of the lower bound :math:`2\Phi(-w/\sqrt2)`:
    above, the integrand is below :math:`k\phi(z)`; below, its integral is
    below :math:`\Phi(z)^k` and below :math:`k (k-1) \Phi(z) \Phi(z - w)`,
    with :math:`\Phi(x) \le e^{-x^2/2}/2` for :math:`x \le 0`.
    """
    w = np.asarray(w, dtype=float)
    shape = w.shape
    w = w.ravel()
    out = np.zeros(w.size)
    out[w <= 0] = 1.0
    out[np.isnan(w)] = np.nan
    # Beyond w = 54 even Bonferroni's bound is below 1e-300: the probability underflows.
    live = (w > 0) & (w < _W_MAX)
    if not live.any():
        return out.reshape(shape)
    wl = w[live]
    z, half = _inner_rule(wl, k)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = special.ndtr(z)
        not_all_close = -np.expm1((k - 1) * np.log1p(-special.ndtr(z - wl[:, None]) / a))
        density = np.exp((k - 1) * np.log(a) - 0.5 * z * z - _LOG_SQRT_2PI)
        values = np.where(a > 0, density * not_all_close, 0.0)
    weights = _legendre(_nodes(k))[1]
    out[live] = np.minimum(k * half * (values @ weights), 1.0)
    return out.reshape(shape)


def _log_range_sf(w: np.ndarray, k: int) -> np.ndarray:
    """``log P(R > w)`` for 1-d ``0 < w < 54``: :func:`_range_sf`'s rule summed in logs.

    The same points and weights as :func:`_range_sf`, but each term is kept as
    its logarithm and the sum is scaled by its largest term, so nothing
    underflows where ``P(R > w)`` is near or below the smallest double.
    """
    z, half = _inner_rule(w, k)
    weights = _legendre(_nodes(k))[1]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_a = special.log_ndtr(z)
        log_b = special.log_ndtr(z - w[:, None]) - log_a  # b = Phi(z - w) / Phi(z)
        # 1 - (1 - b)^(k-1), which is (k - 1) b to double precision once b < e^-600
        tiny = log_b < -600.0
        log_not_all_close = np.where(
            tiny, math.log(k - 1.0) + log_b,
            np.log(-np.expm1((k - 1) * np.log1p(-np.exp(np.where(tiny, -600.0, log_b))))))
        terms = (k - 1) * log_a - 0.5 * z * z - _LOG_SQRT_2PI + log_not_all_close
        top = terms.max(axis=1)
        total = np.exp(terms - top[:, None]) @ weights
    return np.minimum(np.log(k * half * total) + top, 0.0)


@functools.lru_cache(maxsize=16)
def _log_range_sf_table(k: int) -> np.ndarray:
    """Chebyshev coefficients of ``log P(R > w)`` on each panel of ``[0, 54]`` (panels x points).

    Panel ``j`` covers ``[j h, (j + 1) h]`` with ``h = _PANEL``; its row holds
    the coefficients of the polynomial through ``log P(R > w)`` at the panel's
    ``_PANEL_POINTS`` Chebyshev points (of the first kind), in the variable
    ``x = 2 (w - j h) / h - 1`` in ``[-1, 1]``. Computed once per ``k``:
    ``_PANEL_POINTS * 54 / h`` = 1836 inner integrals.
    """
    panels = math.ceil(_W_MAX / _PANEL)
    j = np.arange(_PANEL_POINTS)
    angles = np.pi * (j + 0.5) / _PANEL_POINTS
    w = np.arange(panels)[:, None] * _PANEL + _PANEL / 2 * (np.cos(angles) + 1)
    values = _log_range_sf(w.ravel(), k).reshape(panels, _PANEL_POINTS)
    coefficients = values @ np.cos(np.outer(j, angles)).T * (2.0 / _PANEL_POINTS)
    coefficients[:, 0] /= 2
    coefficients.flags.writeable = False
    return coefficients


def _log_range_sf_interpolated(w: np.ndarray, k: int) -> np.ndarray:
    """``log P(R > w)`` from :func:`_log_range_sf_table` (any shape; 0 for ``w <= 0``).

    ``-inf`` for ``w >= 54`` (where :func:`_range_sf` gives 0), NaN for NaN.
    """
    coefficients = _log_range_sf_table(k)
    w = np.asarray(w, dtype=float)
    inside = np.clip(np.nan_to_num(w), 0.0, _W_MAX)
    panel = np.minimum((inside / _PANEL).astype(np.intp), coefficients.shape[0] - 1)
    x = 2.0 * (inside - panel * _PANEL) / _PANEL - 1.0
    c = coefficients[panel]
    # Clenshaw's recurrence for sum_i c_i T_i(x)
    b1, b2 = np.zeros_like(x), np.zeros_like(x)
    for i in range(_PANEL_POINTS - 1, 0, -1):
        b1, b2 = c[..., i] + 2.0 * x * b1 - b2, b1
    out = np.minimum(c[..., 0] + x * b1 - b2, 0.0)
    out[w <= 0] = 0.0
    out[w >= _W_MAX] = -np.inf
    out[np.isnan(w)] = np.nan
    return out


def _g_inverse(c: np.ndarray, branch: int) -> np.ndarray:
    """``u`` with ``1 + 2u - exp(2u) = c`` for ``c < 0``: ``u < 0`` (branch 0) or ``u > 0`` (-1)."""
    b = 1.0 - c
    if branch == 0:  # where exp(-b) underflows, exp(2u) is negligible: u = (c - 1) / 2
        return np.where(b < 700, (-special.lambertw(-np.exp(-np.minimum(b, 700)), 0).real - b) / 2,
                        -b / 2)
    # exp(2u) = b + 2u: two fixed-point steps from log(b) / 2 where the Lambert W underflows
    u = 0.5 * np.log(b)
    u = 0.5 * np.log(b + 2 * u)
    u = 0.5 * np.log(b + 2 * u)
    exact = (-special.lambertw(-np.exp(-np.minimum(b, 700)), -1).real - b) / 2
    return np.where(b < 700, exact, u)


def _studentized_sf_finite(q: np.ndarray, k: int, df: np.ndarray, *,
                           tabulated: bool = False) -> np.ndarray:
    r"""``P(Q > q)`` for finite ``df`` (1-d arrays, ``q > 0``): the outer integral.

    With :math:`s = e^u` the scale :math:`\sqrt{\chi^2_{df}/df}` and
    :math:`x = df / 2`, its density times :math:`s` is
    :math:`\exp(\log 2 + \frac12\log x - \log\sqrt{2\pi} - \delta(x) + x(1 + 2u - e^{2u}))`
    (:math:`\delta` Stirling's error, so nothing cancels for large ``df``).
    Multiplied by :math:`P(R > q s)` it is unimodal in ``u``; its range is
    found by scanning the same product with Bonferroni's bound in place of
    :math:`P(R > qs)` (never smaller, and at most :math:`k(k-1)/2` times
    larger): a point is kept when the bound is within :math:`e^{40} k(k-1)/2`
    of its maximum. The integral is then taken in :math:`t = \sqrt s` (a
    smooth :math:`t^{2 df - 1}` near 0, where the heavy tail of small ``df``
    lives) by one Gauss–Legendre rule per argument. With ``tabulated``,
    :math:`P(R > qs)` at its points is interpolated from
    :func:`_log_range_sf_table` instead of integrated (see the module
    docstring for the accuracy); the points are the same.
    """
    x = df / 2
    slack = math.log(k * (k - 1) / 2.0)
    # The bound's maximum is at least its value at u = 0 and at q e^u = 1.
    u1 = -np.log(q)
    ref = np.maximum(_log_range_sf_bound(q, k),
                     -x * np.expm1(2 * u1) + 2 * x * u1 + _log_range_sf_bound(np.ones_like(q), k))
    # The chi factor alone, exp(x (1 + 2u - e^{2u})) <= 1, confines the scan.
    c = np.minimum((ref - _OUTER_DROP - slack - 5.0) / x, -1e-12)
    ua, ub = _g_inverse(c, 0), _g_inverse(c, -1)
    grid = ua[:, None] + (ub - ua)[:, None] * np.linspace(0.0, 1.0, _SCAN)
    bound = -x[:, None] * (np.expm1(2 * grid) - 2 * grid) + _log_range_sf_bound(
        q[:, None] * np.exp(grid), k)
    keep = bound >= bound.max(axis=1, keepdims=True) - _OUTER_DROP - slack
    first = np.argmax(keep, axis=1)
    last = _SCAN - 1 - np.argmax(keep[:, ::-1], axis=1)
    step = (ub - ua) / (_SCAN - 1)
    t_lo = np.exp(np.maximum(ua + (first - 1) * step, ua) / 2)
    t_hi = np.exp(np.minimum(ua + (last + 1) * step, ub) / 2)
    nodes, weights = _legendre(_nodes(k))
    half = (t_hi - t_lo) / 2
    t = ((t_hi + t_lo) / 2)[:, None] + half[:, None] * nodes
    u = 2 * np.log(t)
    log_const = math.log(2.0) + 0.5 * np.log(x) - _LOG_SQRT_2PI - _stirling_error(x)
    log_density = log_const[:, None] - x[:, None] * (np.expm1(2 * u) - 2 * u)
    # ds = 2 t dt, and the density above is already multiplied by s = t^2.
    if tabulated:
        log_range = _log_range_sf_interpolated(q[:, None] * t * t, k)
        integrand = np.exp(log_density + log_range) * (2.0 / t)
    else:
        integrand = np.exp(log_density) * _range_sf(q[:, None] * t * t, k) * (2.0 / t)
    return half * (integrand @ weights)


#: Below this many degrees of freedom (a degenerate Satterthwaite approximation, e.g. a
#: variance component at its boundary) there is no test: ``P(Q > q) = 1`` and every
#: quantile is infinite. The integrals lose accuracy there (20% at 0.1 df against
#: scipy; at 1e-9 df they gave 5e-9 where the truth is 1 - 1e-8, so a degenerate fit
#: looked significant, and the quantile's bracket search never ended).
MIN_DF = 0.5


def studentized_range_sf(q: ArrayLike, k: int, df: ArrayLike) -> np.ndarray:
    r"""``P(Q > q)``: the upper tail of the studentized range of ``k`` means with ``df`` df.

    .. math::

        P(Q > q) = \int_0^\infty f_S(s)\, P(R > q s)\, ds, \qquad
        P(R > w) = k \int_{-\infty}^{\infty} \phi(z)
            \left[\Phi(z)^{k-1} - (\Phi(z) - \Phi(z - w))^{k-1}\right] dz,

    where :math:`R` is the range of ``k`` independent standard normals and
    :math:`f_S` is the density of :math:`S = \sqrt{\chi^2_{df}/df}`, which is
    independent of :math:`R`; ``df = inf`` gives :math:`P(R > q)`. Both
    integrals use fixed Gauss–Legendre rules (64 points each up to
    ``k = 100``, more beyond) on ranges chosen per argument from rigorous
    bounds on what is left out; the tail is computed directly, not as
    ``1 - cdf``. From 32 finite-``df`` arguments in one call, the inner
    integral :math:`P(R > w)` is interpolated from a table computed once per
    ``k`` (within 3e-13 relative of the direct rule, measured; see the module
    docstring). For ``k = 2`` the closed form :math:`2 P(t_{df} > q/\sqrt2)`
    is used instead.

    Accuracy, measured against R's ``ptukey``, scipy, the closed form for
    ``k = 2`` and the rules with 4x the points: relative error below about
    1e-8 wherever the result is at least 1e-300 (where it would underflow, it
    is 0), for ``k`` from 2 to 200 and ``df`` from 2 to infinity; about 1e-12
    for ``df = inf``; within 1e-13 of scipy at 0.5 and 1 df. Below
    :data:`MIN_DF` degrees of freedom (a degenerate Satterthwaite
    approximation) there is no test: the result is 1.

    Parameters
    ----------
    q : array_like
        The studentized range (the largest minus the smallest of ``k``
        means, over their standard error). ``q <= 0`` gives 1.
    k : int
        The number of means, at least 2.
    df : array_like
        Degrees of freedom of the standard error, positive, possibly
        ``inf`` (the normal range); broadcast against ``q``.

    Returns
    -------
    numpy.ndarray
        ``P(Q > q)``, of the broadcast shape of ``q`` and ``df`` (a 0-d
        array for scalars; ``float()`` makes it a number). NaN where ``q``
        or ``df`` is NaN or ``df <= 0``.

    Examples
    --------
    Tukey's p-value for 4 means, ``q = 3.5`` and 20 df (R:
    ``ptukey(3.5, 4, 20, lower.tail = FALSE)`` = 0.09495845055, to R's accuracy):

    >>> round(float(studentized_range_sf(3.5, 4, 20.0)), 12)
    0.094958450546

    For two means :math:`Q / \sqrt 2` is :math:`|t_{df}|`, also far in the tail:

    >>> from scipy import stats
    >>> q = np.array([1.0, 10.0, 40.0])
    >>> exact = 2 * stats.t.sf(q / np.sqrt(2), 10.0)
    >>> bool(np.allclose(studentized_range_sf(q, 2, 10.0), exact, rtol=1e-12, atol=0))
    True
    >>> float(studentized_range_sf(40.0, 2, 10.0))  # doctest: +ELLIPSIS
    7.09449...e-11
    """
    k = _check_k(k)
    q_arr, df_arr = np.broadcast_arrays(np.asarray(q, dtype=float), np.asarray(df, dtype=float))
    shape = q_arr.shape
    q_flat, df_flat = q_arr.ravel(), df_arr.ravel()
    out = np.full(q_flat.size, np.nan)
    valid = ~np.isnan(q_flat) & (df_flat > 0)
    out[valid & (q_flat <= 0)] = 1.0
    out[valid & (q_flat == np.inf)] = 0.0
    degenerate = valid & (df_flat < MIN_DF) & (q_flat > 0)
    out[degenerate] = 1.0  # no test (see MIN_DF)
    todo = valid & ~degenerate & (q_flat > 0) & (q_flat < np.inf)
    if k == 2:  # the range of two means over its standard error is |t_df| * sqrt(2)
        x = -q_flat[todo] / math.sqrt(2)
        d = df_flat[todo]
        with np.errstate(invalid="ignore"):
            out[todo] = 2 * np.where(d == np.inf, special.ndtr(x), special.stdtr(d, x))
        return np.clip(out, 0.0, 1.0).reshape(shape)
    normal = todo & (df_flat == np.inf)
    out[normal] = _range_sf(q_flat[normal], k)
    finite = np.flatnonzero(todo & (df_flat < np.inf))
    tabulated = finite.size >= _TABLE_MIN
    for start in range(0, finite.size, _BLOCK):
        idx = finite[start:start + _BLOCK]
        out[idx] = _studentized_sf_finite(q_flat[idx], k, df_flat[idx], tabulated=tabulated)
    return np.clip(out, 0.0, 1.0).reshape(shape)


def studentized_range_cdf(q: ArrayLike, k: int, df: ArrayLike) -> np.ndarray:
    r"""``P(Q <= q)`` for the studentized range of ``k`` means with ``df`` df.

    ``1 -`` :func:`studentized_range_sf` (see there for the integral and the
    assumptions): absolute error about 1e-15, so it is accurate where the cdf
    is near 1 but has no relative accuracy below about 1e-13 (the lower tail
    of tiny ``q``, which Tukey's and Nemenyi's procedures never use).

    Parameters
    ----------
    q : array_like
        The studentized range; ``q <= 0`` gives 0.
    k : int
        The number of means, at least 2.
    df : array_like
        Degrees of freedom, positive, possibly ``inf``; broadcast against ``q``.

    Returns
    -------
    numpy.ndarray
        ``P(Q <= q)`` of the broadcast shape (0-d for scalars).

    Examples
    --------
    The 0.95 quantile of the normal range of 3 means is 3.3145:

    >>> round(float(studentized_range_cdf(3.3145, 3, np.inf)), 4)
    0.95
    >>> studentized_range_cdf([0.0, 2.0, np.inf], 5, 12.0).round(6)
    array([0.      , 0.369193, 1.      ])
    """
    return 1.0 - studentized_range_sf(q, k, df)


def _check_k(k: int) -> int:
    if int(k) != k or k < 2:
        raise ValueError(f"the studentized range needs an integer k >= 2 means, got {k}.")
    return int(k)


@functools.lru_cache(maxsize=4096)
def _quantile(probability: float, k: int, df: float) -> float:
    if not 0 < probability < 1:
        return 0.0 if probability == 0 else math.inf if probability == 1 else math.nan
    if df < MIN_DF:  # no test (see MIN_DF): nothing bounds the range
        return math.inf
    # Upper quantiles solve log sf(q) = log(1 - p), well scaled however small the tail;
    # lower ones solve cdf(q) = p.
    if probability >= 0.5:
        log_tail = math.log1p(-probability)

        def gap(q: float) -> float:
            sf = float(studentized_range_sf(q, k, df))
            return (math.log(sf) if sf > 0 else -1e300) - log_tail
    else:
        def gap(q: float) -> float:
            return probability - float(studentized_range_cdf(q, k, df))

    # Start from Bonferroni's normal-theory quantile (close above the normal range's),
    # inflated for small df, and bracket the root before Brent's method.
    tail = min(1 - probability, 0.5)
    start = math.sqrt(2) * float(special.ndtri(1 - tail / (k * (k - 1))))
    start = max(start, 0.1) * (1.0 + (2.0 / df if df < math.inf else 0.0))
    lo, hi = start, start
    while gap(lo) < 0:
        lo /= 1.5
    while gap(hi) > 0:
        hi *= 1.5
    return float(optimize.brentq(gap, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps))


def _rounded(df: float) -> float:
    """``df`` to 8 significant digits (inf stays inf)."""
    return df if not np.isfinite(df) else float(f"{df:.8g}")


def studentized_range_quantile(probability: float, k: int, df: ArrayLike) -> np.ndarray | float:
    """The ``probability`` quantile of the studentized range for ``k`` means and ``df`` df.

    The root of :func:`studentized_range_cdf` (of the log tail for
    ``probability >= 0.5``) by Brent's method, to about 1e-14 relative.
    ``df`` may be an array (one value per contrast); each distinct value is
    computed once per process. ``df = inf`` gives the asymptotic (normal)
    range used by Nemenyi's test.

    Examples
    --------
    >>> round(studentized_range_quantile(0.95, 3, float("inf")), 4)
    3.3145
    >>> studentized_range_quantile(0.95, 3, [20.0, 20.0]).shape
    (2,)
    """
    if np.ndim(df) == 0:
        return _quantile(float(probability), _check_k(k), _rounded(float(df)))
    dfs = np.vectorize(_rounded, otypes=[float])(np.asarray(df, dtype=float))
    uniq, inverse = np.unique(dfs, return_inverse=True)
    values = np.array([_quantile(float(probability), _check_k(k), float(d)) for d in uniq])
    return values[inverse].reshape(dfs.shape)
