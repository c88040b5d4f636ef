"""Which algorithms' runs all stop before the final budget (the report leaves them out there).

Its own module so that both the runner and the results table
(:mod:`benchverdict.report.results_table`, which the report document builds)
read the one rule without importing each other.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Protocol

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from benchverdict.results import Results


class _Budgeted(Protocol):
    """What the rule reads of the report's options (:class:`~benchverdict.report.Options`)."""

    budget: float | None

__all__ = ["SHORT_CELL_COLUMNS", "stopped_early", "stopped_early_cells"]


def stopped_early(results: Results, options: _Budgeted) -> dict[str, float]:
    """Algorithms whose runs all stop before the final budget: name -> their longest budget.

    Rank tests and LMEMs compare each run's incumbent at the final budget
    (``options.budget`` unset). An algorithm none of whose runs reaches the
    largest budget of the design (e.g. HPO-B's RF, whose runs stop at trial 5
    while the others run to 100) would be compared on less tuning effort; the
    report leaves it out of those comparisons and says so in the headline.
    The rule is per algorithm, as the leaderboard's: data that record an
    incumbent only when it changes end each run at its last improvement, but
    some run of each algorithm still reaches the end.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict.report.runner import Options
    >>> from benchverdict.results import Results
    >>> df = pd.DataFrame({"alg": ["a", "a", "b", "b", "c", "c"], "seed": [0] * 6,
    ...                    "t": [1, 3, 1, 2, 1, 3], "y": [1, 2, 1, 3, 2, 2]})
    >>> res = Results.from_frame(df, algorithm="alg", seed="seed", budget="t", score="y",
    ...                          objective="maximize", kind="runs")
    >>> stopped_early(res, Options())
    {'b': 2.0}
    """
    if options.budget is not None or not results.has_budget:
        return {}
    done = results.completeness()
    final = float(done["last_budget_max"].max())
    tolerance = 1e-9 * max(1.0, abs(final))
    return {str(a): float(b) for a, b in done["last_budget_max"].items()
            if b < final - tolerance}


#: Columns of :func:`stopped_early_cells`.
SHORT_CELL_COLUMNS = ["algorithm", "benchmark", "runs", "last_budget", "final_budget"]


def stopped_early_cells(results: Results, options: _Budgeted, *,
                        skip: Collection[str] = ()) -> pd.DataFrame:
    """Cells (algorithm, benchmark) none of whose runs reaches that benchmark's final budget.

    The per-algorithm rule (:func:`stopped_early`) misses an algorithm that
    runs to the end on one benchmark and stops early on the others: its
    incumbents there would be compared, as if at the final budget, with
    other algorithms' after more tuning (four identical algorithms, one
    stopping at budget 4 of 20 on 7 of 8 benchmarks: a false relation was
    settled across benchmarks in 78% of such data sets). A benchmark's final
    budget is the largest budget any run reaches on it; a cell counts when
    every one of its runs ends before that, so a run that merely records no
    improvement near the end (some run of the cell still reaches it) does
    not; nor does a run whose later trials the input excluded (failed or
    pruned, with their budgets in ``results.exclusions``). Only budgets that
    are counts (every budget an integer: trials, epochs) are judged: with a
    budget in time, a run that finished its work sooner ends sooner, and its
    incumbent at a later time is its final one. Algorithms in ``skip``
    (those :func:`stopped_early` leaves out whole) are not listed.

    Returns
    -------
    pandas.DataFrame
        One row per such cell: ``algorithm``, ``benchmark``, ``runs``,
        ``last_budget`` (the largest of its runs) and ``final_budget`` (the
        benchmark's); empty with ``options.budget`` set or no budget column.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict.report.runner import Options
    >>> from benchverdict.results import Results
    >>> df = pd.DataFrame({"alg": ["a", "a", "b", "b"] * 2, "seed": [0] * 8,
    ...                    "task": ["p"] * 4 + ["q"] * 4, "t": [1, 3, 1, 3, 1, 3, 1, 2],
    ...                    "y": [1, 2, 1, 3, 2, 2, 1, 3]})
    >>> res = Results.from_frame(df, algorithm="alg", seed="seed", benchmark="task", budget="t",
    ...                          score="y", objective="maximize", kind="runs")
    >>> stopped_early_cells(res, Options()).values.tolist()
    [['b', 'q', 1, 2.0, 3.0]]
    """
    if options.budget is not None or not results.has_budget:
        return pd.DataFrame(columns=SHORT_CELL_COLUMNS)
    budgets = np.asarray(results.budgets, dtype=float)
    if not np.all(np.isfinite(budgets) & (budgets == np.round(budgets))):
        # A budget in time (Syne Tune's seconds): a run that finished its trials sooner ends
        # sooner, and its incumbent at a later time is its final one. Only counts (trials,
        # epochs) say that a run which ends before the others' last count stopped early.
        return pd.DataFrame(columns=SHORT_CELL_COLUMNS)
    runs = results._run_completeness(None)
    runs = runs[~runs["algorithm"].astype(str).isin([str(a) for a in skip])]
    reached = _excluded_reach(results)
    if reached is not None and len(runs):
        # A run whose last trials failed or were pruned (rows the input excluded) reached
        # their budget: its incumbent there is the one before them.
        key = (runs["algorithm"].astype(str) + "\x1f" + runs["seed"].astype(str) + "\x1f"
               + (runs["benchmark"].astype(str) if reached[1] else ""))
        further = key.map(reached[0]).to_numpy(dtype=float)
        last = np.fmax(runs["last_budget"].to_numpy(dtype=float), further)
        compared = runs["compared_budget"].to_numpy(dtype=float)
        tolerance = 1e-9 * np.maximum(1.0, np.abs(compared))
        runs = runs.assign(last_budget=last, incomplete=last < compared - tolerance)
    cells = runs.groupby(["algorithm", "benchmark"], observed=True, sort=True).agg(
        runs=("seed", "size"), short=("incomplete", "sum"), last_budget=("last_budget", "max"),
        final_budget=("compared_budget", "first"))
    cells = cells[cells["short"] == cells["runs"]].reset_index()
    for role in ("algorithm", "benchmark"):
        cells[role] = cells[role].astype(str)
    cells["runs"] = cells["runs"].astype(int)
    return cells[SHORT_CELL_COLUMNS].reset_index(drop=True)


def _excluded_reach(results: Results) -> tuple[pd.Series, bool] | None:
    """The largest budget of each run's excluded rows (failed or pruned trials), if known.

    Returns the budgets keyed by ``algorithm \x1f seed \x1f benchmark`` (the
    benchmark left out when the records name none: the data have one) and
    whether the key has the benchmark; None when no record names a run and a
    budget.
    """
    ex = results.exclusions
    if not len(ex) or "budget" not in ex.columns:
        return None
    ex = ex[(ex["unit"] == "row") & ex["algorithm"].notna() & ex["seed"].notna()]
    budget = pd.to_numeric(ex["budget"], errors="coerce")
    ex = ex[budget.notna().to_numpy()].assign(budget=budget[budget.notna()])
    if not len(ex):
        return None
    with_bench = bool(ex["benchmark"].notna().all())
    key = (ex["algorithm"].astype(str) + "\x1f" + ex["seed"].astype(str) + "\x1f"
           + (ex["benchmark"].astype(str) if with_bench else ""))
    return ex.groupby(key.to_numpy())["budget"].max(), with_bench
