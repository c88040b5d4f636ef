"""Statistics of a performance distribution: mean, quantiles, CVaR, threshold areas.

Jordan, Cohen & Thomas (2018) describe an algorithm by the distribution of
its performance ``Z`` over every source of variation (hyperparameters drawn
from a fixed distribution, data samples, seeds) and summarise it by
statistics of that distribution. Every function here works on *performance*
``Z = sign * score`` (larger is better; ``sign = -1`` for
``objective="minimize"``) and reports results back in the user's units, so
"upper tail", "high quantile" and "exceeds a threshold" always mean *good*
results, whatever the direction of the score.

Definitions (``F`` is the CDF of ``Z`` and ``F^{-1}(u) = inf{z : F(z) >= u}``
its left-continuous inverse):

* quantile at level ``q``: ``F^{-1}(q)`` (the point estimate interpolates,
  see :func:`quantile`);
* ``CVaR_l`` at CVaR level ``l`` (upper tail, the paper's): the mean of the
  best ``1 - l`` fraction in the Rockafellar-Uryasev (2002) / Acerbi-Tasche
  (2002) form, ``(1 / (1 - l)) * integral_l^1 F^{-1}(u) du``. For a
  continuous ``F`` this equals the conditional expectation
  ``E[Z | Z >= F^{-1}(l)]``; for a discrete ``F`` (an empirical sample) the
  two differ: the atom at the quantile counts only with the fraction of its
  mass that lies above level ``l`` (``cvar([1, 2, 3], 0.5)`` is
  ``(0.5 * 2 + 3) / 1.5 = 2.667``, whereas ``E[Z | Z >= 2] = 2.5``). The
  R-U form is the one Jordan et al. cite; it is coherent and exact for
  discrete distributions. ``l = 0`` gives the mean;
* the lower-tail (risk) version: the mean of the worst ``l`` fraction,
  ``(1 / l) * integral_0^l F^{-1}(u) du``;
* the area above a threshold ``tau``: the area between the CDF and 1 to the
  right of ``tau``, ``integral_tau^inf (1 - F(z)) dz = E[(Z - tau)^+]``, the
  expected amount by which performance exceeds ``tau`` (in score units);
  normalised by ``bound - tau`` when the best attainable score ``bound`` is
  known, it lies in [0, 1];
* the normalised area under the CDF on ``[low, high]``:
  ``(1 / (high - low)) * integral_low^high F(z) dz`` (smaller is better);
* the probability of exceeding a threshold: ``P(Z > tau) = 1 - F(tau)``.

The empirical estimators plug in the empirical distribution of the draws.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from benchverdict.results import Objective, check_objective

Tail = Literal["upper", "lower"]


# ----------------------------------------------------------------------------- validation
#: Raised when a CVaR level is passed as ``alpha``.
_ALPHA_IS_SIGNIFICANCE = (
    "the CVaR level is called cvar_level (alpha means a significance level everywhere in "
    "benchverdict); pass cvar_level=..."
)

def _sign(objective: str) -> float:
    return 1.0 if check_objective(objective) == "maximize" else -1.0


def as_sample(scores: object, name: str = "scores") -> np.ndarray:
    """A finite, non-empty 1-d float array, or a clear error.

    Examples
    --------
    >>> as_sample([0.3, 0.1])
    array([0.3, 0.1])
    """
    x = np.asarray(scores, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {x.shape}.")
    if x.size == 0:
        raise ValueError(f"{name} is empty; a performance distribution needs at least one draw.")
    bad = ~np.isfinite(x)
    if bad.any():
        where = np.flatnonzero(bad)[:5].tolist()
        raise ValueError(
            f"{name} has {int(bad.sum())} non-finite value(s) at positions {where}; drop or fix "
            f"them (Results.from_frame(..., on_invalid='drop') records what it drops)."
        )
    return x


def check_cvar_level(cvar_level: float, tail: str) -> float:
    """Validate a CVaR level for ``tail`` (``[0, 1)`` upper, ``(0, 1]`` lower).

    Examples
    --------
    >>> check_cvar_level(0.5, "upper")
    0.5
    """
    if tail not in ("upper", "lower"):
        raise ValueError(f"tail must be 'upper' or 'lower', got {tail!r}.")
    level = float(cvar_level)
    if tail == "upper" and not 0.0 <= level < 1.0:
        raise ValueError(
            f"the CVaR level must be in [0, 1) for the upper tail (the mean of the best "
            f"1 - level fraction), got {level}."
        )
    if tail == "lower" and not 0.0 < level <= 1.0:
        raise ValueError(
            f"the CVaR level must be in (0, 1] for the lower tail (the mean of the worst "
            f"level fraction), got {level}."
        )
    return level


# ----------------------------------------------------------------------------- discrete laws
def tail_weights(cumulative: np.ndarray, cvar_level: float, tail: Tail) -> np.ndarray:
    """Weights of each atom in the CVaR tail integral of a discrete distribution.

    ``cumulative`` holds the CDF after each atom (increasing, last = 1). The
    weight of atom ``i`` is the length of ``[c_{i-1}, c_i]`` that lies in the
    tail's level range (``[cvar_level, 1]`` or ``[0, cvar_level]``) divided by the
    range's length, so the atom at the quantile gets only its fractional
    share.

    Examples
    --------
    >>> tail_weights(np.array([0.25, 0.5, 0.75, 1.0]), 0.6, "upper")
    array([0.   , 0.   , 0.375, 0.625])
    """
    c = np.asarray(cumulative, dtype=float)
    prev = np.concatenate([[0.0], c[:-1]])
    if tail == "upper":
        c = c.copy()
        c[-1] = 1.0  # guard against round-off leaving the top atom short of level 1
        return np.clip(c - np.maximum(prev, cvar_level), 0.0, None) / (1.0 - cvar_level)
    return np.clip(np.minimum(c, cvar_level) - prev, 0.0, None) / cvar_level


def _weighted_sum(values: np.ndarray, weights: np.ndarray) -> float:
    """``sum(weights * values)`` where atoms of zero weight never contribute (even at inf)."""
    used = weights > 0
    return float(np.sum(weights[used] * values[used]))


@dataclass(frozen=True)
class DiscreteLaw:
    """A discrete distribution of performance: sorted atoms and their probabilities.

    Used for the empirical distribution of a sample and for the extreme
    distributions inside a CDF band (whose atoms may sit at infinite support
    bounds).

    Examples
    --------
    >>> law = DiscreteLaw.empirical(np.array([3.0, 1.0, 2.0, 4.0]))
    >>> law.cvar(0.5, "upper")
    3.5
    """

    values: np.ndarray
    probs: np.ndarray

    @classmethod
    def empirical(cls, z: np.ndarray) -> DiscreteLaw:
        """The empirical distribution of the oriented sample ``z``."""
        values, counts = np.unique(z, return_counts=True)
        return cls(values, counts / counts.sum())

    @property
    def cumulative(self) -> np.ndarray:
        """The CDF after each atom."""
        return np.cumsum(self.probs)

    def mean(self) -> float:
        """The expectation."""
        return _weighted_sum(self.values, self.probs)

    def quantile(self, q: float) -> float:
        """``inf{z : F(z) >= q}`` (for ``q = 0``: the lowest atom with positive mass)."""
        c = self.cumulative
        positive = np.flatnonzero(self.probs > 0)
        if q <= 0:
            return float(self.values[positive[0]])
        # Tolerance so that a level equal to a CDF value up to round-off picks that atom.
        i = int(np.searchsorted(c, q - 1e-12, side="left"))
        i = min(max(i, positive[0]), len(c) - 1)
        return float(self.values[i])

    def cvar(self, cvar_level: float, tail: Tail) -> float:
        """The tail mean at CVaR level ``cvar_level`` (see the module docstring)."""
        return _weighted_sum(self.values, tail_weights(self.cumulative, cvar_level, tail))

    def threshold_area(self, tau: float, cap: float = np.inf) -> float:
        """``E[min((Z - tau)^+, cap)]``."""
        gain = np.minimum(np.clip(self.values - tau, 0.0, None), cap)
        return _weighted_sum(gain, self.probs)

    def exceedance(self, tau: float) -> float:
        """``P(Z > tau)``."""
        return float(np.sum(self.probs[self.values > tau]))


# ----------------------------------------------------------------------------- statistic specs
@dataclass(frozen=True)
class Statistic:
    """A statistic of a performance distribution, in every form the intervals need.

    All forms take oriented performance (larger is better) and are
    non-decreasing under first-order stochastic dominance, which is what lets
    a CDF band bound them by its two extreme distributions.

    Attributes
    ----------
    name : str
        A label, e.g. ``"cvar_0.5"``.
    of_law : callable
        ``DiscreteLaw -> float`` (oriented).
    of_rows : callable
        ``(B, n) array of oriented resamples -> (B,)``, vectorised.
    location : bool
        True when the value is a score (converted back by ``sign``); False
        for areas and probabilities (no sign change).
    se_rows : callable or None
        ``(B, n) -> (B,)``: the plug-in standard error of the estimate from
        its empirical influence function, ``sd(IF(Z)) / sqrt(n)`` (for the
        studentized bootstrap); ``None`` for quantiles (whose standard error
        needs a density estimate).
    kind : str
        ``"mean"``, ``"quantile"``, ``"cvar"``, ``"threshold_area"`` or
        ``"exceedance"`` (what the weighted, clustered forms in
        :mod:`benchverdict.dse.clusters` dispatch on).
    params : tuple
        The statistic's parameters: ``(q,)``, ``(cvar_level, tail)``,
        ``(threshold, cap)`` or ``(threshold,)``.
    """

    name: str
    of_law: Callable[[DiscreteLaw], float]
    of_rows: Callable[[np.ndarray], np.ndarray]
    location: bool
    se_rows: Callable[[np.ndarray], np.ndarray] | None = None
    kind: str = ""
    params: tuple = ()

    def of_sample(self, z: np.ndarray) -> float:
        """The plug-in estimate from an oriented sample."""
        return float(self.of_rows(np.asarray(z, dtype=float)[None, :])[0])

    def to_user(self, value: float, sign: float) -> float:
        """Convert an oriented value back to the user's units."""
        return sign * value if self.location else value


def _sorted_rows(rows: np.ndarray) -> np.ndarray:
    """``rows`` sorted along axis 1 (a linear check first: resamples often come sorted)."""
    if rows.shape[1] > 1 and not np.all(rows[:, 1:] >= rows[:, :-1]):
        return np.sort(rows, axis=1)
    return rows


def _order_statistics(rows: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """The order statistics ``lo..hi-1`` of each row, ascending (``sort(rows)[:, lo:hi]``).

    Rows that come sorted are sliced; otherwise a partition at ``lo`` and
    ``hi - 1`` gathers exactly those values into ``lo..hi-1``, and only they
    are sorted (a CVaR's tail, not the whole row).
    """
    if rows.shape[1] <= 1 or np.all(rows[:, 1:] >= rows[:, :-1]):
        return rows[:, lo:hi]
    kth = sorted({lo, hi - 1})
    return np.sort(np.partition(rows, kth, axis=1)[:, lo:hi], axis=1)


def _rows_cvar(level: float, tail: Tail) -> Callable[[np.ndarray], np.ndarray]:
    def f(rows: np.ndarray) -> np.ndarray:
        n = rows.shape[1]
        w = tail_weights(np.arange(1, n + 1) / n, level, tail)
        used = np.flatnonzero(w)  # a contiguous run: only the tail's order statistics
        lo, hi = int(used[0]), int(used[-1]) + 1
        return _order_statistics(rows, lo, hi) @ w[lo:hi]

    return f


def _influence_se(values: np.ndarray) -> np.ndarray:
    """``sd(IF) / sqrt(n)`` per row of influence-function values."""
    n = values.shape[1]
    if n < 2:
        return np.zeros(values.shape[0])
    return values.std(axis=1, ddof=1) / np.sqrt(n)


def _se_cvar(level: float, tail: Tail) -> Callable[[np.ndarray], np.ndarray]:
    r"""Plug-in standard error of the empirical CVaR from its influence function.

    For the upper tail (Rockafellar-Uryasev form) with ``v = F^{-1}(level)``,
    :math:`IF(z) = v + (z - v)^+ / (1 - level) - CVaR`; for the lower tail
    :math:`IF(z) = v + \min(z - v, 0) / level - CVaR`.
    """
    def f(rows: np.ndarray) -> np.ndarray:
        n = rows.shape[1]
        s = _sorted_rows(rows)
        i = min(max(int(np.ceil(level * n - 1e-12)) - 1, 0), n - 1)
        # v and CVaR are constants within a row, so sd(IF) = sd((z - v)^+) / (1 - level)
        # (upper tail) or sd(min(z - v, 0)) / level (lower tail).
        # Only the tail's order statistics are non-zero: sum over them (two-pass, with
        # the zeros' share added back), which is what makes permutations cheap.
        if tail == "upper":
            part = np.maximum(s[:, i:] - s[:, i:i + 1], 0.0)
            scale = 1.0 - level
        else:
            part = np.minimum(s[:, :i + 1] - s[:, i:i + 1], 0.0)
            scale = level
        if n < 2:
            return np.zeros(s.shape[0])
        # Scaled per row before squaring, so that scores near 1e150 do not overflow.
        size = np.max(np.abs(part), axis=1)
        size = np.where(size > 0, size, 1.0)
        part = part / size[:, None]
        mean = part.sum(axis=1) / n
        ss = ((part - mean[:, None]) ** 2).sum(axis=1) + (n - part.shape[1]) * mean ** 2
        return size * np.sqrt(ss / (n - 1)) / np.sqrt(n) / scale

    return f


def statistic(name: str, **params: float) -> Statistic:
    """Build a :class:`Statistic` by name.

    Parameters
    ----------
    name : {"mean", "quantile", "cvar", "threshold_area", "exceedance"}
    **params
        ``q`` for quantiles; ``cvar_level`` and ``tail`` for CVaR; ``threshold``
        (oriented) and optional ``cap`` for the threshold area; ``threshold``
        for the exceedance probability.

    Examples
    --------
    >>> s = statistic("cvar", cvar_level=0.5, tail="upper")
    >>> s.of_sample(np.array([1.0, 2.0, 3.0, 4.0]))
    3.5
    """
    if name == "mean":
        return Statistic("mean", DiscreteLaw.mean, lambda r: r.mean(axis=1), True,
                         _influence_se, "mean")
    if name == "quantile":
        q = float(params["q"])
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"quantile level q must be in [0, 1], got {q}.")
        return Statistic(
            f"quantile_{q:g}", lambda law: law.quantile(q),
            lambda r: np.quantile(r, q, axis=1), True, None, "quantile", (q,),
        )
    if name == "cvar":
        tail = params.get("tail", "upper")
        if "alpha" in params:
            raise TypeError(_ALPHA_IS_SIGNIFICANCE)
        level = check_cvar_level(params["cvar_level"], tail)
        return Statistic(
            f"cvar_{tail}_{level:g}", lambda law: law.cvar(level, tail),
            _rows_cvar(level, tail), True, _se_cvar(level, tail), "cvar", (level, tail),
        )
    if name == "threshold_area":
        tau = float(params["threshold"])
        cap = float(params.get("cap", np.inf))
        return Statistic(
            f"threshold_area_{tau:g}", lambda law: law.threshold_area(tau, cap),
            lambda r: np.minimum(np.clip(r - tau, 0.0, None), cap).mean(axis=1), False,
            lambda r: _influence_se(np.minimum(np.clip(r - tau, 0.0, None), cap)),
            "threshold_area", (tau, cap),
        )
    if name == "exceedance":
        tau = float(params["threshold"])
        return Statistic(
            f"exceedance_{tau:g}", lambda law: law.exceedance(tau),
            lambda r: (r > tau).mean(axis=1), False,
            lambda r: _influence_se((r > tau).astype(float)), "exceedance", (tau,),
        )
    raise ValueError(
        f"unknown statistic {name!r}; use mean, quantile, cvar, threshold_area or exceedance."
    )


# ----------------------------------------------------------------------------- public API
def cvar(
    scores: object,
    cvar_level: float,
    *,
    tail: Tail = "upper",
    objective: Objective = "maximize",
) -> float:
    """Conditional value at risk: the mean of the best ``1 - cvar_level`` (or worst) share.

    With ``tail="upper"`` this is Jordan et al.'s ``CVaR`` in the
    Rockafellar-Uryasev (2002) form: with ``l = cvar_level``,

    ``CVaR_l = (1 / (1 - l)) * integral_l^1 F^{-1}(u) du``,

    the mean performance of the best ``1 - l`` fraction of the distribution.
    For a continuous ``F`` it equals ``E[Z | Z >= F^{-1}(l)]``; for a
    discrete ``F`` such as an empirical sample it does not: the atom at the
    quantile ``F^{-1}(l)`` enters only with the part of its mass that lies
    above level ``l``. With ``tail="lower"`` it is the risk version, the mean
    of the worst ``l`` fraction, ``(1 / l) integral_0^l F^{-1}(u) du``.

    The estimator integrates the empirical quantile function exactly, so it
    is exact for any discrete distribution given as its atoms (ties
    included), coherent (Acerbi & Tasche 2002), and ``cvar(x, 0) ==
    mean(x)``.

    Parameters
    ----------
    scores : array_like
        IID draws of the score (finite).
    cvar_level : float
        The CVaR level ``l``: ``[0, 1)`` for the upper tail, ``(0, 1]`` for
        the lower. (Not a significance level: those are called ``alpha``.)
    tail : {"upper", "lower"}
        The *performance* tail: ``"upper"`` = best results, ``"lower"`` =
        worst, whatever the objective.
    objective : {"maximize", "minimize"}
        With ``"minimize"`` the best results are the smallest scores: the
        upper-tail CVaR of a loss is the mean of its smallest ``1 - l``
        fraction. The result is in score units either way.

    Returns
    -------
    float

    Examples
    --------
    >>> round(cvar([0.1, 0.2, 0.3, 0.4], 0.5), 12)
    0.35
    >>> round(cvar([0.1, 0.2, 0.3, 0.4], 0.5, tail="lower"), 12)
    0.15
    >>> round(cvar([0.1, 0.2, 0.3, 0.4], 0.5, objective="minimize"), 12)  # best half of a loss
    0.15

    Where the two definitions differ: the best half of ``[1, 2, 3]`` is all of
    the draw 3 and half of the draw 2, so the R-U CVaR is ``(0.5 * 2 + 3) /
    1.5``, while the conditional expectation ``E[Z | Z >= F^{-1}(0.5)]``
    averages 2 and 3:

    >>> round(cvar([1, 2, 3], 0.5), 6)  # Rockafellar-Uryasev, what this function computes
    2.666667
    >>> z = np.array([1, 2, 3]); float(z[z >= np.quantile(z, 0.5, method="inverted_cdf")].mean())
    2.5
    """
    sign = _sign(objective)
    z = sign * as_sample(scores)
    level = check_cvar_level(cvar_level, tail)
    return statistic("cvar", cvar_level=level, tail=tail).to_user(
        DiscreteLaw.empirical(z).cvar(level, tail), sign
    )


def quantile(
    scores: object,
    q: float,
    *,
    objective: Objective = "maximize",
    method: str = "linear",
) -> float:
    """The performance quantile at level ``q`` (``q = 0.9``: better than 90% of draws).

    For ``objective="minimize"`` the level refers to performance, so
    ``q = 0.9`` is the loss that only 10% of draws beat. ``method`` is
    passed to :func:`numpy.quantile` (``"inverted_cdf"`` gives ``F^{-1}(q)``
    exactly, which is what the band intervals cover).

    Examples
    --------
    >>> quantile([1, 2, 3, 4], 0.5)
    2.5
    >>> quantile([1, 2, 3, 4], 0.75, objective="minimize")
    1.75
    """
    sign = _sign(objective)
    z = sign * as_sample(scores)
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {q}.")
    return float(sign * np.quantile(z, q, method=method))


def mean(scores: object) -> float:
    """The mean score (direction-free).

    Examples
    --------
    >>> mean([1, 2, 3])
    2.0
    """
    return float(np.mean(as_sample(scores)))


def threshold_area(
    scores: object,
    threshold: float,
    *,
    objective: Objective = "maximize",
    bound: float | None = None,
    normalize: bool = False,
) -> float:
    """The area above the CDF to the right of a threshold: ``E[(Z - tau)^+]``.

    Jordan et al. measure how much of a performance distribution lies beyond
    an acceptable level ``tau`` by the area between the CDF and 1 right of
    ``tau``: ``integral_tau^inf (1 - F(z)) dz``, which equals the expected
    margin by which performance exceeds ``tau`` (zero for draws that do not
    reach it). In score units; with ``objective="minimize"`` it is
    ``E[(tau - score)^+]``.

    Parameters
    ----------
    scores : array_like
    threshold : float
        ``tau``, in score units.
    objective : {"maximize", "minimize"}
    bound : float, optional
        The best attainable score (e.g. 1 for accuracy, 0 for a loss).
        Required with ``normalize``.
    normalize : bool
        Divide by ``|bound - tau|``: the share of the box ``[tau, bound] x
        [0, 1]`` that lies above the CDF, in [0, 1] (1: every draw reaches
        ``bound``).

    Examples
    --------
    >>> threshold_area([0.5, 0.7, 0.9], 0.6)
    0.13333333333333333
    >>> threshold_area([0.5, 0.7, 0.9], 0.6, bound=1.0, normalize=True)
    0.3333333333333333
    >>> round(threshold_area([0.2, 0.4], 0.3, objective="minimize"), 12)  # losses below 0.3
    0.05
    """
    sign = _sign(objective)
    z = sign * as_sample(scores)
    tau = sign * float(threshold)
    if not normalize:
        return float(np.mean(np.clip(z - tau, 0.0, None)))
    if bound is None:
        raise ValueError("normalize=True needs bound=, the best attainable score.")
    width = sign * float(bound) - tau
    if not width > 0:
        raise ValueError(
            f"bound ({bound}) must be strictly better than threshold ({threshold}) for "
            f"objective={objective!r}."
        )
    if np.any(z > sign * float(bound)):
        raise ValueError(f"some scores are better than bound={bound}; check the bound.")
    return float(np.mean(np.clip(z - tau, 0.0, None)) / width)


def au_cdf(scores: object, *, low: float, high: float,
           objective: Objective = "maximize") -> float:
    """The normalised area under the performance CDF on ``[low, high]`` (smaller is better).

    ``(1 / (high - low)) * integral F(z) dz`` over the performance range;
    equals ``1 - E[clip(Z, low, high) - low] / (high - low)``, i.e. one minus
    the normalised threshold area at ``tau = low`` with ``bound = high``.
    ``low`` and ``high`` are the worst and best scores of the range (for a
    loss, ``low`` is the larger number).

    Examples
    --------
    >>> au_cdf([0.0, 1.0], low=0.0, high=1.0)
    0.5
    >>> round(au_cdf([0.2, 0.4], low=1.0, high=0.0, objective="minimize"), 12)
    0.3
    """
    sign = _sign(objective)
    z = sign * as_sample(scores)
    lo, hi = sign * float(low), sign * float(high)
    if not hi > lo:
        raise ValueError(
            f"high ({high}) must be a better score than low ({low}) for objective={objective!r}."
        )
    return float(1.0 - np.mean(np.clip(z, lo, hi) - lo) / (hi - lo))


def exceedance_probability(
    scores: object, threshold: float, *, objective: Objective = "maximize"
) -> float:
    """The probability that performance strictly beats ``threshold``: ``P(Z > tau)``.

    Examples
    --------
    >>> exceedance_probability([0.5, 0.7, 0.9], 0.6)
    0.6666666666666666
    >>> exceedance_probability([0.5, 0.7, 0.9], 0.6, objective="minimize")
    0.3333333333333333
    """
    sign = _sign(objective)
    z = sign * as_sample(scores)
    return float(np.mean(z > sign * float(threshold)))


__all__ = [
    "DiscreteLaw",
    "Statistic",
    "as_sample",
    "au_cdf",
    "check_cvar_level",
    "cvar",
    "exceedance_probability",
    "mean",
    "quantile",
    "statistic",
    "tail_weights",
]
