r"""How many more runs would settle it: power of the pairwise test, and the runs it needs.

One idea: the pairwise comparison of :mod:`benchverdict.effects.pairwise`
is a paired t-test on the per-benchmark cell means, Bonferroni over the
``K`` pairs of the scope. Its power has a closed form under a two-level
variance model, so "how many benchmarks", "how many seeds" and "can seeds
help at all" are monotone searches over that closed form.

The model
---------
For a pair (A, B) let ``m_Ab`` be the mean of A's ``r_A`` runs (seeds) on
benchmark ``b`` and ``d_b = m_Ab - m_Bb``, ``b = 1..n``. The benchmarks are
a sample from a population of benchmarks, so

.. math::

    d_b \sim N\bigl(\delta,\; \tau^2 + \sigma^2 (1/r_A + 1/r_B)\bigr)
    \quad\text{independently over } b,

where ``δ`` is the mean difference (positive: A better), ``τ`` the SD over
benchmarks of the pair's true per-benchmark difference (the algorithm x
benchmark interaction) and ``σ`` the SD of one run's score within a cell.
The test is the two-sided one-sample t on the ``d_b`` (df ``n - 1``) at
level ``α/K``. With ``r`` seeds per cell for both algorithms its power is

.. math::

    \text{power}(n, r) = P\bigl(|T_{n-1}(\lambda)| > t_{1-\alpha/(2K),\,n-1}\bigr),
    \qquad \lambda = \frac{\delta\sqrt{n}}{\sqrt{\tau^2 + 2\sigma^2/r}},

with ``T_{n-1}(λ)`` noncentral t (:data:`scipy.stats.nct`). The power grows
with ``n`` and with ``r``, so the smallest sufficient ``n`` (at the current
``r``) and ``r`` (at the current ``n``) are found by doubling and bisection.
More seeds only shrink the ``2σ²/r`` term: as ``r → ∞`` the power tends to
the *ceiling* with ``λ = δ√n/τ``. When the ceiling is below the target, no
number of seeds reaches it: the pair's difference varies across benchmarks,
and only more benchmarks average that variation away.

Pilot estimates
---------------
From a pilot's incumbents, per pair: ``σ̂²`` is the within-cell variance
pooled over the pair's cells (ddof 1, weighted by degrees of freedom; a cell
with one run adds nothing), and

.. math::

    \hat\tau^2 = \max\Bigl(0,\; s_d^2 - \hat\sigma^2\,
    \overline{(1/r_{Ab} + 1/r_{Bb})}\Bigr),

``s_d²`` the sample variance of the ``d_b``. These are the ANOVA (moment)
estimators of the pair's mixed model ``score ~ algorithm + (1|benchmark) +
(1|benchmark:algorithm)`` with ``τ² = 2 Var(benchmark:algorithm)``; in a
balanced design they equal its REML estimates when those are inside the
parameter space. The current seeds ``r`` are the *harmonic* mean
``2 / mean_b(1/r_Ab + 1/r_Bb)``: the number of seeds per cell of the
balanced design whose ``d_b`` have the pilot's variance (the arithmetic mean
when the pilot is balanced). The difference to detect is the pilot's own
by default; a stated ``difference`` (the smallest one that matters) is
better, since planning on an observed effect repeats its noise.

Assumptions: normal ``d_b`` (the t-test's own assumption), benchmarks
exchangeable (a random sample, not hand-picked), one ``σ`` per pair (pooled
over both algorithms and all benchmarks), estimates treated as known (a
pilot of few benchmarks gives a rough plan; plan for a stated difference
and a pessimistic ``τ`` when it matters).

Two companions
--------------
- One benchmark, seeds as the replicates: Welch's two-sample t on the runs
  at ``α/K``, its power by the noncentral t on Hsu's ``min(r_A, r_B) - 1``
  df, the df of the library's own test within a benchmark
  (:func:`welch_power`, :func:`runs_needed`).
- The rank test: ``test="wilcoxon"`` gives the power of the Wilcoxon
  signed-rank test on the ``d_b`` at ``α/K`` (scipy's p-values: exact up to
  50 benchmarks, normal approximation beyond) by seeded simulation from the
  *fitted normal model*, not by resampling the pilot's ``d_b``: the model
  lets both levers move (resampling a pilot's means cannot change the seeds'
  noise in them), it has no ties (resampling a handful of ``d_b`` with
  replacement makes many, which a continuous score does not have), and a
  pilot of few benchmarks is too small to carry a shape worth resampling.
  Under normality the rank test needs about ``π/3`` times the t-test's
  benchmarks (Pitman efficiency 3/π); heavy tails would favour it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from scipy import special, stats

from benchverdict._repr import ResultText
from benchverdict.replicates import BenchmarkReplicates, joins, replicate_means

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

    from benchverdict.results import Results
    from benchverdict.verdict import Verdict

__all__ = ["COMPONENT_COLUMNS", "LEVERS", "PLAN_COLUMNS", "Plan", "benchmarks_needed",
           "estimate_components", "pair_power", "plan", "plan_sentence", "runs_needed",
           "seeds_needed", "welch_power", "wilcoxon_power"]

#: Columns of :func:`estimate_components`.
COMPONENT_COLUMNS = ("a", "b", "difference", "sd_benchmark", "sd_seed", "n_benchmarks",
                     "seeds", "benchmarks_per_replicate")
#: :attr:`Plan.unit` of differences and SDs in the scores' own units ...
SCORE_UNITS = "score units"
#: ... and of differences and SDs of scores z-scored per benchmark.
SD_UNITS = "SD of a benchmark's score"


def stated_amount(value: float | str | None, name: str) -> tuple[float | None, bool]:
    """A stated difference or SD and whether it is in SDs: ``0.02`` or ``"0.2sd"``.

    Examples
    --------
    >>> stated_amount(0.02, "difference"), stated_amount("0.2sd", "difference")
    ((0.02, False), (0.2, True))
    """
    if value is None:
        return None, False
    text = str(value).strip().lower()
    in_sd = text.endswith("sd")
    try:
        number = float(text[:-2] if in_sd else text)
    except ValueError:
        raise ValueError(f"{name}={value!r} is not a number in score units (e.g. 0.02) or in "
                         f"SDs of a benchmark's score (e.g. '0.2sd').") from None
    if not math.isfinite(number):
        raise ValueError(f"{name}={value!r} must be finite. Fix: pass the smallest "
                         f"difference that matters, in score units (0.02) or SDs ('0.2sd').")
    return number, in_sd


#: Columns of :attr:`Plan.table`.
PLAN_COLUMNS = (*COMPONENT_COLUMNS, "power_now", "benchmarks_needed", "seeds_needed",
                "power_ceiling_more_seeds", "lever", "target_power", "alpha", "pairs", "test")
#: Values of the ``lever`` column: the target is already reached; more benchmarks (seeds
#: cannot reach it, or benchmarks need fewer runs); more seeds (fewer runs); nothing can
#: (a zero difference); not known (the current design was not stated).
LEVERS = ("enough", "benchmarks", "seeds", "none", "unknown")
#: Search limits: a plan beyond these is reported as unreachable.
MAX_BENCHMARKS = 100_000
MAX_SEEDS = 10_000_000
#: The simulated Wilcoxon power searches up to this many benchmarks (each value simulates
#: ``n_resamples`` studies of that size).
MAX_BENCHMARKS_WILCOXON = 2_000
#: Largest number of benchmarks for which the Wilcoxon p-value is exact (as scipy's "auto").
_WILCOXON_EXACT_MAX = 50


# --------------------------------------------------------------------------- validation
def _check_sd(value: float, name: str) -> float:
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name}={value!r}: a standard deviation must be finite and >= 0. "
                         f"Fix: pass {name}= as a non-negative number.")
    return value


def _check_level(value: float, name: str) -> float:
    value = float(value)
    if not 0 < value < 1:
        raise ValueError(f"{name}={value!r} must lie strictly between 0 and 1. "
                         f"Fix: e.g. {name}={0.8 if name == 'power' else 0.05}.")
    return value


def _check_pairs(pairs: int) -> int:
    if isinstance(pairs, bool) or int(pairs) != pairs or pairs < 1:
        raise ValueError(f"pairs={pairs!r} must be a whole number >= 1 (the number of pairs "
                         f"compared at once, for Bonferroni). Fix: e.g. pairs=3 for 3 "
                         f"algorithms.")
    return int(pairs)


def _check_count(value: float, name: str, low: float) -> float:
    value = float(value)
    if math.isnan(value) or value < low:
        raise ValueError(f"{name}={value!r} must be >= {low:g}. Fix: pass {name}= of at least "
                         f"{low:g}.")
    return value


# --------------------------------------------------------------------------- t power
def _two_sided_t_power(nc: float, df: float, alpha: float) -> float:
    """P(|T_df(nc)| > t_{1-alpha/2, df}): both tails, as statsmodels counts them."""
    # The special functions behind scipy.stats.t and nct, called directly: the searches
    # for the benchmarks and seeds needed evaluate this hundreds of times per report, and
    # the distribution objects' argument checks cost 100x the computation.
    crit = float(special.stdtrit(df, 1.0 - alpha / 2))
    nc = abs(nc)  # the power is symmetric in the sign of the difference
    far = 1.0 - float(special.nctdtr(df, nc, crit))
    # scipy's nct.cdf returns NaN deep in the tail opposite a large nc, where the true
    # value is below P(T < 0) = Phi(-nc): treat it as that bound's order, 0.
    near = float(special.nctdtr(df, nc, -crit))
    near = near if math.isfinite(near) else 0.0
    if not math.isfinite(far):  # the same guard for the far tail (not seen, but cheap)
        far = float(stats.norm.sf(crit - nc))
    return min(1.0, max(0.0, far) + near)


def _t_power(delta: float, tau: float, sigma: float, n: float, r: float, alpha_k: float
             ) -> float:
    """The paired t's power at level ``alpha_k`` (= α/K) with ``n`` benchmarks, ``r`` seeds."""
    var = tau**2 + (2 * sigma**2 / r if math.isfinite(r) else 0.0)
    if var == 0:  # every d_b equals delta: the test rejects whenever delta is not 0
        return 1.0 if delta != 0 else 0.0
    return _two_sided_t_power(delta * math.sqrt(n) / math.sqrt(var), n - 1, alpha_k)


def pair_power(difference: float, sd_benchmark: float, sd_seed: float, n_benchmarks: int,
               seeds: float, *, alpha: float = 0.05, pairs: int = 1) -> float:
    """Power of the paired t on benchmark means, Bonferroni over ``pairs``.

    ``P(|T_{n-1}(λ)| > t_{1-α/(2K), n-1})`` with ``λ = δ√n / sqrt(τ² +
    2σ²/r)`` (see the module docstring); ``seeds=numpy.inf`` gives the
    ceiling that more seeds approach.

    Parameters
    ----------
    difference : float
        The mean difference ``δ`` to detect, in score units (the sign does
        not matter: the test is two-sided).
    sd_benchmark : float
        ``τ``, the SD over benchmarks of the pair's per-benchmark difference.
    sd_seed : float
        ``σ``, the SD of one run's score within a cell.
    n_benchmarks : int
        Number of benchmarks ``n`` (at least 2).
    seeds : float
        Seeds (runs) per cell ``r`` for both algorithms; may be ``inf``.
    alpha : float
        Family-wise significance level.
    pairs : int
        Number of pairs ``K`` compared at once (the test runs at ``α/K``).

    Returns
    -------
    float
        The probability that the test rejects (the interval excludes 0).

    Examples
    --------
    >>> round(pair_power(0.02, 0.01, 0.05, 20, 10), 4)
    0.9334
    >>> round(pair_power(0.02, 0.04, 0.05, 20, 10, pairs=3), 3)
    0.278
    >>> round(pair_power(0.02, 0.04, 0.05, 20, float("inf"), pairs=3), 3)  # the ceiling
    0.373
    """
    tau, sigma = _check_sd(sd_benchmark, "sd_benchmark"), _check_sd(sd_seed, "sd_seed")
    n = _check_count(n_benchmarks, "n_benchmarks", 2)
    r = _check_count(seeds, "seeds", 1)
    alpha = _check_level(alpha, "alpha")
    return _t_power(float(difference), tau, sigma, n, r, alpha / _check_pairs(pairs))


# --------------------------------------------------------------------------- searches
def _smallest(reaches: Callable[[int], bool], start: int, cap: int) -> int | None:
    """The smallest integer ``x`` in ``[start, cap]`` with ``reaches(x)``, for monotone ``reaches``.

    Doubling brackets it, bisection finds it; ``None`` when even ``cap`` does not reach.
    """
    if reaches(start):
        return start
    low, high = start, start
    while not reaches(high):
        if high >= cap:
            return None
        low, high = high, min(2 * high, cap)
    while high - low > 1:  # reaches(high) and not reaches(low)
        mid = (low + high) // 2
        low, high = (low, mid) if reaches(mid) else (mid, high)
    return high


def benchmarks_needed(difference: float, sd_benchmark: float, sd_seed: float, seeds: float, *,
                      power: float = 0.8, alpha: float = 0.05, pairs: int = 1) -> int | None:
    """The smallest number of benchmarks ``n >= 2`` with ``pair_power >= power`` at ``seeds``.

    Parameters
    ----------
    difference, sd_benchmark, sd_seed, seeds, alpha, pairs
        As in :func:`pair_power`.
    power : float
        The target power.

    Returns
    -------
    int or None
        ``None`` when no number up to :data:`MAX_BENCHMARKS` reaches the
        target (a difference of 0 never does).

    Examples
    --------
    >>> benchmarks_needed(0.02, 0.04, 0.05, 10)
    44
    >>> benchmarks_needed(0.02, 0.04, 0.05, 10, pairs=3)
    58
    >>> benchmarks_needed(0.0, 0.04, 0.05, 10) is None
    True
    """
    tau, sigma = _check_sd(sd_benchmark, "sd_benchmark"), _check_sd(sd_seed, "sd_seed")
    r = _check_count(seeds, "seeds", 1)
    target, alpha_k = _check_level(power, "power"), _check_level(alpha, "alpha") / _check_pairs(
        pairs)
    return _benchmarks_needed(_t_fn(float(difference), tau, sigma, alpha_k), r, target)


def seeds_needed(difference: float, sd_benchmark: float, sd_seed: float, n_benchmarks: int, *,
                 power: float = 0.8, alpha: float = 0.05, pairs: int = 1) -> int | None:
    """The smallest number of seeds per cell ``r >= 1`` with ``pair_power >= power`` at ``n``.

    Parameters
    ----------
    difference, sd_benchmark, sd_seed, n_benchmarks, alpha, pairs
        As in :func:`pair_power`.
    power : float
        The target power.

    Returns
    -------
    int or None
        ``None`` when infeasible: even infinitely many seeds (the ceiling,
        ``pair_power(..., seeds=inf)``) stay below the target, because the
        difference varies across benchmarks (``τ``) and seeds do not
        average that away.

    Examples
    --------
    >>> seeds_needed(0.02, 0.005, 0.05, 20)
    6
    >>> seeds_needed(0.02, 0.04, 0.05, 20) is None  # ceiling below 80%
    True
    >>> round(pair_power(0.02, 0.04, 0.05, 20, float("inf")), 2)
    0.56
    """
    tau, sigma = _check_sd(sd_benchmark, "sd_benchmark"), _check_sd(sd_seed, "sd_seed")
    n = _check_count(n_benchmarks, "n_benchmarks", 2)
    target, alpha_k = _check_level(power, "power"), _check_level(alpha, "alpha") / _check_pairs(
        pairs)
    return _seeds_needed(_t_fn(float(difference), tau, sigma, alpha_k), n, target)


PowerFn = Callable[[float, float], float]  # (n_benchmarks, seeds) -> power


def _t_fn(delta: float, tau: float, sigma: float, alpha_k: float) -> PowerFn:
    return lambda n, r: _t_power(delta, tau, sigma, n, r, alpha_k)


def _benchmarks_needed(fn: PowerFn, r: float, target: float, start: int = 2,
                       cap: int = MAX_BENCHMARKS) -> int | None:
    if fn(cap, r) < target:
        return None
    return _smallest(lambda n: fn(n, r) >= target, start, cap)


def _seeds_needed(fn: PowerFn, n: float, target: float) -> int | None:
    if fn(n, math.inf) < target:  # the ceiling: infeasible by seeds alone
        return None
    return _smallest(lambda r: fn(n, r) >= target, 1, MAX_SEEDS)


# --------------------------------------------------------------------------- Welch
def welch_power(difference: float, sd_a: float, sd_b: float, runs_a: int,
                runs_b: int | None = None, *, alpha: float = 0.05, pairs: int = 1) -> float:
    """Power of Welch's two-sample t on the runs of one benchmark, at ``α/K``.

    ``λ = δ / sqrt(σ_A²/r_A + σ_B²/r_B)`` on Hsu's ``min(r_A, r_B) - 1``
    degrees of freedom: the df of the test the library runs within one
    benchmark (its effect intervals, TOST and the LMEM's per-benchmark
    votes), which holds its level for any ratio of the two variances. It is
    more conservative than the pooled t's ``2r - 2`` with equal variances.

    Parameters
    ----------
    difference : float
        The difference in mean score to detect.
    sd_a, sd_b : float
        The SD of one run's score of each algorithm.
    runs_a : int
        Runs (seeds) of the first algorithm (at least 2).
    runs_b : int, optional
        Runs of the second; default ``runs_a``.
    alpha, pairs
        As in :func:`pair_power`.

    Examples
    --------
    >>> round(welch_power(0.5, 1.0, 1.0, 64), 4)  # the textbook 64 per group: 0.8015 pooled
    0.7953
    >>> round(welch_power(0.5, 0.5, 1.5, 64), 4)
    0.7023
    """
    s_a, s_b = _check_sd(sd_a, "sd_a"), _check_sd(sd_b, "sd_b")
    n_a = _check_count(runs_a, "runs_a", 2)
    n_b = n_a if runs_b is None else _check_count(runs_b, "runs_b", 2)
    alpha_k = _check_level(alpha, "alpha") / _check_pairs(pairs)
    return _welch_power(float(difference), s_a, s_b, n_a, n_b, alpha_k)


def _welch_power(delta: float, s_a: float, s_b: float, n_a: float, n_b: float,
                 alpha_k: float) -> float:
    v_a, v_b = s_a**2 / n_a, s_b**2 / n_b
    if v_a + v_b == 0:
        return 1.0 if delta != 0 else 0.0
    # Hsu's df, min(r_A, r_B) - 1: the test the library runs within one benchmark (effect
    # intervals, TOST, the LMEM's per-benchmark votes). Planned with Welch-Satterthwaite's
    # 2r - 2, 9 runs promised 0.817 power at delta = 2 sd over 10 pairs and delivered 0.653.
    df = min(n_a, n_b) - 1.0
    return _two_sided_t_power(delta / math.sqrt(v_a + v_b), df, alpha_k)


def runs_needed(difference: float, sd_a: float, sd_b: float, *, power: float = 0.8,
                alpha: float = 0.05, pairs: int = 1) -> int | None:
    """Runs per algorithm on one benchmark for Welch's t to reach ``power``.

    Parameters
    ----------
    difference, sd_a, sd_b, alpha, pairs
        As in :func:`welch_power`.
    power : float
        The target power.

    Returns
    -------
    int or None
        The smallest equal number of runs per algorithm (at least 2);
        ``None`` for a zero difference.

    Examples
    --------
    >>> runs_needed(0.5, 1.0, 1.0)
    65
    >>> runs_needed(0.5, 1.0, 1.0, pairs=3)
    87
    """
    s_a, s_b = _check_sd(sd_a, "sd_a"), _check_sd(sd_b, "sd_b")
    target = _check_level(power, "power")
    alpha_k = _check_level(alpha, "alpha") / _check_pairs(pairs)
    delta = float(difference)
    if delta == 0:
        return None
    return _smallest(lambda r: _welch_power(delta, s_a, s_b, r, r, alpha_k) >= target, 2,
                     MAX_SEEDS)


# --------------------------------------------------------------------------- Wilcoxon
def _wilcoxon_rejects(n: int, alpha_k: float) -> np.ndarray:
    """Which values ``0..n(n+1)/2`` of the signed-rank sum W+ reject at ``alpha_k``.

    Exact null distribution up to :data:`_WILCOXON_EXACT_MAX` benchmarks
    (counts of subsets of ``1..n`` by their sum), the normal approximation
    beyond, both two-sided as ``scipy.stats.wilcoxon`` computes them.
    """
    top = n * (n + 1) // 2
    w = np.arange(top + 1)
    if n <= _WILCOXON_EXACT_MAX:
        counts = np.zeros(top + 1)
        counts[0] = 1.0
        for k in range(1, n + 1):  # add rank k to every subset
            counts[k:] = counts[k:] + counts[:-k].copy()
        pmf = counts / counts.sum()
        cdf, sf = np.cumsum(pmf), np.cumsum(pmf[::-1])[::-1]
        p = np.minimum(1.0, 2 * np.minimum(cdf, sf))
    else:
        mean, sd = top / 2, math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
        p = 2 * stats.norm.sf(np.abs(w - mean) / sd)
    # a hair of slack: p-values equal to alpha_k up to rounding reject, as in scipy
    return p <= alpha_k * (1 + 1e-12)


def _wilcoxon_power(delta: float, tau: float, sigma: float, n: float, r: float,
                    alpha_k: float, n_resamples: int, seed: int | None) -> float:
    n = int(n)
    sd = math.sqrt(tau**2 + (2 * sigma**2 / r if math.isfinite(r) else 0.0))
    if sd == 0:
        return 1.0 if delta != 0 and _wilcoxon_rejects(n, alpha_k)[-1] else 0.0
    # One stream per n: the same seed gives the same answer for every call.
    rng = np.random.default_rng([0 if seed is None else seed, n])
    d = delta + sd * rng.standard_normal((n_resamples, n))
    ranks = np.argsort(np.argsort(np.abs(d), axis=1), axis=1) + 1
    w_plus = np.where(d > 0, ranks, 0).sum(axis=1)
    return float(_wilcoxon_rejects(n, alpha_k)[w_plus].mean())


def wilcoxon_power(difference: float, sd_benchmark: float, sd_seed: float, n_benchmarks: int,
                   seeds: float, *, alpha: float = 0.05, pairs: int = 1,
                   n_resamples: int = 2000, seed: int | None = 0) -> float:
    """Simulated power of the Wilcoxon signed-rank test on the ``d_b``, at ``α/K``.

    The ``d_b`` are drawn from the fitted normal model (module docstring,
    "Two companions", says why not by resampling); the p-values are
    scipy's (exact up to 50 benchmarks). The simulation's standard error is
    at most ``0.5 / sqrt(n_resamples)`` (0.011 at the default 2,000).

    Parameters
    ----------
    difference, sd_benchmark, sd_seed, n_benchmarks, seeds, alpha, pairs
        As in :func:`pair_power`.
    n_resamples : int
        Simulated studies.
    seed : int or None
        Seed of the simulation.

    Examples
    --------
    >>> round(wilcoxon_power(0.02, 0.01, 0.05, 20, 10), 2)
    0.92
    >>> wilcoxon_power(0.02, 0.01, 0.05, 5, 10, pairs=10)  # 2/2**5 > 0.005: cannot reject
    0.0
    """
    tau, sigma = _check_sd(sd_benchmark, "sd_benchmark"), _check_sd(sd_seed, "sd_seed")
    n = _check_count(n_benchmarks, "n_benchmarks", 2)
    r = _check_count(seeds, "seeds", 1)
    alpha_k = _check_level(alpha, "alpha") / _check_pairs(pairs)
    return _wilcoxon_power(float(difference), tau, sigma, n, r, alpha_k, int(n_resamples), seed)


def _wilcoxon_fn(delta: float, tau: float, sigma: float, alpha_k: float,
                 n_resamples: int, seed: int | None) -> PowerFn:
    return lambda n, r: _wilcoxon_power(delta, tau, sigma, n, r, alpha_k, n_resamples, seed)


def _wilcoxon_min_benchmarks(alpha_k: float) -> int:
    """The fewest benchmarks at which the exact test can reject at all: 2/2**n <= alpha_k."""
    return max(2, math.ceil(1 - math.log2(alpha_k) - 1e-12))


# --------------------------------------------------------------------------- estimation
def _pilot_view(results: Results, budget: float | None) -> Results:
    """The pilot's incumbents, every algorithm.

    A benchmark's SD (the unit of a z-scored plan) is that of all of them, as
    in the report, whichever pairs are planned.
    """
    return results.incumbents(budget)


def _standardizes(view: Results, standardize: bool | None) -> bool:
    """Whether a pilot is planned in SDs of a benchmark: as stated, else where scales differ.

    Where the scales differ across benchmarks the plan is in SDs of a benchmark, the
    unit of the report's effect sizes (effects.pairwise) and of its LMEM.
    """
    if len(view.benchmarks) < 2 or standardize is False:
        return False
    from benchverdict.scales import scale_check

    return bool(standardize) or scale_check(view).heterogeneous


def estimate_components(results: Results, *, algorithms: Sequence[str] | None = None,
                        budget: float | None = None,
                        standardize: bool | None = None,
                        replicates: BenchmarkReplicates | None = None) -> pd.DataFrame:
    """The planning model's parameters for every pair, from a pilot's incumbents.

    Per pair (module docstring): the mean over common benchmarks of the
    cell-mean differences ``difference`` (``a - b``, positive when ``a`` is
    better, whatever the objective), ``sd_benchmark`` = ``τ̂``, ``sd_seed``
    = ``σ̂`` (NaN when every cell of the pair has a single run: then the
    seeds' noise cannot be told apart from the benchmarks' variation),
    ``n_benchmarks`` (benchmarks where both ran) and ``seeds``. Each
    algorithm's seed variance ``σ̂_a², σ̂_b²`` is its own (pooled over its
    cells): the pilot's noise in a benchmark's difference is ``σ̂_a² / r_a +
    σ̂_b² / r_b``, ``τ̂²`` is the variance of the differences less its mean,
    ``σ̂² = (σ̂_a² + σ̂_b²) / 2`` is the model's (equal seeds ``r`` per cell
    give ``2 σ̂² / r``), and ``seeds`` is the equal number of seeds per cell
    with the pilot's noise (the harmonic mean when the variances are equal;
    ``r`` when every cell has ``r``). Where the scores' scales differ across
    benchmarks (:func:`benchverdict.scales.scale_check`) the scores are
    z-scored per benchmark first, over every algorithm, as the effect sizes
    are: the differences and SDs are then in SDs of a benchmark.
    ``standardize`` ``True``/``False`` states that decision instead (the
    report made it already).

    Where runs are copied between benchmarks (or benchmarks are declared one
    replicate, ``replicates``; default ``results.copied_benchmarks()``), a
    pair's units are its independent replicates, as in its tests
    (:mod:`benchverdict.replicates`): ``difference`` and ``sd_benchmark``
    come from the replicates' mean differences, ``n_benchmarks`` counts the
    replicates, and ``sd_seed`` is the seeds' SD as it reaches a replicate
    mean (a copied cell is one cell, whose noise no average over its copies
    reduces; distinct cells average theirs), so that the plan's benchmarks
    are replicates like these.

    Parameters
    ----------
    results : Results
        The pilot.
    algorithms : sequence of str, optional
        Restrict to these algorithms (default: all).
    budget : float, optional
        Compare incumbents at this budget (default: each run's final one).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COMPONENT_COLUMNS`, one row per pair.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> print(estimate_components(_example_small()).round(4).to_string(index=False))
    a b  difference  sd_benchmark  sd_seed  n_benchmarks  seeds  benchmarks_per_replicate
    a b        0.15           0.0   0.0707             2    2.0                       1.0
    """
    if replicates is None:
        found = getattr(results, "copied_benchmarks", None)
        replicates = found() if callable(found) else BenchmarkReplicates()
    view = _pilot_view(results, budget)
    if _standardizes(view, standardize):
        from benchverdict.scales import standardise_per_benchmark

        view = standardise_per_benchmark(view)
    if algorithms is not None:
        view = view.subset(algorithms=list(algorithms))
    table = view.table
    names = [a for a in view.algorithms if (table["algorithm"] == a).any()]
    n_benchmarks = table["benchmark"].nunique()
    if len(names) < 2:
        raise ValueError(f"planning compares pairs of algorithms, but the pilot has "
                         f"{len(names)} ({', '.join(names) or 'none'}). Fix: include at least "
                         f"2 algorithms (algorithms=).")
    if n_benchmarks < 2:
        raise ValueError(f"planning over benchmarks needs at least 2 benchmarks, but the pilot "
                         f"has {n_benchmarks}. Fix: run the pilot on 2 or more benchmarks, or, "
                         f"on one benchmark, plan runs per algorithm with runs_needed() (Welch's "
                         f"t on the seeds).")
    scores = table["score"].to_numpy(dtype=float) * view.sign  # larger is better
    cells = (pd.DataFrame({"algorithm": table["algorithm"].astype(str).to_numpy(),
                           "benchmark": table["benchmark"].astype(str).to_numpy(),
                           "score": scores})
             .groupby(["algorithm", "benchmark"])["score"].agg(["mean", "var", "count"]))
    mean, var, count = (cells[c].unstack("algorithm") for c in ("mean", "var", "count"))
    rows = []
    for a, b in itertools.combinations(names, 2):
        both = mean[a].notna() & mean[b].notna()
        if both.sum() < 2:
            raise ValueError(f"{a} and {b} share {int(both.sum())} benchmark(s); planning "
                             f"needs 2 or more. Fix: run both on the same benchmarks, or leave "
                             f"one out (algorithms=).")
        d = (mean[a] - mean[b])[both].to_numpy()
        shrink_a = shrink_b = 1.0
        names_both = [str(x) for x in mean.index[both]]
        labels = replicates.labels(names_both)
        if joins(labels):
            d = replicate_means(d, labels)
            shrink_a = _noise_share(replicates, a, names_both, labels)
            shrink_b = _noise_share(replicates, b, names_both, labels)
        r_a, r_b = count[a][both].to_numpy(), count[b][both].to_numpy()
        ss_a = float(((r_a - 1) * var[a][both].fillna(0).to_numpy()).sum())
        ss_b = float(((r_b - 1) * var[b][both].fillna(0).to_numpy()).sum())
        dof_a, dof_b = float((r_a - 1).sum()), float((r_b - 1).sum())
        if dof_a > 0 and dof_b > 0:
            # Each algorithm's own seed variance: a noisy algorithm with few seeds next to a
            # quiet one with many would otherwise put its excess noise into sd_benchmark,
            # and "more seeds cannot do it" would be false.
            var_a, var_b = ss_a / dof_a, ss_b / dof_b
        else:  # one of them has single runs: the other's variance stands for both
            var_a = var_b = (ss_a + ss_b) / (dof_a + dof_b) if dof_a + dof_b > 0 else math.nan
        m_a, m_b = float(np.mean(1 / r_a)), float(np.mean(1 / r_b))
        per_cell = var_a * m_a + var_b * m_b
        # The noise of a replicate's mean difference (per_cell where no copies join cells).
        noise = var_a * m_a * shrink_a + var_b * m_b * shrink_b
        sigma2 = (var_a + var_b) / 2  # the model's sigma^2: equal seeds r give 2 sigma^2 / r
        if per_cell > 0 and not math.isnan(per_cell):
            sigma2 *= noise / per_cell
        tau2 = max(0.0, float(np.var(d, ddof=1)) - noise) if not math.isnan(noise) else math.nan
        # The equal seeds per cell with the pair's current noise: 1 / m when both algorithms
        # have the same seeds (r when every cell has r), else weighted by their variances.
        seeds = (1 / m_a if m_a == m_b else 2 * sigma2 / noise if noise > 0
                 else 2 / (m_a + m_b))  # no noise: the harmonic mean, symmetric in a, b
        rows.append({"a": a, "b": b, "difference": float(d.mean()),
                     "sd_benchmark": math.sqrt(tau2), "sd_seed": math.sqrt(sigma2),
                     "n_benchmarks": len(d), "seeds": float(seeds),
                     "benchmarks_per_replicate": float(both.sum()) / len(d)})
    return pd.DataFrame(rows, columns=list(COMPONENT_COLUMNS))


def _noise_share(replicates: BenchmarkReplicates, alg: str, names: list[str],
                 labels: np.ndarray) -> float:
    """How much of one cell's seed noise reaches a replicate mean of ``alg``, on average.

    A replicate ``S`` averages ``alg``'s cells on its benchmarks; cells joined by
    ``alg``'s own copies are one cell. With classes of ``n_c`` benchmarks, the
    mean's variance is ``sum_c (n_c / |S|)^2`` times one cell's: 1 for copies
    alone, ``1 / |S|`` for distinct cells.
    """
    own = BenchmarkReplicates({alg: replicates.copies.get(alg, ())}).labels(names)
    shares = []
    for rep_id in np.unique(labels):
        classes = own[labels == rep_id]
        _, n_c = np.unique(classes, return_counts=True)
        shares.append(float(np.sum((n_c / classes.size) ** 2)))
    return float(np.mean(shares))


# --------------------------------------------------------------------------- the plan
_TEST_NAMES = {"t": "paired t on benchmark means", "wilcoxon": "Wilcoxon signed-rank on "
               "benchmark means"}


def _fmt_seeds(r: float) -> str:
    return f"{r:.3g}"


def plan_sentence(row: Mapping[str, Any] | pd.Series, *, unit: str = "") -> str:
    """One sentence saying whether a pair's comparison has the power, and what would give it.

    ``row`` is a row of :attr:`Plan.table` (a Series or a mapping with its
    columns); the report uses this to explain a pair it leaves unsettled.
    ``unit`` follows each difference and SD (e.g. ``" SD of a benchmark's
    score"``; empty: the score's own units).

    Examples
    --------
    >>> p = plan(difference=0.02, sd_benchmark=0.04, sd_seed=0.05, n_benchmarks=20, seeds=10)
    >>> print(plan_sentence(p.table.iloc[0]))  # doctest: +NORMALIZE_WHITESPACE
    A vs B: 46% power now to detect a difference of 0.02 (target 80%; paired t on benchmark
    means, alpha 0.05 over 1 pair). More benchmarks: 44 at 10 seeds (now 20). More seeds alone
    cannot reach 80% (at most 56% with 20 benchmarks), because the pair's difference varies
    across benchmarks (sd 0.04), which no number of seeds averages away.
    """
    a, b = row["a"], row["b"]
    delta, target = float(row["difference"]), float(row["target_power"])
    n, r = row["n_benchmarks"], row["seeds"]
    n_known, r_known = pd.notna(n), pd.notna(r)
    test = (f"{_TEST_NAMES[row['test']]}, alpha {row['alpha']:g} over {int(row['pairs'])} "
            f"pair{'s' if int(row['pairs']) > 1 else ''}")
    if delta == 0:
        return (f"{a} vs {b}: the difference is 0, so no number of runs detects it ({test}). "
                f"Plan for the smallest difference that matters: difference= "
                f"(--difference).")
    lever = row["lever"]
    size = float(row.get("benchmarks_per_replicate", 1.0) or 1.0)
    # Where copied runs or a declared task join benchmarks, the units are replicates.
    units = "benchmarks" if size <= 1.0 else "independent replicates"
    head = f"{a} vs {b}: "
    if n_known and r_known:
        head += f"{row['power_now']:.0%} power now to detect a difference of {delta:.3g}{unit} "
    else:
        head += f"to detect a difference of {delta:.3g}{unit} "
    head += f"(target {target:.0%}; {test})."
    if size > 1.0:
        head += (f" Its units are independent replicates of about {size:.2g} benchmarks each "
                 f"(benchmarks joined by copied runs or a declared task count once).")
    if lever == "enough":
        return (f"{head} Enough: {int(n)} {units} at {_fmt_seeds(r)} seeds already reach "
                f"the target.")
    parts = [head]
    n_need, r_need = row["benchmarks_needed"], row["seeds_needed"]
    if r_known:
        now = f" (now {int(n)})" if n_known else ""
        parts.append(f"More {units}: {int(n_need)} at {_fmt_seeds(r)} seeds{now}."
                     if pd.notna(n_need) else
                     f"More {units}: not within {MAX_BENCHMARKS:,}.")
    if n_known:
        ceiling = float(row["power_ceiling_more_seeds"])
        if pd.isna(r_need):
            parts.append(
                f"More seeds alone cannot reach {target:.0%} (at most {ceiling:.0%} with "
                f"{int(n)} {units}), because the pair's difference varies across benchmarks "
                f"(sd {row['sd_benchmark']:.3g}), which no number of seeds averages away.")
        else:
            now = f" (now {_fmt_seeds(r)})" if r_known else ""
            parts.append(f"More seeds: {int(r_need)} per cell at {int(n)} {units}{now}.")
    if lever in ("benchmarks", "seeds") and pd.notna(n_need) and pd.notna(r_need):
        by_benchmarks, by_seeds = (int(n_need) * float(r) * size,
                                   int(n) * int(r_need) * size)
        cheaper, costly = sorted([by_benchmarks, by_seeds])
        parts.append(f"Fewer runs by more {units if lever == 'benchmarks' else lever}: "
                     f"{cheaper:,.0f} rather than {costly:,.0f} per algorithm.")
    return " ".join(parts)


@dataclass(frozen=True, repr=False)
class Plan(ResultText):
    """Power now, and the benchmarks or seeds a pairwise comparison needs.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per pair, columns :data:`PLAN_COLUMNS`: the model's
        parameters (``difference`` ``a - b``, positive: ``a`` better;
        ``sd_benchmark`` = τ, ``sd_seed`` = σ, the current ``n_benchmarks``
        and ``seeds``), ``power_now``, ``benchmarks_needed`` (at the current
        seeds), ``seeds_needed`` (at the current benchmarks; missing when
        infeasible), ``power_ceiling_more_seeds`` (infinitely many seeds),
        ``lever`` (one of :data:`LEVERS`) and the target, alpha, pairs and
        test they were planned for.
    target_power : float
        The power aimed for.
    alpha : float
        Family-wise significance level.
    pairs : int
        Pairs compared at once; every test runs at ``alpha / pairs``.
    test : {"t", "wilcoxon"}
        The test planned for.
    source : {"pilot", "stated"}
        Whether the parameters came from a pilot or were stated.
    unit : str
        What the differences and SDs are in: :data:`SCORE_UNITS`, or
        :data:`SD_UNITS` where the pilot was z-scored per benchmark (its
        scales differ) or the values were stated as ``"0.2sd"``.
    """

    table: pd.DataFrame
    target_power: float
    alpha: float
    pairs: int
    test: str
    source: str
    unit: str = "score units"

    def sentences(self) -> list[str]:
        """One sentence per pair (:func:`plan_sentence`), in the plan's unit."""
        unit = "" if self.unit == SCORE_UNITS else f" {self.unit}"
        return [plan_sentence(row, unit=unit) for _, row in self.table.iterrows()]

    def scope_sentence(self, *, settled: Sequence[tuple[str, str]] = ()) -> str:
        """What would settle every open pair of the scope at once ("" when nothing is open).

        The pairs not yet at the target (leaving out ``settled`` ones, in
        either orientation) need the largest of their benchmark counts; more
        seeds settle them all only if every one of them can be settled by
        seeds. Each pair is planned for its own difference (the pilot's, or
        the stated one).

        Examples
        --------
        >>> p = plan(difference=0.02, sd_benchmark=0.04, sd_seed=0.05, n_benchmarks=20,
        ...          seeds=10)
        >>> print(p.scope_sentence())  # doctest: +NORMALIZE_WHITESPACE
        To settle all 1 open pair(s) at 80% power each: 44 benchmarks at 10 seeds (the
        hardest pair: A vs B, 46% power now); more seeds alone cannot do it.
        """
        done = {frozenset(p) for p in settled}
        t = self.table
        decided = np.array([frozenset((a, b)) in done for a, b in zip(t["a"], t["b"])],
                           dtype=bool)
        open_ = t[(t["lever"] != "enough").to_numpy() & ~decided
                  & (t["difference"] != 0).to_numpy()]
        if not len(open_):
            return ""
        needed = open_["benchmarks_needed"]
        hardest = open_.loc[needed.astype(float).fillna(np.inf).idxmax()]
        r = hardest["seeds"]
        if needed.isna().any():
            by_benchmarks = f"not within {MAX_BENCHMARKS:,} benchmarks"
        else:
            by_benchmarks = (f"{int(needed.max())} benchmarks"
                             + (f" at {_fmt_seeds(r)} seeds" if pd.notna(r) else ""))
        seeds = open_["seeds_needed"]
        by_seeds = ("more seeds alone cannot do it" if seeds.isna().any() else
                    f"or {int(seeds.max())} seeds per cell at the current benchmarks")
        now = (f", {hardest['power_now']:.0%} power now" if pd.notna(hardest["power_now"])
               else "")
        return (f"To settle all {len(open_)} open pair(s) at {self.target_power:.0%} power "
                f"each: {by_benchmarks} (the hardest pair: {hardest['a']} vs "
                f"{hardest['b']}{now}); {by_seeds}.")

    def summary(self) -> str:
        """The sentences, one per line, and the scope's (also ``str(plan)``)."""
        scope = self.scope_sentence()
        return "\n".join([*self.sentences(), *([scope] if scope else [])])

    def _summary_lines(self) -> list[str]:
        levers = self.table["lever"].value_counts()
        counts = ", ".join(f"{k}: {v}" for k, v in levers.items())
        return [f"plan for {len(self.table)} pair(s) from {self.source} values, target power "
                f"{self.target_power:.0%} at alpha {self.alpha:g} over {self.pairs} pair(s), "
                f"{self.test} test; levers: {counts}"]

    def verdicts(self) -> list[Verdict]:
        """No verdicts: a plan decides nothing about which algorithm is better (empty list)."""
        return []

    def plot(self, ax: plt.Axes | None = None, *, pair: tuple[str, str] | None = None
             ) -> plt.Axes:
        """Power against the number of benchmarks for a few seed counts, with the target.

        The curves are the paired t's closed form (also for a Wilcoxon
        plan, whose simulated power is a little lower under normality). By
        default the first pair the target is not reached for (else the
        first pair); ``pair=(a, b)`` picks one.

        Examples
        --------
        >>> p = plan(difference=0.02, sd_benchmark=0.04, sd_seed=0.05, n_benchmarks=20,
        ...          seeds=10)
        >>> ax = p.plot()
        >>> [line.get_label() for line in ax.get_lines()][:2]
        ['10 seeds', '20 seeds']
        """
        from benchverdict.plotting import ALGORITHM_PALETTE, LINE_STYLES, new_axes, theme

        row = self._row(pair)
        ax = new_axes(ax)
        delta, tau, sigma = (float(row[c]) for c in ("difference", "sd_benchmark", "sd_seed"))
        n_now, r_now = row["n_benchmarks"], row["seeds"]
        r_base = float(r_now) if pd.notna(r_now) else 1.0
        seeds = sorted({r_base, 2 * r_base, 4 * r_base})
        n_need = row["benchmarks_needed"]
        top = max(10, 2 * int(n_need) if pd.notna(n_need) else 0,
                  2 * int(n_now) if pd.notna(n_now) else 0)
        grid = np.unique(np.linspace(2, min(top, 2000), 200).round().astype(int))
        alpha_k = self.alpha / self.pairs
        with theme():
            for i, r in enumerate([*seeds, math.inf]):
                label = "unlimited seeds" if math.isinf(r) else f"{_fmt_seeds(r)} seeds"
                ys = [_t_power(delta, tau, sigma, n, r, alpha_k) for n in grid]
                ax.plot(grid, ys, color=ALGORITHM_PALETTE[i % len(ALGORITHM_PALETTE)],
                        linestyle=LINE_STYLES[i % len(LINE_STYLES)], label=label)
            ax.axhline(self.target_power, color="0.4", linewidth=0.8, linestyle=":",
                       label=f"target {self.target_power:.0%}")
            if pd.notna(n_now):
                ax.axvline(float(n_now), color="0.6", linewidth=0.8, label="benchmarks now")
            ax.set_xlabel("benchmarks")
            ax.set_ylabel("power")
            ax.set_ylim(0, 1.02)
            ax.set_title(f"{row['a']} vs {row['b']}: difference {delta:.3g}")
            ax.legend(loc="lower right")
        return ax

    def _row(self, pair: tuple[str, str] | None) -> pd.Series:
        t = self.table
        if pair is not None:
            a, b = pair
            hit = t[((t["a"] == a) & (t["b"] == b)) | ((t["a"] == b) & (t["b"] == a))]
            if hit.empty:
                raise ValueError(f"no pair {pair!r} in the plan; pairs: "
                                 f"{list(zip(t['a'], t['b']))}.")
            return hit.iloc[0]
        open_ = t[t["lever"] != "enough"]
        return (open_ if len(open_) else t).iloc[0]


def plan(pilot: Results | None = None, *, difference: float | str | None = None,
         sd_benchmark: float | str | None = None, sd_seed: float | str | None = None,
         n_benchmarks: int | None = None, seeds: float | None = None, power: float = 0.8,
         alpha: float = 0.05, pairs: int | None = None,
         algorithms: Sequence[str] | None = None, budget: float | None = None,
         test: Literal["t", "wilcoxon"] = "t", n_resamples: int = 2000,
         seed: int | None = 0, standardize: bool | None = None,
         replicates: BenchmarkReplicates | None = None) -> Plan:
    """Plan the runs that would settle every pair: from a pilot, or from stated variances.

    With a pilot, every pair's parameters come from
    :func:`estimate_components` and ``pairs`` defaults to the number of
    pairs ``K`` (Bonferroni, as the pairwise intervals); any of
    ``difference``, ``sd_benchmark``, ``sd_seed``, ``n_benchmarks`` and
    ``seeds`` given as well replaces the pilot's value for every pair (e.g.
    the smallest difference that matters). Without a pilot, ``difference``,
    ``sd_benchmark`` and ``sd_seed`` are required, ``pairs`` defaults to 1,
    and the current design (``n_benchmarks``, ``seeds``) is optional: the
    lever that needs it is left empty.

    Parameters
    ----------
    pilot : Results, optional
        Pilot results.
    difference : float or str, optional
        Difference to detect (default: each pair's observed difference), in
        score units (``0.02``) or in SDs of a benchmark's score (``"0.2sd"``).
        A pilot whose scales differ across benchmarks is planned in SDs, and
        then a number in score units is refused (it would be misread).
    sd_benchmark, sd_seed : float or str, optional
        ``τ`` and ``σ`` (module docstring), in the same unit as ``difference``.
    n_benchmarks : int, optional
        Current number of benchmarks. With a pilot whose benchmarks are
        joined into replicates (copied runs, declared groups), it is divided
        by each pair's ``benchmarks_per_replicate`` (rounded down; fewer than
        2 is refused): the plan counts independent replicates, as the tests do.
    seeds : float, optional
        Current seeds per cell.
    power : float
        Target power.
    alpha : float
        Family-wise significance level.
    pairs : int, optional
        Pairs compared at once (Bonferroni).
    algorithms : sequence of str, optional
        With a pilot: restrict to these algorithms.
    budget : float, optional
        With a pilot: compare incumbents at this budget (default: final).
    test : {"t", "wilcoxon"}
        Plan for the paired t (default, closed form) or for the Wilcoxon
        signed-rank test (simulated; slower).
    n_resamples : int
        With ``test="wilcoxon"``: simulated studies per power value.
    seed : int or None
        With ``test="wilcoxon"``: seed of the simulation.
    standardize : bool, optional
        Whether to z-score the pilot per benchmark (default: where the scales
        differ across benchmarks, :func:`estimate_components`, or where the
        stated values are in SDs). :attr:`Plan.unit` says which.
    replicates : BenchmarkReplicates, optional
        With a pilot: which benchmarks are one replicate of a pair (default:
        the pilot's copied runs; :func:`benchverdict.replicates.pair_replicates`
        adds declared groups). The plan then counts replicates, as the tests do.

    Returns
    -------
    Plan

    Examples
    --------
    >>> p = plan(difference=0.02, sd_benchmark=0.005, sd_seed=0.05, n_benchmarks=20, seeds=4)
    >>> p.table[["power_now", "benchmarks_needed", "seeds_needed", "lever"]].round(3)
       power_now  benchmarks_needed  seeds_needed   lever
    0      0.662                 28             6  benchmarks
    >>> from benchverdict.results import _example_small
    >>> plan(_example_small()).table.loc[0, "lever"]
    'benchmarks'
    """
    target = _check_level(power, "power")
    alpha = _check_level(alpha, "alpha")
    if test not in _TEST_NAMES:
        raise ValueError(f"test={test!r} is not one of {sorted(_TEST_NAMES)}. Fix: test='t' "
                         f"(the paired t of the pairwise intervals) or test='wilcoxon'.")
    amounts = {name: stated_amount(value, name) for name, value in
               (("difference", difference), ("sd_benchmark", sd_benchmark),
                ("sd_seed", sd_seed))}
    in_sd = sorted(name for name, (v, sd) in amounts.items() if v is not None and sd)
    in_score = sorted(name for name, (v, sd) in amounts.items() if v is not None and not sd)
    if in_sd and in_score:
        raise ValueError(f"{', '.join(in_sd)} in SDs of a benchmark but {', '.join(in_score)} "
                         f"in score units: state them in one unit (all as '0.2sd', or all as "
                         f"numbers).")
    stated = {**{name: v for name, (v, _) in amounts.items()},
              "n_benchmarks": n_benchmarks, "seeds": seeds}
    for name in ("sd_benchmark", "sd_seed"):
        if stated[name] is not None:
            stated[name] = _check_sd(stated[name], name)
    if n_benchmarks is not None:
        stated["n_benchmarks"] = int(_check_count(n_benchmarks, "n_benchmarks", 2))
    if seeds is not None:
        stated["seeds"] = _check_count(seeds, "seeds", 1)
    unit = SD_UNITS if in_sd else SCORE_UNITS
    if pilot is not None:
        if in_sd and standardize is False:
            raise ValueError(f"{', '.join(in_sd)} in SDs of a benchmark, but standardize=False "
                             f"plans on the raw scores. Fix: state them in score units, or drop "
                             f"standardize=False.")
        standardized = True if in_sd else _standardizes(_pilot_view(pilot, budget),
                                                        standardize)
        if standardized and in_score and standardize is None:
            # Read silently as SDs, 0.1 would have meant 0.1 SD of a benchmark's score.
            raise ValueError(
                f"the pilot's scores are on different scales across benchmarks, so the plan "
                f"is in SDs of a benchmark's score, but {', '.join(in_score)} "
                f"{'is' if len(in_score) == 1 else 'are'} in score units. Fix: state "
                f"{'it' if len(in_score) == 1 else 'them'} in SDs, e.g. difference='0.2sd' "
                f"(in Python, standardize=False plans on the raw scores instead).")
        unit = SD_UNITS if standardized else SCORE_UNITS
        standardize = standardized
    if pilot is None:
        if algorithms is not None or budget is not None:
            raise ValueError("algorithms= and budget= choose from a pilot, but no pilot was "
                             "given. Fix: pass the pilot Results, or drop them.")
        missing = [k for k in ("difference", "sd_benchmark", "sd_seed") if stated[k] is None]
        if missing:
            raise ValueError(f"without a pilot, planning needs {', '.join(missing)}. Fix: pass "
                             f"{', '.join(f'{k}=' for k in missing)} (or a pilot Results).")
        if n_benchmarks is None and seeds is None:
            raise ValueError("without a pilot, state the current design: n_benchmarks= (for the "
                             "seeds lever), seeds= (for the benchmarks lever), or both.")
        components = pd.DataFrame([{"a": "A", "b": "B", **stated,
                                    "benchmarks_per_replicate": 1.0}])
        k = 1 if pairs is None else _check_pairs(pairs)
        source = "stated"
    else:
        components = estimate_components(pilot, algorithms=algorithms, budget=budget,
                                         standardize=standardize, replicates=replicates)
        for name, value in stated.items():
            if value is not None:
                components[name] = float(value) if name != "n_benchmarks" else value
        if n_benchmarks is not None:
            # The plan counts independent replicates, as the tests do: a stated number of
            # benchmarks holds n / (benchmarks per replicate) of them (floor: no more
            # evidence than the benchmarks hold), at least 2.
            per = components["benchmarks_per_replicate"].astype(float).to_numpy()
            held = np.floor(stated["n_benchmarks"] / per + 1e-9).astype(int)
            if (held < 2).any():
                first = components[held < 2].iloc[0]
                raise ValueError(
                    f"n_benchmarks={stated['n_benchmarks']} holds fewer than 2 independent "
                    f"replicates of {first['a']} vs {first['b']} (the pilot's copies join "
                    f"about {float(first['benchmarks_per_replicate']):.3g} benchmarks into "
                    f"one), and a test across benchmarks needs 2. Fix: state at least "
                    f"{int(np.ceil(2 * float(per.max())))} benchmarks.")
            components["n_benchmarks"] = held
        k = len(components) if pairs is None else _check_pairs(pairs)
        source = "pilot"
        unknown = components["sd_seed"].isna() | components["sd_benchmark"].isna()
        if unknown.any():
            first = components[unknown].iloc[0]
            raise ValueError(f"{first['a']} and {first['b']} have one run per benchmark in the "
                             f"pilot, so the seeds' noise (sd_seed) cannot be told apart from "
                             f"the benchmarks' variation (sd_benchmark). Fix: run 2 or more "
                             f"seeds on some benchmarks, or pass sd_seed= and sd_benchmark=.")
    alpha_k = alpha / k
    rows = []
    for _, c in components.iterrows():
        rows.append(_plan_row(c, target, alpha, alpha_k, k, test, n_resamples, seed))
    table = pd.DataFrame(rows, columns=list(PLAN_COLUMNS))
    for name in ("n_benchmarks", "benchmarks_needed", "seeds_needed"):
        table[name] = table[name].astype("Int64")
    return Plan(table=table, target_power=target, alpha=alpha, pairs=k, test=test,
                source=source, unit=unit)


def _plan_row(c: pd.Series, target: float, alpha: float, alpha_k: float, k: int, test: str,
              n_resamples: int, seed: int | None) -> dict[str, Any]:
    delta, tau, sigma = float(c["difference"]), float(c["sd_benchmark"]), float(c["sd_seed"])
    n, r = c["n_benchmarks"], c["seeds"]
    n_known, r_known = pd.notna(n), pd.notna(r)
    if test == "t":
        fn, start, cap = _t_fn(delta, tau, sigma, alpha_k), 2, MAX_BENCHMARKS
    else:
        fn = _wilcoxon_fn(delta, tau, sigma, alpha_k, n_resamples, seed)
        start, cap = _wilcoxon_min_benchmarks(alpha_k), MAX_BENCHMARKS_WILCOXON
    out: dict[str, Any] = {**{name: c[name] for name in COMPONENT_COLUMNS},
                           "power_now": math.nan, "benchmarks_needed": None,
                           "seeds_needed": None, "power_ceiling_more_seeds": math.nan,
                           "target_power": target, "alpha": alpha, "pairs": k, "test": test}
    if n_known and r_known:
        out["power_now"] = fn(float(n), float(r))
    if n_known:
        out["power_ceiling_more_seeds"] = fn(float(n), math.inf)
    if delta != 0:
        if r_known:
            out["benchmarks_needed"] = _benchmarks_needed(fn, float(r), target, start, cap)
        if n_known:
            out["seeds_needed"] = _seeds_needed(fn, float(n), target)
    out["lever"] = _lever(out, delta, n_known, r_known, target)
    return out


def _lever(out: Mapping[str, Any], delta: float, n_known: bool, r_known: bool,
           target: float) -> str:
    if delta == 0:
        return "none"
    if n_known and r_known and out["power_now"] >= target:
        return "enough"
    n_need, r_need = out["benchmarks_needed"], out["seeds_needed"]
    if n_need is None and r_need is None:
        return "none" if n_known and r_known else "unknown"
    if r_need is None:
        return "benchmarks" if n_need is not None else "unknown"
    if n_need is None:
        return "seeds"
    # both reach the target: the one needing fewer runs per algorithm
    return "seeds" if out["n_benchmarks"] * r_need < n_need * out["seeds"] else "benchmarks"
