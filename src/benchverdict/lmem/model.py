"""Fitted mixed models: ``fit()``, estimates, marginal means, Tukey contrasts, verdicts."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from benchverdict.lmem.design import Column, Design, Variable, build_design, cross_products
from benchverdict.lmem.formula import Formula, FormulaError, parse_formula
from benchverdict.lmem.native import (
    SINGULAR_TOL,
    ProfiledDeviance,
    satterthwaite_df,
    small_problem_threads,
)
from benchverdict.stats.studentized_range import studentized_range_quantile
from benchverdict.verdict import Effect, Evidence, Scope, Verdict

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

    from benchverdict.results import Results

Backend = Literal["native", "lme4"]
#: Above this many rows the default degrees of freedom are asymptotic (emmeans' rule).
ASYMPTOTIC_ROWS = 3000


def model_frame(results: Results | pd.DataFrame) -> tuple[pd.DataFrame, str | None, str]:
    """The long table a model is fitted on, the objective, and a description."""
    if isinstance(results, pd.DataFrame):
        return results, None, f"DataFrame with {len(results)} rows"
    return results.table, results.objective, repr(results)


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
    _deviance: ProfiledDeviance | None = field(default=None, repr=False)
    _r_model: Any = field(default=None, repr=False)

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
    def table(self) -> pd.DataFrame:
        """Fixed effects: ``term, estimate, se, statistic`` (Wald)."""
        se = np.sqrt(np.diag(self.vcov.to_numpy()))
        return pd.DataFrame({
            "term": self.fixef.index, "estimate": self.fixef.to_numpy(), "se": se,
            "statistic": self.fixef.to_numpy() / se,
        })

    def __repr__(self) -> str:
        how = "REML" if self.reml else "ML"
        sing = ", singular" if self.singular else ""
        return (f"MixedModel({self.formula}; {how}, backend={self.backend}, n={self.nobs}, "
                f"logLik={self.loglik:.6g}, {self.n_params} params{sing})")

    def summary(self) -> str:
        """A printable summary: fit, fixed effects and variance components."""
        lines = [repr(self), "", "Fixed effects:", self.table.to_string(index=False), "",
                 "Variance components:", self.varcomp.to_string(index=False)]
        if self.singular:
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

    def _df_for(self, C: np.ndarray, df: str) -> np.ndarray:
        if self._deviance is not None and self._deviance.q == 0:
            # A linear model: exact t inference with n - p residual df.
            return np.full(C.shape[0], float(self.nobs - len(self.fixef)))
        if df == "auto":
            df = "asymptotic" if self.nobs > ASYMPTOTIC_ROWS else "satterthwaite"
        if df == "asymptotic":
            return np.full(C.shape[0], np.inf)
        if df != "satterthwaite":
            raise ValueError(f"df must be 'auto', 'asymptotic' or 'satterthwaite', got {df!r}.")
        if self._deviance is None:
            raise ValueError(
                "Satterthwaite df here need the native backend's deviance; for an lme4 fit, "
                "use df=\"asymptotic\" or refit with backend=\"native\"."
            )
        with small_problem_threads(self._deviance.q):
            return satterthwaite_df(self._deviance, self.theta, self.sigma, C)

    def emmeans(self, factor: str = "algorithm", *, by: str | None = None,
                df: str = "auto", level: float = 0.95) -> pd.DataFrame:
        """Estimated marginal means on emmeans' equal-weight reference grid.

        Every other factor among the fixed effects is averaged with equal
        weights over its levels, numeric covariates are held at their means.

        Parameters
        ----------
        factor : str
        by : str, optional
            Another fixed factor: means within each of its levels.
        df : {"auto", "asymptotic", "satterthwaite"}
            ``"auto"``: asymptotic above 3,000 rows (emmeans' default limit),
            Satterthwaite below (emmeans' choice when pbkrtest is not
            installed; Kenward-Roger is not implemented).
        level : float
            Confidence level of the (unadjusted) intervals.

        Returns
        -------
        pandas.DataFrame
            ``factor [, by], emmean, se, df, lower, upper``.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> m = fit(_example_small(), "score ~ algorithm + (1|benchmark)")
        >>> list(m.emmeans().columns)
        ['algorithm', 'emmean', 'se', 'df', 'lower', 'upper']
        """
        if self._r_model is not None:
            from benchverdict.lmem import rbackend

            return rbackend.emmeans(self, factor, by=by, df=df, level=level)
        L, frame = self._grid_matrix(factor, by)
        V = self.vcov.to_numpy()
        est = L @ self.fixef.to_numpy()
        se = np.sqrt(np.einsum("ij,jk,ik->i", L, V, L))
        dfs = self._df_for(L, df)
        crit = stats.t.ppf(0.5 + level / 2, dfs)
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
            ``contrast, estimate, se, statistic, df, p_value`` plus ``a, b``
            (the two levels; ``estimate`` is ``a - b``) and ``by`` columns.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> m = fit(_example_small(), "score ~ algorithm + (1|benchmark)")
        >>> list(m.pairwise().columns)[:6]
        ['contrast', 'estimate', 'se', 'statistic', 'df', 'p_value']
        """
        if adjust not in ("tukey", "holm", "bonferroni", "none"):
            raise ValueError(f"adjust must be tukey, holm, bonferroni or none, got {adjust!r}.")
        if self._r_model is not None:
            from benchverdict.lmem import rbackend

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
        V = self.vcov.to_numpy()
        est = C @ self.fixef.to_numpy()
        se = np.sqrt(np.einsum("ij,jk,ik->i", C, V, C))
        dfs = self._df_for(C, df)
        out = pd.DataFrame(rows)
        out.insert(1, "estimate", est)
        out.insert(2, "se", se)
        out.insert(3, "statistic", est / se)
        out.insert(4, "df", dfs)
        out.insert(5, "p_value", adjust_p(out, adjust))
        return out.drop(columns=["_family", "_k"])

    def letters(self, factor: str = "algorithm", *, alpha: float = 0.05,
                df: str = "auto") -> pd.Series:
        """Compact letter display: levels sharing a letter are not significantly different.

        Tukey-adjusted contrasts; letters follow the marginal means from best
        (``a``) to worst in the objective's direction (Piepho's
        insert-and-absorb algorithm, shared with the rank tests).

        Examples
        --------
        >>> from benchverdict.lmem.simulate import simulate_results
        >>> res = simulate_results(n_seeds=8, algorithm_effect={"B": -2.0}, rng=0)
        >>> fit(res, "score ~ algorithm + (1|benchmark)").letters().to_dict()
        {'B': 'a', 'C': 'b', 'A': 'b'}
        """
        from benchverdict.critical_difference import compact_letter_display
        from benchverdict.lmem.cd import cd_inputs

        means, not_different, _ = cd_inputs(self, factor, alpha=alpha, df=df)
        return compact_letter_display(means, not_different,
                                      lower_is_better=self.objective != "maximize")

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
        >>> from benchverdict.lmem.simulate import simulate_results
        >>> res = simulate_results(n_seeds=8, algorithm_effect={"B": -2.0}, rng=0)
        >>> [(v.a, v.b, v.outcome) for v in fit(res, "score ~ algorithm + (1|benchmark)"
        ...                                      ).verdicts()]
        [('A', 'B', 'b'), ('A', 'C', 'inconclusive'), ('B', 'C', 'a')]
        """
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
            if r["p_value"] < alpha:
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
                    f"{adjust}-adjusted p = {r['p_value']:.3g}: "
                    + (f"{better} is better." if better else "no significant difference."))
            out.append(Verdict(
                a=str(r["a"]), b=str(r["b"]), outcome=outcome, method=f"lmem.{adjust}",
                scope=sc, evidence=Evidence("p_value", float(r["p_value"]), alpha),
                objective=self.objective, explanation=text,
                effect=Effect("difference in marginal means", float(fav), float(lo),
                              float(hi), 1 - alpha),
                unit=f"row of a mixed model: {self.formula}", n=self.nobs,
                details={"formula": str(self.formula), "backend": self.backend,
                         "df": float(r["df"]), "statistic": float(r["statistic"]),
                         "reml": self.reml},
            ))
        return out

    def plot(self, factor: str = "algorithm", *, alpha: float = 0.05,
             ax: plt.Axes | None = None, df: str = "auto") -> plt.Axes:
        """The LMEM critical-difference diagram (Geburek et al., App. A.3).

        Algorithms sit at their marginal means; a bar joins every clique of
        algorithms whose Tukey-adjusted differences are not significant; the
        scale bar spans the range of per-pair critical differences
        ``q_{1-alpha,k,df} / sqrt(2) * se``.

        Examples
        --------
        >>> from benchverdict.lmem.simulate import simulate_results
        >>> ax = fit(simulate_results(n_seeds=4, rng=0), "score ~ algorithm + (1|benchmark)").plot()
        >>> ax.figure is not None
        True
        """
        from benchverdict.lmem.cd import lmem_cd_diagram

        return lmem_cd_diagram(self, factor=factor, alpha=alpha, ax=ax, df=df)


def adjust_p(pairs: pd.DataFrame, adjust: str) -> np.ndarray:
    """Adjusted p-values of the contrasts in ``pairs`` (families in ``_family``)."""
    t = pairs["statistic"].to_numpy()
    dfs = pairs["df"].to_numpy()
    raw = 2 * stats.t.sf(np.abs(t), dfs)
    out = np.empty(len(pairs))
    for _, idx in pairs.groupby("_family", dropna=False, sort=False).indices.items():
        if adjust == "tukey":
            k = int(pairs["_k"].iloc[idx[0]])
            tukey = stats.studentized_range.sf(np.sqrt(2) * np.abs(t[idx]), k, dfs[idx])
            # Far in the tail the numerical integral underflows to 0; the Tukey p-value lies
            # between the raw p and m * raw p (Bonferroni), and m * raw p is its tail limit.
            m = k * (k - 1) / 2
            out[idx] = np.where(tukey < raw[idx], np.minimum(1.0, m * raw[idx]), tukey)
        elif adjust == "bonferroni":
            out[idx] = np.minimum(1.0, raw[idx] * len(idx))
        elif adjust == "holm":
            order = np.argsort(raw[idx])
            m = len(idx)
            adj = np.maximum.accumulate((m - np.arange(m)) * raw[idx][order])
            res = np.empty(m)
            res[order] = np.minimum(1.0, adj)
            out[idx] = res
        else:
            out[idx] = raw[idx]
    return np.clip(out, 0.0, 1.0)


def _fingerprint(design: Design) -> tuple[int, float]:
    return (design.n, float(np.round(design.y.sum(), 8)))


def _random_signature(design: Design) -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple((b.group, frozenset(c.name for c in b.columns)) for b in design.blocks)


def fit(results: Results | pd.DataFrame, formula: str, *, reml: bool = False,
        backend: Backend = "native", chunk_rows: int | None = None) -> MixedModel:
    """Fit a linear mixed model with an lme4-style formula over the Results' columns.

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

    Returns
    -------
    MixedModel

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> m = fit(_example_small(), "score ~ algorithm + (1|benchmark)")
    >>> m.n_params, m.fixef.index.tolist()
    (4, ['(Intercept)', 'algorithmb'])
    """
    frame, objective, _ = model_frame(results)
    parsed = parse_formula(formula, frame.columns)
    if backend == "lme4":
        from benchverdict.lmem import rbackend

        design = build_design(frame, parsed)
        return rbackend.fit_lme4(frame, parsed, design, reml=reml, objective=objective,
                                 grid=GridSpec.from_design(design),
                                 random_signature=_random_signature(design),
                                 fingerprint=_fingerprint(design))
    if backend != "native":
        raise ValueError(f"backend must be 'native' or 'lme4', got {backend!r}.")
    design = build_design(frame, parsed)
    cp = cross_products(design, **({"chunk_rows": chunk_rows} if chunk_rows else {}))
    check_full_rank(cp.XtX, design.fixed_names)
    dev = ProfiledDeviance(cp, design.blocks, reml)
    with small_problem_threads(dev.q):
        theta, res = dev.minimize()
        sol = dev.solve(theta)
        sigma = dev.sigma_of(sol)
        names = design.fixed_names
        if dev.q == 0:
            # No random effects: inference with the unbiased residual variance (as lm/emmeans).
            vcov = dev.vcov_beta(theta, float(np.sqrt(sol.pwrss / (design.n - design.p))))
        else:
            vcov = dev.vcov_beta(theta, sigma)
        varcomp, singular = _varcomp(design, dev, sol, sigma)
    n_theta = dev.layout.n_theta
    return MixedModel(
        formula=parsed, backend="native", reml=reml, loglik=-0.5 * dev.deviance_of(sol),
        fixef=pd.Series(sol.beta, index=names, name="estimate"),
        vcov=pd.DataFrame(vcov, index=names, columns=names), sigma=sigma, theta=theta,
        varcomp=varcomp, n_params=design.p + n_theta + 1, singular=singular, nobs=design.n,
        objective=objective, grid=GridSpec.from_design(design),
        random_signature=_random_signature(design), data_fingerprint=_fingerprint(design),
        converged=bool(getattr(res, "success", True)), message=str(getattr(res, "message", "")),
        _deviance=dev,
    )


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


def _varcomp(design: Design, dev: ProfiledDeviance, sol, sigma: float) -> tuple[pd.DataFrame,
                                                                               bool]:
    rows = []
    singular = False
    for block, T in zip(design.blocks, sol.factors):
        cov = sigma**2 * T @ T.T
        names = [c.name for c in block.columns]
        sds = np.sqrt(np.diag(cov))
        for j in range(block.p):
            for i in range(j, block.p):
                value = cov[i, j]
                sd_cor = sds[i] if i == j else (value / (sds[i] * sds[j])
                                                if sds[i] > 0 and sds[j] > 0 else np.nan)
                rows.append({"group": block.group, "term1": names[j], "term2": names[i],
                             "value": value, "sd_cor": sd_cor})
        if np.any(np.abs(np.diag(T)) < SINGULAR_TOL):
            singular = True
    rows.append({"group": "Residual", "term1": "", "term2": "", "value": sigma**2,
                 "sd_cor": sigma})
    return pd.DataFrame(rows), singular
