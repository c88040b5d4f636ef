"""Internal standardisation of the response, and how every estimate maps back.

Both backends fit ``y* = (y - c) / s`` instead of ``y``: ``c`` is the mean of
``y`` when the fixed effects span the constant (an intercept, or a fully coded
factor when there is none), else 0; ``s`` is the standard deviation of ``y``
about ``c`` (its root mean square when ``c = 0``). Scores of any magnitude then
meet the optimiser on the same footing: ``1e-155`` and ``1e160`` times the same
data give the same fit, where raw cross-products would underflow or overflow.

The model for ``y`` and for ``y*`` is the same one, reparametrised, so every
quantity maps back exactly (``e`` is the coefficient vector with ``X e = 1``)::

    beta     = s beta* + c e             vcov(beta) = s^2 vcov(beta*)
    sigma    = s sigma*                  variances and covariances: s^2 x
    theta    = theta*                    (relative factors, scale-free)
    loglik   = loglik* - n log s         (ML; REML: - (n - p) log s)

The log-likelihood changes under rescaling because it is a density of ``y``:
``y = c + s y*`` has density ``s^-n`` times that of ``y*``. Differences of
log-likelihoods between models fitted to the same data (GLRTs, AIC/BIC
differences), t statistics, p-values and verdicts do not change.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchverdict.lmem.design import Design


@dataclass(frozen=True)
class ResponseScale:
    """``y = location + scale * y*``: how the fitted response relates to the data.

    Examples
    --------
    >>> rs = ResponseScale.of(np.array([1e160, 3e160]), centre=True)
    >>> rs.location, rs.scale
    (2e+160, 1e+160)
    >>> rs.standardise(np.array([1e160, 3e160])).tolist()
    [-1.0, 1.0]
    """

    location: float
    scale: float

    @classmethod
    def of(cls, y: np.ndarray, *, centre: bool) -> ResponseScale:
        """Location (mean, if ``centre``) and scale (spread about it) of ``y``, overflow-safe."""
        return standardised(y, centre=centre)[0]

    def standardise(self, y: np.ndarray) -> np.ndarray:
        """``(y - location) / scale``, computed without overflow."""
        y = np.asarray(y, dtype=float)
        m = float(max(y.max(), -y.min())) if y.size else 0.0
        if m == 0.0:
            return np.zeros_like(y)
        out = y / m
        out -= self.location / m
        out /= self.scale / m
        return out


def standardised(y: np.ndarray, *, centre: bool, inplace: bool = False
                 ) -> tuple[ResponseScale, np.ndarray]:
    """The :class:`ResponseScale` of ``y`` and ``y`` standardised by it.

    Works on one copy of ``y`` (or on ``y`` itself with ``inplace=True``),
    scaled by its largest magnitude first so that squares neither overflow
    nor underflow.

    Examples
    --------
    >>> rs, z = standardised(np.array([1e-160, 3e-160]), centre=True)
    >>> rs.scale, z.tolist()
    (1e-160, [-1.0, 1.0])
    """
    y = np.asarray(y, dtype=float)
    m = float(max(y.max(), -y.min())) if y.size else 0.0
    if m == 0.0 or not np.isfinite(m):
        return ResponseScale(0.0, 1.0), y if inplace else y.astype(float, copy=True)
    if inplace:
        z = y
        z /= m  # in [-1, 1]
    else:
        z = y / m
    c = float(z.mean()) if centre else 0.0
    z -= c
    spread = float(np.sqrt(z @ z / z.size))
    if spread == 0.0:  # constant scores: any positive scale will do
        return ResponseScale(m * c, m), z
    z /= spread
    return ResponseScale(m * c, m * spread), z


def constant_coefficients(design: Design) -> np.ndarray | None:
    """The coefficients ``e`` with ``X e = 1``, when the fixed effects span the constant.

    That is the intercept, or, without one, the first factor coded with one
    indicator per level (R's rule). ``None`` when the constant is not in the
    span (then the response is scaled but not centred).

    Examples
    --------
    >>> from benchverdict.lmem.design import build_design
    >>> from benchverdict.lmem.formula import parse_formula
    >>> import pandas as pd
    >>> df = pd.DataFrame({"score": [1.0, 2, 3, 4], "algorithm": list("aabb")})
    >>> constant_coefficients(build_design(df, parse_formula("score ~ 0 + algorithm"))).tolist()
    [1.0, 1.0]
    """
    names = design.fixed_names
    e = np.zeros(len(names))
    if "(Intercept)" in names:
        e[names.index("(Intercept)")] = 1.0
        return e
    for term in design.formula.fixed.terms:
        if len(term) != 1 or not design.variables[term[0]].is_factor:
            continue
        var = design.variables[term[0]]
        wanted = {((var.name, k),) for k in range(len(var.levels))}
        hits = [j for j, col in enumerate(design.fixed) if col.parts in wanted]
        if len(hits) == len(var.levels):
            e[hits] = 1.0
            return e
    return None


def unscale_varcomp(varcomp: pd.DataFrame, s: float) -> pd.DataFrame:
    """Variance components of the standardised response mapped back to the scores' units."""
    out = varcomp.copy()
    variance = (out["term1"] == out["term2"]).to_numpy()
    sd_cor = out["sd_cor"].to_numpy(dtype=float)
    with np.errstate(over="ignore"):  # a variance of scores near 1e300 is inf
        out["value"] = out["value"].to_numpy(dtype=float) * np.float64(s) ** 2
    out["sd_cor"] = np.where(variance, sd_cor * s, sd_cor)  # correlations stay
    return out
