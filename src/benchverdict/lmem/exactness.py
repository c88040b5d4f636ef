"""Do the model's effects reproduce the scores exactly? Checked before any optimisation.

Two degenerate cases have no residual variation left, so the Gaussian
likelihood has no proper maximum:

* the **fixed effects** reproduce every score (constant scores; scores constant
  per algorithm under ``score ~ algorithm + ...``): every estimate is then
  known exactly and the fit is reported as exact (``MixedModel.exact``);
* only **fixed plus random effects** do (e.g. scores constant within each
  benchmark under ``(1|benchmark)``): the likelihood grows without bound as
  the residual variance shrinks, and :func:`~benchverdict.lmem.fitting.fit`
  raises :class:`~benchverdict.lmem.model.DegenerateFitError`.

Each check is screened from the cross-products, where the residual sum of
squares of least squares carries a rounding error of about ``1e-16 y'y``
times a condition number, and confirmed on the rows themselves, where it is
exact to rounding (``1e-30 n``). The response is standardised (mean square
1), so "exactly" means residuals below ``1e-10`` of the scores' spread.
"""

from __future__ import annotations

import numpy as np

from benchverdict.lmem.design import CrossProducts, Design
from benchverdict.lmem.native import ProfiledDeviance, cholesky, solve_tri

#: Screening threshold on the cross-product residual sum of squares, relative to y'y.
SCREEN = 1e-8

#: Residual sums of squares below this times n (standardised scores) are zero.
EXACT = 1e-20


def _row_rss(design: Design, beta: np.ndarray, b: np.ndarray | None, chunk_rows: int) -> float:
    """``||y - X beta - Z b||^2`` summed over the rows in chunks."""
    if hasattr(design, "row_rss"):  # rows in Dask partitions (benchverdict._dask.lmem)
        return design.row_rss(beta, b)
    rss = 0.0
    for first in range(0, design.n, chunk_rows):
        rows = slice(first, min(design.n, first + chunk_rows))
        r = design.y[rows] - design.fixed_matrix(rows) @ beta
        if b is not None:
            r = r - design.random_matrix(rows) @ b
        rss += float(r @ r)
    return rss


def fixed_effects_reproduce(design: Design, cp: CrossProducts,
                            chunk_rows: int = 262_144) -> np.ndarray | None:
    """The least-squares coefficients if ``X beta = y`` exactly, else None.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict.lmem.design import build_design, cross_products
    >>> from benchverdict.lmem.formula import parse_formula
    >>> df = pd.DataFrame({"score": [1.0, 1.0, 3.0, 3.0], "algorithm": list("aabb")})
    >>> d = build_design(df, parse_formula("score ~ algorithm"))
    >>> fixed_effects_reproduce(d, cross_products(d)).tolist()
    [1.0, 2.0]
    """
    RX = cholesky(cp.XtX, lower=False)
    cbeta = solve_tri(RX, cp.Xty, lower=False, trans=True)
    if cp.yty - cbeta @ cbeta > SCREEN * cp.yty:
        return None
    beta = solve_tri(RX, cbeta, lower=False)
    return beta if _row_rss(design, beta, None, chunk_rows) <= EXACT * design.n else None


def _pinv_blocks(M: np.ndarray) -> np.ndarray:
    """Moore-Penrose inverses of a stack of symmetric positive semi-definite blocks."""
    w, V = np.linalg.eigh(M)
    cut = 1e-10 * np.maximum(w.max(axis=-1, keepdims=True), 1e-300)
    inv = np.where(w > cut, 1.0 / np.where(w > cut, w, 1.0), 0.0)
    return (V * inv[..., None, :]) @ V.transpose(0, 2, 1)


def random_effects_reproduce(design: Design, cp: CrossProducts, dev: ProfiledDeviance,
                             chunk_rows: int = 262_144) -> bool:
    """Whether ``y = X beta + Z b`` exactly for some ``beta, b`` (no penalty on ``b``).

    Least squares on ``[X Z]`` through the blocks of ``Z'Z`` (see
    :mod:`benchverdict.lmem.native`): ``b`` is eliminated block by block
    with pseudo-inverses, leaving a ``p x p`` system for ``beta``.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict.lmem.design import build_design, cross_products
    >>> from benchverdict.lmem.formula import parse_formula
    >>> df = pd.DataFrame({"score": [1.0, 1.0, 3.0, 3.0], "algorithm": list("abab"),
    ...                    "benchmark": list("xxyy")})
    >>> d = build_design(df, parse_formula("score ~ algorithm + (1|benchmark)"))
    >>> cp = cross_products(d)
    >>> random_effects_reproduce(d, cp, ProfiledDeviance(cp, d.blocks, False))
    True
    """
    if not dev.q:
        return False
    p = dev.p
    PXX, PXy, Py = np.zeros((p, p)), np.zeros(p), 0.0
    pinvs = []
    for g in dev.groups:
        Pinv = _pinv_blocks(g.ZtZ)
        PZy = Pinv @ g.Zty[:, :, None]  # (nb, s, 1)
        PZX = Pinv @ g.ZtX  # (nb, s, p)
        Py += float(np.sum(g.Zty[:, :, None] * PZy))
        PXy += np.einsum("bsp,bs->p", g.ZtX, PZy[:, :, 0])
        PXX += np.einsum("bsp,bsr->pr", g.ZtX, PZX)
        pinvs.append(Pinv)
    S = cp.XtX - PXX
    r = cp.Xty - PXy
    w, V = np.linalg.eigh((S + S.T) / 2)
    keep = w > 1e-10 * max(w.max(), 1e-300)
    beta = V[:, keep] @ ((V[:, keep].T @ r) / w[keep])
    if cp.yty - Py - r @ beta > SCREEN * cp.yty:
        return False
    b = np.zeros(dev.q)
    for g, Pinv in zip(dev.groups, pinvs):
        b[g.idx] = (Pinv @ (g.Zty - g.ZtX @ beta)[:, :, None])[:, :, 0]
    return _row_rss(design, beta, b, chunk_rows) <= EXACT * design.n
