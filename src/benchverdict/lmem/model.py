"""The fitted mixed model: estimates, marginal means, Tukey contrasts, verdicts (fit: .fitting)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from benchverdict.lmem import exclusions as _exclusions
from benchverdict.lmem import rbackend
from benchverdict.lmem.design import Column, Design, Variable
from benchverdict.lmem.formula import Formula, FormulaError
from benchverdict.lmem.native import (
    ProfiledDeviance,
    quadratic_forms,
    satterthwaite_df,
    small_problem_threads,
)
from benchverdict.lmem.scaling import ResponseScale
from benchverdict.stats.multiple_testing import holm
from benchverdict.stats.studentized_range import studentized_range_quantile, studentized_range_sf
from benchverdict.verdict import Effect, Evidence, Scope, Verdict, register_method

_LMEM_ASSUMPTIONS = ("a linear mixed model: normal residuals and random effects, the "
                     "random-effect structure of the formula, additive effects")
# One entry per multiple-comparison adjustment of Model.verdicts(adjust=...). Each contrast
# also carries its raw (unadjusted) p-value, through which the LMEM family votes.
for _adjust, _control in (("tukey", "family-wise over pairs"),
                          ("holm", "family-wise over pairs"),
                          ("bonferroni", "family-wise over pairs"),
                          ("none", "per comparison")):
    register_method(f"lmem.{_adjust}", "lmem", f"LMEM contrasts of marginal means ({_adjust})",
                    paired=True, unit="row of the mixed model (a run's incumbent)",
                    aspect="centre", assumptions=_LMEM_ASSUMPTIONS, error_control=_control,
                    votes=True, primary=_adjust == "tukey", scale="raw",
                    adjustment=None if _adjust == "none" else _adjust)

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

#: The caveat every verdict of a singular fit carries.
SINGULAR_CAVEAT = "its mixed-model fit is singular (a variance component at zero)"


#: Up to this many rows the default degrees of freedom are Satterthwaite's (emmeans' rule);
#: above, see :data:`ASYMPTOTIC_LEVELS` and :meth:`MixedModel.auto_df`.
ASYMPTOTIC_ROWS = 3000

#: Above :data:`ASYMPTOTIC_ROWS` rows, ``df="auto"`` is asymptotic only when every random
#: grouping factor has at least this many levels and none contains a fixed factor. A
#: contrast's Satterthwaite df are about the number of levels of the grouping factors whose
#: variances enter its standard error (minus what the fixed effects use); at 200 df the
#: t quantile t_{0.975} is 1.972 against z's 1.960 (a test at 5.0% has size 5.1% with z).
ASYMPTOTIC_LEVELS = 200


@dataclass(frozen=True)
class GridSpec:
    """What emmeans' reference grid needs: each fixed variable's levels or mean."""

    factors: dict[str, tuple[str, ...]]
    means: dict[str, float]
    columns: tuple[Column, ...]

    @classmethod
    def from_design(cls, design: Design) -> GridSpec:
        """Collect the grid of a design."""
        factors: dict[str, tuple[str, ...]] = {}
        means: dict[str, float] = {}
        for name in design.formula.fixed.variables:
            var = design.variables[name]
            if var.is_factor:
                factors[name] = var.levels
            else:
                means[name] = float(np.mean(var.values))
        return cls(factors, means, tuple(design.fixed))


@dataclass
class MixedModel:
    """A fitted linear mixed model (either backend).

    Attributes
    ----------
    formula : Formula
    backend : {"native", "lme4"}
    reml : bool
    loglik : float
        The maximised log-likelihood (REML criterion for REML fits, as lme4).
    fixef : pandas.Series
        Fixed-effect estimates, named as in R.
    vcov : pandas.DataFrame
        Their covariance matrix.
    sigma : float
        Residual standard deviation.
    theta : numpy.ndarray
        Relative covariance factors (lme4's ``getME(m, "theta")`` order).
    varcomp : pandas.DataFrame
        ``group, term1, term2, value`` (a variance when ``term1 == term2``,
        else a covariance) plus ``sd_cor`` (standard deviation or
        correlation); the residual variance is the row with group
        ``"Residual"``.
    n_params : int
        Fixed effects + covariance parameters + the residual variance.
    singular : bool
        Whether a variance is (near) zero or a correlation is +-1 (lme4's
        ``isSingular``).
    nobs : int
    objective : str or None
        ``"maximize"`` or ``"minimize"`` (from the Results).
    converged : bool
        Whether the optimiser's projected gradient is small at the reported
        optimum (which is the best point it evaluated, boundary included).
    message : str
        How the optimum was found.
    exact : bool
        The fixed effects reproduce every score (no residual variation, e.g.
        constant scores or scores constant per algorithm): ``sigma`` is 0,
        ``loglik`` is ``inf`` and every estimate is known exactly (standard
        errors 0), so a nonzero contrast is significant with p = 0 and a zero
        one has p = 1.
    exclusions : pandas.DataFrame
        Input rows and runs left out of the fit (columns
        :data:`~benchverdict.exclusions.EXCLUSION_COLUMNS`; see
        :mod:`benchverdict.lmem.exclusions`); the verdicts repeat the counts.

    Notes
    -----
    The response is standardised internally and every estimate mapped back
    exactly (:mod:`benchverdict.lmem.scaling`); the log-likelihood is that of
    the scores as given, so it changes by ``-n log(k)`` when they are
    multiplied by ``k``, while tests and verdicts do not change.
    """

    formula: Formula
    backend: str
    reml: bool
    loglik: float
    fixef: pd.Series
    vcov: pd.DataFrame
    sigma: float
    theta: np.ndarray
    varcomp: pd.DataFrame
    n_params: int
    singular: bool
    nobs: int
    objective: str | None
    grid: GridSpec
    random_signature: tuple[tuple[str, frozenset[str]], ...]
    data_fingerprint: tuple[int, float]
    converged: bool = True
    message: str = ""
    exact: bool = False
    exclusions: pd.DataFrame = field(default_factory=_exclusions.empty, repr=False)
    _deviance: ProfiledDeviance | None = field(default=None, repr=False)
    _r_model: Any = field(default=None, repr=False)
    _scale: ResponseScale = field(default=ResponseScale(0.0, 1.0), repr=False)
    # What a refit needs besides the deviance: each random term's (group, column names) and
    # the coefficients of the constant (for mapping the intercept back).
    _terms: tuple[tuple[str, tuple[str, ...]], ...] = field(default=(), repr=False)
    _constant: np.ndarray | None = field(default=None, repr=False)
    # vcov of the standardised response: inference uses it, because ``vcov`` in the
    # scores' units overflows to inf for scores near 1e300 while every statistic is finite.
    _vcov_std: np.ndarray | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ basics
    @property
    def deviance(self) -> float:
        """``-2 * loglik``."""
        return -2.0 * self.loglik

    @property
    def aic(self) -> float:
        """Akaike's information criterion."""
        return -2.0 * self.loglik + 2 * self.n_params

    @property
    def bic(self) -> float:
        """Bayes' information criterion."""
        return -2.0 * self.loglik + np.log(self.nobs) * self.n_params

    @property
    def n_excluded(self) -> dict[str, int]:
        """``{"excluded_rows": ..., "excluded_runs": ...}``: what the input left out."""
        return _exclusions.counts(self.exclusions)

    def _statistic(self, estimate: np.ndarray, se: np.ndarray) -> np.ndarray:
        """``estimate / se``; for an exact fit (se 0) +-inf, or 0 for a zero estimate.

        Zero means zero up to rounding: 1e-9 of the scores' spread.
        """
        estimate, se = np.asarray(estimate, dtype=float), np.asarray(se, dtype=float)
        zero = np.abs(estimate) <= 1e-9 * self._scale.scale
        with np.errstate(divide="ignore", invalid="ignore"):
            out = estimate / se
        exact = se == 0
        return np.where(exact, np.where(zero, 0.0, np.copysign(np.inf, estimate)), out)

    def _standard_errors(self, L: np.ndarray) -> np.ndarray:
        """Standard errors of the linear combinations ``L @ beta`` (rows of ``L``).

        Computed on the standardised response and scaled back, so they stay
        finite wherever the estimates are (``vcov`` itself may overflow).
        """
        s = np.float64(self._scale.scale)
        if self._vcov_std is not None:
            V = self._vcov_std
        else:
            V = self.vcov.to_numpy() / (s * s)
        return np.sqrt(quadratic_forms(L, V)) * s

    @property
    def table(self) -> pd.DataFrame:
        """Fixed effects: ``term, estimate, se, statistic`` (Wald)."""
        se = self._standard_errors(np.eye(len(self.fixef)))
        return pd.DataFrame({
            "term": self.fixef.index, "estimate": self.fixef.to_numpy(), "se": se,
            "statistic": self._statistic(self.fixef.to_numpy(), se),
        })

    def __repr__(self) -> str:
        how = "REML" if self.reml else "ML"
        sing = ", singular" if self.singular else ""
        return (f"MixedModel({self.formula}; {how}, backend={self.backend}, n={self.nobs}, "
                f"logLik={self.loglik:.6g}, {self.n_params} params{sing})")

    def _summary_lines(self) -> list[str]:
        return [repr(self)]

    def _repr_html_(self) -> str:
        from benchverdict._repr import result_html

        return result_html(self)

    def __str__(self) -> str:
        return self.summary()

    def summary(self) -> str:
        """A printable summary: fit, fixed effects and variance components."""
        lines = [repr(self), "", "Fixed effects:", self.table.to_string(index=False), "",
                 "Variance components:", self.varcomp.to_string(index=False)]
        left_out = _exclusions.describe(self.exclusions)
        if left_out:
            lines.append("\n" + left_out)
        if self.exact:
            lines.append("\nExact fit: the fixed effects reproduce every score (no residual "
                         "variation), so estimates are exact and the log-likelihood is "
                         "infinite.")
        elif self.singular:
            lines.append("\nSingular fit: a variance is ~0 or a correlation ~+-1; simplify "
                         "the random effects or treat the estimate with care.")
        return "\n".join(lines)

    # ------------------------------------------------------------------ marginal means
    def _grid_matrix(self, factor: str, by: str | None) -> tuple[np.ndarray, pd.DataFrame]:
        """Rows of L (one per level of factor [x by]) on emmeans' equal-weight grid."""
        grid = self.grid
        for name in (factor, by):
            if name is not None and name not in grid.factors:
                raise FormulaError(
                    f"{name!r} is not a factor among the fixed effects of {self.formula}; "
                    f"marginal means are available for {sorted(grid.factors)}."
                )
        names = list(grid.factors)
        sizes = [len(grid.factors[n]) for n in names]
        codes = np.array(list(itertools.product(*[range(s) for s in sizes])), dtype=np.int32)
        if codes.size == 0:
            codes = np.zeros((1, 0), dtype=np.int32)
        n = codes.shape[0]
        variables: dict[str, Variable] = {}
        for j, name in enumerate(names):
            variables[name] = Variable(name, "factor", grid.factors[name], codes=codes[:, j])
        for name, mean in grid.means.items():
            variables[name] = Variable(name, "numeric", values=np.full(n, mean))
        X = np.empty((n, len(grid.columns)))
        for j, col in enumerate(grid.columns):
            X[:, j] = col.evaluate(variables, slice(None)) if col.parts else 1.0
        keys = [factor] + ([by] if by else [])
        key_codes = codes[:, [names.index(k) for k in keys]]
        labels = list(itertools.product(*[range(len(grid.factors[k])) for k in keys]))
        L = np.array([X[(key_codes == np.array(lab)).all(axis=1)].mean(axis=0) for lab in labels])
        frame = pd.DataFrame({k: [grid.factors[k][lab[i]] for lab in labels]
                              for i, k in enumerate(keys)})
        return L, frame

    def auto_df(self) -> str:
        """What ``df="auto"`` means for this model: ``"satterthwaite"`` or ``"asymptotic"``.

        Satterthwaite's small-sample df unless all of these hold:

        * more than :data:`ASYMPTOTIC_ROWS` rows (emmeans' rule: below it,
          always Satterthwaite);
        * no random term's grouping factor contains a fixed factor (as
          ``benchmark:algorithm`` contains ``algorithm``): then the contrasts
          of that factor are estimated against the grouping factor's
          variance, with about ``(a - 1)(b - 1)`` df for ``a`` algorithms
          on ``b`` benchmarks however many rows there are;
        * every random grouping factor has at least :data:`ASYMPTOTIC_LEVELS`
          levels: a contrast's df are about the number of levels of the
          factors whose variances enter its standard error, so with fewer
          the t reference is noticeably wider than the normal one.

        The native engine computes Satterthwaite df from the cross-products
        (:func:`~benchverdict.lmem.native.satterthwaite_df`), at a cost that
        does not grow with the number of rows. For an lme4 fit the number of
        levels is not known here, so only the first two rules apply and
        Satterthwaite df are chosen whenever there are random terms.

        Examples
        --------
        >>> from benchverdict.lmem import fit
        >>> from benchverdict.lmem.simulate import simulate_results
        >>> res = simulate_results(n_benchmarks=3, n_seeds=4, seed=0)
        >>> fit(res, "score ~ algorithm + (1|benchmark) + (1|benchmark:algorithm)").auto_df()
        'satterthwaite'
        """
        if self.nobs <= ASYMPTOTIC_ROWS or not self._terms:
            return "satterthwaite" if self.nobs <= ASYMPTOTIC_ROWS else "asymptotic"
        fixed = set(self.grid.factors)
        if any(fixed & set(group.split(":")) for group, _ in self._terms):
            return "satterthwaite"
        if self._deviance is None:  # an lme4 fit: the levels are in R
            return "satterthwaite"
        levels = self._deviance.layout.n_levels
        return "asymptotic" if min(levels) >= ASYMPTOTIC_LEVELS else "satterthwaite"

    def _df_for(self, C: np.ndarray, df: str) -> np.ndarray:
        if self.exact:
            return np.full(C.shape[0], np.inf)  # nothing is estimated with error
        if self._deviance is not None and self._deviance.q == 0:
            # A linear model: exact t inference with n - p residual df.
            return np.full(C.shape[0], float(self.nobs - len(self.fixef)))
        if df == "auto":
            df = self.auto_df()
        if df == "asymptotic":
            return np.full(C.shape[0], np.inf)
        if df != "satterthwaite":
            raise ValueError(f"df must be 'auto', 'asymptotic' or 'satterthwaite', got {df!r}.")
        if self._deviance is None:
            raise ValueError(
                "Satterthwaite df here need the native backend's deviance; for an lme4 fit, "
                "use df=\"asymptotic\" or refit with backend=\"native\"."
            )
        with small_problem_threads(self._deviance.work_size):
            # On the standardised scale the deviance was minimised on (df are scale-free).
            return satterthwaite_df(self._deviance, self.theta,
                                    self.sigma / self._scale.scale, C)

    def emmeans(self, factor: str = "algorithm", *, by: str | None = None,
                df: str = "auto", confidence: float = 0.95) -> pd.DataFrame:
        """Estimated marginal means on emmeans' equal-weight reference grid.

        Every other factor among the fixed effects is averaged with equal
        weights over its levels, numeric covariates are held at their means.

        Parameters
        ----------
        factor : str
        by : str, optional
            Another fixed factor: means within each of its levels.
        df : {"auto", "asymptotic", "satterthwaite"}
            ``"auto"``: Satterthwaite (emmeans' choice when pbkrtest is not
            installed; Kenward-Roger is not implemented) up to 3,000 rows
            (emmeans' default limit) and above whenever a random grouping
            factor contains a fixed factor or has few levels; else
            asymptotic (see :meth:`auto_df`).
        confidence : float
            Confidence level of the (unadjusted) intervals.

        Returns
        -------
        pandas.DataFrame
            ``factor [, by], emmean, se, df, lower, upper``.

        Examples
        --------
        >>> from benchverdict.lmem import fit
        >>> from benchverdict.results import _example_small
        >>> m = fit(_example_small(), "score ~ algorithm + (1|benchmark)")
        >>> list(m.emmeans().columns)
        ['algorithm', 'emmean', 'se', 'df', 'lower', 'upper']
        """
        if self._r_model is not None:
            return rbackend.emmeans(self, factor, by=by, df=df, confidence=confidence)
        L, frame = self._grid_matrix(factor, by)
        est = L @ self.fixef.to_numpy()
        se = self._standard_errors(L)
        dfs = self._df_for(L, df)
        crit = stats.t.ppf(0.5 + confidence / 2, dfs)
        frame["emmean"] = est
        frame["se"] = se
        frame["df"] = dfs
        frame["lower"] = est - crit * se
        frame["upper"] = est + crit * se
        return frame

    def pairwise(self, factor: str = "algorithm", adjust: str = "tukey", *,
                 by: str | None = None, df: str = "auto") -> pd.DataFrame:
        """All pairwise differences of marginal means, with multiplicity adjustment.

        ``adjust="tukey"`` (default) uses the studentized range: ``p =
        P(Q_{k,df} > sqrt(2) |t|)`` for ``k`` means, as emmeans does. Values are
        kept at full precision; where the numerical integral underflows (``p``
        below about 1e-15) the Bonferroni value ``m * p_raw``, the tail limit
        of the Tukey p-value, is reported instead of 0.

        Parameters
        ----------
        factor : str
        adjust : {"tukey", "holm", "bonferroni", "none"}
        by : str, optional
            Contrasts within each level of another fixed factor (one family per level).
        df : {"auto", "asymptotic", "satterthwaite"}

        Returns
        -------
        pandas.DataFrame
            ``contrast, estimate, se, statistic, df, p_value`` (unadjusted),
            ``p_value_adjusted`` (by ``adjust``, named in the ``adjustment``
            column) plus ``a, b`` (the two levels; ``estimate`` is ``a - b``)
            and ``by`` columns.

        Examples
        --------
        >>> from benchverdict.lmem import fit
        >>> from benchverdict.results import _example_small
        >>> m = fit(_example_small(), "score ~ algorithm + (1|benchmark)")
        >>> list(m.pairwise().columns)[4:8]
        ['df', 'p_value', 'p_value_adjusted', 'adjustment']
        """
        if adjust not in ("tukey", "holm", "bonferroni", "none"):
            raise ValueError(f"adjust must be tukey, holm, bonferroni or none, got {adjust!r}.")
        # The report asks for the same contrasts three times (verdicts, table, CD diagram);
        # with many algorithms each Tukey p-value is a numerical integral: compute once.
        cache = self.__dict__.setdefault("_pairwise_cache", {})
        key = (factor, adjust, by, df)
        if key not in cache:
            cache[key] = self._pairwise(factor, adjust, by=by, df=df)
        return cache[key].copy()

    def _pairwise(self, factor: str, adjust: str, *, by: str | None,
                  df: str) -> pd.DataFrame:
        if self._r_model is not None:
            return rbackend.pairwise(self, factor, adjust=adjust, by=by, df=df)
        L, frame = self._grid_matrix(factor, by)
        rows, Cs = [], []
        groups = [None] if by is None else list(dict.fromkeys(frame[by]))
        for g in groups:
            idx = np.arange(len(frame)) if g is None else np.flatnonzero(frame[by] == g)
            for i, j in itertools.combinations(idx, 2):
                Cs.append(L[i] - L[j])
                a, b = frame[factor].iloc[i], frame[factor].iloc[j]
                rows.append({"contrast": f"{a} - {b}", "a": a, "b": b,
                             **({by: g} if by else {}), "_family": g, "_k": len(idx)})
        C = np.array(Cs)
        est = C @ self.fixef.to_numpy()
        se = self._standard_errors(C)
        dfs = self._df_for(C, df)
        out = pd.DataFrame(rows)
        out.insert(1, "estimate", est)
        out.insert(2, "se", se)
        out.insert(3, "statistic", self._statistic(est, se))
        out.insert(4, "df", dfs)
        out.insert(5, "p_value", 2 * stats.t.sf(np.abs(out["statistic"].to_numpy()), dfs))
        out.insert(6, "p_value_adjusted", adjust_p(out, adjust))
        out.insert(7, "adjustment", adjust)
        return out.drop(columns=["_family", "_k"])

    def letters(self, factor: str = "algorithm", *, alpha: float = 0.05,
                df: str = "auto") -> pd.Series:
        """Compact letter display: levels sharing a letter are not significantly different.

        Tukey-adjusted contrasts; letters follow the marginal means from best
        (``a``) to worst in the objective's direction (Piepho's
        insert-and-absorb algorithm, shared with the rank tests).

        Examples
        --------
        >>> from benchverdict.lmem import fit
        >>> from benchverdict.lmem.simulate import simulate_results
        >>> res = simulate_results(n_seeds=8, algorithm_effect={"B": -2.0}, seed=0)
        >>> fit(res, "score ~ algorithm + (1|benchmark)").letters().to_dict()
        {'B': 'a', 'C': 'b', 'A': 'b'}
        """
        # imported here, not at the top: the CD code draws with matplotlib (no cycle)
        from benchverdict.critical_difference import compact_letter_display
        from benchverdict.lmem.cd import cd_inputs

        means, not_different, _ = cd_inputs(*self._cd_tables(factor, df), alpha=alpha)
        return compact_letter_display(means, not_different,
                                      lower_is_better=self.objective != "maximize")

    def _cd_tables(self, factor: str, df: str) -> tuple[pd.Series, pd.DataFrame]:
        """Marginal means (indexed by level) and their Tukey contrasts, for the CD code."""
        means = self.emmeans(factor, df=df).set_index(factor)["emmean"]
        return means, self.pairwise(factor, "tukey", df=df)

    def verdicts(self, factor: str = "algorithm", *, alpha: float = 0.05,
                 adjust: str = "tukey", by: str | None = None, df: str = "auto",
                 scope: Scope | None = None) -> list[Verdict]:
        """One :class:`~benchverdict.verdict.Verdict` per pair (per level of ``by``).

        ``a`` wins when the adjusted p-value is below ``alpha`` and its
        marginal mean is better in the objective's direction; otherwise the
        verdict is ``"inconclusive"``. The effect is the difference of marginal
        means, oriented so that positive favours ``a``, with its
        simultaneous (Tukey) interval.

        Examples
        --------
        >>> from benchverdict.lmem import fit
        >>> from benchverdict.lmem.simulate import simulate_results
        >>> res = simulate_results(n_seeds=8, algorithm_effect={"B": -2.0}, seed=0)
        >>> [(v.a, v.b, v.outcome) for v in fit(res, "score ~ algorithm + (1|benchmark)"
        ...                                      ).verdicts()]
        [('A', 'B', 'b'), ('A', 'C', 'inconclusive'), ('B', 'C', 'a')]
        """
        check_alpha(alpha)
        if self.objective is None:
            raise ValueError("verdicts need the objective; fit the model on a Results.")
        pairs = self.pairwise(factor, adjust, by=by, df=df)
        sign = 1.0 if self.objective == "maximize" else -1.0
        k_of = pairs.groupby(by, sort=False).size() if by else None
        out = []
        for row in pairs.itertuples(index=False):
            r = row._asdict()
            n_pairs = int(k_of[r[by]]) if by else len(pairs)
            k = round((1 + np.sqrt(1 + 8 * n_pairs)) / 2)
            if adjust == "tukey":
                crit = studentized_range_quantile(1 - alpha, k, r["df"]) / np.sqrt(2)
            else:
                crit = stats.t.ppf(1 - alpha / 2 / (n_pairs if adjust != "none" else 1), r["df"])
            fav = sign * r["estimate"]
            lo, hi = sorted((sign * (r["estimate"] - crit * r["se"]),
                             sign * (r["estimate"] + crit * r["se"])))
            if r["p_value_adjusted"] < alpha:
                outcome = "a" if fav > 0 else "b"
            else:
                outcome = "inconclusive"
            if scope is not None:
                sc = scope
            elif by == "benchmark":
                sc = Scope(benchmark=str(r[by]))
            elif by is not None:
                sc = Scope(metafeature=((by, str(r[by])),))
            else:
                sc = Scope()
            better = {"a": r["a"], "b": r["b"]}.get(outcome)
            text = (f"{r['a']} - {r['b']} = {r['estimate']:+.4g} in marginal mean "
                    f"({'larger' if sign > 0 else 'smaller'} is better), se {r['se']:.3g}, "
                    f"{adjust}-adjusted p = {r['p_value_adjusted']:.3g}: "
                    + (f"{better} is better." if better else "no significant difference."))
            out.append(Verdict(
                a=str(r["a"]), b=str(r["b"]), outcome=outcome, method=f"lmem.{adjust}",
                scope=sc, evidence=Evidence("p_value", float(r["p_value_adjusted"]), alpha),
                objective=self.objective, explanation=text,
                effect=Effect("difference in marginal means", float(fav), float(lo),
                              float(hi), 1 - alpha),
                unit=f"row of a mixed model: {self.formula}", n=self.nobs,
                p_value=float(r["p_value"]),
                caveats=(SINGULAR_CAVEAT,) if self.singular else (),
                details={"formula": str(self.formula), "backend": self.backend,
                         "df": float(r["df"]), "statistic": float(r["statistic"]),
                         "reml": self.reml, "exact_fit": self.exact, **self.n_excluded},
            ))
        return out

    def plot(self, ax: plt.Axes | None = None, *, factor: str = "algorithm",
             alpha: float = 0.05, df: str = "auto") -> plt.Axes:
        """The LMEM critical-difference diagram (Geburek et al., App. A.3).

        Algorithms sit at their marginal means; a bar joins every clique of
        algorithms whose Tukey-adjusted differences are not significant; the
        scale bar spans the range of per-pair critical differences
        ``q_{1-alpha,k,df} / sqrt(2) * se``.

        Examples
        --------
        >>> from benchverdict.lmem import fit
        >>> from benchverdict.lmem.simulate import simulate_results
        >>> m = fit(simulate_results(n_seeds=4, seed=0), "score ~ algorithm + (1|benchmark)")
        >>> ax = m.plot()
        >>> ax.figure is not None
        True
        """
        from benchverdict.lmem.cd import lmem_cd_diagram

        means, pairs = self._cd_tables(factor, df)
        return lmem_cd_diagram(means, pairs, alpha=alpha,
                               lower_is_better=self.objective != "maximize",
                               response=self.formula.response, ax=ax)


def check_alpha(alpha: float) -> float:
    """``alpha`` as a significance level (strictly between 0 and 1), or a clear error.

    Examples
    --------
    >>> check_alpha(0.05)
    0.05
    """
    value = float(alpha)
    if not 0.0 < value < 1.0:
        raise ValueError(f"alpha is a significance level and must be between 0 and 1, got "
                         f"{alpha!r}.")
    return value


def wald_f_test(model: MixedModel, L: np.ndarray, *, df: str = "satterthwaite"
                ) -> tuple[float, int, float, float]:
    """The Wald F test of ``L beta = 0`` with lmerTest's Satterthwaite denominator df.

    ``F = (L b)' (L V L')^{-1} (L b) / q`` for the ``q`` rows of ``L`` (of
    full row rank). The denominator df follow lmerTest's ``contestMD``: with
    ``L V L' = P diag(d) P'``, each row of ``P' L`` is a contrast with its
    own Satterthwaite df ``nu_m``; the F statistic's df are ``nu_1`` for one
    row, the common value when they agree, else ``2 E / (E - q)`` with ``E =
    sum nu_m / (nu_m - 2)`` (2 when some ``nu_m <= 2`` or ``E <= q``). For a
    linear model (no random terms) this is the exact F test on ``n - p`` df.

    Parameters
    ----------
    model : MixedModel
        A native fit.
    L : numpy.ndarray
        ``q x p`` contrast matrix over ``model.fixef``.
    df : {"satterthwaite", "asymptotic", "auto"}
        ``"asymptotic"``: infinite denominator df (the chi-squared test of
        ``q F``).

    Returns
    -------
    F : float
    df_numerator : int
    df_denominator : float
    p_value : float

    Examples
    --------
    >>> import numpy as np
    >>> from benchverdict.lmem import fit
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> m = fit(simulate_results(n_seeds=4, algorithm_effect={"B": 3.0}, seed=0),
    ...         "score ~ algorithm + (1|benchmark)", reml=True)
    >>> F, q, ddf, p = wald_f_test(m, np.eye(3)[1:])
    >>> q, round(ddf), p < 1e-6
    (2, 64, True)
    """
    L = np.atleast_2d(np.asarray(L, dtype=float))
    if L.shape[1] != len(model.fixef):
        raise ValueError(f"L has {L.shape[1]} columns but the model has {len(model.fixef)} "
                         f"fixed effects ({list(model.fixef.index)}); give one column each.")
    s = float(model._scale.scale)
    V = model._vcov_std if model._vcov_std is not None else model.vcov.to_numpy() / s**2
    est = L @ model.fixef.to_numpy() / s
    VLL = L @ V @ L.T
    d, P = np.linalg.eigh((VLL + VLL.T) / 2)
    keep = d > 1e-12 * max(float(d.max(initial=0.0)), 1e-300)
    q = int(keep.sum())
    if model.exact or q == 0:
        zero = bool(np.all(np.abs(est) <= 1e-9))
        return (0.0 if zero else np.inf), max(q, L.shape[0]), np.inf, (1.0 if zero else 0.0)
    d, P = d[keep], P[:, keep]
    t2 = (P.T @ est) ** 2 / d
    F = float(t2.sum() / q)
    nu = model._df_for(P.T @ L, df)
    if q == 1 or np.allclose(nu, nu[0], rtol=1e-8):
        ddf = float(nu[0])
    elif not np.all(np.isfinite(nu)):
        ddf = np.inf if np.all(~np.isfinite(nu)) else float(_contest_ddf(nu[np.isfinite(nu)],
                                                                          q))
    else:
        ddf = _contest_ddf(nu, q)
    p = float(stats.f.sf(F, q, ddf)) if np.isfinite(ddf) else float(stats.chi2.sf(F * q, q))
    return F, q, ddf, p


def _contest_ddf(nu: np.ndarray, q: int) -> float:
    """The denominator df of a multi-row F test from its rows' df (lmerTest's rule)."""
    if np.any(nu <= 2):
        return 2.0
    E = float(np.sum(nu / (nu - 2)))
    return 2 * E / (E - q) if E > q else 2.0


def adjust_p(pairs: pd.DataFrame, adjust: str) -> np.ndarray:
    """Adjusted p-values of the contrasts in ``pairs`` (families in ``_family``)."""
    t = pairs["statistic"].to_numpy()
    dfs = pairs["df"].to_numpy()
    raw = 2 * stats.t.sf(np.abs(t), dfs)
    out = np.empty(len(pairs))
    for _, idx in pairs.groupby("_family", dropna=False, sort=False).indices.items():
        if adjust == "tukey":
            k = int(pairs["_k"].iloc[idx[0]])
            tukey = studentized_range_sf(np.sqrt(2) * np.abs(t[idx]), k, dfs[idx])
            # The Tukey p-value lies between the raw p and m * raw p (Bonferroni), and
            # m * raw p is its tail limit: used where the sf underflows (beyond 1e-300).
            m = k * (k - 1) / 2
            out[idx] = np.where(tukey < raw[idx], np.minimum(1.0, m * raw[idx]), tukey)
        elif adjust == "bonferroni":
            out[idx] = np.minimum(1.0, raw[idx] * len(idx))
        elif adjust == "holm":
            out[idx] = holm(raw[idx])
        else:
            out[idx] = raw[idx]
    return np.clip(out, 0.0, 1.0)


class DegenerateFitError(ValueError):
    """The fixed and random effects reproduce the scores: no residual variance to estimate."""


def check_full_rank(XtX: np.ndarray, names: list[str]) -> None:
    """Raise a clear error if the fixed-effects design is rank deficient."""
    import scipy.linalg as la

    d = np.sqrt(np.maximum(np.diag(XtX), 1e-300))
    scaled = XtX / np.outer(d, d)
    zero = [names[i] for i in np.flatnonzero(np.diag(XtX) <= 0)]
    _, R, piv = la.qr(scaled, pivoting=True)
    diag = np.abs(np.diag(R))
    rank = int((diag > 1e-10 * diag.max()).sum())
    if zero or rank < len(names):
        dropped = sorted(set(zero) | {names[i] for i in piv[rank:]})
        raise FormulaError(
            f"the fixed effects are not estimable: column(s) {dropped} are constant zero or "
            "linear combinations of the others (e.g. a factor level combination that never "
            "occurs, or a covariate that is constant within the data). Remove the term or "
            "subset the data."
        )
