"""Aggregating performance across benchmarks: normalisation and robust aggregates.

Scores on different benchmarks live on different scales, so they are first
normalised per benchmark (to performance, larger is better):

* ``"minmax"``: ``(z - min_b) / (max_b - min_b)`` over every draw of every
  algorithm on benchmark ``b`` (0 = worst draw seen, 1 = best);
* ``"reference"``: ``(z - min_b) / (m_ref,b - min_b)`` where ``m_ref,b`` is
  the reference algorithm's median on ``b`` (1 = the reference's typical
  result), in the spirit of Atari's human-normalised scores.

The aggregates follow rliable (Agarwal et al. 2021, ``rliable.metrics``):
with ``scores[run, task]``,

* ``mean``: the mean over tasks of the per-task mean;
* ``median``: the median over tasks of the per-task mean;
* ``iqm``: the interquartile mean of all scores pooled,
  ``scipy.stats.trim_mean(scores, 0.25, axis=None)`` (drop
  ``floor(0.25 N)`` from each end);
* ``optimality_gap``: ``gamma - mean(min(scores, gamma))`` over all scores
  (smaller is better).

Intervals are rliable's stratified percentile bootstrap: every replicate
resamples the runs *within* each task with replacement (tasks are fixed),
and the interval is the ``(1 - c)/2`` and ``(1 + c)/2`` percentiles of the
replicates (linear interpolation, as ``arch`` computes them). We vectorise
the bootstrap over replicates (one gather and one sort per chunk) instead of
calling the aggregate once per replicate; tasks may have different numbers
of runs.

Names cannot move an interval: each algorithm's resampling stream is fixed
by the place of its draws in an order of the data
(:func:`benchverdict.stats.symmetry.sample_key`), its tasks are resampled in
an order of their values, and a difference interval is computed once per
unordered pair (in the data's order) and mirrored for the other order, so
``interval(b - a) == -interval(a - b)`` exactly. Two algorithms with
identical draws get the symmetric interval ``[-m, m]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchverdict._columns import text_array
from benchverdict._plain_text import plain_text
from benchverdict._repr import ResultText
from benchverdict.results import Results
from benchverdict.stats.symmetry import sample_key
from benchverdict.verdict import Effect, Evidence, Scope, Verdict, register_method

# rliable-style aggregates over benchmarks (a stratified bootstrap interval of the
# difference, at the result's confidence); single draws, so no vote on the final ranking.
for _metric, _aspect in (("iqm", "centre"), ("mean", "centre"), ("median", "centre"),
                         ("optimality_gap", "lower tail")):
    register_method(f"dse.aggregate_{_metric}", "dse", f"aggregate {_metric} over benchmarks",
                    paired=False, unit="random-search draw (resampled within benchmark)",
                    aspect=_aspect, assumptions="IID draws within each benchmark; an "
                    "asymptotic (percentile) bootstrap interval",
                    error_control="per comparison", scale="normalized", iid_draws=True)

METRICS = ("iqm", "mean", "median", "optimality_gap")
#: Metrics where smaller is better.
SMALLER_IS_BETTER = ("optimality_gap",)


# ----------------------------------------------------------------------------- normalisation
def normalize_frame(
    frame: pd.DataFrame,
    *,
    sign: float,
    method: str | None = "minmax",
    reference: str | None = None,
) -> pd.DataFrame:
    """Add a column ``performance``: oriented and (optionally) normalised per benchmark.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``algorithm``, ``benchmark``, ``score``.
    sign : float
        ``+1`` (maximize) or ``-1`` (minimize).
    method : {"minmax", "reference", None}
        ``None`` keeps ``sign * score``.
    reference : str, optional
        The reference algorithm for ``method="reference"``.

    Examples
    --------
    >>> df = pd.DataFrame({"algorithm": ["a", "b", "a", "b"], "benchmark": ["p", "p", "q", "q"],
    ...                    "score": [1.0, 3.0, 10.0, 30.0]})
    >>> normalize_frame(df, sign=1.0)["performance"].tolist()
    [0.0, 1.0, 0.0, 1.0]
    """
    out = frame[["algorithm", "benchmark", "score"]].copy()
    z = sign * out["score"].to_numpy(dtype=float)
    out["performance"] = z
    if method is None:
        return out
    if method not in ("minmax", "reference"):
        raise ValueError(f"normalize must be 'minmax', 'reference' or None, got {method!r}.")
    bench = text_array(out["benchmark"])
    perf = np.empty_like(z)
    for b in pd.unique(bench):
        m = bench == b
        zb = z[m]
        lo = zb.min()
        if method == "minmax":
            top = zb.max()
            what = "all draws are equal"
        else:
            if reference is None:
                raise ValueError("normalize='reference' needs reference=<algorithm name>.")
            ref = m & (out["algorithm"].astype(str).to_numpy() == str(reference))
            if not ref.any():
                raise ValueError(
                    f"reference algorithm {reference!r} has no draws on benchmark {b!r}."
                )
            top = float(np.median(z[ref]))
            what = f"the reference {reference!r}'s median equals the worst draw"
        if not top > lo:
            raise ValueError(
                f"cannot normalise benchmark {b!r}: {what}, so the scale is zero. Drop the "
                f"benchmark (Results.subset) or use normalize=None."
            )
        perf[m] = (zb - lo) / (top - lo)
    out["performance"] = perf
    return out


# ----------------------------------------------------------------------------- aggregates
def aggregate_values(groups: Sequence[np.ndarray], metric: str, gamma: float = 1.0) -> float:
    """One aggregate of per-task score arrays (rliable's definitions).

    Examples
    --------
    >>> aggregate_values([np.array([0.0, 1.0]), np.array([2.0, 3.0])], "median")
    1.5
    """
    groups = [np.asarray(g, dtype=float) for g in groups]
    pooled = np.concatenate(groups)[None, :]
    offsets = np.cumsum([0] + [g.size for g in groups[:-1]])
    sizes = np.array([g.size for g in groups])
    return float(_aggregate_pooled(pooled, offsets, sizes, metric, gamma)[0])


def _aggregate_pooled(
    pooled: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, metric: str, gamma: float
) -> np.ndarray:
    """Aggregates of ``B`` replicates: ``pooled`` is ``(B, N)`` with tasks in contiguous blocks."""
    if metric in ("mean", "median"):
        means = np.add.reduceat(pooled, offsets, axis=1) / sizes
        return means.mean(axis=1) if metric == "mean" else np.median(means, axis=1)
    if metric == "iqm":
        n = pooled.shape[1]
        cut = int(0.25 * n)
        if n - 2 * cut <= 0:
            raise ValueError("the IQM needs at least one score left after trimming.")
        # A full sort of short rows is faster than np.partition here (measured).
        return np.sort(pooled, axis=1)[:, cut : n - cut].mean(axis=1)
    if metric == "optimality_gap":
        return gamma - np.minimum(pooled, gamma).mean(axis=1)
    raise ValueError(f"unknown metric {metric!r}; use one of {METRICS}.")


def _default_indices(rng: np.random.Generator, b: int, sizes: np.ndarray) -> np.ndarray:
    """``(b, N)`` run indices, local to each task, drawn uniformly with replacement."""
    top = int(sizes.max())
    if np.all(sizes == top):
        # One bounded draw in the smallest integer type: several times faster than int64.
        dtype = np.uint8 if top <= 256 else np.uint16 if top <= 65536 else np.int64
        return rng.integers(0, top, size=(b, int(sizes.sum())), dtype=dtype)
    return rng.integers(0, np.repeat(sizes, sizes), size=(b, int(sizes.sum())))


def stratified_bootstrap(
    groups: Sequence[np.ndarray],
    metrics: Sequence[str] = METRICS,
    *,
    n_resamples: int = 50_000,
    gamma: float = 1.0,
    seed: int | np.random.Generator | None = 0,
    chunk: int = 10_000,
    index_sampler: Callable[[np.random.Generator, int, np.ndarray], np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Stratified-bootstrap replicates of aggregates, vectorised over replicates.

    Parameters
    ----------
    groups : sequence of 1-d arrays
        The runs of each task (stratum).
    metrics : sequence of str
    n_resamples : int
        Bootstrap replicates.
    gamma : float
        The optimality-gap threshold.
    seed : int or Generator
    chunk : int
        Replicates per vectorised block (memory: about ``chunk x total runs
        x 9`` bytes).
    index_sampler : callable, optional
        ``(rng, B, sizes) -> (B, N)`` run indices local to each task (task
        blocks contiguous); default IID uniform. The tests use it to feed
        the same resamples to rliable's functions.

    Returns
    -------
    dict
        ``metric -> (n_resamples,)`` replicate values.

    Examples
    --------
    >>> g = [np.arange(5.0), np.arange(5.0) + 10]
    >>> out = stratified_bootstrap(g, ["mean"], n_resamples=100)
    >>> out["mean"].shape
    (100,)
    """
    groups = [np.asarray(g, dtype=float) for g in groups]
    if not groups or any(g.size == 0 for g in groups):
        raise ValueError("every task needs at least one run.")
    for m in metrics:
        if m not in METRICS:
            raise ValueError(f"unknown metric {m!r}; use one of {METRICS}.")
    rng = np.random.default_rng(seed)
    sizes = np.array([g.size for g in groups])
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    values = np.concatenate(groups)
    base = np.repeat(offsets, sizes).astype(np.int32 if values.size < 2**31 else np.int64)
    sample = index_sampler or _default_indices
    out: dict[str, list[np.ndarray]] = {m: [] for m in metrics}
    for start in range(0, n_resamples, chunk):
        local = sample(rng, min(chunk, n_resamples - start), sizes)
        pooled = values[local.astype(base.dtype, copy=False) + base]
        for m in metrics:
            out[m].append(_aggregate_pooled(pooled, offsets, sizes, m, gamma))
    return {m: np.concatenate(v) for m, v in out.items()}


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """The percentile interval (linear interpolation, as arch/rliable)."""
    t = 100 * (1.0 - confidence) / 2.0
    lo, hi = np.percentile(values, [t, 100 - t])
    return float(lo), float(hi)


# ----------------------------------------------------------------------------- result
@dataclass(repr=False, frozen=True)
class AggregateResult(ResultText):
    """Aggregate performance across benchmarks with stratified-bootstrap intervals.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per algorithm x metric: ``estimate``, ``lower``, ``upper``, ``n``.
    differences : pandas.DataFrame
        One row per pair x metric: the difference ``a - b`` (oriented so that
        positive favours ``a``, also for the optimality gap) with its interval
        ``lower``/``upper``.
    normalize, reference : str or None
    confidence : float
    n_resamples : int
        Bootstrap replicates.
    objective : str
    n_benchmarks : int
    """

    table: pd.DataFrame
    differences: pd.DataFrame
    normalize: str | None
    reference: str | None
    confidence: float
    n_resamples: int
    objective: str
    n_benchmarks: int

    def _summary_lines(self) -> list[str]:
        from benchverdict._repr import names

        metrics = list(dict.fromkeys(self.table["metric"])) if "metric" in self.table else []
        algs = self.table["algorithm"].nunique() if "algorithm" in self.table else 0
        lines = [f"aggregate over {self.n_benchmarks} benchmarks: {algs} algorithms; "
                 f"{', '.join(map(str, metrics))}; {self.confidence:.0%} intervals "
                 f"({self.n_resamples} resamples); {self._scale()}"]
        if metrics:
            # the headline metric (IQM when computed), best first
            metric = "iqm" if "iqm" in metrics else metrics[0]
            rows = self.table[self.table["metric"] == metric]
            # normalised performance is larger-is-better; raw location metrics keep the
            # user's units; the optimality gap is smaller-is-better either way
            lower = metric == "optimality_gap" or (self.normalize is None
                                                   and self.objective == "minimize")
            rows = rows.sort_values("estimate", ascending=lower, kind="stable")
            lines.append(f"{metric}, best first: " + names(
                f"{r.algorithm} {r.estimate:.3g} [{r.lower:.3g}, {r.upper:.3g}]"
                for r in rows.itertuples(index=False)))
        return lines

    def summary(self, metric: str = "iqm") -> str:
        """The aggregates and the verdicts on ``metric``, as text (also ``str``)."""
        if metric not in set(self.differences.get("metric", ())):
            metric = next(iter(self.differences.get("metric", ())), metric)
        return "\n".join([*self._summary_lines(),
                          *(f"- {v.explanation}" for v in self.verdicts(metric))])

    def verdicts(self, metric: str = "iqm") -> list[Verdict]:
        """One verdict per pair: whether the ``metric`` difference interval excludes 0.

        Empty when ``metric`` was not computed (see ``table["metric"]``).
        """
        rows = self.differences[self.differences["metric"] == metric]
        out = []
        for r in rows.itertuples(index=False):
            outcome = "a" if r.lower > 0 else "b" if r.upper < 0 else "inconclusive"
            explanation = (
                f"{metric} advantage of {r.a} over {r.b}: {r.estimate:.3g} "
                f"[{r.lower:.3g}, {r.upper:.3g}] ({self._scale()}; stratified bootstrap over "
                f"draws within each benchmark, {self.n_resamples} replicates)"
            )
            out.append(
                Verdict(
                    a=r.a, b=r.b, outcome=outcome, method=f"dse.aggregate_{metric}",
                    # positional: Evidence(kind, value, level) and Effect(name, estimate,
                    # interval ends, interval level)
                    scope=Scope(), evidence=Evidence("confidence", None, self.confidence),
                    objective=self.objective, explanation=explanation,
                    effect=Effect(f"{metric} advantage", r.estimate, r.lower, r.upper,
                                  self.confidence),
                    unit="random-search draw (resampled within benchmark)",
                    n=int(r.n), details={"normalize": self.normalize},
                )
            )
        return out

    def _scale(self) -> str:
        if self.normalize == "minmax":
            return "min-max normalised per benchmark"
        if self.normalize == "reference":
            return f"normalised to {self.reference}'s median per benchmark"
        return "raw scores"

    def plot(self, ax=None, *, metric: str | None = None):
        """Plot rliable-style intervals: one bar per algorithm, one panel per metric.

        Without ``ax`` and ``metric`` every metric gets a panel of a new
        figure and the first panel is returned (the others are
        ``ax.figure.axes``). Given ``ax``, one panel is drawn on it:
        ``metric``, by default the headline one (IQM when computed). Returns
        the Axes.
        """
        import matplotlib.pyplot as plt

        from benchverdict.plotting import algorithm_colors, theme

        computed = list(dict.fromkeys(self.table["metric"]))
        if metric is not None and metric not in computed:
            raise ValueError(f"metric {metric!r} was not computed; the table has {computed}.")
        if metric is None and ax is not None:
            metric = "iqm" if "iqm" in computed else computed[0]
        metrics = computed if metric is None else [metric]
        algs = sorted(self.table["algorithm"].unique())
        colors = algorithm_colors(algs)
        with theme():
            if ax is None:
                _, grid = plt.subplots(
                    1, len(metrics), figsize=(1.8 * len(metrics) + 1.2, 0.35 * len(algs) + 1.0),
                    sharey=True, squeeze=False,
                )
                axes = list(grid[0])
            else:
                axes = [ax]
            for axis, name in zip(axes, metrics):
                t = self.table[self.table["metric"] == name].set_index("algorithm")
                for i, alg in enumerate(algs):
                    r = t.loc[alg]
                    axis.barh(i, r["upper"] - r["lower"], left=r["lower"], height=0.6,
                              color=colors[alg], alpha=0.75)
                    axis.plot([r["estimate"]] * 2, [i - 0.3, i + 0.3], color="k", lw=1.2)
                axis.set_yticks(range(len(algs)), algs)
                axis.set_title(name.replace("_", " ").upper() if name == "iqm"
                               else name.replace("_", " "))
            if len(axes) > 1:
                axes[0].figure.supxlabel(f"performance ({self._scale()})")
            else:
                axes[0].set_xlabel(f"performance ({self._scale()})")
        plain_text(axes[0].figure)
        return axes[0]

def aggregate(
    results: Results,
    *,
    normalize: str | None = "minmax",
    reference: str | None = None,
    metrics: Sequence[str] = METRICS,
    gamma: float = 1.0,
    n_resamples: int = 50_000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> AggregateResult:
    """Aggregate each algorithm's performance over benchmarks, with rliable's intervals.

    The runs resampled within each benchmark are the random-search draws
    (``kind="trials"``: every draw is one run of the DSE protocol). Scores
    are oriented by ``objective`` and normalised per benchmark first.

    Parameters
    ----------
    results : Results
        ``kind="trials"``.
    normalize : {"minmax", "reference", None}
    reference : str, optional
        The reference algorithm for ``normalize="reference"``.
    metrics : sequence of {"iqm", "mean", "median", "optimality_gap"}
    gamma : float
        Optimality-gap target (1 = the best normalised draw).
    n_resamples : int
        Bootstrap replicates (rliable's default is 50,000).
    confidence : float
    seed : int, optional

    Returns
    -------
    AggregateResult

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> agg = aggregate(_example_small(), n_resamples=500, metrics=["mean"])
    >>> agg.table[["algorithm", "metric"]].values.tolist()
    [['a', 'mean'], ['b', 'mean']]
    """
    results.require_kind("trials", "dse.aggregate()")
    for m in metrics:
        if m not in METRICS:
            raise ValueError(f"unknown metric {m!r}; use one of {METRICS}.")
    frame = normalize_frame(results.table, sign=results.sign, method=normalize,
                            reference=reference)
    # Without normalisation, report location aggregates in the user's units.
    back = results.sign if normalize is None else 1.0
    benchmarks = results.benchmarks
    algs = results.algorithms
    data: dict[str, list[np.ndarray]] = {}
    for alg in algs:
        sub = frame[frame["algorithm"].astype(str) == alg]
        groups = [
            sub.loc[sub["benchmark"].astype(str) == b, "performance"].to_numpy()
            for b in benchmarks
        ]
        missing = [b for b, g in zip(benchmarks, groups) if g.size == 0]
        if missing:
            raise ValueError(
                f"algorithm {alg!r} has no draws on benchmark(s) {missing}; aggregates need "
                f"every algorithm on every benchmark. Fix: results.subset(benchmarks=...)."
            )
        # Strata in an order fixed by their values: renaming benchmarks cannot move the draws.
        data[alg] = sorted(groups, key=sample_key)
    # Each algorithm's resampling stream is fixed by its place in an order of the data (not
    # of the names), so renaming or reordering algorithms changes no interval.
    keys = {alg: sample_key(data[alg]) for alg in algs}
    canonical = sorted(algs, key=lambda a: keys[a])
    streams = dict(zip(canonical, np.random.SeedSequence(seed).spawn(len(canonical))))
    replicates: dict[str, dict[str, np.ndarray]] = {}
    rows = []
    for alg in algs:
        groups = data[alg]
        replicates[alg] = stratified_bootstrap(groups, metrics, n_resamples=n_resamples,
                                               gamma=gamma,
                                               seed=np.random.default_rng(streams[alg]))
        n = int(sum(g.size for g in groups))
        for m in metrics:
            est = aggregate_values(groups, m, gamma)
            lo, hi = percentile_interval(replicates[alg][m], confidence)
            f = 1.0 if m == "optimality_gap" else back
            lo, hi = sorted((f * lo, f * hi))
            rows.append({"algorithm": alg, "metric": m, "estimate": f * est, "lower": lo,
                         "upper": hi, "n": n})
    table = pd.DataFrame(rows)
    diffs = _differences(table, replicates, keys, algs, metrics, back, confidence)
    return AggregateResult(
        table=table,
        differences=diffs,
        normalize=normalize,
        reference=reference,
        confidence=confidence,
        n_resamples=n_resamples,
        objective=results.objective,
        n_benchmarks=len(benchmarks),
    )



def _differences(table: pd.DataFrame, replicates: dict, keys: dict, algs: list[str],
                 metrics: Sequence[str], back: float, confidence: float) -> pd.DataFrame:
    """Every pair's difference per metric (positive favours ``a``) with its interval.

    The interval is computed once, in the data's order of the pair, and
    mirrored for the other order: exactly antisymmetric (identical data:
    symmetric).
    """
    estimates = table.set_index(["algorithm", "metric"])["estimate"]
    sizes = table.set_index(["algorithm", "metric"])["n"]
    diffs = []
    for i, a in enumerate(algs):
        for b in algs[i + 1:]:
            order = 0 if keys[a] == keys[b] else (-1 if keys[a] < keys[b] else 1)
            first, second = (a, b) if order <= 0 else (b, a)
            for m in metrics:
                # Orient so that positive favours a (oriented units).
                flip = -1.0 if m in SMALLER_IS_BETTER else 1.0
                est = flip * (estimates[a, m] - estimates[b, m]) * (
                    back if m != "optimality_gap" else 1.0)
                d = replicates[first][m] - replicates[second][m]
                lo, hi = sorted(flip * np.array(percentile_interval(d, confidence)))
                if order == 0:
                    half = max(abs(lo), abs(hi))
                    lo, hi = -half, half
                elif order > 0:
                    lo, hi = -hi, -lo
                n = int(sizes[a, m] + sizes[b, m])
                diffs.append({"a": a, "b": b, "metric": m, "estimate": float(est),
                              "lower": float(lo), "upper": float(hi), "n": n})
    return pd.DataFrame(diffs, columns=["a", "b", "metric", "estimate", "lower", "upper", "n"])


__all__ = [
    "METRICS",
    "AggregateResult",
    "aggregate",
    "aggregate_values",
    "normalize_frame",
    "percentile_interval",
    "stratified_bootstrap",
]
