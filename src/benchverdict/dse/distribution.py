"""Per-algorithm performance distributions from a :class:`~benchverdict.Results`.

Jordan et al. (2018) evaluate an algorithm by the distribution of its
performance over all sources of variation (hyperparameter draws, data,
seeds): every random-search trial is one draw. :func:`distribution` builds
these distributions per benchmark, or pooled over benchmarks after
per-benchmark normalisation, and summarises, compares and plots them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchverdict._columns import positions_in, text_array
from benchverdict._plain_text import plain_text
from benchverdict._repr import ResultText
from benchverdict.dse.across_benchmarks import (
    SignFlipTest,
    benchmarks_needed,
    common_benchmarks,
    dominance_curves,
    sign_flip_test,
    single_draw_margins,
)
from benchverdict.dse.aggregate import normalize_frame
from benchverdict.dse.clusters import cluster_codes, is_clustered, runs_needed
from benchverdict.dse.compare import (
    _forget_pooled_runs,
    cvar_difference,
    cvar_permutation_test,
    dominance_test,
    single_draw_advantage,
    single_draw_test,
)
from benchverdict.dse.intervals import (
    Interval,
    Replicates,
    band_interval,
    bootstrap_interval,
    sample_replicates,
    step_band,
)
from benchverdict.dse.statistics import cvar, statistic
from benchverdict.replicates import BenchmarkReplicates, joins, replicate_means
from benchverdict.results import Results
from benchverdict.stats.symmetry import sample_key
from benchverdict.verdict import Effect, Evidence, Scope, SingleDraw, Verdict, register_method

_DRAW = "random-search draw (trial)"
_IID = ("random-search draws independent between runs (a seed's search is one run: when a "
        "run holds several draws, whole runs are permuted and resampled), runs independent "
        "between algorithms")
# DSE describes single draws (k = 1 trial): its verdicts are shown but do not vote on the
# ranking at the final budget.
#: The most splits a single-draw test is refined on where its p-value sits at the floor of
#: the first ones (:meth:`DistributionResult.single_draw_test`): Holm over up to
#: 1,000 pairs (45 algorithms) at alpha = 0.05.
SINGLE_DRAW_MAX_SPLITS = 20_000

register_method("dse.dominance", "dse", "first-order stochastic dominance (two one-sided KS)",
                paired=False, unit=_DRAW, aspect="whole distribution", assumptions=_IID,
                error_control="per comparison", iid_draws=True)
register_method("dse.cvar", "dse", "CVaR difference (permutation test)", paired=False,
                unit=_DRAW, aspect="upper tail", assumptions=_IID,
                error_control="per comparison", parametrised=True, iid_draws=True)

def _across_text(p: float, across: SignFlipTest, level: float, *, two_sided: bool) -> str:
    """Why the sign-flip test over benchmarks does not establish a pooled direction (a clause)."""
    if across.n_benchmarks == 0:
        return "the two have no benchmark in common"
    text = (f"over the {_benchmarks(across.n_benchmarks)} the sign-flip test (the benchmark "
            f"as replicate) gives p = {p:.3g}")
    smallest = across.min_p * (2.0 if two_sided and across.exact else 1.0)
    if smallest > level:
        text += (f", and {_benchmarks(across.n_benchmarks)} allow no p below "
                 f"{smallest:.3g}: at least {benchmarks_needed(level, two_sided=two_sided)} "
                 f"are needed to reach {level:g}")
    else:
        text += f", above {level:g}"
    return text


def _benchmarks(n: int) -> str:
    return f"{n} benchmark{'' if n == 1 else 's'}"


#: What a run permutation assumes when runs differ in size.
_UNEQUAL = (" (runs of unequal sizes: assumed exchangeable, i.e. their sizes do not depend "
            "on the algorithm)")
#: A CVaR difference is decided only with at least this many draws in each sample's tail
#: (n (1 - level)); below it the studentized statistic is too far from its limit for the
#: direction: with equal CVaRs and spreads 1 and 3, the test named a winner (nearly always
#: the narrower) at 0.09-0.10 with 5-6 tail draws, 0.08 with 10-20, and 0.046-0.060 with
#: 30-50 (nominal 0.05; 500 data sets each). Rejecting F_A = F_B stays exact: below it a
#: rejection is a lean.
MIN_TAIL_DRAWS = 30
#: With draws in runs (clustered) a CVaR difference is decided only with at least this
#: many runs per algorithm: the studentized run-permutation statistic's limit is in the
#: number of runs, not draws. With equal CVaRs, spreads differing 3-fold and 100 draws per
#: run it named a winner in 0.083 of data sets at 4 runs, 0.081 at 6, 0.077 at 10 and
#: 0.067 at 20 (nominal 0.05; 2,000 each). Below it a rejection is a lean.
MIN_CVAR_RUNS = 30
#: A bootstrap interval of a tail statistic needs about this many draws in each
#: algorithm's tail to hold its coverage (Tang et al. 2020); fewer is a caveat.
MIN_BOOTSTRAP_TAIL_DRAWS = 10
#: The benchmark label of pooled distributions.
POOLED = "pooled"
#: Beyond this many draws in all, or :data:`MAX_CELL_DRAWS` in one distribution (a cell,
#: or an algorithm's pooled draws), DSE runs on a uniform random sample of the draws
#: (``DistributionResult.sample_rate``): its bootstrap and permutation arrays grow with
#: resamples x draws.
MAX_DRAWS = 1_000_000
MAX_CELL_DRAWS = 10_000


@dataclass(repr=False, frozen=True)
class DistributionResult(ResultText):
    """Performance distributions per (benchmark, algorithm) with statistics and intervals.

    Attributes
    ----------
    draws : dict
        ``(benchmark, algorithm) -> scores`` (user units; oriented
        normalised performance when ``normalize`` is set, then
        ``objective`` is ``"maximize"``).
    table : pandas.DataFrame
        One row per benchmark x algorithm: ``n``, ``mean``, quartiles,
        ``cvar`` (upper tail at ``cvar_level``) with its interval
        ``cvar_lower``/``cvar_upper``, ``lower_tail_cvar`` (mean of the worst
        ``lower_cvar_level``), ``median_lower``/``median_upper`` (band
        interval), and, when a threshold was given, ``threshold_area`` and
        ``exceedance`` with their intervals (``<statistic>_lower``/``_upper``).
    objective : str
        The direction of the values in ``draws``.
    source_objective : str
        The objective of the input results.
    cvar_level, lower_cvar_level : float
        The CVaR levels (upper and lower tail; see :func:`~benchverdict.dse.cvar`).
    confidence : float
    band : str
        The CDF band method.
    interval : str
        ``"band"`` or ``"bootstrap"``: how the CVaR intervals were made.
    low, high : float
        Support bounds used by band intervals (in ``draws`` units).
    normalize, reference : str or None
    threshold : float or None
    excluded : pandas.DataFrame
        Rows the input excluded (``results.exclusions``), shown in outputs.
    pooled : bool
        Whether the draws are pooled over benchmarks (their verdicts then
        speak for all benchmarks, scope ``benchmark=None``).
    n_resamples : int
        Bootstrap replicates of the bootstrap intervals.
    seed : int or None
    n_permutations : int
        The most label permutations of the CVaR, run dominance and
        single-draw tests (each stops early, Besag-Clifford, where it is far
        from significant).
    strata : dict
        ``(scope, algorithm) -> benchmark of each draw`` for pooled draws
        (the permutation test permutes within benchmarks).
    clusters : dict
        ``(scope, algorithm) -> run label of each draw`` (the seed; with
        ``pooled``, benchmark and seed). Where a run holds several draws of a
        distribution, its tests and intervals take the run as the unit
        (:mod:`benchverdict.dse.clusters`); where every run is one draw they
        are the IID ones.
    sample_rate : float
        1, or the probability with which each draw was kept when there were
        more than :data:`MAX_DRAWS` (or :data:`MAX_CELL_DRAWS` in a cell): every
        statistic, interval and test then describes that uniform random
        sample, whose guarantees hold at its size.
    subsampled : pandas.DataFrame
        With ``sample_rate < 1``: per (algorithm, benchmark) cell the draws
        available (``n_available``) and used (``n_used``).
    replicates : dict
        ``(scope, algorithm) ->`` :class:`~benchverdict.dse.intervals.Replicates`
        of the upper-tail CVaR (bootstrap intervals only): each distribution is
        resampled once, from a stream of its own, and those resamples make
        its ``cvar_lower``/``cvar_upper`` and every CVaR difference it
        enters (the resamples of A never depend on B). The streams follow
        the distributions' canonical order within a scope
        (:func:`~benchverdict.stats.symmetry.sample_key`), so renaming,
        reordering or an increasing transform of the scores changes none.
    """

    draws: dict
    table: pd.DataFrame
    objective: str
    source_objective: str
    cvar_level: float
    lower_cvar_level: float
    confidence: float
    band: str
    interval: str
    low: float
    high: float
    normalize: str | None
    reference: str | None
    threshold: float | None
    excluded: pd.DataFrame = field(repr=False)
    n_resamples: int = 10_000
    seed: int | None = 0
    pooled: bool = False
    n_permutations: int = 1999
    strata: dict = field(default_factory=dict, repr=False)
    clusters: dict = field(default_factory=dict, repr=False)
    sample_rate: float = 1.0
    subsampled: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=["algorithm", "benchmark", "n_available", "n_used"]), repr=False)
    replicates: dict = field(default_factory=dict, repr=False)
    #: Benchmarks joined by copied runs: one replicate of the sign-flip test over benchmarks.
    copied: BenchmarkReplicates = field(default_factory=BenchmarkReplicates, repr=False)
    #: ``(scope, algorithm) ->`` integer run codes, filled on first use (every test of a
    #: pair needs them; labels are text, slow to encode again for each).
    _codes: dict = field(default_factory=dict, repr=False, compare=False)

    def _summary_lines(self) -> list[str]:
        from benchverdict._repr import names

        scale = self.normalize or "raw scores"
        return [f"performance distributions: {len(self.algorithms)} algorithms x "
                f"{len(self.benchmarks)} benchmark(s){' (pooled)' if self.pooled else ''}; "
                f"CVaR_{self.cvar_level:g}; {self.confidence:.0%} {self.band} band; {scale}; "
                f"{self.objective}",
                f"algorithms: {names(self.algorithms)}",
                f"{len(self.excluded)} row(s) excluded",
                *([f"a uniform random sample: each draw kept with probability "
                   f"{self.sample_rate:.3g} ({int(self.subsampled['n_used'].sum()):,} of "
                   f"{int(self.subsampled['n_available'].sum()):,})"]
                  if self.sample_rate < 1 else [])]

    def summary(self, *, alpha: float = 0.05) -> str:
        """The distributions and every verdict at ``alpha``, as text (``str`` uses 0.05)."""
        return "\n".join([*self._summary_lines(),
                          *(f"- {v.explanation}" for v in self.verdicts(alpha=alpha))])

    @property
    def sign(self) -> float:
        """``+1`` when larger values in ``draws`` are better."""
        return 1.0 if self.objective == "maximize" else -1.0

    @property
    def benchmarks(self) -> list[str]:
        """The scopes, in order."""
        return list(dict.fromkeys(b for b, _ in self.draws))

    @property
    def algorithms(self) -> list[str]:
        """The algorithms, in order."""
        return list(dict.fromkeys(a for _, a in self.draws))

    # ------------------------------------------------------------------ comparisons
    def dominance(self, *, alpha: float = 0.05) -> pd.DataFrame:
        """Pairwise first-order dominance tests per benchmark (see :func:`dominance_test`).

        Columns: ``benchmark, a, b, outcome, p_a_better, p_b_better,
        d_a_better, d_b_better, p_value_adjusted, unit, n_crossings, crossings`` (the first
        six scores where the empirical CDFs cross, as text; all of them are in
        the verdicts' ``details``).
        """
        rows = []
        for bench, a, b, _, _ in self._pairs():
            t = self.dominance_test(bench, a, b, alpha=alpha)
            rows.append(
                {
                    "benchmark": bench, "a": a, "b": b, "outcome": t.outcome,
                    "p_a_better": t.p_a_better, "p_b_better": t.p_b_better,
                    "d_a_better": t.d_a_better, "d_b_better": t.d_b_better,
                    "p_value_adjusted": t.p_value_adjusted, "unit": t.unit,
                    "n_crossings": len(t.crossings),
                    "crossings": "; ".join(
                        f"{c['score']:.4g} ({c['before']}->{c['after']})"
                        for c in t.crossings[:6]
                    ) + (" ..." if len(t.crossings) > 6 else ""),
                }
            )
        return pd.DataFrame(rows)

    def cvar_differences(self) -> pd.DataFrame:
        """Pairwise CVaR advantages (positive favours ``a``) with intervals, per benchmark.

        Columns ``benchmark, a, b, estimate, lower, upper, confidence, method``.
        """
        rows = []
        for bench, a, b, _, _ in self._pairs():
            iv = self._cvar_diff(bench, a, b)
            rows.append({"benchmark": bench, "a": a, "b": b, "estimate": iv.estimate,
                         "lower": iv.lower, "upper": iv.upper, "confidence": iv.confidence,
                         "method": iv.method})
        return pd.DataFrame(rows)

    def _cvar_diff(self, bench: str, a: str, b: str) -> Interval:
        shared = (self.replicates.get((bench, a)), self.replicates.get((bench, b)))
        return cvar_difference(
            self.draws[bench, a], self.draws[bench, b], self.cvar_level,
            objective=self.objective, confidence=self.confidence, interval=self.interval,
            band=self.band, low=self.low, high=self.high, n_resamples=self.n_resamples,
            seed=self.seed, clusters=self._clusters(bench, a, b),
            replicates=None if None in shared else shared,
        )

    def _clusters(self, bench: str, a: str, b: str) -> tuple | None:
        """The runs of the two distributions when some run holds several draws, else None."""
        ca, cb = self._run_codes(bench, a), self._run_codes(bench, b)
        if ca is None or cb is None or not (is_clustered(ca) or is_clustered(cb)):
            return None
        return ca, cb

    def _run_codes(self, bench: str, alg: str) -> np.ndarray | None:
        if (bench, alg) not in self._codes:
            labels = self.clusters.get((bench, alg))
            self._codes[bench, alg] = (None if labels is None
                                       else cluster_codes(labels, labels.size, "clusters"))
        return self._codes[bench, alg]

    def _strata(self, bench: str, a: str, b: str) -> tuple | None:
        if (bench, a) in self.strata and (bench, b) in self.strata:
            return self.strata[bench, a], self.strata[bench, b]
        return None

    def unit(self, bench: str, a: str, b: str) -> str:
        """The unit of replication of the comparison of ``a`` and ``b`` on ``bench``.

        ``"random-search draw (trial)"`` when every run holds one draw, else
        e.g. ``"random-search run (20 draws each; 20 + 20 runs)"``.
        """
        clusters = self._clusters(bench, a, b)
        if clusters is None:
            return _DRAW
        from benchverdict.dse.clusters import sizes_text

        return "random-search " + sizes_text(*clusters)

    def across_benchmarks(self, a: str, b: str, kind: str) -> SignFlipTest | None:
        """The sign-flip test over benchmarks of a pooled pair (None when not pooled).

        ``kind``: ``"dominance"`` (the curves ``F_B,b - F_A,b``), ``"cvar"``
        (``CVaR_A,b - CVaR_B,b`` at :attr:`cvar_level`) or ``"single_draw"``
        (``P_b(a beats b) - 1/2``), each per benchmark on the pooled
        (normalised) values; see :mod:`benchverdict.dse.across_benchmarks`.
        A pooled claim names a direction only when this test agrees with the
        within-benchmark one: the latter alone tests "no difference on any
        benchmark", not which pooled distribution is better.
        """
        if not self.pooled:
            return None
        scope = POOLED
        if (scope, a) not in self.strata or (scope, b) not in self.strata:
            return None
        pairs = common_benchmarks(self.draws[scope, a], self.strata[scope, a],
                                  self.draws[scope, b], self.strata[scope, b])
        if not pairs:
            # No benchmark in common: nothing speaks for a pooled direction (the pooled draws
            # would differ by their benchmarks alone).
            return SignFlipTest(float("nan"), 1.0, 1.0, 1.0, 0, 0, True, 1.0)
        if kind == "dominance":
            d = dominance_curves(pairs, self.sign)
        elif kind == "single_draw":
            d = single_draw_margins(pairs, self.sign)
        elif kind == "cvar":
            d = np.array([self.sign * (cvar(x, self.cvar_level, objective=self.objective)
                                       - cvar(y, self.cvar_level, objective=self.objective))
                          for _, x, y in pairs])
        else:
            raise ValueError(f"kind must be 'dominance', 'cvar' or 'single_draw', got {kind!r}.")
        # Benchmarks on which some algorithm's runs are copies are one replicate: their
        # statistics are averaged, as the rank tests and the LMEM's paired test do.
        labels = self.copied.labels([name for name, _, _ in pairs])
        if joins(labels):
            d = replicate_means(d, labels)
        return sign_flip_test(d, n_resamples=self.n_permutations, seed=self.seed)

    def dominance_test(self, bench: str, a: str, b: str, *, alpha: float = 0.05):
        """The dominance test of ``a`` against ``b`` on scope ``bench`` (runs permuted if any).

        With runs of several draws the two one-sided KS p-values come from
        permuting whole runs (within benchmarks when pooled), with at most
        ``n_permutations`` random splits (Besag-Clifford: a direction stops at
        its 20th split at least as extreme); else scipy's exact KS p-values.
        """
        clusters = self._clusters(bench, a, b)
        return dominance_test(
            self.draws[bench, a], self.draws[bench, b], objective=self.objective, alpha=alpha,
            clusters=clusters, strata=None if clusters is None else self._strata(bench, a, b),
            n_permutations=self.n_permutations, seed=self.seed)

    def single_draw_test(self, bench: str, a: str, b: str, *, alpha: float | None = None,
                         refine: bool = True):
        """``P(a single draw of a beats one of b)``: interval at ``confidence`` and test of 1/2.

        See :func:`~benchverdict.dse.compare.single_draw_test`; runs are the
        unit when they hold several draws (permuted within benchmarks when
        pooled). The report names single-draw winners after Holm over a
        scope's m pairs, whose first step needs ``p <= alpha / m``: with
        ``alpha``, a p-value at the floor of :attr:`n_permutations` splits is
        refined on up to ``2 m / alpha`` splits (at most
        :data:`SINGLE_DRAW_MAX_SPLITS`; m counts every pair of
        :attr:`algorithms`). With 499 splits and 45 pairs the floor, 0.002,
        was above 0.05 / 45: no pair could ever be named. ``refine=False``
        skips that work but reports the floor it would reach (``min_p``).
        """
        most = None
        if alpha is not None:
            k = len(self.algorithms)
            # Twice Holm's first step: a floor p-value passes it with room for a few hits.
            most = min(SINGLE_DRAW_MAX_SPLITS,
                       math.ceil(2 * max(k * (k - 1) // 2, 1) / alpha))
        return single_draw_test(
            self.draws[bench, a], self.draws[bench, b], objective=self.objective,
            clusters=self._clusters(bench, a, b), strata=self._strata(bench, a, b),
            confidence=self.confidence, n_resamples=self.n_permutations, seed=self.seed,
            max_resamples=most, refine=refine)

    def _pairs(self):
        algs = self.algorithms
        for bench in self.benchmarks:
            for i, a in enumerate(algs):
                for b in algs[i + 1:]:
                    if (bench, a) in self.draws and (bench, b) in self.draws:
                        yield bench, a, b, self.draws[bench, a], self.draws[bench, b]

    def cvar_test(self, bench: str, a: str, b: str):
        """The CVaR permutation test of ``a`` against ``b`` on scope ``bench``."""
        xa, xb = self.draws[bench, a], self.draws[bench, b]
        return cvar_permutation_test(xa, xb, self.cvar_level, objective=self.objective,
                                     n_resamples=self.n_permutations,
                                     strata=self._strata(bench, a, b),
                                     clusters=self._clusters(bench, a, b), seed=self.seed)

    def verdicts(self, *, alpha: float = 0.05,
                 kinds: Sequence[str] = ("dominance", "cvar")) -> list[Verdict]:
        """Two verdicts per pair and scope: stochastic dominance and the CVaR difference.

        ``dse.dominance``: the two one-sided KS tests at ``alpha / 2`` each
        (``"a"`` when only A is significantly better somewhere; a significant
        crossing or no difference is ``"inconclusive"``, with the crossing
        points in the explanation and ``details``); ``details`` also hold
        ``p_single_draw``, the probability that a single draw of ``a`` beats
        one of ``b``, its interval at ``confidence``
        (``p_single_draw_interval``, a ``[lower, upper]`` list) and the raw
        p-value of ``P(a beats b) = 1/2`` (``p_single_draw_test``,
        :func:`~benchverdict.dse.compare.single_draw_test`; unadjusted: a
        caller naming single-draw winners over several pairs adjusts them).
        ``dse.cvar``: ``"a"`` or ``"b"`` when the label
        permutation test of the CVaR difference rejects ``F_A = F_B`` at
        ``alpha`` (error at most ``alpha`` per comparison, exactly); when it
        does not but the interval at ``confidence`` excludes 0, the verdict
        is inconclusive with a *lean*. The effect carries the interval.

        The unit: where a run (seed) holds several draws of a distribution,
        every test permutes and every bootstrap resamples whole runs, with
        cluster-robust standard errors; the verdict's ``unit`` reads e.g.
        ``"random-search run (20 draws each; 20 + 20 runs)"``, ``n`` counts
        runs, ``details["unit"]`` is ``"run (...)"`` (``"draw"`` when each run
        is one draw: the IID tests, unchanged), ``details["min_p"]`` is the
        smallest p-value the runs allow, and with too few runs to reach
        ``alpha`` the explanation says so and how many runs are needed.

        ``kinds`` picks which of the two to compute: dominance does not depend
        on the CVaR level, so a caller with several levels asks for it once.
        """
        _check_kinds(kinds)
        out: list[Verdict] = []
        try:
            for pair in self._pairs():
                out += self._pair_verdicts(pair, alpha, kinds)
        finally:
            # The tests of each pair shared its pooled runs; none is needed any more.
            _forget_pooled_runs()
        return out

    def _pair_verdicts(self, pair: tuple, alpha: float, kinds: Sequence[str]) -> list[Verdict]:
        """The verdicts of one ``(bench, a, b, xa, xb)`` of :meth:`_pairs` (:meth:`verdicts`)."""
        bench, a, b, xa, xb = pair
        # Only the pooled distribution speaks for all benchmarks; a benchmark that
        # happens to be called "pooled" or "all" is still that one benchmark.
        scope = Scope(benchmark=None if self.pooled else bench)
        out = []
        if "dominance" in kinds:
            out.append(self._dominance_verdict(bench, a, b, xa, xb, scope, alpha))
        if "cvar" in kinds:
            out.append(self._cvar_verdict(bench, a, b, xa, xb, scope, alpha))
        return out

    def _dominance_verdict(self, bench: str, a: str, b: str, xa: np.ndarray, xb: np.ndarray,
                           scope: Scope, alpha: float) -> Verdict:
        """``dse.dominance``: the two one-sided KS tests (see :meth:`verdicts`)."""
        t = self.dominance_test(bench, a, b, alpha=alpha)
        unit = self.unit(bench, a, b)
        clustered = unit != _DRAW
        cross = ", ".join(f"{c['score']:.4g}" for c in t.crossings[:4])
        more = " ..." if len(t.crossings) > 4 else ""
        # Pooled: the within-benchmark test says the two differ on some benchmark; which
        # pooled distribution is better needs the benchmarks as replicates too.
        across = self.across_benchmarks(a, b, "dominance")
        p_evidence = t.p_value_adjusted
        lean = None
        if across is not None and t.outcome in ("a", "b"):
            side, other = ((across.p_a_better, across.p_b_better) if t.outcome == "a"
                           else (across.p_b_better, across.p_a_better))
            p_evidence = max(p_evidence, min(1.0, 2.0 * side))
        if across is not None and t.outcome in ("a", "b") and not (
                side <= alpha / 2 and other > alpha / 2):
            win = a if t.outcome == "a" else b
            text = (f"within benchmarks the CDFs differ ({win}'s is significantly below "
                    f"somewhere and nowhere significantly above, p = "
                    f"{t.p_value_adjusted:.3g}), but "
                    f"{_across_text(side, across, alpha / 2, two_sided=False)}: no "
                    f"pooled direction, a lean towards {win}")
            outcome, lean = "inconclusive", t.outcome
        elif t.outcome in ("a", "b"):
            win, lose = (a, b) if t.outcome == "a" else (b, a)
            text = (
                f"{win}'s performance CDF is significantly below {lose}'s somewhere and "
                f"nowhere significantly above: consistent with {win} dominating {lose}"
            )
            if t.crossings:
                text += (f"; the empirical CDFs still cross at {cross}{more} (too few "
                         f"draws there to tell)")
            if across is not None:
                text += (f"; over the {_benchmarks(across.n_benchmarks)} too (sign flips, the "
                         f"benchmark as replicate: one-sided p = {side:.3g})")
            outcome = t.outcome
        elif t.outcome == "crossing":
            text = (f"the CDFs cross significantly (each is better somewhere; crossings at "
                    f"{cross}{more}): neither dominates")
            outcome = "inconclusive"
        else:
            text = "no significant difference between the CDFs"
            outcome = "inconclusive"
            if clustered and t.min_p >= alpha / 2:
                text += (f" (with {t.runs_a} + {t.runs_b} runs the smallest attainable "
                         f"one-sided p-value is {t.min_p:.3g}, not below alpha/2 = "
                         f"{alpha / 2:g}: at least {runs_needed(alpha / 2, False)} runs per "
                         f"algorithm are needed to decide)")
        if clustered:
            text += f"; unit: {unit.removeprefix('random-search ')}, whole runs permuted"
            text += _UNEQUAL if "draws each" not in unit else ""
        single_across = self.across_benchmarks(a, b, "single_draw")
        # Pooled, the pair's p-value is the larger of the two tests'. Where the sign-flip
        # test's is at or above the within-benchmark floor, a refined within-benchmark
        # p-value could not lower the pair's (it could only raise it, above the floor): the
        # refinement is skipped. Both ways are valid; min_p is the floor it would reach.
        refine = single_across is None or single_across.p_value < 1.0 / (
            1 + self.n_permutations)
        single = self.single_draw_test(bench, a, b, alpha=alpha, refine=refine)
        p_single = single.p_value
        single_floor = single.min_p  # the smallest p-value these runs allow
        single_how = "unadjusted"
        if single_across is not None:
            # Pooled: "single draws win equally often" must fail on benchmarks like these too.
            p_single = max(p_single, single_across.p_value)
            single_floor = max(single_floor, min(1.0, 2.0 * single_across.min_p))
            single_how = (f"unadjusted; the larger of the within-benchmark test's "
                          f"{single.p_value:.3g} and the sign-flip test's "
                          f"{single_across.p_value:.3g} over the "
                          f"{_benchmarks(single_across.n_benchmarks)}")
        across_details = {} if across is None else {"across_benchmarks": across.details()}
        if single_across is not None:
            across_details["single_draw_across_benchmarks"] = single_across.details()
        return Verdict(
            a=a, b=b, outcome=outcome, method="dse.dominance", scope=scope,
            evidence=Evidence("p_value", p_evidence, alpha), objective=self.objective,
            explanation=text + f"; a single draw of {a} beats one of {b} "
                               f"{single.estimate:.0%} of the time ({self.confidence:.0%} "
                               f"interval {single.lower:.0%} to {single.upper:.0%}; p = "
                               f"{p_single:.3g} for 1/2, {single_how}).",
            # Cliff's delta, P(A > B) - P(B > A) = 2 p - 1: antisymmetric, so it
            # negates when the pair is swapped, as every effect must.
            effect=Effect("single-draw advantage P(a beats b) - P(b beats a) "
                          "(Cliff's delta)",
                          single_draw_advantage(xa, xb, objective=self.objective)),
            unit=unit, n=(t.runs_a + t.runs_b) if clustered else t.n_a + t.n_b,
            p_value=p_evidence, p_one_sided=(t.p_a_better, t.p_b_better), lean=lean,
            single_draw=SingleDraw(single.estimate, single.lower, single.upper, p_single,
                                   single_floor),
            details={"d_a_better": t.d_a_better, "d_b_better": t.d_b_better,
                     "crossings": t.crossings, "test": t.test if clustered
                     else "one-sided two-sample KS x2",
                     "unit": "draw" if not clustered else unit.removeprefix("random-search "),
                     "n_permutations": t.n_permutations, "min_p": t.min_p,
                     "normalize": self.normalize,
                     "single_draw_test": (
                         "studentized run permutation (cluster-robust DeLong SE) of "
                         "P(a beats b) = 1/2" if clustered else
                         "studentized label permutation (DeLong SE, Brunner-Munzel) of "
                         "P(a beats b) = 1/2"),
                     **across_details, **self._sample_details()},
        )

    def _cvar_verdict(self, bench: str, a: str, b: str, xa: np.ndarray, xb: np.ndarray,
                      scope: Scope, alpha: float) -> Verdict:
        """``dse.cvar``: the permutation test decides, the interval may lean (:meth:`verdicts`)."""
        iv = self._cvar_diff(bench, a, b)
        test = self.cvar_test(bench, a, b)
        unit = self.unit(bench, a, b)
        clustered = unit != _DRAW
        what = f"CVaR_{self.cvar_level:g} (mean of the best {1 - self.cvar_level:.0%})"
        lean = None
        too_few_runs = False
        tail_draws = min(xa.size, xb.size) * (1.0 - self.cvar_level)
        # Pooled: the within-benchmark permutation test says the two differ on some
        # benchmark; which pooled CVaR is higher needs the benchmarks as replicates too.
        across = self.across_benchmarks(a, b, "cvar")
        p_evidence = test.p_value if across is None else max(test.p_value, across.p_value)
        across_agrees = across is None or (
            across.p_value <= alpha and test.direction == ("a" if across.estimate > 0 else "b"))
        if test.p_value <= alpha and test.direction is not None and (
                tail_draws < MIN_TAIL_DRAWS):
            # Exact under equal distributions, but which CVaR is higher rests on too few
            # draws for the studentized statistic: no decision, and the reason stated.
            outcome = "inconclusive"
            lean = test.direction
            why = (f"the permutation test rejects equal distributions (p = "
                   f"{test.p_value:.3g}), but with {tail_draws:.1f} draws in the smaller "
                   f"sample's tail (fewer than {MIN_TAIL_DRAWS}) which CVaR is higher is "
                   f"not established: a lean towards {a if lean == 'a' else b}")
        elif (test.p_value <= alpha and test.direction is not None and clustered
              and min(test.runs_a, test.runs_b) < MIN_CVAR_RUNS):
            outcome = "inconclusive"
            lean = test.direction
            too_few_runs = True
            why = (f"the run permutation test rejects equal distributions (p = "
                   f"{test.p_value:.3g}), but with {min(test.runs_a, test.runs_b)} runs in the "
                   f"smaller sample (fewer than {MIN_CVAR_RUNS}) which CVaR is higher is not "
                   f"established (the studentized statistic rejects equal CVaRs too often "
                   f"when the spreads differ): a lean towards {a if lean == 'a' else b}")
        elif test.p_value <= alpha and test.direction is not None and not across_agrees:
            outcome = "inconclusive"
            lean = test.direction
            why = (f"the studentized permutation test within benchmarks rejects equal CVaRs "
                   f"(p = {test.p_value:.3g}), but "
                   + (_across_text(across.p_value, across, alpha, two_sided=True)
                      if across.p_value > alpha else
                      f"over the {_benchmarks(across.n_benchmarks)} the mean per-benchmark "
                      f"CVaR difference points the other way (sign flips, p = "
                      f"{across.p_value:.3g})")
                   + f": no pooled direction, a lean towards {a if lean == 'a' else b}")
        elif test.p_value <= alpha and test.direction is not None:
            outcome = test.direction
            why = (f"the studentized permutation test rejects equal CVaRs "
                   f"(p = {test.p_value:.3g})")
            if across is not None:
                why += (f", and so does the sign-flip test over the "
                        f"{_benchmarks(across.n_benchmarks)} (the benchmark as replicate; "
                        f"p = {across.p_value:.3g})")
        else:
            outcome = "inconclusive"
            lean = "a" if iv.lower > 0 else "b" if iv.upper < 0 else None
            why = (f"the studentized permutation test does not reject equal CVaRs at alpha = "
                   f"{alpha:g} (p = {test.p_value:.3g})")
            if clustered and test.min_p > alpha:
                why += (f"; with {test.runs_a} + {test.runs_b} runs the smallest attainable "
                        f"p-value is {test.min_p:.3g}, above alpha: at least "
                        f"{runs_needed(alpha, True)} runs per algorithm are needed to decide")
            if lean is not None:
                why += (f"; the {self.confidence:.0%} interval excludes 0, a lean "
                        f"towards {a if lean == 'a' else b}, not a decision")
        if clustered:
            why += f"; unit: {unit.removeprefix('random-search ')}, whole runs permuted"
            why += _UNEQUAL if "draws each" not in unit else ""
        return Verdict(
            a=a, b=b, outcome=outcome, method="dse.cvar", scope=scope,
            evidence=Evidence("p_value", p_evidence, alpha),
            objective=self.objective,
            explanation=(
                f"{what} advantage of {a}: {iv.estimate:.4g} [{iv.lower:.4g}, "
                f"{iv.upper:.4g}] ({self.confidence:.0%} {iv.method}); {why}."
            ),
            # positional: Effect(name, estimate, interval ends, interval level)
            effect=Effect(f"CVaR_{self.cvar_level:g} advantage", iv.estimate, iv.lower,
                          iv.upper, self.confidence),
            unit=unit, n=(test.runs_a + test.runs_b) if clustered else int(xa.size + xb.size),
            lean=lean, p_value=p_evidence, parameter=self.cvar_level,
            caveats=_tail_caveats(iv.method, tail_draws),
            details={"interval": iv.method, "normalize": self.normalize,
                     "tail_draws": tail_draws, "min_tail_draws": MIN_TAIL_DRAWS,
                     **({"min_runs": MIN_CVAR_RUNS, "too_few_runs": too_few_runs}
                        if clustered else {}),
                     "test": ("studentized run permutation, cluster-robust SE" if clustered
                              else "studentized label permutation")
                             + (" (all splits)" if test.exact else
                                " (Besag-Clifford sequential)")
                             + (", within benchmarks" if self.strata else ""),
                     "unit": "draw" if not clustered else unit.removeprefix("random-search "),
                     "min_p": test.min_p,
                     "n_permutations": test.n_resamples,
                     **({} if across is None else {"across_benchmarks": across.details()}),
                     **self._sample_details()},
        )

    def _sample_details(self) -> dict:
        """What a verdict on a random sample of the draws must say (empty otherwise)."""
        if self.sample_rate >= 1:
            return {}
        return {"sample_rate": self.sample_rate,
                "n_available": int(self.subsampled["n_available"].sum()),
                "n_used": int(self.subsampled["n_used"].sum())}

    # ------------------------------------------------------------------ plots
    def plot(self, ax=None, *, kind: str = "cdf", benchmark: str | None = None,
             bands: bool = True):
        """The performance CDFs (``kind="cdf"``) or inverse CDFs (``"quantile"``).

        As in Jordan et al.'s Figures 1 and 2: one curve per algorithm, with
        its simultaneous confidence band shaded. The inverse-CDF plot puts
        the quantile level on the x-axis, so a curve that is higher
        everywhere dominates. Returns the Axes; several benchmarks (without
        ``benchmark``) give one panel each in a new figure, and the Axes
        returned is the first panel (the others are ``ax.figure.axes``).
        Given ``ax``, draw one benchmark (or the pooled draws) on it.
        """
        import matplotlib.pyplot as plt

        from benchverdict.plotting import algorithm_colors, legend_outside, new_axes, shorten, theme

        if kind not in ("cdf", "quantile"):
            raise ValueError(f"kind must be 'cdf' or 'quantile', got {kind!r}.")
        benches = [benchmark] if benchmark is not None else self.benchmarks
        unknown = [b for b in benches if b not in self.benchmarks]
        if unknown:
            raise KeyError(f"unknown benchmark(s) {unknown}; known: {self.benchmarks}.")
        if ax is not None and len(benches) > 1:
            raise ValueError(
                f"{len(benches)} benchmarks need {len(benches)} panels, not the one axes "
                f"given: pass benchmark=... (one of {self.benchmarks}) or leave out ax.")
        colors = algorithm_colors(self.algorithms)
        with theme():
            if len(benches) == 1:
                ax = new_axes(ax)
                axes, fig = [ax], None
            else:
                cols = min(3, len(benches))
                rows = int(np.ceil(len(benches) / cols))
                # CDFs share their 0-1 axis: only the left column prints its ticks.
                fig, grid = plt.subplots(rows, cols, figsize=(2.6 * cols + 0.8, 2.2 * rows),
                                         squeeze=False, layout="constrained",
                                         sharey=kind == "cdf")
                axes = list(grid.ravel())
                for extra in axes[len(benches):]:
                    extra.set_visible(False)
            n_cols = 1 if fig is None else cols
            for i, (axis, bench) in enumerate(zip(axes, benches)):
                for alg in self.algorithms:
                    x = self.draws.get((bench, alg))
                    if x is None:
                        continue
                    self._draw(axis, np.sort(x), colors[alg], shorten(alg), kind, bands)
                axis.set_title(shorten(bench))
                what = ("normalised performance" if self.normalize
                        else f"score ({'higher' if self.sign > 0 else 'lower'} is better)")
                x_label, y_label = ((what, "P(score <= x)") if kind == "cdf"
                                    else ("quantile level", what))
                # In a grid the axis titles are said once: x under the lowest panel of each
                # column, y beside the left column (20 repeats cost a third of the drawing).
                if i + n_cols >= len(benches):
                    axis.set_xlabel(x_label)
                if i % n_cols == 0:
                    axis.set_ylabel(y_label)
                elif kind == "cdf":
                    axis.tick_params(labelleft=False)
            # one legend, outside the data (every panel has the same algorithms and colours)
            legend_outside(axes[0] if fig is None else fig)
        plain_text(axes[0].figure)
        return axes[0]

    def _draw(self, axis, xs: np.ndarray, color, label: str, kind: str, bands: bool) -> None:
        n = xs.size
        ecdf = np.arange(1, n + 1) / n
        # Beyond MAX_DRAWN_STEPS steps the curve is drawn at every (n / MAX)-th draw: within
        # 1 / MAX_DRAWN_STEPS of the ECDF everywhere, inside the drawn line (10^6 draws made
        # a 105 MB SVG of 10,000-step curves).
        keep = _drawn_steps(n)
        line_x, line_y = xs[keep], ecdf[keep]
        if kind == "cdf":
            axis.step(np.concatenate([[xs[0]], line_x]), np.concatenate([[0.0], line_y]),
                      where="post", color=color, label=label, lw=1.4)
        else:
            axis.step(np.concatenate([[0], line_y]), np.concatenate([[xs[0]], line_x]),
                      where="pre", color=color, label=label, lw=1.4)
        if not bands or n < 2:
            return
        b = step_band(xs, self.confidence, method=self.band, low=self.low, high=self.high)
        if kind == "cdf":
            # Thinned the same way, each drawn step spans the band's least lower and
            # largest upper bound over the steps it stands for: never narrower than the band.
            axis.fill_between(*_drawn_band(b.values, b.lower, b.upper), step="post",
                              color=color, alpha=0.18, lw=0)
        else:
            # The band on F turns into bounds on the quantile function at each level.
            levels = np.linspace(0.0, 1.0, 201)
            lo = np.array([b.pessimistic().quantile(q) for q in levels])
            hi = np.array([b.optimistic().quantile(q) for q in levels])
            finite = np.isfinite(lo) & np.isfinite(hi)
            axis.fill_between(levels[finite], lo[finite], hi[finite], color=color, alpha=0.18,
                              lw=0, step="mid")


#: The most steps a drawn CDF (and its band) has; more draws are drawn at every
#: (n / MAX_DRAWN_STEPS)-th one (see :func:`_drawn_steps`). The drawn curve is then within
#: 1 / 400 of the ECDF: 0.34 pt on a single panel's axes (137 pt tall), a quarter of the
#: 1.4 pt line, so it stays inside the line as printed (a test checks every panel). 1,000
#: steps drew the same picture with 2.5 times the vertices (a 12 MB SVG and 1.9 s of
#: SVG and PDF for 10 algorithms x 10 benchmarks of 10^4 draws; 6 MB and 1.35 s at 400).
MAX_DRAWN_STEPS = 400


def _drawn_steps(n: int) -> np.ndarray:
    """Which of ``n`` sorted steps a figure draws: all, or about ``MAX_DRAWN_STEPS`` evenly spaced.

    The first step is always kept, so a post-step drawing starts where the curve does.

    Examples
    --------
    >>> _drawn_steps(5).tolist()
    [0, 1, 2, 3, 4]
    >>> int(_drawn_steps(10**6).size), int(_drawn_steps(10**6)[0])
    (400, 0)
    """
    if n <= MAX_DRAWN_STEPS:
        return np.arange(n)
    return np.unique(np.floor(np.arange(MAX_DRAWN_STEPS) * (n / MAX_DRAWN_STEPS)).astype(np.int64))


def _drawn_band(values: np.ndarray, lower: np.ndarray, upper: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A step band (post steps at ``values``) thinned by :func:`_drawn_steps`, never narrower.

    Each drawn step stands for the steps up to the next drawn one and spans
    their least lower and largest upper bound.

    Examples
    --------
    >>> lower, upper = np.array([0.0, 0.2, 0.5]), np.array([0.4, 0.7, 1.0])
    >>> v, lo, hi = _drawn_band(np.arange(3.0), lower, upper)
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.2, 0.5], [0.4, 0.7, 1.0])
    """
    at = _drawn_steps(values.size)
    return values[at], np.minimum.reduceat(lower, at), np.maximum.reduceat(upper, at)


def _check_kinds(kinds: Sequence[str]) -> None:
    unknown = set(kinds) - {"dominance", "cvar"}
    if unknown:
        raise ValueError(f"kinds must be drawn from ('dominance', 'cvar'), got "
                         f"{sorted(unknown)}.")


def verdicts_by_pair(results: Sequence[DistributionResult], *, alpha: float = 0.05,
                     kinds: Sequence[Sequence[str]] | None = None
                     ) -> list[list[Verdict] | Exception]:
    """Each result's :meth:`~DistributionResult.verdicts`, computed pair by pair across them.

    Results of the same draws at several CVaR levels test the same pairs:
    taking each pair's tests of every result in turn lets them share the
    pair's pooled runs and count tables (built once per pair, not once per
    level). Each result gets the verdicts, in the order, that its own
    ``verdicts(alpha=alpha, kinds=kinds[i])`` gives, or the exception it
    raised (the others go on). Results with different draws are taken one
    after the other.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> r = _example_small()
    >>> levels = [distribution(r, cvar_level=a, n_resamples=99, n_permutations=99)
    ...           for a in (0.5, 0.9)]
    >>> both = verdicts_by_pair(levels, kinds=[("dominance", "cvar"), ("cvar",)])
    >>> both[1] == levels[1].verdicts(kinds=("cvar",))
    True
    """
    kinds = [("dominance", "cvar")] * len(results) if kinds is None else list(kinds)
    if len(kinds) != len(results):
        raise ValueError(f"kinds must give one tuple per result: {len(results)} results, "
                         f"{len(kinds)} kinds.")
    for k in kinds:
        _check_kinds(k)
    out: list[list[Verdict] | Exception] = [[] for _ in results]
    # The same draws under the same keys in the same order: the same pairs, in order.
    together = [i for i, r in enumerate(results)
                if list(r.draws) == list(results[0].draws)
                and all(np.array_equal(r.draws[key], results[0].draws[key])
                        for key in r.draws)]
    try:
        for pair in (results[0]._pairs() if results else ()):
            for i in together:
                if isinstance(out[i], Exception):
                    continue
                try:
                    out[i] += results[i]._pair_verdicts(pair, alpha, kinds[i])
                except Exception as err:  # that result's failure, reported by its caller
                    out[i] = err
    finally:
        _forget_pooled_runs()
    for i, r in enumerate(results):
        if i not in together:
            try:
                out[i] = r.verdicts(alpha=alpha, kinds=kinds[i])
            except Exception as err:
                out[i] = err
    return out


def _auto_interval(interval: str, low: float, high: float) -> str:
    if interval == "auto":
        return "band" if np.isfinite(low) and np.isfinite(high) else "bootstrap"
    if interval not in ("band", "bootstrap"):
        raise ValueError(f"interval must be 'auto', 'band' or 'bootstrap', got {interval!r}.")
    return interval


def distribution(
    results: Results,
    *,
    pooled: bool = False,
    normalize: str | None = None,
    reference: str | None = None,
    cvar_level: float = 0.5,
    lower_cvar_level: float = 0.1,
    threshold: float | None = None,
    confidence: float = 0.95,
    band: str = "dkw",
    interval: str = "auto",
    low: float | None = None,
    high: float | None = None,
    n_resamples: int = 10_000,
    seed: int | None = 0,
    n_permutations: int = 1999,
    draws: str = "auto",
) -> DistributionResult:
    """Build per-algorithm performance distributions and summarise them.

    Parameters
    ----------
    results : Results
        ``kind="trials"`` (every row a random-search draw; the draws of one
        seed in an (algorithm, benchmark) cell form one *run*, and where a
        run holds several draws, which may share a run effect, every test
        and interval takes the run as the unit: see
        :meth:`DistributionResult.verdicts`); ``"runs"`` is refused. With
        more than :data:`MAX_DRAWS` draws in all or :data:`MAX_CELL_DRAWS` in
        one cell (on Dask too), the analysis runs on a uniform random sample
        of the draws (each kept with the same probability, independent of the
        scores and of the engine; see ``sample_rate``), so every guarantee
        holds at the sample's size.
    pooled : bool
        Pool each algorithm's draws over benchmarks (one distribution per
        algorithm, the paper's distribution over data sets too). Use with
        ``normalize`` when benchmarks have different scales.
    normalize : {None, "minmax", "reference"}
        Per-benchmark normalisation (see :mod:`benchverdict.dse.aggregate`);
        normalised values are oriented performance (larger is better).
    reference : str, optional
        Reference algorithm for ``normalize="reference"``.
    cvar_level : float
        The upper-tail CVaR level (Jordan et al. report ``CVaR_0.5``, the mean
        of the best half of the draws). Not a significance level: those are
        ``alpha``, e.g. in :meth:`DistributionResult.verdicts`.
    lower_cvar_level : float
        The lower-tail (risk) CVaR: the mean of the worst ``lower_cvar_level``
        share of the draws.
    threshold : float, optional
        Adds the threshold area and the probability of exceeding it.
    confidence : float
        Level of every interval and band.
    band : {"dkw", "ks", "ld_equal_tailed", "ld_highest_density"}
        CDF band for the band intervals and plots.
    interval : {"auto", "band", "bootstrap"}
        How CVaR intervals are made; ``"auto"`` uses the band when both
        support bounds are given, else the bootstrap.
    low, high : float, optional
        Support bounds of the score (e.g. 0 and 1 for accuracy), needed for
        finite band intervals of CVaR and areas.
    n_resamples : int
        Bootstrap replicates.
    seed : int, optional
    n_permutations : int
        The most label permutations of the CVaR, run dominance and single-draw
        tests in :meth:`~DistributionResult.verdicts` (each stops early,
        Besag-Clifford, where it is far from significant).
    draws : {"auto", "iid", "clustered"}
        ``"auto"`` and ``"clustered"``: a seed's draws in a cell form one run,
        the unit of every test and interval where a run holds several draws.
        ``"iid"``: the caller states that every draw is independent of the
        other draws of its run, so each draw is its own unit.

    Returns
    -------
    DistributionResult

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> d = distribution(_example_small(), low=0, high=1)
    >>> d.table[["benchmark", "algorithm", "n", "median"]]
      benchmark algorithm  n  median
    0         p         a  4   0.350
    1         p         b  4   0.250
    2         q         a  4   0.800
    3         q         b  4   0.650
    """
    results.require_kind("trials", "dse.distribution()")
    results, sample_rate, subsampled = _affordable_sample(results, seed, bool(pooled))
    frame = normalize_frame(results.table, sign=results.sign, method=normalize,
                            reference=reference)
    if normalize is None:
        frame["value"] = frame["score"].to_numpy(dtype=float)
        objective = results.objective
        lo = -np.inf if low is None else float(low)
        hi = np.inf if high is None else float(high)
    else:
        frame["value"] = frame["performance"]
        objective = "maximize"
        if low is not None or high is not None:
            raise ValueError(
                "low/high are score bounds; with normalize they do not carry over to the "
                "normalised scale (min-max uses the observed range, which future draws can "
                "leave). Use interval='bootstrap' or normalize=None."
            )
        lo, hi = -np.inf, np.inf
    # Text columns made once, as object arrays of str (not once per cell: 100 cells of 20k
    # rows took seconds; nor through a frame column, which turns them into Arrow strings).
    scope_col = (np.full(len(frame), POOLED, dtype=object) if pooled
                 else text_array(frame["benchmark"]))
    # The run of each draw: its seed within the (algorithm, benchmark) cell.
    if draws not in ("auto", "iid", "clustered"):
        raise ValueError(f"draws must be 'auto', 'iid' or 'clustered', got {draws!r}: 'iid' "
                         f"states that every draw is independent of its run's other draws.")
    seeds = text_array(results.table["seed"])
    bench_col = text_array(frame["benchmark"]) if pooled else None
    run_col = (bench_col + "\x1f" + seeds) if pooled else seeds
    if draws == "iid":  # the user's statement: every draw is its own replicate
        run_col = np.arange(len(frame)).astype(str).astype(object)
    sign = 1.0 if objective == "maximize" else -1.0
    draws: dict = {}
    strata: dict = {}
    clusters: dict = {}
    algs = results.algorithms
    cells = []
    values = frame["value"].to_numpy(dtype=float)
    # Rows grouped by (scope, algorithm) with one stable sort of integer cell numbers (rows
    # keep their order within a cell): comparing 10^6 labels with each scope and algorithm
    # took seconds.
    scope_codes, scopes = pd.factorize(scope_col)
    alg_codes = positions_in(frame["algorithm"], list(algs))
    cell = np.where(alg_codes >= 0, scope_codes * len(algs) + alg_codes, -1)
    by_cell = np.argsort(cell, kind="stable")
    bounds = np.searchsorted(cell[by_cell], np.arange(len(scopes) * len(algs) + 1))
    for i, scope in enumerate(scopes):
        for j, alg in enumerate(algs):
            sel = by_cell[bounds[i * len(algs) + j]:bounds[i * len(algs) + j + 1]]
            if not sel.size:
                continue
            x = values[sel]
            draws[str(scope), alg] = x
            clusters[str(scope), alg] = run_col[sel]
            if pooled:
                strata[str(scope), alg] = bench_col[sel]
            cells.append((str(scope), alg, x))
    runs = {key: cluster_codes(c, c.size, "runs") for key, c in clusters.items()}
    clustered = [key for key, codes in runs.items() if is_clustered(codes)]
    if clustered and interval == "band":
        raise ValueError(
            f"band intervals assume independent draws, but runs (seeds) hold several draws "
            f"(e.g. {clustered[0][1]!r} on {clustered[0][0]!r}), which can share a run effect: "
            f"use interval='bootstrap' (or 'auto'), which resamples whole runs.")
    how = "bootstrap" if clustered and interval == "auto" else _auto_interval(interval, lo, hi)
    replicates = (_replicates(cells, runs, sign, cvar_level, n_resamples, seed)
                  if how == "bootstrap" else {})
    rows = [_summary(scope, alg, x, sign, cvar_level, lower_cvar_level, threshold,
                     confidence, band, how, lo, hi, n_resamples, seed,
                     runs[scope, alg] if (scope, alg) in clustered else None,
                     replicates.get((scope, alg)))
            for scope, alg, x in cells]
    return DistributionResult(
        draws=draws, table=pd.DataFrame(rows), objective=objective,
        source_objective=results.objective, cvar_level=cvar_level,
        lower_cvar_level=lower_cvar_level,
        confidence=confidence, band=band, interval=how, low=lo, high=hi,
        normalize=normalize, reference=reference, threshold=threshold,
        excluded=results.exclusions, n_resamples=n_resamples, seed=seed,
        pooled=bool(pooled), n_permutations=int(n_permutations), strata=strata,
        clusters=clusters, sample_rate=float(sample_rate), replicates=replicates,
        copied=results.copied_benchmarks() if pooled else BenchmarkReplicates(),
        _codes=dict(runs),
        **({} if subsampled is None else {"subsampled": subsampled}),
    )


def _affordable_sample(results: Results, seed: int | None, pooled: bool
                       ) -> tuple[Results, float, pd.DataFrame | None]:
    """All draws, or a uniform random sample when they exceed what DSE can afford.

    The bootstrap intervals and permutation tests hold ``n_resamples x n``
    arrays, so beyond :data:`MAX_DRAWS` draws in all or
    :data:`MAX_CELL_DRAWS` in one distribution (an (algorithm, benchmark)
    cell, or an algorithm's draws when ``pooled``) every row is kept with
    one probability ``rate`` (:meth:`Results.uniform_sample`): IID draws
    stay IID and pooled proportions are kept in expectation.
    """
    available = results.cell_sizes()
    if not len(available):
        return results, 1.0, None
    largest = int(available.groupby(level=0, observed=True).sum().max() if pooled
                  else available.max())
    rate = min(1.0, MAX_DRAWS / len(results), MAX_CELL_DRAWS / largest)
    if rate >= 1.0:
        return results, 1.0, None
    sample = results.uniform_sample(rate, 0 if seed is None else int(seed))
    used = sample.cell_sizes().reindex(available.index, fill_value=0)
    table = pd.DataFrame({
        "algorithm": [str(a) for a, _ in available.index],
        "benchmark": [str(b) for _, b in available.index],
        "n_available": available.to_numpy(), "n_used": used.to_numpy()})
    return sample, rate, table


def _replicates(cells: list, runs: dict, sign: float, cvar_level: float, n_resamples: int,
                seed: int | None) -> dict:
    """Each distribution's upper-CVaR bootstrap replicates, from a stream of its own.

    Within a scope the distributions are ranked by their values
    (:func:`~benchverdict.stats.symmetry.sample_key`) and the one of rank
    ``r`` draws from ``SeedSequence([seed, r])``: distinct distributions get
    independent streams, and no renaming, reordering or increasing
    transform of the scores moves a stream to another distribution.
    Identical distributions share a rank (and a stream), which
    :func:`~benchverdict.dse.cvar_difference` detects and handles.
    """
    stat = statistic("cvar", cvar_level=cvar_level, tail="upper")
    out: dict = {}
    for scope in dict.fromkeys(s for s, _, _ in cells):
        mine = [(alg, sign * x) for s, alg, x in cells if s == scope]
        keys = {alg: sample_key(z) for alg, z in mine}
        distinct = sorted(set(keys.values()))
        rank = {k: r for r, k in enumerate(distinct)}
        for alg, z in mine:
            stream = (None if seed is None
                      else np.random.SeedSequence([int(seed), rank[keys[alg]]]))
            out[scope, alg] = sample_replicates(z, stat, n_resamples, stream,
                                                runs.get((scope, alg)))
    return out


def _summary(scope, alg, x, sign, cvar_level, lower_cvar_level, threshold, confidence, band,
             how, lo, hi, n_resamples, seed, runs=None,
             replicates: Replicates | None = None) -> dict:
    z = sign * x
    up = statistic("cvar", cvar_level=cvar_level, tail="upper")
    down = statistic("cvar", cvar_level=lower_cvar_level, tail="lower")
    row = {
        "benchmark": scope,
        "algorithm": alg,
        "n": int(x.size),
        "mean": float(x.mean()),
        "q25": float(sign * np.quantile(z, 0.25)),
        "median": float(np.median(x)),
        "q75": float(sign * np.quantile(z, 0.75)),
        "cvar": up.to_user(up.of_sample(z), sign),
    }
    if how == "band":
        iv = band_interval(x, up, sign=sign, confidence=confidence, method=band, low=lo, high=hi)
    else:
        iv = bootstrap_interval(x, up, sign=sign, confidence=confidence,
                                n_resamples=n_resamples, seed=seed, clusters=runs,
                                replicates=replicates)
    row["cvar_lower"], row["cvar_upper"] = iv.lower, iv.upper
    row["lower_tail_cvar"] = down.to_user(down.of_sample(z), sign)
    if runs is None:
        med = band_interval(x, statistic("quantile", q=0.5), sign=sign, confidence=confidence,
                            method=band, low=lo, high=hi)
    else:  # runs of several draws: the band (IID) would not hold; resample whole runs
        med = bootstrap_interval(x, statistic("quantile", q=0.5), sign=sign,
                                 confidence=confidence, n_resamples=n_resamples, seed=seed,
                                 clusters=runs)
    row["median_lower"], row["median_upper"] = med.lower, med.upper
    if threshold is not None:
        tau = sign * float(threshold)
        area = statistic("threshold_area", threshold=tau)
        exc = statistic("exceedance", threshold=tau)
        row["threshold_area"] = area.of_sample(z)
        if how == "band":
            ai = band_interval(x, area, sign=sign, confidence=confidence, method=band, low=lo,
                               high=hi)
        else:
            ai = bootstrap_interval(x, area, sign=sign, confidence=confidence,
                                    n_resamples=n_resamples, seed=seed, clusters=runs)
        row["threshold_area_lower"], row["threshold_area_upper"] = ai.lower, ai.upper
        row["exceedance"] = exc.of_sample(z)
        if runs is None:
            ei = band_interval(x, exc, sign=sign, confidence=confidence, method=band, low=lo,
                               high=hi)
        else:
            ei = bootstrap_interval(x, exc, sign=sign, confidence=confidence,
                                    n_resamples=n_resamples, seed=seed, clusters=runs)
        row["exceedance_lower"], row["exceedance_upper"] = ei.lower, ei.upper
    return row


__all__ = ["MAX_CELL_DRAWS", "MAX_DRAWS", "POOLED", "DistributionResult", "distribution"]


def _tail_caveats(interval: str, tail_draws: float) -> tuple[str, ...]:
    """The caveat of a bootstrap CVaR interval with too few tail draws (none otherwise).

    Examples
    --------
    >>> _tail_caveats("bootstrap (studentized)", 4.0)[0][:40]
    'its bootstrap interval rests on about 4.'
    >>> _tail_caveats("bootstrap (studentized)", 40.0)
    ()
    """
    if not interval.startswith("bootstrap") or tail_draws >= MIN_BOOTSTRAP_TAIL_DRAWS:
        return ()
    return (f"its bootstrap interval rests on about {tail_draws:.1f} tail draws per "
            f"algorithm, too few for the bootstrap of a tail statistic to hold its "
            f"coverage (Tang et al. 2020)",)
