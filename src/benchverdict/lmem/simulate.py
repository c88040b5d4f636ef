"""Synthetic benchmark results with planted effects, after Geburek et al. (2024), App. C.

The appendix checks each sanity check on data where the answer is known:
seed-dependent algorithms (their Fig. 14), benchmarks on which algorithms do
not differ (Fig. 16), and algorithms whose advantage changes with the budget
(Fig. 18). :func:`simulate_results` generates such data from one Gaussian
model; every knob defaults to "no effect", so the default is null data::

    score = benchmark_offset[b] + algorithm_effect[a] * informative[b]
            + seed_effect[a, s] + budget_slope[a] * budget + noise

with ``benchmark_offset ~ N(0, benchmark_sd^2)``, ``seed_effect[a, s] ~
N(0, seed_sd[a]^2)`` (one draw per algorithm and seed, shared across
benchmarks and budgets) and ``noise ~ N(0, noise_sd^2)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from benchverdict.results import Results


def simulate_results(
    *,
    algorithms: Sequence[str] = ("A", "B", "C"),
    n_benchmarks: int = 6,
    n_seeds: int = 10,
    budgets: Sequence[float] = (1.0,),
    algorithm_effect: Mapping[str, float] | None = None,
    benchmark_sd: float = 1.0,
    seed_sd: Mapping[str, float] | None = None,
    budget_slope: Mapping[str, float] | None = None,
    uninformative: Sequence[int] = (),
    noise_sd: float = 1.0,
    objective: str = "minimize",
    seed: int | np.random.Generator | None = None,
) -> Results:
    """Simulate a Results table with the planted effects described in the module docstring.

    Parameters
    ----------
    algorithms : sequence of str
    n_benchmarks, n_seeds : int
    budgets : sequence of float
        One row per algorithm x benchmark x seed x budget.
    algorithm_effect : mapping, optional
        Mean shift per algorithm (default 0 for all).
    benchmark_sd : float
        Standard deviation of the benchmark offsets.
    seed_sd : mapping, optional
        Standard deviation of each algorithm's seed effect (default 0).
    budget_slope : mapping, optional
        Each algorithm's slope in the budget (default 0).
    uninformative : sequence of int
        Indices of benchmarks on which ``algorithm_effect`` is switched off.
    noise_sd : float
    objective : {"minimize", "maximize"}
    seed : int, numpy.random.Generator or None, optional

    Returns
    -------
    Results

    Examples
    --------
    >>> res = simulate_results(n_benchmarks=2, n_seeds=3, seed=0)
    >>> len(res), res.algorithms
    (18, ['A', 'B', 'C'])
    """
    rng = np.random.default_rng(seed)
    algs = list(algorithms)
    effect = {a: 0.0 for a in algs} | dict(algorithm_effect or {})
    seed_sds = {a: 0.0 for a in algs} | dict(seed_sd or {})
    slopes = {a: 0.0 for a in algs} | dict(budget_slope or {})
    benchmarks = [f"bench{i:02d}" for i in range(n_benchmarks)]
    offsets = rng.normal(0.0, benchmark_sd, n_benchmarks)
    seed_effects = {a: rng.normal(0.0, seed_sds[a], n_seeds) for a in algs}
    informative = np.ones(n_benchmarks)
    informative[list(uninformative)] = 0.0
    a_idx, b_idx, s_idx, f_idx = np.meshgrid(
        np.arange(len(algs)), np.arange(n_benchmarks), np.arange(n_seeds),
        np.arange(len(budgets)), indexing="ij")
    a_idx, b_idx, s_idx, f_idx = (x.ravel() for x in (a_idx, b_idx, s_idx, f_idx))
    budget = np.asarray(budgets, dtype=float)[f_idx]
    eff = np.array([effect[a] for a in algs])[a_idx] * informative[b_idx]
    seed = np.array([seed_effects[a] for a in algs])[a_idx, s_idx]
    slope = np.array([slopes[a] for a in algs])[a_idx] * budget
    score = offsets[b_idx] + eff + seed + slope + rng.normal(0.0, noise_sd, len(a_idx))
    frame = pd.DataFrame({
        "algorithm": np.array(algs)[a_idx], "benchmark": np.array(benchmarks)[b_idx],
        "seed": s_idx, "budget": budget, "score": score,
    })
    return Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark", seed="seed",
                              budget="budget", score="score", objective=objective, kind="runs")
