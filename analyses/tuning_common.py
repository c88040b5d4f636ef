"""Shared helpers for the tuning-curve analyses (data paths, KDE ground truths, output)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from scipy import special

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "analyses" / "out"
SHARED = Path(os.environ.get("BENCHVERDICT_SHARED_DATA", ROOT.parent / "shared" / "data"))


def out_dir(name: str) -> Path:
    path = OUT / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def hedwig():
    from benchverdict.io.adapters import read_meanmax

    return read_meanmax(SHARED / "meanmax" / "hedwig.tsv")


def deberta():
    from benchverdict.io.adapters import read_deberta

    return read_deberta(SHARED / "deberta")


class KDE:
    """A Gaussian KDE used as a known ground-truth score distribution.

    Sampling is exact (a data point plus Gaussian noise); the CDF is the
    mixture of normal CDFs; quantiles and expected maxima come from a fine grid
    (200,001 points over the support +- 8 bandwidths), accurate to far below the
    Monte Carlo error of the simulations that use them.
    """

    def __init__(self, data: np.ndarray, bandwidth: float | None = None,
                 bounds: tuple[float, float] = (-np.inf, np.inf)):
        self.data = np.asarray(data, dtype=float)
        self.bounds = bounds
        n = self.data.size
        if bandwidth is None:  # Silverman's rule
            iqr = np.subtract(*np.percentile(self.data, [75, 25]))
            sd = min(self.data.std(ddof=1), iqr / 1.349) or self.data.std(ddof=1)
            bandwidth = 0.9 * sd * n ** (-0.2)
        self.h = float(bandwidth)
        lo = max(self.data.min() - 8 * self.h, bounds[0])
        hi = min(self.data.max() + 8 * self.h, bounds[1])
        self.grid = np.linspace(lo, hi, 200_001)
        cdf = np.zeros_like(self.grid)
        for chunk in np.array_split(self.data, max(1, n // 64)):
            cdf += special.ndtr((self.grid[:, None] - chunk[None, :]) / self.h).sum(axis=1)
        # Truncated to the bounds (if any): renormalise the CDF on [lo, hi].
        cdf = (cdf - cdf[0]) / (cdf[-1] - cdf[0])
        self.cdf_grid = cdf

    def sample(self, size, rng) -> np.ndarray:
        """Exact draws; with bounds, by rejection (the KDE truncated to the bounds)."""
        shape = (size,) if np.isscalar(size) else tuple(size)
        total = int(np.prod(shape))
        out = np.empty(0)
        while out.size < total:
            idx = rng.integers(0, self.data.size, size=total)
            draw = self.data[idx] + self.h * rng.standard_normal(total)
            draw = draw[(draw >= self.grid[0]) & (draw <= self.grid[-1])]
            out = np.concatenate([out, draw])
        return out[:total].reshape(shape)

    def cdf(self, x):
        return np.interp(x, self.grid, self.cdf_grid)

    def ppf(self, p):
        return np.interp(p, self.cdf_grid, self.grid)

    def expected_max(self, ks) -> np.ndarray:
        """E[max of k draws] = integral of x d(F^k), on the grid."""
        ks = np.atleast_1d(ks)
        mid = 0.5 * (self.grid[1:] + self.grid[:-1])
        out = []
        for k in ks:
            fk = self.cdf_grid ** k
            out.append(float(np.sum(mid * np.diff(fk)) + self.grid[0] * fk[0]))
        return np.array(out)

    def median_curve(self, ks) -> np.ndarray:
        return self.ppf(0.5 ** (1.0 / np.asarray(ks, dtype=float)))
