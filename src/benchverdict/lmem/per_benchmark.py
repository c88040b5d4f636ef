"""Per-benchmark contrasts with the run as the replicate: one linear model per benchmark.

A claim about one benchmark ("A beats B on moons") is about that benchmark's
distribution of run outcomes, so its unit of replication is the run (a seed's
final incumbent), not the benchmark. On each benchmark separately this fits
the one-way model ``score ~ algorithm`` on the runs' scores,

.. math::

    y_{ij} = \\mu_j + \\varepsilon_{ij}, \\qquad \\varepsilon_{ij} \\sim N(0, \\sigma_b^2),

with the residual variance ``sigma_b^2`` of *that* benchmark (pooled over its
algorithms, ``n_b - a_b`` degrees of freedom), so a noisy benchmark does not
borrow the precision of a quiet one. A contrast ``mu_A - mu_B`` has standard
error ``s_b sqrt(1/n_A + 1/n_B)`` and an exact t distribution with
``n_b - a_b`` df under normal, homoscedastic residuals.

Algorithms of one benchmark rarely share a spread: a deterministic method
scores the same on every seed while another varies widely, and the pooled
variance of ten quiet algorithms would then lend a noisy pair a precision it
does not have (a null pair was settled in 14 of 20 such data sets). So a pair
is decided by the intersection-union of two tests: the model's contrast and
the pair's own Welch t test (its two cells' variances, with Hsu's
conservative df ``min(n_a, n_b) - 1``: Welch-Satterthwaite's estimated df
let a cell of 2-3 runs with a small spread by chance, or a ceiling, settle
false relations in 21-83% of null data sets), ``p = max(p_model, p_Welch)``.
Each is valid under its own assumptions, so the larger p is valid when either
holds; when the variances are equal the two agree closely and little power is
lost (with Hsu's df, less with few runs). A pair with a cell of one run has
no Welch test and keeps the model's p (it then rests on equal variances).
The verdicts adjust the pairs of a benchmark by Holm's step-down procedure
(valid under any dependence; Tukey's studentized range would need a
numerical integral per pair, 20 ms each, which thousands of benchmarks cannot
afford), and every contrast keeps its raw p-value, through which the LMEM
family votes in the report's per-benchmark scope (where Holm adjusts over
every vote of every benchmark).

This is :func:`benchverdict.lmem.fit` of ``score ~ algorithm`` on one
benchmark's rows, computed for all benchmarks at once from per-cell counts,
means and variances (its sufficient statistics), which the tests check.

Assumptions: runs are independent (different seeds share nothing), residuals
are roughly normal. Seeds that pair runs
across algorithms (the same data split for every algorithm) make the test
conservative, not liberal, when the pairing induces positive correlation.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import special, stats

from benchverdict._columns import shared_values
from benchverdict.stats.multiple_testing import holm
from benchverdict.verdict import Effect, Evidence, Scope, Verdict

if TYPE_CHECKING:
    from benchverdict.results import Results

#: The columns of :func:`per_benchmark_contrasts`.
CONTRAST_COLUMNS = ["benchmark", "a", "b", "estimate", "se", "statistic", "df", "p_value",
                    "p_value_adjusted", "n_a", "n_b", "n_algorithms", "se_welch", "df_welch",
                    "p_value_welch", "p_value_iu"]


def per_benchmark_contrasts(frame: pd.DataFrame) -> pd.DataFrame:
    """Every pair's difference of mean scores on each benchmark, with exact t inference.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per run (e.g. ``Results.final().table``): columns
        ``algorithm``, ``benchmark``, ``score``.

    Returns
    -------
    pandas.DataFrame
        One row per benchmark and pair (``a`` before ``b`` in the order of
        the algorithm column's categories, else sorted): ``estimate`` =
        mean(a) - mean(b) on the score's own scale, ``se``, ``statistic``
        (t), ``df`` (``n_b - a_b``), ``p_value`` (the model's, two-sided,
        unadjusted), ``p_value_adjusted`` (Holm over the benchmark's pairs, of
        ``p_value_iu``), ``n_a``, ``n_b``, ``n_algorithms``; the pair's own
        Welch test: ``se_welch``, ``df_welch``, ``p_value_welch`` (NaN with a
        cell of one run; the exact p of complete separation, ``2 / C(n_a + n_b,
        n_a)``, when both cells are constant and differ); and
        ``p_value_iu``, the larger of ``p_value`` and ``p_value_welch`` (the
        intersection-union test, see the module docstring). Benchmarks without
        residual degrees of freedom or variance give NaN statistics (no test
        is possible there).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"algorithm": ["A"] * 3 + ["B"] * 3, "benchmark": "p",
    ...                   "score": [1.0, 2.0, 3.0, 2.0, 3.0, 4.0]})
    >>> row = per_benchmark_contrasts(t).iloc[0]
    >>> [round(float(row[c]), 4) for c in ("estimate", "se", "df", "p_value", "p_value_iu")]
    [-1.0, 0.8165, 4.0, 0.2879, 0.3453]

    The model's test has 4 df; the pair's Welch test the same statistic on
    Hsu's 2 df (``min(n_a, n_b) - 1``), which decides:

    >>> float(row["df_welch"]), round(float(row["p_value_welch"]), 4)
    (2.0, 0.3453)
    """
    need = {"algorithm", "benchmark", "score"}
    missing = sorted(need - set(frame.columns))
    if missing:
        raise ValueError(f"per_benchmark_contrasts needs the columns {sorted(need)}; missing "
                         f"{missing}. Fix: pass one row per run, e.g. Results.final().table.")
    algorithm = frame["algorithm"]
    order = (list(algorithm.cat.categories) if isinstance(algorithm.dtype, pd.CategoricalDtype)
             else sorted(algorithm.astype(str).unique()))
    cells = (frame.assign(algorithm=algorithm.astype(str), benchmark=frame["benchmark"]
                          .astype(str))
             .groupby(["benchmark", "algorithm"], sort=False, observed=True)["score"]
             .agg(["count", "mean", "var"]))
    # The within-cell variance of a cell whose runs all score the same is 0 up to round-off
    # (1e-33 from summing 0.1s); the Welch test must see it as 0, not as a tiny spread.
    spread = cells["mean"].abs() * 1e-12
    cells.loc[cells["var"] <= spread**2, "var"] = 0.0
    rows = []
    for bench, cell in cells.groupby(level="benchmark", sort=False):
        cell = cell.droplevel("benchmark")
        algs = [str(a) for a in order if str(a) in cell.index]
        n = cell["count"].to_numpy(dtype=float)
        df = float(n.sum() - len(cell))
        ss = float(np.nansum((n - 1) * cell["var"].fillna(0.0).to_numpy()))
        s2 = ss / df if df > 0 else np.nan
        # Arrays in the algorithms' order, not .at look-ups per pair (pairs grow as k^2).
        counts = cell["count"].reindex(algs).to_numpy(dtype=float)
        means = cell["mean"].reindex(algs).to_numpy(dtype=float)
        variances = cell["var"].reindex(algs).to_numpy(dtype=float)  # NaN: one run
        ia, ib = np.triu_indices(len(algs), k=1)
        with np.errstate(invalid="ignore"):
            se = (np.sqrt(s2 * (1 / counts[ia] + 1 / counts[ib])) if s2 > 0
                  else np.full(len(ia), np.nan))
        names = np.asarray(algs, dtype=object)
        rows.append(pd.DataFrame({
            "benchmark": bench, "a": names[ia], "b": names[ib],
            "estimate": means[ia] - means[ib], "se": se, "df": df,
            "n_a": counts[ia].astype(int), "n_b": counts[ib].astype(int),
            "n_algorithms": len(algs),
            "var_a": variances[ia], "var_b": variances[ib],
            "magnitude": np.maximum(np.abs(means[ia]), np.abs(means[ib]))}))
    columns = [c for c in CONTRAST_COLUMNS
               if c not in ("statistic", "p_value", "p_value_adjusted", "se_welch",
                            "df_welch", "p_value_welch", "p_value_iu")]
    out = (pd.concat(rows, ignore_index=True) if rows
           else pd.DataFrame(columns=[*columns, "var_a", "var_b", "magnitude"]))
    estimate = out["estimate"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = estimate / out["se"].to_numpy(dtype=float)
    dfs = out["df"].to_numpy(dtype=float)
    raw = 2 * stats.t.sf(np.abs(t), dfs)
    se_w, df_w, p_w = _welch(estimate, out["var_a"].to_numpy(dtype=float),
                             out["var_b"].to_numpy(dtype=float),
                             out["n_a"].to_numpy(dtype=float), out["n_b"].to_numpy(dtype=float),
                             out["magnitude"].to_numpy(dtype=float))
    # Intersection-union: both tests must reject; without a Welch test the model's p alone.
    # NaN where the model has no test (no residual variance or df): nothing to adjust.
    p_iu = np.where(np.isnan(raw), np.nan, np.where(np.isnan(p_w), raw, np.fmax(raw, p_w)))
    adjusted = np.full(len(out), np.nan)
    for idx in out.groupby("benchmark", sort=False).indices.values():
        finite = idx[np.isfinite(p_iu[idx])]
        if len(finite):
            adjusted[finite] = holm(p_iu[finite])
    out = out[columns]
    out.insert(5, "statistic", t)
    out.insert(7, "p_value", raw)
    out.insert(8, "p_value_adjusted", adjusted)
    out["se_welch"], out["df_welch"], out["p_value_welch"] = se_w, df_w, p_w
    out["p_value_iu"] = p_iu
    return out[CONTRAST_COLUMNS]


def _welch(estimate: np.ndarray, var_a: np.ndarray, var_b: np.ndarray, n_a: np.ndarray,
           n_b: np.ndarray, magnitude: np.ndarray | None = None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Welch's t test of each pair from its two cells alone: SE, Hsu's df, p.

    The SE is Welch's (each cell's own variance); the df are ``min(n_a, n_b)
    - 1`` (Hsu 1938), which keep the level whatever the ratio of the two
    variances, where Welch-Satterthwaite's estimated df do not with cells of
    two or three runs.

    A cell of one run has no variance (NaN: no test). Two constant cells have SE 0, and
    Welch's statistic is undefined: when their values differ, every run of one beats
    every run of the other, and the exact permutation (Mann-Whitney) p-value of that
    complete separation, ``2 / C(n_a + n_b, n_a)``, is the evidence (0.0079 for 5 runs
    each); 1 when the values are equal. It was 0, and HPO-B's 4796/23 settled BOHAMIANN
    over Random at adjusted p = 6.6e-27 from 5 identical seeds each. ``magnitude`` (the
    larger of the two cell means' magnitudes) tells equal values apart from a difference
    that is only round-off of the means (1e-17 for equal cells of 2 and 3 runs).
    """
    # The effect sizes' Welch SE and df (one implementation; scale-free, no overflow).
    from benchverdict.effects.pairwise import _welch_arrays

    se, df = _welch_arrays(var_a, n_a, var_b, n_b)
    # Hsu's df, min(n_a, n_b) - 1, the lower bound of Welch-Satterthwaite's: conservative
    # under any ratio of the two variances. Satterthwaite's df trust each cell's sample
    # variance; a cell of 2-3 runs that happens to show a small spread (or none: a ceiling)
    # then lends the pair a precision it lacks. With identical means, 2-3 noisy runs beside
    # 10 quiet ones settled a false per-benchmark relation in 21% of data sets, a ceiling
    # cell of 3 runs in 83% (nominal 5%).
    df = np.where(np.isnan(df), np.nan, np.minimum(n_a, n_b) - 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = 2 * stats.t.sf(np.abs(estimate / se), df)
    constant = se == 0
    with np.errstate(over="ignore", invalid="ignore"):
        separated = np.minimum(1.0, 2.0 / special.comb(n_a + n_b, n_a))
    noise = 0.0 if magnitude is None else 8 * np.finfo(float).eps * magnitude
    p = np.where(constant, np.where(np.abs(estimate) > noise, separated, 1.0), p)
    df = np.where(constant, np.nan, df)
    return se, df, p


def per_benchmark_verdicts(results: Results, *, alpha: float = 0.05,
                           budget: float | None = None) -> list[Verdict]:
    """Holm-adjusted per-benchmark verdicts on the runs' incumbents (method ``lmem.holm``).

    Each benchmark is its own Holm family; its simultaneous intervals are
    Bonferroni t intervals over the benchmark's pairs (the wider of the
    model's and the pair's own Welch interval). Each verdict keeps the raw
    intersection-union p-value (the larger of the model's and Welch's, see the
    module docstring) in ``p_value`` (the report's Holm adjustment over all
    benchmarks' votes uses it), both tests' p in its explanation, and states
    its estimand ("on this benchmark, runs as replicates"). (Not in
    ``details``: a 200-algorithm study has 199,000 of these verdicts.)

    Parameters
    ----------
    results : Results
        HPO runs or random-search trials; each run is reduced to its
        incumbent at ``budget`` (default: its final one).
    alpha : float
    budget : float, optional

    Returns
    -------
    list of Verdict

    Examples
    --------
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=2, n_seeds=10, algorithm_effect={"A": -3.0}, seed=0)
    >>> [(v.scope.benchmark, v.a, v.b, v.outcome) for v in per_benchmark_verdicts(res)][:2]
    [('bench00', 'A', 'B', 'a'), ('bench00', 'A', 'C', 'a')]
    """
    return _per_benchmark_verdicts(results, alpha=alpha, budget=budget)


def _per_benchmark_verdicts(results: Results, *, alpha: float, budget: float | None,
                            scope: Scope | None = None, details: Mapping | None = None,
                            claim: bool = False,
                            untested: list[dict] | None = None) -> list[Verdict]:
    """:func:`per_benchmark_verdicts`, each verdict made once in the form the report keeps.

    ``scope``: each verdict's scope is this one on its benchmark (default
    ``Scope()``); ``details`` are added to every verdict's; ``claim`` ends each
    explanation with ``(on benchmark <name>)``. Made afterwards by replacing
    fields, a 200-algorithm study held 199,000 verdicts twice (0.25 GB more at
    the report's peak). ``untested``, when given, receives one record
    (``benchmark``, ``reason``) per benchmark whose pairs cannot be tested.
    """
    view = results.final() if budget is None else results.at_budget(budget)
    table = per_benchmark_contrasts(view.table)
    if untested is not None:
        untested += untested_benchmarks(table)
    sign = 1.0 if results.objective == "maximize" else -1.0
    out = []
    # One vectorised quantile per row (a t quantile per pair in the loop cost more than the
    # contrasts themselves at many algorithms).
    k_all = table["n_algorithms"].to_numpy(dtype=int)
    level = 1 - alpha / 2 / np.maximum(k_all * (k_all - 1) // 2, 1)
    crits = stats.t.ppf(level, table["df"].to_numpy(dtype=float))
    # The interval of the test with the larger p is the wider one; both are centred on the
    # estimate, so the wider half-width gives an interval that agrees with the pair's p.
    with np.errstate(invalid="ignore"):
        half = np.fmax(crits * table["se"].to_numpy(dtype=float),
                       stats.t.ppf(level, table["df_welch"].to_numpy(dtype=float))
                       * table["se_welch"].to_numpy(dtype=float))
    larger = "larger" if sign > 0 else "smaller"
    extra = dict(details or {})
    # Shared by every verdict (frozen objects and strings): one scope per benchmark.
    scopes: dict[str, Scope] = {}
    unit = "run (its incumbent; runs are the replicates on one benchmark)"
    columns = ("a", "b", "benchmark", "estimate", "se", "df", "statistic", "p_value",
               "p_value_adjusted", "n_a", "n_b", "p_value_welch", "df_welch", "p_value_iu")
    rows = zip(*(shared_values(table[c]) for c in columns), k_all.tolist(), half.tolist())
    for (a, b, benchmark, estimate, se, df, statistic, p_model, p_adj, n_a, n_b, p_welch,
         df_welch, p_value, k, width) in rows:
        if not math.isfinite(p_model):
            continue
        fav = sign * estimate
        lo, hi = sign * (estimate - width), sign * (estimate + width)
        if lo > hi:
            lo, hi = hi, lo
        outcome = ("a" if fav > 0 else "b") if p_adj < alpha else "inconclusive"
        better = a if outcome == "a" else b if outcome == "b" else None
        benchmark = str(benchmark)
        where = scopes.get(benchmark)
        if where is None:
            where = scopes[benchmark] = (Scope(benchmark=benchmark) if scope is None else
                                         dataclasses.replace(scope, benchmark=benchmark))
        if math.isnan(p_welch):
            own = "; no Welch test of the pair alone (a cell of one run)"
        elif not math.isfinite(df_welch):
            own = ("; no Welch test of the pair alone (both algorithms score the same on "
                   "every run)")
        elif p_welch > p_model:
            own = ("; the pair's own Welch test (its two algorithms' spreads, "
                   + (f"{df_welch:.3g} df" if math.isfinite(df_welch) else "no spread")
                   + f") gives p = {p_welch:.3g}, which decides")
        else:
            own = f"; the pair's own Welch test agrees (p = {p_welch:.3g})"
        text = (f"on {benchmark}, {a} - {b} = {estimate:+.4g} in mean score over runs "
                f"({n_a} and {n_b} runs; {larger} is better), "
                f"se {se:.3g}, t({df:g}) = {statistic:.3g}, p = {p_model:.3g}{own}; "
                f"Holm-adjusted p = {p_adj:.3g} over the benchmark's {k * (k - 1) // 2} "
                f"pair(s): "
                + (f"{better} is better on this benchmark" if better else
                   "no significant difference on this benchmark")
                + (f" (on benchmark {benchmark})." if claim else "."))
        out.append(Verdict(
            a=str(a), b=str(b), outcome=outcome, method="lmem.holm",
            scope=where,
            evidence=Evidence("p_value", float(p_adj), alpha),
            objective=results.objective, explanation=text,
            effect=Effect("difference in mean score", float(fav), float(lo), float(hi),
                          1 - alpha),
            unit=unit,
            n=int(n_a + n_b),
            p_value=float(p_value), sizes=(int(n_a), int(n_b)), estimand="benchmark",
            details={"formula": "score ~ algorithm (per benchmark)", "df": float(df),
                     "statistic": float(statistic), **extra},
        ))
    return out


def untested_benchmarks(table: pd.DataFrame) -> list[dict]:
    """The benchmarks of :func:`per_benchmark_contrasts` whose pairs have no test, and why.

    Examples
    --------
    >>> t = pd.DataFrame({"algorithm": ["A", "A", "B", "B"], "benchmark": "p",
    ...                   "score": [1.0, 1.0, 0.5, 0.5]})
    >>> untested_benchmarks(per_benchmark_contrasts(t))[0]["reason"][:44]
    'every run of each algorithm scores the same '
    """
    out = []
    for bench, part in table.groupby("benchmark", sort=False):
        if np.isfinite(part["p_value"].to_numpy(dtype=float)).any():
            continue
        if (part["df"] <= 0).all():
            reason = ("one run per algorithm: no residual degrees of freedom, so no test of "
                      "its pairs (more seeds per algorithm are needed)")
        else:
            reason = ("every run of each algorithm scores the same on this benchmark (no "
                      "variance within any algorithm), so its differences have no error "
                      "to be tested against; they are exact for these seeds only")
        out.append({"benchmark": str(bench), "reason": reason})
    return out


__all__ = ["CONTRAST_COLUMNS", "per_benchmark_contrasts", "per_benchmark_verdicts"]
