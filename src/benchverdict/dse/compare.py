"""Comparing two performance distributions: dominance, crossings, CVaR differences.

First-order stochastic dominance: A dominates B when ``F_A(z) <= F_B(z)``
for every performance level ``z`` (A is at least as likely as B to reach
any level). The test here is two one-sided two-sample Kolmogorov-Smirnov
tests (exact p-values from :func:`scipy.stats.ks_2samp`), each at level
``alpha / 2`` so that, when A and B have the same distribution, the chance
of declaring either better is at most ``alpha``:

* ``H0_A: F_A >= F_B everywhere`` against "A is better somewhere"
  (``sup (F_B - F_A) > 0``), and the mirror test for B.
* Only A's test rejects: A is significantly better somewhere and nowhere
  significantly worse, the data are consistent with A dominating B
  (dominance itself can never be proven in the extreme tails).
* Both reject: the CDFs cross: each is better in some range, and no
  algorithm dominates. The crossing points are reported.
* Neither rejects: no detectable difference.

Where dominance fails a single summary can rank the two either way: the
meanmax data (Tang et al. 2020) have an MLP with the higher median and an
LSTM with the higher ``CVaR_0.99``. :func:`crossings` says where the
empirical CDFs cross, and :func:`cvar_difference` gives the difference of
CVaRs with an interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from benchverdict.dse.intervals import Interval, bootstrap_rows, step_band
from benchverdict.dse.statistics import Tail, as_sample, statistic
from benchverdict.results import Objective, check_objective
from benchverdict.stats.symmetry import compare_samples


def _ecdf_difference(za: np.ndarray, zb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pooled sorted distinct values and ``F_B - F_A`` just after each (positive: A better)."""
    grid = np.unique(np.concatenate([za, zb]))
    fa = np.searchsorted(np.sort(za), grid, side="right") / za.size
    fb = np.searchsorted(np.sort(zb), grid, side="right") / zb.size
    return grid, fb - fa


def crossings(
    a: object, b: object, *, objective: Objective = "maximize"
) -> list[dict[str, float | str]]:
    """Where the empirical CDFs of A and B cross, and who is ahead on each side.

    The sign of ``F_B(z) - F_A(z)`` (positive: A more likely to reach
    performance ``z``, i.e. A better at that level) is tracked along the
    pooled draws; every sign change is a crossing. Each crossing is reported
    at the first score where the new leader is ahead, with the share of A's
    draws below it (the quantile level where it happens).

    Returns
    -------
    list of dict
        ``score`` (user units), ``level_a`` (``F_A`` there, as a
        performance quantile level), ``before`` and ``after`` (``"a"`` or
        ``"b"``: which algorithm is better just below and from that score
        on, in performance terms).

    Examples
    --------
    >>> crossings([1, 2, 3, 10], [2.5, 2.6, 2.7, 2.8])
    [{'score': 2.7, 'level_a': 0.5, 'before': 'b', 'after': 'a'}]
    """
    sign = 1.0 if check_objective(objective) == "maximize" else -1.0
    za, zb = sign * as_sample(a, "a"), sign * as_sample(b, "b")
    grid, diff = _ecdf_difference(za, zb)
    # Below every draw both CDFs are 0: no leader; the first nonzero sign opens the first run.
    nz = np.flatnonzero(diff != 0)
    out: list[dict[str, float | str]] = []
    # Before the first nonzero difference A is "ahead" only trivially; start from the
    # leader on the left (performance below its first draw is reached by neither).
    leader = None
    for i in nz:
        now = "a" if diff[i] > 0 else "b"
        if leader is not None and now != leader:
            out.append(
                {
                    "score": float(sign * grid[i]),
                    "level_a": float(np.mean(za <= grid[i])),
                    "before": leader,
                    "after": now,
                }
            )
        leader = now
    return out


@dataclass(frozen=True)
class DominanceTest:
    """Result of :func:`dominance_test`.

    Attributes
    ----------
    outcome : {"a", "b", "crossing", "none"}
        ``"a"``: A significantly better somewhere and nowhere significantly
        worse (consistent with A dominating B). ``"crossing"``: each is
        significantly better somewhere. ``"none"``: no significant difference.
    p_a_better, p_b_better : float
        One-sided KS p-values (unadjusted) for "A better somewhere" and "B
        better somewhere".
    d_a_better, d_b_better : float
        The statistics ``sup (F_B - F_A)`` and ``sup (F_A - F_B)``.
    alpha : float
        Family-wise level; each direction is tested at ``alpha / 2``.
    crossings : list of dict
        From :func:`crossings` (empirical; may exist even when the outcome
        is ``"a"`` or ``"b"``: the test cannot resolve them).
    n_a, n_b : int
    """

    outcome: str
    p_a_better: float
    p_b_better: float
    d_a_better: float
    d_b_better: float
    alpha: float
    n_a: int
    n_b: int
    crossings: list = field(default_factory=list)

    def _summary_lines(self) -> list[str]:
        return [f"dominance: {self.outcome}; p(a better) = {self.p_a_better:.3g}, "
                f"p(b better) = {self.p_b_better:.3g}; alpha = {self.alpha:g}; n = "
                f"{self.n_a}, {self.n_b}; {len(self.crossings)} crossing(s)"]

    def _summary_table(self):
        import pandas as pd

        return pd.DataFrame([{"outcome": self.outcome, "p_a_better": self.p_a_better,
                              "p_b_better": self.p_b_better, "d_a_better": self.d_a_better,
                              "d_b_better": self.d_b_better, "n_a": self.n_a,
                              "n_b": self.n_b}])

    def __repr__(self) -> str:
        from benchverdict._repr import result_repr

        return result_repr(self)

    def _repr_html_(self) -> str:
        from benchverdict._repr import result_html

        return result_html(self)

    @property
    def p_adjusted(self) -> float:
        """Bonferroni-adjusted p-value of the winning direction (or the smaller one)."""
        p = {"a": self.p_a_better, "b": self.p_b_better}.get(
            self.outcome, min(self.p_a_better, self.p_b_better)
        )
        return min(1.0, 2.0 * p)


def dominance_test(
    a: object,
    b: object,
    *,
    objective: Objective = "maximize",
    alpha: float = 0.05,
    method: str = "auto",
) -> DominanceTest:
    """Test first-order stochastic dominance between two performance distributions.

    Parameters
    ----------
    a, b : array_like
        IID draws of each algorithm's score.
    objective : {"maximize", "minimize"}
    alpha : float
        Family-wise error rate: under ``F_A = F_B`` the probability of an
        outcome other than ``"none"`` is at most ``alpha``.
    method : str
        Passed to :func:`scipy.stats.ks_2samp` (``"auto"``, ``"exact"``,
        ``"asymp"``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> t = dominance_test(rng.normal(1, 1, 200), rng.normal(0, 1, 200))
    >>> t.outcome
    'a'
    >>> t = dominance_test(rng.normal(0, 3, 300), rng.normal(0, 0.3, 300))
    >>> t.outcome, len(t.crossings) >= 1
    ('crossing', True)
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}.")
    sign = 1.0 if check_objective(objective) == "maximize" else -1.0
    za, zb = sign * as_sample(a, "a"), sign * as_sample(b, "b")
    # Run the two tests in an order fixed by the data, so that swapping A and B swaps the
    # results exactly (scipy's one-sided computations need not be symmetric to the last bit).
    first, second = (za, zb) if compare_samples(za, zb) <= 0 else (zb, za)
    # alternative="less": H1 is F_first < F_second somewhere, i.e. first better somewhere.
    r_first = stats.ks_2samp(first, second, alternative="less", method=method)
    r_second = stats.ks_2samp(first, second, alternative="greater", method=method)
    ra, rb = (r_first, r_second) if first is za else (r_second, r_first)
    sig_a, sig_b = ra.pvalue < alpha / 2, rb.pvalue < alpha / 2
    outcome = {(True, False): "a", (False, True): "b", (True, True): "crossing"}.get(
        (bool(sig_a), bool(sig_b)), "none"
    )
    return DominanceTest(
        outcome=outcome,
        p_a_better=float(ra.pvalue),
        p_b_better=float(rb.pvalue),
        d_a_better=float(ra.statistic),
        d_b_better=float(rb.statistic),
        alpha=alpha,
        n_a=za.size,
        n_b=zb.size,
        crossings=crossings(a, b, objective=objective),
    )


def cvar_difference(
    a: object,
    b: object,
    cvar_level: float,
    *,
    tail: Tail = "upper",
    objective: Objective = "maximize",
    confidence: float = 0.95,
    interval: str = "bootstrap",
    band: str = "dkw",
    low: float = -np.inf,
    high: float = np.inf,
    reps: int = 10_000,
    seed: int | np.random.Generator | None = 0,
) -> Interval:
    """The CVaR advantage of A over B, with a confidence interval.

    The estimate is ``sign * (CVaR_A - CVaR_B)`` (positive: A better, in
    score units) at CVaR level ``cvar_level`` (see
    :func:`~benchverdict.dse.cvar`). Intervals:

    * ``"bootstrap"``: percentile interval of the difference over
      independent resamples of A and B (vectorised).
    * ``"band"``: each sample gets a simultaneous band at confidence
      ``sqrt(confidence)``; both hold together with probability at least
      ``confidence`` (independent samples), so the difference lies between
      A's pessimistic minus B's optimistic CVaR and the reverse.
      Distribution-free, needs support bounds ``low``/``high``.

    Both intervals are exactly antisymmetric: ``cvar_difference(b, a)`` is
    ``cvar_difference(a, b)`` mirrored (estimate negated, ``low`` and
    ``high`` swapped and negated), so a verdict cannot depend on which
    algorithm is named first. For the bootstrap this holds because the
    resampling streams are assigned to the two samples in an order fixed by
    their values (:func:`benchverdict.stats.symmetry.compare_samples`), and
    the interval is computed once in that order and mirrored for the other;
    two samples with identical values get the symmetric interval
    ``[-m, m]`` that covers the percentile interval.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> x, y = rng.uniform(0.2, 1, 300), rng.uniform(0, 0.8, 300)
    >>> iv = cvar_difference(x, y, 0.5, interval="band", low=0, high=1)
    >>> round(iv.estimate, 2), iv.low > 0
    (0.2, True)
    >>> ab, ba = cvar_difference(x, y, 0.9), cvar_difference(y, x, 0.9)
    >>> (ba.estimate, ba.low, ba.high) == (-ab.estimate, -ab.high, -ab.low)
    True
    """
    sign = 1.0 if check_objective(objective) == "maximize" else -1.0
    za, zb = sign * as_sample(a, "a"), sign * as_sample(b, "b")
    stat = statistic("cvar", cvar_level=cvar_level, tail=tail)
    est = stat.of_sample(za) - stat.of_sample(zb)
    name = f"CVaR_{cvar_level:g} ({tail}) advantage"
    if interval == "bootstrap":
        order = compare_samples(za, zb)
        first, second = (za, zb) if order <= 0 else (zb, za)
        rng = np.random.default_rng(seed)
        diffs = stat.of_rows(bootstrap_rows(first, reps, rng)) - stat.of_rows(
            bootstrap_rows(second, reps, rng)
        )
        t = (1.0 - confidence) / 2.0
        lo, hi = (float(v) for v in np.percentile(diffs, [100 * t, 100 * (1 - t)]))
        if order == 0:
            # Identical samples: the difference is symmetric in law; report it so.
            half = max(abs(lo), abs(hi))
            lo, hi = -half, half
        elif order > 0:
            lo, hi = -hi, -lo
        return Interval(name, est, lo, hi, confidence, "bootstrap:percentile")
    if interval == "band":
        each = float(np.sqrt(confidence))
        lo_, hi_ = sorted((sign * low, sign * high))
        ba = step_band(za, each, method=band, low=lo_, high=hi_)
        bb = step_band(zb, each, method=band, low=lo_, high=hi_)
        lo = stat.of_law(ba.pessimistic()) - stat.of_law(bb.optimistic())
        hi = stat.of_law(ba.optimistic()) - stat.of_law(bb.pessimistic())
        return Interval(name, est, float(lo), float(hi), confidence, f"band:{band}")
    raise ValueError(f"interval must be 'bootstrap' or 'band', got {interval!r}.")


__all__ = ["DominanceTest", "crossings", "cvar_difference", "dominance_test"]
