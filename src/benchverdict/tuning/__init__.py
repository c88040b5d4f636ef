"""Tuning curves: how good the best of ``k`` random-search trials is, and how sure we are.

After Dodge et al. (2019, 2021), Tang et al. (2020) and Lourie, Cho & He
(2024); opda 0.8.0 is the reference implementation.

* Point estimates: :func:`expected_max` (V, U, W estimators of the expected
  best score) and :func:`quantile_tuning_curve` (median and other quantile
  curves) -- :mod:`benchverdict.tuning.estimators`.
* Bands: :func:`tuning_curve` builds median / quantile curves with exactly
  simultaneous bands and mean curves with conservative bands from a
  simultaneous CDF band (:func:`cdf_band`, shared with DSE via
  :mod:`benchverdict.stats`); :func:`bootstrap_band` is the percentile
  bootstrap baseline the papers show failing.
* Decisions: :func:`compare_curves` rates the evidence between two curves per budget
  range (Lourie et al. §2: weak / fair / strong) as :class:`~benchverdict.Verdict`
  records; :func:`from_results` does it for every (algorithm, benchmark) of a
  :class:`~benchverdict.Results` of random-search trials.
* Planning: :func:`largest_budget` and :func:`sample_size`
  (:mod:`benchverdict.tuning.guidance`).
"""

from benchverdict.stats.cdf_bands import CDFBand, cdf_band
from benchverdict.tuning.bootstrap import bootstrap_band
from benchverdict.tuning.collection import TuningCurves, from_results
from benchverdict.tuning.compare import TuningComparison, compare_curves
from benchverdict.tuning.curves import TuningCurve, default_budgets, tuning_curve
from benchverdict.tuning.estimators import (
    estimator_weights,
    expected_max,
    quantile_levels,
    quantile_tuning_curve,
)
from benchverdict.tuning.guidance import budget_table, largest_budget, sample_size

__all__ = [
    "CDFBand",
    "TuningComparison",
    "TuningCurve",
    "TuningCurves",
    "bootstrap_band",
    "budget_table",
    "cdf_band",
    "compare_curves",
    "default_budgets",
    "estimator_weights",
    "expected_max",
    "from_results",
    "largest_budget",
    "quantile_levels",
    "quantile_tuning_curve",
    "sample_size",
    "tuning_curve",
]
