r"""Practical equivalence: a user-set margin and the two one-sided tests (TOST).

"Cannot be separated" says the data lack evidence of a difference; it does
not say the algorithms are practically the same. With a margin ``m`` that
the user sets (there is no universal one: 0.5 accuracy points matter in one
field and not in another), "A and B are practically equivalent" means
``|delta| < m`` for the pair's mean difference ``delta``. Schuirmann's
(1987) two one-sided tests reject ``delta <= -m`` and ``delta >= m`` each at
level ``alpha``; the pair is declared equivalent when both reject, i.e. when

.. math:: p_{\mathrm{TOST}} = \max\{1 - F_\nu((\hat\delta + m)/s),\;
          F_\nu((\hat\delta - m)/s)\} \le \alpha,

with ``s`` the contrast's standard error and ``F_nu`` the Student ``t``
distribution on its ``nu`` degrees of freedom (the same contrast as the
effect interval, :mod:`benchverdict.effects.pairwise`). TOST is an
intersection-union test, so it holds its level without a multiplicity
correction across the two sides; the report puts the TOST p-values of all
pairs into the same Holm family as the votes that settle relations, so
"settled" and "equivalent" claims together keep the family-wise error at
``alpha``.

A margin is in the score's units, or in standard deviations of a
benchmark's scores (``"0.2sd"``): the unit the effect sizes use where the
scores' scales differ across benchmarks.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
from scipy import stats

_MARGIN = re.compile(r"^\s*(?P<value>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(?P<sd>sd)?\s*$",
                     re.IGNORECASE)


@dataclass(frozen=True)
class Margin:
    """A margin of practical equivalence: ``|difference| < value``.

    Attributes
    ----------
    value : float
        Positive and finite.
    standardized : bool
        ``True``: in run-to-run standard deviations of a benchmark, each
        pair's own (the pooled SD of the two algorithms' runs within their
        cells: Cohen's d's unit, which neither the distance to another
        algorithm nor its noise inflates; the benchmark's SD over every cell,
        :func:`benchverdict.scales.run_sd_per_benchmark`, only where the
        pair's runs hold no spread); ``False``: in the score's own units.

    Examples
    --------
    >>> Margin.parse("0.01"), Margin.parse("0.2sd").text("accuracy")
    (Margin(value=0.01, standardized=False), '0.2 run-to-run SD of a benchmark')
    """

    value: float
    standardized: bool = False

    def __post_init__(self) -> None:
        if not (isinstance(self.value, int | float) and math.isfinite(self.value)
                and self.value > 0):
            raise ValueError(f"margin must be a positive finite number, got {self.value!r}; "
                             f"e.g. margin=0.01 (score units) or margin='0.2sd'.")

    @classmethod
    def parse(cls, spec: Margin | float | str) -> Margin:
        """A margin from a number (score units), ``"0.01"`` or ``"0.2sd"`` (standardised).

        Examples
        --------
        >>> Margin.parse(0.5).value, Margin.parse("0.25 SD").standardized
        (0.5, True)
        """
        if isinstance(spec, Margin):
            return spec
        if isinstance(spec, bool):
            raise ValueError(f"margin must be a number or text like '0.2sd', got {spec!r}.")
        if isinstance(spec, int | float | np.floating | np.integer):
            return cls(float(spec))
        match = _MARGIN.match(str(spec))
        if match is None:
            raise ValueError(f"margin {spec!r} is not a number in score units (e.g. 0.01) or "
                             f"in standard deviations of a benchmark (e.g. 0.2sd).")
        return cls(float(match["value"]), standardized=match["sd"] is not None)

    @property
    def spec(self) -> str:
        """The margin as text that :meth:`parse` reads back ("0.01", "0.2sd").

        Examples
        --------
        >>> Margin.parse(Margin(0.2, standardized=True).spec) == Margin(0.2, True)
        True
        """
        return f"{self.value!r}" + ("sd" if self.standardized else "")

    def text(self, unit: str = "") -> str:
        """The margin in words, with the score's unit where it is in score units."""
        if self.standardized:
            return f"{self.value:g} run-to-run SD of a benchmark"
        return f"{self.value:g}" + (f" {unit}" if unit else "")


def tost_p_value(estimate: np.ndarray | float, se: np.ndarray | float,
                 df: np.ndarray | float, margin: np.ndarray | float) -> np.ndarray:
    r"""Two one-sided tests of ``|delta| >= margin``: the larger one-sided p-value.

    Parameters
    ----------
    estimate, se, df : array_like
        The contrast, its standard error and degrees of freedom (``inf``:
        normal). Where ``se`` is 0 the p-value is 0 if ``|estimate| <
        margin`` and 1 otherwise; where it is not finite, NaN.
    margin : array_like
        Positive (one, or one per estimate; NaN gives NaN).

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    The paired case equals statsmodels' ``ttost_paired``:

    >>> import numpy as np
    >>> from statsmodels.stats.weightstats import ttost_paired
    >>> d = np.array([0.01, -0.02, 0.015, 0.0, 0.005, -0.01])
    >>> p = tost_p_value(d.mean(), d.std(ddof=1) / np.sqrt(6), 5, 0.05)
    >>> bool(np.isclose(p, ttost_paired(d, np.zeros(6), -0.05, 0.05)[0]))
    True
    """
    est, s, nu, m = np.broadcast_arrays(
        np.asarray(estimate, dtype=float), np.asarray(se, dtype=float),
        np.asarray(df, dtype=float), np.asarray(margin, dtype=float))
    out = np.full(est.shape, np.nan)
    known = np.isfinite(est) & np.isfinite(s) & np.isfinite(m)
    ok = known & (s > 0) & ~np.isnan(nu) & (nu > 0)
    if ok.any():
        lower = stats.t.sf((est[ok] + m[ok]) / s[ok], nu[ok])  # H0: delta <= -m
        upper = stats.t.cdf((est[ok] - m[ok]) / s[ok], nu[ok])  # H0: delta >= m
        out[ok] = np.maximum(lower, upper)
    exact = known & (s == 0)
    out[exact] = np.where(np.abs(est[exact]) < m[exact], 0.0, 1.0)
    return out


__all__ = ["Margin", "tost_p_value"]
