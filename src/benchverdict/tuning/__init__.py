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

from __future__ import annotations

from typing import TYPE_CHECKING

from benchverdict._lazy import load_on_first_use

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
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

# Where each public name lives: the package imports a module when one of its names is first
# used, so `benchverdict <command> --help` does not load pandas, scipy and matplotlib.
_HOMES = {
    'CDFBand': 'benchverdict.stats.cdf_bands',
    'TuningComparison': 'benchverdict.tuning.compare',
    'TuningCurve': 'benchverdict.tuning.curves',
    'TuningCurves': 'benchverdict.tuning.collection',
    'bootstrap_band': 'benchverdict.tuning.bootstrap',
    'budget_table': 'benchverdict.tuning.guidance',
    'cdf_band': 'benchverdict.stats.cdf_bands',
    'compare_curves': 'benchverdict.tuning.compare',
    'default_budgets': 'benchverdict.tuning.curves',
    'estimator_weights': 'benchverdict.tuning.estimators',
    'expected_max': 'benchverdict.tuning.estimators',
    'from_results': 'benchverdict.tuning.collection',
    'largest_budget': 'benchverdict.tuning.guidance',
    'quantile_levels': 'benchverdict.tuning.estimators',
    'quantile_tuning_curve': 'benchverdict.tuning.estimators',
    'sample_size': 'benchverdict.tuning.guidance',
    'tuning_curve': 'benchverdict.tuning.curves',
}

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

load_on_first_use(__name__)
