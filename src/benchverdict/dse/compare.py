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
empirical CDFs cross, :func:`cvar_difference` gives the difference of
CVaRs with an interval, and :func:`cvar_permutation_test` decides whether
it differs from 0: a label-permutation test whose type-I error under
``H0: F_A = F_B`` is at most ``alpha`` for every sample size (the Monte
Carlo p-value ``(1 + #{|T*| >= |T|}) / (1 + n_resamples)`` is exactly valid).
:func:`single_draw_probability` gives ``P(a single draw of A beats one of B)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from benchverdict._repr import ResultText
from benchverdict.dse.intervals import (
    Interval,
    bootstrap_statistic,
    step_band,
    studentized_limits,
    studentized_roots,
)
from benchverdict.dse.statistics import (
    Tail,
    as_sample,
    check_cvar_level,
    statistic,
)
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


@dataclass(repr=False, frozen=True)
class DominanceTest(ResultText):
    """Result of :func:`dominance_test`: a test record with named fields, as scipy.stats'.

    It names no algorithms and keeps no draws, so it has no ``verdicts()`` or
    ``plot()``: :meth:`DistributionResult.verdicts` makes verdicts of it.

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

    @property
    def table(self):
        """One row: the outcome, the one-sided p-values and statistics, the adjusted p-value."""
        import pandas as pd

        return pd.DataFrame([{"outcome": self.outcome, "p_a_better": self.p_a_better,
                              "p_b_better": self.p_b_better, "d_a_better": self.d_a_better,
                              "d_b_better": self.d_b_better,
                              "p_value_adjusted": self.p_value_adjusted, "n_a": self.n_a,
                              "n_b": self.n_b}])

    def summary(self) -> str:
        """The outcome, p-values and crossings, as text (also ``str``)."""
        cross = [f"crossing at {c['score']:.4g} ({c['before']} -> {c['after']})"
                 for c in self.crossings]
        return "\n".join([*self._summary_lines(), *cross])

    @property
    def p_value_adjusted(self) -> float:
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
    sig_a, sig_b = ra.pvalue < alpha / 2, rb.pvalue < alpha / 2  # scipy's field name
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
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
) -> Interval:
    """The CVaR advantage of A over B, with a confidence interval.

    The estimate is ``sign * (CVaR_A - CVaR_B)`` (positive: A better, in
    score units) at CVaR level ``cvar_level`` (see
    :func:`~benchverdict.dse.cvar`). Intervals:

    * ``"bootstrap"``: studentized (bootstrap-t) interval of the difference
      over independent resamples of A and B (vectorised): the roots
      ``(d* - d) / se*`` with ``se = sqrt(se_A^2 + se_B^2)`` from the CVaR's
      influence function (see :mod:`benchverdict.dse.intervals`).
    * ``"band"``: each sample gets a simultaneous band at confidence
      ``sqrt(confidence)``; both hold together with probability at least
      ``confidence`` (independent samples), so the difference lies between
      A's pessimistic minus B's optimistic CVaR and the reverse.
      Distribution-free, needs support bounds ``low``/``high``.

    Both intervals are exactly antisymmetric: ``cvar_difference(b, a)`` is
    ``cvar_difference(a, b)`` mirrored (estimate negated, ``lower`` and
    ``upper`` swapped and negated), so a verdict cannot depend on which
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
    >>> round(iv.estimate, 2), iv.lower > 0
    (0.2, True)
    >>> ab, ba = cvar_difference(x, y, 0.9), cvar_difference(y, x, 0.9)
    >>> (ba.estimate, ba.lower, ba.upper) == (-ab.estimate, -ab.upper, -ab.lower)
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
        # All of the first sample's resamples, then all of the second's (one stream, in
        # memory-bounded blocks): the pairs are independent, so each side reduces alone.
        values_1, ses_1 = bootstrap_statistic(first, stat, n_resamples, rng, se=True)
        values_2, ses_2 = bootstrap_statistic(second, stat, n_resamples, rng, se=True)
        diffs = values_1 - values_2
        d = stat.of_sample(first) - stat.of_sample(second)
        se = float(np.hypot(stat.se_rows(np.sort(first)[None, :])[0],
                            stat.se_rows(np.sort(second)[None, :])[0]))
        roots = studentized_roots(diffs, np.hypot(ses_1, ses_2), d)
        lo, hi = studentized_limits(roots, d, se, confidence)
        if order == 0:
            # Identical samples: the difference is symmetric in law; report it so.
            half = max(abs(lo), abs(hi))
            lo, hi = -half, half
        elif order > 0:
            lo, hi = -hi, -lo
        return Interval(name, est, lo, hi, confidence, "bootstrap:studentized")
    if interval == "band":
        each = float(np.sqrt(confidence))
        lo_, hi_ = sorted((sign * low, sign * high))
        ba = step_band(za, each, method=band, low=lo_, high=hi_)
        bb = step_band(zb, each, method=band, low=lo_, high=hi_)
        lo = stat.of_law(ba.pessimistic()) - stat.of_law(bb.optimistic())
        hi = stat.of_law(ba.optimistic()) - stat.of_law(bb.pessimistic())
        return Interval(name, est, float(lo), float(hi), confidence, f"band:{band}")
    raise ValueError(f"interval must be 'bootstrap' or 'band', got {interval!r}.")


@dataclass(repr=False, frozen=True)
class PermutationTest(ResultText):
    """Result of :func:`cvar_permutation_test`: a test record with named fields.

    It names no algorithms and keeps no draws, so it has no ``verdicts()`` or
    ``plot()``: :meth:`DistributionResult.verdicts` makes verdicts of it.

    Attributes
    ----------
    estimate : float
        ``sign * (CVaR_A - CVaR_B)`` (positive: A better), in score units.
    p_value : float
        Two-sided Monte Carlo permutation p-value ``(1 + #{|T*| >= |T|}) /
        (1 + n_resamples)``.
    n_resamples : int
        Random label permutations drawn.
    n_a, n_b : int
    """

    estimate: float
    p_value: float
    n_resamples: int
    n_a: int
    n_b: int

    def _summary_lines(self) -> list[str]:
        return [f"CVaR permutation test: difference {self.estimate:.4g}, p = {self.p_value:.3g} "
                f"({self.n_resamples} permutations); n = {self.n_a}, {self.n_b}"]

    @property
    def table(self):
        """One row: estimate, p_value, n_resamples, n_a, n_b, direction."""
        import pandas as pd

        return pd.DataFrame([{"estimate": self.estimate, "p_value": self.p_value,
                              "n_resamples": self.n_resamples, "n_a": self.n_a,
                              "n_b": self.n_b, "direction": self.direction}])

    @property
    def direction(self) -> str | None:
        """``"a"`` or ``"b"``: who has the higher CVaR (``None`` at a tie)."""
        return "a" if self.estimate > 0 else "b" if self.estimate < 0 else None


def _studentized(stat, rows_1: np.ndarray, rows_2: np.ndarray) -> np.ndarray:
    """``(stat(rows_1) - stat(rows_2)) / sqrt(se_1^2 + se_2^2)`` per row (rows sorted).

    The standard errors come from the CVaR's influence function. A zero
    standard error (every tail draw tied) gives +-inf, or 0 when the
    difference is 0 as well.
    """
    c1, c2 = stat.of_rows(rows_1), stat.of_rows(rows_2)
    d = c1 - c2
    # Equal up to round-off counts as equal (relative to the values' size), so that a
    # rescaling of the scores cannot turn a tie into +-inf.
    size = np.maximum(np.abs(c1), np.abs(c2))
    d = np.where(np.abs(d) <= 1e-12 * size, 0.0, d)
    se = np.hypot(stat.se_rows(rows_1), stat.se_rows(rows_2))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, d / np.where(se > 0, se, 1.0), np.sign(d) * np.inf)
    return np.where((se <= 0) & (d == 0), 0.0, t)


def _random_subsets(rng: np.random.Generator, rows: int, size: int, chosen: int) -> np.ndarray:
    """``rows`` uniformly random subsets of ``chosen`` of ``size`` items, as a boolean mask.

    The ``chosen`` smallest of IID uniform keys (a partial sort, O(size) per
    row). Keys tie with probability about ``size^2 / 2^53``; a row that got
    the wrong count is drawn again by a random permutation.
    """
    if chosen in (0, size):
        return np.full((rows, size), chosen == size)
    keys = rng.random((rows, size))
    threshold = np.partition(keys, chosen - 1, axis=1)[:, chosen - 1:chosen]
    members = keys <= threshold
    bad = np.flatnonzero(members.sum(axis=1) != chosen)
    if bad.size:
        template = np.zeros(size, dtype=bool)
        template[:chosen] = True
        members[bad] = rng.permuted(np.broadcast_to(template, (bad.size, size)), axis=1)
    return members


def cvar_permutation_test(
    a: object,
    b: object,
    cvar_level: float,
    *,
    tail: Tail = "upper",
    objective: Objective = "maximize",
    n_resamples: int = 1999,
    stop_after: int | None = 20,
    strata: tuple[object, object] | None = None,
    seed: int | None = 0,
) -> PermutationTest:
    """Test ``H0: F_A = F_B`` with the CVaR difference as statistic (label permutations).

    Under ``H0`` the ``n_A + n_B`` draws are exchangeable, so every split of
    the pooled draws into groups of sizes ``n_A`` and ``n_B`` is equally
    likely. The statistic is the *studentized* difference ``T = (CVaR(A) -
    CVaR(B)) / sqrt(se_A^2 + se_B^2)`` (standard errors from the CVaR's
    influence function); random splits give ``T*``. Studentizing keeps the
    test exact under ``H0: F_A = F_B`` and makes it asymptotically valid for
    the weaker ``H0: CVaR_A = CVaR_B`` when the two distributions differ in
    other ways (Janssen 1997; Chung & Romano 2013), so the direction it
    reports is about the CVaRs, not just "the distributions differ". With
    fewer than about 5 draws in the tail no asymptotics hold; the verdicts
    say so. With ``stop_after = None`` all ``n_resamples`` splits are drawn and
    ``p = (1 + #{|T*| >= |T|}) / (1 + n_resamples)``; with ``stop_after = h``
    drawing stops as soon as ``h`` splits are at least as extreme as the
    data, after ``L`` splits, and ``p = h / L`` (Besag & Clifford 1991,
    sequential Monte Carlo p-values). Both satisfy ``P(p <= alpha) <=
    alpha`` exactly for every ``alpha`` and sample size; the sequential one
    saves most of the work when the data are far from significant. The
    draws are assumed independent (random-search trials), so no pairing is
    used; with ``strata`` (a label per draw, e.g. the benchmark of pooled
    draws) labels are permuted within each stratum only, which is exact for
    ``H0: F_A = F_B`` within every stratum. The test is symmetric: it runs
    in an order of the two samples fixed by their values, so ``(b, a)``
    gives the same p-value and the negated estimate.

    Parameters
    ----------
    a, b : array_like
        IID draws of each algorithm's score.
    cvar_level : float
    tail : {"upper", "lower"}
    objective : {"maximize", "minimize"}
    n_resamples : int
        The most random permutations (1999 resolves p-values down to 0.0005).
    stop_after : int or None
        Stop after this many permutations at least as extreme (``None``:
        never stop early).
    strata : (array_like, array_like), optional
        A stratum label for each draw of ``a`` and of ``b``.
    seed : int or None

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> t = cvar_permutation_test(rng.normal(0.5, 1, 300), rng.normal(0, 1, 300), 0.5)
    >>> t.direction, t.p_value < 0.01
    ('a', True)
    >>> same = rng.normal(size=200)
    >>> cvar_permutation_test(same, same, 0.9).p_value
    1.0

    References
    ----------
    Besag, J. and Clifford, P. (1991). Sequential Monte Carlo p-values.
    Biometrika 78(2).
    Chung, E. and Romano, J. P. (2013). Exact and asymptotically robust
    permutation tests. Annals of Statistics 41(2).
    Janssen, A. (1997). Studentized permutation tests for non-i.i.d.
    hypotheses and the generalized Behrens-Fisher problem. Statistics &
    Probability Letters 36(1).
    """
    if int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}.")
    if stop_after is not None and (int(stop_after) != stop_after or stop_after < 1):
        raise ValueError(f"stop_after must be a positive integer or None, got {stop_after!r}.")
    sign = 1.0 if check_objective(objective) == "maximize" else -1.0
    za, zb = sign * as_sample(a, "a"), sign * as_sample(b, "b")
    level = check_cvar_level(cvar_level, tail)
    stat = statistic("cvar", cvar_level=level, tail=tail)
    estimate = stat.of_sample(za) - stat.of_sample(zb)
    if strata is None:
        sa, sb = np.zeros(za.size, dtype=np.int64), np.zeros(zb.size, dtype=np.int64)
    else:
        sa, sb = (np.asarray(x) for x in strata)
        if sa.shape != za.shape or sb.shape != zb.shape:
            raise ValueError("strata must give one label per draw of a and of b.")
        _, codes = np.unique(np.concatenate([sa.astype(str), sb.astype(str)]),
                             return_inverse=True)
        sa, sb = codes[:za.size], codes[za.size:]
    n_a, n_b = za.size, zb.size
    # Run in an order fixed by the values, so swapping a and b swaps nothing else.
    if compare_samples(za, zb) > 0:
        (za, sa), (zb, sb) = (zb, sb), (za, sa)
    n1, n2 = za.size, zb.size
    values = np.concatenate([za, zb])
    labels = np.concatenate([sa, sb])
    order = np.lexsort((labels, values))
    pool, labels = values[order], labels[order]
    first = np.zeros(pool.size, dtype=bool)
    first[order < n1] = True
    observed = abs(_studentized(stat, np.sort(za)[None, :], np.sort(zb)[None, :])[0])
    positions = [np.flatnonzero(labels == s) for s in np.unique(labels)]
    rng = np.random.default_rng(seed)
    # Round-off must not turn a tie with the observed value into a miss.
    # T is scale-free (a studentized difference), so its round-off is relative to T itself.
    tol = 1e-9 * max(1.0, observed) if np.isfinite(observed) else 0.0
    extreme, done, chunk = 0, 0, 64
    while done < n_resamples:
        size = min(chunk, int(n_resamples) - done)
        members = np.empty((size, pool.size), dtype=bool)
        for pos in positions:
            members[:, pos] = _random_subsets(rng, size, pos.size, int(first[pos].sum()))
        rows = np.broadcast_to(pool, members.shape)
        t = _studentized(stat, rows[members].reshape(size, n1),
                         rows[~members].reshape(size, n2))
        hits = np.abs(t) >= observed - tol
        if stop_after is not None and extreme + int(hits.sum()) >= stop_after:
            at = int(np.flatnonzero(np.cumsum(hits) == stop_after - extreme)[0]) + 1
            return PermutationTest(float(estimate), stop_after / (done + at), done + at,
                                   n_a, n_b)
        extreme += int(hits.sum())
        done += size
        chunk = min(2 * chunk, 256)
    return PermutationTest(float(estimate), (1 + extreme) / (1 + int(n_resamples)),
                           int(n_resamples),
                           n_a, n_b)


def single_draw_probability(a: object, b: object, *, objective: Objective = "maximize") -> float:
    """``P(A > B) + P(A = B) / 2`` for one draw of each: how often a single draw of A wins.

    The Mann-Whitney ``U / (n_A n_B)`` (the common-language effect size),
    in the objective's direction.

    Examples
    --------
    >>> single_draw_probability([1, 2, 3], [0, 2, 2])  # (5 wins + 2 ties / 2) of 9
    0.6666666666666666
    """
    sign = 1.0 if check_objective(objective) == "maximize" else -1.0
    za, zb = sign * as_sample(a, "a"), np.sort(sign * as_sample(b, "b"))
    below = np.searchsorted(zb, za, side="left")
    equal = np.searchsorted(zb, za, side="right") - below
    return float((below.sum() + 0.5 * equal.sum()) / (za.size * zb.size))


def single_draw_advantage(a: object, b: object, *,
                          objective: Objective = "maximize") -> float:
    """Cliff's delta ``P(A > B) - P(B > A)`` for one draw of each.

    ``2 p - 1`` of :func:`single_draw_probability`, computed from integer
    counts so that it is exactly antisymmetric in ``a`` and ``b``.

    Examples
    --------
    >>> single_draw_advantage([1, 2, 3], [0, 2, 2])  # 5 wins, 2 ties, 2 losses of 9
    0.3333333333333333
    >>> single_draw_advantage([0, 2, 2], [1, 2, 3])
    -0.3333333333333333
    """
    sign = 1.0 if check_objective(objective) == "maximize" else -1.0
    za, zb = sign * as_sample(a, "a"), np.sort(sign * as_sample(b, "b"))
    wins = int(np.searchsorted(zb, za, side="left").sum())
    losses = int((zb.size - np.searchsorted(zb, za, side="right")).sum())
    return (wins - losses) / (za.size * zb.size)


__all__ = [
    "DominanceTest",
    "PermutationTest",
    "crossings",
    "cvar_difference",
    "cvar_permutation_test",
    "dominance_test",
    "single_draw_advantage",
    "single_draw_probability",
]
