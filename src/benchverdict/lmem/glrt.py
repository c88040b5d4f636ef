"""The generalised likelihood-ratio test of two nested mixed models."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from benchverdict._caveats import caveat
from benchverdict._repr import ResultText
from benchverdict.lmem.fitting import refit
from benchverdict.lmem.model import MixedModel, check_alpha

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

    from benchverdict.verdict import Verdict

#: A chi2 below this times max(1, rows) is rounding: the two fits coincide. Rows, not
#: |loglik|: the log-likelihood shifts by rows x log(scale) when the scores are rescaled,
#: and a threshold on it snapped a chi2 of 2e-6 to 0 at scale 1e-150 but not at scale 1
#: (the chi-bar-squared p then jumped from 0.4995 to 1).
CHI2_NOISE = 1e-9


class BoundaryWarning(UserWarning):
    """The GLRT tests a variance at zero: the chi-squared p-value is conservative."""


class NestingError(ValueError):
    """The two models are not nested (or were given in the wrong order).

    ``reason`` holds the reason alone, without advice about Python arguments
    (the command line words its own advice).
    """

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason or message


@dataclass(repr=False, frozen=True)
class GLRTResult(ResultText):
    """A likelihood-ratio test of ``m0`` (null) against ``m1`` (alternative).

    Attributes
    ----------
    chi2 : float
        ``2 (l1 - l0)``.
    df : int
        ``n_params(m1) - n_params(m0)``, counting fixed effects, covariance
        parameters and the residual variance.
    p_value : float
        From the chi-squared distribution with ``df`` degrees of freedom.
    boundary : bool
        Whether ``m1`` adds variance components, which are tested at the
        boundary of their space (zero). The chi-squared p-value is then
        conservative; the null distribution is a chi-bar-squared mixture.
    p_value_chibar : float or None
        When ``m1`` adds exactly one variance (and possibly fixed effects),
        the p-value under the 50:50 mixture of chi2(df - 1) and chi2(df)
        (Self and Liang 1987); ``None`` otherwise.
    loglik0, loglik1 : float
    n_params0, n_params1 : int
    formula0, formula1 : str
    alpha : float
        The significance level.
    note : str
        How a degenerate case was resolved: ``m1`` refitted from ``m0``'s
        solution because it came out with a lower log-likelihood, or an
        exact fit (infinite log-likelihood) on either side.
    """

    chi2: float
    df: int
    p_value: float
    boundary: bool
    p_value_chibar: float | None
    loglik0: float
    loglik1: float
    n_params0: int
    n_params1: int
    formula0: str
    formula1: str
    alpha: float = 0.05
    note: str = ""

    def _summary_lines(self) -> list[str]:
        boundary = " (on the boundary)" if self.boundary else ""
        return [f"GLRT chi2 = {self.chi2:.4g}, df = {self.df}, p = {self.p_value:.3g}"
                f"{boundary}; alpha = {self.alpha:g}"]

    @property
    def significant(self) -> bool:
        """Whether ``m1`` fits significantly better at ``alpha``."""
        return self.p_value < self.alpha

    @property
    def table(self) -> pd.DataFrame:
        """One row per model, like R's ``anova(m0, m1)``."""
        return pd.DataFrame({
            "model": [self.formula0, self.formula1],
            "n_params": [self.n_params0, self.n_params1],
            "loglik": [self.loglik0, self.loglik1],
            "chi2": [np.nan, self.chi2],
            "df": [np.nan, self.df],
            "p_value": [np.nan, self.p_value],
        })

    def verdicts(self) -> list[Verdict]:
        """No verdicts: a likelihood-ratio test compares two models, not two algorithms.

        An empty list, so that every result type answers ``verdicts()``; the
        algorithm comparisons of a model come from :meth:`MixedModel.verdicts
        <benchverdict.lmem.model.MixedModel.verdicts>`.
        """
        return []

    def plot(self, ax: plt.Axes | None = None, **kw: Any) -> plt.Axes:
        """The chi-squared reference distribution with the statistic and the critical value.

        ``kw`` go to the density's ``ax.plot`` (e.g. ``color``). An infinite
        statistic (an exact fit) is drawn at the right edge with an arrow.

        Examples
        --------
        >>> from benchverdict.lmem import fit
        >>> from benchverdict.results import _example_small
        >>> m0 = fit(_example_small(), "score ~ 1 + (1|benchmark)")
        >>> m1 = fit(_example_small(), "score ~ algorithm + (1|benchmark)")
        >>> glrt(m0, m1).plot().get_xlabel()
        'chi2 (df = 1)'
        """
        from benchverdict._plain_text import plain_text
        from benchverdict.plotting import new_axes, theme

        ax = new_axes(ax, width=4.5, height=2.6)
        critical = float(stats.chi2.isf(self.alpha, self.df))
        finite = np.isfinite(self.chi2)
        right = max(critical, self.chi2 if finite else 0.0, stats.chi2.isf(1e-3, self.df)) * 1.15
        x = np.linspace(0.0, right, 400)[1:]
        with theme():
            ax.plot(x, stats.chi2.pdf(x, self.df), **{"color": "#0021DE", **kw})
            ax.axvline(critical, color="k", ls="--", lw=0.8,
                       label=f"critical value (alpha = {self.alpha:g})")
            shown = self.chi2 if finite else right
            ax.axvline(shown, color="#DE2C00", lw=1.5,
                       label=f"chi2 = {self.chi2:.4g}, p = {self.p_value:.3g}")
            if not finite:
                ax.annotate("inf", (shown, 0.5), xycoords=("data", "axes fraction"),
                            ha="right", color="#DE2C00")
            ax.set_xlim(0.0, right)
            ax.set_ylim(bottom=0.0)
            ax.set_xlabel(f"chi2 (df = {self.df})")
            ax.set_ylabel("density under m0")
            ax.legend(fontsize=7, frameon=False)
            ax.set_title("GLRT: " + ("m1 fits better" if self.significant
                                     else "no significant improvement"), fontsize=9)
        return plain_text(ax)

    def summary(self) -> str:
        """The test, its verdict and the two models, as text."""
        verdict = "m1 fits better" if self.significant else "no significant improvement"
        note = " (variance at its boundary: p is conservative)" if self.boundary else ""
        return (f"GLRT: chi2 = {self.chi2:.6g}, df = {self.df}, p = {self.p_value:.4g}{note}: "
                f"{verdict} at alpha = {self.alpha:g}.\n  m0: {self.formula0}\n"
                f"  m1: {self.formula1}" + (f"\n  note: {self.note}" if self.note else ""))


def _nested(m0: MixedModel, m1: MixedModel) -> str | None:
    """Why m0 is not nested in m1 (None if it is, judged from the model terms)."""
    f0, f1 = m0.formula.fixed, m1.formula.fixed
    terms1 = {frozenset(t) for t in f1.terms}
    for t in f0.terms:
        if frozenset(t) not in terms1:
            return f"the fixed term {':'.join(t)} of m0 is not in m1"
    if f0.intercept and not f1.intercept and not any(len(t) == 1 for t in f1.terms):
        return "m0 has an intercept and m1 has neither an intercept nor a factor spanning it"
    for group, cols in m0.random_signature:
        if not any(g == group and cols <= c1 for g, c1 in m1.random_signature):
            return f"m0's random effects {sorted(cols)} for {group} are not in m1"
    return None


def glrt(m0: MixedModel, m1: MixedModel, *, alpha: float = 0.05,
         check_nesting: bool = True) -> GLRTResult:
    """Likelihood-ratio test of the simpler model ``m0`` against ``m1``.

    ``chi2 = 2 (l1 - l0)`` is referred to chi-squared with ``df = k1 - k0``,
    the difference in the numbers of parameters including covariance
    parameters. Unlike lmem-significance, ``df`` is never zero (equal
    parameter counts raise) and the direction is checked, not taken with
    ``abs()``: ``m1`` must contain ``m0``.

    A model that nests another can never fit worse. If ``m1`` comes out with
    a lower log-likelihood than ``m0`` (an optimiser stop short of the
    maximum), ``m1`` is refitted from ``m0``'s solution embedded in it, which
    is at least as good, and the result says so in ``note``. When ``m0`` fits
    the scores exactly (``m0.exact``: infinite log-likelihood) ``m1`` cannot
    improve on it: ``chi2 = 0``, ``p = 1``. When only ``m1`` does, ``chi2 =
    inf``, ``p = 0``.

    Parameters
    ----------
    m0, m1 : MixedModel
        Fitted to the same data. ``m0`` must be nested in ``m1``. Models
        that differ in fixed effects must be ML fits (``reml=False``).
    alpha : float
    check_nesting : bool
        Check nesting from the model terms (disable for nestings the check
        cannot see, such as a covariate replaced by a factor).

    Returns
    -------
    GLRTResult

    Warns
    -----
    BoundaryWarning
        When ``m1`` adds variance components (the chi-squared reference is
        conservative; see ``p_value_chibar``).

    Examples
    --------
    >>> import warnings
    >>> from benchverdict.results import _example_small
    >>> from benchverdict.lmem import fit
    >>> res = _example_small()
    >>> m0 = fit(res, "score ~ 1 + (1|benchmark)")
    >>> m1 = fit(res, "score ~ algorithm + (1|benchmark)")
    >>> t = glrt(m0, m1)
    >>> t.df, round(t.chi2, 4) == round(2 * (m1.loglik - m0.loglik), 4)
    (1, True)
    """
    check_alpha(alpha)
    if m0.data_fingerprint != m1.data_fingerprint or m0.formula.response != m1.formula.response:
        raise NestingError("the two models were not fitted to the same data and response.")
    fixed_differ = set(m0.fixef.index) != set(m1.fixef.index)
    if fixed_differ and (m0.reml or m1.reml):
        raise ValueError(
            "the models differ in their fixed effects, so REML likelihoods are not comparable; "
            "refit both with reml=False."
        )
    if m0.reml != m1.reml:
        raise ValueError("fit both models with the same criterion (reml=False for a GLRT).")
    df = m1.n_params - m0.n_params
    if df <= 0:
        why = (f"m1 ({m1.formula}) has {m1.n_params} parameters and m0 ({m0.formula}) "
               f"{m0.n_params}: m1 must be the larger model")
        raise NestingError(f"{why}. Did you swap them?", why)
    if check_nesting:
        why = _nested(m0, m1)
        if why is not None:
            raise NestingError(f"m0 is not nested in m1: {why}. Pass check_nesting=False "
                               "only if you know they are nested.", why)
    note = ""
    if np.isinf(m0.loglik) and m0.loglik > 0:
        chi2 = 0.0
        note = ("m0 fits the scores exactly (no residual variation), so m1 cannot improve on "
                "it: chi2 = 0.")
    elif np.isinf(m1.loglik) and m1.loglik > 0:
        chi2 = np.inf
        note = "m1 fits the scores exactly (no residual variation) and m0 does not: chi2 = inf."
    else:
        if m1.loglik < m0.loglik - 1e-9 * max(1.0, abs(m0.loglik)):
            m1, note = _refit_from(m0, m1)
        chi2 = 2.0 * (m1.loglik - m0.loglik)
        # Below the optimiser's precision the two fits are the same point (m1's extra
        # parameters at zero): chi2 is 0, not rounding noise, which matters for the
        # chi-bar-squared mixture (its point mass at 0 makes p jump from 1 to 1/2).
        if chi2 <= CHI2_NOISE * max(1.0, float(m0.nobs)):
            chi2 = 0.0
    p = float(stats.chi2.sf(chi2, df))
    n_var0 = sum(1 for _, c in m0.random_signature for _ in c)
    n_var1 = sum(1 for _, c in m1.random_signature for _ in c)
    n_cov1 = int((m1.varcomp["group"] != "Residual").sum())
    n_cov0 = int((m0.varcomp["group"] != "Residual").sum())
    added_var = n_var1 - n_var0
    boundary = added_var > 0
    chibar = None
    if boundary and added_var == 1 and (n_cov1 - n_cov0) == 1:
        chibar = float(0.5 * stats.chi2.sf(chi2, df - 1) + 0.5 * stats.chi2.sf(chi2, df)) \
            if df > 1 else float(0.5 * stats.chi2.sf(chi2, 1) + 0.5 * (chi2 <= 0))
    if boundary:
        caveat(
            "variance components tested at the boundary",
            f"the GLRT tests {added_var} variance component(s) at zero, the boundary of the "
            "parameter space; the chi-squared p-value is conservative (the null distribution "
            "is a chi-bar-squared mixture)."
            + (f" The 50:50 mixture p-value is {chibar:.4g}." if chibar is not None else ""),
            category=BoundaryWarning, stacklevel=2,
        )
    return GLRTResult(chi2, int(df), p, boundary, chibar, m0.loglik, m1.loglik, m0.n_params,
                      m1.n_params, str(m0.formula), str(m1.formula), alpha, note)


def _refit_from(m0: MixedModel, m1: MixedModel) -> tuple[MixedModel, str]:
    """Refit ``m1`` from ``m0``'s solution after it came out worse than ``m0``."""
    before = m1.loglik
    if m1.backend != "native":
        raise ValueError(
            f"the larger model has a lower log-likelihood ({m1.loglik:.8g} < {m0.loglik:.8g}): "
            f"the {m1.backend} optimiser stopped short of the maximum. Refit m1 with "
            "backend='native', which restarts from m0's solution."
        )
    m1 = refit(m1, m0)
    if m1.loglik < m0.loglik - 1e-9 * max(1.0, abs(m0.loglik)):  # pragma: no cover - guarded
        raise ValueError(
            f"the larger model still has a lower log-likelihood after a refit from the "
            f"smaller one's solution ({m1.loglik:.10g} < {m0.loglik:.10g}); are the models "
            "nested? Pass check_nesting=True to check."
        )
    return m1, (f"m1 was refitted from m0's solution: its first fit stopped at log-likelihood "
                f"{before:.10g}, below m0's {m0.loglik:.10g}; the refit reached {m1.loglik:.10g}.")


def nested_f_test(m0: MixedModel, m1: MixedModel) -> tuple[float, float]:
    """The exact F test of two nested linear models (no random effects): ``(F, p)``.

    ``F = ((RSS0 - RSS1) / (p1 - p0)) / (RSS1 / (n - p1))`` with ``RSS = n
    sigma_ML^2``. Exact fits give clear answers instead of a division by
    zero: when ``m0`` reproduces the scores ``m1`` cannot improve (``F`` nan,
    ``p = 1``); when only ``m1`` does, ``F = inf`` and ``p = 0``.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict.lmem import fit
    >>> df = pd.DataFrame({"score": [1.0, 1.0, 2.0, 2.0], "algorithm": list("aabb")})
    >>> nested_f_test(fit(df, "score ~ 1"), fit(df, "score ~ algorithm"))
    (inf, 0.0)
    """
    n, p1, p0 = m1.nobs, len(m1.fixef), len(m0.fixef)
    df1, df2 = p1 - p0, n - p1
    if m0.exact:
        return float("nan"), 1.0
    if m1.exact:
        return float("inf"), 0.0
    if df1 <= 0 or df2 <= 0:
        raise ValueError(f"an F test of {m0.formula} against {m1.formula} needs p0 < p1 < n "
                         f"(p0 = {p0}, p1 = {p1}, n = {n}).")
    rss0, rss1 = n * m0.sigma**2, n * m1.sigma**2
    f_stat = ((rss0 - rss1) / df1) / (rss1 / df2)
    return float(f_stat), float(stats.f.sf(f_stat, df1, df2))
