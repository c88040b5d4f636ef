"""``DaskResults``: a :class:`~benchverdict.results.Results` whose rows stay in Dask partitions.

It has the public API of ``Results``; the views the analyses use are
per-partition reductions added up on the client:

* :meth:`DaskResults.at_budget` / :meth:`DaskResults.final`: each partition
  picks, per run, its candidate incumbent (the last row at or below the
  budget for ``kind="runs"``; the best trial, earliest on ties, for
  ``"trials"``); the client keeps, per run, the candidate with the largest
  budget (``"runs"``) or the best score (``"trials"``). A run split across
  partitions gets the same incumbent as in memory, because both rules are
  associative.
* :meth:`DaskResults.incumbent_cube`: the same for many budgets at once.
* :meth:`DaskResults.blocks`, :meth:`DaskResults.runs_without_incumbent`,
  ``describe()`` and the pairing rule use the per-run summaries made during
  validation and the incumbents above; the rank matrices are then built by
  the in-memory code.
* :func:`benchverdict.lmem.fit` sums the cross-products per partition
  (:mod:`benchverdict._dask.lmem`), and the tuning curves sketch cells too
  large for the client (:mod:`benchverdict._dask.sketch`): the two steps of
  its engine (:class:`DaskEngine`, the ``Engine`` protocol of
  :mod:`benchverdict.results.engine`).

Views that need every row on the client (``table``, ``draws``,
``iter_draws``) are exact and are computed when the rows fit
(:data:`MAX_CLIENT_ROWS`); beyond that they raise a clear error instead of
exhausting the client's memory.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from benchverdict._dask.compute import compute_all
from benchverdict._dask.describe import describe_partitioned
from benchverdict._dask.frame import _budget_levels, _meta_levels, canonical_partition
from benchverdict.results import ID_ROLES, Results
from benchverdict.stats.row_sample import keep

#: The most rows a view that needs every row (``table``, ``draws``) brings to the client.
#: 10^7 canonical rows took 1.4 GB of client memory in the report (benchmarks/bench_dask.py),
#: which keeps the client under 4 GB; set ``benchverdict._dask.results.MAX_CLIENT_ROWS``
#: to change it.
MAX_CLIENT_ROWS = 10_000_000


class RowsTooLargeError(MemoryError):
    """A view needs every row on the client, and there are more than ``MAX_CLIENT_ROWS``."""


def _run_codes(frame: pd.DataFrame, sizes: Sequence[int]) -> np.ndarray:
    key = np.zeros(len(frame), dtype=np.int64)
    for role, size in zip(ID_ROLES, sizes):
        key = key * size + frame[role].cat.codes.to_numpy().astype(np.int64)
    return key


def _kept_rows(canon: pd.DataFrame, rate: float, seed: int) -> pd.DataFrame:
    """The rows of one partition in the uniform sample at ``rate`` (by global position)."""
    return canon[keep(canon.index.to_numpy(), rate, seed)]


def _run_rows_at(canon: pd.DataFrame, budget: float, sizes: Sequence[int]) -> pd.Series:
    """Rows per run code with budget <= ``budget`` in this partition."""
    run = _run_codes(canon[canon["budget"].to_numpy() <= budget], sizes)
    codes, counts = np.unique(run, return_counts=True)
    return pd.Series(counts, index=codes)


def _pick_partition(canon: pd.DataFrame, budget: float | None, kind: str, sign: float,
                    sizes: Sequence[int]) -> pd.DataFrame:
    """Per run, this partition's candidate incumbent at ``budget`` (None: over all rows)."""
    if budget is not None:
        canon = canon[canon["budget"].to_numpy() <= budget]
    run = _run_codes(canon, sizes)
    b = canon["budget"].to_numpy()
    if kind == "runs":
        order = np.lexsort((b, run))
        last = np.r_[run[order][1:] != run[order][:-1], True] if len(run) else np.array(
            [], dtype=bool)
        chosen = order[last]
    else:
        oriented = canon["score"].to_numpy() * sign
        order = np.lexsort((b, -oriented, run))
        first = np.r_[True, run[order][1:] != run[order][:-1]] if len(run) else np.array(
            [], dtype=bool)
        chosen = order[first]
    out = canon.iloc[chosen].copy()
    out["__run__"] = run[chosen]
    return out


def _cube_partition(canon: pd.DataFrame, budgets: np.ndarray, kind: str, sign: float,
                    sizes: Sequence[int]) -> pd.DataFrame:
    """Per run and budget, this partition's candidate: (run, t, budget there, score)."""
    run = _run_codes(canon, sizes)
    b = canon["budget"].to_numpy()
    s = canon["score"].to_numpy() * sign
    order = np.lexsort((b, run))
    run, b, s = run[order], b[order], s[order]
    if kind == "trials" and len(s):
        s = pd.Series(s).groupby(run).cummax().to_numpy()  # best trial so far, per run
    # One binary search per (run, budget) in the sorted (run, budget) keys, as the in-memory
    # views.incumbent_cube: a pass over every row per budget took 75 of the 180 s of a
    # Dask report on 10^8 rows (64 budgets).
    levels, b_codes = np.unique(b, return_inverse=True)
    n_levels = max(len(levels), 1)
    key = run * n_levels + b_codes.reshape(-1)  # non-decreasing: sorted by run, then budget
    runs = run[np.r_[True, run[1:] != run[:-1]]] if len(run) else run  # sorted: distinct
    level_at = np.searchsorted(levels, np.asarray(budgets, dtype=float), side="right") - 1
    pieces = []
    for t, level in enumerate(level_at):
        if level < 0:  # no row at or below this budget
            continue
        # The last row of each run at or below the budget (the last of equal budgets); a
        # run without one finds an earlier run's row, or none.
        pos = np.searchsorted(key, runs * n_levels + level, side="right") - 1
        ok = pos >= 0
        ok[ok] = run[pos[ok]] == runs[ok]
        pos = pos[ok]
        if not len(pos):
            continue
        pieces.append(pd.DataFrame({"run": run[pos], "t": t, "b": b[pos], "s": s[pos]}))
    if not pieces:
        return pd.DataFrame({"run": np.array([], dtype=np.int64), "t": np.array([], dtype=int),
                             "b": np.array([], dtype=float), "s": np.array([], dtype=float)})
    return pd.concat(pieces, ignore_index=True)


def _rows_of_cell(canon: pd.DataFrame, algorithm: str, benchmark: str) -> np.ndarray:
    mask = ((canon["algorithm"] == algorithm).to_numpy()
            & (canon["benchmark"] == benchmark).to_numpy())
    return canon["score"].to_numpy()[mask]


def _first_per_benchmark(canon: pd.DataFrame, name: str) -> pd.Series:
    return canon.groupby("benchmark", observed=True)[name].first().dropna()


class DaskResults(Results):
    """A :class:`~benchverdict.results.Results` whose rows stay in Dask partitions.

    Made by :func:`benchverdict.read` with ``engine="dask"`` or by
    :meth:`Results.from_frame` given a Dask DataFrame; use it exactly like a
    ``Results`` (see the module docstring for how each view is computed).

    Attributes
    ----------
    partition_names : list of str
        The file (or partition) behind each partition, named in messages.

    Examples
    --------
    >>> import pytest; dd = pytest.importorskip("dask.dataframe")  # the dask extra
    >>> from benchverdict.results import _example_small
    >>> df = _example_small().table.reset_index(drop=True)
    >>> from benchverdict.io import from_dask_frame
    >>> res = from_dask_frame(dd.from_pandas(df, npartitions=3), algorithm="algorithm",
    ...                          benchmark="benchmark", seed="seed", budget="budget",
    ...                          score="score", objective="maximize")
    >>> type(res).__name__, len(res), res.kind
    ('DaskResults', 16, 'trials')
    >>> res.final().table["score"].tolist() == _example_small().final().table["score"].tolist()
    True
    """

    __slots__ = ("_n_rows", "_parts", "_spec", "_summary", "partition_names")

    @classmethod
    def build(cls, *, parts: list, offsets: np.ndarray, names: list[str], roles: dict,
              metafeatures: tuple, categories: dict, dropped: np.ndarray, objective: str,
              kind: str, kind_reason: str, exclusions: pd.DataFrame, summary: pd.DataFrame,
              n_rows: int, persist: bool, meta: pd.DataFrame,
              progress: bool = False, cache: dict | None = None) -> DaskResults:
        """Assemble a validated DaskResults (called by ``from_dask_frame``)."""
        import dask

        ends = np.r_[offsets[1:], np.iinfo(np.int64).max]
        canon = [
            dask.delayed(canonical_partition)(
                p, int(o), roles, metafeatures, categories,
                dropped[(dropped >= o) & (dropped < e)])
            for p, o, e in zip(parts, offsets, ends)
        ]
        if persist:
            from benchverdict._dask.compute import current_client

            client = current_client()
            canon = client.persist(canon) if client is not None else list(dask.persist(*canon))
        empty = canonical_partition(meta.iloc[:0], 0, roles, metafeatures, categories,
                                    np.array([], dtype=np.int64))
        public_roles = {r: roles[r] for r in ("algorithm", "seed", "score", "benchmark",
                                              "budget") if r in roles}
        out = cls(empty, objective=objective, kind=kind, kind_reason=kind_reason,  # type: ignore[arg-type]
                  roles=public_roles, metafeatures=metafeatures, exclusions=exclusions)
        object.__setattr__(out, "_parts", canon)
        object.__setattr__(out, "_summary", summary)
        object.__setattr__(out, "_n_rows", int(n_rows))
        object.__setattr__(out, "_spec", {"sizes": [len(categories[r]) for r in ID_ROLES],
                                          "progress": progress})
        object.__setattr__(out, "partition_names", list(names))
        out._cache.update(cache or {})  # reductions made during validation (describe)
        return out

    # ------------------------------------------------------------------ plumbing
    def __getstate__(self) -> dict:
        names = ("_frame", "exclusions", "kind", "kind_reason", "metafeatures", "objective",
                 "roles", "_n_rows", "_parts", "_spec", "_summary", "partition_names")
        return {n: getattr(self, n) for n in names}

    def __len__(self) -> int:
        return self._n_rows

    @property
    def npartitions(self) -> int:
        """The number of partitions."""
        return len(self._parts)

    def _sizes(self) -> list[int]:
        return list(self._spec["sizes"])

    def _map(self, func, *args, desc: str, progress: bool | None = None) -> list:
        import dask

        tasks = [dask.delayed(func)(p, *args) for p in self._parts]
        shown = self._spec.get("progress", False) if progress is None else progress
        return compute_all(tasks, desc=desc, progress=shown)

    def _map_sum(self, func, *args, desc: str) -> Any:
        """Like :meth:`_map`, with the partial results added pairwise on the workers.

        The client receives one sum instead of one partial result per
        partition (100 LMEM cross-products with 2,000 random-effect levels are
        3 GB; their sum is 32 MB).
        """
        import operator

        import dask

        tasks = [dask.delayed(func)(p, *args) for p in self._parts]
        while len(tasks) > 1:
            paired = [dask.delayed(operator.add)(a, b) for a, b in zip(tasks[::2], tasks[1::2])]
            tasks = paired + (tasks[-1:] if len(tasks) % 2 else [])
        return compute_all(tasks, desc=desc, progress=self._spec.get("progress", False))[0]

    def __repr__(self) -> str:
        budget = f", {len(self.budgets)} budgets" if self.has_budget else ""
        return (
            f"DaskResults({len(self)} rows in {self.npartitions} partitions, kind={self.kind!r}, "
            f"objective={self.objective!r}: {len(self.algorithms)} algorithms x "
            f"{len(self.benchmarks)} benchmarks x {len(self.seeds)} seeds{budget}; "
            f"{len(self.exclusions)} rows excluded)"
        )

    def equals(self, other: object) -> bool:
        """Whether ``other`` holds the same rows, roles, objective, kind and exclusions."""
        if not isinstance(other, Results):
            return False
        mine = self.in_memory()
        return mine.equals(other.in_memory() if isinstance(other, DaskResults) else other)

    def copy(self) -> DaskResults:
        """The object itself: it is immutable and its partitions are never changed."""
        return self

    # ------------------------------------------------------------------ whole-table views
    def _check_fits(self, what: str, rows: int, alternative: str = "") -> None:
        if rows > MAX_CLIENT_ROWS:
            raise RowsTooLargeError(
                f"{what} needs {rows:,} rows on the client, more than MAX_CLIENT_ROWS = "
                f"{MAX_CLIENT_ROWS:,}. Every benchverdict analysis that scales (describe, "
                f"at_budget/final, blocks and the rank tests, anytime ranks, the LMEM fit on "
                f"the long table) runs per partition; this view does not. Fix: subset the "
                f"data, raise benchverdict._dask.results.MAX_CLIENT_ROWS if the client has "
                f"the memory, or use the incumbents (final(), at_budget()).{alternative}")

    @property
    def table(self) -> pd.DataFrame:
        """Every row in the canonical schema, on the client (exact; see ``MAX_CLIENT_ROWS``)."""
        self._check_fits("the long table", len(self))
        if "table" not in self._cache:
            parts = self._map(lambda p: p, desc="collecting rows")
            self._cache["table"] = pd.concat(parts) if parts else self._frame
        return self._cache["table"].copy(deep=False)

    def in_memory(self) -> Results:
        """The same data as an in-memory :class:`Results` (exact; see ``MAX_CLIENT_ROWS``)."""
        return self._with_rows(self.table)

    def _with_rows(self, table: pd.DataFrame) -> Results:
        """An in-memory Results of these canonical rows, with this one's roles and exclusions."""
        return Results(table, objective=self.objective, kind=self.kind,
                       kind_reason=self.kind_reason, roles=self.roles,
                       metafeatures=self.metafeatures, exclusions=self.exclusions)

    def subset(self, *, algorithms: Sequence[str] | None = None,
               benchmarks: Sequence[str] | None = None) -> Results:
        """Restrict to some algorithms and/or benchmarks (in memory; see ``MAX_CLIENT_ROWS``)."""
        return self.in_memory().subset(algorithms=algorithms, benchmarks=benchmarks)

    def without_cells(self, cells) -> Results:
        """These results without some (algorithm, benchmark) cells (in memory, as ``subset``)."""
        return self.in_memory().without_cells(cells)

    def draws(self, algorithm: str, benchmark: str | None = None) -> np.ndarray:
        """The IID scores of one (algorithm, benchmark) cell, in row order (exact)."""
        self.require_kind("trials", "draws()")
        if benchmark is None:
            if len(self.benchmarks) != 1:
                raise ValueError(
                    f"benchmark is required: there are {len(self.benchmarks)} benchmarks "
                    f"({self.benchmarks[:5]}...).")
            benchmark = self.benchmarks[0]
        self._check_name("algorithm", algorithm)
        self._check_name("benchmark", benchmark)
        _, nb, ns = self._sizes()
        a = self.algorithms.index(str(algorithm))
        b = self.benchmarks.index(str(benchmark))
        run = self._summary["run"].to_numpy()
        in_cell = (run // ns) == a * nb + b
        self._check_fits(f"the draws of ({algorithm}, {benchmark})",
                         int(self._summary["n"].to_numpy()[in_cell].sum()),
                         alternative=" Or use ecdf_sketches([(algorithm, benchmark)]): the "
                                     "cell's ECDF from exact counts in bins, with its error "
                                     "bound (benchverdict.stats.ecdf_sketch).")
        parts = self._map(_rows_of_cell, algorithm, benchmark, desc="collecting draws")
        return np.concatenate(parts) if parts else np.array([], dtype=float)

    def ecdf_sketches(self, cells: Sequence[tuple[str, str]] | None = None, *,
                      n_bins: int = 2**16, sample_size: int | None = None,
                      seed: int = 0) -> dict:
        """Exact-count ECDF sketches of the draws per (algorithm, benchmark) cell.

        For cells too large for :meth:`draws`: two passes over the partitions,
        exact ECDF at every edge, sup-norm error at most the sketch's exact
        ``error_bound``; bands from it are widened by that bound
        (:mod:`benchverdict.stats.ecdf_sketch`, :mod:`benchverdict._dask.sketch`).
        """
        from benchverdict._dask.sketch import ecdf_sketches

        return ecdf_sketches(self, cells, n_bins=n_bins, sample_size=sample_size, seed=seed)

    def iter_draws(self) -> Iterator[tuple[str, str, np.ndarray]]:
        """Yield ``(algorithm, benchmark, draws)`` for every non-empty cell (exact)."""
        self.require_kind("trials", "iter_draws()")
        return self.in_memory().iter_draws()

    # ------------------------------------------------------------------ reductions
    @property
    def budgets(self) -> np.ndarray:
        """The sorted distinct budgets (one reduction, cached)."""
        if not self.has_budget:
            return np.array([], dtype=float)
        return np.unique(self._budget_pairs()["budget"].to_numpy())

    def _budget_pairs(self) -> pd.DataFrame:
        if "budget_pairs" not in self._cache:
            parts = self._map(_budget_levels, desc="budgets")
            self._cache["budget_pairs"] = pd.concat(parts, ignore_index=True).drop_duplicates()
        return self._cache["budget_pairs"]

    def _budget_index(self) -> tuple[np.ndarray, np.ndarray]:
        # Per-row budget codes would need every row on the client; every view of
        # DaskResults reduces budgets per partition instead (see _budget_pairs), so
        # reaching this is a bug in a view, not a user error.
        raise TypeError("internal: DaskResults keeps budget codes in its partitions; use "
                        "a per-partition reduction instead of Results._budget_index.")

    def _picked(self, budget: float | None) -> pd.DataFrame:
        """Per run, the incumbent row (see the module docstring), sorted by run."""
        key = ("picked", budget)
        if key not in self._cache:
            parts = self._map(_pick_partition, budget, self.kind, self.sign, self._sizes(),
                              desc="incumbents")
            cand = pd.concat(parts)
            if self.kind == "runs":
                order = np.lexsort((cand["budget"].to_numpy(), cand["__run__"].to_numpy()))
                cand = cand.iloc[order]
                keep = np.r_[cand["__run__"].to_numpy()[1:] != cand["__run__"].to_numpy()[:-1],
                             True]
            else:
                oriented = cand["score"].to_numpy() * self.sign
                order = np.lexsort((cand["budget"].to_numpy(), -oriented,
                                    cand["__run__"].to_numpy()))
                cand = cand.iloc[order]
                keep = np.r_[True,
                             cand["__run__"].to_numpy()[1:] != cand["__run__"].to_numpy()[:-1]]
            self._cache[key] = cand[keep]
        return self._cache[key]

    def _incumbent_frame(self, picked: pd.DataFrame) -> pd.DataFrame:
        out = picked.drop(columns="__run__").reset_index(drop=True)
        return out

    def _incumbent_rows(self, budget: float | None = None) -> pd.DataFrame:
        """The incumbent of every run at ``budget`` (default: final), from the per-run reductions.

        The rows behind :meth:`Results.at_budget`, :meth:`Results.final` and
        :meth:`Results.blocks` (one per run, so they fit in the client's memory).
        """
        if budget is None:
            if not self.has_budget:
                return self.table.reset_index(drop=True)
            picked = self._incumbent_frame(self._picked(None))
            if self.kind == "trials":
                last = self._summary.set_index("run")["bmax"]
                picked["budget"] = last.reindex(
                    self._picked(None)["__run__"].to_numpy()).to_numpy()
            return picked
        if not self.has_budget:
            raise ValueError(
                "at_budget() needs a budget column; pass budget=<column> to from_frame, or "
                "use final().")
        budget = float(budget)
        picked = self._incumbent_frame(self._picked(budget))
        picked["budget"] = budget
        return picked

    def expect_cube_budgets(self, budgets: Sequence[float]) -> None:
        """Say that a later step will ask :meth:`incumbent_cube` for ``budgets``.

        Each cube is a pass over every row. A report asks twice (the anytime
        ranks on 12 budgets, the LMEM's budget check on 64): told in advance,
        the first pass computes the expected budgets too and keeps them until
        their step has asked (each call of this method is one expectation of
        each budget, met by one request for it). This changes how many passes
        are made, never a value: a budget nobody said is computed when asked.
        """
        expected = self._cache.setdefault("cube_expected", {})
        for b in np.unique(np.asarray(budgets, dtype=float)).tolist():
            expected[b] = expected.get(b, 0) + 1

    def incumbent_cube(self, budgets: Sequence[float]) -> np.ndarray:
        """The incumbent of every run at many budgets (see :meth:`Results.incumbent_cube`).

        Budgets made ready by an earlier pass (:meth:`expect_cube_budgets`)
        are served from it; the others take one pass, together with every
        budget still expected.
        """
        if not self.has_budget:
            raise ValueError("incumbent_cube() needs a budget column; use final().")
        budgets = np.asarray(budgets, dtype=float)
        if not budgets.size:
            return self._cube_pass(budgets)
        expected = self._cache.setdefault("cube_expected", {})
        ready = self._cache.setdefault("cube_ready", {})
        wanted = list(dict.fromkeys(budgets.tolist()))
        fresh: dict[float, np.ndarray] = {}
        todo = [b for b in wanted if b not in ready]
        if todo:
            asked = set(todo)
            todo += [b for b in expected if b not in ready and b not in asked]
            fresh = dict(zip(todo, self._cube_pass(np.asarray(todo, dtype=float)),
                             strict=True))
            ready.update({b: fresh[b] for b in todo if b in expected})
        out = np.stack([fresh[b] if b in fresh else ready[b] for b in budgets.tolist()])
        for b in wanted:  # one expectation of each budget asked for is met
            left = expected.get(b, 0) - 1
            if left > 0:
                expected[b] = left
            else:
                expected.pop(b, None)
                ready.pop(b, None)
        return out

    def _cube_pass(self, budgets: np.ndarray) -> np.ndarray:
        """:meth:`incumbent_cube` of ``budgets`` by one pass over every partition."""
        sizes = self._sizes()
        parts = self._map(_cube_partition, budgets, self.kind, self.sign, sizes,
                          desc="incumbent cube")
        n_runs = int(np.prod(sizes))
        size = len(budgets) * n_runs
        flat = np.full(size, np.nan)
        # Each cell's winner: the latest row for runs (of equal budgets, the later
        # partition's, as rows in order), the best trial for trials. The partitions'
        # candidates are merged one at a time, in partition order, and dropped: concatenated
        # and sorted they held 2.3 GB on the client at 10^8 rows (400,000 runs x 64 budgets).
        # Budgets and scores are finite (validated): the first candidate always beats -inf.
        best = np.full(size, -np.inf)
        by = "b" if self.kind == "runs" else "s"
        parts.reverse()
        while parts:
            part = parts.pop()  # in partition order
            cell = part["t"].to_numpy().astype(np.int64) * n_runs + part["run"].to_numpy()
            key = part[by].to_numpy()
            wins = key >= best[cell]  # a part has one row per cell at most
            cell = cell[wins]
            best[cell] = key[wins]
            flat[cell] = part["s"].to_numpy()[wins]
            del part
        del best
        flat *= self.sign  # in place: a copy of the cube was another 240 MB at 10^8 rows
        return flat.reshape(len(budgets), *sizes)

    def runs_without_incumbent(self, budget: float) -> pd.DataFrame:
        """The runs with no observation at or below ``budget`` (see the in-memory method)."""
        if not self.has_budget:
            raise ValueError("runs_without_incumbent() needs a budget column.")
        s = self._summary
        late = s["bmin"].to_numpy() > float(budget)
        _, nb, ns = self._sizes()
        rest, s_codes = np.divmod(s["run"].to_numpy()[late], ns)
        a_codes, b_codes = np.divmod(rest, nb)
        f = self._frame
        return pd.DataFrame({
            "algorithm": [str(c) for c in f["algorithm"].cat.categories[a_codes]],
            "benchmark": [str(c) for c in f["benchmark"].cat.categories[b_codes]],
            "seed": pd.Series(np.asarray(f["seed"].cat.categories[s_codes]), dtype=object),
            "first_budget": s["bmin"].to_numpy()[late].astype(float),
        })

    def _paired(self) -> bool:
        na, nb, ns = self._sizes()
        run = self._summary["run"].to_numpy()
        rest, s = np.divmod(run, ns)
        a, b = np.divmod(rest, nb)
        cells = np.unique((b * ns + s) * na + a) // na
        return bool(len(cells) and (np.diff(cells) == 0).any())

    def describe(self):
        """Summarise the data from per-partition reductions (see :meth:`Results.describe`)."""
        if "describe" not in self._cache:
            f = self._frame
            self._cache["describe"] = describe_partitioned(
                categories={r: f[r].cat.categories for r in ID_ROLES}, summary=self._summary,
                roles=self.roles, objective=self.objective, kind=self.kind,
                kind_reason=self.kind_reason, n_rows=len(self), exclusions=self.exclusions,
                budget_pairs=self._budget_pairs() if self.has_budget else None,
                meta_levels=self._meta_levels() if self.metafeatures else {})
        return self._cache["describe"]

    def copied_runs(self) -> str:
        """Algorithms whose runs are identical on several benchmarks (see Results): one pass."""
        from benchverdict.describe import copied_runs_text

        return copied_runs_text(self.copied_benchmarks().copies)

    def copied_benchmarks(self):
        """Per algorithm, the groups of benchmarks with identical runs (see Results)."""
        from benchverdict.describe import (
            cell_fingerprints,
            cell_shape_fingerprints,
            combine_fingerprints,
            combine_run_fingerprints,
            combine_shape_fingerprints,
            copied_cell_groups,
            run_fingerprints,
        )
        from benchverdict.replicates import BenchmarkReplicates

        if "copied_benchmarks" not in self._cache:
            prints = combine_fingerprints(self._map(cell_fingerprints, desc="copied runs"))
            # Copies up to a rescaling of each benchmark's scores: a second pass, since a
            # cell's range spans partitions.
            shapes = combine_shape_fingerprints(
                self._map(cell_shape_fingerprints, prints, desc="copied runs: shapes"))
            runs = combine_run_fingerprints(
                self._map(run_fingerprints, desc="copied runs: runs"))
            groups = copied_cell_groups(prints, runs, self.algorithms, self.benchmarks,
                                        shapes=shapes)
            self._cache["copied_benchmarks"] = BenchmarkReplicates(
                {a: tuple(map(tuple, gs)) for a, gs in groups.items()})
        return self._cache["copied_benchmarks"]

    def _meta_levels(self) -> dict:
        if "meta_levels" not in self._cache:
            parts = self._map(_meta_levels, self.metafeatures, desc="metafeatures")
            merged = {}
            for m in self.metafeatures:
                pairs = pd.concat([p[m][0] for p in parts], ignore_index=True).drop_duplicates()
                merged[m] = (pairs, sum(p[m][1] for p in parts), parts[0][m][2])
            self._cache["meta_levels"] = merged
        return self._cache["meta_levels"]

    def cell_sizes(self) -> pd.Series:
        """Rows per (algorithm, benchmark) cell, as ``table.groupby([...]).size()`` gives them."""
        _, nb, ns = self._sizes()
        run = self._summary["run"].to_numpy()
        rest = run // ns
        a, b = np.divmod(rest, nb)
        f = self._frame
        frame = pd.DataFrame({
            "algorithm": pd.Categorical.from_codes(a, categories=f["algorithm"].cat.categories),
            "benchmark": pd.Categorical.from_codes(b, categories=f["benchmark"].cat.categories),
            "n": self._summary["n"].to_numpy()})
        return frame.groupby(["algorithm", "benchmark"], observed=True)["n"].sum().rename(None)

    def incumbent_trajectories(self) -> Results:
        """Every search's incumbent after each trial (see Results), in memory.

        A running maximum per run over its rows in budget order; it needs
        every row of a run on the client, so it is exact up to
        ``MAX_CLIENT_ROWS`` rows and refuses beyond (``final()`` and
        ``at_budget()`` give the incumbents at one budget at any size).
        """
        if self.kind == "runs":
            return self
        self._check_fits("incumbent trajectories", len(self))
        return self.in_memory().incumbent_trajectories()

    def uniform_sample(self, rate: float, seed: int = 0) -> Results:
        """The rows of a uniform random sample, in memory (see Results): one pass."""
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"rate must lie in [0, 1], got {rate}.")
        self._check_fits("the sampled rows", int(np.ceil(rate * len(self) * 1.05)))
        parts = self._map(_kept_rows, float(rate), int(seed), desc="sampling rows")
        return self._with_rows(pd.concat(parts) if parts else self._frame)

    def run_sizes(self, budget: float | None = None) -> pd.Series:
        """Rows per run at budget <= ``budget`` (see Results), counted per partition."""
        if budget is None:
            counts = self._summary.groupby("run")["n"].sum()
        else:
            parts = self._map(_run_rows_at, float(budget), self._sizes(), desc="rows per run")
            counts = pd.concat(parts).groupby(level=0).sum()
        counts = counts[counts > 0].sort_index()
        codes = counts.index.to_numpy()
        index = {}
        for role, size in reversed(list(zip(ID_ROLES, self._sizes()))):
            codes, code = np.divmod(codes, size)
            index[role] = pd.Categorical.from_codes(
                code, categories=self._frame[role].cat.categories)
        frame = pd.DataFrame({role: index[role] for role in ID_ROLES})
        return pd.Series(counts.to_numpy(), index=pd.MultiIndex.from_frame(frame))

    def _last_budgets(self) -> pd.DataFrame:
        """Each run's largest budget (see Results), from the per-run summary: no pass."""
        summary = self._summary.groupby("run", sort=True).agg(n=("n", "sum"), bmax=("bmax", "max"))
        summary = summary[summary["n"] > 0]
        codes = summary.index.to_numpy()
        index = {}
        for role, size in reversed(list(zip(ID_ROLES, self._sizes()))):
            codes, code = np.divmod(codes, size)
            index[role] = pd.Categorical.from_codes(
                code, categories=self._frame[role].cat.categories)
        last = (summary["bmax"].to_numpy(dtype=float) if self.has_budget
                else np.full(len(summary), np.nan))
        return pd.DataFrame({**{role: index[role] for role in ID_ROLES}, "last_budget": last})

    def first_per_benchmark(self, name: str) -> pd.Series:
        """``table.groupby("benchmark")[name].first()`` as a reduction (first non-missing)."""
        if ("first", name) not in self._cache:
            parts = self._map(_first_per_benchmark, name, desc=f"{name} per benchmark")
            firsts = pd.concat(parts)
            firsts = firsts[~firsts.index.duplicated(keep="first")]  # partitions in row order
            categories = self._frame["benchmark"].cat.categories
            order = pd.CategoricalIndex(
                [c for c in categories if c in set(firsts.index)], categories=categories,
                name="benchmark")
            out = firsts.reindex(list(order))
            out.index = order
            self._cache[("first", name)] = out.rename(name)
        return self._cache[("first", name)].copy()

    def _lmem_partitions(self) -> list[Any]:
        """The canonical partitions (Dask delayed objects), for the partitioned LMEM."""
        return list(self._parts)

    @property
    def engine(self) -> DaskEngine:
        """The Dask engine: the LMEM fit and the tuning curves' draws run per partition."""
        return DaskEngine(self)


class DaskEngine:
    """The :class:`~benchverdict.results.engine.Engine` of a :class:`DaskResults`.

    :meth:`lmem_fit` sums cross-products per partition
    (:func:`benchverdict._dask.lmem.fit_partitioned`); :meth:`draws_or_sketches`
    gives each cell's draws, or an ECDF sketch of them beyond what the client
    holds (:func:`benchverdict._dask.sketch.draws_or_sketches`).

    Examples
    --------
    >>> from benchverdict.results import Engine, _example_small
    >>> engine = DaskEngine(_example_small())  # any Results: the methods read it on use
    >>> isinstance(engine, Engine), engine.name
    (True, 'dask')
    """

    name = "dask"

    def __init__(self, results: DaskResults) -> None:
        self.results = results

    # Imported on use: the partitioned LMEM and sketch code sit above this module (they read
    # DaskResults' partitions), and sessions that never fit or sketch never load them.
    def lmem_fit(self, formula: str, *, reml: bool = False,
                 backend: Literal["native", "lme4"] = "native", start: Any = None,
                 exclusions: pd.DataFrame | None = None) -> Any:
        """The model fitted from cross-products summed per partition (never ``None``)."""
        from benchverdict._dask.lmem import fit_partitioned

        return fit_partitioned(self.results, formula, reml=reml, backend=backend, start=start,
                               exclusions=exclusions)

    def draws_or_sketches(self) -> dict[tuple[str, str], Any]:
        """Each cell's draws, or its ECDF sketch beyond ``MAX_CLIENT_ROWS`` (never ``None``)."""
        from benchverdict._dask.sketch import draws_or_sketches

        return draws_or_sketches(self.results, MAX_CLIENT_ROWS)


__all__ = ["MAX_CLIENT_ROWS", "DaskEngine", "DaskResults", "RowsTooLargeError"]
