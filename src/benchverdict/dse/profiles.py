r"""rliable's performance profiles and probability of improvement, with stratified bootstraps.

Two summaries of Agarwal et al. (2021, *Deep reinforcement learning at the
edge of the statistical precipice*, ``rliable.library``) on the scores of
every run of every benchmark, oriented (larger is better) and normalised
per benchmark as :func:`benchverdict.dse.aggregate` does (``"minmax"``,
``"reference"`` or ``None``):

Performance profile
    For each algorithm and threshold ``tau``, the fraction of runs whose
    performance exceeds ``tau`` (the *run-score distribution*):
    ``F(tau) = (1/T) sum_t (1/n_t) sum_i 1[x_{t,i} > tau]``, each benchmark
    weighing the same (rliable pools the runs x tasks matrix, which is the
    same with equal runs per benchmark). The band is a stratified
    bootstrap (runs resampled within each benchmark, benchmarks fixed), as
    rliable's: pointwise percentile intervals, or a simultaneous band over
    every ``tau`` at once, ``F(tau) +- c`` with ``c`` the ``confidence``
    quantile of ``max_tau |F*(tau) - F(tau)|`` over the replicates.
Probability of improvement
    ``P(X > Y) = (1/T) sum_t P(X_t > Y_t)`` with ``P(X_t > Y_t)`` the
    Mann-Whitney ``U`` of the two algorithms' runs on benchmark ``t``
    divided by ``n m`` (ties count half); its interval is the percentile
    interval of the stratified bootstrap resampling both algorithms' runs
    within each benchmark, independently (rliable's
    ``StratifiedIndependentBootstrap``).

The intervals describe these benchmarks: the runs are random, the
benchmarks are fixed (rliable's reading). They are per pair and per
threshold, not corrected for looking at many; the report's relations carry
the error control.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchverdict._plain_text import plain_text
from benchverdict._repr import ResultText
from benchverdict.dse.aggregate import normalize_frame
from benchverdict.results import Results

__all__ = ["BANDS", "ImprovementProbabilities", "PerformanceProfile",
           "improvement_probabilities", "performance_profile"]

#: How the profile's band holds: at each threshold, or at every threshold at once.
BANDS = ("pointwise", "simultaneous")


def _groups(results: Results, normalize: str | None, reference: str | None
            ) -> tuple[dict[str, list[np.ndarray]], list[str], pd.DataFrame]:
    """Each algorithm's oriented, normalised runs per benchmark (every algorithm everywhere)."""
    data = results if results.kind == "trials" else results.final()
    frame = normalize_frame(data.table, sign=data.sign, method=normalize, reference=reference)
    benchmarks = [str(b) for b in data.benchmarks]
    algorithm = frame["algorithm"].astype(str).to_numpy()
    bench = frame["benchmark"].astype(str).to_numpy()
    out: dict[str, list[np.ndarray]] = {}
    for alg in map(str, data.algorithms):
        groups = [frame["performance"].to_numpy()[(algorithm == alg) & (bench == b)]
                  for b in benchmarks]
        missing = [b for b, g in zip(benchmarks, groups) if g.size == 0]
        if missing:
            raise ValueError(
                f"algorithm {alg!r} has no runs on benchmark(s) {missing}; profiles and "
                f"probabilities of improvement need every algorithm on every benchmark. Fix: "
                f"results.subset(benchmarks=...) or results.subset(algorithms=...).")
        out[alg] = groups
    return out, benchmarks, frame


def _check(confidence: float, n_resamples: int) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}.")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}.")


def _scale(normalize: str | None, reference: str | None, objective: str) -> str:
    if normalize == "minmax":
        return "min-max normalised per benchmark (1 = best run seen)"
    if normalize == "reference":
        return f"normalised per benchmark to {reference}'s median (1)"
    return "score" + (" (larger is better)" if objective == "maximize" else " (minimised; "
                      "thresholds in the score's units, a run counts when below)")


# ----------------------------------------------------------------------------- profile
def _exceedance(groups: Sequence[np.ndarray], taus: np.ndarray) -> np.ndarray:
    """``(len(taus),)`` mean over benchmarks of the share of runs above each threshold."""
    return np.mean([1.0 - np.searchsorted(np.sort(g), taus, side="right") / g.size
                    for g in groups], axis=0)


def _bootstrap_profiles(groups: Sequence[np.ndarray], taus: np.ndarray, n_resamples: int,
                        rng: np.random.Generator, chunk: int = 250) -> np.ndarray:
    """``(n_resamples, len(taus))`` profiles of stratified resamples (runs within benchmarks)."""
    out = np.zeros((n_resamples, taus.size))
    for g in groups:
        g = np.sort(np.asarray(g, dtype=float))
        # the share above tau of a resample is the resampled count of runs above tau; the
        # runs above tau are a suffix of the sorted runs, so cumulative counts give it
        first_above = np.searchsorted(g, taus, side="right")
        for start in range(0, n_resamples, chunk):
            b = min(chunk, n_resamples - start)
            counts = rng.multinomial(g.size, np.full(g.size, 1.0 / g.size), size=b)
            tail = np.concatenate([np.cumsum(counts[:, ::-1], axis=1)[:, ::-1],
                                   np.zeros((b, 1))], axis=1)
            out[start:start + b] += tail[:, first_above] / g.size
    return out / len(groups)


@dataclass(repr=False, frozen=True)
class PerformanceProfile(ResultText):
    """Each algorithm's performance profile with a stratified-bootstrap band.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy: one row per algorithm x threshold: ``algorithm, tau, fraction,
        lower, upper`` (``tau`` in the user's units when ``normalize`` is
        ``None``).
    normalize, reference : str or None
    band : {"pointwise", "simultaneous"}
    confidence : float
    n_resamples : int
    objective : str
    n_benchmarks : int
    """

    table: pd.DataFrame
    normalize: str | None
    reference: str | None
    band: str
    confidence: float
    n_resamples: int
    objective: str
    n_benchmarks: int

    def verdicts(self) -> list:
        """An empty list: a profile describes; the report's families decide."""
        return []

    def _summary_lines(self) -> list[str]:
        algs = list(dict.fromkeys(self.table["algorithm"]))
        area = (self.table.groupby("algorithm", sort=False)["fraction"].mean()
                .sort_values(ascending=False))
        return [f"performance profiles of {len(algs)} algorithm(s) over {self.n_benchmarks} "
                f"benchmark(s); {self.confidence:.0%} {self.band} stratified-bootstrap bands "
                f"({self.n_resamples} resamples); "
                f"{_scale(self.normalize, self.reference, self.objective)}",
                "mean fraction above tau (larger is better): "
                + ", ".join(f"{a} {v:.2f}" for a, v in area.items())]

    def plot(self, ax=None):
        """One line per algorithm with its band (algorithm colours and styles of the theme).

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> ax = performance_profile(_example_small(), n_resamples=100).plot()
        >>> ax.get_ylabel()
        'fraction of runs above tau'
        """
        from benchverdict.plotting import algorithm_styles, legend_outside, new_axes, theme

        algs = list(dict.fromkeys(self.table["algorithm"]))
        styles = algorithm_styles(algs)
        ax = new_axes(ax, width=5.0, height=3.2)
        with theme():
            for alg in algs:
                t = self.table[self.table["algorithm"] == alg]
                style = styles[alg]
                ax.fill_between(t["tau"], t["lower"], t["upper"], color=style.color, alpha=0.2,
                                linewidth=0, step="post")
                ax.step(t["tau"], t["fraction"], where="post", label=alg, linewidth=1.5,
                        color=style.color, linestyle=style.linestyle)
            ax.set_ylim(-0.02, 1.02)
            ax.set_xlabel("tau: " + _scale(self.normalize, self.reference, self.objective))
            ax.set_ylabel("fraction of runs above tau")
            ax.set_title(f"Performance profiles ({self.confidence:.0%} {self.band} bands)",
                         fontsize=10)
            legend_outside(ax)
        return plain_text(ax)


def performance_profile(
    results: Results,
    *,
    normalize: str | None = "minmax",
    reference: str | None = None,
    taus: Sequence[float] | None = None,
    n_taus: int = 101,
    band: str = "pointwise",
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int | None = 0,
) -> PerformanceProfile:
    """The performance profile (rliable) of every algorithm, with a stratified-bootstrap band.

    Parameters
    ----------
    results : Results
        ``kind="trials"`` (every draw is a run, as in the DSE), or runs
        over a budget (their final incumbents are the runs).
    normalize : {"minmax", "reference", None}
        Per-benchmark normalisation (see
        :func:`benchverdict.dse.aggregate.normalize_frame`).
    reference : str, optional
        The reference algorithm of ``normalize="reference"``.
    taus : sequence of float, optional
        Thresholds (in the normalised scale; in the score's units without
        normalisation). Default ``n_taus`` evenly spaced over the runs' range.
    n_taus : int
    band : {"pointwise", "simultaneous"}
        Percentile interval at each threshold (rliable), or one band holding
        at every threshold at once (max deviation over thresholds).
    confidence : float
    n_resamples : int
        Bootstrap replicates.
    seed : int, optional

    Returns
    -------
    PerformanceProfile

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> prof = performance_profile(_example_small(), taus=[0.0, 0.5], n_resamples=200)
    >>> prof.table[["algorithm", "tau", "fraction"]].round(3).values.tolist()
    [['a', 0.0, 0.875], ['a', 0.5, 0.75], ['b', 0.0, 0.75], ['b', 0.5, 0.5]]
    """
    _check(confidence, n_resamples)
    if band not in BANDS:
        raise ValueError(f"band must be one of {BANDS}, got {band!r}.")
    data, _, frame = _groups(results, normalize, reference)
    sign = results.sign
    if taus is None:
        if n_taus < 2:
            raise ValueError(f"n_taus must be at least 2, got {n_taus}.")
        perf = frame["performance"].to_numpy(dtype=float)
        grid = np.linspace(perf.min(), perf.max(), n_taus)
    else:
        user = np.asarray(taus, dtype=float)
        if user.ndim != 1 or user.size == 0 or not np.isfinite(user).all():
            raise ValueError("taus must be a non-empty sequence of finite numbers.")
        # thresholds are given in the user's units without normalisation: orient them
        grid = np.sort(user * (sign if normalize is None else 1.0))
    rng = np.random.default_rng(seed)
    rows = []
    alpha = 1.0 - confidence
    for alg, groups in data.items():
        point = _exceedance(groups, grid)
        boot = _bootstrap_profiles(groups, grid, n_resamples, rng)
        if band == "pointwise":
            lower, upper = np.percentile(boot, [100 * alpha / 2, 100 * (1 - alpha / 2)], axis=0)
        else:
            c = float(np.quantile(np.abs(boot - point).max(axis=1), confidence))
            lower, upper = np.clip(point - c, 0.0, 1.0), np.clip(point + c, 0.0, 1.0)
        shown = grid * (sign if normalize is None else 1.0)
        order = np.argsort(shown)
        rows.append(pd.DataFrame({"algorithm": alg, "tau": shown[order],
                                  "fraction": point[order], "lower": lower[order],
                                  "upper": upper[order]}))
    return PerformanceProfile(pd.concat(rows, ignore_index=True), normalize, reference, band,
                              confidence, n_resamples, results.objective,
                              len(results.benchmarks))


# ----------------------------------------------------------------------------- P(X > Y)
def _win_matrix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``C[i, j] = 1`` if ``x_i > y_j``, ``0.5`` on a tie, else 0."""
    return (x[:, None] > y[None, :]) + 0.5 * (x[:, None] == y[None, :])


def _probability(groups_x: Sequence[np.ndarray], groups_y: Sequence[np.ndarray]) -> float:
    return float(np.mean([_win_matrix(x, y).mean() for x, y in zip(groups_x, groups_y)]))


def _bootstrap_probability(groups_x: Sequence[np.ndarray], groups_y: Sequence[np.ndarray],
                           n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Replicates of ``P(X > Y)``: both algorithms' runs resampled within each benchmark.

    A resample's ``P`` on a benchmark is ``cx C cy / (n m)`` with ``cx``, ``cy``
    the multinomial counts of the resampled runs.
    """
    total = np.zeros(n_resamples)
    for x, y in zip(groups_x, groups_y):
        c = _win_matrix(x, y)
        cx = rng.multinomial(x.size, np.full(x.size, 1.0 / x.size), size=n_resamples)
        cy = rng.multinomial(y.size, np.full(y.size, 1.0 / y.size), size=n_resamples)
        total += np.einsum("bi,ij,bj->b", cx, c, cy) / (x.size * y.size)
    return total / len(groups_x)


@dataclass(repr=False, frozen=True)
class ImprovementProbabilities(ResultText):
    """``P(a > b)`` for pairs of algorithms, with stratified-bootstrap percentile intervals.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy: one row per pair: ``a, b, probability, lower, upper,
        n_benchmarks`` (``probability``: a run of ``a`` on a benchmark beats
        one of ``b``, ties half, averaged over benchmarks).
    confidence : float
    n_resamples : int
    objective : str
    """

    table: pd.DataFrame
    confidence: float
    n_resamples: int
    objective: str

    def verdicts(self) -> list:
        """An empty list: the probabilities size the differences; the families decide."""
        return []

    def _summary_lines(self) -> list[str]:
        lines = [f"probability of improvement for {len(self.table)} pair(s); "
                 f"{self.confidence:.0%} stratified-bootstrap intervals "
                 f"({self.n_resamples} resamples)"]
        lines += [f"  P({r.a} > {r.b}) = {r.probability:.3f} [{r.lower:.3f}, {r.upper:.3f}]"
                  for r in self.table.itertuples(index=False)]
        return lines

    def plot(self, ax=None):
        """The rliable plot: one bar per pair from the interval, the estimate marked, 0.5 dashed.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> ax = improvement_probabilities(_example_small(), n_resamples=100).plot()
        >>> ax.get_xlabel()
        'P(X > Y)'
        """
        from benchverdict.plotting import algorithm_colors, new_axes, shorten, theme

        t = self.table
        colours = algorithm_colors(sorted(set(t["a"])))
        ax = new_axes(ax, width=5.0, height=max(1.6, 0.32 * len(t) + 1.0))
        with theme():
            y = np.arange(len(t))[::-1]
            for yi, r in zip(y, t.itertuples(index=False)):
                ax.barh(yi, r.upper - r.lower, left=r.lower, height=0.6, color=colours[r.a],
                        alpha=0.75)
                ax.plot([r.probability] * 2, [yi - 0.3, yi + 0.3], color="k", lw=1.2)
            ax.axvline(0.5, color="0.4", linestyle=(0, (4, 3)), linewidth=0.9)
            ax.set_yticks(y, [f"{shorten(a, 18)} > {shorten(b, 18)}"
                              for a, b in zip(t["a"], t["b"])])
            ax.set_xlim(0.0, 1.0)
            ax.set_xlabel("P(X > Y)")
            ax.set_title(f"Probability of improvement ({self.confidence:.0%} intervals)",
                         fontsize=10)
        return plain_text(ax)


def improvement_probabilities(
    results: Results,
    *,
    pairs: Sequence[tuple[str, str]] | None = None,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int | None = 0,
) -> ImprovementProbabilities:
    """The probability of improvement ``P(X > Y)`` (rliable) per pair, with intervals.

    Scores are oriented by the objective (for a minimised score, ``X > Y``
    means ``X``'s run is lower). No normalisation is needed: the
    probability is invariant under any increasing per-benchmark transform.

    Parameters
    ----------
    results : Results
        ``kind="trials"``, or runs over a budget (their final incumbents).
    pairs : sequence of (str, str), optional
        Default every pair ``(a, b)`` with ``a`` before ``b`` in
        ``results.algorithms``.
    confidence : float
    n_resamples : int
    seed : int, optional

    Returns
    -------
    ImprovementProbabilities

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> imp = improvement_probabilities(_example_small(), n_resamples=200)
    >>> imp.table[["a", "b", "probability"]].values.tolist()
    [['a', 'b', 0.734375]]
    """
    _check(confidence, n_resamples)
    data, benchmarks, _ = _groups(results, None, None)
    algs = list(data)
    if pairs is None:
        pairs = [(a, b) for i, a in enumerate(algs) for b in algs[i + 1:]]
    pairs = [(str(a), str(b)) for a, b in pairs]
    unknown = sorted({n for pair in pairs for n in pair} - set(algs))
    if unknown:
        raise ValueError(f"pairs name {unknown}, which are not algorithms of the results "
                         f"({algs}).")
    rng = np.random.default_rng(seed)
    alpha = 1.0 - confidence
    rows = []
    for a, b in pairs:
        boot = _bootstrap_probability(data[a], data[b], n_resamples, rng)
        lower, upper = np.percentile(boot, [100 * alpha / 2, 100 * (1 - alpha / 2)])
        rows.append({"a": a, "b": b, "probability": _probability(data[a], data[b]),
                     "lower": float(lower), "upper": float(upper),
                     "n_benchmarks": len(benchmarks)})
    table = pd.DataFrame(rows, columns=["a", "b", "probability", "lower", "upper",
                                        "n_benchmarks"])
    return ImprovementProbabilities(table, confidence, n_resamples, results.objective)
