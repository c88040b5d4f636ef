"""Internal API shared by the in-memory LMEM fit and the Dask engine: deviance to model.

Internal: not part of :mod:`benchverdict.lmem`'s public API, and not
re-exported. Both :mod:`benchverdict.lmem.fitting` (rows in memory) and
:mod:`benchverdict._dask.lmem` (cross-products summed per partition) reach a
:class:`~benchverdict.lmem.native.ProfiledDeviance` and then need the same
steps to turn it into a :class:`~benchverdict.lmem.model.MixedModel`; they
live here under names without a leading underscore so that neither imports
another module's privates. The names:

* :func:`random_signature`: the random-effects structure of a design, kept on
  the model so nested models can be checked against each other;
* :func:`native_model`: the model at the optimum ``theta``, every estimate
  mapped back to the scores' units (raises on a degenerate fit);
* :func:`exact_model`: the model of scores the fixed effects reproduce;
* :func:`embed_theta`: a previous fit's covariance parameters as a start.

This module sits above :mod:`benchverdict.lmem.model` (it builds its
``MixedModel``) and below the two fitting paths.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchverdict.lmem.design import Design
from benchverdict.lmem.model import DegenerateFitError, MixedModel
from benchverdict.lmem.native import SINGULAR_TOL, ProfiledDeviance, small_problem_threads
from benchverdict.lmem.scaling import ResponseScale, unscale_varcomp


def random_signature(design: Design) -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple((b.group, frozenset(c.name for c in b.columns)) for b in design.blocks)


def native_model(dev: ProfiledDeviance, theta: np.ndarray, res, common: dict) -> MixedModel:
    """The fitted model at ``theta``, every estimate mapped back to the scores' units."""
    scale = common["_scale"]
    with small_problem_threads(dev.work_size):
        sol = dev.solve(theta)
        sigma = dev.sigma_of(sol)
        if sigma < DEGENERATE_SIGMA and dev.q:
            raise DegenerateFitError(
                f"the residual standard deviation of {common['formula']} is {sigma:.1e} of the "
                "scores' spread, below the precision of the fit: the random effects reproduce "
                "the scores almost exactly. Remove the random term that absorbs them, or "
                "compare the scores directly."
            )
        if dev.q == 0:
            # No random effects: inference with the unbiased residual variance (as lm/emmeans).
            vcov = dev.vcov_beta(theta, float(np.sqrt(sol.pwrss / (dev.n - dev.p))))
        else:
            vcov = dev.vcov_beta(theta, sigma)
        varcomp, singular = _varcomp(common["_terms"], sol.factors, sigma)
    s = np.float64(scale.scale)  # numpy: s**2 may overflow to inf instead of raising
    names = [c.name for c in common["grid"].columns]
    with np.errstate(over="ignore"):
        vcov_user = vcov * s**2
    return MixedModel(
        backend="native", loglik=float(-0.5 * dev.deviance_of(sol) - dev.n_eff * np.log(s)),
        fixef=pd.Series(_unscale_beta(sol.beta, common["_constant"], scale), index=names,
                        name="estimate"),
        vcov=pd.DataFrame(vcov_user, index=names, columns=names), sigma=float(sigma * s),
        _vcov_std=vcov,
        theta=theta, varcomp=unscale_varcomp(varcomp, s),
        n_params=dev.p + dev.layout.n_theta + 1, singular=singular, nobs=dev.n,
        converged=bool(getattr(res, "success", True)), message=str(getattr(res, "message", "")),
        _deviance=dev, **common,
    )


#: Below this residual standard deviation (relative to the scores' spread) the residual
#: variation is beyond the precision of cross-products: a degenerate fit.
DEGENERATE_SIGMA = 1e-7


def _unscale_beta(beta: np.ndarray, e: np.ndarray | None, scale: ResponseScale) -> np.ndarray:
    out = scale.scale * np.asarray(beta, dtype=float)
    if e is not None:
        out = out + scale.location * e
    return out


def exact_model(dev: ProfiledDeviance, beta: np.ndarray, backend: str,
                 common: dict) -> MixedModel:
    """The fit of scores the fixed effects reproduce: exact estimates, no variance."""
    theta = np.zeros(dev.layout.n_theta)
    names = [c.name for c in common["grid"].columns]
    varcomp, _ = _varcomp(common["_terms"], dev.layout.factors(theta), 0.0)
    return MixedModel(
        backend="native", loglik=np.inf,
        fixef=pd.Series(_unscale_beta(beta, common["_constant"], common["_scale"]),
                        index=names, name="estimate"),
        vcov=pd.DataFrame(np.zeros((len(names), len(names))), index=names, columns=names),
        sigma=0.0, theta=theta, varcomp=varcomp, n_params=dev.p + dev.layout.n_theta + 1,
        singular=dev.layout.n_theta > 0, nobs=dev.n, converged=True,
        message=("exact fit: the fixed effects reproduce every score (no residual variation)"
                 + ("; solved natively, there is nothing for lme4 to estimate"
                    if backend == "lme4" else "")),
        exact=True, _deviance=dev, **common,
    )


def _psd_cholesky(C: np.ndarray) -> np.ndarray:
    """A lower-triangular ``T`` with ``T T' = C`` for a positive semi-definite ``C``."""
    p = len(C)
    T = np.zeros((p, p))
    for j in range(p):
        d = C[j, j] - T[j, :j] @ T[j, :j]
        if d <= 1e-14 * max(1.0, abs(C[j, j])):
            continue  # a zero pivot: this column stays zero
        T[j, j] = np.sqrt(d)
        T[j + 1:, j] = (C[j + 1:, j] - T[j + 1:, :j] @ T[j, :j]) / T[j, j]
    return T


def embed_theta(start: MixedModel,
                 terms: tuple[tuple[str, tuple[str, ...]], ...]) -> np.ndarray | None:
    """``start``'s covariance parameters in the layout of ``terms``, new ones at zero.

    A term with the same grouping factor and columns is copied; otherwise its
    relative covariance is rebuilt from ``start``'s entries for the same
    group and columns (zero where ``start`` has none).
    """
    if start._deviance is None or start.exact or start.backend != "native":
        return None
    old_factors = start._deviance.layout.factors(np.asarray(start.theta))
    same: dict[tuple[str, tuple[str, ...]], np.ndarray] = {}
    cov: dict[tuple[str, str, str], float] = {}
    for (group, names), T in zip(start._terms, old_factors):
        same[(group, names)] = T
        C = T @ T.T
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                cov[(group, a, b)] = C[i, j]
    theta = []
    for group, names in terms:
        T = same.get((group, names))
        if T is None:
            T = _psd_cholesky(np.array([[cov.get((group, a, b), 0.0) for b in names]
                                        for a in names]))
        p = len(names)
        theta.extend(T[i, j] for j in range(p) for i in range(j, p))
    return np.array(theta, dtype=float)


def _varcomp(terms: tuple[tuple[str, tuple[str, ...]], ...], factors: list[np.ndarray],
             sigma: float) -> tuple[pd.DataFrame, bool]:
    rows = []
    singular = False
    for (group, names), T in zip(terms, factors):
        cov = sigma**2 * T @ T.T
        sds = np.sqrt(np.diag(cov))
        for j in range(len(names)):
            for i in range(j, len(names)):
                value = cov[i, j]
                sd_cor = sds[i] if i == j else (value / (sds[i] * sds[j])
                                                if sds[i] > 0 and sds[j] > 0 else np.nan)
                rows.append({"group": group, "term1": names[j], "term2": names[i],
                             "value": value, "sd_cor": sd_cor})
        if np.any(np.abs(np.diag(T)) < SINGULAR_TOL):
            singular = True
    rows.append({"group": "Residual", "term1": "", "term2": "", "value": sigma**2,
                 "sd_cor": sigma})
    return pd.DataFrame(rows), singular


__all__ = ["DEGENERATE_SIGMA", "embed_theta", "exact_model", "native_model", "random_signature"]
