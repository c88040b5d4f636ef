r"""Each pair's own Welch test over these benchmarks' runs: the LMEM's claims on these only.

With ``--estimand these`` the model ``score ~ algorithm + (1|benchmark)``
(:data:`~benchverdict.lmem.estimand.FIXED_BENCHMARKS_FORMULA`) takes the
seeds as the replicates of the algorithm effect, with one residual variance
for every algorithm. Two things break that count:

* **copied runs**: an algorithm whose runs are identical on several
  benchmarks (a task under several settings it ignores) has one draw of its
  noise there, which the model counts once per benchmark. With 4 tasks each
  copied onto 3 benchmarks (3 algorithms, 5 seeds, no difference anywhere),
  the report's LMEM settled a false relation in 0.37 of data sets at
  ``alpha = 0.05`` (``tests/test_lmem_these_gate.py``);
* **unequal spreads**: a noisy algorithm's contrasts borrow the quieter
  ones' residual variance.

**The pair's own test** is Welch's t over the runs of these benchmarks, the
estimand :func:`~benchverdict.effects.pairwise.effects_from_frame` measures
with ``estimand="these"``: the mean over benchmarks of the pair's cell-mean
differences, with variance :math:`\sum_b (s^2_{a,b} / r_{a,b} + s^2_{b,b} /
r_{b,b}) / B^2` from the two algorithms' own runs, where a copied cell's
noise counts once for its whole group (its square-root terms summed before
squaring), Welch-Satterthwaite's df, Bonferroni over the pairs.

**Both must reject** (an intersection-union rule, as
:mod:`benchverdict.lmem.paired` across benchmarks): the verdict keeps a
decision only if the model's Tukey test and this test both reject in the
same direction; its p-value is the larger, its interval the union.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from benchverdict.lmem.paired import gate_verdict
from benchverdict.replicates import BenchmarkReplicates
from benchverdict.results import Results
from benchverdict.verdict import Verdict

#: The columns of :func:`these_contrasts`.
THESE_COLUMNS = ("a", "b", "estimate", "se", "df", "n_benchmarks", "p_value",
                 "p_value_adjusted", "lower", "upper")


def these_contrasts(data: Results, *, alpha: float = 0.05,
                    pairs: list[tuple[str, str]] | None = None,
                    copies: BenchmarkReplicates | None = None) -> pd.DataFrame:
    """Welch t tests of every pair over the runs of these benchmarks (copied runs once).

    Parameters
    ----------
    data : Results
        Runs (one score per algorithm x benchmark x seed; where a run has
        several rows, e.g. one per budget, it enters by their mean).
    alpha : float
        Family-wise level: p-values are Bonferroni-adjusted over the pairs and
        the intervals simultaneous at ``1 - alpha``.
    pairs : list of (str, str), optional
        The pairs in the orientation ``a - b``; all pairs by default.
    copies : BenchmarkReplicates, optional
        Benchmarks with copied runs (:meth:`Results.copied_benchmarks` by
        default); pass the original data's when ``data`` is rescaled.

    Returns
    -------
    pandas.DataFrame
        One row per pair, columns :data:`THESE_COLUMNS`.

    Examples
    --------
    >>> frame = pd.DataFrame({"algorithm": ["A", "B"] * 4, "benchmark": list("ppppqqqq"),
    ...                       "seed": [0, 0, 1, 1] * 2,
    ...                       "score": [3.0, 1.0, 3.4, 1.2, 5.0, 2.0, 5.2, 2.5]})
    >>> res = Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
    ...                          seed="seed", score="score", objective="maximize",
    ...                          kind="runs")
    >>> row = these_contrasts(res).iloc[0]
    >>> row["a"], row["b"], round(float(row["estimate"]), 3), int(row["n_benchmarks"])
    ('A', 'B', 2.475, 2)
    """
    from benchverdict.effects.pairwise import effects_from_frame

    if not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha is a significance level and must be between 0 and 1, got "
                         f"{alpha!r}.")
    if pairs is None:
        names = [str(a) for a in data.algorithms]
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    if copies is None:
        found = getattr(data, "copied_benchmarks", None)
        copies = found() if callable(found) else BenchmarkReplicates()
    known = {str(a) for a in data.algorithms}
    missing = sorted({x for pair in pairs for x in pair} - known)
    if missing:
        raise ValueError(f"algorithm(s) {missing} have no rows in the data; the pairs must "
                         f"name algorithms of the data ({sorted(known)}).")
    algorithms = list(dict.fromkeys(x for pair in pairs for x in pair))
    table = data.table
    keys = ["algorithm", "benchmark", "seed"]
    if "seed" in table.columns and table.duplicated(keys).any():
        # Several rows per run (a model of every budget's row): the run is the unit, so each
        # run enters by the mean of its rows, as the model's algorithm contrast weighs them.
        table = table.groupby(keys, observed=True, sort=False)["score"].mean().reset_index()
    effects = effects_from_frame(table, algorithms=algorithms, estimand="these",
                                 objective=data.objective, alpha=alpha, copies=copies)
    m = max(len(pairs), 1)
    rows = []
    for a, b in pairs:
        e = effects.effect(a, b)
        se, df = e.se, e.df
        if not (np.isfinite(se) and se > 0 and np.isfinite(df) and df > 0):
            # No spread to test against (fewer than 2 runs in a cell, or all runs alike).
            rows.append({"a": a, "b": b, "estimate": e.difference, "se": se, "df": df,
                         "n_benchmarks": e.n, "p_value": 1.0, "p_value_adjusted": 1.0,
                         "lower": -np.inf, "upper": np.inf})
            continue
        p = float(2 * stats.t.sf(abs(e.difference) / se, df))
        half = float(stats.t.ppf(1 - alpha / (2 * m), df)) * se
        rows.append({"a": a, "b": b, "estimate": e.difference, "se": se, "df": df,
                     "n_benchmarks": e.n, "p_value": p, "p_value_adjusted": min(1.0, m * p),
                     "lower": e.difference - half, "upper": e.difference + half})
    return pd.DataFrame(rows, columns=list(THESE_COLUMNS))


def settle_with_these_tests(verdicts: list[Verdict], data: Results, *, alpha: float,
                            copies: BenchmarkReplicates | None = None
                            ) -> tuple[list[Verdict], pd.DataFrame]:
    """The model's verdicts on these benchmarks, each settled only where its Welch test agrees.

    Parameters
    ----------
    verdicts : list of Verdict
        The model's verdicts across these benchmarks (one per pair).
    data : Results
        The rows the model was fitted on (one per run).
    alpha : float
    copies : BenchmarkReplicates, optional
        See :func:`these_contrasts`.

    Returns
    -------
    (list of Verdict, pandas.DataFrame)
        The settled verdicts and the Welch tests' table.

    Examples
    --------
    >>> from benchverdict.lmem import fit
    >>> from benchverdict.lmem.simulate import simulate_results
    >>> res = simulate_results(n_benchmarks=6, n_seeds=3, algorithm_effect={"A": -2.0},
    ...                        seed=0)
    >>> model = fit(res, "score ~ algorithm + (1|benchmark)")
    >>> settled, table = settle_with_these_tests(model.verdicts(), res, alpha=0.05)
    >>> len(settled) == len(table) == 3
    True
    """
    if copies is None:
        found = getattr(data, "copied_benchmarks", None)
        copies = found() if callable(found) else BenchmarkReplicates()
    table = these_contrasts(data, alpha=alpha, pairs=[(v.a, v.b) for v in verdicts],
                            copies=copies)
    n_copied = len(copies.copies)
    out = []
    for v, row in zip(verdicts, table.itertuples(index=False)):
        def get(key: str, row=row):
            return getattr(row, key)

        text = (f"; the pair's own Welch t test over the runs of these {row.n_benchmarks} "
                f"benchmarks ({row.df:.3g} df"
                + (", copied runs counted once" if n_copied else "")
                + f", Bonferroni over the pairs): adjusted p = {row.p_value_adjusted:.3g}")
        refused = (", which does not confirm the model: counted with their own spreads"
                   + (" and copied runs once" if n_copied else "")
                   + ", the pair's runs do not separate it, so the pair is not settled")
        out.append(gate_verdict(
            v, get, alpha=alpha, text=text, refused=refused,
            details={"p_value_welch": float(row.p_value_adjusted),
                     "welch_df": float(row.df)}, n=v.n))
    return out, table


__all__ = ["THESE_COLUMNS", "settle_with_these_tests", "these_contrasts"]
