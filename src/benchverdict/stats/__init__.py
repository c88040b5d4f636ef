"""Shared statistics: exact order-statistic probabilities and simultaneous CDF bands.

Used by :mod:`benchverdict.tuning` (tuning-curve bands) and
:mod:`benchverdict.dse` (confidence bands on performance CDFs).

* :func:`order_statistics_band_probability` -- exact
  ``P(l_i <= U_(i) <= u_i for all i)`` for uniform order statistics.
* :func:`cdf_band` -> :class:`CDFBand` -- DKW, exact KS, and
  Learned-Miller-DeStefano (equal-tailed / highest-density) bands.
* :func:`ld_critical_value`, :func:`ks_critical_value`, :func:`dkw_epsilon`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchverdict._lazy import load_on_first_use

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from benchverdict.stats.beta_intervals import (
        beta_equal_tailed_interval,
        beta_highest_density_interval,
        order_statistic_intervals,
    )
    from benchverdict.stats.cdf_bands import (
        METHODS,
        CDFBand,
        cdf_band,
        dkw_epsilon,
        ks_critical_value,
        ld_band_probability,
        ld_critical_value,
        order_statistic_bounds,
    )
    from benchverdict.stats.order_statistics import order_statistics_band_probability

# Where each public name lives: the package imports a module when one of its names is first
# used, so `benchverdict <command> --help` does not load pandas, scipy and matplotlib.
_HOMES = {
    'CDFBand': 'benchverdict.stats.cdf_bands',
    'METHODS': 'benchverdict.stats.cdf_bands',
    'beta_equal_tailed_interval': 'benchverdict.stats.beta_intervals',
    'beta_highest_density_interval': 'benchverdict.stats.beta_intervals',
    'cdf_band': 'benchverdict.stats.cdf_bands',
    'dkw_epsilon': 'benchverdict.stats.cdf_bands',
    'ks_critical_value': 'benchverdict.stats.cdf_bands',
    'ld_band_probability': 'benchverdict.stats.cdf_bands',
    'ld_critical_value': 'benchverdict.stats.cdf_bands',
    'order_statistic_bounds': 'benchverdict.stats.cdf_bands',
    'order_statistic_intervals': 'benchverdict.stats.beta_intervals',
    'order_statistics_band_probability': 'benchverdict.stats.order_statistics',
}

__all__ = [
    "METHODS",
    "CDFBand",
    "beta_equal_tailed_interval",
    "beta_highest_density_interval",
    "cdf_band",
    "dkw_epsilon",
    "ks_critical_value",
    "ld_band_probability",
    "ld_critical_value",
    "order_statistic_bounds",
    "order_statistic_intervals",
    "order_statistics_band_probability",
]

load_on_first_use(__name__)
