"""The names of the CDF band methods, apart from their numerics.

The command line lists them as choices when it builds its parser (for
``--help``), before anything loads numpy or scipy; :mod:`~benchverdict.stats.cdf_bands`
implements them.

Examples
--------
>>> METHODS[0]
'ld_highest_density'
"""

from __future__ import annotations

#: The band methods :func:`~benchverdict.stats.cdf_bands.cdf_band` accepts.
METHODS = ("ld_highest_density", "ld_equal_tailed", "ks", "dkw")
