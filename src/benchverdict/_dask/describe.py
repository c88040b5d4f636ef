"""``describe()`` of a :class:`~benchverdict._dask.results.DaskResults` from reductions.

The same :class:`~benchverdict.describe.Description` as in memory, from the
per-run summaries made during validation (rows per run, each run's budget
range), the distinct (algorithm, budget) pairs and the distinct
(benchmark, value) pairs of each metafeature, each collected per partition.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from benchverdict.describe import (
    MAX_CELLS,
    MAX_LISTED_MISSING,
    Description,
    _missing_cells_warning,
    balanced_check,
)
from benchverdict.exclusions import rows_by_reason


def describe_partitioned(
    *,
    categories: Mapping[str, pd.Index],
    summary: pd.DataFrame,
    roles: Mapping[str, str],
    objective: str,
    kind: str,
    kind_reason: str,
    n_rows: int,
    exclusions: pd.DataFrame,
    budget_pairs: pd.DataFrame | None = None,
    meta_levels: Mapping[str, tuple] | None = None,
) -> Description:
    """The :class:`Description` of a partitioned data set, from its reductions (see the module).

    The arguments are what ``DaskResults.describe`` has collected, so this
    module never names ``DaskResults`` (no import circle with it).

    Parameters
    ----------
    categories : mapping
        ``algorithm``, ``benchmark`` and ``seed``: every label, in code order.
    summary : pandas.DataFrame
        One row per run piece: ``run`` (the run code) and ``n`` (its rows).
    roles : mapping
        The user's column of each role.
    objective, kind, kind_reason : str
    n_rows : int
        The number of rows.
    exclusions : pandas.DataFrame
        The rows dropped in validation (``Results.exclusions``; the
        description counts them with
        :func:`~benchverdict.exclusions.rows_by_reason`).
    budget_pairs : pandas.DataFrame, optional
        The distinct (``a`` algorithm code, ``budget``) pairs; ``None``
        without a budget column.
    meta_levels : mapping, optional
        Per metafeature: its distinct (``b``, ``v``) pairs, missing count and
        dtype.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict.exclusions import empty_exclusions
    >>> cats = {r: pd.Index(v) for r, v in
    ...         (("algorithm", ["a", "b"]), ("benchmark", ["p"]), ("seed", [0]))}
    >>> d = describe_partitioned(
    ...     categories=cats, summary=pd.DataFrame({"run": [0, 1], "n": [3, 3]}),
    ...     roles={"algorithm": "alg", "seed": "seed", "score": "y"}, objective="maximize",
    ...     kind="runs", kind_reason="given", n_rows=6,
    ...     exclusions=empty_exclusions())
    >>> d.balanced, d.n_rows
    (True, 6)
    """
    alg, bench, seed = (categories[r] for r in ("algorithm", "benchmark", "seed"))
    na, nb, ns = len(alg), len(bench), len(seed)
    counts = pd.DataFrame(
        {"column": [roles.get(r, "(constant)" if r == "benchmark" else "")
                    for r in ("algorithm", "benchmark", "seed")],
         "distinct": [na, nb, ns]},
        index=pd.Index(["algorithm", "benchmark", "seed"], name="role"),
    )
    if budget_pairs is not None:
        counts.loc["budget"] = [roles["budget"], len(np.unique(budget_pairs["budget"]))]
    run = summary["run"].to_numpy()
    n_per_run = summary["n"].to_numpy()
    n_cells = na * nb * ns
    if n_cells > MAX_CELLS:
        raise ValueError(f"describe() of a Dask Results enumerates {n_cells:,} cells, more "
                         f"than {MAX_CELLS:,}.")
    present = np.zeros(n_cells, dtype=bool)
    present[run] = True
    cube = present.reshape(na, nb, ns)
    balance = pd.DataFrame(
        cube.sum(axis=2),
        index=pd.Index([str(c) for c in alg], name="algorithm"),
        columns=pd.Index([str(c) for c in bench], name="benchmark"),
    )
    paired = True
    if na > 1:
        paired = bool((cube.sum(axis=0) > 1).any())
    if not paired:
        missing_ab = np.flatnonzero(~cube.any(axis=2).ravel())
        n_missing = len(missing_ab)
        missing_idx = missing_ab * ns
    else:
        missing_idx = np.flatnonzero(~present)
        n_missing = len(missing_idx)
    missing_idx = missing_idx[:MAX_LISTED_MISSING]
    ai, rest = np.divmod(missing_idx, nb * ns)
    bi, si = np.divmod(rest, ns)
    missing_cells = pd.DataFrame({
        "algorithm": np.asarray(alg.astype(str))[ai] if len(ai) else [],
        "benchmark": np.asarray(bench.astype(str))[bi] if len(bi) else [],
        "seed": (np.asarray(seed)[si] if paired else ["(any)"] * len(si))
        if len(si) else [],
    })
    warnings: list[str] = []
    if not balanced_check(n_missing):
        warnings.append(_missing_cells_warning(n_missing, paired, cube,
                                               [str(c) for c in bench]))
    if budget_pairs is not None:
        pairs = budget_pairs
        per_alg = pairs.groupby("a", sort=True)["budget"].agg(["min", "max", "nunique"])
        budgets = pd.DataFrame({"min": per_alg["min"].to_numpy(),
                                "max": per_alg["max"].to_numpy(),
                                "distinct": per_alg["nunique"].to_numpy()},
                               index=per_alg.index.to_numpy())
        rows = np.zeros(n_cells, dtype=np.int64)
        rows[run] = n_per_run
        rows_per_run = rows.reshape(na, nb * ns)
        budgets["median_rows_per_run"] = [
            float(np.median(r[r > 0])) if (r > 0).any() else 0.0
            for r in rows_per_run[budgets.index.to_numpy()]]
        budgets.index = pd.Index([str(c) for c in alg[budgets.index]],
                                 name="algorithm")
        if budgets["max"].nunique() > 1:
            top = budgets["max"].max()
            short = budgets.index[budgets["max"] < top].tolist()
            warnings.append(
                f"algorithms {short} stop at a smaller largest budget than the others "
                f"({budgets.loc[short, 'max'].min():g} vs {top:g}): comparisons of final "
                f"incumbents mix budgets; compare at a common budget (at_budget).")
    else:
        budgets = pd.DataFrame(columns=["min", "max", "distinct", "median_rows_per_run"])
    meta_rows = []
    levels = dict(meta_levels or {})
    for m in levels:
        pairs, missing, dtype = levels[m]
        meta_rows.append({
            "metafeature": m, "dtype": dtype, "distinct": int(pairs["v"].nunique()),
            "missing": int(missing),
            "constant_within_benchmark": bool((pairs.groupby("b")["v"].nunique() <= 1).all()),
        })
    metafeatures = pd.DataFrame(
        meta_rows,
        columns=["metafeature", "dtype", "distinct", "missing", "constant_within_benchmark"],
    ).set_index("metafeature")
    excluded = rows_by_reason(exclusions)
    return Description(
        counts=counts, balance=balance, missing_cells=missing_cells,
        n_missing_cells=int(n_missing), budgets=budgets, metafeatures=metafeatures,
        exclusions=excluded, objective=objective, kind=kind,
        kind_reason=kind_reason, n_rows=n_rows, warnings=tuple(warnings),
        paired=paired,
    )


__all__ = ["describe_partitioned"]
