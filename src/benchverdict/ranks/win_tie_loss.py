"""Win/tie/loss counts per pair of algorithms, and a sign test across benchmarks.

On every benchmark, a two-sample test over seeds (Mann–Whitney U, or a
permutation test on the difference of means) decides whether ``a`` wins,
loses, or ties with ``b`` at level ``alpha``. The counts over benchmarks
are the classic win/tie/loss table. The inference across benchmarks is the
sign test (Demšar 2006 §3.1.3): under the null that neither algorithm is
better, each benchmark that is decided is a win for ``a`` with probability
1/2, independently; ties are left out (they carry no direction).

Assumptions: seeds within a benchmark are independent replicates; the
per-benchmark tests only classify benchmarks (they are not adjusted for
multiplicity, and their errors make the counts noisier, not the sign test
invalid); benchmarks are independent of each other. Where they are not
(runs copied between benchmarks, or a declared group:
:mod:`benchverdict.replicates`), each group is one replicate: it counts as a
win when the pair's wins outnumber its losses on the group's benchmarks, a
loss when the losses do, else a tie. Under the null each independent group's
decisions are symmetric in ``a`` and ``b``, so its majority is a win or a
loss with equal probability and the sign test holds on the replicates.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from scipy import special, stats

from benchverdict._bulk import paused_gc
from benchverdict._plain_text import plain_text
from benchverdict._repr import ResultText
from benchverdict.exclusions import concat_exclusions, empty_exclusions
from benchverdict.plotting import (
    REPORT_MAX_WIDTH,
    SINGLE_COLUMN,
    label_inches,
    new_axes,
    shorten,
    theme,
)
from benchverdict.replicates import BenchmarkReplicates, joins, replicate_means
from benchverdict.results import Results
from benchverdict.stats.symmetry import compare_samples
from benchverdict.verdict import Effect, Evidence, Scope, Verdict, register_method

register_method(
    "ranks.sign_test", "ranks", "win/tie/loss sign test", paired=True,
    unit="benchmark (win, tie or loss decided over its seeds)", aspect="centre",
    assumptions="independent benchmarks; per benchmark a two-sided test over seeds decides "
                "win, tie or loss", error_control="per comparison", votes=True, scale="ranks")

Test = Literal["mannwhitney", "permutation"]


#: Pairs drawn by :meth:`WinTieLossResult.plot` by default (the most decided ones).
MAX_PLOTTED_PAIRS = 40


@dataclass(repr=False, frozen=True)
class WinTieLossResult(ResultText):
    """Per-benchmark decisions, counts per pair and sign tests.

    Attributes
    ----------
    per_benchmark : pandas.DataFrame
        One row per (benchmark, pair): ``benchmark, a, b, n_a, n_b, mean_a,
        mean_b, p_value, outcome`` with outcome ``"win"`` (``a`` better),
        ``"loss"`` or ``"tie"``.
    table : pandas.DataFrame
        One row per pair: ``a, b, wins, ties, losses, n_benchmarks,
        n_replicates, replicate_wins, replicate_losses, sign_test_p_value,
        net_win_share`` (``(wins - losses) / decided`` over the replicates,
        positive favours ``a``) with its Clopper–Pearson interval. Without
        copies or declared groups every benchmark is a replicate and the
        replicate counts equal the benchmark counts.
    test : str
    alpha : float
    unit : str
    objective : str
    budget : float or None
    confidence : float
    excluded : pandas.DataFrame
        Runs left out because they have no incumbent at ``budget`` (they
        started later): ``unit`` ``"run"`` records with the columns of
        :data:`~benchverdict.exclusions.EXCLUSION_COLUMNS` (``algorithm``,
        ``benchmark``, ``seed``, ``budget``, ``reason``). Their cells are
        tested on the remaining seeds (``n_a``, ``n_b``).
    """

    per_benchmark: pd.DataFrame
    table: pd.DataFrame
    test: str
    alpha: float
    unit: str
    objective: str
    budget: float | None
    confidence: float
    excluded: pd.DataFrame = field(default_factory=empty_exclusions)

    def _summary_lines(self) -> list[str]:
        from benchverdict._repr import names

        at = "final budget" if self.budget is None else f"budget {self.budget:g}"
        counts = [f"{r.a} vs {r.b} {r.wins}/{r.ties}/{r.losses} (p = {r.sign_test_p_value:.2g})"
                  for r in self.table.itertuples(index=False)]
        return [f"wins/ties/losses: {len(self.table)} pair(s); {self.test} per benchmark, "
                f"sign test; alpha = {self.alpha:g}; {at}", self.unit,
                names(counts, 3) or "no pairs", f"{len(self.excluded)} row(s) excluded"]

    def summary(self) -> str:
        """The counts and sign tests as text."""
        lines = [f"Win/tie/loss ({self.test} over seeds per benchmark, alpha = {self.alpha:g}; "
                 f"sign test across benchmarks); {self.unit}; objective: {self.objective}"]
        if len(self.excluded):
            lines.append(f"  left out: {len(self.excluded)} run(s) without an incumbent at "
                         f"budget {self.budget:g} (see .excluded)")
        for a, b, wins, ties, losses, p in zip(*(self.table[c].tolist() for c in (
                "a", "b", "wins", "ties", "losses", "sign_test_p_value"))):
            lines.append(f"  {a} vs {b}: {wins} wins, {ties} ties, {losses} losses; "
                         f"sign test p = {p:.3g}")
        return "\n".join(lines)

    def verdicts(self) -> list[Verdict]:
        """One verdict per pair from the sign test across benchmarks."""
        scope = (Scope(budget_low=self.budget, budget_high=self.budget)
                 if self.budget is not None else Scope())
        columns = [self.table[c].tolist() for c in (
            "a", "b", "wins", "ties", "losses", "n_benchmarks", "sign_test_p_value",
            "net_win_share", "net_win_share_lower", "net_win_share_upper", "n_replicates",
            "replicate_wins", "replicate_losses")]
        invariance = ("increasing transforms" if self.test == "mannwhitney"
                      else "increasing affine transforms")
        left_out = len(self.excluded)
        out = []
        with paused_gc():
            for (a, b, wins, ties, losses, n_b, p, share, low, high, n_rep, r_wins,
                 r_losses) in zip(*columns):
                significant = p < self.alpha and r_wins != r_losses
                outcome = ("a" if r_wins > r_losses else "b") if significant else "inconclusive"
                tested = (f"sign test on the {wins + losses} decided benchmarks" if n_rep == n_b
                          else f"sign test on its {n_rep} independent replicates (benchmarks "
                               f"joined by copied runs or a declared group count once, by "
                               f"the majority of their decisions): {r_wins} won, "
                               f"{r_losses} lost")
                out.append(
                    Verdict(
                        a=a, b=b, outcome=outcome, method="ranks.sign_test", scope=scope,
                        evidence=Evidence("p_value", float(p), self.alpha),
                        objective=self.objective, unit=self.unit, n=int(n_rep),
                        explanation=(f"{a} won {wins}, tied {ties}, lost {losses} of {n_b} "
                                     f"benchmarks ({self.test} over seeds); {tested}"),
                        effect=Effect("net win share", float(share), _none(low), _none(high),
                                      self.confidence),
                        details={"wins": int(wins), "ties": int(ties), "losses": int(losses),
                                 "test": self.test, "runs_left_out": left_out,
                                 "invariant_under": invariance},
                    )
                )
        return out

    def plot(self, ax: Axes | None = None, *, max_pairs: int | None = MAX_PLOTTED_PAIRS) -> Axes:
        """Stacked horizontal bars: wins, ties and losses of ``a`` against ``b`` per pair.

        With more than ``max_pairs`` pairs only the ``max_pairs`` with the
        smallest sign-test p-values are drawn (the title says how many of how
        many); every pair is in :attr:`table`. ``None`` draws all.
        """
        t = self.table
        shown = len(t)
        if max_pairs is not None and len(t) > max_pairs:
            t = t.sort_values(["sign_test_p_value", "a", "b"], kind="stable").head(max_pairs)
            shown = max_pairs
        labels = [f"{shorten(a, 18)} vs {shorten(b, 18)}" for a, b in zip(t["a"], t["b"])]
        # Room for the pair names: long names had squeezed the bars to nothing.
        longest = max((len(label) for label in labels), default=0)
        width = min(REPORT_MAX_WIDTH, max(SINGLE_COLUMN, 2.6 + label_inches(longest)))
        ax = new_axes(ax, width=width, height=0.35 * len(t) + 1.0)
        with theme():
            y = np.arange(len(t))[::-1]
            colors = {"wins": "#0173b2", "ties": "#bbbbbb", "losses": "#de8f05"}
            left = np.zeros(len(t))
            for column, color in colors.items():
                values = t[column].to_numpy(dtype=float)
                ax.barh(y, values, left=left, color=color, label=column, height=0.7)
                left += values
            ax.set_yticks(y, labels)
            for yi, total, p in zip(y, left, t["sign_test_p_value"]):
                ax.text(total, yi, f"  p = {p:.2g}", va="center", fontsize=8)
            ax.set_xlabel("benchmarks")
            ax.legend(ncols=3, loc="lower center", bbox_to_anchor=(0.5, 1.0))
            if shown < len(self.table):
                ax.set_title(f"{shown} of {len(self.table):,} pairs: the smallest sign-test "
                             f"p-values (all pairs are in the table)", fontsize=8, pad=18)
        return plain_text(ax)


def win_tie_loss(
    results: Results,
    *,
    budget: float | None = None,
    test: Test = "mannwhitney",
    alpha: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int = 9999,
    seed: int | None = 0,
    copies: BenchmarkReplicates | None = None,
) -> WinTieLossResult:
    """Count wins, ties and losses per pair over benchmarks, and sign-test them.

    Parameters
    ----------
    results : Results
        Needs at least 2 seeds per (algorithm, benchmark).
    budget : float, optional
        Compare incumbents at this budget (default: each run's final one).
    test : {"mannwhitney", "permutation"}
        The per-benchmark two-sample test over seeds (two-sided).
    alpha : float
        Level of the per-benchmark tests and of the sign test.
    confidence : float
        Confidence level of the net-win-share interval.
    n_resamples, seed
        For the permutation test.
    copies : BenchmarkReplicates, optional
        Groups of benchmarks that count once in the sign test (by default the
        data's copied runs, :meth:`Results.copied_benchmarks`; add declared
        groups with :func:`~benchverdict.replicates.pair_replicates`).

    Returns
    -------
    WinTieLossResult

    Examples
    --------
    >>> from benchverdict.ranks._examples import small_runs
    >>> wtl = win_tie_loss(small_runs(n_seeds=6))
    >>> wtl.table.loc[wtl.table["b"] == "RS", ["a", "wins", "ties", "losses"]]
        a  wins  ties  losses
    1  HB     1     6       0
    2  PB     6     1       0
    """
    if test not in ("mannwhitney", "permutation"):
        raise ValueError(f"test must be 'mannwhitney' or 'permutation', got {test!r}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}.")
    if not isinstance(results, Results):
        raise TypeError(f"expected a benchverdict Results, got {type(results).__name__}.")
    view = results.incumbents(budget)
    runs = view.table
    sign = results.sign
    algorithms = results.algorithms
    benchmarks = results.benchmarks
    groups = _cells(runs, algorithms, benchmarks, sign)
    thin = [(a, b, len(v)) for (a, b), v in groups.items() if len(v) < 2]
    missing = [(a, b) for a in algorithms for b in benchmarks if (a, b) not in groups]
    if thin or missing:
        examples = ", ".join(f"({a}, {b}): {n} seed(s)" for a, b, n in thin[:5])
        examples += ", ".join(f"({a}, {b}): no run" for a, b in missing[:5])
        raise ValueError(
            f"win/tie/loss tests over seeds on each benchmark, so every algorithm needs at "
            f"least 2 seeds on every benchmark; not so for {len(thin) + len(missing)} cell(s), "
            f"e.g. {examples}. Fix: use friedman() on benchmarks as blocks, or subset the "
            f"results to complete benchmarks."
        )
    late = view.exclusions[view.exclusions["unit"] == "run"]
    excluded = concat_exclusions([late.assign(analysis="ranks", step="win/tie/loss")])
    k, m = len(algorithms), len(benchmarks)
    first, second = np.triu_indices(k, 1)
    n_pairs = first.size
    p_values = np.ones((n_pairs, m))
    directions = np.zeros((n_pairs, m))
    for t, bench in enumerate(benchmarks):
        cells = [groups[(a, bench)] for a in algorithms]
        if test == "mannwhitney":
            pv, dr = _mann_whitney_pairs(cells, first, second)
        else:
            pv, dr = _permutation_pairs(cells, first, second, n_resamples, seed)
        p_values[:, t], directions[:, t] = pv, dr
    outcome_code = np.where((p_values < alpha) & (directions != 0),
                            np.where(directions > 0, 0, 2), 1)  # 0 win, 1 tie, 2 loss
    names = np.array(algorithms, dtype=object)
    means = np.array([[float(np.mean(groups[(a, b)]) * sign) for b in benchmarks]
                      for a in algorithms])
    sizes = np.array([[len(groups[(a, b)]) for b in benchmarks] for a in algorithms])
    pair_codes = np.repeat(np.arange(n_pairs), m)
    bench_codes = np.tile(np.arange(m), n_pairs)
    per_benchmark = pd.DataFrame({
        "benchmark": pd.Categorical.from_codes(bench_codes, categories=benchmarks),
        "a": pd.Categorical.from_codes(first[pair_codes], categories=algorithms),
        "b": pd.Categorical.from_codes(second[pair_codes], categories=algorithms),
        "n_a": sizes[first].ravel(),
        "n_b": sizes[second].ravel(),
        "mean_a": means[first].ravel(),
        "mean_b": means[second].ravel(),
        "p_value": p_values.ravel(),
        "outcome": pd.Categorical.from_codes(outcome_code.ravel(),
                                             categories=["win", "tie", "loss"]),
    })
    wins = (outcome_code == 0).sum(axis=1)
    ties = (outcome_code == 1).sum(axis=1)
    losses = (outcome_code == 2).sum(axis=1)
    if copies is None:
        copies = results.copied_benchmarks()
    labels = copies.labels(benchmarks)
    if joins(labels):
        # A group of benchmarks is one replicate: its majority decision (the same rule
        # for every pair, so the replicates are the same for all of them).
        net = replicate_means((outcome_code == 0).astype(float).T
                              - (outcome_code == 2).astype(float).T, labels).T
        n_replicates = net.shape[1]
        replicate_wins, replicate_losses = (net > 0).sum(axis=1), (net < 0).sum(axis=1)
    else:
        n_replicates, replicate_wins, replicate_losses = m, wins, losses
    sign_p, share, low, high = _sign_tests(replicate_wins, replicate_losses, confidence)
    table = pd.DataFrame({
        "a": names[first], "b": names[second], "wins": wins, "ties": ties, "losses": losses,
        "n_benchmarks": np.full(n_pairs, m), "n_replicates": np.full(n_pairs, n_replicates),
        "replicate_wins": replicate_wins, "replicate_losses": replicate_losses,
        "sign_test_p_value": sign_p, "net_win_share": share, "net_win_share_lower": low,
        "net_win_share_upper": high,
    })
    at = "final budget" if budget is None else f"budget {float(budget):g}"
    unit = (f"{len(benchmarks)} benchmarks (unit: benchmark; each decided by a {test} test "
            f"over seeds; {at})")
    if n_replicates < m:
        unit = (f"{n_replicates} independent replicates of {m} benchmarks (unit: a benchmark "
                f"or a group joined by copied runs or a declared group, decided by the "
                f"majority of its benchmarks' {test} tests over seeds; {at})")
    table.attrs["unit"] = unit
    per_benchmark.attrs["unit"] = unit
    return WinTieLossResult(per_benchmark, table, test, alpha, unit, results.objective,
                            None if budget is None else float(budget), confidence, excluded)


def _cells(runs: pd.DataFrame, algorithms: list[str], benchmarks: list[str],
           sign: float) -> dict[tuple[str, str], np.ndarray]:
    """Oriented scores per (algorithm, benchmark) cell (one sort, no per-group pandas)."""
    alg = pd.Categorical(runs["algorithm"].astype(str), categories=algorithms).codes
    bench = pd.Categorical(runs["benchmark"].astype(str), categories=benchmarks).codes
    scores = runs["score"].to_numpy(dtype=float) * sign
    key = alg.astype(np.int64) * len(benchmarks) + bench
    order = np.argsort(key, kind="stable")
    key, scores = key[order], scores[order]
    starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    out = {}
    for start, stop in zip(starts, [*starts[1:], key.size]):
        a, b = divmod(int(key[start]), len(benchmarks))
        out[(algorithms[a], benchmarks[b])] = scores[start:stop]
    return out


def _sign_tests(wins: np.ndarray, losses: np.ndarray, confidence: float):
    """Sign-test p-values and net-win shares with Clopper-Pearson intervals, per pair.

    Computed once per distinct (wins, decided) count: there are few, so
    thousands of algorithms (half a million pairs) cost no more than a few.
    """
    decided = wins + losses
    p = np.ones(wins.size)
    share = np.zeros(wins.size)
    low = np.full(wins.size, np.nan)
    high = np.full(wins.size, np.nan)
    width = int(decided.max(initial=0)) + 1
    distinct, inverse = np.unique(wins.astype(np.int64) * width + decided, return_inverse=True)
    for row, (w, d) in enumerate(zip(*np.divmod(distinct, width))):
        w, d = int(w), int(d)
        if d == 0:
            continue
        where = inverse == row
        test = stats.binomtest(w, d, 0.5)
        ci = test.proportion_ci(confidence, method="exact")
        p[where] = float(test.pvalue)
        share[where] = (2 * w - d) / d
        low[where], high[where] = 2 * ci.low - 1, 2 * ci.high - 1
    return p, share, low, high


def _mann_whitney_pairs(cells: list[np.ndarray], first: np.ndarray, second: np.ndarray):
    """Two-sided Mann-Whitney tests of ``cells[i]`` against ``cells[j]`` for every pair.

    Each p-value is what ``scipy.stats.mannwhitneyu(x, y)`` returns for that
    pair alone (scipy 1.17, ``method="auto"``, continuity correction): the
    exact null distribution when a sample has at most 8 values and there
    are no ties, else the tie-corrected normal approximation. Computed for
    all pairs at once (U by broadcasting comparisons), so millions of tests
    take seconds. Direction: ``U1 - n1 n2 / 2`` (positive: the first sample
    is larger). A pair whose values are all equal gets ``p = 1`` and no
    direction.
    """
    p_values = np.ones(first.size)
    directions = np.zeros(first.size)
    size = np.array([c.size for c in cells])
    for n1 in np.unique(size):
        for n2 in np.unique(size):
            chosen = np.flatnonzero((size[first] == n1) & (size[second] == n2))
            if not chosen.size:
                continue
            stack1 = np.stack([cells[i] for i in np.flatnonzero(size == n1)])
            stack2 = np.stack([cells[j] for j in np.flatnonzero(size == n2)])
            row1 = np.full(len(cells), -1)
            row1[size == n1] = np.arange(stack1.shape[0])
            row2 = np.full(len(cells), -1)
            row2[size == n2] = np.arange(stack2.shape[0])
            null_sf = _mwu_null_sf(int(n1), int(n2)) if min(n1, n2) <= 8 else None
            step = max(1, 4_000_000 // int(n1 * n2 + n1 + n2))
            for start in range(0, chosen.size, step):
                rows = chosen[start:start + step]
                pv, dr = _mann_whitney_rows(stack1[row1[first[rows]]],
                                            stack2[row2[second[rows]]], null_sf)
                p_values[rows], directions[rows] = pv, dr
    return p_values, directions


def _mann_whitney_rows(x: np.ndarray, y: np.ndarray, null_sf: np.ndarray | None):
    """Two-sided Mann-Whitney p-values and directions for rows of equal-size samples."""
    m, n1 = x.shape
    n2 = y.shape[1]
    u1 = ((x[:, :, None] > y[:, None, :]).sum(axis=(1, 2))
          + 0.5 * (x[:, :, None] == y[:, None, :]).sum(axis=(1, 2)))
    pooled = np.sort(np.concatenate([x, y], axis=1), axis=1)
    n = n1 + n2
    same = pooled[:, 1:] == pooled[:, :-1]
    constant = same.all(axis=1)
    tied = same.any(axis=1)
    # tie term sum(t^3 - t) over tie groups, as sum over values of t^2 - 1
    group = np.cumsum(np.concatenate([np.ones((m, 1), bool), ~same], axis=1), axis=1) - 1
    flat = (group + (np.arange(m) * n)[:, None]).ravel()
    sizes = np.bincount(flat, minlength=m * n).astype(float)
    tie_term = (sizes[flat] ** 2 - 1.0).reshape(m, n).sum(axis=1)
    u = np.maximum(u1, n1 * n2 - u1)
    p = np.ones(m)
    exact = ~tied if null_sf is not None else np.zeros(m, dtype=bool)
    if exact.any():
        p[exact] = 2 * null_sf[np.rint(u[exact]).astype(np.int64)]
    normal = ~exact & ~constant
    if normal.any():
        s = np.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term[normal] / (n * (n - 1))))
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (u[normal] - n1 * n2 / 2 - 0.5) / s
        p[normal] = 2 * special.ndtr(-z)
    p = np.clip(p, 0.0, 1.0)
    p[constant] = 1.0
    direction = np.where(constant, 0.0, u1 - n1 * n2 / 2)
    return p, direction


@functools.lru_cache(maxsize=64)
def _mwu_null_sf(n1: int, n2: int) -> np.ndarray:
    """``P(U >= u)`` for ``u = 0..n1 n2`` under the null (no ties), by exact counting.

    ``c(a, b, u)``, the number of orderings of ``a`` x's and ``b`` y's with
    ``u`` (x, y) pairs where x is larger, follows the recursion on the largest
    value: ``c(a, b, u) = c(a - 1, b, u - b) + c(a, b - 1, u)``.
    """
    table = [[None] * (n2 + 1) for _ in range(n1 + 1)]
    for a in range(n1 + 1):
        for b in range(n2 + 1):
            counts = np.zeros(a * b + 1)
            if a == 0 or b == 0:
                counts[0] = 1.0
            else:
                counts[b:] += table[a - 1][b]
                counts[: (a * (b - 1)) + 1] += table[a][b - 1]
            table[a][b] = counts
    counts = table[n1][n2]
    return np.cumsum(counts[::-1])[::-1] / counts.sum()


def _permutation_pairs(cells: list[np.ndarray], first: np.ndarray, second: np.ndarray,
                       n_resamples: int, seed: int | None):
    """Two-sided permutation tests on the difference of means, one per pair.

    Each test is run with the two samples in an order fixed by their values
    and a random stream fixed by them and ``seed``, then mirrored for
    the other order: the p-value cannot depend on names or input order.
    """
    import hashlib

    p_values = np.ones(first.size)
    directions = np.zeros(first.size)
    base = np.random.SeedSequence().entropy if seed is None else int(seed)
    for row, (i, j) in enumerate(zip(first.tolist(), second.tolist())):
        x, y = cells[i], cells[j]
        both = np.concatenate([x, y])
        if np.ptp(both) == 0:
            continue
        order = compare_samples(x, y)
        u, v = (x, y) if order <= 0 else (y, x)
        digest = hashlib.blake2b(np.sort(u).tobytes() + b"|" + np.sort(v).tobytes(),
                                 digest_size=8).digest()
        seed = np.random.SeedSequence([base, int.from_bytes(digest, "little")])
        res = stats.permutation_test(
            (u, v), lambda s, t, axis: np.mean(s, axis=axis) - np.mean(t, axis=axis),
            vectorized=True, n_resamples=n_resamples, alternative="two-sided",
            rng=np.random.default_rng(seed),
        )
        p_values[row] = res.pvalue
        directions[row] = res.statistic if order <= 0 else -res.statistic
    return p_values, directions


def _none(x: float) -> float | None:
    return None if x != x else float(x)
