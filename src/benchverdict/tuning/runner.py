"""The tuning-curve family's run: median curves with exact bands, compared per benchmark.

:func:`run_tuning` (``run(results, options) -> AnalysisRun``, registered as
the ``"tuning"`` family in :mod:`benchverdict.families`) builds the median
tuning curves with simultaneous Learned-Miller--DeStefano highest-density
bands (Lourie et al. 2024), places the exact order-statistic test of every
pair at the final budget (``k`` = the trials a search has there) and its
band decisions over budget ranges, and gives the report's sample-size
advice for the pairs it could not separate (:class:`TuningGuide`): how far
the current draws bound the curve, and how many draws would bound it up to
the budget of interest.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from benchverdict.analysis import (
    MAX_FIGURES_PER_ANALYSIS,
    AnalysisRun,
    Options,
    add_figure,
    budget_scope,
    draws_reading,
    draws_reason,
    final_trials,
    trials_per_run,
)
from benchverdict.results import Results
from benchverdict.tuning.collection import from_results
from benchverdict.tuning.guidance import largest_budget, sample_size


def run_tuning(results: Results, options: Options) -> AnalysisRun:
    """Median tuning curves with exact simultaneous LD bands, compared per benchmark.

    Per pair, benchmark and budget range: a decision where the bands at
    ``sqrt(1 - alpha)`` separate (error at most ``alpha`` per pair), else
    Lourie et al.'s lean (weak / fair / strong) from the display bands.
    At the final budget -- ``k`` = the trials a search has there -- the
    exact order-statistic test of the two curves, per benchmark and "on
    every benchmark", which is the family's vote. Cells that get no curve
    are recorded as exclusions.
    """
    run = AnalysisRun("tuning", "ok")
    run.step("tuning curves and bands")
    curves = from_results(results, kind="median", band="ld_highest_density",
                          confidence=options.confidence, alpha=options.alpha)
    k = final_trials(results, options)
    k_final = None if k is None else int(k)
    reading, why = draws_reading(results, options)
    run.reason = draws_reason(reading, results)
    run.step("tuning-curve decisions and tests")
    final_scope = budget_scope(options.budget)
    # The tests sit at the final budget, where a search has k_final trials: their scopes
    # say both (the budget in the budget column's unit, k as a count); the module sets them.
    at_budget = final_scope.budget_low if k_final is not None else None
    for v in curves.verdicts(budget=k_final, at_budget=at_budget):
        if reading == "clustered":
            # The bands and the order-statistic test assume IID draws; draws that share
            # a run are not, so these verdicts describe and do not vote, and decide nothing:
            # with 5 runs of 20 draws of two identical algorithms, half the data sets got a
            # band "decision" whose stated error bound did not hold.
            changes: dict = {"no_vote": why, "caveats": (*v.caveats, "IID draws (" + why + ")")}
            if v.outcome in ("a", "b"):
                changes.update(
                    outcome="inconclusive", lean=v.outcome,
                    explanation=("not decided, a lean: the draws of a run may share a run "
                                 "effect, and this comparison assumes independent draws; "
                                 "were they "
                                 "independent: " + v.explanation.replace(
                                     "so the decision errs with", "so a decision would err "
                                     "with")))
            v = dataclasses.replace(v, **changes)
        run.verdicts.append(v)
    run.notes.append(
        "Draws: " + why + (
            ". Tuning curves are shown, but their bands and tests assume IID draws, so they "
            "do not vote; per benchmark, the runs' final incumbents decide (LMEM, runs as "
            "replicates). Pass draws='iid' (--draws iid) if every draw is independent of "
            "its run's other draws." if reading == "clustered" else "."))
    if k_final is not None and len(curves.sketched) < len(curves.benchmarks):
        run.notes.append(
            f"At the final budget every pair's curves are compared by the exact "
            f"order-statistic test at k = {k_final} trials (the most trials a search has "
            f"there); its p-value is the tuning curves' vote"
            + (" where the draws are independent (here they are not: see above)"
               if reading == "clustered" else "")
            + f". Decisions over budget ranges "
            f"need the {np.sqrt(1 - options.alpha):.2%} bands to separate (error at most "
            f"alpha = {options.alpha:g} per pair); the {options.confidence:g} bands only lean.")
    tested = [b for b in curves.benchmarks if b not in curves.sketched]
    if k_final is None and tested:
        budgets = curves.test_budgets()
        ks = {b: budgets[b] for b in tested}
        n_tests = curves.n_tests()
        shown = list(ks.items())[:8]
        where = (f"k = {ks[tested[0]]} trials" if len(set(ks.values())) == 1 else
                 "k = " + ", ".join(f"{k} on {b}" for b, k in shown)
                 + (f" and {len(ks) - 8} more benchmarks" if len(ks) > 8 else ""))
        run.notes.append(
            f"Without a trial order (no budget column) the draws have no final budget: each "
            f"pair's curves are compared by the exact order-statistic test at half the "
            f"most trials the benchmark's smallest sample can bound for the "
            f"{n_tests:,} test(s) together ({where}; chosen from the sample sizes, alpha "
            f"and the number of tests alone, never from the scores: at the most trials "
            f"the draws can bound only samples that do not overlap in the tail could be "
            f"settled); its p-value is the "
            f"tuning curves' vote"
            + (" where the draws are independent (here they are not: see above)"
               if reading == "clustered" else "")
            + f". Decisions over budget ranges need the "
            f"{np.sqrt(1 - options.alpha):.2%} bands to separate (error at most alpha = "
            f"{options.alpha:g} per pair); the {options.confidence:g} bands only lean.")
    if curves.sketched:
        bound = max(c.sketch.error_bound for _, c in curves if c.sketch is not None)
        largest = max(c.n for _, c in curves if c.sketch is not None)
        run.notes.append(
            f"{len(curves.sketched)} benchmark(s) have cells with more draws than the client "
            f"holds (up to {largest:,}): their curves come from exact-count ECDF sketches, "
            f"with DKW bands widened by each sketch's exact error bound (at most {bound:.2g} "
            f"in the CDF; stated in every verdict), and every curve on those benchmarks uses "
            f"the DKW band. Their pairs are decided by the bands only: the order-statistic "
            f"test needs the draws themselves.")
    reached = [c.cdf.grid_coverage for _, c in curves if c.cdf is not None]
    reached = [r for r in reached if r is not None]
    if reached:
        low, high = min(reached), max(reached)
        what = f"{low:.3f}" if high - low < 5e-4 else f"{low:.3f}-{high:.3f}"
        run.notes.append(
            f"The {options.confidence:g} bands are calibrated on the integer budgets they "
            f"are shown at (k = 1, 2, ...): each covers its whole curve at those budgets "
            f"with probability {what} for continuous scores (the first attainable value at "
            f"or above {options.confidence:g}; ties make it larger).")
    if len(curves.excluded):
        run.tables["cells without a curve"] = curves.excluded
        n = run.exclude("tuning curves", "cell", curves.excluded)
        run.warnings.append(f"{n} algorithm x benchmark cell(s) got no tuning curve (listed "
                            f"in the tables and the report's exclusions).")
    guidance = run.attempt("sample-size table", curves.guidance)
    if guidance is not None:
        run.tables["sample size and the largest budget each band bounds"] = guidance
    if results.kind == "trials":
        # Benchmarks whose curves had DKW bands (sketched cells): their guidance uses DKW.
        run.guide = TuningGuide(results, options, frozenset(map(str, curves.sketched)))
    table = run.attempt("tuning-curve table", lambda: curves.table)
    if table is not None:
        run.tables["median tuning curves (k, point, band)"] = table
    if guidance is not None and len(guidance):
        def span(values, fmt: str) -> str:
            lo, hi = float(values.min()), float(values.max())
            return format(lo, fmt) if lo == hi else f"{lo:{fmt}} to {hi:{fmt}}"

        bands = (f"{options.confidence:g} simultaneous LD highest-density bands"
                 if not curves.sketched else
                 f"{options.confidence:g} simultaneous bands (LD highest-density; DKW on the "
                 f"{len(curves.sketched)} benchmark(s) with sketched cells)")
        run.notes.append(
            f"Median tuning curves with {bands} (Lourie et al. 2024); with n = "
            f"{span(guidance['n'], ',.0f')} draws per curve the upper band is informative up "
            f"to k = {span(guidance['k_max'], '.1f')}.")
    for bench in curves.benchmarks[:MAX_FIGURES_PER_ANALYSIS]:
        add_figure(
            run, options, f"tuning-{bench}", f"Median tuning curves on {bench}",
            lambda bench=bench: curves.plot(benchmark=bench),
            f"The median best score of k random-search draws, with simultaneous "
            f"{options.confidence:g} bands; budgets beyond a band's informative range show "
            f"a trivial upper bound.", n_algorithms=len(results.algorithms))
    if len(curves.benchmarks) > MAX_FIGURES_PER_ANALYSIS:
        run.notes.append(f"Figures show the first {MAX_FIGURES_PER_ANALYSIS} of "
                         f"{len(curves.benchmarks)} benchmarks; the table has them all.")
    return run


class TuningGuide:
    """How many more draws would settle a pair the tuning curves could not separate.

    Called as ``guide(a, b, (benchmark, metafeature_levels))`` by the report
    for each unsettled pair and scope (``benchmark`` is ``None`` across
    benchmarks). The band bounds the median tuning curve only up to some
    ``k`` for ``n`` draws (:func:`~benchverdict.tuning.largest_budget`); the
    advice gives that reach and the draws per algorithm that bound it up to
    the budget of interest (:func:`~benchverdict.tuning.sample_size`). That
    budget is a number of trials ``k``: with a trial order, the trials a
    search of ``a`` or ``b`` has at the requested budget, so the budget
    column's unit (trial index, seconds, epochs x 1000) does not matter;
    without one, twice what the current draws bound.

    Parameters
    ----------
    results : Results
    options : Options
        ``confidence`` and ``budget`` are read.
    dkw_benchmarks : frozenset of str
        Benchmarks whose curves have DKW bands (sketched cells).

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> guide = TuningGuide(_example_small(), Options())
    >>> guide("a", "b", ("p", ()))[:30]
    'with 4 draws per algorithm the'
    """

    #: The advice is about the curves of one benchmark (the report says "Per benchmark").
    scope = "per benchmark"

    def __init__(self, results: Results, options: Options,
                 dkw_benchmarks: frozenset[str] = frozenset()):
        self.options = options
        self.dkw_benchmarks = dkw_benchmarks
        counts = results.cell_sizes()
        trials = trials_per_run(results, options.budget)
        self.has_trial_order = trials is not None
        # Looked up once per pair and scope (10,000s of times with many algorithms): plain
        # dicts, not pandas indexing.
        self._cell_n = {(str(a), str(b)): int(n) for (a, b), n in counts.items()}
        self._alg_n: dict[str, list[int]] = {}
        for (alg, _), n in self._cell_n.items():
            self._alg_n.setdefault(alg, []).append(n)
        self._cell_k: dict[tuple[str, str], int] = {}
        self._alg_k: dict[str, int] = {}
        if trials is not None and len(trials):
            by_cell = trials.groupby(level=["algorithm", "benchmark"], observed=True).max()
            for (alg, bench), k in by_cell.items():
                self._cell_k[str(alg), str(bench)] = int(k)
                self._alg_k[str(alg)] = max(self._alg_k.get(str(alg), 0), int(k))
        self._largest: dict[tuple[int, str], float] = {}
        self._needed: dict[tuple[int, str], int] = {}

    def _band(self, bench: str | None) -> dict[str, str]:
        dkw = (bench in self.dkw_benchmarks if bench is not None
               else bool(self.dkw_benchmarks))
        # A sketched curve's DKW band bounds the whole CDF (calibrate "cdf").
        return ({"band": "dkw", "calibrate": "cdf"} if dkw
                else {"band": "ld_highest_density", "calibrate": "curve"})

    def largest_budget(self, n: int, bench: str | None = None) -> float:
        """The largest ``k`` the band bounds with ``n`` draws (cached)."""
        band = self._band(bench)
        key = (n, band["band"])
        if key not in self._largest:
            self._largest[key] = float(largest_budget(n, self.options.confidence, **band))
        return self._largest[key]

    def sample_size(self, k: int, bench: str | None = None) -> int:
        """The draws per algorithm that bound the curve up to ``k`` (cached)."""
        band = self._band(bench)
        key = (k, band["band"])
        if key not in self._needed:
            self._needed[key] = int(sample_size(k, self.options.confidence, **band))
        return self._needed[key]

    def __call__(self, a: str, b: str, key: tuple) -> str | None:
        """How far the band reaches for ``a`` vs ``b`` and the draws that would settle them."""
        bench, _ = key
        if bench is not None:
            if (a, bench) not in self._cell_n or (b, bench) not in self._cell_n:
                return None
            sizes = [self._cell_n[a, bench], self._cell_n[b, bench]]
        else:
            if a not in self._alg_n or b not in self._alg_n:
                return None
            sizes = self._alg_n[a] + self._alg_n[b]
        n = int(min(sizes))
        # "0.8 band", or "0.8 DKW band" where the curves came from sketches.
        conf = (f"{self.options.confidence:g} DKW" if self._band(bench)["band"] == "dkw"
                else f"{self.options.confidence:g}")
        k_max = self.largest_budget(n, bench)
        k_goal = self._k_goal(a, b, bench, k_max)
        if k_goal is None:
            return (f"with {n:,} draws per algorithm the median tuning curve's {conf} band "
                    f"is informative up to k = {k_max:.1f}; at the requested budget no search "
                    f"has a trial yet, so there is no budget of interest to size for.")
        n_goal = self.sample_size(k_goal, bench)
        if n_goal > n:
            return (f"with {n:,} draws per algorithm the median tuning curve's {conf} band "
                    f"is informative only up to k = {k_max:.1f}; bounding it up to k = "
                    f"{k_goal:,} trials takes n = {n_goal:,} draws per algorithm.")
        return (f"{n:,} draws per algorithm already give informative {conf} bands up to "
                f"k = {k_max:.1f} (k = {k_goal:,} trials needs {n_goal:,}), yet they overlap: "
                f"the difference is smaller than the bands resolve; band width shrinks like "
                f"1/sqrt(n), so about 4x the draws halve it.")

    def _k_goal(self, a: str, b: str, bench: str | None, k_max: float) -> int | None:
        """The tuning-curve budget k of interest: a number of trials, never a budget value."""
        if not self.has_trial_order:
            return max(2, 2 * math.floor(k_max))
        if bench is not None:
            k = max(self._cell_k.get((a, bench), 0), self._cell_k.get((b, bench), 0))
        else:
            k = max(self._alg_k.get(a, 0), self._alg_k.get(b, 0))
        return k if k >= 1 else None
