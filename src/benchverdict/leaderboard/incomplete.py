"""Incomplete submissions by policy: refuse them, compare on the common subset, or impute.

A leaderboard compares every entry on one design (see
:mod:`benchverdict.leaderboard.design`). A submission that misses part of
it (benchmark x seed cells, or runs with no result by the final budget) is
*incomplete*, and :func:`~benchverdict.leaderboard.build_leaderboard`
treats it by one of three policies (``incomplete=``; ``--incomplete`` on
the command line; kept in a stored board's manifest for every version):

``"refuse"`` (the default)
    the entry is listed with what it misses and not compared.
``"subset"``
    every entry is compared on the common subset (:func:`common_subset`):
    as many benchmarks as possible on which every entry completed the same
    seeds, then as many of those seeds as possible. Benchmarks come first
    because they are the unit of replication the positions rest on. The
    positions then hold on that subset only, and the dropped benchmarks
    were left out because some entry could not complete them, not at
    random. A subset with fewer than :data:`~benchverdict.leaderboard.board.MIN_BENCHMARKS`
    benchmarks (or fewer than the design's, if it has fewer) is refused.
``"impute"``
    each missing run gets the worst score any compared entry reached on
    the same benchmark, over all seeds, at the board's budget
    (:func:`impute_worst`). That is the conservative choice (TabArena, for
    instance, fills a failed run with a default baseline's result): on that
    benchmark the entry ranks at or below every other entry, so a filled
    run never lifts it above an entry. The filled runs are counted per
    entry and shown; the board's positions for such entries are
    conservative, not error-controlled (see :data:`IMPUTE_CAVEAT`). Holm
    bounds the error over the pairs whose hypotheses are true whatever the
    other pairs' p-values, so imputed pairs with tiny p-values do not loosen
    it; but joint tests (Friedman, Nemenyi, the LMEM's variances) see the
    imputed runs, so for complete entries the bound rests on those tests
    tolerating a constant at the bottom of some benchmarks. Checked once by
    simulation, not in the suite: 100 null boards (five entries equal in
    truth, 8 benchmarks x 3 seeds, one entry missing 2 benchmarks, rank
    tests and LMEM) separated no two complete entries under impute (none
    under refuse either) and never settled the imputed entry below another;
    100 boards only bound the rate below about 3%.

Under every policy the board lists the runs that would complete each
incomplete entry (:func:`missing_runs`). An entry whose runs stop before
the final budget stays refused under every policy, and so does one with
no complete run at all: the policies drop or fill benchmark x seed cells,
not budgets, and there is nothing to compare an empty entry on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from benchverdict.leaderboard.design import Design, SubmissionCheck, budget_text
from benchverdict.results import Results

#: The policies for incomplete submissions, the default first.
INCOMPLETE_POLICIES = ("refuse", "subset", "impute")
#: Columns of :func:`missing_runs`.
MISSING_RUN_COLUMNS = ["algorithm", "benchmark", "seed", "budget", "issue"]
#: Columns of the benchmarks and seeds :func:`common_subset` drops.
DROPPED_COLUMNS = ["what", "name", "missed_by"]
#: Columns of the cells :func:`impute_worst` fills.
IMPUTED_COLUMNS = ["algorithm", "benchmark", "seed", "score"]
#: The imputation method, as the page states it.
IMPUTE_METHOD = ("the worst score any compared entry reached on the same benchmark (over "
                 "all its seeds) at the board's budget")
#: What imputed positions mean, as the page states it.
IMPUTE_CAVEAT = (
    "An imputed run is a constant at the bottom of its benchmark, not a measurement, so the "
    "positions of imputed entries are conservative and not error-controlled as complete "
    "entries' are: a relation that places an imputed entry below another may rest on the "
    "imputation alone, and one that places it above another holds only if its missing runs "
    "would have scored at least that worst score. The family-wise error bound covers the "
    "board's data as imputed; relations between complete entries are tested with the "
    "imputed entries in the comparison (the Friedman test and the LMEM see them).")


def check_policy(policy: str) -> str:
    """``policy`` if it names a policy, else a ValueError that lists them.

    Examples
    --------
    >>> check_policy("subset")
    'subset'
    >>> check_policy("drop")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: incomplete: unknown policy 'drop'; choose refuse (list an incomplete ...
    """
    if policy not in INCOMPLETE_POLICIES:
        raise ValueError(
            f"incomplete: unknown policy {policy!r}; choose refuse (list an incomplete entry "
            f"apart, not compared; the default), subset (compare every entry on the "
            f"benchmarks and seeds all of them completed) or impute (fill each missing run "
            f"with the worst score observed on its benchmark).")
    return policy


def gaps(check: SubmissionCheck) -> set[tuple[str, str]]:
    """The (benchmark, seed) cells ``check``'s algorithm has no usable run in."""
    return set(check.missing_cells) | set(check.short_runs)


def why_not_compared(check: SubmissionCheck, design: Design) -> str | None:
    """Why no policy can compare an incomplete entry, or ``None`` when subset and impute can.

    Examples
    --------
    >>> from benchverdict.leaderboard.design import SubmissionCheck
    >>> d = Design("maximize", "runs", ("p", "q"), ("0",), 10.0)
    >>> print(why_not_compared(SubmissionCheck("a", False, longest_budget=5.0), d))
    ... # doctest: +NORMALIZE_WHITESPACE
    its runs stop at budget 5, before the board's final budget: a policy drops or fills
    benchmark x seed cells, not budgets
    >>> why_not_compared(SubmissionCheck("a", False, missing_cells=[("p", "0")]), d) is None
    True
    """
    if check.complete:
        return None
    if check.longest_budget is not None:
        return (f"its runs stop at budget {check.longest_budget:g}, before the board's final "
                f"budget: a policy drops or fills benchmark x seed cells, not budgets")
    if len(gaps(check)) >= design.n_cells:
        return "it has no complete run on the board's design"
    return None


def missing_runs(design: Design, checks: Sequence[SubmissionCheck]) -> pd.DataFrame:
    """The runs that would complete every incomplete entry, one row each.

    Columns :data:`MISSING_RUN_COLUMNS`: the algorithm, benchmark and seed
    of the run, the budget it must reach (the board's final budget; NaN
    without one) and the issue (``missing``, ``no result by the final
    budget``, or ``stops at budget B`` for an entry whose runs all stop
    early: each of its runs must be continued). Sorted by algorithm, then
    in the design's order of benchmarks and seeds.

    Examples
    --------
    >>> from benchverdict.leaderboard.design import SubmissionCheck
    >>> d = Design("maximize", "runs", ("p", "q"), ("0", "1"), 30.0)
    >>> checks = [SubmissionCheck("a", True),
    ...           SubmissionCheck("b", False, missing_cells=[("q", "1")])]
    >>> missing_runs(d, checks).values.tolist()
    [['b', 'q', '1', 30.0, 'missing']]
    """
    budget = math.nan if design.final_budget is None else float(design.final_budget)
    rows = []
    for check in sorted(checks, key=lambda c: c.algorithm):
        if check.complete:
            continue
        issue = dict.fromkeys(check.short_runs, "no result by the final budget")
        issue.update(dict.fromkeys(check.missing_cells, "missing"))
        if check.longest_budget is not None:
            for cell in ((b, s) for b in design.benchmarks for s in design.seeds):
                issue.setdefault(cell, f"stops at budget {check.longest_budget:g}")
        rows += [(check.algorithm, b, s, budget, why) for (b, s), why in issue.items()]
    frame = pd.DataFrame(rows, columns=MISSING_RUN_COLUMNS)
    order_b = {b: i for i, b in enumerate(design.benchmarks)}
    order_s = {s: i for i, s in enumerate(design.seeds)}
    frame = frame.assign(_a=frame["algorithm"], _b=frame["benchmark"].map(order_b),
                         _s=frame["seed"].map(order_s))
    return (frame.sort_values(["_a", "_b", "_s"], kind="stable")
            .drop(columns=["_a", "_b", "_s"]).reset_index(drop=True))


def run_text(row: object) -> str:
    """One missing run as a phrase: ``b on task3, seed 0, to budget 30 (missing)``."""
    budget = float(row.budget)  # type: ignore[attr-defined]
    where = budget_text(None if not math.isfinite(budget) else budget)
    return (f"{row.algorithm} on {row.benchmark}, seed {row.seed}, to "  # type: ignore[attr-defined]
            f"{where} ({row.issue})")  # type: ignore[attr-defined]


def common_subset(design: Design, checks: Sequence[SubmissionCheck]
                  ) -> tuple[tuple[str, ...], tuple[str, ...], pd.DataFrame]:
    """The benchmarks and seeds every entry of ``checks`` completed, and what is dropped.

    The rule: as many benchmarks as possible on which every entry completed
    the same seeds, then as many of those seeds as possible (benchmarks are
    the unit of replication the positions rest on; ties go to the
    benchmarks first in the design). An entry that ran fewer seeds drops
    those seeds; an entry that missed a benchmark drops that benchmark. It
    depends on the entries' sets of cells only, not on their names or order.

    Returns
    -------
    benchmarks, seeds : tuple of str
        The common subset, in the design's order (empty if there is none).
    dropped : pandas.DataFrame
        Columns :data:`DROPPED_COLUMNS`: ``what`` (``"benchmark"`` or
        ``"seed"``), its ``name`` and the entries that miss it
        (``missed_by``, comma-separated).

    Examples
    --------
    >>> from benchverdict.leaderboard.design import SubmissionCheck
    >>> d = Design("maximize", "runs", ("p", "q", "r"), ("0", "1"), None)
    >>> checks = [SubmissionCheck("a", True),
    ...           SubmissionCheck("b", False, missing_cells=[("q", "0"), ("q", "1")]),
    ...           SubmissionCheck("c", False, missing_cells=[("p", "1"), ("r", "1")])]
    >>> benchmarks, seeds, dropped = common_subset(d, checks)
    >>> benchmarks, seeds
    (('p', 'r'), ('0',))
    >>> dropped.values.tolist()
    [['benchmark', 'q', 'b'], ['seed', '1', 'c']]
    """
    holes = [gaps(c) for c in checks]
    covered = {s: frozenset(b for b in design.benchmarks if all((b, s) not in h for h in holes))
               for s in design.seeds}
    position = {b: i for i, b in enumerate(design.benchmarks)}
    best: tuple[tuple[int, int, tuple[int, ...]], frozenset[str], list[str]] | None = None
    for kept in set(covered.values()):
        seeds = [s for s in design.seeds if covered[s] >= kept]
        key = (-len(kept), -len(seeds), tuple(sorted(position[b] for b in kept)))
        if kept and (best is None or key < best[0]):
            best = (key, kept, seeds)
    if best is None:
        return (), (), pd.DataFrame(columns=DROPPED_COLUMNS)
    benchmarks = tuple(b for b in design.benchmarks if b in best[1])
    seeds = tuple(best[2])
    rows = []
    for b in design.benchmarks:
        if b not in benchmarks:
            who = sorted(c.algorithm for c, h in zip(checks, holes, strict=True)
                         if any((b, s) in h for s in seeds))
            rows.append(("benchmark", b, ", ".join(who)))
    for s in design.seeds:
        if s not in seeds:
            who = sorted(c.algorithm for c, h in zip(checks, holes, strict=True)
                         if any((b, s) in h for b in benchmarks))
            rows.append(("seed", s, ", ".join(who)))
    return benchmarks, seeds, pd.DataFrame(rows, columns=DROPPED_COLUMNS)


def impute_worst(table: pd.DataFrame, design: Design, targets: Sequence[SubmissionCheck],
                 *, kind: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fill the targets' missing runs with the worst score observed on their benchmark.

    The worst score is taken over the runs the board compares: every
    compared entry's incumbent at the design's final budget, all seeds of
    the benchmark (a run with no result by the final budget counts as
    missing, and its rows are replaced). Each filled run is one row at the
    final budget, so it is its run's incumbent there.

    Parameters
    ----------
    table : pandas.DataFrame
        The compared entries' rows inside the design (columns ``algorithm``,
        ``benchmark``, ``seed``, ``score`` and ``budget`` if the design has one).
    design : Design
    targets : sequence of SubmissionCheck
        The incomplete entries to fill.
    kind : {"runs", "trials"}
        How the rows are read (to find the incumbents).

    Returns
    -------
    rows : pandas.DataFrame
        ``table`` with the filled runs (benchmark and seed as text).
    imputed : pandas.DataFrame
        One row per filled run (:data:`IMPUTED_COLUMNS`).

    Raises
    ------
    ValueError
        If no compared entry has a result on a benchmark to fill.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict.leaderboard.design import SubmissionCheck
    >>> d = Design("maximize", "runs", ("p", "q"), ("0",), None)
    >>> t = pd.DataFrame({"algorithm": ["a", "a", "b"], "benchmark": ["p", "q", "p"],
    ...                   "seed": [0, 0, 0], "score": [0.9, 0.4, 0.7]})
    >>> rows, imputed = impute_worst(t, d, [SubmissionCheck("b", False, [("q", "0")])],
    ...                              kind="runs")
    >>> imputed.values.tolist()
    [['b', 'q', '0', 0.4]]
    """
    columns = ["algorithm", "benchmark", "seed", "score"] + (
        ["budget"] if design.final_budget is not None else [])
    rows = table[columns].copy()
    for column in ("benchmark", "seed"):
        rows[column] = rows[column].astype(str)  # one spelling of every cell
    rows["algorithm"] = rows["algorithm"].astype(str)
    cells = pd.MultiIndex.from_arrays([rows["algorithm"], rows["benchmark"], rows["seed"]])
    filled = {(c.algorithm, b, s) for c in targets for b, s in gaps(c)}
    rows = rows[~cells.isin(list(filled))] if filled else rows
    observed = Results.from_frame(
        rows, algorithm="algorithm", benchmark="benchmark", seed="seed", score="score",
        objective=design.objective, budget="budget" if design.final_budget is not None else None,
        kind=kind, min_algorithms=1).incumbents(design.final_budget).table
    by_benchmark = observed.groupby(observed["benchmark"].astype(str), observed=True)["score"]
    worst = by_benchmark.min() if design.objective == "maximize" else by_benchmark.max()
    new = sorted(filled, key=lambda k: (k[0], design.benchmarks.index(k[1]),
                                        design.seeds.index(k[2])))
    empty = sorted({b for _, b, _ in new if b not in worst.index})
    if empty:
        raise ValueError(
            f"incomplete: impute fills a missing run with the worst score observed on its "
            f"benchmark, but no compared entry has a result on {', '.join(empty)}. Fix: "
            f"submit a complete entry, or use --incomplete subset or refuse.")
    imputed = pd.DataFrame([(a, b, s, float(worst[b])) for a, b, s in new],
                           columns=IMPUTED_COLUMNS)
    added = imputed.copy()
    if design.final_budget is not None:
        added["budget"] = float(design.final_budget)
    return pd.concat([rows, added[columns]], ignore_index=True), imputed
