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
invalid); benchmarks are independent of each other.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from scipy import stats

from benchverdict.plotting import new_axes, theme
from benchverdict.results import Results
from benchverdict.verdict import Effect, Evidence, Scope, Verdict

Test = Literal["mannwhitney", "permutation"]


@dataclass(frozen=True)
class WinTieLossResult:
    """Per-benchmark decisions, counts per pair and sign tests.

    Attributes
    ----------
    per_benchmark : pandas.DataFrame
        One row per (benchmark, pair): ``benchmark, a, b, n_a, n_b, mean_a,
        mean_b, pvalue, outcome`` with outcome ``"win"`` (``a`` better),
        ``"loss"`` or ``"tie"``.
    table : pandas.DataFrame
        One row per pair: ``a, b, wins, ties, losses, n_benchmarks,
        sign_test_pvalue, net_win_share`` (``(wins - losses) / decided``,
        positive favours ``a``) with its Clopper–Pearson interval.
    test : str
    alpha : float
    unit : str
    objective : str
    budget : float or None
    """

    per_benchmark: pd.DataFrame
    table: pd.DataFrame
    test: str
    alpha: float
    unit: str
    objective: str
    budget: float | None
    level: float

    def summary(self) -> str:
        """The counts and sign tests as text."""
        lines = [f"Win/tie/loss ({self.test} over seeds per benchmark, alpha = {self.alpha:g}; "
                 f"sign test across benchmarks); {self.unit}; objective: {self.objective}"]
        for r in self.table.itertuples():
            lines.append(f"  {r.a} vs {r.b}: {r.wins} wins, {r.ties} ties, {r.losses} losses; "
                         f"sign test p = {r.sign_test_pvalue:.3g}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def verdicts(self) -> list[Verdict]:
        """One verdict per pair from the sign test across benchmarks."""
        scope = (Scope(budget_low=self.budget, budget_high=self.budget)
                 if self.budget is not None else Scope())
        out = []
        for r in self.table.itertuples():
            significant = r.sign_test_pvalue < self.alpha and r.wins != r.losses
            outcome = ("a" if r.wins > r.losses else "b") if significant else "inconclusive"
            out.append(
                Verdict(
                    a=r.a, b=r.b, outcome=outcome, method="ranks.sign_test",
                    scope=scope,
                    evidence=Evidence("p_value", float(r.sign_test_pvalue), self.alpha),
                    objective=self.objective, unit=self.unit, n=int(r.n_benchmarks),
                    explanation=(f"{r.a} won {r.wins}, tied {r.ties}, lost {r.losses} of "
                                 f"{r.n_benchmarks} benchmarks ({self.test} over seeds); sign "
                                 f"test on the {r.wins + r.losses} decided benchmarks"),
                    effect=Effect("net win share", float(r.net_win_share),
                                  _none(r.net_win_share_low), _none(r.net_win_share_high),
                                  self.level),
                    details={"wins": int(r.wins), "ties": int(r.ties), "losses": int(r.losses),
                             "test": self.test},
                )
            )
        return out

    def plot(self, ax: Axes | None = None) -> Axes:
        """Stacked horizontal bars: wins, ties and losses of ``a`` against ``b`` per pair."""
        t = self.table
        ax = new_axes(ax, height=0.35 * len(t) + 1.0)
        with theme():
            y = np.arange(len(t))[::-1]
            colors = {"wins": "#0173b2", "ties": "#bbbbbb", "losses": "#de8f05"}
            left = np.zeros(len(t))
            for column, color in colors.items():
                values = t[column].to_numpy(dtype=float)
                ax.barh(y, values, left=left, color=color, label=column, height=0.7)
                left += values
            ax.set_yticks(y, [f"{a} vs {b}" for a, b in zip(t["a"], t["b"])])
            for yi, total, p in zip(y, left, t["sign_test_pvalue"]):
                ax.text(total, yi, f"  p = {p:.2g}", va="center", fontsize=8)
            ax.set_xlabel("benchmarks")
            ax.legend(ncols=3, loc="lower center", bbox_to_anchor=(0.5, 1.0))
        return ax


def win_tie_loss(
    results: Results,
    *,
    budget: float | None = None,
    test: Test = "mannwhitney",
    alpha: float = 0.05,
    level: float = 0.95,
    n_resamples: int = 9999,
    random_state: int | None = 0,
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
    level : float
        Confidence level of the net-win-share interval.
    n_resamples, random_state
        For the permutation test.

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
    runs = results.final() if budget is None else results.at_budget(budget)
    sign = results.sign
    algorithms = results.algorithms
    benchmarks = results.benchmarks
    groups = {
        (str(a), str(b)): g["score"].to_numpy(dtype=float) * sign
        for (a, b), g in runs.groupby(["algorithm", "benchmark"], observed=True)
    }
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
    rng = np.random.default_rng(random_state)
    rows = []
    for a, b in itertools.combinations(algorithms, 2):
        xs = [groups[(a, bench)] for bench in benchmarks]
        ys = [groups[(b, bench)] for bench in benchmarks]
        pvalues, directions = _two_sample_batch(xs, ys, test, n_resamples, rng)
        for bench, x, y, p, direction in zip(benchmarks, xs, ys, pvalues, directions):
            outcome = "tie"
            if p < alpha and direction != 0:
                outcome = "win" if direction > 0 else "loss"
            rows.append({"benchmark": bench, "a": a, "b": b, "n_a": len(x), "n_b": len(y),
                         "mean_a": float(np.mean(x) * sign), "mean_b": float(np.mean(y) * sign),
                         "pvalue": float(p), "outcome": outcome})
    per_benchmark = pd.DataFrame(rows)
    summary = []
    for (a, b), g in per_benchmark.groupby(["a", "b"], sort=False):
        wins = int((g["outcome"] == "win").sum())
        losses = int((g["outcome"] == "loss").sum())
        ties = int((g["outcome"] == "tie").sum())
        decided = wins + losses
        p = float(stats.binomtest(wins, decided, 0.5).pvalue) if decided else 1.0
        if decided:
            ci = stats.binomtest(wins, decided).proportion_ci(level, method="exact")
            share, low, high = (wins - losses) / decided, 2 * ci.low - 1, 2 * ci.high - 1
        else:
            share, low, high = 0.0, float("nan"), float("nan")
        summary.append({"a": a, "b": b, "wins": wins, "ties": ties, "losses": losses,
                        "n_benchmarks": len(g), "sign_test_pvalue": p, "net_win_share": share,
                        "net_win_share_low": low, "net_win_share_high": high})
    table = pd.DataFrame(summary)
    at = "final budget" if budget is None else f"budget {float(budget):g}"
    unit = (f"{len(benchmarks)} benchmarks (unit: benchmark; each decided by a {test} test "
            f"over seeds; {at})")
    table.attrs["unit"] = unit
    per_benchmark.attrs["unit"] = unit
    return WinTieLossResult(per_benchmark, table, test, alpha, unit, results.objective,
                            None if budget is None else float(budget), level)


def _two_sample_batch(
    xs: list[np.ndarray], ys: list[np.ndarray], test: str, n_resamples: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided p-values and directions (positive: ``x`` larger) for many benchmarks at once.

    Benchmarks are batched by sample sizes (and, for Mann-Whitney, by whether
    they hold ties, because scipy picks its exact or asymptotic method from
    the whole batch), so every p-value equals the one-benchmark call.
    """
    m = len(xs)
    pvalues = np.ones(m)
    directions = np.zeros(m)
    keys: dict[tuple[int, int, bool], list[int]] = {}
    for t, (x, y) in enumerate(zip(xs, ys)):
        both = np.concatenate([x, y])
        if np.ptp(both) == 0:
            continue  # nothing differs: p = 1, no direction
        ties = test == "mannwhitney" and len(np.unique(both)) < len(both)
        keys.setdefault((len(x), len(y), ties), []).append(t)
    for members in keys.values():
        x = np.stack([xs[t] for t in members])
        y = np.stack([ys[t] for t in members])
        if test == "mannwhitney":
            res = stats.mannwhitneyu(x, y, alternative="two-sided", axis=1)
            direction = res.statistic - x.shape[1] * y.shape[1] / 2
        else:
            res = stats.permutation_test(
                (x, y), lambda u, v, axis: np.mean(u, axis=axis) - np.mean(v, axis=axis),
                vectorized=True, n_resamples=n_resamples, alternative="two-sided", rng=rng,
                axis=1,
            )
            direction = res.statistic
        pvalues[members] = res.pvalue
        directions[members] = direction
    return pvalues, directions


def _none(x: float) -> float | None:
    return None if x != x else float(x)
