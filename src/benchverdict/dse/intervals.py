"""Confidence intervals for statistics of a performance distribution.

Two kinds:

* **Band intervals** (distribution-free, finite-sample). A simultaneous
  confidence band ``L(z) <= F(z) <= U(z)`` (for all ``z`` at once, with
  probability at least ``confidence``) contains the true CDF, so any
  statistic that can only grow when the distribution moves up in first-order
  stochastic dominance (the mean, quantiles, CVaR in either tail, threshold
  areas, exceedance probabilities) lies between its values at the band's two
  extreme distributions: the *pessimistic* one with CDF ``U`` (the mass the
  band cannot place goes to the lower support bound) and the *optimistic*
  one with CDF ``L`` (the rest goes to the upper bound). The interval holds
  with the band's confidence, for every such statistic simultaneously. Means,
  CVaR and areas need support bounds (``low``/``high``), as the mean tuning
  curve does: without them the band leaves mass at infinity and the interval
  is infinite on that side.
* **Bootstrap intervals** (vectorised): no support bounds, asymptotic only.
  By default *studentized* (bootstrap-t): the resampled statistic is
  standardised by its plug-in standard error from the influence function,
  ``T* = (theta* - theta) / se*``, and the interval is
  ``[theta - q_hi * se, theta - q_lo * se]``. For tail statistics this
  matters: the percentile interval of CVaR_0.9 from 50 Beta(2, 5) draws
  covers 0.81 at a nominal 0.95, the studentized one 0.95
  (``tests/test_dse_intervals.py``). With few draws in the tail no
  bootstrap holds its level (5 tail draws, CVaR_0.95 of 100 lognormal
  draws: 0.72 at a nominal 0.8), so with fewer than
  :data:`MIN_INTERVAL_TAIL_DRAWS` the CVaR interval is refused (infinite,
  with the reason in ``method``). With ``clusters`` (runs of several
  draws) the bootstrap resamples whole runs. Quantiles, which have no plug-in standard error,
  get the percentile interval (and their band interval is always
  available).

Bands come from the shared module :mod:`benchverdict.stats.cdf_bands` (DKW,
KS and Learned-Miller-DeStefano bands).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchverdict._repr import ResultText
from benchverdict.dse.statistics import DiscreteLaw, Statistic, as_sample
from benchverdict.stats.cdf_bands import cdf_band

#: Band methods (all from :func:`benchverdict.stats.cdf_bands.cdf_band`).
BAND_METHODS = ("dkw", "ks", "ld_equal_tailed", "ld_highest_density")
#: A bootstrap interval of a CVaR (or of a CVaR difference) needs at least this many
#: draws in each sample's tail (``n (1 - level)`` upper, ``n level`` lower); below it the
#: interval is refused (infinite, the reason in ``method``). Measured on skewed scores
#: (``tests/test_dse_clustered.py``): with 5 tail draws (CVaR_0.95 of 100 lognormal
#: draws) the studentized interval covers 0.72 at a nominal 0.8.
MIN_INTERVAL_TAIL_DRAWS = 10


def tail_draws(stat: Statistic, n: int) -> float | None:
    """The draws in a CVaR's tail (``None`` for other statistics).

    Examples
    --------
    >>> from benchverdict.dse.statistics import statistic
    >>> tail_draws(statistic("cvar", cvar_level=0.95), 100)
    5.0
    """
    if stat.kind != "cvar":
        return None
    level, tail = stat.params
    return round(n * ((1.0 - level) if tail == "upper" else level), 9)


def refused(name: str, estimate: float, confidence: float, tail: float) -> Interval:
    """The infinite interval given instead of a bootstrap one with too few tail draws.

    Examples
    --------
    >>> refused("cvar_upper_0.95", 1.0, 0.8, 5.0).method
    'bootstrap:refused (5 draws in the CVaR tail, fewer than 10)'
    """
    return Interval(name, estimate, -np.inf, np.inf, confidence,
                    f"bootstrap:refused ({tail:g} draws in the CVaR tail, fewer than "
                    f"{MIN_INTERVAL_TAIL_DRAWS})")


@dataclass(frozen=True)
class StepBand:
    """A simultaneous CDF band as step functions on the sample's distinct values.

    Attributes
    ----------
    values : numpy.ndarray
        The sorted distinct draws ``u_1 < ... < u_m`` (oriented).
    lower, upper : numpy.ndarray
        Bounds on ``F`` on ``[u_k, u_{k+1})`` (non-decreasing, in [0, 1]).
    upper_below : float
        The bound on ``F`` below ``u_1`` (the lower bound there is 0).
    low, high : float
        The support bounds (may be infinite).
    confidence : float
    method : str
    """

    values: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    upper_below: float
    low: float
    high: float
    confidence: float
    method: str

    def _summary_lines(self) -> list[str]:
        return [f"{self.method} step band over {len(self.values)} values, confidence "
                f"{self.confidence:g}, support [{self.low:g}, {self.high:g}]"]

    def _summary_table(self):
        import pandas as pd

        return pd.DataFrame({"value": self.values, "lower": self.lower,
                             "upper": self.upper})

    def __repr__(self) -> str:
        from benchverdict._repr import result_repr

        return result_repr(self)

    def _repr_html_(self) -> str:
        from benchverdict._repr import result_html

        return result_html(self)

    def pessimistic(self) -> DiscreteLaw:
        """The stochastically smallest distribution in the band (CDF = upper bound)."""
        cdf = np.concatenate([[self.upper_below], self.upper, [1.0]])
        return self._law(cdf)

    def optimistic(self) -> DiscreteLaw:
        """The stochastically largest distribution in the band (CDF = lower bound)."""
        cdf = np.concatenate([[0.0], self.lower, [1.0]])
        return self._law(cdf)

    def _law(self, cdf: np.ndarray) -> DiscreteLaw:
        cdf = np.clip(np.maximum.accumulate(cdf), 0.0, 1.0)
        probs = np.diff(np.concatenate([[0.0], cdf]))
        atoms = np.concatenate([[self.low], self.values, [self.high]])
        return DiscreteLaw(atoms, probs)


def step_band(
    z: np.ndarray,
    confidence: float = 0.95,
    *,
    method: str = "dkw",
    low: float = -np.inf,
    high: float = np.inf,
) -> StepBand:
    """A simultaneous CDF band for the oriented sample ``z``.

    Every method comes from :func:`benchverdict.stats.cdf_bands.cdf_band`,
    evaluated at the distinct draws. Ties make the ``ks`` and ``ld_*`` bands
    conservative (coverage at least ``confidence``), which is still valid.

    Examples
    --------
    >>> b = step_band(np.array([1.0, 2.0, 3.0]), 0.5)
    >>> b.values
    array([1., 2., 3.])
    """
    z = as_sample(z)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}.")
    if not low < high:
        raise ValueError(f"need low < high, got low={low}, high={high}.")
    if np.any(z < low) or np.any(z > high):
        raise ValueError(
            f"some draws lie outside the support bounds [{low}, {high}]; the bounds must hold "
            f"for every possible score."
        )
    if method not in BAND_METHODS:
        raise ValueError(f"unknown band method {method!r}; use one of {BAND_METHODS}.")
    values = np.unique(z)
    with warnings.catch_warnings():
        # Ties make the exact bands conservative; the caller's docs say so already.
        warnings.simplefilter("ignore", UserWarning)
        band = cdf_band(z, confidence, method=method, low=low, high=high)
    lower = np.asarray(band.lower_cdf(values), dtype=float)
    upper = np.asarray(band.upper_cdf(values), dtype=float)
    below = float(np.asarray(band.upper_cdf(np.nextafter(values[0], -np.inf))))
    return StepBand(values, lower, upper, below, low, high, confidence, method)


@dataclass(repr=False, frozen=True)
class Interval(ResultText):
    """A point estimate with a confidence interval, in the user's units.

    Attributes
    ----------
    statistic : str
    estimate, lower, upper : float
        The point estimate and the interval's ends.
    confidence : float
    method : str
        ``"band:<method>"``, ``"bootstrap:studentized"`` or
        ``"bootstrap:percentile"``.
    """

    statistic: str
    estimate: float
    lower: float
    upper: float
    confidence: float
    method: str

    def _summary_lines(self) -> list[str]:
        return [f"{self.statistic} = {self.estimate:.4g} [{self.lower:.4g}, {self.upper:.4g}] "
                f"({self.confidence:.0%}, {self.method})"]

    @property
    def table(self):
        """One row: statistic, estimate, lower, upper, confidence, method."""
        import pandas as pd

        return pd.DataFrame([{"statistic": self.statistic, "estimate": self.estimate,
                              "lower": self.lower, "upper": self.upper,
                              "confidence": self.confidence, "method": self.method}])

    def verdicts(self) -> list:
        """An empty list: an interval names no algorithms.

        :meth:`DistributionResult.verdicts` and :meth:`AggregateResult.verdicts`
        turn intervals of differences into verdicts; this method is here so
        that every result object answers the same protocol.
        """
        return []

    def plot(self, ax=None, *, color=None, label: str | None = None):
        """Draw the interval as a horizontal bar with the estimate marked; returns the Axes.

        Examples
        --------
        >>> Interval("mean", 0.5, 0.4, 0.7, 0.95, "bootstrap:studentized").plot().get_xlabel()
        'mean'
        """
        from benchverdict._plain_text import plain_text
        from benchverdict.plotting import new_axes, theme

        ax = new_axes(ax)
        with theme():
            lines = ax.plot([self.lower, self.upper], [0, 0], lw=3, solid_capstyle="butt",
                            label=label or f"{self.confidence:.0%} interval ({self.method})",
                            **({} if color is None else {"color": color}))
            ax.plot([self.estimate], [0], "o", color=lines[0].get_color())
            ax.set_yticks([])
            ax.set_xlabel(self.statistic)
        return plain_text(ax)

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the closed interval."""
        return self.lower <= value <= self.upper


def band_interval(
    scores: object,
    stat: Statistic,
    *,
    sign: float = 1.0,
    confidence: float = 0.95,
    method: str = "dkw",
    low: float = -np.inf,
    high: float = np.inf,
) -> Interval:
    """A distribution-free interval for ``stat`` from a simultaneous CDF band.

    Parameters
    ----------
    scores : array_like
        Draws in the user's units.
    stat : Statistic
        From :func:`benchverdict.dse.statistics.statistic` (oriented).
    sign : float
        ``+1`` (maximize) or ``-1`` (minimize).
    confidence : float
        The band's simultaneous confidence.
    method : str
        One of :data:`BAND_METHODS`.
    low, high : float
        Support bounds of the *score* (user units, any order for a loss:
        they are oriented here). Needed for finite intervals of means, CVaR
        and areas.

    Examples
    --------
    >>> from benchverdict.dse.statistics import statistic
    >>> x = np.linspace(0.01, 0.99, 99)
    >>> iv = band_interval(x, statistic("quantile", q=0.5), low=0.0, high=1.0)
    >>> iv.lower < 0.5 < iv.upper
    True
    """
    x = as_sample(scores)
    z = sign * x
    lo, hi = sorted((sign * low, sign * high))
    band = step_band(z, confidence, method=method, low=lo, high=hi)
    worst = stat.to_user(stat.of_law(band.pessimistic()), sign)
    best = stat.to_user(stat.of_law(band.optimistic()), sign)
    est = stat.to_user(stat.of_sample(z), sign)
    return Interval(stat.name, est, min(worst, best), max(worst, best), confidence,
                    f"band:{method}")


def bootstrap_rows(z: np.ndarray, n_resamples: int,
                   seed: int | np.random.Generator | None) -> np.ndarray:
    """``n_resamples`` IID resamples of ``z`` as a ``(n_resamples, n)`` array.

    ``seed`` is an int, ``None`` or a :class:`numpy.random.Generator` (used,
    and advanced, as it is: successive calls continue one stream).

    The draws are sorted first: a resample's law does not depend on their
    order, and sorting makes the resamples (and so every interval) a function
    of the values alone, unchanged when the input rows are permuted. Each
    resample comes back sorted (the indices are sorted, which is cheaper than
    sorting the values again for every order statistic computed from them).
    """
    z = np.sort(np.asarray(z))
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.integers(0, z.size, size=(n_resamples, z.size)), axis=1)
    return z[idx]


#: The most resampled draws a bootstrap holds at once (128 MB of float64).
RESAMPLE_BLOCK_DRAWS = 2**24


def bootstrap_statistic(z: np.ndarray, stat, n_resamples: int,
                        seed: int | np.random.Generator | None, *, se: bool,
                        block: int = 5_000) -> tuple[np.ndarray, np.ndarray | None]:
    """``stat`` (and its plug-in standard error) on ``n_resamples`` resamples of ``z``.

    ``seed`` is an int, ``None`` or a :class:`numpy.random.Generator`, which
    is used and advanced as it is (successive calls continue one stream).

    The resamples are drawn in blocks of at most ``block`` rows and
    :data:`RESAMPLE_BLOCK_DRAWS` values, so memory stays bounded for any
    sample size; drawing block by block continues one random stream, so the
    resamples do not depend on the block size (the results only up to the
    rounding of vectorised reductions).

    Examples
    --------
    >>> from benchverdict.dse.statistics import statistic
    >>> z = np.random.default_rng(0).normal(size=50)
    >>> mean = statistic("mean")
    >>> a, _ = bootstrap_statistic(z, mean, 100, np.random.default_rng(1), se=False)
    >>> b, _ = bootstrap_statistic(z, mean, 100, np.random.default_rng(1), se=False, block=7)
    >>> bool(np.array_equal(a, b))
    True
    """
    block = max(1, min(int(block), RESAMPLE_BLOCK_DRAWS // max(z.size, 1)))
    rng = np.random.default_rng(seed)  # a Generator is used (and advanced) as it is
    values, ses = [], []
    for start in range(0, n_resamples, block):
        rows = bootstrap_rows(z, min(block, n_resamples - start), rng)
        values.append(stat.of_rows(rows))
        if se:
            ses.append(stat.se_rows(rows))
    return np.concatenate(values), (np.concatenate(ses) if se else None)


@dataclass(frozen=True)
class Replicates:
    """One sample's bootstrap replicates of a statistic, with its standard errors.

    A sample's resamples do not depend on the sample it is compared with
    (A and B are resampled independently), so one set of replicates serves
    the sample's own interval and every pairwise difference it enters
    (:func:`~benchverdict.dse.cvar_difference` with ``replicates=``): with
    ``k`` algorithms that is ``k`` bootstraps per scope instead of
    ``k + k (k - 1)``.

    Attributes
    ----------
    values, ses : numpy.ndarray
        The statistic and its plug-in (cluster-robust when ``clustered``)
        standard error on each resample, oriented (larger is better).
    se : float
        The standard error on the sample itself.
    clustered : bool
        Whole runs were resampled (some run holds several draws).
    """

    values: np.ndarray
    ses: np.ndarray
    se: float
    clustered: bool


def sample_replicates(z: np.ndarray, stat: Statistic, n_resamples: int,
                      seed: int | np.random.Generator | None,
                      codes: np.ndarray | None = None) -> Replicates:
    """Bootstrap replicates of ``stat`` and its standard error on one oriented sample.

    With run ``codes`` in which some run holds several draws, whole runs are
    resampled (:func:`~benchverdict.dse.clusters.cluster_bootstrap`, cluster-robust
    standard errors); otherwise the draws (:func:`bootstrap_statistic`).

    Examples
    --------
    >>> from benchverdict.dse.statistics import statistic
    >>> z = np.random.default_rng(0).normal(size=60)
    >>> rep = sample_replicates(z, statistic("cvar", cvar_level=0.5), 200, 1)
    >>> rep.values.shape, rep.clustered
    ((200,), False)
    """
    z = np.asarray(z, dtype=float)
    if stat.se_rows is None:
        raise ValueError(f"{stat.name} has no plug-in standard error: no studentized "
                         f"replicates.")
    from benchverdict.dse.clusters import (
        cluster_bootstrap,
        is_clustered,
        run_order,
        weighted_statistic,
    )

    rng = np.random.default_rng(seed)
    if codes is not None and is_clustered(codes):
        values, ses = cluster_bootstrap(z, codes, stat, n_resamples, rng, se=True)
        zs, cs, _ = run_order(z, codes)
        se = float(weighted_statistic(stat, zs, cs, np.ones((1, int(cs.max()) + 1)))[1][0])
        return Replicates(values, ses, se, True)
    values, ses = bootstrap_statistic(z, stat, n_resamples, rng, se=True)
    return Replicates(values, ses, float(stat.se_rows(np.sort(z)[None, :])[0]), False)


def studentized_roots(estimates: np.ndarray, ses: np.ndarray, estimate: float) -> np.ndarray:
    """Bootstrap-t roots ``(theta* - theta) / se*``; ``se* = 0`` gives +-inf (0 if equal).

    Keeping degenerate resamples (all tail draws tied) as infinite roots
    widens the interval rather than silently dropping them.
    """
    diff = estimates - estimate
    # A resample whose tail draws are all tied has se* = 0 and, up to round-off, the
    # estimate itself: equal within a tolerance relative to the values' size, so that
    # rescaling the scores (which moves the round-off) does not turn 0 into +-inf.
    size = max(abs(float(estimate)), float(np.max(np.abs(estimates), initial=0.0)))
    diff = np.where(np.abs(diff) <= 1e-12 * size, 0.0, diff)
    with np.errstate(divide="ignore", invalid="ignore"):
        roots = np.where(ses > 0, diff / np.where(ses > 0, ses, 1.0),
                         np.sign(diff) * np.inf)
    return np.where((ses <= 0) & (diff == 0), 0.0, roots)


def studentized_limits(roots: np.ndarray, estimate: float, se: float,
                       confidence: float) -> tuple[float, float]:
    """``[theta - q_hi * se, theta - q_lo * se]`` from the bootstrap-t roots."""
    tail = (1.0 - confidence) / 2.0
    q_lo, q_hi = np.quantile(roots, [tail, 1.0 - tail], method="inverted_cdf")
    if se <= 0:  # every draw of the statistic's support is tied: nothing to studentize
        return estimate, estimate
    return float(estimate - q_hi * se), float(estimate - q_lo * se)


def bootstrap_interval(
    scores: object,
    stat: Statistic,
    *,
    sign: float = 1.0,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
    chunk: int = 5_000,
    kind: str = "auto",
    clusters: object | None = None,
    replicates: Replicates | None = None,
) -> Interval:
    """A bootstrap interval for ``stat`` (vectorised over resamples).

    Parameters
    ----------
    kind : {"auto", "studentized", "percentile"}
        ``"auto"``: studentized when the statistic has a plug-in standard
        error (mean, CVaR, threshold area, exceedance), else percentile.
        A studentized CVaR interval with fewer than
        :data:`MIN_INTERVAL_TAIL_DRAWS` draws in the tail is refused: the
        interval is infinite and ``method`` says why (no bootstrap holds its
        level there); ``"percentile"`` is never refused (a diagnostic).
    clusters : array_like, optional
        The run (e.g. seed) of each draw. Given, the bootstrap resamples
        **whole runs** with replacement and studentizes by the
        cluster-robust standard error
        (:func:`~benchverdict.dse.clusters.cluster_bootstrap`;
        ``method`` ``"bootstrap:cluster-studentized"`` or
        ``"bootstrap:cluster-percentile"``). With one draw per run it draws
        the same resamples as without ``clusters`` from the same seed, so the
        interval is the same up to round-off.
    replicates : Replicates, optional
        This sample's replicates of ``stat`` (:func:`sample_replicates` on
        ``sign * scores`` with the same runs), already drawn: the studentized
        interval is made from them instead of a new bootstrap, so that one
        set of resamples serves the sample's interval and its pairwise
        differences. ``n_resamples``, ``seed`` and ``chunk`` are then unused.

    Asymptotic: no finite-sample guarantee. The studentized interval holds
    its level for CVaR with 5 or more tail draws; the percentile interval
    does not (module docstring; measured in ``tests/test_dse_intervals.py``).

    Examples
    --------
    >>> from benchverdict.dse.statistics import statistic
    >>> x = np.random.default_rng(0).normal(size=200)
    >>> iv = bootstrap_interval(x, statistic("mean"), n_resamples=2000)
    >>> iv.lower < 0 < iv.upper, iv.method
    (True, 'bootstrap:studentized')
    """
    if kind not in ("auto", "studentized", "percentile"):
        raise ValueError(f"kind must be 'auto', 'studentized' or 'percentile', got {kind!r}.")
    if kind == "studentized" and stat.se_rows is None:
        raise ValueError(f"{stat.name} has no plug-in standard error; use kind='percentile'.")
    studentized = kind != "percentile" and stat.se_rows is not None
    x = as_sample(scores)
    z = sign * x
    rng = np.random.default_rng(seed)
    theta = stat.of_sample(z)
    tail = tail_draws(stat, z.size)
    if studentized and tail is not None and tail < MIN_INTERVAL_TAIL_DRAWS:
        return refused(stat.name, stat.to_user(theta, sign), confidence, tail)
    prefix = "bootstrap"
    if replicates is not None and studentized:
        values, ses, se = replicates.values, replicates.ses, replicates.se
        prefix = "bootstrap:cluster" if replicates.clustered else "bootstrap"
    elif clusters is None:
        values, ses = bootstrap_statistic(z, stat, n_resamples, rng, se=studentized,
                                          block=chunk)
        se = float(stat.se_rows(np.sort(z)[None, :])[0]) if studentized else 0.0
    else:
        from benchverdict.dse.clusters import (
            cluster_bootstrap,
            cluster_codes,
            run_order,
            weighted_statistic,
        )

        codes = cluster_codes(clusters, z.size, "clusters")
        values, ses = cluster_bootstrap(z, codes, stat, n_resamples, rng, se=studentized,
                                        block=chunk)
        if studentized:
            zs, cs, _ = run_order(z, codes)
            se = float(weighted_statistic(stat, zs, cs, np.ones((1, int(cs.max()) + 1)))[1][0])
        prefix = "bootstrap:cluster"
    joint = "-" if prefix == "bootstrap:cluster" else ":"
    if studentized:
        roots = studentized_roots(values, ses, theta)
        lo, hi = studentized_limits(roots, theta, se, confidence)
        how = f"{prefix}{joint}studentized"
    else:
        tail = (1.0 - confidence) / 2.0
        lo, hi = (float(v) for v in np.percentile(values, [100 * tail, 100 * (1 - tail)]))
        how = f"{prefix}{joint}percentile"
    ends = stat.to_user(lo, sign), stat.to_user(hi, sign)
    est = stat.to_user(theta, sign)
    return Interval(stat.name, est, min(ends), max(ends), confidence, how)


def interval(
    scores: object,
    name: str,
    *,
    objective: str = "maximize",
    method: str = "band",
    confidence: float = 0.95,
    band: str = "ld_highest_density",
    low: float = -np.inf,
    high: float = np.inf,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
    clusters: object | None = None,
    **params: float,
) -> Interval:
    """A confidence interval for a named statistic, in the user's units.

    Parameters
    ----------
    scores : array_like
    name : {"mean", "quantile", "cvar", "threshold_area", "exceedance"}
    objective : {"maximize", "minimize"}
    method : {"band", "bootstrap"}
        Distribution-free band interval (:func:`band_interval`) or percentile
        bootstrap (:func:`bootstrap_interval`).
    confidence : float
    band : str
        The band method (one of :data:`BAND_METHODS`).
    low, high : float
        Support bounds of the score, for finite band intervals of means,
        CVaR and areas.
    n_resamples, seed
        Bootstrap settings.
    clusters : array_like, optional
        The run of each draw: the bootstrap resamples whole runs (see
        :func:`bootstrap_interval`). Band intervals assume independent draws
        and are refused when some run holds several draws.
    **params
        ``q``; ``cvar_level`` and ``tail``; ``threshold`` (in score units).

    Examples
    --------
    >>> x = np.random.default_rng(0).uniform(size=200)
    >>> iv = interval(x, "cvar", cvar_level=0.5, low=0, high=1)
    >>> iv.lower < 0.75 < iv.upper
    True
    >>> iv.method
    'band:ld_highest_density'
    """
    from benchverdict.dse.statistics import statistic
    from benchverdict.results import check_objective

    sign = 1.0 if check_objective(objective) == "maximize" else -1.0
    if "threshold" in params:
        params = {**params, "threshold": sign * float(params["threshold"])}
    stat = statistic(name, **params)
    if method == "band" and clusters is not None:
        from benchverdict.dse.clusters import cluster_codes, is_clustered

        if is_clustered(cluster_codes(clusters, np.size(scores), "clusters")):
            raise ValueError(
                "band intervals assume independent draws, and these draws come in runs of "
                "several (clusters): use method='bootstrap', which resamples whole runs.")
    if method == "band":
        return band_interval(scores, stat, sign=sign, confidence=confidence, method=band,
                             low=low, high=high)
    if method == "bootstrap":
        return bootstrap_interval(scores, stat, sign=sign, confidence=confidence,
                                  n_resamples=n_resamples, seed=seed, clusters=clusters)
    raise ValueError(f"method must be 'band' or 'bootstrap', got {method!r}.")


def coverage(hits: Sequence[bool]) -> tuple[float, float, float]:
    """Observed coverage with its 95% Clopper-Pearson interval.

    Examples
    --------
    >>> est, lo, hi = coverage([True] * 95 + [False] * 5)
    >>> est, round(lo, 3), round(hi, 3)
    (0.95, 0.887, 0.984)
    """
    from scipy.stats import binomtest

    hits = np.asarray(hits, dtype=bool)
    k, n = int(hits.sum()), hits.size
    ci = binomtest(k, n).proportion_ci(0.95, method="exact")
    return k / n, float(ci.low), float(ci.high)


__all__ = [
    "BAND_METHODS",
    "MIN_INTERVAL_TAIL_DRAWS",
    "Interval",
    "Replicates",
    "StepBand",
    "band_interval",
    "bootstrap_interval",
    "bootstrap_rows",
    "coverage",
    "interval",
    "refused",
    "sample_replicates",
    "step_band",
    "studentized_limits",
    "studentized_roots",
    "tail_draws",
]
