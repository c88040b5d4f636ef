"""Autorank's own decision path, run through the autorank package and explained.

Autorank (Herbold 2020) picks the test for you: Shapiro–Wilk normality
tests on every algorithm's column (Bonferroni, ``alpha / k``), then Bartlett's
(all normal) or Levene's test for equal variances, then

* two algorithms: the paired t-test (all normal) or Wilcoxon's signed-rank
  test;
* more: repeated-measures ANOVA with Tukey's HSD (all normal and
  homoscedastic), otherwise Friedman's test with Nemenyi's critical
  difference.

:func:`autorank` runs exactly that code on the block matrix built from
:class:`~benchverdict.Results` (so its numbers are autorank's), and reports
which test was chosen and why, with the caveats autorank does not print:

* its Tukey HSD step calls statsmodels' ``MultiComparison`` on the stacked
  data, which treats the algorithms' samples as independent groups and
  ignores the pairing by block (statsmodels issue #7566), so the intervals
  ignore the block effects the repeated-measures ANOVA removed;
* its effect sizes (Cohen's d, Cliff's delta, Akinshin's gamma) also treat
  the blocks' values as two unpaired samples;
* its post-hoc results are computed whatever the omnibus test says.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from scipy import stats

from benchverdict import critical_difference as cdd
from benchverdict._bulk import paused_gc
from benchverdict._repr import ResultText
from benchverdict.ranks import _stats
from benchverdict.ranks.friedman import _as_blocks, _p
from benchverdict.results import BlockMatrix, Results
from benchverdict.verdict import Effect, Evidence, Scope, Verdict, register_method

_AUTORANK_UNIT = "block: a benchmark (seeds aggregated)"
# Autorank repeats tests the rank family already runs (Nemenyi, Tukey on the same blocks):
# its verdicts are shown, but the family votes through its own pairwise tests.
for _name, _label, _aspect, _paired, _control, _scale in (
    ("nemenyi", "Autorank: Friedman + Nemenyi", "ranks", True, "family-wise over pairs",
     "ranks"),
    ("tukey", "Autorank: ANOVA + Tukey HSD", "centre", False, "family-wise over pairs", "raw"),
    ("friedman", "Autorank: Friedman (no post-hoc)", "ranks", True, "per comparison", "ranks"),
    ("anova", "Autorank: repeated-measures ANOVA (no post-hoc)", "centre", True,
     "per comparison", "raw"),
    ("wilcoxon", "Autorank: Wilcoxon signed-rank (two algorithms)", "ranks", True,
     "per comparison", "ranks"),
    ("ttest", "Autorank: paired t-test (two algorithms)", "centre", True, "per comparison",
     "raw"),
    ("bayes", "Autorank: Bayesian signed-rank test", "ranks", True, "descriptive", "ranks"),
):
    register_method(f"ranks.autorank_{_name}", "ranks", _label, paired=_paired,
                    unit=_AUTORANK_UNIT, aspect=_aspect,
                    assumptions="Autorank's decision path: normality (Shapiro-Wilk) and equal "
                                "variances (Bartlett/Levene) choose the test",
                    error_control=_control, scale=_scale,
                    adjustment={"nemenyi": "nemenyi", "tukey": "tukey"}.get(_name))

TUKEY_FLAG = (
    "autorank's Tukey HSD step (statsmodels MultiComparison) treats the algorithms' samples "
    "as independent groups and ignores the pairing by block (statsmodels issue #7566): its "
    "confidence intervals do not remove the between-block variance that the repeated-measures "
    "ANOVA removed, so they are too wide when blocks differ (and are not the paired "
    "comparison the ANOVA tested). Use friedman(..., posthoc='wilcoxon') or the LMEM module "
    "for paired pairwise comparisons."
)

#: Autorank's parametric omnibus tests: run on data its checks rejected, a caveat.
PARAMETRIC_OMNIBUS = ("anova", "ttest")


@dataclass(repr=False, frozen=True)
class AutorankResult(ResultText):
    """Autorank's result, with the path it took and why.

    Attributes
    ----------
    raw : autorank.RankResult
        Autorank's own result object, untouched: it was computed on the scores
        times ``score_scale``.
    omnibus, posthoc : str
        Autorank's names: ``"friedman"``/``"nemenyi"``, ``"anova"``/
        ``"tukeyhsd"``, ``"ttest"`` or ``"wilcoxon"`` (no post-hoc).
    reasons : tuple of str
        Why each step chose what it chose (normality, homoscedasticity).
    flags : tuple of str
        Caveats of this path on these data.
    log : str
        Everything autorank printed (its verbose decision log).
    blocks : BlockMatrix
    unit : str
        The replication unit, in words.
    alpha : float
    objective : str
    notes : tuple of str
    score_scale : float
        The power of two the scores were multiplied by before autorank saw
        them (exact; it keeps scale-free tests out of floating-point under-
        and overflow). ``rankdf`` and ``table`` are mapped back to score units.
    """

    raw: Any
    omnibus: str
    posthoc: str | None
    reasons: tuple[str, ...]
    flags: tuple[str, ...]
    log: str
    blocks: BlockMatrix
    unit: str
    alpha: float
    objective: str
    notes: tuple[str, ...] = field(default=())
    score_scale: float = 1.0

    def _summary_lines(self) -> list[str]:
        from benchverdict._repr import names

        path = self.omnibus + (f"+{self.posthoc}" if self.posthoc else "")
        p = "" if self.bayesian else f", p = {self.p_value:.3g}"
        return [f"autorank: {path}{p}; {len(self.rankdf)} algorithms; "
                f"{cdd.short_unit(self.unit)}",
                "ranking (mean rank): " + names(
                    f"{a} {r:.2f}" for a, r in self.rankdf["meanrank"].items())
                if "meanrank" in self.rankdf else f"ranking: {names(self.rankdf.index)}"]

    @property
    def p_value(self) -> float:
        """The omnibus test's p-value (NaN for the Bayesian approach, which has none)."""
        return float("nan") if self.raw.pvalue is None else float(self.raw.pvalue)

    @property
    def bayesian(self) -> bool:
        """Whether autorank's Bayesian signed-rank path was run."""
        return self.omnibus == "bayes"

    @property
    def is_friedman_nemenyi(self) -> bool:
        """Whether autorank took its Friedman + Nemenyi path.

        Its diagram is then a Demšar critical-difference diagram of mean
        ranks with Nemenyi's CD: the picture :meth:`FriedmanResult.plot
        <benchverdict.ranks.friedman.FriedmanResult.plot>` draws for
        ``posthoc="nemenyi"`` on the same blocks (check with
        :meth:`same_diagram_as`), so a report can show it once.
        """
        return (not self.bayesian and self.omnibus == "friedman"
                and self.posthoc == "nemenyi")

    def same_diagram_as(self, other: Any, *, atol: float = 1e-9) -> bool:
        """Whether this result's diagram shows what ``other``'s (a FriedmanResult) shows.

        True when autorank took the Friedman + Nemenyi path
        (:attr:`is_friedman_nemenyi`) and ``other`` is a Nemenyi result with
        the same algorithms, the same average ranks (within ``atol``), the
        same CD (to 0.1%: autorank takes the studentized-range quantile from
        its own table) and the same not-different pairs: the two
        critical-difference diagrams are then the same picture, and one of
        them is a duplicate.

        Examples
        --------
        >>> from benchverdict.ranks import autorank, friedman
        >>> from benchverdict.examples import load_example
        >>> runs = load_example()
        >>> auto = autorank(runs)
        >>> auto.is_friedman_nemenyi, auto.same_diagram_as(friedman(runs, n_resamples=0))
        (True, True)
        >>> auto.same_diagram_as(friedman(runs, posthoc="wilcoxon", n_resamples=0))
        False
        """
        if not self.is_friedman_nemenyi or getattr(other, "posthoc", None) != "nemenyi":
            return False
        ours = self.rankdf["meanrank"].astype(float)
        theirs = other.average_ranks.astype(float)
        ours.index = [str(i) for i in ours.index]
        theirs.index = [str(i) for i in theirs.index]
        if set(ours.index) != set(theirs.index):
            return False
        theirs = theirs.loc[ours.index]
        cd_ours, cd_theirs = self.critical_difference, other.critical_difference
        if cd_ours is None or not np.isclose(cd_ours, cd_theirs, rtol=1e-3, atol=atol):
            return False
        if not np.allclose(ours.to_numpy(), theirs.to_numpy(), rtol=0, atol=atol):
            return False
        nd_ours = self.not_different().loc[ours.index, ours.index].to_numpy(dtype=bool)
        nd_theirs = other.not_different().loc[ours.index, ours.index].to_numpy(dtype=bool)
        return bool((nd_ours == nd_theirs).all())

    @property
    def critical_difference(self) -> float | None:
        """Nemenyi's CD when autorank used it, else ``None``."""
        return None if self.raw.cd is None else float(self.raw.cd)

    @property
    def rankdf(self) -> pd.DataFrame:
        """Autorank's ranking table (a copy), in score units."""
        out = self.raw.rankdf.copy()
        if self.score_scale != 1.0:
            for col in _SCORE_UNIT_COLUMNS:
                if col in out.columns:
                    values = pd.to_numeric(out[col], errors="coerce")
                    out[col] = out[col].where(values.isna(), values / self.score_scale)
        return out

    @property
    def table(self) -> pd.DataFrame:
        """Autorank's ranking table as a tidy frame (``algorithm`` column; unit in attrs)."""
        out = self.rankdf
        out.index.name = "algorithm"
        # the one vocabulary: interval endpoints are lower/upper (autorank: ci_lower/ci_upper)
        # and the average rank is average_rank, as in every other rank table (autorank: meanrank)
        out = out.reset_index().rename(columns={"ci_lower": "lower", "ci_upper": "upper",
                                                "meanrank": "average_rank"})
        for col in out.columns:
            if col in ("algorithm", "magnitude", "magnitude_above") or col.startswith("decision"):
                continue
            # autorank writes "NA" placeholders in some columns; those columns stay text.
            with contextlib.suppress(TypeError, ValueError):
                out[col] = pd.to_numeric(out[col])
        out.attrs["unit"] = self.unit
        out.attrs["omnibus"] = self.omnibus
        out.attrs["posthoc"] = self.posthoc
        return out

    def summary(self) -> str:
        """What autorank did and why, its result, and the caveats."""
        lines = [f"Autorank on {self.unit}; objective: {self.objective}; alpha = {self.alpha:g}"]
        lines += [f"  {r}" for r in self.reasons]
        if self.bayesian:
            lines.append(
                f"  result: pairwise decisions at posterior probability >= {1 - self.alpha:g} "
                f"(ROPE {self._rope:g}, mode {self.raw.rope_mode})"
            )
            column = _center_column(self.raw.rankdf)
            ranking = self.rankdf[column].astype(float).sort_values(
                ascending=self.objective == "minimize")
            lines.append(f"  ranking by {column}: " + ", ".join(
                f"{name} {value:.4g}" for name, value in ranking.items()))
        else:
            lines.append(
                f"  result: {self.omnibus} p = {_p(self.p_value)}"
                + (f"; Nemenyi CD = {self.critical_difference:.3f}"
                   if self.critical_difference is not None else "")
            )
            ranking = self.raw.rankdf.sort_values("meanrank")
            lines.append("  ranking (1 = best): " + ", ".join(
                f"{name} {row['meanrank']:.3f}" for name, row in ranking.iterrows()))
        lines += [f"  flag: {f}" for f in self.flags]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    @property
    def _rope(self) -> float:
        """The ROPE in the units it was given (an absolute ROPE was scaled with the scores)."""
        rope = float(self.raw.rope)
        return rope / self.score_scale if self.raw.rope_mode == "absolute" else rope

    # ------------------------------------------------------------------ decisions
    def not_different(self) -> pd.DataFrame:
        """Autorank's pairwise decisions as a boolean matrix (``True``: not different)."""
        ranking = self.raw.rankdf
        names = list(ranking.index)
        if self.bayesian:
            decisions = self.raw.decision_matrix.reindex(index=names, columns=names)
            decided = decisions.isin(["smaller", "larger"]).to_numpy()
            decided = decided | decided.T
            return pd.DataFrame(~decided, index=names, columns=names)
        differ = self._differ_matrix() & (self.p_value < self.alpha)
        return pd.DataFrame(~differ, index=names, columns=names)

    def _differ_matrix(self) -> np.ndarray:
        """Autorank's rule for every pair at once (rows and columns in rankdf order)."""
        ranking = self.raw.rankdf
        k = len(ranking)
        if self.posthoc == "nemenyi":
            r = ranking["meanrank"].to_numpy(dtype=float)
            differ = np.abs(r[:, None] - r[None, :]) > self.raw.cd
        elif self.posthoc == "tukeyhsd":
            lo = ranking["ci_lower"].to_numpy(dtype=float)
            hi = ranking["ci_upper"].to_numpy(dtype=float)
            differ = (hi[:, None] < lo[None, :]) | (hi[None, :] < lo[:, None])
        else:  # two algorithms: the omnibus test is the pairwise test
            differ = np.ones((k, k), dtype=bool)
        np.fill_diagonal(differ, False)
        return differ

    def _better_matrix(self) -> np.ndarray:
        """``a_better[i, j]``: autorank ranks row ``i`` above column ``j`` (rankdf order)."""
        ranking = self.raw.rankdf
        if self.posthoc == "nemenyi":
            r = ranking["meanrank"].to_numpy(dtype=float)
            return r[:, None] < r[None, :]
        column = "mean" if self.posthoc == "tukeyhsd" or "mean" in ranking.columns else "median"
        m = ranking[column].to_numpy(dtype=float)
        if self.objective == "maximize":
            return m[:, None] > m[None, :]
        return m[:, None] < m[None, :]

    def verdicts(self) -> list[Verdict]:
        """One verdict per pair, following autorank's own decision rule."""
        budget = self.blocks.budget
        scope = Scope(budget_low=budget, budget_high=budget) if budget is not None else Scope()
        ranking = self.raw.rankdf
        names = sorted(ranking.index)
        n = int(self.blocks.matrix.shape[0])
        if self.bayesian:
            with paused_gc():
                return [self._bayes_verdict(a, b, scope, n)
                        for a, b in itertools.combinations(names, 2)]
        where = {name: i for i, name in enumerate(ranking.index)}
        raw_differ = self._differ_matrix()
        differ = raw_differ & (self.p_value < self.alpha)
        better = self._better_matrix()
        meanrank = ranking["meanrank"].to_numpy(dtype=float).tolist()
        pair_p = (_stats.nemenyi_p_values(np.asarray(meanrank), n)
                  if self.posthoc == "nemenyi" else None)
        effects = _effects(self.raw, self.objective)
        method = {"nemenyi": "ranks.autorank_nemenyi", "tukeyhsd": "ranks.autorank_tukey"
                  }.get(self.posthoc or "", f"ranks.autorank_{self.omnibus}")
        chose = f"autorank chose {self.omnibus}{'+' + self.posthoc if self.posthoc else ''}; "
        omnibus_failed = self.p_value >= self.alpha and self.posthoc is not None
        details = {"omnibus": self.omnibus, "posthoc": self.posthoc,
                   "omnibus_p_value": self.p_value, "all_normal": bool(self.raw.all_normal),
                   "homoscedastic": _maybe_bool(self.raw.homoscedastic),
                   "flags": list(self.flags),
                   "invariant_under": ("increasing transforms (with one seed per block)"
                                       if self.omnibus == "friedman" else
                                       "increasing affine transforms")}
        # Autorank's decision path (which test its checks chose) is in details["flags"];
        # only a parametric test run on data its own checks rejected (a forced mode) is a
        # caveat on the verdict.
        caveats = []
        if self.omnibus in PARAMETRIC_OMNIBUS and not bool(self.raw.all_normal):
            caveats.append("it ran a parametric test although Shapiro-Wilk rejected normality")
        if self.omnibus in PARAMETRIC_OMNIBUS and _maybe_bool(self.raw.homoscedastic) is False:
            caveats.append("it ran a parametric test although the equal-variance test rejected")
        cd = None if self.raw.cd is None else float(self.raw.cd)
        out = []
        with paused_gc():
            for a, b in itertools.combinations(names, 2):
                i, j = where[a], where[b]
                decided = bool(differ[i, j])
                outcome = ("a" if better[i, j] else "b") if decided else "inconclusive"
                ra, rb = meanrank[i], meanrank[j]
                if pair_p is not None:
                    evidence = Evidence("p_value", float(pair_p[i, j]), self.alpha)
                    why = (f"|mean rank difference| {abs(ra - rb):.3f} "
                           f"{'>' if abs(ra - rb) > cd else '<='} CD {cd:.3f}")
                elif self.posthoc == "tukeyhsd":
                    evidence = Evidence("confidence", None, 1 - self.alpha)
                    overlap = "do not overlap" if raw_differ[i, j] else "overlap"
                    why = f"Tukey HSD intervals {overlap} (unpaired; see flags)"
                else:
                    evidence = Evidence("p_value", self.p_value, self.alpha)
                    why = f"{self.omnibus} p = {_p(self.p_value)}"
                if omnibus_failed:
                    why = f"omnibus {self.omnibus} p = {_p(self.p_value)} >= {self.alpha:g}"
                out.append(
                    Verdict(
                        a=a, b=b, outcome=outcome, method=method, scope=scope,
                        evidence=evidence, objective=self.objective, unit=self.unit, n=n,
                        explanation=chose + why, effect=effects(a, b), details=details,
                        caveats=tuple(caveats),
                    )
                )
        return out

    def _bayes_verdict(self, a: str, b: str, scope: Scope, n: int) -> Verdict:
        decision = str(self.raw.decision_matrix.loc[a, b])
        probs = self.raw.posterior_matrix.loc[a, b]
        if not isinstance(probs, (tuple, list, np.ndarray)):  # only one triangle is filled
            probs = tuple(self.raw.posterior_matrix.loc[b, a])[::-1]
        probs = [float(v) for v in probs]
        # autorank's decision_matrix.loc[a, b] describes b relative to a ("smaller": b's
        # values are credibly smaller), and its posterior tuple is (P(b < a), P(equal),
        # P(b > a)) from baycomp's differences b - a.
        smaller_better = self.objective == "minimize"
        if decision in ("smaller", "larger"):
            b_wins = (decision == "smaller") == smaller_better
            outcome = "b" if b_wins else "a"
            value = probs[0] if decision == "smaller" else probs[-1]
        elif decision == "equal":
            outcome, value = "tie", probs[1]
        else:
            outcome, value = "inconclusive", max(probs)
        labels = ([f"{b} < {a}", f"{b} = {a} (ROPE)", f"{b} > {a}"] if len(probs) == 3
                  else [f"{b} < {a}", f"{b} > {a}"])
        text = ", ".join(f"P({lab}) = {v:.3f}" for lab, v in zip(labels, probs))
        return Verdict(
            a=a, b=b, outcome=outcome, method="ranks.autorank_bayes", scope=scope,
            evidence=Evidence("posterior", value, 1 - self.alpha), objective=self.objective,
            unit=self.unit, n=n,
            explanation=(f"autorank's Bayesian signed-rank test (ROPE {self._rope:g}, "
                         f"{self.raw.rope_mode}) on values: {text}"),
            details={"omnibus": "bayes", "decision": decision, "posterior": probs,
                     "rope": self._rope, "rope_mode": str(self.raw.rope_mode),
                     "flags": list(self.flags)},
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """A critical-difference diagram of autorank's decisions.

        Nemenyi: average ranks with autorank's CD. ANOVA/Tukey: the means,
        grouped by autorank's interval-overlap rule. Two algorithms: their
        mean ranks, joined when the test does not reject.
        """
        ranking = self.rankdf
        nd = self.not_different()
        if self.bayesian:
            column = _center_column(ranking)
            return cdd.draw_cd_diagram(
                ranking[column].astype(float), nd,
                lower_is_better=self.objective == "minimize",
                axis_label=f"{column} score (joined: not credibly different)",
                title=f"autorank: Bayesian signed-rank tests; {cdd.short_unit(self.unit)}",
                ax=ax,
            )
        if self.posthoc == "tukeyhsd":
            return cdd.draw_cd_diagram(
                ranking["mean"].astype(float), nd,
                lower_is_better=self.objective == "minimize",
                axis_label="mean score",
                title=f"autorank: {self.omnibus}+tukeyhsd; {cdd.short_unit(self.unit)}",
                ax=ax,
            )
        return cdd.draw_cd_diagram(
            ranking["meanrank"].astype(float), nd, lower_is_better=True,
            critical_difference=self.critical_difference, axis_label="mean rank",
            limits=(1, len(ranking)),
            title=f"autorank: {self.omnibus}{'+' + self.posthoc if self.posthoc else ''}; "
                  f"{cdd.short_unit(self.unit)}",
            ax=ax,
        )


def _center_column(rankdf: pd.DataFrame) -> str:
    return "mean" if "mean" in rankdf.columns else "median"


def _maybe_bool(x: object) -> bool | None:
    return None if x is None else bool(x)


def _effects(raw: Any, objective: str):
    """A function ``(a, b) -> Effect or None`` from autorank's table, read once.

    Autorank's effect sizes are against the first row of its table; a pair
    gets one only if one of its algorithms is that row. (With
    ``order="descending"`` autorank lists the *worst* mean rank first.)
    """
    ranking = raw.rankdf
    best = ranking.index[0]
    sizes = dict(zip(ranking.index, ranking["effect_size"].tolist()))
    names = {"cohen_d": "Cohen's d", "cliff_delta": "Cliff's delta",
             "akinshin_gamma": "Akinshin's gamma"}
    label = names.get(raw.effect_size or "", str(raw.effect_size))

    def effect(a: str, b: str) -> Effect | None:
        if best not in (a, b):
            return None
        other = b if best == a else a
        value = float(sizes[other])
        # autorank: effect of the best minus the other, on raw values. Orient: positive
        # favours a.
        raw_direction = value if best == a else -value
        if objective == "minimize":
            raw_direction = -raw_direction
        return Effect(label, raw_direction)

    return effect


def autorank(
    results: Results | BlockMatrix,
    *,
    budget: float | None = None,
    unit: Literal["benchmark", "benchmark_seed"] = "benchmark",
    aggregate: Literal["mean", "median"] = "mean",
    missing: Literal["raise", "drop"] = "raise",
    alpha: float = 0.05,
    effect_size: Literal["cohen_d", "cliff_delta", "akinshin_gamma"] | None = None,
    force_mode: Literal["parametric", "nonparametric"] | None = None,
    approach: Literal["frequentist", "bayesian"] = "frequentist",
    rope: float = 0.1,
    rope_mode: Literal["effsize", "absolute"] = "effsize",
    n_resamples: int = 50000,
    seed: int | None = None,
    max_pairs: int | None = 1225,
) -> AutorankResult:
    """Run autorank's decision path on the block matrix and explain it.

    Parameters
    ----------
    results : Results or BlockMatrix
    budget, unit, aggregate, missing
        How blocks are built (see :meth:`Results.blocks`); the unit is
        printed in every output.
    alpha : float
        Autorank's family-wise significance level.
    effect_size, force_mode
        Passed to autorank unchanged.
    approach : {"frequentist", "bayesian"}
        Autorank's frequentist path (default) or its Bayesian signed-rank
        tests (baycomp) for every pair, which can also conclude that two
        algorithms are practically equivalent (a ``"tie"`` verdict).
    rope, rope_mode
        Passed to autorank for the Bayesian approach.
    n_resamples, seed
        Autorank's ``nsamples`` and ``random_state`` of the Bayesian
        approach.
    max_pairs : int or None
        Autorank's ANOVA + Tukey HSD path (statsmodels evaluates the
        studentized range numerically for every pair, about 1-2 ms each, and
        builds a table and a figure of all pairs; measured: 6 minutes for 1000
        algorithms) and its Bayesian path (one
        baycomp test per pair) cost a few milliseconds or more per pair: with
        1000 algorithms, minutes to hours. Which path autorank will take is
        known beforehand (its own normality and variance tests, recomputed
        here); when it is one of these two and there are more than
        ``max_pairs`` pairs (default 1225: 50 algorithms), a ValueError says so
        instead of starting it. Its Friedman + Nemenyi path has no such limit.
        ``None``: no limit.

    Returns
    -------
    AutorankResult

    Raises
    ------
    ValueError
        With fewer than 5 blocks (autorank's own minimum), or when autorank's
        path would cost more than ``max_pairs`` allows.

    Examples
    --------
    >>> from benchverdict.ranks._examples import small_runs
    >>> res = autorank(small_runs(n_benchmarks=8))
    >>> res.omnibus, res.posthoc
    ('anova', 'tukeyhsd')
    >>> print(res.reasons[0][:46])
    normality: Shapiro-Wilk test on each algorithm
    """
    import autorank as autorank_package

    blocks = _as_blocks(results, budget=budget, unit=unit, aggregate=aggregate, missing=missing)
    matrix = blocks.matrix
    n = matrix.shape[0]
    unit_text = blocks.describe_unit()
    if n < 5:
        raise ValueError(
            f"autorank needs at least 5 blocks, but there are {n} ({unit_text}). Fix: add "
            f"benchmarks, or use unit='benchmark_seed' (seeds as blocks; say so when you report)."
        )
    data = matrix.reset_index(drop=True)
    data.columns = [str(c) for c in data.columns]
    # Autorank's tests (Shapiro-Wilk, Bartlett, t and F statistics) are scale-free in exact
    # arithmetic but not in floating point: scores near 1e-62 gave Shapiro p = 1 and switched
    # autorank's path. Multiplying by a power of two brings their spread near 1 exactly (no
    # rounding); tables are mapped back to score units.
    score_scale = _power_of_two_scale(data.to_numpy(dtype=float))
    data = data * score_scale
    if rope_mode == "absolute":
        rope = rope * score_scale
    shapiro = {str(c): float(stats.shapiro(data[c]).pvalue) for c in data.columns}
    path = _predicted_path(data, shapiro, alpha, force_mode, approach)
    k = data.shape[1]
    n_pairs = k * (k - 1) // 2
    if path in _SECONDS_PER_PAIR and max_pairs is not None and n_pairs > max_pairs:
        seconds = n_pairs * _SECONDS_PER_PAIR[path]
        # Under two minutes in seconds ("about 0 minutes" said nothing for 20 s).
        took = (f"{seconds:,.0f} seconds" if seconds < 120 else
                f"{seconds / 60:,.0f} minutes")
        raise ValueError(
            f"autorank would take its {path} path here, which costs about "
            f"{_SECONDS_PER_PAIR[path] * 1000:.0f} ms per pair in autorank's own code "
            f"({n_pairs:,} pairs of {k} algorithms: about {took}), so it was "
            f"not started. Fix: use friedman() (its Nemenyi and Wilcoxon-Holm families take "
            f"seconds for thousands of algorithms), or pass max_pairs=None to run autorank "
            f"anyway."
        )
    order = "descending" if blocks.objective == "maximize" else "ascending"
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = autorank_package.autorank(
            data, alpha=alpha, verbose=True, order=order, effect_size=effect_size,
            force_mode=force_mode, approach=approach, rope=rope, rope_mode=rope_mode,
            nsamples=n_resamples, random_state=seed,  # autorank's own names
        )
    reasons, flags = _explain(raw, shapiro, alpha, force_mode, score_scale)
    notes = []
    if blocks.unit == "benchmark_seed":
        notes.append("each benchmark x seed run is a block: seeds are treated as independent "
                     "benchmarks (pseudo-replication)")
    if len(blocks.exclusions):
        notes.append(blocks.exclusion_summary())
    if blocks.unit == "benchmark":
        notes.append(
            f"each block's score is the {blocks.aggregate} over its seeds, taken before "
            f"autorank sees it (a choice; unit='benchmark_seed' uses every run)"
        )
    if raw.omnibus != "friedman":
        notes.append(
            "this path uses the scores' values (normality tests, means, variances): it is "
            "unchanged by increasing affine transforms of the scores, not by every increasing "
            "transform (only the Friedman + Nemenyi path is)"
        )
    return AutorankResult(
        raw=raw, omnibus=raw.omnibus, posthoc=raw.posthoc, reasons=tuple(reasons),
        flags=tuple(flags), log=buffer.getvalue(), blocks=blocks, unit=unit_text, alpha=alpha,
        objective=blocks.objective, notes=tuple(notes), score_scale=score_scale,
    )


def _power_of_two_scale(values: np.ndarray) -> float:
    """A power of two that brings the standard deviation of ``values`` near 1 (1.0 if 0).

    Examples
    --------
    >>> _power_of_two_scale(np.array([0.0, 3e-62, 1e-62]))
    1.0284403483257538e+62
    >>> _power_of_two_scale(np.array([5.0, 5.0]))
    1.0
    """
    finite = values[np.isfinite(values)]
    spread = float(np.std(finite)) if finite.size else 0.0
    if not spread > 0 or not np.isfinite(spread):
        return 1.0
    return float(2.0 ** -np.round(np.log2(spread)))


#: Columns of autorank's ranking table in score units (the rest are ranks or unit-free).
_SCORE_UNIT_COLUMNS = ("mean", "std", "median", "mad", "ci_lower", "ci_upper")

#: Measured cost of autorank's slow paths per pair of algorithms (seconds), for the message.
_SECONDS_PER_PAIR = {"ANOVA + Tukey HSD": 0.001, "Bayesian signed-rank": 0.02}


def _predicted_path(data: pd.DataFrame, shapiro: dict[str, float], alpha: float,
                    force_mode: str | None, approach: str) -> str:
    """The path autorank 1.x will take, decided exactly as autorank decides it."""
    k = data.shape[1]
    if approach == "bayesian":
        return "Bayesian signed-rank"
    if k == 2:
        return "two-sample test"
    all_normal = all(p >= alpha / k for p in shapiro.values())
    if force_mode == "parametric":
        return "ANOVA + Tukey HSD"
    if force_mode is None and all_normal:
        var_equal = stats.bartlett(*data.transpose().values).pvalue >= alpha
        if var_equal:
            return "ANOVA + Tukey HSD"
    return "Friedman + Nemenyi"


def _explain(
    raw: Any, shapiro: dict[str, float], alpha: float, force_mode: str | None,
    score_scale: float = 1.0,
) -> tuple[list[str], list[str]]:
    k = len(shapiro)
    # Shapiro-Wilk p-values recomputed per named column (the same scipy call autorank makes):
    # autorank's own list is permuted and carries no names (see the flag below).
    shapiro_text = ", ".join(f"{name} p = {_p(p)}" for name, p in shapiro.items())
    reasons = [
        f"normality: Shapiro-Wilk test on each algorithm at Bonferroni alpha = "
        f"{raw.alpha_normality:.4g} ({shapiro_text}); all normal: {bool(raw.all_normal)}",
    ]
    if raw.homogeneity_test is not None:
        test = "Bartlett" if raw.homogeneity_test == "bartlett" else "Levene"
        why = "the data look normal" if raw.all_normal else "some data are not normal"
        reasons.append(
            f"equal variances: {test}'s test (because {why}) p = {_p(raw.pval_homogeneity)}; "
            f"homoscedastic: {bool(raw.homoscedastic)}"
        )
    if raw.omnibus == "bayes":
        scale = ("Cohen's d" if (force_mode == "parametric"
                                 or (force_mode is None and raw.all_normal))
                 else "Akinshin's gamma")
        rope_text = (f"{raw.rope:g} x the pooled scale of {scale}" if raw.rope_mode == "effsize"
                     else f"{raw.rope / score_scale:g} (absolute)")
        chosen = (f"Bayesian signed-rank test (baycomp) for every pair, ROPE = {rope_text}; "
                  f"no omnibus test")
    elif force_mode is not None:
        chosen = f"forced {force_mode} mode"
    elif k == 2:
        chosen = ("paired t-test, because both algorithms look normal" if raw.all_normal
                  else "Wilcoxon signed-rank test (one-sided, larger median vs smaller), because "
                  "not all algorithms look normal")
    elif raw.omnibus == "anova":
        chosen = ("repeated-measures ANOVA with Tukey HSD, because all algorithms look normal "
                  "with equal variances")
    else:
        why = "not all algorithms look normal" if not raw.all_normal else "variances differ"
        chosen = f"Friedman test with Nemenyi's critical difference, because {why}"
    reasons.append(f"test: {chosen}")
    flags = []
    in_ranking_order = [shapiro[str(name)] for name in raw.rankdf.index]
    if not np.allclose(in_ranking_order, raw.pvals_shapiro, rtol=1e-9, atol=0):
        flags.append(
            "autorank's pvals_shapiro list is in neither the input nor the ranking order for "
            "this ranking (it applies the inverse of the reordering permutation); the named "
            "p-values above are recomputed per column"
        )
    if raw.posthoc == "tukeyhsd":
        flags.append(TUKEY_FLAG)
    flags.append(
        f"effect sizes ({raw.effect_size}) treat each algorithm's blocks as an unpaired sample"
    )
    if raw.omnibus == "bayes":
        flags.append(
            "Bayesian decisions are per pair with no multiplicity control; the ROPE is in "
            "units of an unpaired scale (pooled SD or MAD of the blocks' values)"
        )
    elif raw.posthoc is not None and raw.pvalue >= alpha:
        flags.append(
            f"the omnibus test is not significant (p = {_p(raw.pvalue)}); autorank still "
            f"computes its post-hoc results, which should not be read as differences"
        )
    if raw.omnibus == "wilcoxon":
        flags.append("autorank's two-sample Wilcoxon test is one-sided (larger median greater)")
    return reasons, flags
