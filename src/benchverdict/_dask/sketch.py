"""Per (algorithm, benchmark) ECDF sketches of a ``DaskResults``, in two partition passes.

The sorted draws of a cell (what tuning curves and score distributions are
built from) need every score of the cell on one machine. Beyond that, the
cell's :class:`~benchverdict.stats.ecdf_sketch.ECDFSketch` is made without
moving rows:

1. per partition and cell: the row count, the minimum and maximum, and the
   ``m`` rows with the smallest random keys (a key is a hash of the seed and
   the row's global position, so the sample does not depend on how the rows
   are partitioned); the client keeps, per cell, the ``m`` smallest keys over
   all partitions: a uniform random sample of ``m`` of the cell's rows, drawn
   without replacement; the cell's edges are its quantiles
   (:func:`~benchverdict.stats.ecdf_sketch.choose_edges`);
2. per partition and cell: exact counts at and between the edges
   (:func:`~benchverdict.stats.ecdf_sketch.bin_counts`), added up pairwise on
   the workers.

The sketch's ECDF equals the exact ECDF at every edge; its error elsewhere is
at most ``error_bound``, computed exactly from the counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchverdict.stats.ecdf_sketch import DEFAULT_BINS, ECDFSketch, bin_counts, choose_edges
from benchverdict.stats.row_sample import row_keys


def _cells_of(canon: pd.DataFrame, n_benchmarks: int) -> np.ndarray:
    a = canon["algorithm"].cat.codes.to_numpy().astype(np.int64)
    b = canon["benchmark"].cat.codes.to_numpy().astype(np.int64)
    return a * n_benchmarks + b


def _sample_partition(canon: pd.DataFrame, n_benchmarks: int, cells: np.ndarray, m: int,
                      seed: int) -> dict:
    """Pass 1: per wanted cell, its rows, min, max, and the m rows with the smallest keys."""
    cell = _cells_of(canon, n_benchmarks)
    hit = np.isin(cell, cells)
    cell, y = cell[hit], canon["score"].to_numpy(dtype=np.float64)[hit]
    keys = row_keys(canon.index.to_numpy()[hit], seed)
    order = np.lexsort((keys, cell))
    cell, y, keys = cell[order], y[order], keys[order]
    start = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if len(cell) else np.array(
        [], dtype=np.int64)
    rank = np.arange(len(cell)) - np.repeat(start, np.diff(np.r_[start, len(cell)]))
    keep = rank < m
    stats = pd.DataFrame({"cell": cell[start], "n": np.diff(np.r_[start, len(cell)]),
                          "min": np.minimum.reduceat(y, start) if len(y) else [],
                          "max": np.maximum.reduceat(y, start) if len(y) else []})
    return {"stats": stats, "sample": pd.DataFrame({"cell": cell[keep], "key": keys[keep],
                                                    "y": y[keep]})}


def _merge_samples(x: dict, y: dict, m: int) -> dict:
    """Two partial results of pass 1 as one: stats combined, the m smallest keys kept."""
    stats = pd.concat([x["stats"], y["stats"]], ignore_index=True).groupby(
        "cell", as_index=False).agg(n=("n", "sum"), min=("min", "min"), max=("max", "max"))
    sample = pd.concat([x["sample"], y["sample"]], ignore_index=True).sort_values(
        ["cell", "key"], kind="stable")
    sample = sample[sample.groupby("cell").cumcount().to_numpy() < m].reset_index(drop=True)
    return {"stats": stats, "sample": sample}


def _tree(tasks: list, combine, *args) -> Any:
    """Combine delayed partial results pairwise on the workers (one result reaches the client)."""
    import dask

    while len(tasks) > 1:
        paired = [dask.delayed(combine)(a, b, *args) for a, b in zip(tasks[::2], tasks[1::2])]
        tasks = paired + (tasks[-1:] if len(tasks) % 2 else [])
    return tasks[0]


def _count_partition(canon: pd.DataFrame, n_benchmarks: int, cells: np.ndarray,
                     edges: list[np.ndarray], offsets: np.ndarray) -> np.ndarray:
    """Pass 2: exact (interior, at-edge) counts of every wanted cell, flattened."""
    out = np.zeros((2, int(offsets[-1])), dtype=np.int64)
    cell = _cells_of(canon, n_benchmarks)
    y = canon["score"].to_numpy(dtype=np.float64)
    position = pd.Index(cells).get_indexer(cell)
    hit = position >= 0
    position, y = position[hit], y[hit]
    order = np.argsort(position, kind="stable")
    position, y = position[order], y[order]
    bounds = np.searchsorted(position, np.arange(len(cells) + 1))
    for i in np.flatnonzero(np.diff(bounds)):
        interior, at = bin_counts(y[bounds[i]:bounds[i + 1]], edges[i])
        out[0, offsets[i]:offsets[i + 1]] += interior
        out[1, offsets[i]:offsets[i + 1]] += at
    return out


def ecdf_sketches(results: Any, cells: Sequence[tuple[str, str]] | None = None, *,
                  n_bins: int = DEFAULT_BINS, sample_size: int | None = None,
                  seed: int = 0) -> dict[tuple[str, str], ECDFSketch]:
    """The :class:`ECDFSketch` of every wanted (algorithm, benchmark) cell's scores.

    Two passes over the partitions (see the module docstring). ``cells``
    defaults to every non-empty cell; ``sample_size`` (the rows per cell the
    edges are chosen from) to ``8 * n_bins``. The client holds two counts per
    edge and cell, so ask for the cells you need when there are many.

    Examples
    --------
    >>> import pytest; dd = pytest.importorskip("dask.dataframe")  # the dask extra
    >>> from benchverdict.results import Results
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"alg": np.repeat(["a", "b"], 500), "seed": np.tile(range(500), 2),
    ...                    "acc": rng.uniform(size=1000)})
    >>> from benchverdict.io import from_dask_frame
    >>> res = from_dask_frame(dd.from_pandas(df, npartitions=4), algorithm="alg",
    ...                          seed="seed", score="acc", objective="maximize", kind="trials")
    >>> s = ecdf_sketches(res, n_bins=16)[("a", res.benchmarks[0])]
    >>> s.n, bool(s.error_bound < 0.2)
    (500, True)
    """
    import dask

    from benchverdict._dask.compute import compute_all

    results.require_kind("trials", "ECDF sketches of the draws")
    algorithms, benchmarks = results.algorithms, results.benchmarks
    nb = len(benchmarks)
    if cells is None:
        sizes = results.cell_sizes()
        wanted = [(str(a), str(b)) for a, b in sizes.index]
    else:
        wanted = [(str(a), str(b)) for a, b in cells]
        for a, b in wanted:
            results._check_name("algorithm", a)
            results._check_name("benchmark", b)
    codes = np.array([algorithms.index(a) * nb + benchmarks.index(b) for a, b in wanted],
                     dtype=np.int64)
    m = 8 * int(n_bins) if sample_size is None else int(sample_size)
    progress = results._spec.get("progress", False)
    # The samples are merged pairwise on the workers, keeping m rows per cell at every
    # step: the client receives m rows per cell, not m per cell and partition.
    merged = compute_all([_tree([dask.delayed(_sample_partition)(p, nb, codes, m, seed)
                                 for p in results._parts], _merge_samples, m)],
                         desc="sketch: samples", progress=progress)[0]
    stats = merged["stats"].set_index("cell")
    by_cell = dict(tuple(merged["sample"].groupby("cell")["y"]))
    edges = []
    for c in codes:
        if c not in stats.index:
            raise ValueError(f"cell {wanted[list(codes).index(c)]} has no rows.")
        edges.append(choose_edges(by_cell[c].to_numpy(), n_bins, stats.at[c, "min"],
                                  stats.at[c, "max"]))
    offsets = np.r_[0, np.cumsum([len(e) for e in edges])]
    counts = results._map_sum(_count_partition, nb, codes, edges, offsets,
                              desc="sketch: counts")
    out = {}
    for i, (cell, c) in enumerate(zip(wanted, codes)):
        s = slice(offsets[i], offsets[i + 1])
        out[cell] = ECDFSketch(edges[i], counts[0, s].copy(), counts[1, s].copy(),
                               int(stats.at[c, "n"]), int(min(m, stats.at[c, "n"])))
    return out


#: A cell with more draws than this is sketched even when the client could hold it
#: (sorting stays cheap and one cell never dominates the client's memory).
MAX_EXACT_CELL = 2_000_000

#: Edges times sketched cells that the client holds (two int64 counts each): the bins per
#: cell shrink when many cells are sketched, and their error bounds say so.
MAX_SKETCH_ENTRIES = 2**24

#: Fewest bins a sketched cell gets.
MIN_SKETCH_BINS = 1024


def _cells_rows(canon: pd.DataFrame, n_benchmarks: int, cells: np.ndarray) -> pd.DataFrame:
    """The scores of the wanted cells in one partition, in row order."""
    cell = _cells_of(canon, n_benchmarks)
    hit = np.isin(cell, cells)
    return pd.DataFrame({"cell": cell[hit],
                         "y": canon["score"].to_numpy(dtype=np.float64)[hit]})


def draws_or_sketches(results: Any, max_rows: int) -> dict[tuple[str, str], Any]:
    """Every (algorithm, benchmark) cell's draws, exactly where the client can hold them.

    Cells are taken smallest first while each has at most
    :data:`MAX_EXACT_CELL` draws and all of them together at most
    ``max_rows``: their draws come to the client in row order (one pass),
    as in memory. Every other cell gets an :class:`ECDFSketch` (two passes
    for all of them), with ``min(2**16, MAX_SKETCH_ENTRIES / cells)`` bins
    but at least :data:`MIN_SKETCH_BINS`; its exact error bound travels
    with every band and verdict built from it.

    Returns
    -------
    dict
        ``(algorithm, benchmark) -> numpy.ndarray`` (exact) or ``ECDFSketch``,
        in the order of ``results.cell_sizes()``.

    Examples
    --------
    >>> import pytest; dd = pytest.importorskip("dask.dataframe")  # the dask extra
    >>> from benchverdict.io import from_dask_frame
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"alg": np.repeat(["a", "b"], [300, 50]), "seed": range(350),
    ...                    "acc": rng.uniform(size=350)})
    >>> res = from_dask_frame(dd.from_pandas(df, npartitions=3), algorithm="alg",
    ...                       seed="seed", score="acc", objective="maximize", kind="trials")
    >>> got = draws_or_sketches(res, max_rows=100)
    >>> [type(v).__name__ for v in got.values()]
    ['ECDFSketch', 'ndarray']
    """
    sizes = results.cell_sizes()
    exact, total = set(), 0
    for cell, n in sizes.sort_values(kind="stable").items():
        if n <= MAX_EXACT_CELL and total + n <= max_rows:
            exact.add((str(cell[0]), str(cell[1])))
            total += int(n)
    cells = [(str(a), str(b)) for a, b in sizes.index]
    sketched = [c for c in cells if c not in exact]
    out: dict[tuple[str, str], Any] = {}
    nb = len(results.benchmarks)
    if exact:
        a_index = {a: i for i, a in enumerate(results.algorithms)}
        b_index = {b: i for i, b in enumerate(results.benchmarks)}
        code_of = {c: a_index[c[0]] * nb + b_index[c[1]] for c in cells if c in exact}
        codes = np.array(list(code_of.values()), dtype=np.int64)
        rows = pd.concat(results._map(_cells_rows, nb, codes, desc="collecting draws"),
                         ignore_index=True)
        by_cell = {int(c): g.to_numpy() for c, g in rows.groupby("cell", sort=False)["y"]}
        out.update({c: by_cell[code] for c, code in code_of.items()})
    if sketched:
        n_bins = int(np.clip(MAX_SKETCH_ENTRIES // len(sketched), MIN_SKETCH_BINS, DEFAULT_BINS))
        out.update(ecdf_sketches(results, sketched, n_bins=n_bins))
    return {c: out[c] for c in cells}


__all__ = ["draws_or_sketches", "ecdf_sketches"]
