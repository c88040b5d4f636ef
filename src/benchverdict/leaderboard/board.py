"""A leaderboard: the report's partial ranking as a ranked table.

Each complete entry gets

- a **position range** ``best..worst`` from the partial order of the
  report over all benchmarks: ``best = 1 + #(algorithms settled or implied
  better)``, ``worst = n - #(algorithms settled or implied worse)``. A
  position shared by several entries means the data do not separate them;
  nothing is ranked by a difference that is not error-controlled. Settled
  relations have family-wise error at most ``alpha`` over all pairs (see
  :mod:`benchverdict.report.relations`).
- the **families** (rank tests, LMEM, ...) whose decisions settle its
  relations, and the algorithms it is settled above and below;
- its **mean rank** over benchmarks at the board's budget (each run's
  incumbent at the design's final budget, the rows the positions rest on;
  seeds averaged first, rank 1 = best, ties share the mean rank) with an
  interval for the expected rank on a random benchmark. The board shows
  the *simultaneous* intervals (all entries' hold together with probability
  ``confidence``) and keeps the marginal ones in
  ``mean_rank_marginal_lower/upper``; see :func:`mean_rank_interval`. The
  mean rank orders entries inside a shared position; it settles nothing.

**What the positions guarantee.** The position ranges are a simultaneous
confidence set for the ranks at level ``1 - alpha``, in the sense of
Mogstad, Romano, Shaikh and Wilhelm (2023; R package csranks): with
probability at least ``1 - alpha``, *every* entry's true rank lies in its
range, for all entries at once. The true rank is that of the entry's effect
under the report's estimand (``"benchmarks"``): the population of
benchmarks the observed ones are a random sample of, each run's incumbent
at the board's budget, seeds averaged within a benchmark, the benchmark the
unit of replication. It holds because the ranges only use settled and
implied relations, and the probability that any of them is false (a wrong
direction, or a separation of entries that are equal) is at most ``alpha``
(Holm over all pairs and families). **Ties:** entries equal in truth may
hold any of the ranks ``[#better + 1, #better + #tied + 1]``; the range
contains all of them (so also csranks' rank ``1 + #better``), because the
board never separates a tie except by a false relation. The claim is
checked by seeded simulation in tests/test_leaderboard_coverage.py (boards
of 5 to 50 entries, with and without ties, algorithm x benchmark
interaction). **Whose effect.** Each settled relation is about the
estimand of the family that settles it: the mean of the per-benchmark
differences for the LMEM, their pseudo-median (Hodges-Lehmann centre) for
the rank tests' Wilcoxon vote. Under skewed benchmark effects the two can
order a pair differently. A pair is contradicted, and settles nothing, only
when two families each decide it in opposite directions; when only one has
the power to decide, the pair is settled by that family's estimand. (A
review simulated A ahead by 0.5 on 90% of benchmarks and behind by 8 on
10%, a mean of -0.35: the rank tests settled A > B in 152 of 200 boards,
with no contradiction, and the board's effect interval beside it showed the
negative mean.)

**Across versions.** The guarantee above is per version: each version
re-runs Holm at ``alpha`` on the data so far, and nothing controls the
chance that *some* version of a board's history shows a false relation
(``looks="per-version"``, the default). With ``looks="all-versions"``
version ``v`` tests at ``alpha / (v (v + 1))``, so the guarantee holds for
every version ever published at once, and relations once shown are kept;
see :mod:`benchverdict.leaderboard.looks`.

An **arena view** (:mod:`benchverdict.leaderboard.arena`) shows
Bradley-Terry (and Elo) ratings from the same results beside the
positions; see :attr:`Leaderboard.arena`.

Incomplete submissions (see :mod:`benchverdict.leaderboard.design`) are
listed apart with what they miss and not compared (``incomplete="refuse"``,
the default), or, by policy, every entry is compared on the common subset
of benchmarks and seeds (``"subset"``) or the missing runs are filled with
the benchmark's worst observed score (``"impute"``); see
:mod:`benchverdict.leaderboard.incomplete`. Every board lists the runs that
would complete its incomplete entries.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from benchverdict._plain_text import plain_text, printable
from benchverdict.families import family_label, leaderboard_families
from benchverdict.leaderboard.arena import (
    FALLBACK_RIDGE,
    N_RESAMPLES,
    Arena,
    NoMaximumLikelihood,
    arena_from_results,
)
from benchverdict.leaderboard.design import Design, budget_text, check_submission
from benchverdict.leaderboard.incomplete import (
    DROPPED_COLUMNS,
    IMPUTE_CAVEAT,
    IMPUTE_METHOD,
    IMPUTED_COLUMNS,
    MISSING_RUN_COLUMNS,
    check_policy,
    common_subset,
    impute_worst,
    missing_runs,
    run_text,
    why_not_compared,
)
from benchverdict.leaderboard.looks import (
    PER_VERSION_MEASURED,
    check_looks,
    keep_shown,
    look_level,
    spent,
)
from benchverdict.leaderboard.metrics import (
    METRIC_COLUMNS,
    MetricSpec,
    check_columns,
    entry_metrics,
    metric_specs,
    pareto_front,
    run_values,
)
from benchverdict.replicates import BenchmarkReplicates, joins, replicate_means
from benchverdict.results import Results
from benchverdict.verdict import Verdict

#: The JSON schema of a leaderboard file; bump the version on any incompatible change.
SCHEMA = "benchverdict.leaderboard"
#: 2: the relations' adjusted p-value column is ``p_value_adjusted`` (1: ``p_adjusted``).
SCHEMA_VERSION = 2

ENTRY_COLUMNS = [
    "position", "best_position", "worst_position", "algorithm", "group", "mean_rank",
    "mean_rank_lower", "mean_rank_upper", "mean_rank_marginal_lower", "mean_rank_marginal_upper",
    "better_than", "worse_than", "settled_by",
    "n_benchmarks", "n_seeds", "imputed_runs",
]
INCOMPLETE_COLUMNS = ["algorithm", "missing_cells", "short_runs", "extra_rows", "reasons",
                      "compared"]
#: Missing runs listed on a page (Markdown, HTML, terminal); the JSON holds them all.
RUNS_SHOWN = 10
#: ``shown_in``: the version a decided relation was first shown in (boards with error control
#: over all versions, :mod:`benchverdict.leaderboard.looks`; empty otherwise).
#: ``difference``, ``difference_lower``, ``difference_upper``: the report's effect, mean score
#: of ``a`` minus ``b`` with its interval simultaneous over all pairs at
#: ``difference_confidence`` (NaN where the report has none, and in boards written before),
#: in ``difference_unit`` (the score's unit, or SDs of a benchmark where the scales differ;
#: empty in boards written before).
RELATION_COLUMNS = ["a", "b", "status", "winner", "loser", "families", "p_value_adjusted", "reason",
                    "shown_in", "difference", "difference_lower", "difference_upper",
                    "difference_confidence", "difference_unit"]


#: Below this many benchmarks the mean-rank intervals are not computed (NaN with a note).
MIN_BENCHMARKS = 5
#: Pseudo-benchmarks added at each extreme rank (1 and k) by the ``"adjusted_t"`` interval.
PSEUDO_BENCHMARKS = 0.5
#: The methods of :func:`mean_rank_interval`.
MEAN_RANK_METHODS = ("distribution_free", "adjusted_t", "percentile")
MEAN_RANK_COLUMNS = ["mean_rank", "lower", "upper", "simultaneous_lower", "simultaneous_upper",
                     "n_benchmarks", "n_replicates", "method", "note"]


def mean_rank_interval(
    table: pd.DataFrame, objective: str, *, confidence: float = 0.95,
    method: str = "distribution_free", n_resamples: int = 2000, seed: int = 0,
    replicates: BenchmarkReplicates | None = None,
) -> pd.DataFrame:
    r"""Mean rank over benchmarks, with a marginal and a simultaneous interval per algorithm.

    Scores are averaged over seeds per (algorithm, benchmark), ranked within
    each benchmark among the table's algorithms (1 = best, ties share their
    mean rank), and averaged over the benchmarks where every algorithm has
    a score.

    **Estimand.** For algorithm :math:`j`, :math:`\mu_j = E[r_{Bj}]`: the
    expected rank of its seed-averaged score on a benchmark :math:`B` drawn
    from the population the benchmarks stand for, ranked among the table's
    algorithms. The benchmarks are the unit of replication (seeds only make
    each cell's score); the intervals claim nothing about other
    algorithm sets or seed counts.

    **Marginal interval** (``lower``, ``upper``; ``method="adjusted_t"``).
    Ranks are bounded in :math:`[1, k]`, and with few benchmarks a good
    algorithm often has the same rank on all of them, where a plain
    :math:`t`-interval collapses to a point (it covered 0.70 at nominal 0.95
    with 4 algorithms and 6 benchmarks in our simulations). As Agresti and
    Coull (1998) do for a proportion, :math:`w` = :data:`PSEUDO_BENCHMARKS`
    pseudo-benchmarks are added at each extreme rank, 1 and :math:`k`:

    .. math::

        \tilde n = n + 2w, \quad
        \tilde r_j = \frac{\sum_b r_{bj} + w (1 + k)}{\tilde n}, \quad
        \tilde s_j^2 = \frac{\sum_b (r_{bj} - \tilde r_j)^2 + w (1 - \tilde r_j)^2
                             + w (k - \tilde r_j)^2}{\tilde n - 1},

    and the interval is :math:`\tilde r_j \pm t_{n-1,\,1-\alpha/2}\,
    \tilde s_j / \sqrt{\tilde n}`, clipped to :math:`[1, k]`
    (:math:`\alpha = 1 -` ``confidence``). It tends to the plain
    :math:`t`-interval as :math:`n` grows.

    **Distribution-free interval** (``method="distribution_free"``, the
    default and the board's): the union of that interval and Anderson's
    (1969) bounds on the mean from a simultaneous CDF band of the ranks
    (:func:`_anderson`), which hold for any distribution of ranks in
    :math:`[1, k]`. The t interval alone failed for an entry whose ranks
    come in two clumps: best on most benchmarks and last on a few. With 30
    benchmarks, 4 entries and failures on 8% of benchmarks, all four
    simultaneous intervals held together in 0.89 of tables (0.95 claimed),
    and in 0.92 with 10 entries and 10% failures: when no failure is among
    the benchmarks drawn, the width comes from the pseudo-benchmarks alone.
    The union held in 0.999 and 1.000 of the same tables. The price is width
    on ordinary data (normal scores): the same at 6 benchmarks, 14% wider at
    10, 50% at 30.

    **Simultaneous interval** (``simultaneous_lower``, ``simultaneous_upper``):
    the same interval at level :math:`1 - \alpha / k` per algorithm
    (Bonferroni), so all :math:`k` intervals hold together with probability
    at least ``confidence``. This is the one a leaderboard shows.

    **Measured** (tests/test_rank_intervals.py; normal scores with
    benchmark-by-algorithm noise, with and without ties; 4 and 10
    algorithms; 6, 10 and 30 benchmarks): the smallest marginal coverage
    over algorithms was at least nominal within simulation error, and
    conservative (near 0.99) at 6 benchmarks; simultaneous coverage at least
    0.95. The percentile bootstrap this function used before
    (``method="percentile"``, kept for comparison; its simultaneous
    interval uses the Bonferroni quantiles) covers only about 0.9 per
    algorithm at 6 benchmarks, and less together.

    **Benchmarks that are not independent.** Where ``replicates`` joins
    benchmarks (runs copied between them, :mod:`benchverdict.replicates`),
    each group is one replicate: its benchmarks' rank rows are averaged
    (still in :math:`[1, k]`, so every bound above holds), and the mean rank
    and the intervals are over the ``n_replicates`` replicate rows. A copied
    benchmark counted twice narrows the interval without new information.

    With fewer than :data:`MIN_BENCHMARKS` complete replicates the bounds are
    NaN and ``note`` says why: an interval there spans nearly every rank,
    and its level would rest on the pseudo-benchmarks more than on the data.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``algorithm``, ``benchmark``, ``score`` (one row per run's
        score at the compared budget; several seeds per cell are averaged).
    objective : {"maximize", "minimize"}
    confidence : float
        Level of the marginal intervals, and joint level of the simultaneous ones.
    method : {"distribution_free", "adjusted_t", "percentile"}
        The interval (see above). ``"adjusted_t"`` misses with ranks in two
        clumps; ``"percentile"`` does not hold its level with few benchmarks.
    n_resamples, seed : int
        Bootstrap resamples and their seed (``method="percentile"`` only).
    replicates : BenchmarkReplicates, optional
        Groups of benchmarks that count once (e.g.
        :meth:`Results.copied_benchmarks`); by default every benchmark is a
        replicate.

    Returns
    -------
    pandas.DataFrame
        Indexed by algorithm: ``mean_rank``, ``lower``, ``upper``,
        ``simultaneous_lower``, ``simultaneous_upper``, ``n_benchmarks``,
        ``n_replicates``, ``method`` and ``note`` (empty, or why there are no
        bounds).

    Raises
    ------
    ValueError
        On a missing column, an unknown objective or method, or a confidence
        outside (0, 1).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"algorithm": ["a", "b"] * 6, "benchmark": list("ppqqrrssttuu"),
    ...                   "score": [1.0, 0.0] * 5 + [0.0, 1.0]})
    >>> got = mean_rank_interval(t, "maximize")
    >>> got["mean_rank"].round(3).tolist()
    [1.167, 1.833]
    >>> got[["lower", "upper"]].round(3).values.tolist()
    [[1.0, 1.743], [1.257, 2.0]]
    """
    missing = [c for c in ("algorithm", "benchmark", "score") if c not in table.columns]
    if missing:
        raise ValueError(f"mean_rank_interval: table lacks column(s) {missing}; it needs "
                         f"algorithm, benchmark and score (one row per run).")
    if objective not in ("maximize", "minimize"):
        raise ValueError(f"objective must be 'maximize' or 'minimize', got {objective!r}.")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), e.g. 0.95; got {confidence!r}.")
    if method not in MEAN_RANK_METHODS:
        raise ValueError(f"method must be one of {MEAN_RANK_METHODS}, got {method!r}.")
    cells = table.groupby(["benchmark", "algorithm"], observed=True)["score"].mean().unstack()
    cells = cells.dropna(axis=0, how="any")
    values = cells.to_numpy(dtype=float)
    if objective == "maximize":
        values = -values
    index = pd.Index(cells.columns, name="algorithm")
    n_bench, k = values.shape
    ranks = (stats.rankdata(values, axis=1, method="average") if n_bench
             else np.empty((0, k)))
    if replicates is not None and n_bench:
        labels = replicates.labels([str(b) for b in cells.index])
        if joins(labels):
            # One row per independent replicate: the mean rank row of its benchmarks.
            ranks = replicate_means(ranks, labels)
    n_rep = ranks.shape[0]
    mean = ranks.mean(axis=0) if n_rep else np.full(k, np.nan)
    alpha = 1.0 - confidence
    nan = np.full(k, np.nan)
    if n_rep < MIN_BENCHMARKS:
        units = (f"{n_bench} benchmark(s)" if n_rep == n_bench else
                 f"{n_rep} independent replicate(s) of {n_bench} benchmarks (benchmarks "
                 f"joined by copied runs count once)")
        note = (f"no interval: {units} with every algorithm scored, fewer "
                f"than {MIN_BENCHMARKS}; an interval would span nearly every rank and rest "
                f"on assumptions more than on data. Fix: add benchmarks.")
        bounds = (nan, nan, nan, nan)
    elif k < 2:
        note = ""
        ones = np.ones(k)
        bounds = (ones, ones, ones, ones)
    elif method == "distribution_free":
        note = ""
        bounds = (*_with_anderson(ranks, alpha), *_with_anderson(ranks, alpha / k))
    elif method == "adjusted_t":
        note = ("adjusted t interval: below nominal coverage for an entry whose ranks come "
                "in two clumps (best on most benchmarks, last on a few)")
        bounds = (*_adjusted_t(ranks, alpha), *_adjusted_t(ranks, alpha / k))
    else:
        note = ("percentile bootstrap over benchmarks: below nominal coverage with few "
                "benchmarks (about 0.9 at 6)")
        rng = np.random.default_rng(seed)
        weights = rng.multinomial(n_rep, np.full(n_rep, 1.0 / n_rep), size=n_resamples)
        boot = weights @ ranks / n_rep
        tails = [alpha / 2, 1 - alpha / 2, alpha / (2 * k), 1 - alpha / (2 * k)]
        bounds = tuple(np.quantile(boot, tails, axis=0))
    return pd.DataFrame({"mean_rank": mean, "lower": bounds[0], "upper": bounds[1],
                         "simultaneous_lower": bounds[2], "simultaneous_upper": bounds[3],
                         "n_benchmarks": n_bench, "n_replicates": n_rep, "method": method,
                         "note": note},
                        index=index)


def _anderson(ranks: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Anderson's (1969) distribution-free interval of each column's mean, ranks in [1, k].

    A simultaneous band ``l_i <= F(Y_(i))``, ``F(Y_(i)-) <= u_i`` on the CDF of a
    column's ``n`` ranks (Learned-Miller and DeStefano's equal-tailed band at ``1 -
    alpha``, :func:`~benchverdict.stats.cdf_bands.order_statistic_bounds`; ties make it
    conservative) holds with probability at least ``1 - alpha``; then the mean lies
    between those of the stochastically smallest and largest laws in the band:

    .. math::

        1 + \sum_{i=1}^{n} (1 - u_i)(Y_{(i)} - Y_{(i-1)}) \le \mu \le
        k - \sum_{i=1}^{n} l_i (Y_{(i+1)} - Y_{(i)}),

    with ``Y_(0) = 1`` and ``Y_(n+1) = k``. No assumption on the ranks' distribution:
    an entry that is best on most benchmarks and last on a few (ranks in two clumps)
    keeps the level, where a t interval does not.
    """
    from benchverdict.stats.cdf_bands import order_statistic_bounds

    n, k = ranks.shape[-2:]
    low_f, high_f, _ = order_statistic_bounds(n, 1.0 - alpha, "ld_equal_tailed")
    y = np.sort(ranks, axis=-2)
    shape = (*y.shape[:-2], 1, k)
    before = np.concatenate([np.ones(shape), y[..., :-1, :]], axis=-2)
    after = np.concatenate([y[..., 1:, :], np.full(shape, float(k))], axis=-2)
    lower = 1.0 + ((1.0 - high_f)[:, None] * (y - before)).sum(axis=-2)
    upper = float(k) - (low_f[:, None] * (after - y)).sum(axis=-2)
    return np.clip(lower, 1.0, k), np.clip(upper, 1.0, k)


def _with_anderson(ranks: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The union of the ``adjusted_t`` interval and :func:`_anderson`'s at level ``1 - alpha``.

    The t interval alone missed whenever an entry's rank has two clumps (best on most
    benchmarks, last on a few: with 30 benchmarks, 4 entries and a failure share of
    0.08, all four intervals held together in 0.89 of tables, 0.95 claimed): with no
    failure among the benchmarks drawn, its width came from the pseudo-benchmarks alone.
    Anderson's interval holds for any distribution of ranks, so the union does; it is
    never narrower than the t interval, whose tested coverage it keeps.
    """
    t_low, t_high = _adjusted_t(ranks, alpha)
    a_low, a_high = _anderson(ranks, alpha)
    return np.minimum(t_low, a_low), np.maximum(t_high, a_high)


def _adjusted_t(ranks: np.ndarray, alpha: float, pseudo: float = PSEUDO_BENCHMARKS
                ) -> tuple[np.ndarray, np.ndarray]:
    """The ``adjusted_t`` interval of each column's mean (see :func:`mean_rank_interval`).

    ``ranks`` is ``(..., benchmarks, algorithms)``; leading axes are independent tables
    (the simulations pass thousands at once). ``pseudo=0`` is the plain t-interval.
    """
    n, k = ranks.shape[-2:]
    size = n + 2.0 * pseudo
    centre = (ranks.sum(axis=-2) + pseudo * (1.0 + k)) / size
    spread = (((ranks - centre[..., None, :]) ** 2).sum(axis=-2)
              + pseudo * (1.0 - centre) ** 2 + pseudo * (k - centre) ** 2) / (size - 1.0)
    half = stats.t.ppf(1.0 - alpha / 2.0, n - 1) * np.sqrt(spread / size)
    return np.clip(centre - half, 1.0, k), np.clip(centre + half, 1.0, k)


@dataclass
class Leaderboard:
    """A ranked, versioned table of algorithms on one design.

    Build with :func:`build_leaderboard`; keep and update on disk with
    :mod:`benchverdict.leaderboard.store`.

    Attributes
    ----------
    design : Design
    entries : pandas.DataFrame
        One row per complete entry (columns :data:`ENTRY_COLUMNS`), best first.
        ``mean_rank_lower/upper`` are the simultaneous intervals the board
        shows; ``mean_rank_marginal_lower/upper`` each entry's own (see
        :func:`mean_rank_interval`); NaN with fewer than
        :data:`MIN_BENCHMARKS` benchmarks (the notes say why).
        ``imputed_runs`` counts the entry's runs filled by the ``"impute"``
        policy (0 for a complete entry).
    incomplete : pandas.DataFrame
        One row per incomplete submission, with what it misses, and whether
        the policy compares it (``compared``).
    relations : pandas.DataFrame
        Every pair's relation over all benchmarks (columns
        :data:`RELATION_COLUMNS`): status (settled, implied, contradicted,
        power gap, unsettled), winner and loser when decided, the deciding
        families, the Holm-adjusted p and the reason.
    groups : list of list of str
        Groups of mutually unsettled entries.
    headline : str
        The report's headline sentence over all benchmarks.
    alpha, confidence : float
    analyses : list of str
        The analysis families run.
    notes : list of str
        What was skipped or left out (sanity checks, rows outside the design).
    version : int
        1 for the first build; each update adds one.
    created : str
        ISO timestamp of this version.
    arena : Arena or None
        Bradley-Terry and Elo ratings of the complete entries from the same
        rows (each (benchmark, seed) a game per pair), with bootstrap
        intervals over benchmarks; ``None`` if not computed (fewer than two
        complete entries, or ``arena=False``).
    incomplete_policy : {"refuse", "subset", "impute"}
        How incomplete submissions are treated (see
        :mod:`benchverdict.leaderboard.incomplete`).
    compared : Design or None
        The design the entries were compared on when it is not
        :attr:`design`: the common subset of the ``"subset"`` policy.
    dropped : pandas.DataFrame
        The benchmarks and seeds the common subset dropped, and the entries
        that miss them (columns ``what``, ``name``, ``missed_by``).
    missing_runs : pandas.DataFrame
        Every run (algorithm, benchmark, seed, budget, issue) that would
        complete the incomplete entries, under every policy.
    imputed : pandas.DataFrame
        Every run the ``"impute"`` policy filled (algorithm, benchmark,
        seed, score).
    looks : {"per-version", "all-versions"}
        What the error control covers: this version alone, or every version
        ever published (see :mod:`benchverdict.leaderboard.looks`;
        :attr:`level` is the level this version tested at).
    metric_specs : list of MetricSpec
        The other metrics and the cost shown beside the score (see
        :mod:`benchverdict.leaderboard.metrics`); empty by default.
    metrics : pandas.DataFrame
        One row per (entry, metric or cost), columns :data:`METRIC_COLUMNS`:
        mean, median and mean rank over benchmarks at the board's budget, and
        for the cost whether the entry is on the Pareto front of mean rank
        (score) versus mean cost per run. Descriptive: nothing here is tested.

    Notes
    -----
    The position ranges are a simultaneous confidence set for the true ranks
    at level ``1 - alpha`` (see the module docstring for the estimand and
    ties); the mean-rank and rating intervals are not part of that claim.
    """

    design: Design
    entries: pd.DataFrame
    incomplete: pd.DataFrame
    relations: pd.DataFrame
    groups: list[list[str]]
    headline: str
    alpha: float
    confidence: float
    analyses: list[str]
    notes: list[str] = field(default_factory=list)
    version: int = 1
    created: str = ""
    arena: Arena | None = None
    incomplete_policy: str = "refuse"
    compared: Design | None = None
    dropped: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=DROPPED_COLUMNS))
    missing_runs: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=MISSING_RUN_COLUMNS))
    imputed: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=IMPUTED_COLUMNS))
    looks: str = "per-version"
    metric_specs: list[MetricSpec] = field(default_factory=list)
    metrics: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=METRIC_COLUMNS))
    _verdicts: list[Verdict] = field(default_factory=list, repr=False)

    @property
    def level(self) -> float:
        """The level this version's Holm ran at: ``alpha``, or ``alpha / (v (v + 1))``."""
        return look_level(self.alpha, self.version, self.looks)

    @property
    def compared_design(self) -> Design:
        """The design the entries were compared on (:attr:`compared`, else :attr:`design`)."""
        return self.design if self.compared is None else self.compared

    # ----------------------------------------------------------- protocol
    @property
    def table(self) -> pd.DataFrame:
        """The ranked entries (a tidy copy of :attr:`entries`)."""
        return self.entries.copy()

    def verdicts(self) -> list[Verdict]:
        """The verdicts behind the ranking (empty for a leaderboard loaded from JSON)."""
        return list(self._verdicts)

    def summary(self) -> str:
        """Plain-text summary: headline and the ranked entries."""
        lines = [f"Leaderboard v{self.version} ({len(self.entries)} entries, "
                 f"{self._scope_text()}, "
                 f"{self.design.objective}, at {budget_text(self.design.final_budget)})",
                 self.headline, ""]
        ratings = self._ratings()
        for r in self.entries.itertuples():
            bt = (f"  BT {_rating_cell(ratings.loc[r.algorithm])}"
                  if r.algorithm in ratings.index else "")
            imputed = (f"  [{r.imputed_runs} run(s) imputed]" if r.imputed_runs else "")
            lines.append(f"{r.position:>7}  {printable(r.algorithm):<24} mean rank "
                         f"{r.mean_rank:.2f} {_interval_cell(r)}{bt}"
                         f"  {r.settled_by or 'not separated'}{imputed}")
        if len(self.entries):
            lines.append(self._guarantee_text())
            lines.append(f"Mean rank [{self._interval_text()}].")
            if self.arena is not None:
                lines.append(f"BT: {self._arena_text()}")
        lines += [printable(t) for t in self._metric_lines()]
        lines += [printable(t) for t in self._policy_texts()]
        for r in self.incomplete.itertuples():
            how = "incomplete, compared" if r.compared else "incomplete"
            lines.append(f"{'-':>7}  {printable(r.algorithm):<24} {how}: {r.reasons}")
        lines += [printable(t) for t in self._runs_texts()]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        top = ", ".join(printable(a) for a in self.entries["algorithm"].head(3))
        return (f"<Leaderboard v{self.version}: {len(self.entries)} entries "
                f"({len(self.incomplete)} incomplete), top: {top}>")

    def _repr_html_(self) -> str:
        return self.to_html(standalone=False)

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Mean rank with its simultaneous interval per entry, coloured by position.

        Returns the matplotlib Axes.
        """
        import matplotlib.pyplot as plt

        from benchverdict.plotting import algorithm_colors

        entries = self.entries
        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 0.3 * max(len(entries), 3) + 1.2))
        colours = algorithm_colors(list(dict.fromkeys(entries["position"])))
        y = np.arange(len(entries))[::-1]
        for yi, r in zip(y, entries.itertuples(), strict=True):
            ax.errorbar(r.mean_rank, yi, xerr=[[r.mean_rank - r.mean_rank_lower],
                                               [r.mean_rank_upper - r.mean_rank]],
                        fmt="o", color=colours[r.position], capsize=3, **kwargs)
        ax.set_yticks(y, [f"{p}  {a}" for p, a in
                          zip(entries["position"], entries["algorithm"], strict=True)])
        ax.set_xlabel(f"mean rank over benchmarks ({self.confidence:.0%} simultaneous "
                      "intervals; 1 = best)")
        ax.invert_xaxis()
        over = "" if self.looks == "per-version" else " over all versions"
        ax.set_title(f"Leaderboard v{self.version}: positions settled at FWER "
                     f"{self.alpha:g}{over}", fontsize="medium")
        return plain_text(ax)

    @property
    def pareto(self) -> pd.DataFrame:
        """Score versus cost per entry: ``algorithm, position, mean_rank, cost, on_front``.

        ``mean_rank`` is the entry's mean rank on the score, ``cost`` its mean
        cost per run (see :mod:`benchverdict.leaderboard.metrics`), and
        ``on_front`` whether no entry has both a lower or equal mean rank and a
        lower or equal cost, one strictly. Empty without a cost.

        Examples
        --------
        >>> import pandas as pd
        >>> from benchverdict import Results
        >>> rows = pd.DataFrame([(a, f"t{b}", s, off + 0.1 * b + 0.01 * s, sec * (1 + b))
        ...                      for a, off, sec in [("x", 2.0, 30.0), ("y", 1.0, 5.0),
        ...                                          ("z", 0.0, 10.0)]
        ...                      for b in range(6) for s in range(2)],
        ...                     columns=["algo", "task", "seed", "acc", "seconds"])
        >>> res = Results.from_frame(rows, algorithm="algo", benchmark="task", seed="seed",
        ...                          score="acc", objective="maximize", kind="runs",
        ...                          metafeatures=["seconds"])
        >>> board = build_leaderboard(res, analyses=["ranks"], arena=False, cost="seconds")
        >>> board.pareto[["algorithm", "mean_rank", "cost", "on_front"]]
          algorithm  mean_rank   cost  on_front
        0         x        1.0  105.0      True
        1         y        2.0   17.5      True
        2         z        3.0   35.0     False
        """
        cost = self.metrics[self.metrics["role"] == "cost"]
        columns = ["algorithm", "position", "mean_rank", "cost", "on_front"]
        if not len(cost) or not len(self.entries):
            return pd.DataFrame(columns=columns)
        frame = self.entries[["algorithm", "position", "mean_rank"]].merge(
            cost[["algorithm", "mean", "pareto"]], on="algorithm", how="left")
        return frame.rename(columns={"mean": "cost", "pareto": "on_front"})[columns].assign(
            on_front=lambda f: f["on_front"].eq(True))

    def plot_pareto(self, ax: Any = None) -> Any:
        """Mean rank on the score against mean cost per run, the Pareto front joined.

        Returns the matplotlib Axes.

        Raises
        ------
        ValueError
            If the board shows no cost.
        """
        import matplotlib.pyplot as plt

        from benchverdict.plotting import algorithm_colors

        front = self.pareto
        if not len(front):
            raise ValueError("this board shows no cost; build it with cost= (--cost COLUMN) "
                             "for a Pareto view.")
        cost_spec = next(m for m in self.metric_specs if m.role == "cost")
        if ax is None:
            _, ax = plt.subplots(figsize=(6.0, 4.2))
        colours = algorithm_colors(front["algorithm"].tolist())
        for r in front.itertuples():
            ax.scatter(r.mean_rank, r.cost, s=46 if r.on_front else 30,
                       marker="o" if r.on_front else "s", color=colours[r.algorithm],
                       edgecolor="black" if r.on_front else "none", zorder=3)
            ax.annotate(str(r.algorithm), (r.mean_rank, r.cost), textcoords="offset points",
                        xytext=(5, 4), fontsize="small")
        on = front[front["on_front"]].sort_values("mean_rank")
        ax.step(on["mean_rank"], on["cost"], where="post", color="0.35", linewidth=1,
                zorder=2, label="Pareto front (descriptive)")
        positive = front["cost"][front["cost"] > 0]
        if len(positive) == len(front) and positive.max() > 30 * positive.min():
            ax.set_yscale("log")
        ax.invert_xaxis()
        ax.set_xlabel("mean rank on the score (1 = best)")
        ax.set_ylabel(f"mean {cost_spec.name} per run (less is better)")
        ax.set_title(f"Leaderboard v{self.version}: score versus cost", fontsize="medium")
        ax.legend(loc="best", fontsize="small", frameon=False)
        return plain_text(ax)

    def _metric_table(self) -> pd.DataFrame:
        """One row per entry in the board's order, a cell per metric: ``mean (mean rank)``."""
        if not len(self.metrics):
            return pd.DataFrame()
        cells = {}
        for spec in self.metric_specs:
            rows = self.metrics[self.metrics["metric"] == spec.name].set_index("algorithm")
            cells[spec.name] = {a: _metric_cell(rows.loc[a]) if a in rows.index else "-"
                                for a in self.entries["algorithm"]}
        frame = pd.DataFrame(cells, index=self.entries["algorithm"])
        if any(m.role == "cost" for m in self.metric_specs):
            on = self.pareto.set_index("algorithm")["on_front"]
            frame["Pareto"] = ["yes" if on.get(a, False) else "no" for a in frame.index]
        return frame

    def _metric_text(self) -> str:
        """What the metric and cost columns are, as the pages say it."""
        if not self.metric_specs:
            return ""
        parts = [f"{m.name} ({'cost, ' if m.role == 'cost' else ''}{m.objective})"
                 for m in self.metric_specs]
        text = (f"Beside the score: {', '.join(parts)}; each cell is the mean over the "
                f"benchmarks every entry has a value on (seeds averaged first) and, in "
                f"brackets, the mean rank on that column (1 = best). A metric is read at each "
                f"run's incumbent, a cost is what the run spent up to "
                f"{budget_text(self.design.final_budget)}. These columns are descriptive: "
                f"nothing about them is tested, and the positions rest on the score alone.")
        if any(m.role == "cost" for m in self.metric_specs):
            text += (" Pareto: no other entry has both a better (or equal) mean rank on the "
                     "score and a lower (or equal) mean cost, one strictly.")
        missing = self.metrics[self.metrics["n_missing"] > 0]
        if len(missing):
            text += " Runs without a value: " + "; ".join(
                f"{r.algorithm} {r.n_missing} ({r.metric})" for r in missing.itertuples()) + "."
        return text

    def _metric_lines(self) -> list[str]:
        """The terminal's lines for the metrics and the cost (empty without them)."""
        table = self._metric_table()
        if not len(table):
            return []
        lines = ["Other metrics and cost (descriptive, not tested): " + self._metric_text()]
        for name, row in table.iterrows():
            lines.append(f"{'':>7}  {printable(name):<24} " + "  ".join(
                f"{c} {v}" for c, v in row.items()))
        return lines

    # ----------------------------------------------------------- output
    def to_dict(self) -> dict[str, Any]:
        """The stable, versioned JSON form (schema :data:`SCHEMA` v:data:`SCHEMA_VERSION`)."""
        def clean(value: Any) -> Any:
            if isinstance(value, float) and not math.isfinite(value):
                return None
            if isinstance(value, np.generic):
                return clean(value.item())
            return value

        def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
            return [{k: clean(v) for k, v in row.items()} for row in frame.to_dict("records")]

        return {
            "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "version": self.version,
            "created": self.created, "design": self.design.to_dict(), "alpha": self.alpha,
            "confidence": self.confidence, "analyses": list(self.analyses),
            "headline": self.headline, "notes": list(self.notes),
            "entries": records(self.entries), "incomplete": records(self.incomplete),
            "relations": records(self.relations), "groups": [list(g) for g in self.groups],
            "arena": None if self.arena is None else self.arena.to_dict(),
            "incomplete_policy": self.incomplete_policy,
            "compared_design": None if self.compared is None else self.compared.to_dict(),
            "dropped": records(self.dropped), "missing_runs": records(self.missing_runs),
            "imputed": records(self.imputed),
            "looks": self.looks, "level": self.level,
            "metric_specs": [m.to_dict() for m in self.metric_specs],
            "metrics": records(self.metrics),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Leaderboard:
        """Read the JSON form back (refuses other schemas and newer schema versions)."""
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a leaderboard file (schema {data.get('schema')!r}).")
        if int(data.get("schema_version", 0)) > SCHEMA_VERSION:
            raise ValueError(
                f"leaderboard schema version {data['schema_version']} is newer than this "
                f"benchverdict understands ({SCHEMA_VERSION}). Fix: upgrade benchverdict.")
        entries = pd.DataFrame(data["entries"], columns=ENTRY_COLUMNS)
        for column in ("mean_rank", "mean_rank_lower", "mean_rank_upper",
                       "mean_rank_marginal_lower", "mean_rank_marginal_upper"):
            entries[column] = entries[column].astype(float)
        # Boards written before the incomplete policies: nothing imputed, nothing compared.
        entries["imputed_runs"] = entries["imputed_runs"].fillna(0).astype(int)
        incomplete = pd.DataFrame(data["incomplete"], columns=INCOMPLETE_COLUMNS)
        incomplete["compared"] = incomplete["compared"].eq(True)  # NaN: not compared
        runs = pd.DataFrame(data.get("missing_runs") or [], columns=MISSING_RUN_COLUMNS)
        runs["budget"] = runs["budget"].astype(float)
        compared = data.get("compared_design")
        return cls(
            design=Design.from_dict(data["design"]), entries=entries,
            incomplete=incomplete,
            relations=pd.DataFrame(
                [{("p_value_adjusted" if k == "p_adjusted" else k): v for k, v in r.items()}
                 for r in data["relations"]], columns=RELATION_COLUMNS).fillna(
                     {"difference_unit": ""}),
            groups=[list(g) for g in data["groups"]], headline=str(data["headline"]),
            alpha=float(data["alpha"]), confidence=float(data["confidence"]),
            analyses=list(data["analyses"]), notes=list(data.get("notes", [])),
            version=int(data["version"]), created=str(data.get("created", "")),
            arena=Arena.from_dict(data["arena"]) if data.get("arena") else None,
            incomplete_policy=check_policy(str(data.get("incomplete_policy", "refuse"))),
            compared=None if not compared else Design.from_dict(compared),
            dropped=pd.DataFrame(data.get("dropped") or [], columns=DROPPED_COLUMNS),
            missing_runs=runs,
            imputed=pd.DataFrame(data.get("imputed") or [], columns=IMPUTED_COLUMNS),
            # Boards written before the looks policies controlled each version alone.
            looks=check_looks(str(data.get("looks", "per-version"))),
            # Boards written before other metrics and costs show none.
            metric_specs=[MetricSpec.from_dict(m) for m in data.get("metric_specs") or []],
            metrics=_metrics_frame(data.get("metrics") or []),
        )

    def _interval_text(self) -> str:
        return (f"intervals: {self.confidence:.0%} simultaneous over all {len(self.entries)} "
                f"entries (Bonferroni over intervals on the benchmarks' ranks: adjusted t, "
                f"widened to Anderson's distribution-free bound) for the expected rank on a "
                f"random benchmark")

    def _guarantee_text(self) -> str:
        if len(self.compared_design.benchmarks) == 1:
            # One benchmark: the positions rest on its own relations, runs as replicates.
            return (f"Positions are a {1 - self.alpha:.0%} simultaneous confidence set for "
                    f"the ranks (Mogstad et al. 2023): with probability at least "
                    f"{1 - self.alpha:.0%}, every entry's true rank lies in its range, all "
                    f"entries at once. The true rank orders the entries by their expected "
                    f"score on this one benchmark (each run's incumbent at "
                    f"{budget_text(self.design.final_budget)}; the runs are the replicates); "
                    f"it says nothing about other benchmarks. Entries equal in truth may take "
                    f"any rank of their tie, and the range holds all of them. "
                    + self._looks_text())
        return (f"Positions are a {1 - self.alpha:.0%} simultaneous confidence set for the "
                f"ranks (Mogstad et al. 2023): with probability at least {1 - self.alpha:.0%}, "
                f"every entry's true rank lies in its range, all entries at once. The true "
                f"rank orders the entries by their effect on a benchmark drawn from the "
                f"population these {len(self.compared_design.benchmarks)} benchmarks are a "
                f"random "
                f"sample of (each run's incumbent at {budget_text(self.design.final_budget)}, "
                f"seeds averaged), as the family that settles each relation measures it: the "
                f"pseudo-median of the per-benchmark differences for the rank tests, their "
                f"mean for the LMEM; entries equal in truth may take any rank of their tie, "
                f"and the range holds all of them."
                + (" With imputed runs this holds for the data as imputed, and the positions "
                   "of imputed entries are conservative, not error-controlled (see the "
                   "imputation note)." if len(self.imputed) else "")
                + " " + self._looks_text())

    def _looks_text(self) -> str:
        """What the error control covers across versions, as the page states it."""
        a = f"{self.alpha:g}"
        if self.looks == "per-version":
            return (f"This holds for version {self.version} alone (Holm at {a} on the data so "
                    f"far). Each version is a new look at the data, and nothing bounds the "
                    f"chance that some version of the board's history shows a false relation: "
                    f"it grows with the number of versions ({PER_VERSION_MEASURED}), and a "
                    f"relation can appear "
                    f"and disappear. A board created with --looks all-versions controls the "
                    f"whole history.")
        kept = int(self.relations["reason"].astype(str).str.startswith(
            "shown in version").sum()) if len(self.relations) else 0
        return (f"Error control over every version: version {self.version} tested at level "
                f"{self.level:.3g} = {a} / ({self.version} x {self.version + 1}); the levels "
                f"of all versions so far sum to {spent(self.alpha, self.version):.3g} and of "
                f"all versions ever to at most {a}, so with probability at least "
                f"{1 - self.alpha:.0%} no version, past or future, shows a false relation "
                f"(union bound; Lan and DeMets 1983). Relations shown in an earlier version "
                f"are kept ({kept} here), unless an entry's rows were replaced or the compared "
                f"benchmarks changed; later versions settle new relations only on stronger "
                f"evidence.")

    def _error_text(self) -> str:
        """``family-wise error <= 0.05`` with what it covers (this version, or all versions)."""
        if self.looks == "per-version":
            return f"family-wise error <= {self.alpha:g} over all pairs, within this version"
        return (f"family-wise error <= {self.alpha:g} over all pairs and every version (this "
                f"one tested at {self.level:.3g})")

    def _arena_text(self) -> str:
        if self.arena is None:
            return ""
        return (f"{self.arena.describe()} A rating is not a settled relation: positions "
                f"rest on per-pair tests over benchmarks and assume no model of strength, "
                f"while a rating fits one strength per entry to every benchmark and counts "
                f"wins, not margins. They disagree when an entry's advantage depends on the "
                f"benchmark, when the order is not transitive, or when one entry wins often "
                f"by little and another less often by much (the LMEM compares mean scores).")

    def _ratings(self) -> pd.DataFrame:
        """The arena's ratings indexed by algorithm (empty without an arena)."""
        if self.arena is None:
            return pd.DataFrame(columns=["bt_rating", "bt_lower", "bt_upper"])
        return self.arena.ratings.set_index("algorithm")

    def _scope_text(self) -> str:
        """``8 benchmarks x 5 seeds``, or the common subset's ``6 of 8 benchmarks x ...``."""
        d, c = self.design, self.compared_design
        if (c.benchmarks, c.seeds) == (d.benchmarks, d.seeds):
            return f"{len(d.benchmarks)} benchmarks x {len(d.seeds)} seeds"
        return (f"{len(c.benchmarks)} of {len(d.benchmarks)} benchmarks x {len(c.seeds)} of "
                f"{len(d.seeds)} seeds, the common subset")

    def _policy_texts(self) -> list[str]:
        """What the incomplete policy did and what it means, as sentences (may be empty)."""
        policy = self.incomplete_policy
        compared = self.incomplete[self.incomplete["compared"].astype(bool)]
        if policy == "subset":
            if not len(compared):
                return ["Incomplete entries: policy subset; no compared entry is incomplete, "
                        "so the board uses the whole design."]
            dropped = "; ".join(f"{r.what} {r.name} (missed by {r.missed_by})"
                                for r in self.dropped.itertuples())
            return [f"Incomplete entries: policy subset. Every entry is compared on the "
                    f"benchmarks and seeds all compared entries completed: "
                    f"{self._scope_text()}. Dropped: {dropped or 'nothing'}. Positions, mean "
                    f"ranks and ratings hold on this subset only: its benchmarks were kept "
                    f"because every entry completed them, not at random, so they may stand "
                    f"for a narrower population than the design's."]
        if policy == "impute":
            if not len(self.imputed):
                return ["Incomplete entries: policy impute; no run was imputed (every "
                        "compared entry is complete)."]
            per = self.imputed["algorithm"].value_counts()
            who = ", ".join(f"{a} ({n})" for a, n in sorted(per.items()))
            return [f"Incomplete entries: policy impute. {len(self.imputed)} missing run(s) "
                    f"of {len(per)} entr{'y' if len(per) == 1 else 'ies'} ({who}) were "
                    f"filled with {IMPUTE_METHOD}; the table counts them per entry "
                    f"(imputed runs). {IMPUTE_CAVEAT}"]
        return []

    def _runs_texts(self, limit: int = RUNS_SHOWN) -> list[str]:
        """The runs that would complete the incomplete entries: a heading, a few, "N more"."""
        runs = self.missing_runs
        if not len(runs):
            return []
        n_entries = runs["algorithm"].nunique()
        lines = [f"Runs that would complete the {n_entries} incomplete entr"
                 f"{'y' if n_entries == 1 else 'ies'} ({len(runs)}):"]
        lines += [f"  {run_text(r)}" for r in runs.head(limit).itertuples()]
        if len(runs) > limit:
            lines.append(f"  ... and {len(runs) - limit} more (all of them in "
                         f"leaderboard.json's missing_runs; `benchverdict leaderboard "
                         f"--missing-runs FILE` writes them as CSV)")
        return lines

    def _incomplete_heading(self) -> str:
        return {"refuse": "Incomplete submissions (not compared)",
                "subset": "Incomplete submissions (compared on the common subset)",
                "impute": "Incomplete submissions (compared with imputed runs)",
                }[self.incomplete_policy]

    def _families_text(self) -> str:
        return ", ".join(family_names(",".join(self.analyses)))

    def to_markdown(self) -> str:
        """A Markdown page: headline, ranked table, incomplete entries, notes."""
        # Every name and text cell is escaped for Markdown and HTML (not only "|"): the page
        # is rendered (MkDocs, GitHub) and a name must not become a tag or a structure.
        from benchverdict.report.markdown import md_escape as cell

        d = self.design
        imputing = self.incomplete_policy == "impute"
        lines = [
            f"# Leaderboard (version {self.version})", "",
            f"{len(self.entries)} entries on {self._scope_text()}, {d.objective}, compared at "
            f"{budget_text(d.final_budget)}. "
            f"Positions rest only on relations settled with {self._error_text()} "
            f"({self._families_text()}); entries that share a position are "
            f"not separated by the data.", "",
            f"**{cell(self.headline)}**", "",
            *[f"{cell(t)}\n" for t in self._policy_texts()],
            "| position | algorithm | mean rank [interval] | better than | worse than | "
            "settled by |" + (" imputed runs |" if imputing else ""),
            "|---|---|---|---|---|---|" + ("---|" if imputing else ""),
        ]
        for r in self.entries.itertuples():
            lines.append(
                f"| {r.position} | {cell(r.algorithm)} | {r.mean_rank:.2f} "
                f"{_interval_cell(r)} | {r.better_than} | "
                f"{r.worse_than} | {cell(r.settled_by or '-')} |"
                + (f" {r.imputed_runs} |" if imputing else ""))
        lines.append("")
        lines.append(self._guarantee_text())
        lines.append("")
        lines.append(f"Mean rank: over benchmarks at {budget_text(d.final_budget)}, seeds "
                     f"averaged first, 1 = best; {self._interval_text()}.")
        if self.arena is not None:
            # The ratings beside the positions, in the board's order.
            lines += ["", "## Arena ratings", "", cell(self._arena_text()), "",
                      "| position | algorithm | Bradley-Terry [interval] | Elo [interval] | "
                      "W-L-T | games |",
                      "|---|---|---|---|---|---|"]
            ratings = self._ratings()
            for r in self.entries.itertuples():
                if r.algorithm not in ratings.index:
                    continue
                g = ratings.loc[r.algorithm]
                lines.append(f"| {r.position} | {cell(r.algorithm)} | {_rating_cell(g)} | "
                             f"{_rating_cell(g, 'elo')} | {g['wins']:g}-{g['losses']:g}-"
                             f"{g['ties']:g} | {g['games']:g} |")
            lines += [f"- {cell(n)}" for n in self.arena.notes]
        table = self._metric_table()
        if len(table):
            lines += ["", "## Other metrics and cost", "", cell(self._metric_text()), "",
                      "| algorithm | " + " | ".join(cell(c) for c in table.columns) + " |",
                      "|---|" + "---|" * len(table.columns)]
            lines += ["| " + cell(name) + " | " + " | ".join(cell(v) for v in row) + " |"
                      for name, row in table.iterrows()]
        if len(self.incomplete):
            lines += ["", f"## {self._incomplete_heading()}", ""]
            for r in self.incomplete.itertuples():
                lines.append(f"- **{cell(r.algorithm)}**: {cell(r.reasons)}")
            runs = self._runs_texts()
            if runs:
                lines += ["", cell(runs[0]), ""] + [f"- {cell(t.strip())}" for t in runs[1:]]
        if self.notes:
            lines += ["", "## Notes", ""] + [f"- {cell(n)}" for n in self.notes]
        return "\n".join(lines) + "\n"

    def to_html(self, *, standalone: bool = True) -> str:
        """A self-contained HTML page with a table sortable by any column (no network)."""
        esc = html.escape
        d = self.design
        head = ("<tr>" + "".join(
            f"<th onclick=\"bvSort(this)\" title=\"sort\">{esc(h)}</th>" for h in
            ("position", "algorithm", "mean rank", "interval", "BT rating", "better than",
             "worse than", "settled by")
            + (("imputed runs",) if self.incomplete_policy == "impute" else ())) + "</tr>")
        rows = []
        ratings = self._ratings()
        for r in self.entries.itertuples():
            has = r.algorithm in ratings.index
            bt = (f"<td data-v=\"{ratings.loc[r.algorithm, 'bt_rating']:.6f}\">"
                  f"{esc(_rating_cell(ratings.loc[r.algorithm]))}</td>" if has
                  else "<td data-v=\"\">-</td>")
            rows.append(
                f"<tr><td data-v=\"{r.best_position}.{r.worst_position:06d}\">"
                f"{esc(str(r.position))}</td><td>{esc(str(r.algorithm))}</td>"
                f"<td data-v=\"{r.mean_rank:.6f}\">"
                f"{r.mean_rank:.2f}</td><td data-v=\"{r.mean_rank_lower:.6f}\">"
                f"{_interval_cell(r)}</td>{bt}"
                f"<td data-v=\"{r.better_than:06d}\">{r.better_than}</td>"
                f"<td data-v=\"{r.worse_than:06d}\">{r.worse_than}</td>"
                f"<td>{esc(str(r.settled_by or '-'))}</td>"
                + (f"<td data-v=\"{r.imputed_runs:06d}\">{r.imputed_runs}</td>"
                   if self.incomplete_policy == "impute" else "") + "</tr>")
        incomplete = "".join(
            f"<li><b>{esc(str(r.algorithm))}</b>: {esc(str(r.reasons))}</li>"
            for r in self.incomplete.itertuples())
        runs = self._runs_texts()
        if runs:
            incomplete += (f"</ul><p>{esc(runs[0])}</p><ul>"
                           + "".join(f"<li>{esc(t.strip())}</li>" for t in runs[1:]))
        policy = "".join(f"<p class=\"note\">{esc(t)}</p>" for t in self._policy_texts())
        notes = "".join(f"<li>{esc(n)}</li>" for n in self.notes)
        arena = ""
        if self.arena is not None:
            arena_rows = "".join(
                f"<tr><td>{esc(str(r.algorithm))}</td><td data-v=\"{r.bt_rating:.6f}\">"
                f"{esc(_rating_cell(r))}</td><td data-v=\"{_finite(r.elo):.6f}\">"
                f"{esc(_rating_cell(r, 'elo'))}</td><td>{r.wins:g}-{r.losses:g}-{r.ties:g}"
                f"</td></tr>" for r in self.arena.ratings.itertuples())
            arena = (
                f"<h2>Arena ratings</h2><p class=\"note\">{esc(self._arena_text())}</p>"
                f"<table class=\"bv-arena\"><thead><tr>" + "".join(
                    f"<th onclick=\"bvSort(this)\" title=\"sort\">{h}</th>" for h in
                    ("algorithm", "Bradley-Terry", "Elo", "W-L-T")) +
                f"</tr></thead><tbody>{arena_rows}</tbody></table>"
                + "".join(f"<p class=\"note\">{esc(n)}</p>" for n in self.arena.notes))
        metric_table = self._metric_table()
        if len(metric_table):
            arena += (
                f"<h2>Other metrics and cost</h2><p class=\"note\">"
                f"{esc(self._metric_text())}</p><table class=\"bv-metrics\"><thead><tr>"
                + "".join(f"<th onclick=\"bvSort(this)\" title=\"sort\">{esc(h)}</th>"
                          for h in ["algorithm", *metric_table.columns])
                + "</tr></thead><tbody>" + "".join(
                    f"<tr><td>{esc(str(name))}</td>" + "".join(
                        f"<td>{esc(str(v))}</td>" for v in row) + "</tr>"
                    for name, row in metric_table.iterrows()) + "</tbody></table>")
        body = (
            f"<h1>Leaderboard <small>version {self.version}</small></h1>"
            f"<p class=\"headline\">{esc(self.headline)}</p>"
            f"<p>{len(self.entries)} entries on "
            f"{esc(self._scope_text()).replace(' x ', ' &times; ')}, {esc(d.objective)}, "
            f"compared at "
            f"{esc(budget_text(d.final_budget))}. Positions rest only on relations settled "
            f"with {esc(self._error_text())} ({esc(self._families_text())}); "
            f"entries sharing a position are not separated. Click a column to sort.</p>"
            + policy +
            f"<table class=\"bv-leaderboard\"><thead>{head}</thead><tbody>{''.join(rows)}"
            f"</tbody></table>"
            f"<p class=\"note\">{esc(self._guarantee_text())}</p>"
            f"<p class=\"note\">Mean rank over benchmarks at "
            f"{esc(budget_text(d.final_budget))} (seeds averaged first, 1 = best); "
            f"{esc(self._interval_text())}.</p>" + arena
            + (f"<h2>{esc(self._incomplete_heading())}</h2><ul>{incomplete}</ul>"
               if incomplete else "")
            + (f"<h2>Notes</h2><ul>{notes}</ul>" if notes else ""))
        if not standalone:
            return f"<div>{body}</div>"
        return (
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Leaderboard v{self.version}</title><style>{_CSS}</style>"
            f"<script>{_SORT_JS}</script></head><body>{body}</body></html>\n")


def _interval_cell(row: Any) -> str:
    """``[lower, upper]`` of an entry's shown (simultaneous) interval, or why there is none."""
    if not (math.isfinite(row.mean_rank_lower) and math.isfinite(row.mean_rank_upper)):
        return "[no interval: too few benchmarks]"
    return f"[{row.mean_rank_lower:.2f}, {row.mean_rank_upper:.2f}]"


def _metric_cell(row: Any) -> str:
    """``mean (mean rank)`` of one entry's metric, or ``-`` without a value."""
    mean, rank = float(row["mean"]), float(row["mean_rank"])
    if not math.isfinite(mean):
        return "-"
    return f"{mean:.4g} ({rank:.2f})" if math.isfinite(rank) else f"{mean:.4g}"


def _metrics_frame(records: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """:data:`METRIC_COLUMNS` from JSON records (floats as floats; NaN where JSON has null)."""
    frame = pd.DataFrame(list(records), columns=METRIC_COLUMNS)
    for column in ("mean", "median", "mean_rank"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
    return frame


def _finite(value: float) -> float:
    """A sort key for a number that may be NaN (sorted first)."""
    return value if math.isfinite(value) else -1e300


def _rating_cell(row: Any, kind: str = "bt") -> str:
    """``rating [lower, upper]`` of an arena rating (``kind`` ``"bt"`` or ``"elo"``), or ``-``."""
    names = (("bt_rating", "bt_lower", "bt_upper") if kind == "bt"
             else ("elo", "elo_lower", "elo_upper"))
    est, low, high = (float(getattr(row, n) if hasattr(row, n) else row[n]) for n in names)
    if not math.isfinite(est):
        return "-"
    return f"{est:.0f} [{low:.0f}, {high:.0f}]"


_CSS = (
    "body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em;"
    "color:#222}table{border-collapse:collapse;width:100%}th,td{padding:.3em .6em;"
    "border-bottom:1px solid #ddd;text-align:left}th{cursor:pointer;background:#f3f3f3}"
    "th:hover{background:#e6e6e6}.headline{font-size:1.15em;font-weight:600}"
    ".note{color:#555;font-size:.9em}small{color:#666;font-weight:normal}")
# A few lines of plain JavaScript so the page needs no network and no library.
_SORT_JS = (
    "function bvSort(th){var t=th.closest('table'),b=t.tBodies[0],i=th.cellIndex,"
    "d=th.dataset.dir==='asc'?'desc':'asc';th.dataset.dir=d;var rs=Array.from(b.rows);"
    "rs.sort(function(x,y){var p=x.cells[i],q=y.cells[i],u=p.dataset.v||p.textContent,"
    "v=q.dataset.v||q.textContent,nu=parseFloat(u),nv=parseFloat(v),c=(!isNaN(nu)&&"
    "!isNaN(nv))?nu-nv:u.localeCompare(v);return d==='asc'?c:-c;});"
    "rs.forEach(function(r){b.appendChild(r);});}")


def build_leaderboard(
    results: Results,
    *,
    design: Design | None = None,
    analyses: Sequence[str] | None = None,
    alpha: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
    sanity_checks: bool = False,
    progress: bool = False,
    version: int = 1,
    created: str = "",
    margin: float | str | None = None,
    arena: bool = True,
    arena_resamples: int = N_RESAMPLES,
    incomplete: str = "refuse",
    looks: str = "per-version",
    earlier: Leaderboard | None = None,
    replaced: Sequence[str] = (),
    metrics: Any = (),
    cost: str | None = None,
) -> Leaderboard:
    """Rank the algorithms of ``results`` on one design.

    Parameters
    ----------
    results : Results
        Every submission's rows.
    design : Design, optional
        The leaderboard's design; default: that of ``results``.
    analyses : sequence of str, optional
        The report's analyses to run (default: the families registered with
        ``leaderboard=True``, :func:`benchverdict.families.leaderboard_families`:
        rank tests and the LMEM, which compare final scores over benchmarks).
    alpha : float
        Family-wise error of the settled relations over all pairs.
    confidence : float
        Joint level of the mean-rank intervals the board shows (simultaneous
        over all entries), and level of the marginal ones it keeps.
    n_resamples, seed : int
        Resamples and seed of :func:`mean_rank_interval`'s bootstrap (used only
        with its ``method="percentile"``; the board uses ``"distribution_free"``).
    sanity_checks : bool
        Run the LMEM sanity checks (slow with many algorithms; run
        ``benchverdict report`` for them).
    progress : bool
        Show progress.
    margin : float or str, optional
        Margin of practical equivalence (``0.01`` score units, ``"0.2sd"``):
        pairs shown to differ by less are ``equivalent`` in
        :attr:`Leaderboard.relations` and named in the headline (see
        :func:`benchverdict.report.compare`). Positions are unchanged: they
        come from the settled relations.
    arena : bool
        Also rate the complete entries with Bradley-Terry and Elo
        (:func:`benchverdict.leaderboard.arena.arena_from_results`, from the
        same rows, ``seed`` seeding the bootstrap). If some entry never lost
        (or never won) a game, the maximum likelihood does not exist and the
        ratings are fitted with a small ridge, as a note says.
    arena_resamples : int
        Bootstrap resamples (over benchmarks) of the ratings' intervals.
    incomplete : {"refuse", "subset", "impute"}
        What to do with an incomplete submission (see
        :mod:`benchverdict.leaderboard.incomplete`): list it apart, not
        compared (``"refuse"``, the default); compare every entry on the
        benchmarks and seeds all of them completed (``"subset"``); or fill
        each missing run with the worst score observed on its benchmark
        (``"impute"``; counted per entry, and the page says what it means).
        Every board lists the runs that would complete its incomplete
        entries (:attr:`Leaderboard.missing_runs`).
    looks : {"per-version", "all-versions"}
        What the error control covers (see
        :mod:`benchverdict.leaderboard.looks`): this version alone (Holm at
        ``alpha``, the default), or every version ever published (version
        ``v`` runs Holm at ``alpha / (v (v + 1))``, and the relations
        ``earlier`` showed are kept).
    earlier : Leaderboard, optional
        The previous version (``looks="all-versions"``): its settled and
        implied relations are kept unless an entry is in ``replaced`` or
        the compared benchmarks and seeds changed.
    replaced : sequence of str
        Entries whose rows changed since ``earlier`` (their relations start
        afresh).
    metrics : mapping or sequence, optional
        Other metrics to show beside the score: ``{column: objective}``,
        :class:`~benchverdict.leaderboard.metrics.MetricSpec` objects or
        ``"column:max"`` texts, each a metafeature of ``results`` read at
        each run's incumbent (see :mod:`benchverdict.leaderboard.metrics`).
    cost : str, optional
        A metafeature holding what a run spent (cumulative for
        ``kind="runs"``, per trial for ``kind="trials"``): shown per entry
        with the Pareto front of mean rank versus mean cost
        (:attr:`Leaderboard.pareto`). Metrics and cost are descriptive; the
        positions rest on the score alone.

    Returns
    -------
    Leaderboard

    Raises
    ------
    ValueError
        On an unknown ``incomplete`` or ``looks`` policy, or when ``"subset"`` leaves
        fewer benchmarks than the board needs (:data:`MIN_BENCHMARKS`, or
        the design's own number if smaller).

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> board = build_leaderboard(_example_small(), analyses=["ranks"])
    >>> board.entries[["position", "algorithm"]].to_dict("records")
    [{'position': '1-2', 'algorithm': 'a'}, {'position': '1-2', 'algorithm': 'b'}]

    An entry that misses a benchmark, under each policy:

    >>> import pandas as pd
    >>> from benchverdict import Results
    >>> rows = pd.DataFrame([(a, f"t{b}", s, off + b + 0.1 * s) for a, off in
    ...                      [("x", 2.0), ("y", 1.0), ("z", 0.0)]
    ...                      for b in range(6) for s in range(2)],
    ...                     columns=["algo", "task", "seed", "acc"])
    >>> rows = rows[~((rows["algo"] == "x") & (rows["task"] == "t5"))]
    >>> res = Results.from_frame(rows, algorithm="algo", benchmark="task", seed="seed",
    ...                          score="acc", objective="maximize", kind="runs")
    >>> for policy in ("refuse", "subset", "impute"):
    ...     b = build_leaderboard(res, analyses=["ranks"], arena=False, incomplete=policy)
    ...     print(policy, b.entries["algorithm"].tolist(), b.entries["imputed_runs"].tolist(),
    ...           len(b.compared_design.benchmarks), len(b.missing_runs))
    refuse ['y', 'z'] [0, 0] 6 2
    subset ['x', 'y', 'z'] [0, 0, 0] 5 2
    impute ['x', 'y', 'z'] [2, 0, 0] 6 2

    Error control over all versions: on 12 benchmarks y beats z everywhere
    (Wilcoxon p = 2 / 4096). Version 1 tests at 0.05 / 2 and settles it;
    version 30 tests at 0.05 / 930, where these data alone would not, and
    keeps the relation version 1 showed:

    >>> twelve = Results.from_frame(
    ...     pd.DataFrame([(a, f"t{b}", 0, off + b) for a, off in [("y", 1.0), ("z", 0.0)]
    ...                   for b in range(12)], columns=["algo", "task", "seed", "acc"]),
    ...     algorithm="algo", benchmark="task", seed="seed", score="acc",
    ...     objective="maximize", kind="runs")
    >>> first = build_leaderboard(twelve, analyses=["ranks"], arena=False, looks="all-versions")
    >>> first.level, first.relations[["winner", "loser", "status", "shown_in"]].values.tolist()
    (0.025, [['y', 'z', 'settled', 1]])
    >>> later = build_leaderboard(twelve, analyses=["ranks"], arena=False, looks="all-versions",
    ...                           version=30, earlier=first)
    >>> round(later.level, 7), later.relations[["status", "shown_in"]].values.tolist()
    (5.38e-05, [['settled', 1]])
    >>> later.relations["reason"].iloc[0][:27]
    'shown in version 1 and kept'
    """
    from benchverdict.report.runner import compare

    policy = check_policy(incomplete)
    check_looks(looks)
    specs = metric_specs(metrics, cost)
    if specs:
        check_columns(results.table, specs, metafeatures=results.metafeatures)
    level = look_level(alpha, version, looks)
    analyses = leaderboard_families() if analyses is None else tuple(analyses)
    design = Design.from_results(results) if design is None else design
    checks, inside = check_submission(design, results)
    # The entries the policy compares: the complete ones, and (subset, impute) the
    # incomplete ones a policy can help; the others are listed apart.
    complete = [c.algorithm for c in checks if c.complete or (
        policy != "refuse" and why_not_compared(c, design) is None)]
    partial = [c for c in checks if not c.complete and c.algorithm in complete]
    compared_design, dropped = design, pd.DataFrame(columns=DROPPED_COLUMNS)
    imputed = pd.DataFrame(columns=IMPUTED_COLUMNS)
    inside = inside[inside["algorithm"].isin(complete).to_numpy()]
    if policy == "subset" and partial:
        compared_design, dropped = _common_design(design, [c for c in checks
                                                           if c.algorithm in complete])
        inside = inside[(inside["benchmark"].astype(str).isin(compared_design.benchmarks)
                         & inside["seed"].astype(str).isin(compared_design.seeds)).to_numpy()]
    measured = inside  # the runs as submitted (imputed runs have no metric or cost)
    if policy == "impute" and partial:
        inside, imputed = impute_worst(inside, design, partial, kind=results.kind)
    notes: list[str] = []
    if len(results.exclusions):
        notes.append(exclusion_note(results.exclusions, "the data"))
    extra_rows = sum(c.extra_rows for c in checks)
    if extra_rows:
        notes.append(f"{extra_rows} row(s) outside the leaderboard's design were left out "
                     f"(see the entries' reasons).")
    if not sanity_checks and "lmem" in analyses:
        notes.append("The LMEM sanity checks were not run (run `benchverdict report` on the "
                     "leaderboard's data for them).")
    relations = pd.DataFrame(columns=RELATION_COLUMNS)
    groups: list[list[str]] = []
    verdicts: list[Verdict] = []
    headline = "No complete entries yet."
    better: dict[str, set[str]] = {a: set() for a in complete}
    worse: dict[str, set[str]] = {a: set() for a in complete}
    families: dict[str, set[str]] = {a: set() for a in complete}
    if len(complete) >= 2:
        data = _results_of(inside, results)
        comparison = compare(data, analyses=list(analyses), alpha=level, progress=progress,
                             sanity_checks=sanity_checks, budget=design.final_budget,
                             figures=False, margin=margin,
                             # The board ranks across benchmarks; with one benchmark that
                             # scope is the benchmark itself.
                             per_benchmark=len(compared_design.benchmarks) == 1)
        for run in comparison.errors:
            notes.append(f"analysis {run.name} {run.status}: {run.reason}")
        rec = comparison.reconciliation
        verdicts = list(rec.verdicts)
        overall = rec.relations[rec.relations["scope_type"] == "all benchmarks"]
        if len(overall) == 0 and len(compared_design.benchmarks) == 1:
            overall = rec.relations[rec.relations["scope_type"] == "per benchmark"]
        relations = pd.DataFrame({
            "a": overall["a"].astype(str), "b": overall["b"].astype(str),
            "status": overall["status"].astype(str),
            "winner": overall["winner"].astype(object).where(overall["winner"].notna(), None),
            "loser": overall["loser"].astype(object).where(overall["loser"].notna(), None),
            "families": overall["families"].fillna("").astype(str),
            "p_value_adjusted": pd.to_numeric(overall["p_value_adjusted"], errors="coerce"),
            "reason": overall["reason"].fillna("").astype(str),
            "shown_in": None,
            # The report's effect sizes, for the site's entry pages (NaN where it has none).
            **{column: pd.to_numeric(overall.get(source), errors="coerce")
               for column, source in (("difference", "difference"),
                                      ("difference_lower", "difference_lower"),
                                      ("difference_upper", "difference_upper"),
                                      ("difference_confidence", "confidence"))},
            "difference_unit": (overall["difference_unit"].fillna("").astype(str)
                                if "difference_unit" in overall else ""),
        }, columns=RELATION_COLUMNS).reset_index(drop=True)
        kept = 0
        if looks == "all-versions":
            before = None if earlier is None else earlier.compared_design
            same = before is not None and (before.benchmarks, before.seeds) == (
                compared_design.benchmarks, compared_design.seeds)
            if before is not None and not same:
                notes.append(f"The compared benchmarks and seeds changed since version "
                             f"{earlier.version}: relations shown before are not kept (they "
                             f"were about other data); this version's stand on their own.")
            relations, kept, clashes = keep_shown(
                relations, earlier.relations if same else None, version=version,
                entries=complete, replaced=replaced)
            if clashes:
                notes.append(f"Contradicted across versions: {', '.join(clashes)} was shown "
                             f"earlier and the opposite now; one of them is false, and the "
                             f"pair is not separated.")
        decided = relations[relations["status"].isin(["settled", "implied"])]
        for r in decided.itertuples():
            better[r.winner].add(r.loser)
            worse[r.loser].add(r.winner)
            for fam in family_names(r.families):
                families[r.winner].add(fam)
                families[r.loser].add(fam)
        ranking = rec.headline
        if ranking is not None:
            headline = ranking.message
            groups = [list(g) for g in ranking.groups]
        if looks == "all-versions" and (kept or len(relations[relations["status"] ==
                                                             "contradicted"])):
            groups = _open_groups(complete, relations)
        if kept:
            headline += (f" {kept} relation(s) shown in earlier versions are kept (error "
                         f"control over all versions; see the relations).")
    elif len(complete) == 1:
        what = "complete" if not partial else f"compared (policy {policy})"
        headline = f"{complete[0]} is the only {what} entry; nothing to compare yet."
    ranked = _mean_ranks_at_budget(inside, results, design, confidence=confidence,
                                   n_resamples=n_resamples, seed=seed)
    notes += [f"Mean-rank intervals: {note}" for note in
              sorted(set(ranked["note"][ranked["note"] != ""]))]
    joined = ranked[ranked["n_replicates"] < ranked["n_benchmarks"]]
    if len(joined):
        notes.append(f"Mean-rank intervals: {int(joined['n_replicates'].iloc[0])} independent "
                     f"replicates of {int(joined['n_benchmarks'].iloc[0])} benchmarks (runs "
                     f"copied between benchmarks make them one replicate, whose rank is the "
                     f"mean of theirs).")
    rated = None
    if arena and len(complete) >= 2:
        rated = _arena_at_budget(inside, results, design, confidence=confidence,
                                 n_resamples=arena_resamples, seed=seed)
    n = len(complete)
    n_imputed = imputed["algorithm"].value_counts()
    rows = []
    for a in complete:
        best, worst = 1 + len(worse[a]), n - len(better[a])
        group = next((i + 1 for i, g in enumerate(groups) if a in g), None)
        rows.append({
            "position": str(best) if best == worst else f"{best}-{worst}",
            "best_position": best, "worst_position": worst, "algorithm": a,
            "group": group, "mean_rank": float(ranked.loc[a, "mean_rank"]),
            "mean_rank_lower": float(ranked.loc[a, "simultaneous_lower"]),
            "mean_rank_upper": float(ranked.loc[a, "simultaneous_upper"]),
            "mean_rank_marginal_lower": float(ranked.loc[a, "lower"]),
            "mean_rank_marginal_upper": float(ranked.loc[a, "upper"]),
            "better_than": len(better[a]), "worse_than": len(worse[a]),
            "settled_by": ", ".join(sorted(families[a])),
            "n_benchmarks": len(compared_design.benchmarks),
            "n_seeds": len(compared_design.seeds), "imputed_runs": int(n_imputed.get(a, 0)),
        })
    entries = pd.DataFrame(rows, columns=ENTRY_COLUMNS)
    if len(entries):
        entries = entries.sort_values(
            ["best_position", "worst_position", "mean_rank", "algorithm"],
            kind="stable").reset_index(drop=True)
    shown = pd.DataFrame(columns=METRIC_COLUMNS)
    if specs and len(entries):
        values = run_values(measured, specs, objective=design.objective, kind=design.kind,
                            budget=design.final_budget)
        shown = entry_metrics(values, specs, entries["algorithm"].tolist())
        is_cost = (shown["role"] == "cost").to_numpy()
        if is_cost.any():
            costs = shown[is_cost].set_index("algorithm")["mean"].reindex(entries["algorithm"])
            front = pareto_front(entries["mean_rank"].to_numpy(dtype=float),
                                 costs.to_numpy(dtype=float))
            shown.loc[is_cost, "pareto"] = pd.Series(front, index=entries["algorithm"]).reindex(
                shown.loc[is_cost, "algorithm"]).to_numpy()
    listed = pd.DataFrame([{
        "algorithm": c.algorithm, "missing_cells": len(c.missing_cells),
        "short_runs": len(c.short_runs), "extra_rows": c.extra_rows,
        "reasons": "; ".join(c.reasons + (
            [f"not compared: {why_not_compared(c, design)}"]
            if policy != "refuse" and c.algorithm not in complete else [])),
        "compared": c.algorithm in complete,
    } for c in checks if not c.complete], columns=INCOMPLETE_COLUMNS)
    return Leaderboard(
        design=design, entries=entries, incomplete=listed, relations=relations,
        groups=groups, headline=headline, alpha=alpha, confidence=confidence,
        analyses=list(analyses), notes=notes, version=version, created=created,
        arena=rated, _verdicts=verdicts, incomplete_policy=policy, looks=looks,
        compared=None if compared_design == design else compared_design,
        dropped=dropped, missing_runs=missing_runs(design, checks), imputed=imputed,
        metric_specs=specs, metrics=shown)


def _open_groups(entries: Sequence[str], relations: pd.DataFrame) -> list[list[str]]:
    """Groups of mutually unsettled entries (maximal cliques of undecided pairs), as the report."""
    from benchverdict.report.relations import maximal_cliques

    adjacent: dict[str, set[str]] = {a: set() for a in entries}
    for r in relations[~relations["status"].isin(["settled", "implied"])].itertuples():
        if r.a in adjacent and r.b in adjacent:
            adjacent[r.a].add(r.b)
            adjacent[r.b].add(r.a)
    cliques = maximal_cliques(list(entries), adjacent)
    if cliques is None:  # too many to list: connected components, as the report does
        from benchverdict.report.relations import _components

        cliques = _components(list(entries), adjacent)
    return [c for c in cliques if len(c) >= 2]


def _common_design(design: Design, checks: list) -> tuple[Design, pd.DataFrame]:
    """The common subset of ``checks`` as a Design, refused when it is too small to rank on."""
    benchmarks, seeds, dropped = common_subset(design, checks)
    needed = min(MIN_BENCHMARKS, len(design.benchmarks))
    if len(benchmarks) < needed or (len(benchmarks) == 1 and len(seeds) <= 1):
        worst = sorted(((len({b for b, _ in c.missing_cells + c.short_runs}), c.algorithm)
                        for c in checks if not c.complete), reverse=True)[:3]
        who = "; ".join(f"{a} misses runs on {k} of {len(design.benchmarks)} benchmarks"
                        for k, a in worst)
        raise ValueError(
            f"incomplete: the common subset (the benchmarks every entry completed, with the "
            f"same seeds) has {len(benchmarks)} of {len(design.benchmarks)} benchmarks "
            f"({', '.join(benchmarks) or 'none'}), fewer than the {needed} a board needs "
            f"(below {MIN_BENCHMARKS} the mean-rank intervals are not computed and few "
            f"relations can be settled; a board with fewer benchmarks cannot lose any). "
            f"{who}. Fix: complete their runs (Leaderboard.missing_runs, or "
            f"--missing-runs FILE), or use --incomplete refuse (list them apart) or impute.")
    return Design(objective=design.objective, kind=design.kind, benchmarks=benchmarks,
                  seeds=seeds, final_budget=design.final_budget), dropped


def _arena_at_budget(table: pd.DataFrame, like: Results, design: Design, *,
                     confidence: float, n_resamples: int, seed: int) -> Arena:
    """The arena of the rows the board ranks (the MLE, else a ridge fit that says why)."""
    data = _results_of(table, like)
    try:
        return arena_from_results(data, budget=design.final_budget, confidence=confidence,
                                  n_resamples=n_resamples, seed=seed)
    except NoMaximumLikelihood as err:
        rated = arena_from_results(data, budget=design.final_budget, confidence=confidence,
                                   n_resamples=n_resamples, seed=seed, ridge=FALLBACK_RIDGE)
        rated.notes.insert(0, str(err).split(". Fix:")[0] + f"; fitted with ridge "
                           f"{FALLBACK_RIDGE:g} instead.")
        return rated


def _mean_ranks_at_budget(
    table: pd.DataFrame, like: Results, design: Design, *, confidence: float,
    n_resamples: int, seed: int,
) -> pd.DataFrame:
    """:func:`mean_rank_interval` of the rows the board ranks.

    Those are each run's incumbent at the design's final budget (each run's final score
    without a budget), as the report compares them.
    """
    if not len(table):
        return pd.DataFrame(columns=MEAN_RANK_COLUMNS)
    # One algorithm ranks first everywhere at every budget; a Results needs two to be built.
    runs, copies = table, None
    if table["algorithm"].nunique() >= 2:
        data = _results_of(table, like)
        # Runs copied between benchmarks make one replicate (as in the report's tests).
        runs, copies = data.incumbents(design.final_budget).table, data.copied_benchmarks()
    return mean_rank_interval(runs, design.objective, confidence=confidence,
                              n_resamples=n_resamples, seed=seed, replicates=copies)


def family_names(text: object) -> list[str]:
    """Display names of the families in a relation's ``families`` text (``"lmem, ranks"``)."""
    codes = [c.strip() for c in str(text or "").split(",") if c.strip()]
    return [family_label(c) for c in codes]


def exclusion_note(exclusions: pd.DataFrame, what: str) -> str:
    """One sentence: how many rows of ``what`` were excluded when read, and the top reasons."""
    reasons = exclusions["reason"].astype(str).value_counts()
    shown = "; ".join(f"{n} x {why}" for why, n in reasons.head(3).items())
    return (f"{len(exclusions)} row(s) of {what} were excluded when read ({shown}"
            f"{'; ...' if len(reasons) > 3 else ''}).")


def _results_of(table: pd.DataFrame, like: Results) -> Results:
    """A Results from a canonical table, read the way ``like`` was."""
    columns = ["algorithm", "benchmark", "seed", "score"] + (
        ["budget"] if like.has_budget else [])
    return Results.from_frame(
        table[columns].reset_index(drop=True), algorithm="algorithm", benchmark="benchmark",
        seed="seed", score="score", objective=like.objective,
        budget="budget" if like.has_budget else None, kind=like.kind)
