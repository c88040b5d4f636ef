"""The LMEM critical-difference diagram (Geburek et al. 2024, App. A.3).

Algorithms are placed at their estimated marginal means; pairs whose
Tukey-adjusted contrasts are not significant are joined into groups; and,
because contrasts have different standard errors, the critical difference is
a range: ``q_{1-alpha, k, df} / sqrt(2) * se`` over all pairs. Drawing is the
shared :mod:`benchverdict.critical_difference` code used by the rank tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from benchverdict.critical_difference import draw_cd_diagram, not_different_from_p_values
from benchverdict.stats.studentized_range import studentized_range_quantile

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

    from benchverdict.lmem.model import MixedModel


def cd_inputs(model: MixedModel, factor: str = "algorithm", *, alpha: float = 0.05,
              df: str = "auto") -> tuple[pd.Series, pd.DataFrame, tuple[float, float]]:
    """Marginal means, the not-different matrix and the range of per-pair critical differences."""
    means = model.emmeans(factor, df=df).set_index(factor)["emmean"]
    pairs = model.pairwise(factor, "tukey", df=df)
    names = list(means.index)
    p = pd.DataFrame(np.nan, index=names, columns=names)
    for r in pairs.itertuples():
        p.loc[r.a, r.b] = p.loc[r.b, r.a] = r.p_value_adjusted
    k = len(names)
    crit = studentized_range_quantile(1 - alpha, k, pairs["df"].to_numpy()) / np.sqrt(2)
    cds = crit * pairs["se"].to_numpy()
    return means, not_different_from_p_values(p, alpha), (float(cds.min()), float(cds.max()))


def lmem_cd_diagram(model: MixedModel, *, factor: str = "algorithm", alpha: float = 0.05,
                    ax: plt.Axes | None = None, df: str = "auto") -> plt.Axes:
    """Draw the LMEM CD diagram of ``model`` (see the module docstring)."""
    means, not_different, cd_range = cd_inputs(model, factor, alpha=alpha, df=df)
    lower_is_better = model.objective != "maximize"
    return draw_cd_diagram(
        means, not_different, lower_is_better=lower_is_better,
        critical_difference_range=cd_range,
        axis_label=f"marginal mean of {model.formula.response} (Tukey HSD, alpha = {alpha:g})",
        value_format="{:.4g}", ax=ax,
    )
