"""``describe()`` of a :class:`~benchverdict._dask.results.DaskResults` from reductions.

The same :class:`~benchverdict.describe.Description` as in memory, from the
per-run summaries made during validation (rows per run, each run's budget
range), the distinct (algorithm, budget) pairs and the distinct
(benchmark, value) pairs of each metafeature, each collected per partition.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from benchverdict.describe import (
    MAX_CELLS,
    MAX_LISTED_MISSING,
    Description,
    _missing_cells_warning,
    balanced_check,
)

if TYPE_CHECKING:
    from benchverdict._dask.results import DaskResults


def describe_partitioned(results: DaskResults) -> Description:
    """The :class:`Description` of ``results``, computed per partition (see the module)."""
    f = results._frame
    alg, bench, seed = (f[c].cat for c in ("algorithm", "benchmark", "seed"))
    na, nb, ns = results._sizes()
    counts = pd.DataFrame(
        {"column": [results.roles.get(r, "(constant)" if r == "benchmark" else "")
                    for r in ("algorithm", "benchmark", "seed")],
         "distinct": [na, nb, ns]},
        index=pd.Index(["algorithm", "benchmark", "seed"], name="role"),
    )
    if results.has_budget:
        counts.loc["budget"] = [results.roles["budget"], len(results.budgets)]
    summary = results._summary
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
        index=pd.Index([str(c) for c in alg.categories], name="algorithm"),
        columns=pd.Index([str(c) for c in bench.categories], name="benchmark"),
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
        "algorithm": np.asarray(alg.categories.astype(str))[ai] if len(ai) else [],
        "benchmark": np.asarray(bench.categories.astype(str))[bi] if len(bi) else [],
        "seed": (np.asarray(seed.categories)[si] if paired else ["(any)"] * len(si))
        if len(si) else [],
    })
    warnings: list[str] = []
    if not balanced_check(n_missing):
        warnings.append(_missing_cells_warning(n_missing, paired, cube,
                                               [str(c) for c in bench.categories]))
    if results.has_budget:
        pairs = results._budget_pairs()
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
        budgets.index = pd.Index([str(c) for c in alg.categories[budgets.index]],
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
    levels = results._meta_levels() if results.metafeatures else {}
    for m in results.metafeatures:
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
    excl = results.exclusions
    if len(excl):
        exclusions = (
            excl.groupby(["columns", "reasons"], sort=True).size().rename("rows").reset_index()
            .rename(columns={"columns": "column", "reasons": "reason"}))
    else:
        exclusions = pd.DataFrame(columns=["column", "reason", "rows"])
    return Description(
        counts=counts, balance=balance, missing_cells=missing_cells,
        n_missing_cells=int(n_missing), budgets=budgets, metafeatures=metafeatures,
        exclusions=exclusions, objective=results.objective, kind=results.kind,
        kind_reason=results.kind_reason, n_rows=len(results), warnings=tuple(warnings),
        paired=paired,
    )


__all__ = ["describe_partitioned"]
