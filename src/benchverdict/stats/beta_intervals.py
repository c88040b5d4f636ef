"""Intervals of given coverage for Beta(i, n + 1 - i), the law of a uniform order statistic.

The ``i``-th of ``n`` uniform order statistics follows Beta(``i``,
``n + 1 - i``). The Learned-Miller-DeStefano band puts an interval of
coverage ``c`` around each of them; two shapes are offered:

* equal-tailed: ``[F^{-1}((1-c)/2), F^{-1}((1+c)/2)]``;
* highest-density (the shortest interval of coverage ``c``): ``[x, y]`` with
  ``F(y) - F(x) = c`` and equal density at both ends. For ``i = 1``
  (``i = n``) the density is monotone and the interval is
  ``[0, F^{-1}(c)]`` (``[F^{-1}(1-c), 1]``); for ``n = 1`` the uniform law
  has no unique shortest interval and the equal-tailed one is used.

The highest-density ends are found by Newton's method on the two equations
``log(F(x) + S(y)) = log(1 - c)`` (tails, so that coverages within ``1e-12``
of one keep full relative precision) and ``h(x) = h(y)`` with
``h(t) = (a-1) log t + (b-1) log(1-t)``, started from the equal-tailed
interval (or from a nearby solution) and kept inside ``0 < x < mode < y < 1``.
It needs only the regularised incomplete beta function, not its inverse, so
it is fast for ``n`` in the hundreds of thousands.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = [
    "beta_equal_tailed_interval",
    "beta_highest_density_interval",
    "order_statistic_intervals",
]

#: Residuals (in log tail mass) accepted when Newton's steps stall at rounding level.
_NOISY_RTOL = 1e-10
#: Newton iterations before that looser test applies.
_NOISY_AFTER = 10


def _check_miscoverage(miscoverage) -> np.ndarray:
    miscoverage = np.asarray(miscoverage, dtype=float)
    if np.any(~((miscoverage >= 0.0) & (miscoverage <= 1.0))):
        raise ValueError("the tail probability 1 - coverage must lie in [0, 1].")
    return miscoverage


def beta_equal_tailed_interval(a, b, miscoverage) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed interval of Beta(a, b) leaving ``miscoverage`` outside (half each side).

    Parameters
    ----------
    a, b : array_like of float
        Positive shape parameters (broadcast together).
    miscoverage : float or array_like
        ``1 - coverage``. Passing the tail mass rather than the coverage (a
        ``confidence``) keeps full precision for coverages close to one; it is
        not a significance level, hence not ``alpha``.

    Returns
    -------
    (lower, upper) : tuple of numpy.ndarray

    Examples
    --------
    >>> lo, hi = beta_equal_tailed_interval(1, 1, 0.1)
    >>> float(lo), float(hi)
    (0.05, 0.95)
    """
    miscoverage = _check_miscoverage(miscoverage)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    lower = special.betaincinv(a, b, miscoverage / 2.0)
    # The upper end via the mirrored law keeps precision near 1.
    upper = 1.0 - special.betaincinv(b, a, miscoverage / 2.0)
    return lower, upper


def beta_highest_density_interval(
    a, b, miscoverage, *, start: tuple[np.ndarray, np.ndarray] | None = None,
    rtol: float = 1e-13, max_iter: int = 40,
) -> tuple[np.ndarray, np.ndarray]:
    """Shortest interval of Beta(a, b) leaving ``miscoverage`` probability outside.

    Parameters
    ----------
    a, b : array_like of float
        Shape parameters (broadcast together). Where ``a <= 1`` and
        ``b <= 1`` no unique shortest interval exists; for ``a = b = 1``
        (uniform) the equal-tailed interval is returned, other such shapes
        raise ``ValueError``.
    miscoverage : float
        ``1 - coverage``, in [0, 1].
    start : (lower, upper), optional
        A starting point for Newton's method (e.g. the solution at a nearby
        ``miscoverage``); defaults to the equal-tailed interval.
    rtol : float
        Convergence tolerance on both equations (relative to the tail mass
        for the coverage equation).
    max_iter : int
        Newton iterations before the laws that have not converged are
        finished by bisection.

    Returns
    -------
    (lower, upper) : tuple of numpy.ndarray

    Examples
    --------
    For a symmetric law the shortest interval is the equal-tailed one:

    >>> lo, hi = beta_highest_density_interval(5, 5, 0.2)
    >>> elo, ehi = beta_equal_tailed_interval(5, 5, 0.2)
    >>> bool(np.allclose([lo, hi], [elo, ehi]))
    True

    For a skewed law it is shorter:

    >>> lo, hi = beta_highest_density_interval(2, 9, 0.2)
    >>> elo, ehi = beta_equal_tailed_interval(2, 9, 0.2)
    >>> bool(hi - lo < ehi - elo)
    True
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    shape = a.shape
    a, b = a.astype(float).ravel(), b.astype(float).ravel()
    miscoverage = float(_check_miscoverage(miscoverage))
    if np.any((a <= 0) | (b <= 0)):
        raise ValueError("beta shape parameters must be positive.")
    flat = (a <= 1.0) & (b <= 1.0)
    if np.any(flat & ~((a == 1.0) & (b == 1.0))):
        raise ValueError(
            "Beta(a, b) with a <= 1 and b <= 1 (other than the uniform) has no highest-density "
            "interval."
        )
    lower = np.empty(a.shape)
    upper = np.empty(a.shape)
    if miscoverage == 0.0:
        lower[:] = 0.0
        upper[:] = 1.0
        return lower.reshape(shape), upper.reshape(shape)
    if miscoverage == 1.0:
        mode = np.where(a <= 1, 0.0, np.where(b <= 1, 1.0, (a - 1) / np.maximum(a + b - 2, 1e-300)))
        return mode.reshape(shape), mode.reshape(shape)

    # Monotone densities: the interval hugs the mode at the boundary.
    left = (a <= 1.0) & (b > 1.0)  # decreasing density, mode 0
    right = (b <= 1.0) & (a > 1.0)  # increasing density, mode 1
    lower[left] = 0.0
    upper[left] = 1.0 - special.betaincinv(b[left], a[left], miscoverage)
    lower[right] = special.betaincinv(a[right], b[right], miscoverage)
    upper[right] = 1.0
    uni = flat
    if np.any(uni):
        lower[uni], upper[uni] = miscoverage / 2.0, 1.0 - miscoverage / 2.0

    inner = ~(left | right | uni)
    if np.any(inner):
        ai, bi = a[inner], b[inner]
        if start is None:
            x, y = beta_equal_tailed_interval(ai, bi, miscoverage)
        else:
            x = np.broadcast_to(np.asarray(start[0], dtype=float), shape).ravel()[inner].copy()
            y = np.broadcast_to(np.asarray(start[1], dtype=float), shape).ravel()[inner].copy()
        x, y = _newton_hdi(ai, bi, miscoverage, x, y, rtol=rtol, max_iter=max_iter)
        lower[inner], upper[inner] = x, y
    return lower.reshape(shape), upper.reshape(shape)


def _newton_hdi(a, b, miscoverage, x, y, *, rtol, max_iter):
    """Newton's method for the unimodal case (a > 1, b > 1); see the module docstring.

    The upper end is carried as its complement ``z = 1 - y`` so that ends
    within ``1e-12`` of one keep full relative precision.
    """
    mode = (a - 1.0) / (a + b - 2.0)
    log_miscoverage = np.log(miscoverage)
    am1, bm1 = a - 1.0, b - 1.0
    log_norm = special.betaln(a, b)
    tiny = np.nextafter(0.0, 1.0)
    x = np.clip(x, tiny, mode)
    z = np.clip(1.0 - np.asarray(y, dtype=float), tiny, 1.0 - mode)
    active = np.ones(a.shape, dtype=bool)
    for iteration in range(max_iter):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        xa, za = x[idx], z[idx]
        ami, bmi, mi = am1[idx], bm1[idx], mode[idx]
        tails = special.betainc(a[idx], b[idx], xa) + special.betainc(b[idx], a[idx], za)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            hx = ami * np.log(xa) + bmi * np.log1p(-xa)
            hz = ami * np.log1p(-za) + bmi * np.log(za)
            r1 = np.log(tails) - log_miscoverage
            r2 = hx - hz
            # Densities at both ends divided by the tail mass (d r1 / dx, d r1 / dz).
            fx = np.exp(hx - log_norm[idx]) / tails
            fz = np.exp(hz - log_norm[idx]) / tails
            dhx = ami / xa - bmi / (1.0 - xa)
            dhz = bmi / za - ami / (1.0 - za)
            det = -fx * dhz - fz * dhx
            dx = (-dhz * r1 - fz * r2) / det
            dz = (-dhx * r1 + fx * r2) / det
        converged = (np.abs(r1) <= rtol) & (np.abs(r2) <= rtol * np.maximum(1.0, np.abs(hx)))
        # Stagnation at the limit of double precision also counts as converged.
        converged |= (np.abs(dx) <= 1e-14 * xa + 4 * np.spacing(xa)) & (
            np.abs(dz) <= 1e-14 * za + 4 * np.spacing(za)
        )
        if iteration >= _NOISY_AFTER:
            # For n in the hundreds of thousands betainc's own rounding (about
            # 1e-12 relative in a tail) keeps |r1| above rtol and the steps at a
            # few 1e-14 for ever; such a point is as good as the bisection's
            # (which sees the same rounding) and far cheaper, so it counts as
            # converged too. Only late, so that laws which converge cleanly
            # (all of them for small n) end exactly where they did before.
            converged |= (
                (np.abs(r1) <= _NOISY_RTOL)
                & (np.abs(r2) <= _NOISY_RTOL * np.maximum(1.0, np.abs(hx)))
                & (np.abs(dx) <= 1e-13 * xa) & (np.abs(dz) <= 1e-13 * za)
            )
        bad = ~np.isfinite(dx) | ~np.isfinite(dz)
        nx = np.where(bad, xa, xa - dx)
        nz = np.where(bad, za, za - dz)
        # Stay inside (0, mode) for x and (0, 1 - mode) for z: at most halfway to a wall.
        nx = np.where(nx <= 0.0, xa / 2.0, nx)
        nx = np.where(nx >= mi, (xa + mi) / 2.0, nx)
        zmax = 1.0 - mi
        nz = np.where(nz <= 0.0, za / 2.0, nz)
        nz = np.where(nz >= zmax, (za + zmax) / 2.0, nz)
        step = ~converged
        x[idx[step]], z[idx[step]] = nx[step], nz[step]
        active[idx[converged]] = False
    idx = np.flatnonzero(active)
    if idx.size:
        # Rare (coverage near zero, extreme shapes): finish those by bisection.
        x[idx], z[idx] = _bisect_hdi(a[idx], b[idx], miscoverage, mode[idx])
    return x, 1.0 - z


def _bisect_hdi(a, b, miscoverage, mode, n_iter: int = 200):
    """Bisection on the lower end: slow but sure, for Newton's rare failures.

    For a lower end ``x`` the upper end ``y`` leaves the remaining tail mass
    above it; the density at ``x`` is below that at ``y`` exactly when ``x``
    is left of the highest-density solution.
    """
    lo = np.zeros(a.shape)
    hi = np.minimum(mode, special.betaincinv(a, b, miscoverage))
    am1, bm1 = a - 1.0, b - 1.0
    for _ in range(n_iter):
        x = (lo + hi) / 2.0
        rest = np.clip(miscoverage - special.betainc(a, b, x), 0.0, 1.0)
        z = special.betaincinv(b, a, rest)
        with np.errstate(divide="ignore"):
            hx = am1 * np.log(x) + bm1 * np.log1p(-x)
            hz = am1 * np.log1p(-z) + bm1 * np.log(z)
        left = hx < hz
        lo = np.where(left, x, lo)
        hi = np.where(left, hi, x)
        if np.all(hi - lo <= 1e-15 * np.maximum(hi, 1e-300)):
            break
    x = (lo + hi) / 2.0
    z = special.betaincinv(b, a, np.clip(miscoverage - special.betainc(a, b, x), 0.0, 1.0))
    return x, z


def order_statistic_intervals(n: int, miscoverage: float, kind: str, *, start=None):
    """Coverage ``1 - miscoverage`` intervals for each uniform order statistic ``U_(i)``, i = 1..n.

    ``U_(i)`` follows Beta(``i``, ``n + 1 - i``), the mirror image of the law
    of ``U_(n + 1 - i)``, so only the first half is computed and the second
    half is its reflection (the intervals are exactly symmetric).

    Parameters
    ----------
    n : int
        Sample size.
    miscoverage : float
        Pointwise tail mass, ``1 - coverage``.
    kind : {"equal_tailed", "highest_density"}
    start : (lower, upper), optional
        Newton starting point for ``"highest_density"`` (e.g. the intervals
        at a nearby ``miscoverage``); by default a normal approximation for
        central order statistics and the equal-tailed interval for the
        extreme ones.

    Returns
    -------
    (lower, upper) : tuple of numpy.ndarray of shape (n,)

    Examples
    --------
    >>> lo, hi = order_statistic_intervals(3, 0.1, "highest_density")
    >>> bool(np.allclose(lo, 1 - hi[::-1]))
    True
    """
    if kind not in ("equal_tailed", "highest_density"):
        raise ValueError(f'kind must be "equal_tailed" or "highest_density", got {kind!r}.')
    n = int(n)
    if n < 1:
        raise ValueError(f"n must be a positive integer, got {n}.")
    half = (n + 1) // 2  # order statistics 1..half; the rest mirror them
    i = np.arange(1, half + 1, dtype=float)
    a, b = i, n + 1 - i
    if kind == "equal_tailed":
        lo, hi = beta_equal_tailed_interval(a, b, miscoverage)
    else:
        if start is None:
            x0, y0 = _normal_start(a, b, miscoverage)
        else:
            x0, y0 = np.asarray(start[0])[:half], np.asarray(start[1])[:half]
        lo, hi = beta_highest_density_interval(a, b, miscoverage, start=(x0, y0))
    lower = np.empty(n)
    upper = np.empty(n)
    lower[:half], upper[:half] = lo, hi
    lower[half:] = 1.0 - hi[: n - half][::-1]
    upper[half:] = 1.0 - lo[: n - half][::-1]
    if n % 2 == 1:
        # The middle law is symmetric: make its interval exactly so.
        m = half - 1
        width = (upper[m] - lower[m]) / 2.0
        lower[m], upper[m] = 0.5 - width, 0.5 + width
    return lower, upper


def _normal_start(a: np.ndarray, b: np.ndarray,
                  miscoverage: float) -> tuple[np.ndarray, np.ndarray]:
    """Cheap Newton start: normal approximation where both shapes are large."""
    x = np.empty(a.shape)
    y = np.empty(a.shape)
    big = np.minimum(a, b) >= 50
    if np.any(~big):
        x[~big], y[~big] = beta_equal_tailed_interval(a[~big], b[~big], miscoverage)
    if np.any(big):
        ab = a[big] + b[big]
        mean = a[big] / ab
        sd = np.sqrt(a[big] * b[big] / (ab * ab * (ab + 1.0)))
        z = -special.ndtri(miscoverage / 2.0)
        x[big] = np.clip(mean - z * sd, 1e-300, 1.0)
        y[big] = np.clip(mean + z * sd, 0.0, 1.0)
    return x, y
