"""A summary of a :class:`~benchverdict.results.Results`: what is there, what is missing.

Everything is computed from the integer category codes with ``numpy.bincount``
so that describing 10^7 rows takes well under a second.

This module sits below :mod:`benchverdict.results`: :func:`describe_results`
takes the canonical frame and the facts ``Results.describe`` passes, never a
``Results``, so neither module needs the other's name (no import circle).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchverdict.exclusions import empty_exclusions, rows_by_reason
from benchverdict.replicates import connected_components

#: At most this many missing (algorithm, benchmark, seed) cells are listed.
MAX_LISTED_MISSING = 1000
#: Cross products larger than this are not enumerated cell by cell.
MAX_CELLS = 50_000_000


@dataclass(frozen=True)
class Description:
    """What a Results holds, as tidy tables.

    Attributes
    ----------
    counts : pandas.DataFrame
        Per role: the column it came from and the number of distinct values.
    balance : pandas.DataFrame
        Algorithm x benchmark table of the number of seeds (runs) present.
    missing_cells : pandas.DataFrame
        The (algorithm, benchmark, seed) combinations with no row (at most
        ``MAX_LISTED_MISSING`` listed; ``n_missing_cells`` counts them all).
    n_missing_cells : int
        How many combinations are missing.
    budgets : pandas.DataFrame
        Per algorithm: smallest and largest budget, number of distinct
        budgets, and the median number of rows per run.
    metafeatures : pandas.DataFrame
        Per metafeature: dtype, distinct values, missing values, and whether
        it is constant within each benchmark.
    exclusions : pandas.DataFrame
        Rows dropped in validation, counted by column and reason (columns
        :data:`~benchverdict.exclusions.ROWS_BY_REASON`, a summary view of
        ``Results.exclusions`` made by
        :func:`~benchverdict.exclusions.rows_by_reason`): ``rows`` adds up to
        the number of rows dropped (a row with two problems is counted once,
        under both reasons joined by ``"; "``).
    objective, kind, kind_reason, n_rows : str, str, str, int
    paired : bool
        Whether algorithms share seed labels within a benchmark (a paired
        design). When no seed is shared (every draw has its own seed), the
        balance is judged on algorithm x benchmark cells only.
    warnings : tuple of str
        Design problems an analysis should know about (missing cells,
        algorithms that stop at different budgets).
    """

    counts: pd.DataFrame
    balance: pd.DataFrame
    missing_cells: pd.DataFrame
    n_missing_cells: int
    budgets: pd.DataFrame
    metafeatures: pd.DataFrame
    exclusions: pd.DataFrame
    objective: str
    kind: str
    kind_reason: str
    n_rows: int
    warnings: tuple[str, ...] = ()
    paired: bool = True

    @property
    def balanced(self) -> bool:
        """Whether every algorithm x benchmark x seed cell has data."""
        return self.n_missing_cells == 0

    def __str__(self) -> str:
        lines = [
            f"{self.n_rows:,} rows; objective: {self.objective}; kind: {self.kind} "
            f"({self.kind_reason})",
            "",
            "Roles:",
        ]
        for role, row in self.counts.iterrows():
            lines.append(f"  {role:<10} {row['column']!s:<24} {row['distinct']:>10,} distinct")
        lines.append("")
        if not self.paired:
            lines.append(
                "Seeds: no seed is shared by two algorithms within a benchmark (unpaired "
                "design: each row its own draw)."
            )
        if self.balanced:
            cell = "algorithm x benchmark x seed" if self.paired else "algorithm x benchmark"
            lines.append(f"Design: balanced (every {cell} cell has data).")
        else:
            lines.append(
                f"Design: UNBALANCED, {self.n_missing_cells:,} algorithm x benchmark x seed "
                f"cell(s) have no data, e.g.:"
            )
            for _, r in self.missing_cells.head(5).iterrows():
                lines.append(
                    f"  algorithm={r['algorithm']}, benchmark={r['benchmark']}, seed={r['seed']}"
                )
        runs = self.balance.to_numpy()
        lines.append(
            f"Seeds per algorithm x benchmark: min {int(runs.min())}, max {int(runs.max())}."
        )
        if len(self.budgets):
            lines.append("")
            lines.append("Budgets:")
            lines.append(_indent(self.budgets.to_string()))
        if len(self.metafeatures):
            lines.append("")
            lines.append("Metafeatures:")
            lines.append(_indent(self.metafeatures.to_string()))
        lines.append("")
        for w in self.warnings:
            lines.append(f"WARNING: {w}")
        if self.warnings:
            lines.append("")
        if len(self.exclusions):
            total = int(self.exclusions["rows"].sum())
            lines.append(f"Excluded in validation: {total:,} row(s)")
            lines.append(_indent(self.exclusions.to_string(index=False)))
        else:
            lines.append("Excluded in validation: none.")
        return "\n".join(lines)

    def _repr_pretty_(self, p, cycle) -> None:  # pragma: no cover - IPython hook
        p.text(str(self))


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def describe_results(
    frame: pd.DataFrame,
    *,
    roles: Mapping[str, str],
    objective: str,
    kind: str,
    kind_reason: str,
    metafeatures: Sequence[str] = (),
    exclusions: pd.DataFrame | None = None,
    budget_index: tuple[np.ndarray, np.ndarray] | None = None,
) -> Description:
    """Build the :class:`Description` of a canonical frame (see ``Results.describe``).

    Parameters
    ----------
    frame : pandas.DataFrame
        The canonical frame: ``algorithm``, ``benchmark``, ``seed``
        (categoricals), [``budget``], ``score`` and the metafeatures.
    roles : mapping
        The user's column of each role (``Results.roles``).
    objective, kind, kind_reason : str
        As the ``Results`` has them.
    metafeatures : sequence of str
        The metafeature columns.
    exclusions : pandas.DataFrame, optional
        ``Results.exclusions`` (none when omitted).
    budget_index : tuple of numpy.ndarray, optional
        The budget's integer code per row and its sorted distinct values,
        when the caller has them (``Results`` computes them once); derived
        from ``frame`` otherwise.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> res = _example_small()
    >>> d = describe_results(res.table, roles=res.roles, objective=res.objective,
    ...                      kind=res.kind, kind_reason=res.kind_reason)
    >>> d.n_missing_cells, d.n_rows
    (0, 16)
    """
    if exclusions is None:
        exclusions = empty_exclusions()
    has_budget = "budget" in frame.columns
    f = frame
    alg = f["algorithm"].cat
    bench = f["benchmark"].cat
    seed = f["seed"].cat
    na, nb, ns = len(alg.categories), len(bench.categories), len(seed.categories)
    a_codes = alg.codes.to_numpy().astype(np.int64)
    b_codes = bench.codes.to_numpy().astype(np.int64)
    s_codes = seed.codes.to_numpy().astype(np.int64)

    counts = pd.DataFrame(
        {
            "column": [
                roles.get(r, "(constant)" if r == "benchmark" else "")
                for r in ("algorithm", "benchmark", "seed")
            ],
            "distinct": [na, nb, ns],
        },
        index=pd.Index(["algorithm", "benchmark", "seed"], name="role"),
    )
    if has_budget:
        if budget_index is None:
            codes, levels = pd.factorize(f["budget"].to_numpy(), sort=True)
            budget_index = (codes, np.asarray(levels))
        budget_codes, budget_levels = budget_index
        present_budgets = np.bincount(budget_codes, minlength=len(budget_levels)) > 0
        counts.loc["budget"] = [roles["budget"], int(present_budgets.sum())]

    run_key = (a_codes * nb + b_codes) * ns + s_codes
    n_cells = na * nb * ns
    if n_cells <= MAX_CELLS:
        present = np.bincount(run_key, minlength=n_cells) > 0
    else:
        present_keys = np.unique(run_key)
        present = None
    if present is not None:
        runs_per_ab = present.reshape(na, nb, ns).sum(axis=2)
    else:
        runs_per_ab = np.bincount(present_keys // ns, minlength=na * nb).reshape(na, nb)
    balance = pd.DataFrame(
        runs_per_ab,
        index=pd.Index([str(c) for c in alg.categories], name="algorithm"),
        columns=pd.Index([str(c) for c in bench.categories], name="benchmark"),
    )
    paired = True
    if present is not None and na > 1:
        # Seeds that no two algorithms share (e.g. every random-search draw has its own
        # seed) make an unpaired design: balance is then about algorithm x benchmark cells.
        paired = bool((present.reshape(na, nb, ns).sum(axis=0) > 1).any())
    if present is not None and not paired:
        has_cell = present.reshape(na, nb, ns).any(axis=2).ravel()
        missing_ab = np.flatnonzero(~has_cell)
        n_missing = len(missing_ab)
        missing_idx = missing_ab * ns  # seed index 0 marks "any seed"
    elif present is not None:
        missing_idx = np.flatnonzero(~present)
        n_missing = len(missing_idx)
    else:
        n_missing = n_cells - len(present_keys)
        missing_idx = np.array([], dtype=np.int64)
        if n_missing:
            # Enumerate only the first few missing keys without materialising all cells.
            candidates = np.arange(min(n_cells, len(present_keys) + MAX_LISTED_MISSING))
            missing_idx = np.setdiff1d(candidates, present_keys)
    missing_idx = missing_idx[:MAX_LISTED_MISSING]
    ai, rest = np.divmod(missing_idx, nb * ns)
    bi, si = np.divmod(rest, ns)
    missing_cells = pd.DataFrame(
        {
            "algorithm": np.asarray(alg.categories.astype(str))[ai] if len(ai) else [],
            "benchmark": np.asarray(bench.categories.astype(str))[bi] if len(bi) else [],
            "seed": (np.asarray(seed.categories)[si] if paired else ["(any)"] * len(si))
            if len(si) else [],
        }
    )

    warnings: list[str] = []
    if not balanced_check(n_missing):
        warnings.append(_missing_cells_warning(
            n_missing, paired, None if present is None else present.reshape(na, nb, ns),
            [str(c) for c in bench.categories],
        ))
    if has_budget:
        first, last, distinct = _code_range_per_group(
            a_codes, na, budget_codes, len(budget_levels)
        )
        has = distinct > 0
        budgets = pd.DataFrame(
            {"min": budget_levels[first[has]], "max": budget_levels[last[has]],
             "distinct": distinct[has]},
            index=np.flatnonzero(has),
        )
        if present is not None:
            rows_per_run = np.bincount(run_key, minlength=n_cells).reshape(na, nb * ns)
            budgets["median_rows_per_run"] = [
                float(np.median(r[r > 0])) if (r > 0).any() else 0.0 for r in rows_per_run
            ]
        budgets.index = pd.Index([str(c) for c in alg.categories[budgets.index]],
                                 name="algorithm")
        if budgets["max"].nunique() > 1:
            top = budgets["max"].max()
            short = budgets.index[budgets["max"] < top].tolist()
            warnings.append(
                f"algorithms {short} stop at a smaller largest budget than the others "
                f"({budgets.loc[short, 'max'].min():g} vs {top:g}): comparisons of final "
                f"incumbents mix budgets; compare at a common budget (at_budget)."
            )
    else:
        budgets = pd.DataFrame(columns=["min", "max", "distinct", "median_rows_per_run"])

    meta_rows = []
    for m in metafeatures:
        col = f[m]
        m_codes, m_levels = pd.factorize(col)
        present_m = m_codes >= 0
        per_bench = _distinct_per_group(b_codes[present_m], nb, m_codes[present_m], len(m_levels))
        meta_rows.append(
            {
                "metafeature": m,
                "dtype": str(col.dtype),
                "distinct": len(m_levels),
                "missing": int((~present_m).sum()),
                "constant_within_benchmark": bool((per_bench <= 1).all()),
            }
        )
    metafeatures = pd.DataFrame(
        meta_rows,
        columns=["metafeature", "dtype", "distinct", "missing", "constant_within_benchmark"],
    ).set_index("metafeature")

    runs_left_out = exclusions[exclusions["unit"] == "run"]
    if len(runs_left_out):
        warnings.append(
            f"{len(runs_left_out):,} run(s) have no incumbent in this view and are left out "
            f"({runs_left_out['reason'].iloc[0]}, ...); they are listed in the exclusions "
            f"(unit 'run').")
    # One record per excluded row, so the counts add up to the rows dropped.
    exclusions = rows_by_reason(exclusions)
    return Description(
        counts=counts,
        balance=balance,
        missing_cells=missing_cells,
        n_missing_cells=int(n_missing),
        budgets=budgets,
        metafeatures=metafeatures,
        exclusions=exclusions,
        objective=objective,
        kind=kind,
        kind_reason=kind_reason,
        n_rows=len(f),
        warnings=tuple(warnings),
        paired=paired,
    )


def _row_hashes(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    """A 64-bit hash of each row's values (their bits mixed; equal rows, equal hashes).

    A few vectorised integer operations: hashing 3.3 million rows through pandas took
    0.9 s, as long as the rest of the description.
    """
    out = np.zeros(len(next(iter(columns.values()))), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k, values in enumerate(columns.values()):
            values = np.asarray(values)
            if values.dtype.kind == "f":
                values = values + 0.0  # -0.0 and 0.0 are one score
                bits = values.view(np.uint64)
            else:
                bits = values.astype(np.int64).view(np.uint64)
            h = (bits + np.uint64(k + 1)) * np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(31)
            h *= np.uint64(0xBF58476D1CE4E5B9)
            out ^= h ^ (h >> np.uint64(29))
            out *= np.uint64(0x94D049BB133111EB)
    return out


#: The columns of :func:`cell_fingerprints`.
FINGERPRINT_COLUMNS = ["cell", "low", "high", "n", "min", "max"]


def cell_fingerprints(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (algorithm, benchmark) cell: an order-free fingerprint of its rows, and its range.

    ``cell`` is ``algorithm code * benchmarks + benchmark code``; ``low`` and
    ``high`` are the sums of the low and high 32 bits of each row's hash (seed
    code, budget, score), ``n`` its rows, ``min`` and ``max`` its scores. Sums,
    minima and maxima: partitions of the rows combine them by adding and
    taking extremes (:func:`combine_fingerprints`), so the in-memory and the
    partitioned description agree. Two cells with the same multiset of rows
    have the same fingerprint; others collide with probability about 2^-64.
    """
    score = frame["score"].to_numpy(dtype=float)
    parts = _hashed_rows(frame, score).assign(n=1, min=score, max=score)
    return combine_fingerprints([parts])


def _hashed_rows(frame: pd.DataFrame, score: np.ndarray) -> pd.DataFrame:
    """Each row's cell and the two 32-bit halves of its (seed, budget, ``score``) hash."""
    nb = len(frame["benchmark"].cat.categories)
    cell = (frame["algorithm"].cat.codes.to_numpy().astype(np.int64) * nb
            + frame["benchmark"].cat.codes.to_numpy().astype(np.int64))
    columns = {"seed": frame["seed"].cat.codes.to_numpy().astype(np.int64), "score": score}
    if "budget" in frame.columns:
        columns["budget"] = frame["budget"].to_numpy(dtype=float)
    hashes = _row_hashes(columns) if len(frame) else np.zeros(0, dtype=np.uint64)
    return pd.DataFrame({"cell": cell,
                         "low": (hashes & np.uint64(0xFFFFFFFF)).astype(np.int64),
                         "high": (hashes >> np.uint64(32)).astype(np.int64)})


#: The columns of :func:`run_fingerprints`.
RUN_FINGERPRINT_COLUMNS = ["cell", "seed", "low", "high", "n", "content_low", "content_high"]


def run_fingerprints(frame: pd.DataFrame) -> pd.DataFrame:
    """Per run (cell and seed code): an order-free fingerprint of its rows.

    As :func:`cell_fingerprints`, per (algorithm, benchmark, seed): ``low`` and
    ``high`` sum the 32-bit halves of its rows' hashes, ``n`` counts them;
    ``content_low`` and ``content_high`` do the same without the seed (equal
    for two runs of any seeds with the same rows). Partitions add
    (:func:`combine_run_fingerprints`). They let a copy that lacks some runs
    be found, and tell how often two runs are equal by chance
    (:func:`run_collision_probabilities`).
    """
    score = frame["score"].to_numpy(dtype=float)
    parts = _hashed_rows(frame, score).assign(n=1, **_run_contents(frame, score))
    return combine_run_fingerprints([parts])


def _run_contents(frame: pd.DataFrame, score: np.ndarray) -> dict[str, np.ndarray]:
    """Each row's seed code and the two 32-bit halves of its (budget, ``score``) hash."""
    content = {"score": score + 0.0}
    if "budget" in frame.columns:
        content["budget"] = frame["budget"].to_numpy(dtype=float)
    hashes = _row_hashes(content) if len(frame) else np.zeros(0, dtype=np.uint64)
    return {"seed": frame["seed"].cat.codes.to_numpy().astype(np.int64),
            "content_low": (hashes & np.uint64(0xFFFFFFFF)).astype(np.int64),
            "content_high": (hashes >> np.uint64(32)).astype(np.int64)}


def combine_run_fingerprints(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """:func:`run_fingerprints` of several partitions, as one (sums per run)."""
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        columns=RUN_FINGERPRINT_COLUMNS)
    out = frame.groupby(["cell", "seed"], sort=True).agg(
        low=("low", "sum"), high=("high", "sum"), n=("n", "sum"),
        content_low=("content_low", "sum"), content_high=("content_high", "sum")
    ).reset_index()
    return out[RUN_FINGERPRINT_COLUMNS]


def cell_collision_probabilities(runs: pd.DataFrame) -> pd.Series:
    """Per cell, the share of its pairs of runs (different seeds) whose contents are equal.

    A benchmark near its ceiling has many equal runs ({1, 1, 1, 0.95, 1}:
    0.6), which the rate pooled over all of an algorithm's benchmarks
    understates; a copy is across benchmarks, so it does not raise it. 0
    for a cell with fewer than two runs.

    Examples
    --------
    >>> runs = pd.DataFrame({"cell": [0] * 5, "content_low": [1, 1, 1, 2, 1],
    ...                      "content_high": [0] * 5, "n": [1] * 5})
    >>> float(cell_collision_probabilities(runs).loc[0])
    0.6
    """
    rate, total = _equal_run_rate(runs, runs["cell"])
    return rate.where(total > 1, 0.0)


def _equal_run_rate(runs: pd.DataFrame, by: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Per level of ``by``: ``sum n_v (n_v - 1) / (N (N - 1))`` over run contents, and ``N``."""
    key = pd.DataFrame({"by": by, "low": runs["content_low"] % 2**32,
                        "high": runs["content_high"] % 2**32, "n": runs["n"]})
    same = key.groupby(["by", "low", "high", "n"]).size().astype(float)
    total = same.groupby(level="by").sum()
    pairs = (same * (same - 1.0)).groupby(level="by").sum()
    return pairs / (total * (total - 1.0)), total


def run_collision_probabilities(runs: pd.DataFrame, nb: int, algorithms: Sequence[int],
                                skip_cells: Sequence[int] = (), *,
                                resolution: bool = False) -> dict[int, float]:
    """Per algorithm code, the chance that two of its runs, two different ones, are equal.

    ``sum n_v (n_v - 1) / (N (N - 1))`` over the distinct run contents ``v``
    (its rows without the seed, :func:`run_fingerprints`) of the algorithm's
    ``N`` runs outside ``skip_cells``; with ``resolution``, at least ``1 / N``
    (the smallest rate ``N`` runs can show). The run, not the row, is the unit: the
    rows of one run (its incumbent along the budget) repeat each other, and
    0/1 incumbent curves that step at the same budget are equal far more
    often than the rows' chance to the power of their number says.
    """
    table = runs[(runs["cell"] // nb).isin(list(algorithms))
                 & ~runs["cell"].isin(list(skip_cells))]
    rate, n = _equal_run_rate(table, table["cell"] // nb)
    # With the copies skipped a coincidence by chance is a value seen once, and N runs
    # cannot show a rate below about 1 / N: two cells of discrete accuracies that rescale
    # alike (one interior run each) were "copies" in most data sets without the floor.
    if resolution:
        rate = np.maximum(rate, 1.0 / n)
    rate = rate.where(n > 1, 1.0)
    return {int(a): float(rate.get(a, 1.0)) for a in algorithms}


#: Copies that lack runs: cells sharing at least this many identical runs (and nothing
#: else in common, at least half of each cell's runs) are one observation.
MIN_SHARED_RUNS = 2
#: A run repeated on more benchmarks than this is not enumerated pair by pair (a value
#: every benchmark reaches by chance, e.g. a 0/1 score of one row).
MAX_RUN_COPIES = 64


def partial_copies(runs: pd.DataFrame, nb: int) -> pd.DataFrame:
    """Pairs of one algorithm's cells whose common runs are all identical (one lacks some).

    ``runs`` are :func:`run_fingerprints`. Two cells of an algorithm are a
    copy with runs missing when every seed both have holds the same rows on
    both, they share at least :data:`MIN_SHARED_RUNS` runs and at least half
    of each cell's runs. Returns ``algorithm, first, second, shared`` (runs;
    benchmark codes, ``first < second``); the chance rule is the caller's
    (:func:`copied_cell_groups`).
    """
    columns = ["algorithm", "first", "second", "shared"]
    if not len(runs):
        return pd.DataFrame(columns=columns)
    table = runs.assign(low=runs["low"] % 2**32, high=runs["high"] % 2**32,
                        algorithm=runs["cell"] // nb, benchmark=runs["cell"] % nb)
    same = table.groupby(["algorithm", "seed", "low", "high", "n"])["benchmark"].agg(list)
    same = same[same.map(len).between(2, MAX_RUN_COPIES)]
    if not len(same):
        return pd.DataFrame(columns=columns)
    pairs = [(a, x, y) for (a, *_), benches in same.items()
             for i, x in enumerate(sorted(benches)) for y in sorted(benches)[i + 1:]]
    shared = (pd.DataFrame(pairs, columns=["algorithm", "first", "second"])
              .groupby(["algorithm", "first", "second"]).size().rename("shared")
              .reset_index())
    shared = shared[shared["shared"] >= MIN_SHARED_RUNS]
    if not len(shared):
        return pd.DataFrame(columns=columns)
    seeds = table.groupby("cell")["seed"].agg(frozenset)
    keep = []
    for a, x, y, n_shared in shared[["algorithm", "first", "second", "shared"]].itertuples(
            index=False):
        sx, sy = seeds.loc[a * nb + x], seeds.loc[a * nb + y]
        keep.append(len(sx & sy) == n_shared  # every common seed identical
                    and 2 * n_shared >= max(len(sx), len(sy)))
    return shared.loc[keep, columns].reset_index(drop=True)


#: Scores rescaled to a cell's range are compared to this many decimals: an affine map per
#: benchmark (a regret normalised per benchmark) leaves round-off near 1e-15.
SHAPE_DECIMALS = 9


def cell_shape_fingerprints(frame: pd.DataFrame, prints: pd.DataFrame) -> pd.DataFrame:
    """Per run, the fingerprint of its rows with scores rescaled to its cell's range.

    ``prints`` are the cells' :func:`cell_fingerprints` (their ``min`` and
    ``max``, over every partition). Two cells whose scores differ by an
    increasing affine map (a score normalised per benchmark: PriorBand's
    ``normalized_regret`` beside its ``value``) have the same shape
    fingerprint (:func:`with_shapes` sums the runs' per cell). ``interior``
    counts the rows strictly inside the range: a cell without any (two
    distinct scores at most) has a shape every such cell of the same seeds
    shares, so it is matched by its exact rows only. ``content_low`` and
    ``content_high`` fingerprint each run's rescaled rows without its seed:
    how often two runs' shapes coincide by chance
    (:func:`run_collision_probabilities`). Sums per (cell, seed), as
    :func:`run_fingerprints`: partitions add.
    """
    nb = len(frame["benchmark"].cat.categories)
    cell = (frame["algorithm"].cat.codes.to_numpy().astype(np.int64) * nb
            + frame["benchmark"].cat.codes.to_numpy().astype(np.int64))
    bounds = prints.set_index("cell")[["min", "max"]]
    lo = bounds["min"].reindex(cell).to_numpy(dtype=float)
    hi = bounds["max"].reindex(cell).to_numpy(dtype=float)
    score = frame["score"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        shape = np.where(hi > lo, (score - lo) / (hi - lo), 0.0)
    rounded = np.round(shape, SHAPE_DECIMALS) + 0.0
    parts = _hashed_rows(frame, rounded).assign(
        interior=((score > lo) & (score < hi)).astype(np.int64), n=1,
        **_run_contents(frame, rounded))
    return combine_shape_fingerprints([parts])


def combine_shape_fingerprints(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """:func:`cell_shape_fingerprints` of several partitions, as one (sums per run)."""
    columns = ["cell", "seed", "low", "high", "n", "interior", "content_low", "content_high"]
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)
    return frame.groupby(["cell", "seed"], sort=True).agg(
        low=("low", "sum"), high=("high", "sum"), n=("n", "sum"),
        interior=("interior", "sum"), content_low=("content_low", "sum"),
        content_high=("content_high", "sum")).reset_index()[columns]


def with_shapes(prints: pd.DataFrame, shapes: pd.DataFrame) -> pd.DataFrame:
    """``prints`` whose cells with interior rows are fingerprinted by their shape.

    ``shapes`` are :func:`cell_shape_fingerprints` (per run; summed per cell
    here). Copies are then found up to an increasing affine map of each
    cell's scores; cells with two distinct scores at most keep their exact
    rows.
    """
    out = prints.copy()
    per_cell = shapes.groupby("cell", sort=True).agg(
        low=("low", "sum"), high=("high", "sum"), interior=("interior", "sum")).reset_index()
    merged = out[["cell"]].merge(per_cell, on="cell", how="left")
    use = merged["interior"].fillna(0).to_numpy() > 0
    out.loc[use, "low"] = merged.loc[use, "low"].to_numpy()
    out.loc[use, "high"] = merged.loc[use, "high"].to_numpy()
    return out


def combine_fingerprints(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """:func:`cell_fingerprints` of several partitions, as one (sums, extremes per cell)."""
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        columns=FINGERPRINT_COLUMNS)
    out = frame.groupby("cell", sort=True).agg(
        low=("low", "sum"), high=("high", "sum"), n=("n", "sum"), min=("min", "min"),
        max=("max", "max")).reset_index()
    return out[FINGERPRINT_COLUMNS]


#: A group of identical cells is reported only when chance would give fewer than this many
#: such coincidences among the algorithm's cells (scores 0/1 on 3 seeds coincide often).
CHANCE_COPIES = 0.01


def copied_cell_groups(prints: pd.DataFrame, runs: pd.DataFrame, algorithms: Sequence[str],
                       benchmarks: Sequence[str],
                       shapes: pd.DataFrame | None = None) -> dict[str, list[list[str]]]:
    """Per algorithm, the groups of benchmarks on which its runs are identical.

    Two benchmarks on which an algorithm has the same rows (seed, budget and
    score, in any order) are one observation of it counted twice. ``prints``
    are the cells' :func:`cell_fingerprints`, ``runs`` their
    :func:`run_fingerprints`; with ``shapes`` (:func:`cell_shape_fingerprints`)
    cells are compared up to a rescaling of each cell's scores too. A cell
    whose scores are all equal (a ceiling reached from the start) is no copy.
    A copy that lacks some runs (a crashed seed) is found run by run
    (:func:`partial_copies`; raw scores only, since a missing run can move a
    cell's range). Groups that share a benchmark are joined.

    Few distinct scores (0/1, accuracies on small test sets) make equal cells
    likely by chance. A group whose cells share ``n`` runs counts only when
    ``C(m, 2) c^n`` (the coincidences to expect among the algorithm's ``m``
    cells) is below :data:`CHANCE_COPIES`, where ``c`` is the chance that two
    runs are equal: the larger of the algorithm's rate over all its runs
    (:func:`run_collision_probabilities`, counted without each group's copies
    but its first: a copy would make its own runs look like ties, and at 10
    cells of 3 runs hide itself) and the rate within each of the group's
    cells (:func:`cell_collision_probabilities`: a benchmark near its
    ceiling repeats its runs). For cells equal only up to a rescaling, the
    evidence is in the runs with a row strictly inside the cell's range (the
    runs at its minimum or maximum rescale to 0 or 1 in every cell): ``n``
    counts those, both rates are of their rescaled contents (three runs of
    discrete accuracies rescale to 0, t and 1, and t repeats often), and the
    pooled rate is at least ``1 / N`` for its ``N`` runs.
    The run, not the row, is the unit: the rows of one run (its incumbent
    along the budget) repeat each other, and 0/1 incumbent curves counted by
    rows were taken for copies. Algorithms and groups are in the order of
    their codes; benchmarks within a group too.

    Examples
    --------
    >>> frame = pd.DataFrame({"algorithm": pd.Categorical(["a"] * 4 + ["b"] * 4),
    ...                       "benchmark": pd.Categorical(["p", "p", "q", "q"] * 2),
    ...                       "seed": pd.Categorical([0, 1] * 4),
    ...                       "score": [0.1, 0.2, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]})
    >>> copied_cell_groups(cell_fingerprints(frame), run_fingerprints(frame), ["a", "b"],
    ...                    ["p", "q"])
    {'a': [['p', 'q']]}
    """
    nb = len(benchmarks)
    if nb < 2 or not len(prints):
        return {}
    varied_prints = prints[prints["max"] > prints["min"]]
    raw_key = {int(c): (int(lo) % 2**32, int(hi) % 2**32, int(n)) for c, lo, hi, n in
               varied_prints[["cell", "low", "high", "n"]].itertuples(index=False)}
    table = (with_shapes(varied_prints, shapes) if shapes is not None
             else varied_prints).copy()
    # Sums of 32-bit halves: equal multisets of rows give equal sums modulo 2^32.
    table["low"] %= 2**32
    table["high"] %= 2**32
    table["algorithm"], table["benchmark"] = table["cell"] // nb, table["cell"] % nb
    groups = table.groupby(["algorithm", "low", "high", "n"])["benchmark"].agg(list)
    groups = groups[groups.map(len) > 1]
    # Candidates: (algorithm, benchmarks, runs that coincide, equal only up to a rescaling).
    runs_of = runs.groupby("cell").size()
    inner = None if shapes is None else shapes[shapes["interior"] > 0]
    inner_of = None if inner is None else inner.groupby("cell").size()
    candidates = []
    for (a, *_), benches in groups.items():
        a, benches = int(a), sorted(int(b) for b in benches)
        exact = len({raw_key[a * nb + b] for b in benches}) == 1
        units = (runs_of if exact else inner_of).get(a * nb + benches[0], 1)
        candidates.append((a, benches, int(units), not exact))
    varied = set(table["cell"].astype(int))  # a constant cell is no copy
    partial = partial_copies(runs[runs["cell"].isin(varied)], nb)
    grouped = {(a, b): g for g, (a, benches, *_) in enumerate(candidates) for b in benches}
    candidates += [(int(a), [int(x), int(y)], int(n), False)
                   for a, x, y, n in partial.itertuples(index=False)
                   if grouped.get((a, x), -1) != grouped.get((a, y), -2)]
    if not candidates:
        return {}
    copies = sorted({a * nb + b for a, benches, *_ in candidates for b in benches[1:]})
    codes = sorted({a for a, *_ in candidates})
    chance = {False: run_collision_probabilities(runs, nb, codes, copies)}
    within = {False: cell_collision_probabilities(runs)}
    if inner is not None and any(shaped for *_, shaped in candidates):
        chance[True] = run_collision_probabilities(inner, nb, codes, copies,
                                                   resolution=True)
        within[True] = cell_collision_probabilities(inner)
    cells = table.groupby("algorithm").size()
    edges: dict[int, list[list[int]]] = {}
    for a, benches, n, shaped in candidates:
        m = int(cells.loc[a])
        c = max([chance[shaped].get(a, 0.0)]
                + [float(within[shaped].get(a * nb + b, 0.0)) for b in benches])
        if m * (m - 1) / 2 * c ** n >= CHANCE_COPIES:
            continue  # as likely by chance as by a copy
        edges.setdefault(a, []).append(benches)
    found = {a: _joined(groups) for a, groups in edges.items()}
    return {str(algorithms[a]): [[str(benchmarks[b]) for b in group]
                                 for group in sorted(found[a])] for a in sorted(found)}


def _joined(groups: list[list[int]]) -> list[list[int]]:
    """Groups that share a member, joined (connected components), each sorted."""
    members = sorted({x for group in groups for x in group})
    labels = connected_components(len(members), [str(x) for x in members],
                                  [[str(x) for x in group] for group in groups])
    out: dict[int, list[int]] = {}
    for x, label in zip(members, labels):
        out.setdefault(int(label), []).append(x)
    return sorted(out.values())


def copied_runs_text(found: Mapping[str, Sequence[Sequence[str]]]) -> str:
    """The warning for :func:`copied_cell_groups`' groups ("" when there are none).

    Claims across benchmarks take benchmarks as independent replicates; the
    tests across benchmarks count each group of copies as one replicate
    (:mod:`benchverdict.replicates`), the LMEM's model does not. PriorBand's HB
    and RS ignore the prior, so their runs on a benchmark's ``at25`` and
    ``bad`` variants are identical: 24 benchmarks hold 12 independent HB-RS
    differences.

    Examples
    --------
    >>> copied_runs_text({"HB": [["t1-at25", "t1-bad"]]})[:62]
    'algorithm HB has identical runs on one group of benchmarks (e.'
    """
    if not found:
        return ""

    def listed(names: Sequence[str]) -> str:
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    parts = [f"algorithm {name} has identical runs on "
             + (f"{len(sets)} groups of benchmarks" if len(sets) > 1 else "one group of "
                "benchmarks") + f" (e.g. {listed(list(sets[0][:3]))})"
             for name, sets in list(found.items())[:5]]
    more = f"; and {len(found) - 5} more algorithm(s)" if len(found) > 5 else ""
    one = len(found) == 1
    return ("; ".join(parts) + more + ": on those benchmarks "
            + ("its runs are" if one else "each one's runs are") + " one observation counted "
            "more than once. The tests across benchmarks (the rank tests, the LMEM's "
            "paired test) and the effect sizes count each such group as one replicate; the "
            "LMEM's model and Autorank's decision path (reproduced as Autorank runs it) "
            "count every benchmark, so their own evidence about "
            + ("it" if one else "them") + " is overstated (if the benchmarks are variants "
            "an algorithm ignores, e.g. a prior it does not use, compare on one variant, or "
            "treat the variants as one benchmark).")


def _missing_cells_warning(
    n_missing: int, paired: bool, present: np.ndarray | None, benchmarks: list[str]
) -> str:
    """What missing cells do to the rank tests, as ``Results.blocks`` really handles them.

    ``present`` is the algorithm x benchmark x seed mask of runs (``None``
    when the cross product is too large to enumerate).
    """
    if not paired:
        dropped = [] if present is None else [
            b for b, ok in zip(benchmarks, present.any(axis=2).all(axis=0)) if not ok]
        shown = ", ".join(dropped[:5]) + (" ..." if len(dropped) > 5 else "")
        return (
            f"{n_missing:,} algorithm x benchmark cell(s) have no data: rank tests over "
            f"benchmarks drop the {len(dropped):,} benchmark(s) concerned"
            f"{f' ({shown})' if dropped else ''}."
        )
    head = f"{n_missing:,} algorithm x benchmark x seed cell(s) have no data."
    if present is None:
        return (
            f"{head} Rank tests over benchmarks use complete cases: they average only the "
            f"seeds every algorithm has in a benchmark and drop benchmarks with none."
        )
    complete = present.all(axis=0)  # benchmark x seed: every algorithm has this seed
    kept = complete.any(axis=1)
    left_out = int((present & ~complete[None, :, :])[:, kept, :].sum())
    dropped = [b for b, ok in zip(benchmarks, kept) if not ok]
    parts = [f"leave out {left_out:,} run(s) whose seed another algorithm lacks"]
    if dropped:
        shown = ", ".join(dropped[:5]) + (" ..." if len(dropped) > 5 else "")
        parts.append(f"drop {len(dropped):,} benchmark(s) where no seed is complete ({shown})")
    return (
        f"{head} Rank tests over benchmarks (final incumbents) use complete cases: they "
        f"average only the seeds every algorithm has in a benchmark, so they "
        f"{' and '.join(parts)}."
    )


def _code_range_per_group(
    group_codes: np.ndarray, n_groups: int, value_codes: np.ndarray, n_values: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group: smallest and largest value code present, and how many distinct codes.

    ``value_codes`` come from a sorted factorisation, so the smallest code is
    the smallest value.
    """
    n_values = max(n_values, 1)
    pair = group_codes.astype(np.int64) * n_values + value_codes
    if n_groups * n_values <= 50_000_000:
        seen = (np.bincount(pair, minlength=n_groups * n_values) > 0).reshape(n_groups, n_values)
    else:
        seen = np.zeros((n_groups, n_values), dtype=bool)
        u = np.unique(pair)
        seen[u // n_values, u % n_values] = True
    distinct = seen.sum(axis=1)
    first = np.argmax(seen, axis=1)
    last = n_values - 1 - np.argmax(seen[:, ::-1], axis=1)
    return first, last, distinct


def _distinct_per_group(
    group_codes: np.ndarray, n_groups: int, value_codes: np.ndarray, n_values: int
) -> np.ndarray:
    """Number of distinct values in each group, from integer codes (no hashing)."""
    pair = group_codes.astype(np.int64) * max(n_values, 1) + value_codes
    if n_groups * n_values <= 50_000_000:
        seen = np.bincount(pair, minlength=n_groups * max(n_values, 1)) > 0
        return seen.reshape(n_groups, max(n_values, 1)).sum(axis=1)
    return np.bincount(np.unique(pair) // max(n_values, 1), minlength=n_groups)


def balanced_check(n_missing: int) -> bool:
    """Whether no cell is missing."""
    return n_missing == 0

