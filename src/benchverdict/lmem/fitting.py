"""Fitting a mixed model: ``fit()`` and ``refit()`` (the fitted type is in :mod:`.model`).

``fit`` builds the design from the Results (or, for a Dask-backed Results,
accumulates cross-products per partition in :mod:`benchverdict._dask.lmem`),
standardises the response (:mod:`.scaling`), checks for exact and
degenerate fits (:mod:`.exactness`), and optimises the profiled deviance
(:mod:`.native`) or hands the design to R's lme4 (:mod:`.rbackend`). The
:class:`~benchverdict.lmem.model.MixedModel` it returns lives one layer
below, so the fitted type, the R backend and the Dask path all import it
without importing this module (no import cycle).
"""

from __future__ import annotations

import weakref
from typing import Literal

import numpy as np
import pandas as pd

from benchverdict.lmem import exclusions as _exclusions
from benchverdict.lmem import rbackend
from benchverdict.lmem._shared import embed_theta, exact_model, native_model, random_signature
from benchverdict.lmem.design import Design, build_design, cross_products
from benchverdict.lmem.exactness import fixed_effects_reproduce, random_effects_reproduce
from benchverdict.lmem.formula import parse_formula
from benchverdict.lmem.model import DegenerateFitError, GridSpec, MixedModel, check_full_rank
from benchverdict.lmem.native import ProfiledDeviance, small_problem_threads
from benchverdict.lmem.scaling import constant_coefficients, standardised
from benchverdict.results import Results

Backend = Literal["native", "lme4"]


def model_frame(results: Results | pd.DataFrame) -> tuple[pd.DataFrame, str | None, str]:
    """The long table a model is fitted on, the objective, and a description."""
    if isinstance(results, pd.DataFrame):
        return results, None, f"DataFrame with {len(results)} rows"
    return results.table, results.objective, repr(results)



def _fingerprint(design: Design) -> tuple[int, float]:
    # Nine significant digits: the same for any scale of the scores.
    return (design.n, float(f"{float(np.sum(design.y)):.9e}"))



def fit(results: Results | pd.DataFrame, formula: str, *, reml: bool = False,
        backend: Backend = "native", chunk_rows: int | None = None,
        start: MixedModel | None = None,
        exclusions: pd.DataFrame | None = None) -> MixedModel:
    """Fit a linear mixed model with an lme4-style formula over the Results' columns.

    The scores are standardised internally and every estimate is mapped back
    exactly (:mod:`benchverdict.lmem.scaling`), so rescaling or shifting the
    scores changes estimates in proportion and leaves tests and verdicts
    alone. Scores that the fixed effects reproduce exactly (constant scores,
    or scores constant per algorithm in ``score ~ algorithm + ...``) give an
    exact fit (``model.exact``); scores that only the random effects
    reproduce raise :class:`DegenerateFitError`.

    Parameters
    ----------
    results : Results or pandas.DataFrame
        The data. Column names are the roles (``score``, ``algorithm``,
        ``benchmark``, ``seed``, ``budget``) plus metafeatures. A DataFrame
        is used as is (then no objective is known and verdicts are off).
    formula : str
        e.g. ``"score ~ algorithm + (1|benchmark)"``. Every name is checked
        against the columns; see :func:`~benchverdict.lmem.formula.parse_formula`.
    reml : bool
        REML instead of maximum likelihood (default ML, needed for GLRTs of
        fixed effects).
    backend : {"native", "lme4"}
        ``"native"``: this package's exact engine (default). ``"lme4"``: R's
        lme4 through rpy2 (optional extra).
    chunk_rows : int, optional
        Rows per chunk when accumulating cross-products (native).
    start : MixedModel, optional
        A fitted model nested in this one (native): its covariance
        parameters, with this model's extra ones at zero, are an extra
        starting point. The fit is then never worse than ``start``.
    exclusions : pandas.DataFrame, optional
        What the caller's input left out (see
        :func:`~benchverdict.lmem.exclusions.exclusions_of`); by default
        taken from ``results`` (``Results.exclusions``, or the runs a
        DataFrame from :meth:`Results.at_budget` lists).

    Returns
    -------
    MixedModel

    Raises
    ------
    DegenerateFitError
        When the random effects reproduce every score (e.g. scores constant
        within each benchmark under ``(1|benchmark)``): the likelihood then
        has no maximum.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> m = fit(_example_small(), "score ~ algorithm + (1|benchmark)")
    >>> m.n_params, m.fixef.index.tolist()
    (4, ['(Intercept)', 'algorithmb'])
    """
    if isinstance(results, Results):
        # The engine's own fit, if it has one (Dask: cross-products summed per partition).
        model = results.engine.lmem_fit(formula, reml=reml, backend=backend, start=start,
                                        exclusions=exclusions)
        if model is not None:
            return model
    frame, objective, _ = model_frame(results)
    parsed = parse_formula(formula, frame.columns)
    left_out = exclusions if exclusions is not None else _exclusions.exclusions_of(results)
    if backend not in ("native", "lme4"):
        raise ValueError(f"backend must be 'native' or 'lme4', got {backend!r}.")
    design = build_design(frame, parsed)
    return _fit_design(design, reml=reml, backend=backend, chunk_rows=chunk_rows, start=start,
                       objective=objective, exclusions=left_out, frame=frame)


def refit(model: MixedModel, start: MixedModel) -> MixedModel:
    """Fit ``model`` again (native) with ``start``'s solution as an extra starting point.

    :func:`~benchverdict.lmem.glrt.glrt` does this when a model comes out
    with a lower log-likelihood than a model nested in it; the refit is
    never worse than ``start`` (nor than ``model``: lme4's start is tried too).
    Only the model's cross-products are used, not the data.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> m0 = fit(_example_small(), "score ~ 1 + (1|benchmark)")
    >>> m1 = fit(_example_small(), "score ~ algorithm + (1|benchmark)")
    >>> bool(refit(m1, m0).loglik >= max(m0.loglik, m1.loglik) - 1e-9)
    True
    """
    if model._deviance is None or model.backend != "native" or model.exact:
        raise ValueError("only native fits with random effects can be refitted; fit with "
                         "backend='native'.")
    dev = model._deviance
    with small_problem_threads(dev.work_size):
        embedded = embed_theta(start, model._terms)
        theta, res = dev.minimize([embedded] if embedded is not None else [])
    common = {name: getattr(model, name) for name in (
        "formula", "reml", "objective", "grid", "random_signature", "data_fingerprint",
        "exclusions", "_scale", "_terms", "_constant")}
    return native_model(dev, theta, res, common)


def _fit_design(design: Design, *, reml: bool, backend: str, chunk_rows: int | None,
                start: MixedModel | None, objective: str | None, exclusions: pd.DataFrame,
                frame: pd.DataFrame | None = None) -> MixedModel:
    """Fit a built design (see :func:`fit`)."""
    parsed = design.formula
    e = constant_coefficients(design)
    fingerprint = _fingerprint(design)
    # build_design made y for this fit alone: standardise it in place (no second copy).
    scale, _ = standardised(design.y, centre=e is not None, inplace=True)
    std = design
    terms = tuple((b.group, tuple(c.name for c in b.columns)) for b in design.blocks)
    common = {"formula": parsed, "reml": reml, "objective": objective,
              "grid": GridSpec.from_design(design),
              "random_signature": random_signature(design),
              "data_fingerprint": fingerprint, "exclusions": exclusions,
              "_scale": scale, "_terms": terms, "_constant": e}
    cp = cross_products(std, **({"chunk_rows": chunk_rows} if chunk_rows else {}))
    check_full_rank(cp.XtX, design.fixed_names)
    dev = ProfiledDeviance(cp, std.blocks, reml)
    chunk = chunk_rows or 262_144
    with small_problem_threads(dev.work_size):
        beta_exact = fixed_effects_reproduce(std, cp, chunk)
        if beta_exact is not None:
            return exact_model(dev, beta_exact, backend, common)
        if random_effects_reproduce(std, cp, dev, chunk):
            raise DegenerateFitError(
                f"the fixed and random effects of {parsed} reproduce the scores exactly: no "
                "residual variation is left, so the likelihood has no maximum. This happens "
                "when the scores are constant within each level of a grouping factor (e.g. "
                "every algorithm scores the same on each benchmark, or each seed repeats the "
                "same score). Remove the random term that absorbs them, or compare the "
                "scores directly."
            )
    if backend == "lme4":
        fields, key = rbackend.fit_lme4(std, e=e, scale=scale, formula=parsed, reml=reml)
        fitted = MixedModel(**fields, **common)
        weakref.finalize(fitted, rbackend.release, key)  # frees the model's R environment
        return fitted
    del std, design  # the cross-products are all the optimisation needs
    with small_problem_threads(dev.work_size):
        embedded = embed_theta(start, terms) if start is not None else None
        theta, res = dev.minimize([embedded] if embedded is not None else [])
    return native_model(dev, theta, res, common)
