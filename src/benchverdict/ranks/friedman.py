"""Friedman's test with Nemenyi, Wilcoxon–Holm or Conover post-hoc tests (Demšar 2006).

The classic multi-benchmark comparison: rank the algorithms within every
block (a benchmark, with seeds aggregated, or a benchmark x seed run), test
whether the average ranks differ (Friedman; Iman–Davenport), then compare
pairs. The replication unit is an explicit argument and is printed with
every output, because it decides what the p-values mean: with
``unit="benchmark"`` the benchmarks are the independent units (Demšar's
setting); with ``unit="benchmark_seed"`` every run counts as a block, which
treats seeds of one benchmark as independent benchmarks.

Assumptions: blocks are independent; within a block, only the order of the
algorithms matters (magnitudes are discarded). Blocks that are not
independent (an algorithm's runs copied between benchmarks, or a declared
group: :mod:`benchverdict.replicates`) are one replicate: Friedman's,
Nemenyi's and Conover's tests rank the algorithms by their mean rank over
the replicate's blocks (re-ranked, so each replicate is one ranked block),
Wilcoxon's test and the effect sizes take the mean of its oriented scores.
Where every algorithm's runs are copied alike, the algorithms are
exchangeable within each independent replicate under the null, and the
tests are exact on the replicates. Where only some are (PriorBand: HB and
RS copied, PB not), a copied algorithm's mean rank varies less than the
others', so exchangeability holds only approximately: in PriorBand-shaped
nulls (HB and RS copied, PB not, a task-level effect;
``tests/test_copied_replicates.py``) the omnibus rejected in 0.03 of data
sets and Nemenyi declared some pair different in 0.02 at alpha 0.05 (0.19
and 0.18 with every benchmark counted). Friedman's p-value uses the
chi-square approximation (rough for fewer than about 10 blocks; Iman–Davenport's
F is then preferable). Nemenyi's test is a test on average ranks, so its
verdict on a pair depends on which other algorithms are compared (Benavoli
et al. 2016); pairwise Wilcoxon signed-rank tests with Holm's correction do
not have that defect and are offered as ``posthoc="wilcoxon"``.

What the results depend on. With ``unit="benchmark"`` each block's score is
the mean (or median) over its seeds, taken *before* ranking: a choice, said
in every result's notes and verdict details (``unit="benchmark_seed"`` ranks
every run instead). With one seed per block, Friedman's test, Nemenyi's and
Conover's post-hoc tests, Cliff's delta and its bootstrap interval use only
the order of the scores, so any increasing transform of the scores leaves
every verdict unchanged; with several seeds the mean can reorder a block.
Wilcoxon's signed-rank test ranks the *differences* between two algorithms,
so it is unchanged by increasing affine transforms only (the results say
which, in ``details["invariant_under"]``). Nothing depends on the names or
the order of algorithms and benchmarks: the effect-size bootstrap resamples
blocks in an order fixed by the values and computes each pair once, in an
orientation fixed by the values (:mod:`benchverdict.stats.symmetry`).

Cost. Everything is vectorised over pairs: 1000 algorithms (half a million
pairs) take seconds (``benchmarks/bench_ranks.py --scale``); the
effect-size bootstrap, whose cost is pairs x resamples x blocks, is skipped
with a note beyond ``bootstrap_budget``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from benchverdict import critical_difference as cdd
from benchverdict._bulk import paused_gc
from benchverdict._cli_common import stderr_is_terminal
from benchverdict._repr import ResultText
from benchverdict.ranks import _stats
from benchverdict.replicates import BenchmarkReplicates, replicate_means
from benchverdict.results import BlockMatrix, Results
from benchverdict.stats.multiple_testing import adjust_p_values
from benchverdict.stats.symmetry import canonical_block_order
from benchverdict.verdict import Effect, Evidence, Scope, Verdict, register_method

Posthoc = Literal["nemenyi", "wilcoxon", "conover"]
Adjust = Literal["holm", "bonferroni"]
POSTHOCS = ("nemenyi", "wilcoxon", "conover")
#: Default work limit of the effect-size bootstrap: pairs x resamples x blocks.
BOOTSTRAP_BUDGET = 1e8
METHOD_NAMES = {
    "nemenyi": "ranks.nemenyi",
    "wilcoxon": "ranks.wilcoxon_holm",
    "conover": "ranks.conover",
}
_BLOCKS = "block: a benchmark (seeds aggregated) or a benchmark x seed run"
_BLOCK_ASSUMPTIONS = "independent blocks; only the order of the algorithms within a block counts"
# The rank-test family votes through pairwise Wilcoxon signed-rank tests (raw p-values, a
# test of the pair alone); Nemenyi's and Conover's tests depend on the other algorithms.
register_method("ranks.wilcoxon_holm", "ranks", "Wilcoxon signed-rank (Holm)", paired=True,
                unit=_BLOCKS, aspect="ranks", assumptions=_BLOCK_ASSUMPTIONS
                + "; differences symmetric about their median under H0",
                error_control="family-wise over pairs", votes=True, primary=True,
                scale="ranks", adjustment="holm")
register_method("ranks.nemenyi", "ranks", "Friedman + Nemenyi", paired=True, unit=_BLOCKS,
                aspect="ranks", assumptions=_BLOCK_ASSUMPTIONS
                + "; a pair's test depends on the other algorithms (Benavoli et al. 2016)",
                error_control="family-wise over pairs", votes=True, scale="ranks",
                adjustment="nemenyi")
register_method("ranks.conover", "ranks", "Friedman + Conover", paired=True, unit=_BLOCKS,
                aspect="ranks", assumptions=_BLOCK_ASSUMPTIONS,
                error_control="family-wise over pairs", votes=True, scale="ranks",
                adjustment="holm")


@dataclass(repr=False, frozen=True)
class FriedmanResult(ResultText):
    """Friedman's test, average ranks and a post-hoc family.

    Attributes
    ----------
    statistic : float
        Friedman's tie-corrected chi-square ``Q``.
    df : int
        ``k - 1``.
    p_value : float
        ``P(chi2_df > Q)``.
    kendall_w : float
        Kendall's coefficient of concordance ``Q / (n (k - 1))`` in [0, 1].
    iman_davenport : float
        Iman–Davenport's ``F``; ``iman_davenport_df`` its degrees of freedom
        and ``iman_davenport_p_value`` its p-value.
    average_ranks : pandas.Series
        Average rank per algorithm (1 = best; ties averaged), best first.
    critical_difference : float
        Nemenyi's CD at ``alpha`` (reported whatever the post-hoc test).
    posthoc : {"nemenyi", "wilcoxon", "conover"}
    adjust : str
        The multiplicity adjustment (``"studentized range"`` for Nemenyi).
    pairwise : pandas.DataFrame
        One row per pair: average ranks, the test's statistic, raw and
        adjusted p-values, the decision, and effect sizes with bootstrap
        intervals (positive favours ``a``).
    p_values_adjusted : pandas.DataFrame
        Square matrix of adjusted pairwise p-values.
    blocks : BlockMatrix
        The data the test saw.
    unit : str
        The replication unit, in words.
    alpha : float
    objective : str
    notes : tuple of str
        Caveats found in these data (few blocks, pseudo-replication, ...).
    copies : BenchmarkReplicates
        Benchmarks on which an algorithm's runs are identical (or declared
        groups); every test counts each group of them as one replicate.
    n_replicates : int or None
        The independent replicates the tests ranked (``None``: every block is
        one; the pairwise table's ``n_replicates``).
    """

    statistic: float
    df: int
    p_value: float
    kendall_w: float
    iman_davenport: float
    iman_davenport_df: tuple[int, int]
    iman_davenport_p_value: float
    average_ranks: pd.Series
    critical_difference: float
    posthoc: str
    adjust: str
    pairwise: pd.DataFrame
    p_values_adjusted: pd.DataFrame
    blocks: BlockMatrix
    unit: str
    alpha: float
    objective: str
    confidence: float
    notes: tuple[str, ...] = field(default=())
    copies: BenchmarkReplicates = field(default_factory=BenchmarkReplicates)
    n_replicates: int | None = None

    # ------------------------------------------------------------------ views
    def _summary_lines(self) -> list[str]:
        from benchverdict._repr import names

        order = self.average_ranks.sort_values()
        return [f"Friedman chi2 = {self.statistic:.4g}, df = {self.df}, p = "
                f"{self.p_value:.3g}; {self.posthoc}"
                f"{'' if self.posthoc == 'nemenyi' else '-' + self.adjust}; "
                f"{len(order)} algorithms; {cdd.short_unit(self.unit)}",
                "best first: " + names(f"{a} ({r:.2f})" for a, r in order.items())]

    @property
    def n_blocks(self) -> int:
        """How many blocks were ranked (see :attr:`n_units` for the independent ones)."""
        return int(self.blocks.matrix.shape[0])

    @property
    def n_units(self) -> int:
        """How many independent units the tests counted: replicates, else blocks."""
        return self.n_blocks if self.n_replicates is None else int(self.n_replicates)

    @property
    def algorithms(self) -> list[str]:
        """Algorithm names, best average rank first."""
        return list(self.average_ranks.index)

    @property
    def omnibus_significant(self) -> bool:
        """Whether Friedman's test rejects equal average ranks at ``alpha``."""
        return bool(self.p_value < self.alpha)

    def with_posthoc(self, posthoc: Posthoc, adjust: Adjust = "holm", *,
                     n_resamples: int = 0) -> FriedmanResult:
        """The same blocks with another post-hoc family (e.g. to set Nemenyi beside Wilcoxon).

        Examples
        --------
        >>> from benchverdict.ranks._examples import small_runs
        >>> res = friedman(small_runs(), n_resamples=0)
        >>> res.with_posthoc("conover").pairwise[["a", "b", "significant"]]
            a   b  significant
        0  HB  PB         True
        1  HB  RS         True
        2  PB  RS         True
        """
        return friedman(self.blocks, alpha=self.alpha, posthoc=posthoc, adjust=adjust,
                        n_resamples=n_resamples, confidence=self.confidence,
                        copies=self.copies)

    def not_different(self) -> pd.DataFrame:
        """Square boolean matrix: ``True`` where a pair is not significantly different.

        With Nemenyi or Conover, no pair differs unless Friedman's test
        rejects first (Demšar's protocol); Wilcoxon–Holm stands alone.
        """
        nd = cdd.not_different_from_p_values(self.p_values_adjusted, self.alpha)
        if self.posthoc in ("nemenyi", "conover") and not self.omnibus_significant:
            nd.loc[:, :] = True
        return nd

    def cliques(self) -> list[frozenset[str]]:
        """Maximal groups of algorithms that are pairwise not significantly different.

        Polynomial for any number of algorithms (see
        :func:`benchverdict.critical_difference.grouping`).
        """
        return cdd.cliques(self.average_ranks, self.not_different())

    def letters(self) -> pd.Series:
        """Compact letter display: algorithms sharing a letter are not significantly different."""
        return cdd.compact_letter_display(self.average_ranks, self.not_different())

    @property
    def table(self) -> pd.DataFrame:
        """One row per algorithm: average rank, mean and median score, letters.

        ``attrs["unit"]`` holds the replication unit.
        """
        m = self.blocks.matrix
        out = pd.DataFrame(
            {
                "algorithm": self.algorithms,
                "average_rank": self.average_ranks.to_numpy(),
                "mean_score": m[self.algorithms].mean().to_numpy(),
                "median_score": m[self.algorithms].median().to_numpy(),
                "letters": self.letters().reindex(self.algorithms).to_numpy(),
            }
        )
        out.attrs["unit"] = self.unit
        out.attrs["objective"] = self.objective
        return out

    def summary(self) -> str:
        """A plain-text report of the test, the unit and the post-hoc results."""
        lines = [
            f"Friedman test on {self.unit}; {len(self.algorithms)} algorithms; "
            f"objective: {self.objective}",
            f"  Q = {self.statistic:.4g}, df = {self.df}, p = {_p(self.p_value)}; "
            f"Kendall's W = {self.kendall_w:.3f}; Iman-Davenport F = {self.iman_davenport:.4g} "
            f"(df {self.iman_davenport_df[0]}, {self.iman_davenport_df[1]}), "
            f"p = {_p(self.iman_davenport_p_value)}",
            f"  Nemenyi CD (alpha = {self.alpha:g}) = {self.critical_difference:.3f}; "
            f"post-hoc: {self.posthoc} ({self.adjust})",
            "  average ranks (1 = best): "
            + ", ".join(f"{a} {r:.3f}" for a, r in self.average_ranks.items()),
        ]
        found = cdd.grouping(self.average_ranks, self.not_different())
        place = {name: i for i, name in enumerate(self.algorithms)}
        lines.append(
            "  not significantly different groups: "
            + ("; ".join("{" + ", ".join(sorted(g, key=place.__getitem__)) + "}"
                         for g in found.groups) or "none (every pair differs)")
        )
        if found.note:
            lines.append(f"  groups: {found.note}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    # ------------------------------------------------------------------ verdicts
    def verdicts(self) -> list[Verdict]:
        """One verdict per pair of algorithms (``a`` before ``b`` in input order)."""
        budget = self.blocks.budget
        scope = Scope(budget_low=budget, budget_high=budget) if budget is not None else Scope()
        method = METHOD_NAMES[self.posthoc]
        gated = self.posthoc in ("nemenyi", "conover")
        n_blocks = self.n_blocks
        blocked = gated and not self.omnibus_significant
        invariance = ("increasing affine transforms" if self.posthoc == "wilcoxon"
                      else "increasing transforms (with one seed per block)")
        t = self.pairwise
        # Python scalars: formatting numpy scalars costs several times more per verdict
        columns = [t[c].tolist() for c in (
            "a", "b", "rank_a", "rank_b", "significant", "better", "p_value",
            "p_value_adjusted", "cliffs_delta", "cliffs_delta_lower", "cliffs_delta_upper",
            "akinshin_gamma", "n_replicates")]
        with paused_gc():
            return self._verdicts(columns, scope, method, n_blocks, blocked, invariance)

    def _verdicts(self, columns, scope, method, n_blocks, blocked, invariance) -> list[Verdict]:
        out = []
        for (a, b, rank_a, rank_b, significant, better, p_raw, p_adj, delta, delta_low,
             delta_high, gamma, n_rep) in zip(*columns):
            significant = bool(significant)
            outcome = ("a" if better == a else "b") if significant else "inconclusive"
            if blocked:
                why = (f"Friedman p = {_p(self.p_value)} >= {self.alpha:g}, so no pair is "
                       f"declared different")
            elif self.posthoc == "nemenyi":
                why = (f"|rank difference| {abs(rank_a - rank_b):.3f} "
                       f"{'>' if significant else '<='} CD {self.critical_difference:.3f}")
            else:
                why = f"{self.adjust}-adjusted p = {_p(p_adj)}"
            over = (f"{n_blocks} blocks" if n_rep >= n_blocks else
                    f"{n_rep} independent replicates of {n_blocks} blocks (blocks joined by "
                    f"copied runs or a declared group count once)")
            out.append(
                Verdict(
                    a=a, b=b, outcome=outcome, method=method, scope=scope,
                    evidence=Evidence("p_value", float(p_adj), self.alpha),
                    objective=self.objective,
                    explanation=(f"average rank {a} {rank_a:.3f} vs {b} {rank_b:.3f} over "
                                 f"{over}; {why}"),
                    effect=Effect("Cliff's delta", float(delta), _none(delta_low),
                                  _none(delta_high), self.confidence),
                    unit=self.unit, n=int(n_rep),
                    p_value=float(p_raw),
                    details={
                        "omnibus": "friedman",
                        "omnibus_p_value": self.p_value,
                        "iman_davenport_p_value": self.iman_davenport_p_value,
                        "posthoc": self.posthoc,
                        "adjust": self.adjust,
                        "rank_a": float(rank_a),
                        "rank_b": float(rank_b),
                        "critical_difference": self.critical_difference,
                        "akinshin_gamma": float(gamma),
                        "aggregate": self.blocks.aggregate,
                        "invariant_under": invariance,
                        # The tests count blocks that copies (or a group) join once.
                        **({"n_replicates": int(n_rep), "n_blocks": n_blocks}
                           if n_rep < n_blocks else {}),
                    },
                )
            )
        return out

    # ------------------------------------------------------------------ figure
    def plot(self, ax: Axes | None = None, *, contiguous: bool = False) -> Axes:
        """The critical-difference diagram of the average ranks.

        The CD bar is drawn for Nemenyi; for the other post-hoc tests the
        groups come from their adjusted p-values and no single CD exists.
        """
        k = len(self.algorithms)
        # the full replication statement is in every table and caption; the figure names
        # the blocks and the budget only, so the title stays one line
        title = (f"Friedman p = {_p(self.p_value)}, {self.posthoc}"
                 f"{'' if self.posthoc == 'nemenyi' else '-' + self.adjust}; "
                 f"{cdd.short_unit(self.unit)}")
        return cdd.draw_cd_diagram(
            self.average_ranks,
            self.not_different(),
            lower_is_better=True,
            critical_difference=self.critical_difference if self.posthoc == "nemenyi" else None,
            axis_label="average rank",
            limits=(1, k),
            contiguous=contiguous,
            title=title,
            ax=ax,
        )


# ---------------------------------------------------------------------- entry point
def friedman(
    results: Results | BlockMatrix,
    *,
    budget: float | None = None,
    unit: Literal["benchmark", "benchmark_seed"] = "benchmark",
    aggregate: Literal["mean", "median"] = "mean",
    missing: Literal["raise", "drop"] = "raise",
    alpha: float = 0.05,
    posthoc: Posthoc = "nemenyi",
    adjust: Adjust = "holm",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int | None = 0,
    bootstrap_budget: float | None = BOOTSTRAP_BUDGET,
    copies: BenchmarkReplicates | None = None,
) -> FriedmanResult:
    """Friedman's test on a block x algorithm matrix, with a post-hoc family and verdicts.

    Parameters
    ----------
    results : Results or BlockMatrix
        Benchmark results (incumbents are taken with ``results.blocks``), or
        a block matrix you built yourself.
    budget : float, optional
        Compare the incumbents at this budget; default each run's final one.
    unit : {"benchmark", "benchmark_seed"}
        The replication unit (see the module docstring).
    aggregate : {"mean", "median"}
        How seeds are combined within a benchmark (``unit="benchmark"``),
        before ranking. A choice: it is stated in the result's notes, and
        with several seeds per benchmark it makes the ranks depend on the
        scores' scale (see the module docstring).
    missing : {"raise", "drop"}
        Blocks with a missing algorithm: refuse with the list of missing
        cells, or drop them (recorded in ``result.blocks.exclusions``).
    alpha : float
        Family-wise significance level.
    posthoc : {"nemenyi", "wilcoxon", "conover"}
        Nemenyi's test on average ranks (with its critical difference);
        pairwise Wilcoxon signed-rank tests; or Conover's test on rank sums.
    adjust : {"holm", "bonferroni"}
        Multiplicity adjustment for Wilcoxon and Conover (Nemenyi's
        studentized range is family-wise already).
    n_resamples : int
        Bootstrap resamples of the blocks for Akinshin's gamma's intervals
        (0: no effect-size intervals at all). Cliff's delta's interval is
        computed without resampling (U-statistic, jackknife variance; see
        :func:`~benchverdict.ranks._stats.cliffs_delta_intervals`).
    confidence : float
        Confidence level of those intervals.
    seed : int, optional
        Seed of the bootstrap.
    bootstrap_budget : float or None
        Largest ``pairs x n_resamples x blocks`` for which the effect-size
        intervals are computed (up to about a second per ``1e8`` with a few
        blocks, where the ``pairs x n_resamples`` gammas dominate; far less
        with many blocks: 500 blocks x 10 algorithms, ``2.2e7``, take 0.02 s);
        beyond it they are NaN and a note says so (1000 algorithms have half
        a million pairs). ``None``: always compute them (with a progress bar
        when long).
    copies : BenchmarkReplicates, optional
        Benchmarks on which an algorithm's runs are identical (by default
        ``results.copied_benchmarks()`` for Results, none for a BlockMatrix).
        The blocks joined by any algorithm's copies (or a declared group) are
        one replicate of every test (:mod:`benchverdict.replicates`; module
        docstring): a copy is one observation, and counted twice it overstates
        the evidence.

    Returns
    -------
    FriedmanResult

    Notes
    -----
    With exactly two algorithms, Friedman's test reduces to a sign test; the
    post-hoc family is then the single paired Wilcoxon signed-rank test,
    which uses the magnitudes of the differences and is more powerful
    (``posthoc`` is set to ``"wilcoxon"`` and a note says so).

    Examples
    --------
    >>> from benchverdict.ranks._examples import small_runs
    >>> res = friedman(small_runs(), posthoc="nemenyi")
    >>> round(res.statistic, 2), res.df, round(res.critical_difference, 3)
    (12.29, 2, 1.253)
    >>> res.average_ranks.round(2).to_dict()
    {'PB': 1.0, 'HB': 2.14, 'RS': 2.86}
    >>> [v.winner for v in res.verdicts()]
    [None, None, 'PB']
    """
    _check_arguments(posthoc, adjust, alpha, confidence)
    blocks = _as_blocks(results, budget=budget, unit=unit, aggregate=aggregate, missing=missing)
    matrix = blocks.matrix
    n, k = matrix.shape
    unit_text = blocks.describe_unit()
    if n < 2:
        raise ValueError(
            f"a rank test needs at least 2 blocks, but there is {n} ({unit_text}). Fix: use "
            f"unit='benchmark_seed' to treat each seed as a block (say so when you report it), "
            f"or compare the algorithms on this benchmark with win_tie_loss(), which tests "
            f"over seeds."
        )
    posthoc, notes = _design_notes(blocks, posthoc)
    if copies is None:
        copies = results.copied_benchmarks() if isinstance(results, Results) else (
            BenchmarkReplicates())

    names = [str(c) for c in matrix.columns]
    sign = 1.0 if blocks.objective == "maximize" else -1.0
    oriented = matrix.to_numpy(dtype=float) * sign
    ranks = _stats.block_ranks(oriented)
    n_replicates = None
    if copies:
        labels = _block_replicates(blocks, copies)
        r = int(labels.max()) + 1 if labels.size else 0
        if r < n:
            # One ranked block per independent replicate: its blocks' mean ranks, re-ranked
            # (scale-free, as the ranks are); the mean of its scores for Wilcoxon's test and
            # the effect sizes.
            ranks = _stats.block_ranks(-replicate_means(ranks, labels))
            oriented = replicate_means(oriented, labels)
            n_replicates = r
            notes.append(_copies_note(copies, r, n))
            unit_text = f"{r} independent replicates of {unit_text}"
            if r < 2:
                raise ValueError(
                    f"a rank test needs at least 2 independent blocks, but the {n} blocks "
                    f"are {r} replicate ({_copies_note(copies, r, n).split(':')[0]}). Fix: "
                    f"add benchmarks that are not copies of each other.")
    fs = _stats.friedman_statistic(ranks)
    notes += _tie_notes(ranks, fs, posthoc)
    notes += _scale_notes(blocks, posthoc)
    mean_ranks = ranks.mean(axis=0)

    first, second = np.triu_indices(k, 1)
    posthoc_test = _posthoc_tests(posthoc, adjust, oriented, ranks, first, second)
    replicates = np.full(first.size, n if n_replicates is None else n_replicates,
                         dtype=np.int64)
    intervals, skipped = _effect_intervals(oriented, first, second, n_resamples,
                                           bootstrap_budget, confidence, seed)
    if skipped:
        notes.append(skipped)
    elif n_resamples > 0 and first.size and oriented.shape[0] >= 2:
        if oriented.shape[0] < _stats.CLIFF_MIN_BLOCKS:
            notes.append(f"Cliff's delta intervals need at least {_stats.CLIFF_MIN_BLOCKS} "
                         f"blocks to hold their level; with {oriented.shape[0]} they are NaN")
        notes.append(_stats.GAMMA_INTERVAL_NOTE)
    pairwise = _pairwise_table(names, oriented, mean_ranks, first, second, posthoc_test,
                               intervals, omnibus_ok=fs.p_value < alpha, alpha=alpha)
    pairwise["n_replicates"] = replicates
    pairwise.attrs["unit"] = unit_text
    order = cdd.order_positions(pd.Series(mean_ranks, index=names))
    average_ranks = pd.Series(mean_ranks, index=names, name="average_rank").loc[order]
    average_ranks.index.name = "algorithm"
    adjusted = posthoc_test.adjusted
    return FriedmanResult(
        statistic=fs.statistic,
        df=fs.df,
        p_value=fs.p_value,
        kendall_w=fs.kendall_w,
        iman_davenport=fs.iman_davenport,
        iman_davenport_df=fs.iman_davenport_df,
        iman_davenport_p_value=fs.iman_davenport_p_value,
        average_ranks=average_ranks,
        critical_difference=_stats.nemenyi_critical_difference(
            k, n if n_replicates is None else n_replicates, alpha),
        posthoc=posthoc,
        adjust=posthoc_test.adjust_text,
        pairwise=pairwise,
        p_values_adjusted=pd.DataFrame(adjusted, index=names, columns=names).loc[order, order],
        blocks=blocks,
        unit=unit_text,
        alpha=alpha,
        objective=blocks.objective,
        confidence=confidence,
        notes=tuple(notes),
        copies=copies,
        n_replicates=n_replicates,
    )


def _check_arguments(posthoc: str, adjust: str, alpha: float, confidence: float) -> None:
    if posthoc not in POSTHOCS:
        raise ValueError(f"posthoc must be one of {POSTHOCS}, got {posthoc!r}.")
    if adjust not in ("holm", "bonferroni"):
        raise ValueError(f"adjust must be 'holm' or 'bonferroni', got {adjust!r}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}.")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}.")


def _design_notes(blocks: BlockMatrix, posthoc: str) -> tuple[str, list[str]]:
    """The post-hoc family actually used and the caveats of the design (blocks, unit)."""
    n, k = blocks.matrix.shape
    notes = []
    if k == 2 and posthoc != "wilcoxon":
        notes.append(
            "two algorithms: Friedman's test is a sign test here; the pair is decided by the "
            "paired Wilcoxon signed-rank test over blocks instead of " + posthoc
        )
        posthoc = "wilcoxon"
    if n < 10:
        notes.append(
            f"only {n} blocks: Friedman's chi-square approximation is rough; prefer the "
            f"Iman-Davenport p-value, and read non-significance as lack of power"
        )
    if blocks.unit == "benchmark_seed":
        notes.append(
            "each benchmark x seed run is a block: seeds of one benchmark are treated as "
            "independent benchmarks, so the p-values overstate the evidence about new "
            "benchmarks"
        )
    if len(blocks.exclusions):
        notes.append(blocks.exclusion_summary())
    return posthoc, notes


def _tie_notes(ranks: np.ndarray, fs: _stats.FriedmanStatistic, posthoc: str) -> list[str]:
    """What ties in the blocks do to the test."""
    notes = []
    if fs.tie_correction <= 0:
        notes.append("every block is a complete tie: there is nothing to rank")
    tied_blocks = int(np.sum((np.diff(np.sort(ranks, axis=1), axis=1) == 0).any(axis=1)))
    if tied_blocks and posthoc == "nemenyi":
        notes.append(
            f"{tied_blocks} block(s) hold tied scores: ranks are tie-averaged and Q is "
            f"tie-corrected, but Nemenyi's CD assumes no ties (it is then conservative)"
        )
    return notes


@dataclass(frozen=True)
class _PosthocTests:
    """Every pair's post-hoc test as k x k matrices (``direction`` > 0: the row is better)."""

    raw: np.ndarray
    adjusted: np.ndarray
    statistic: np.ndarray
    direction: np.ndarray | None
    adjust_text: str
    gated: bool  # a pair may differ only when Friedman's test rejects (Demsar's protocol)


def _posthoc_tests(posthoc: str, adjust: str, oriented: np.ndarray, ranks: np.ndarray,
                   first: np.ndarray, second: np.ndarray) -> _PosthocTests:
    """Nemenyi's test on average ranks, or Wilcoxon's / Conover's with Holm or Bonferroni."""
    n, k = oriented.shape
    mean_ranks = ranks.mean(axis=0)
    if posthoc == "nemenyi":
        raw = _stats.nemenyi_p_values(mean_ranks, n)
        return _PosthocTests(raw, raw.copy(), np.abs(mean_ranks[:, None] - mean_ranks[None, :]),
                             None, "studentized range", gated=True)
    direction = None
    if posthoc == "wilcoxon":
        raw, statistic, direction = _stats.wilcoxon_p_values(oriented)
    else:
        raw = _stats.conover_p_values(ranks)
        statistic = np.abs(mean_ranks[:, None] - mean_ranks[None, :]) * n
    adjusted = np.ones((k, k))
    if first.size:
        flat = adjust_p_values(raw[first, second], adjust)
        adjusted[first, second] = adjusted[second, first] = flat
    return _PosthocTests(raw, adjusted, statistic, direction, adjust,
                         gated=posthoc == "conover")


def _block_replicates(blocks: BlockMatrix, copies: BenchmarkReplicates) -> np.ndarray:
    """The replicate of each block: its benchmark's (with its seed, for blocks of runs)."""
    index = blocks.matrix.index
    if isinstance(index, pd.MultiIndex):
        bench = index.get_level_values(0).astype(str)
        seed = index.get_level_values(1).astype(str)
    else:
        bench, seed = index.astype(str), None
    names = list(dict.fromkeys(bench))
    of_bench = dict(zip(names, copies.labels(names)))
    labels = np.array([of_bench[x] for x in bench], dtype=np.int64)
    if seed is None:
        return labels
    return pd.factorize(pd.Series(list(zip(labels, seed))))[0].astype(np.int64)


def _copies_note(replicates: BenchmarkReplicates, r: int, n: int) -> str:
    """What the rank tests do with blocks that are not independent replicates."""
    parts = []
    if replicates.copies:
        parts.append(f"runs of {', '.join(sorted(replicates.copies))} are identical on some "
                     f"benchmarks")
    if replicates.shared:
        parts.append(f"benchmarks with the same {replicates.by} are one replicate "
                     f"({len(replicates.shared)} group(s) of several)")
    return (f"{' and '.join(parts)}: the {n} blocks are {r} independent replicates, and every "
            f"test counts each once (Friedman's, Nemenyi's and Conover's tests rank each "
            f"replicate by its blocks' mean ranks, Wilcoxon's test and the effect sizes take "
            f"the mean of its scores; the table's n_replicates)")


def _pairwise_table(names: list[str], oriented: np.ndarray, mean_ranks: np.ndarray,
                    first: np.ndarray, second: np.ndarray, tests: _PosthocTests,
                    intervals: dict[str, tuple[np.ndarray, np.ndarray]], *, omnibus_ok: bool,
                    alpha: float) -> pd.DataFrame:
    """One row per pair: ranks, the test, the decision and effect sizes with intervals."""
    delta, gamma = _stats.effect_size_matrices(oriented)
    if tests.direction is not None:
        lead = tests.direction[first, second]
    else:
        lead = mean_ranks[second] - mean_ranks[first]  # positive: a (first) ranks better
    significant = ((tests.adjusted[first, second] < alpha) & (omnibus_ok or not tests.gated)
                   & (lead != 0))
    name_array = np.array(names, dtype=object)
    better = np.where(lead > 0, name_array[first], name_array[second])
    return pd.DataFrame(
        {
            "a": name_array[first],
            "b": name_array[second],
            "rank_a": mean_ranks[first],
            "rank_b": mean_ranks[second],
            "statistic": tests.statistic[first, second],
            "p_value": tests.raw[first, second],
            "p_value_adjusted": tests.adjusted[first, second],
            "adjustment": tests.adjust_text,
            "significant": significant,
            "better": np.where(significant, better, None),
            "cliffs_delta": delta[first, second],
            "cliffs_delta_lower": intervals["cliffs_delta"][0],
            "cliffs_delta_upper": intervals["cliffs_delta"][1],
            "akinshin_gamma": gamma[first, second],
            "akinshin_gamma_lower": intervals["akinshin_gamma"][0],
            "akinshin_gamma_upper": intervals["akinshin_gamma"][1],
        }
    )


def _effect_intervals(
    oriented: np.ndarray, first: np.ndarray, second: np.ndarray, n_resamples: int,
    budget: float | None, confidence: float, seed: int | None,
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], str | None]:
    """Intervals of Cliff's delta and Akinshin's gamma for every pair, name-free.

    See :func:`benchverdict.ranks._stats.bootstrap_effect_intervals`: Cliff's delta
    from its U-statistic (holds its level), gamma by a percentile bootstrap (does not,
    with few blocks; the result's notes say so).

    The blocks are put in a canonical order and every pair in a canonical
    orientation, both fixed by the values (:mod:`benchverdict.stats.symmetry`);
    each unordered pair's interval is computed once and mirrored when the
    pair comes the other way round. So renaming or reordering algorithms or
    benchmarks, negating scores with the objective flipped, or any
    increasing transform of the scores leaves every interval unchanged, and
    the interval for (b, a) is exactly minus the one for (a, b).

    Returns ``({"cliffs_delta": (lower, upper), "akinshin_gamma": (lower, upper)}, note)``
    with NaN intervals and a note when they were skipped for cost.
    """
    n, k = oriented.shape
    n_pairs = first.size
    empty = {"cliffs_delta": (np.full(n_pairs, np.nan), np.full(n_pairs, np.nan)),
             "akinshin_gamma": (np.full(n_pairs, np.nan), np.full(n_pairs, np.nan))}
    if n_resamples <= 0 or n < 2 or n_pairs == 0:
        return empty, None
    work = float(n_pairs) * n_resamples * n
    if budget is not None and work > budget:
        return empty, (
            f"effect-size intervals were not computed: {n_pairs:,} pairs x {n_resamples} "
            f"resamples x {n} blocks = {work:.2g} exceeds the bootstrap budget {budget:.2g}; "
            f"pass bootstrap_budget=None (or a larger value) to compute them"
        )
    rows = canonical_block_order(oriented)
    canonical = oriented[rows]
    keys = [(tuple(np.sort(canonical[:, c]).tolist()), tuple(canonical[:, c].tolist()))
            for c in range(k)]
    place = np.empty(k, dtype=np.int64)
    place[sorted(range(k), key=keys.__getitem__)] = np.arange(k)
    swap = place[first] > place[second]
    lead = np.where(swap, second, first)
    trail = np.where(swap, first, second)
    pairs = list(zip(lead.tolist(), trail.tolist()))
    found = _stats.bootstrap_effect_intervals(
        canonical, pairs, n_resamples=n_resamples, confidence=confidence,
        rng=np.random.default_rng(seed),
        # Long bootstraps show a bar, but only where someone watches (stderr a terminal).
        progress=work > 2e7 and stderr_is_terminal(),
    )
    out = {}
    for name in ("cliffs_delta", "akinshin_gamma"):
        low = np.array([found[p][name][0] for p in pairs])
        high = np.array([found[p][name][1] for p in pairs])
        out[name] = (np.where(swap, -high, low), np.where(swap, -low, high))
    return out, None




def _scale_notes(blocks: BlockMatrix, posthoc: str) -> list[str]:
    """What the ranks depend on beyond the order of the scores (said in every output)."""
    notes = []
    if blocks.unit == "benchmark":
        notes.append(
            f"each block's score is the {blocks.aggregate} over its seeds, taken before "
            f"ranking: a choice (unit='benchmark_seed' ranks every run instead); with one "
            f"seed per block the rank tests are unchanged by any increasing transform of "
            f"the scores, with several the {blocks.aggregate} can reorder a block"
        )
    if posthoc == "wilcoxon":
        notes.append(
            "Wilcoxon's signed-rank test ranks the differences between two algorithms' "
            "scores, so unlike Friedman, Nemenyi and Conover it depends on the scores' "
            "scale: unchanged by increasing affine transforms, not by every increasing "
            "transform"
        )
    return notes


def _as_blocks(
    results: Results | BlockMatrix,
    *,
    budget: float | None,
    unit: str,
    aggregate: str,
    missing: str,
) -> BlockMatrix:
    if isinstance(results, BlockMatrix):
        return results
    if not isinstance(results, Results):
        raise TypeError(
            f"expected a benchverdict Results or BlockMatrix, got {type(results).__name__}. "
            f"Build one with Results.from_frame(df, algorithm=..., seed=..., score=..., "
            f"objective=...)."
        )
    return results.blocks(unit=unit, aggregate=aggregate, budget=budget,  # type: ignore[arg-type]
                          missing=missing)  # type: ignore[arg-type]


def _p(p: float) -> str:
    if p != p:  # nan
        return "nan"
    return f"{p:.2e}" if p < 1e-3 else f"{p:.3f}"


def _none(x: float) -> float | None:
    return None if x != x else float(x)
