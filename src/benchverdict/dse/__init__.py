"""DSE: performance distributions after Jordan, Cohen & Thomas (2018).

Jordan et al. describe an algorithm by the distribution of its performance
over every source of variation (hyperparameters drawn from a fixed
distribution, data, seeds) and compare algorithms by that distribution: its
CDF and inverse CDF, its CVaR (the mean of the best share of draws), and the
area above a threshold. One idea per module:

* :mod:`~benchverdict.dse.statistics`: mean, quantiles, CVaR (both tails),
  threshold area, AU-CDF, exceedance probability, all honouring ``objective``;
* :mod:`~benchverdict.dse.intervals`: distribution-free band intervals (from
  the shared CDF bands) and bootstrap intervals;
* :mod:`~benchverdict.dse.compare`: first-order dominance test, CDF
  crossings, CVaR differences, the single-draw probability with its test;
* :mod:`~benchverdict.dse.clusters`: draws that come in runs (a seed's
  search): whole runs are permuted and resampled, standard errors are
  cluster-robust, so the run is the unit of replication;
* :mod:`~benchverdict.dse.distribution`: :func:`distribution`, the result
  object with ``.table``, ``.plot()`` and ``.verdicts()``;
* :mod:`~benchverdict.dse.aggregate`: per-benchmark normalisation and
  rliable's robust aggregates with a vectorised stratified bootstrap;
* :mod:`~benchverdict.dse.profiles`: rliable's performance profiles and
  probability of improvement, with stratified-bootstrap bands;
* :mod:`~benchverdict.dse.protocol`: :func:`run_protocol`, the paper's
  Algorithm 1 and its DSE-Tuning variant.

Examples
--------
>>> from benchverdict.dse import cvar
>>> round(cvar([0.6, 0.7, 0.8, 0.9], 0.5), 12)
0.85
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchverdict._lazy import load_on_first_use

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from benchverdict.dse.aggregate import AggregateResult, aggregate, normalize_frame
    from benchverdict.dse.compare import (
        DominanceTest,
        PermutationTest,
        SingleDrawTest,
        crossings,
        cvar_difference,
        cvar_permutation_test,
        dominance_test,
        single_draw_test,
    )
    from benchverdict.dse.distribution import DistributionResult, distribution, verdicts_by_pair
    from benchverdict.dse.intervals import Interval, band_interval, bootstrap_interval, interval
    from benchverdict.dse.profiles import (
        ImprovementProbabilities,
        PerformanceProfile,
        improvement_probabilities,
        performance_profile,
    )
    from benchverdict.dse.protocol import run_protocol
    from benchverdict.dse.statistics import (
        au_cdf,
        cvar,
        exceedance_probability,
        mean,
        quantile,
        statistic,
        threshold_area,
    )

# Where each public name lives: the package imports a module when one of its names is first
# used, so `benchverdict <command> --help` does not load pandas, scipy and matplotlib.
_HOMES = {
    'AggregateResult': 'benchverdict.dse.aggregate',
    'ImprovementProbabilities': 'benchverdict.dse.profiles',
    'PerformanceProfile': 'benchverdict.dse.profiles',
    'improvement_probabilities': 'benchverdict.dse.profiles',
    'performance_profile': 'benchverdict.dse.profiles',
    'DistributionResult': 'benchverdict.dse.distribution',
    'DominanceTest': 'benchverdict.dse.compare',
    'Interval': 'benchverdict.dse.intervals',
    'PermutationTest': 'benchverdict.dse.compare',
    'SingleDrawTest': 'benchverdict.dse.compare',
    'aggregate': 'benchverdict.dse.aggregate',
    'au_cdf': 'benchverdict.dse.statistics',
    'band_interval': 'benchverdict.dse.intervals',
    'bootstrap_interval': 'benchverdict.dse.intervals',
    'crossings': 'benchverdict.dse.compare',
    'cvar': 'benchverdict.dse.statistics',
    'cvar_difference': 'benchverdict.dse.compare',
    'cvar_permutation_test': 'benchverdict.dse.compare',
    'distribution': 'benchverdict.dse.distribution',
    'dominance_test': 'benchverdict.dse.compare',
    'exceedance_probability': 'benchverdict.dse.statistics',
    'interval': 'benchverdict.dse.intervals',
    'mean': 'benchverdict.dse.statistics',
    'normalize_frame': 'benchverdict.dse.aggregate',
    'quantile': 'benchverdict.dse.statistics',
    'run_protocol': 'benchverdict.dse.protocol',
    'single_draw_test': 'benchverdict.dse.compare',
    'statistic': 'benchverdict.dse.statistics',
    'threshold_area': 'benchverdict.dse.statistics',
    'verdicts_by_pair': 'benchverdict.dse.distribution',
}

__all__ = [
    "AggregateResult",
    "DistributionResult",
    "DominanceTest",
    "ImprovementProbabilities",
    "Interval",
    "PerformanceProfile",
    "PermutationTest",
    "SingleDrawTest",
    "aggregate",
    "au_cdf",
    "band_interval",
    "bootstrap_interval",
    "crossings",
    "cvar",
    "cvar_difference",
    "cvar_permutation_test",
    "distribution",
    "dominance_test",
    "exceedance_probability",
    "improvement_probabilities",
    "interval",
    "mean",
    "normalize_frame",
    "performance_profile",
    "quantile",
    "run_protocol",
    "single_draw_test",
    "statistic",
    "threshold_area",
    "verdicts_by_pair",
]

load_on_first_use(__name__)
