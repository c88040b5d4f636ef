"""Multiplicity adjustment of a family of p-values: Holm and Bonferroni, once for every module.

Holm's (1979) step-down adjusted p-value of the ``i``-th smallest of ``m``
p-values is ``max_{j <= i} min(1, (m - j + 1) p_(j))``. Rejecting where it is
at most ``alpha`` controls the family-wise error rate at ``alpha`` under any
dependence between the tests, like Bonferroni's ``min(1, m p)``, and rejects
at least as much. Ties keep their input order (a stable sort), so the result
does not depend on how equal p-values are listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

__all__ = ["Adjustment", "adjust_p_values", "holm"]

Adjustment = Literal["holm", "bonferroni", "none"]


def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (monotone in the raw p; valid under any dependence).

    Parameters
    ----------
    p_values : sequence of float
        The raw p-values of one family of tests.

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the input order, each at most 1.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def adjust_p_values(p_values: Sequence[float] | np.ndarray,
                    method: Adjustment = "holm") -> np.ndarray:
    """Adjust a family of p-values: ``"holm"`` (step-down), ``"bonferroni"`` or ``"none"``.

    Parameters
    ----------
    p_values : sequence of float
        The raw p-values of one family of tests.
    method : {"holm", "bonferroni", "none"}
        The adjustment; ``"none"`` returns a copy of the raw p-values.

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, in the input order.

    Examples
    --------
    >>> adjust_p_values([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_p_values([0.01, 0.04, 0.03], "bonferroni").round(3).tolist()
    [0.03, 0.12, 0.09]
    """
    p = np.asarray(p_values, dtype=float)
    if method == "holm":
        return holm(p)
    if method == "bonferroni":
        return np.minimum(1.0, p * p.size)
    if method == "none":
        return p.copy()
    raise ValueError(f"method must be 'holm', 'bonferroni' or 'none', got {method!r}.")
