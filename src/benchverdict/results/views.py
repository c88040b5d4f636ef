"""The analysis views of the canonical frame: incumbents, trajectories, runs and budgets.

Each function here takes the canonical frame (columns ``algorithm``,
``benchmark``, ``seed`` as categoricals, [``budget``], ``score``, the
metafeatures) and returns plain tables or arrays; none reads or builds a
``Results``. :class:`~benchverdict.results.core.Results` names each view as a
method (with its documented examples), wraps the tables in a new ``Results``
where the view is one, and is the place an engine that keeps its rows
elsewhere (the Dask one) overrides a step. Keeping the computations apart
from the class keeps the class a readable list of what it offers, and lets
this module sit below it without an import back.

A *run* is one (algorithm, benchmark, seed). Its *incumbent* at budget ``b``
is, for ``kind="runs"``, the last row with ``budget <= b`` and, for
``kind="trials"``, the best row (by the objective; earliest on ties) among
its trials with ``budget <= b``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from benchverdict.exclusions import exclusions_table
from benchverdict.results.schema import ID_ROLES, NO_INCUMBENT, Kind


def _run_key(frame: pd.DataFrame) -> tuple[np.ndarray, list[int]]:
    """One int64 code per row naming its run, and the sizes of the three id roles."""
    cats = [frame[c].cat for c in ID_ROLES]
    sizes = [len(c.categories) for c in cats]
    key = np.zeros(len(frame), dtype=np.int64)
    for cat, size in zip(cats, sizes):
        key = key * size + cat.codes.to_numpy().astype(np.int64)
    return key, sizes


def incumbents_of(frame: pd.DataFrame, kind: Kind, sign: float) -> pd.DataFrame:
    """The incumbent row of every run among the rows of ``frame``, sorted by run.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> incumbents_of(_example_small().table, "trials", 1.0)["score"].tolist()
    [0.5, 0.6, 0.9, 0.8, 0.3, 0.4, 0.8, 0.7]
    """
    keys = list(ID_ROLES)
    if "budget" not in frame.columns:
        return frame.reset_index(drop=True)
    if kind == "runs":
        order = frame.sort_values([*keys, "budget"], kind="stable")
        picked = order.drop_duplicates(keys, keep="last")
    else:
        oriented = frame["score"] * sign
        # Best trial per run; ties go to the earliest trial.
        order = frame.assign(_o=-oriented).sort_values([*keys, "_o", "budget"], kind="stable")
        picked = order.drop_duplicates(keys, keep="first").drop(columns="_o")
    return picked.sort_values(keys, kind="stable").reset_index(drop=True)


def incumbent_rows(frame: pd.DataFrame, kind: Kind, sign: float,
                   budget: float | None = None) -> pd.DataFrame:
    """The incumbent of every run at ``budget`` (``None``: each run's final), as rows.

    With a budget, the rows' ``budget`` column is ``budget``; without one,
    a random search's final incumbent is reported at the search's length.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> incumbent_rows(_example_small().table, "trials", 1.0, 1)["score"].tolist()
    [0.1, 0.2, 0.9, 0.7, 0.3, 0.4, 0.2, 0.7]
    """
    if budget is None:
        picked = incumbents_of(frame, kind, sign)
        if "budget" in frame.columns and kind == "trials":
            # The incumbent of a search is reported at the search's length, not at the
            # trial that found it.
            last = (
                frame.groupby(list(ID_ROLES), observed=True)["budget"].max()
                .rename("_last").reset_index()
            )
            picked = picked.merge(last, on=list(ID_ROLES), how="left")
            picked["budget"] = picked.pop("_last")
        return picked
    if "budget" not in frame.columns:
        raise ValueError(
            "at_budget() needs a budget column; pass budget=<column> to from_frame, or "
            "use final()."
        )
    budget = float(budget)
    picked = incumbents_of(frame[frame["budget"].to_numpy() <= budget], kind, sign)
    picked["budget"] = budget
    return picked


def no_incumbent_records(late: pd.DataFrame, budget: float) -> pd.DataFrame:
    """Exclusion records (``unit`` ``"run"``) of the runs without an incumbent at ``budget``.

    Examples
    --------
    >>> late = pd.DataFrame({"algorithm": ["b"], "benchmark": ["all"], "seed": [0],
    ...                      "first_budget": [2.0]})
    >>> no_incumbent_records(late, 1.0)[["unit", "algorithm", "reason"]].values.tolist()
    [['run', 'b', 'no observation at or below budget 1']]
    """
    budget = float(budget)
    return exclusions_table(pd.DataFrame({
        "step": f"incumbents at budget {budget:g}",
        "unit": "run",
        "algorithm": late["algorithm"].astype(object),
        "benchmark": late["benchmark"].astype(object),
        "seed": late["seed"].astype(object),
        "budget": budget,
        "columns": "budget",
        "reason": f"{NO_INCUMBENT} {budget:g}",
    }, index=late.index))


def view_frame(picked: pd.DataFrame) -> pd.DataFrame:
    """Incumbent rows as a canonical frame: a fresh index, no unused id categories.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> f = _example_small().table
    >>> view_frame(f[f["algorithm"] == "a"])["algorithm"].cat.categories.tolist()
    ['a']
    """
    frame = picked.reset_index(drop=True)
    for role in ID_ROLES:
        frame[role] = frame[role].cat.remove_unused_categories()
    return frame


def trajectories(frame: pd.DataFrame, sign: float) -> pd.DataFrame:
    """Every run's rows in budget order, each score replaced by the best so far.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> trajectories(_example_small().table, 1.0)["score"].tolist()[:4]
    [0.1, 0.5, 0.2, 0.6]
    """
    keys = list(ID_ROLES)
    frame = frame.sort_values([*keys, "budget"], kind="stable").reset_index(drop=True)
    oriented = frame["score"] * sign
    frame["score"] = oriented.groupby([frame[k] for k in keys], observed=True).cummax() * sign
    return frame


def incumbent_cube(frame: pd.DataFrame, budget_index: tuple[np.ndarray, np.ndarray],
                   kind: Kind, sign: float, budgets: Sequence[float]) -> np.ndarray:
    """``cube[t, i, j, s]``: the incumbent of run (i, j, s) at ``budgets[t]`` (see Results).

    ``budget_index`` is the budget's integer code per row and the sorted
    distinct budgets. One sorted pass and a binary search per (run, budget).

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> res = _example_small()
    >>> incumbent_cube(res.table, res._budget_index(), "trials", 1.0, [1, 2]).shape
    (2, 2, 2, 2)
    """
    run, sizes = _run_key(frame)
    b_codes, levels = budget_index
    n_levels = max(len(levels), 1)
    key = run * n_levels + b_codes
    order = np.argsort(key, kind="stable")
    key = key[order]
    scores = frame["score"].to_numpy()[order]
    if kind == "trials":
        # The incumbent of a search is its best trial so far: a running best per run.
        oriented = pd.Series(scores * sign)
        scores = oriented.groupby(run[order]).cummax().to_numpy() * sign
    n_runs = sizes[0] * sizes[1] * sizes[2]
    budgets = np.asarray(budgets, dtype=float)
    level_at = np.searchsorted(levels, budgets, side="right") - 1  # largest level <= b
    runs = np.arange(n_runs, dtype=np.int64)
    query = runs[None, :] * n_levels + np.maximum(level_at, 0)[:, None]
    pos = np.searchsorted(key, query, side="right") - 1
    ok = (pos >= 0) & (level_at[:, None] >= 0)
    pos = np.maximum(pos, 0)
    ok &= (key[pos] // n_levels) == runs[None, :]
    cube = np.where(ok, scores[pos], np.nan)
    return cube.reshape(len(budgets), *sizes)


def is_paired(frame: pd.DataFrame) -> bool:
    """Whether some seed label is shared by two algorithms within a benchmark.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> is_paired(_example_small().table)
    True
    """
    sizes = [len(frame[c].cat.categories) for c in ("benchmark", "seed", "algorithm")]
    key = np.zeros(len(frame), dtype=np.int64)
    for column, size in zip(("benchmark", "seed", "algorithm"), sizes):
        key = key * size + frame[column].cat.codes.to_numpy().astype(np.int64)
    cells = np.unique(key) // sizes[2]  # one entry per (benchmark, seed, algorithm)
    return bool(len(cells) and (np.diff(cells) == 0).any())


def first_budgets(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Every run's smallest budget: the run codes, their first budgets, the role sizes.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> codes, first, sizes = first_budgets(_example_small().table)
    >>> first.tolist(), sizes
    ([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [2, 2, 2])
    """
    key, sizes = _run_key(frame)
    first = pd.Series(frame["budget"].to_numpy()).groupby(key, sort=True).min()
    return first.index.to_numpy(), first.to_numpy(), sizes


def late_runs(frame: pd.DataFrame, firsts: tuple[np.ndarray, np.ndarray, list[int]],
              budget: float) -> pd.DataFrame:
    """The runs whose first budget (``firsts``, from :func:`first_budgets`) is above ``budget``.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> f = _example_small().table
    >>> len(late_runs(f, first_budgets(f), 0.5)), len(late_runs(f, first_budgets(f), 1))
    (8, 0)
    """
    keys, first, sizes = firsts
    late = first > float(budget)
    rest, s_codes = np.divmod(keys[late], sizes[2])
    a_codes, b_codes = np.divmod(rest, sizes[1])
    return pd.DataFrame({
        "algorithm": [str(c) for c in frame["algorithm"].cat.categories[a_codes]],
        "benchmark": [str(c) for c in frame["benchmark"].cat.categories[b_codes]],
        "seed": pd.Series(np.asarray(frame["seed"].cat.categories[s_codes]), dtype=object),
        "first_budget": first[late].astype(float),
    })


def last_budgets(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per run: algorithm, benchmark, seed and its largest budget (``last_budget``).

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> last_budgets(_example_small().table)["last_budget"].tolist()
    [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]
    """
    groups = frame.groupby(list(ID_ROLES), observed=True, sort=True)
    if "budget" not in frame.columns:
        return groups.size().rename("last_budget").reset_index().assign(last_budget=np.nan)
    return groups["budget"].max().rename("last_budget").reset_index()


def run_completeness(runs: pd.DataFrame, has_budget: bool,
                     budget: float | None) -> pd.DataFrame:
    """Every run (from :func:`last_budgets`) with its compared budget and ``incomplete``.

    The compared budget is ``budget``, or the largest budget any run reaches
    on the run's benchmark; a run is incomplete when its last budget is
    below it by more than a relative ``1e-9``.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> runs = run_completeness(last_budgets(_example_small().table), True, 3.0)
    >>> int(runs["incomplete"].sum()), len(incomplete_of(runs))
    (8, 8)
    >>> completeness_per_algorithm(runs)["n_incomplete"].tolist()
    [4, 4]
    """
    columns = ["algorithm", "benchmark", "seed", "last_budget", "compared_budget"]
    if not has_budget:
        return runs.assign(compared_budget=np.nan, incomplete=False)
    if budget is None:
        compared = runs.groupby("benchmark", observed=True)["last_budget"].transform("max")
    else:
        budget = float(budget)
        if not np.isfinite(budget):
            raise ValueError(f"budget must be a finite number, got {budget!r}.")
        compared = pd.Series(budget, index=runs.index)
    runs["compared_budget"] = compared.to_numpy(dtype=float)
    tolerance = 1e-9 * np.maximum(1.0, np.abs(runs["compared_budget"].to_numpy()))
    short = runs["last_budget"].to_numpy() < runs["compared_budget"].to_numpy() - tolerance
    return runs[columns].assign(incomplete=short)


def incomplete_of(runs: pd.DataFrame) -> pd.DataFrame:
    """The incomplete runs of a :func:`run_completeness` table, without its flag."""
    out = runs[runs["incomplete"].to_numpy()].drop(columns="incomplete")
    return out.reset_index(drop=True)


def completeness_per_algorithm(runs: pd.DataFrame) -> pd.DataFrame:
    """Per algorithm, runs and incomplete runs of a :func:`run_completeness` table."""
    out = runs.groupby("algorithm", observed=True, sort=True).agg(
        n_runs=("seed", "size"), n_incomplete=("incomplete", "sum"),
        last_budget_min=("last_budget", "min"), last_budget_max=("last_budget", "max"))
    out["n_incomplete"] = out["n_incomplete"].astype(np.int64)
    out.index = pd.Index(out.index.astype(str), name="algorithm")
    return out


__all__ = ["completeness_per_algorithm", "first_budgets", "incomplete_of", "incumbent_cube",
           "incumbent_rows", "incumbents_of", "is_paired", "last_budgets", "late_runs",
           "no_incumbent_records", "run_completeness", "trajectories", "view_frame"]
