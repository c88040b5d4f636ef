"""The LMEM critical-difference diagram (Geburek et al. 2024, App. A.3).

Algorithms are placed at their estimated marginal means; pairs whose
Tukey-adjusted contrasts are not significant are joined into groups; and,
because contrasts have different standard errors, the critical difference is
a range: ``q_{1-alpha, k, df} / sqrt(2) * se`` over all pairs. Drawing is the
shared :mod:`benchverdict.critical_difference` code used by the rank tests.

These functions take the model's marginal means and Tukey contrasts as
tables (:meth:`MixedModel.emmeans <benchverdict.lmem.model.MixedModel.emmeans>`,
:meth:`MixedModel.pairwise <benchverdict.lmem.model.MixedModel.pairwise>`),
not the model, so the fitted type imports this module and not the reverse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from benchverdict.critical_difference import draw_cd_diagram, not_different_from_p_values
from benchverdict.stats.studentized_range import studentized_range_quantile

if TYPE_CHECKING:
    import matplotlib.pyplot as plt


def cd_inputs(means: pd.Series, pairs: pd.DataFrame, *, alpha: float = 0.05
              ) -> tuple[pd.Series, pd.DataFrame, tuple[float, float]]:
    """The not-different matrix and the range of per-pair critical differences.

    Parameters
    ----------
    means : pandas.Series
        Marginal mean per level (indexed by level).
    pairs : pandas.DataFrame
        Tukey contrasts of those levels: ``a, b, se, df, p_value_adjusted``.
    alpha : float

    Returns
    -------
    (means, not_different, (smallest, largest critical difference))

    Examples
    --------
    >>> means = pd.Series({"A": 0.0, "B": 1.0, "C": 3.0})
    >>> pairs = pd.DataFrame({"a": ["A", "A", "B"], "b": ["B", "C", "C"], "se": [1.0] * 3,
    ...                       "df": [np.inf] * 3, "p_value_adjusted": [0.5, 0.01, 0.2]})
    >>> _, nd, cd = cd_inputs(means, pairs)
    >>> bool(nd.loc["A", "B"]), bool(nd.loc["A", "C"]), round(cd[0], 3)
    (True, False, 2.344)
    """
    names = list(means.index)
    p = pd.DataFrame(np.nan, index=names, columns=names)
    for r in pairs.itertuples():
        p.loc[r.a, r.b] = p.loc[r.b, r.a] = r.p_value_adjusted
    k = len(names)
    crit = studentized_range_quantile(1 - alpha, k, pairs["df"].to_numpy()) / np.sqrt(2)
    cds = crit * pairs["se"].to_numpy()
    return means, not_different_from_p_values(p, alpha), (float(cds.min()), float(cds.max()))


def lmem_cd_diagram(means: pd.Series, pairs: pd.DataFrame, *, alpha: float = 0.05,
                    lower_is_better: bool = True, response: str = "score",
                    ax: plt.Axes | None = None) -> plt.Axes:
    """Draw the LMEM CD diagram from marginal means and Tukey contrasts (see the module)."""
    means, not_different, cd_range = cd_inputs(means, pairs, alpha=alpha)
    return draw_cd_diagram(
        means, not_different, lower_is_better=lower_is_better,
        critical_difference_range=cd_range,
        axis_label=f"marginal mean of {response} (Tukey HSD, alpha = {alpha:g})",
        value_format="{:.4g}", ax=ax,
    )
