"""Clustered draws: runs of several draws, cluster permutations and cluster bootstraps.

In random-search data each seed is one *run*, a search of many trials, and
the draws of one run can share a run effect (a data split, an
initialisation). Tests and intervals that treat every draw as independent
then overstate the evidence: with a random offset per run (10 runs x 20
draws per algorithm, offset and noise N(0, 1)), pooled two-sample tests
declare a winner in about 40% of null comparisons. The unit of replication
is the run, so here:

* permutation tests permute **whole runs** between the two algorithms
  (exact for ``F_A = F_B`` when the runs are exchangeable: independent, of
  sizes that do not depend on the algorithm);
* standard errors are **cluster-robust**: the influence-function values
  are summed within each run before their spread is taken;
* bootstraps resample **whole runs** (with replacement).

A resample or a permuted group is a vector of run multiplicities ``K``
(how often each run is in it), so every statistic is computed on the
draws weighted by the multiplicity of their run, with no per-row sort:
:func:`weighted_statistic`. With one draw per run these reduce to the
plain (IID) forms (:func:`weighted_statistic` then equals the
:class:`~benchverdict.dse.statistics.Statistic`'s ``of_rows`` and
``se_rows`` up to round-off).

Examples
--------
>>> z = np.array([1.0, 2.0, 3.0, 4.0])
>>> codes = np.array([0, 0, 1, 1])            # two runs of two draws
>>> from benchverdict.dse.statistics import statistic
>>> est, se = weighted_statistic(statistic("mean"), z, codes, np.array([[1.0, 1.0]]))
>>> float(est[0]), round(float(se[0]), 6)     # the two run means are 1.5 and 3.5
(2.5, 1.0)
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np

from benchverdict._threads import one_blas_thread
from benchverdict.dse.statistics import Statistic

#: The most values a block of permuted or resampled rows holds at once.
BLOCK_VALUES = 2**21
#: Rows are reduced in sub-blocks of about this many values: arrays that stay in cache
#: are several times faster than fresh large ones on a loaded machine.
CACHE_VALUES = 2**16


def in_blocks(f, batch: np.ndarray, width: int):
    """``f(batch)`` computed on sub-blocks of ``batch`` rows, about :data:`CACHE_VALUES` values.

    ``f`` returns an array or a tuple of arrays (or ``None``s), one entry per row.

    Examples
    --------
    >>> in_blocks(lambda r: r.sum(axis=1), np.ones((5, 3)), 2**15)
    array([3., 3., 3., 3., 3.])
    """
    step = max(8, CACHE_VALUES // max(int(width), 1))
    # The sub-blocks' products are small: threaded BLAS only doubles their CPU (_threads).
    with one_blas_thread():
        if batch.shape[0] <= step:
            return f(batch)
        parts = [f(batch[i:i + step]) for i in range(0, batch.shape[0], step)]
    if isinstance(parts[0], tuple):
        return tuple(None if p[0] is None else np.concatenate(p) for p in zip(*parts))
    return np.concatenate(parts)


def cluster_codes(labels: object, n: int, name: str) -> np.ndarray:
    """Integer run codes ``0..m-1`` for one label per draw, or a clear error.

    Examples
    --------
    >>> cluster_codes(["s1", "s0", "s1"], 3, "clusters_a")
    array([1, 0, 1])
    """
    lab = np.asarray(labels)
    if lab.ndim != 1 or lab.size != n:
        raise ValueError(
            f"{name} must give one run (cluster) label per draw: {n} draws, got shape "
            f"{lab.shape}. Pass the seed of each draw's run, or None when every draw is its "
            f"own run.")
    if lab.dtype.kind == "f" and np.isnan(lab).any():
        raise ValueError(f"{name} has missing labels; every draw needs the run it came from.")
    # Integer labels need no text encoding (their numbering differs from the text
    # order's, but every caller renumbers runs by their values: canonical_runs).
    if (lab.dtype.kind in "iu" and lab.size and lab.min() >= 0 and lab.max() < lab.size
            and np.bincount(lab).all()):
        return lab.astype(np.int64)  # codes already (0..m-1, each used): unique's inverse
    _, codes = np.unique(lab if lab.dtype.kind in "iub" else lab.astype(str),
                         return_inverse=True)
    return codes.reshape(-1).astype(np.int64)


def is_clustered(codes: np.ndarray | None) -> bool:
    """Whether some run holds more than one draw.

    Examples
    --------
    >>> is_clustered(np.array([0, 1, 2])), is_clustered(np.array([0, 0, 1]))
    (False, True)
    """
    return codes is not None and bool(np.bincount(codes).max(initial=0) > 1)


def sizes_text(codes_a: np.ndarray, codes_b: np.ndarray) -> str:
    """A short description of the runs, e.g. ``"run (20 draws each; 10 + 10 runs)"``.

    Examples
    --------
    >>> sizes_text(np.array([0, 0, 1, 1]), np.array([0, 0, 1, 1, 2, 2]))
    'run (2 draws each; 2 + 3 runs)'
    >>> sizes_text(np.array([0, 0, 1]), np.array([0, 1]))
    'run (1 to 2 draws; 2 + 2 runs)'
    """
    sizes = np.concatenate([np.bincount(codes_a), np.bincount(codes_b)])
    lo, hi = int(sizes.min()), int(sizes.max())
    each = f"{lo} draws each" if lo == hi else f"{lo} to {hi} draws"
    return f"run ({each}; {codes_a.max() + 1} + {codes_b.max() + 1} runs)"


# ----------------------------------------------------------------------------- statistics
def _cluster_sums(x: np.ndarray, codes: np.ndarray, m: int) -> np.ndarray:
    """Row-wise sums of ``x`` (B, N) within each run: (B, m)."""
    order = np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[order], np.arange(m))
    return np.add.reduceat(x[:, order], starts, axis=1)


def weighted_statistic(stat: Statistic, z: np.ndarray, codes: np.ndarray, k: np.ndarray,
                       *, se: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """``stat`` and its cluster-robust standard error on run-weighted draws, per row.

    Parameters
    ----------
    stat : Statistic
        Any statistic of :func:`~benchverdict.dse.statistics.statistic`.
    z : numpy.ndarray
        The oriented draws, **sorted ascending** (N,).
    codes : numpy.ndarray
        The run of each draw of ``z`` (N,), codes ``0..m-1``.
    k : numpy.ndarray
        Run multiplicities per row (B, m): 0/1 for a permuted group,
        bootstrap counts for a cluster resample.
    se : bool
        Also return the standard error (``None`` for quantiles).

    Returns
    -------
    estimate, se : numpy.ndarray
        Per row. The estimate is the statistic of the draws, each counted
        with its run's multiplicity (CVaR in the Rockafellar-Uryasev form
        ``v + E[(Z - v)^+] / (1 - level)`` at ``v = F^{-1}(level)``, equal
        to the tail-weight form). The standard error is
        ``sqrt(g * sum_c K_c S_c^2) / W`` with ``S_c`` the sum of the
        centred influence values over the draws of run ``c``, ``W`` the
        total weight and ``g = M / (M - 1)`` for ``M`` runs in the row (the
        CR1 small-sample factor); with one draw per run it is the IID
        ``sd(IF) / sqrt(n)``.

    Examples
    --------
    >>> from benchverdict.dse.statistics import statistic
    >>> z = np.sort(np.random.default_rng(0).normal(size=40))
    >>> st = statistic("cvar", cvar_level=0.8)
    >>> est, s = weighted_statistic(st, z, np.arange(40), np.ones((1, 40)))
    >>> bool(np.isclose(est[0], st.of_sample(z))), bool(np.isclose(s[0], st.se_rows(z[None])[0]))
    (True, True)
    """
    k = np.asarray(k, dtype=float)
    m = k.shape[1]
    w = k[:, codes]
    total = w.sum(axis=1)
    kind, params = stat.kind, stat.params
    v = np.zeros(k.shape[0])
    if kind in ("cvar", "quantile"):
        level = params[0]
        cum = np.cumsum(w, axis=1) / total[:, None]
        hit = (w > 0) & (cum >= level - 1e-12)
        v = z[np.argmax(hit, axis=1)]
        if kind == "quantile":
            return v, None
        diff = z[None, :] - v[:, None]
        if params[1] == "upper":
            psi = np.maximum(diff, 0.0) / (1.0 - level)
        else:
            psi = np.minimum(diff, 0.0) / level
    elif kind == "mean":
        psi = np.broadcast_to(z, w.shape)
    elif kind == "threshold_area":
        tau, cap = params
        psi = np.broadcast_to(np.minimum(np.clip(z - tau, 0.0, None), cap), w.shape)
    elif kind == "exceedance":
        psi = np.broadcast_to((z > params[0]).astype(float), w.shape)
    else:
        raise ValueError(f"{stat.name} has no weighted form (kind {kind!r}).")
    mean_psi = (w * psi).sum(axis=1) / total
    estimate = v + mean_psi
    if not se:
        return estimate, None
    sums = _cluster_sums(psi - mean_psi[:, None], codes, m)
    runs = k.sum(axis=1)
    g = np.where(runs > 1, runs / np.maximum(runs - 1, 1), 0.0)
    var = g * (k * sums**2).sum(axis=1) / total**2
    return estimate, np.sqrt(np.maximum(var, 0.0))


def canonical_runs(z: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Run codes renumbered by the runs' sorted values (lexicographically), not their labels.

    Renaming seeds or benchmarks then changes no random split or resample;
    runs with identical values are interchangeable, so their order is moot.

    Examples
    --------
    >>> canonical_runs(np.array([5.0, 1.0, 1.0, 0.5]), np.array([0, 0, 1, 2]))
    array([2, 2, 1, 0])
    """
    m = int(codes.max()) + 1
    size = equal_size(codes)
    if size is not None:
        # Equal sizes: the runs' sorted values as rows, ranked lexicographically (stable,
        # like the sort below) without a Python tuple per run. The rows are gathered by a
        # stable sort of the codes (a radix sort when they fit 16 bits) and each sorted on
        # its own: the same table as sorting all draws by (run, value), 5x faster.
        small = codes.astype(np.int16) if m < 2**15 else codes
        table = np.sort(z[np.argsort(small, kind="stable")].reshape(m, size), axis=1)
        ranked = _lexicographic_order(table)
    else:
        order = np.lexsort((z, codes))
        cuts = np.searchsorted(codes[order], np.arange(1, m))
        groups = [tuple(g.tolist()) for g in np.split(z[order], cuts)]
        ranked = sorted(range(m), key=groups.__getitem__)
    rank = np.empty(m, dtype=np.int64)
    rank[ranked] = np.arange(m)
    return rank[codes]


def _lexicographic_order(table: np.ndarray) -> np.ndarray:
    """The stable lexicographic order of the rows of ``table`` (``np.lexsort`` of its columns).

    Sorting by the first ``j`` columns gives the full order as soon as no two
    rows adjacent in it agree on all ``j`` (later columns only break ties),
    so ``j`` doubles from 1 until that holds: runs of continuous scores
    differ in their smallest draw, and one column of ``m`` values is sorted
    instead of ``k`` (``lexsort`` over 1,000 columns of 10 runs took 2 ms).

    Examples
    --------
    >>> _lexicographic_order(np.array([[1.0, 5.0], [1.0, 2.0], [0.0, 9.0]]))
    array([2, 1, 0])
    """
    k = table.shape[1]
    j = 1
    while True:
        j = min(j, k)
        order = np.lexsort(table[:, :j].T[::-1])
        head = table[order, :j]
        if j == k or not np.any(np.all(head[1:] == head[:-1], axis=1)):
            return order
        j *= 2


def run_order(z: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draws sorted ascending, with runs renumbered by their smallest draw.

    With one draw per run, run ``c`` is then the ``c``-th smallest draw, so
    a cluster bootstrap draws the same resamples as the IID bootstrap
    (:func:`~benchverdict.dse.intervals.bootstrap_rows`) from one seed.

    Examples
    --------
    >>> run_order(np.array([3.0, 1.0, 2.0]), np.array([0, 1, 1]))
    (array([1., 2., 3.]), array([0, 0, 1]), array([1, 2, 0]))
    """
    canon = canonical_runs(z, codes)
    order = np.lexsort((canon, z))
    return z[order], canon[order], order


def cluster_bootstrap(z: np.ndarray, codes: np.ndarray, stat: Statistic, n_resamples: int,
                      seed: int | np.random.Generator | None, *, se: bool,
                      block: int = 5_000) -> tuple[np.ndarray, np.ndarray | None]:
    """``stat`` (and its cluster-robust SE) on ``n_resamples`` resamples of whole runs.

    Each resample draws ``m`` runs with replacement from the ``m`` runs
    (uniform run indices, in the same blocks as
    :func:`~benchverdict.dse.intervals.bootstrap_statistic`). ``seed`` is an
    int, ``None`` or a Generator, used and advanced as it is.

    Examples
    --------
    >>> from benchverdict.dse.statistics import statistic
    >>> z = np.arange(6.0); codes = np.array([0, 0, 1, 1, 2, 2])
    >>> v, _ = cluster_bootstrap(z, codes, statistic("mean"), 4, np.random.default_rng(0),
    ...                          se=False)
    >>> v.shape
    (4,)
    """
    rng = np.random.default_rng(seed)  # a Generator is used (and advanced) as it is
    zs, cs, _ = run_order(np.asarray(z, dtype=float), codes)
    m = int(cs.max()) + 1
    block = max(1, min(int(block), BLOCK_VALUES * 8 // max(zs.size, 1)))
    size = equal_size(cs)
    # Equal-size runs are gathered as (rows, m, k) arrays (no sort; the quantile is a
    # partial sort at the same order statistic as the weighted form's); runs of unequal
    # sizes take the weighted path.
    grouped = size is not None
    # CVaRs and quantiles from per-run tail sums and a search of the pooled grid for the
    # order statistic (no pass over the draws per resample), located by the same rule as
    # the per-draw forms below.
    by_run = stat.kind in ("cvar", "quantile") and RunCounts.affordable(zs, cs)
    counts = RunCounts(zs, cs) if by_run else None
    table = run_matrix(zs, cs, size) if grouped and not by_run else None
    values, ses = [], []
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        idx = np.sort(rng.integers(0, m, size=(rows, m)), axis=1)
        if by_run:
            k = np.bincount((idx + m * np.arange(rows)[:, None]).ravel(),
                            minlength=rows * m).reshape(rows, m)
            form = "grouped" if grouped else "weighted"
            est, s = in_blocks(lambda w, form=form: cvar_by_run(stat, counts, w, form=form,
                                                                se=se), k, 4 * m)
        elif grouped:
            est, s = in_blocks(lambda i: grouped_statistic(stat, table[i], se=se), idx,
                               zs.size)
        else:
            k = np.bincount((idx + m * np.arange(rows)[:, None]).ravel(),
                            minlength=rows * m).reshape(rows, m)
            est, s = in_blocks(lambda w: weighted_statistic(stat, zs, cs, w, se=se), k,
                               zs.size)
        values.append(est)
        if se:
            ses.append(s)
    return np.concatenate(values), (np.concatenate(ses) if se else None)


# ----------------------------------------------------------------------------- equal-size runs
def equal_size(codes: np.ndarray) -> int | None:
    """The common number of draws per run, or ``None`` when runs differ in size.

    Examples
    --------
    >>> equal_size(np.array([0, 0, 1, 1])), equal_size(np.array([0, 1, 1]))
    (2, None)
    """
    sizes = np.bincount(codes)
    return int(sizes[0]) if sizes.size and np.all(sizes == sizes[0]) else None


def run_matrix(z: np.ndarray, codes: np.ndarray, k: int) -> np.ndarray:
    """The draws as an (m, k) array, one row per run (runs of equal size ``k``)."""
    order = np.argsort(codes, kind="stable")
    return z[order].reshape(-1, k)


def grouped_statistic(stat: Statistic, x: np.ndarray, *, se: bool = True
                      ) -> tuple[np.ndarray, np.ndarray | None]:
    """``stat`` and its cluster-robust SE per row of runs of equal size, (B, g, k) -> (B,).

    The same estimator and standard error as :func:`weighted_statistic` with
    multiplicities 0/1 (up to round-off and the tolerance at which the
    CVaR's quantile is located), computed without a sort: the quantile is a
    partial sort (``numpy.partition``) and run sums are sums over the last
    axis.

    Examples
    --------
    >>> from benchverdict.dse.statistics import statistic
    >>> x = np.array([[[1.0, 2.0], [3.0, 4.0]]])   # one row, two runs of two draws
    >>> est, se = grouped_statistic(statistic("mean"), x)
    >>> float(est[0]), round(float(se[0]), 6)
    (2.5, 1.0)
    """
    rows, g, k = x.shape
    n = g * k
    kind, params = stat.kind, stat.params
    v = np.zeros(rows)
    if kind in ("cvar", "quantile"):
        level = params[0]
        i = min(max(int(np.ceil(level * n - 1e-12)) - 1, 0), n - 1)
        v = np.partition(x.reshape(rows, n), i, axis=1)[:, i]
        if kind == "quantile":
            return v, None
        diff = x - v[:, None, None]
        if params[1] == "upper":
            psi = np.maximum(diff, 0.0) / (1.0 - level)
        else:
            psi = np.minimum(diff, 0.0) / level
    elif kind == "mean":
        psi = x
    elif kind == "threshold_area":
        tau, cap = params
        psi = np.minimum(np.clip(x - tau, 0.0, None), cap)
    elif kind == "exceedance":
        psi = (x > params[0]).astype(float)
    else:
        raise ValueError(f"{stat.name} has no grouped form (kind {kind!r}).")
    run_sums = psi.sum(axis=2)
    mean_psi = run_sums.sum(axis=1) / n
    estimate = v + mean_psi
    if not se:
        return estimate, None
    centred = run_sums - k * mean_psi[:, None]
    factor = g / (g - 1) if g > 1 else 0.0
    return estimate, np.sqrt(factor * (centred**2).sum(axis=1)) / n


def placement_matrix(z: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``W[c, d]``: pairs (draw of run c, draw of run d) the first wins (ties count half).

    The diagonal counts pairs within a run (each draw ties itself); a run is
    never compared with itself, so it is never used.

    Examples
    --------
    >>> placement_matrix(np.array([1.0, 2.0, 2.0]), np.array([0, 1, 2]))
    array([[0.5, 0. , 0. ],
           [1. , 0.5, 0.5],
           [1. , 0.5, 0.5]])
    """
    m = int(codes.max()) + 1
    values, at = np.unique(z, return_inverse=True)
    # One bincount over (run, value) cells: np.add.at was most of this function's time
    # (27 s of a 10^6-draw report); the counts are the same integers.
    cells = np.asarray(codes, dtype=np.int64) * values.size + at.reshape(-1)
    counts = np.bincount(cells, minlength=m * values.size).reshape(m, values.size).astype(float)
    below = np.cumsum(counts, axis=1) - counts  # draws of run d strictly below each value
    return counts @ (below + 0.5 * counts).T


# ----------------------------------------------------------------------------- run counts
#: The most (run, grid value) cells a :class:`RunCounts` holds (8 bytes each): beyond it
#: (e.g. one draw per run) the per-draw forms are used instead.
RUN_COUNT_CELLS = 2**23
#: :meth:`RunCounts.quantile_index` brackets the answer among every this many grid points.
COARSE_STEP = 64


class RunCounts:
    """Each run's draws as counts on the pooled grid, with per-run tail sums.

    A split or a cluster resample is a vector of run multiplicities ``K``
    (B, m), and every statistic of the draws it holds depends on the draws
    only through per-run summaries, which are computed once here instead of
    re-sorting or re-cumulating the pooled draws for every row:

    * ``counts[r, p] = #{draws of run r <= grid[p]}`` (``grid``: the
      distinct pooled values, ascending), so the row's ECDF on the grid is
      ``K @ counts / (K @ sizes)`` (exact: sums of integers);
    * ``low[r, j]`` is the sum of run r's ``j`` smallest draws and
      ``high[r, j]`` the sum of its draws from the ``j``-th smallest on,
      both accumulated from the tail inwards, so two runs with the same
      tail draws get the same tail sums to the bit.

    Parameters
    ----------
    z : numpy.ndarray
        The pooled draws (N,), any order.
    codes : numpy.ndarray
        The run of each draw, ``0..m-1``.

    Examples
    --------
    >>> rc = RunCounts(np.array([1.0, 3.0, 2.0, 2.0]), np.array([0, 0, 1, 1]))
    >>> rc.grid, rc.counts.astype(int).tolist(), rc.high.tolist()
    (array([1., 2., 3.]), [[1, 1, 2], [0, 2, 2]], [[4.0, 3.0, 0.0], [4.0, 2.0, 0.0]])
    """

    def __init__(self, z: np.ndarray, codes: np.ndarray) -> None:
        z = np.asarray(z, dtype=float)
        codes = np.asarray(codes, dtype=np.int64)
        m = int(codes.max()) + 1
        ascending = bool(np.all(z[1:] >= z[:-1]))
        if ascending:  # pooled runs and run_order come sorted: no sort needed here
            new = np.append(True, z[1:] != z[:-1])
            self.grid, at = z[new], np.cumsum(new) - 1
        else:
            self.grid, at = np.unique(z, return_inverse=True)
            at = at.reshape(-1)
        g = self.grid.size
        self._draws = codes, at  # each draw's run and grid position
        # Kept as (G, m) only (``counts`` is its transposed view): the rows of the search
        # gather one grid point's counts at once, and one layout halves the memory. Counted
        # and accumulated in that layout (a transposing copy cost as much as the rest).
        counts = np.bincount(at * m + codes, minlength=g * m).reshape(g, m).astype(float)
        self.counts_t = np.cumsum(counts, axis=0, out=counts)  # exact: integers
        sizes = np.bincount(codes, minlength=m)
        self.sizes = sizes.astype(float)
        self.m = m
        # Each run's draws ascending in a zero-padded (m, k_max) table.
        if ascending:
            # A stable sort of the codes keeps sorted draws in order: (run, value) order.
            order = np.argsort(codes.astype(np.int16) if m < 2**15 else codes, kind="stable")
        else:
            order = np.lexsort((z, codes))
        k_max = int(sizes.max())
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        slot = np.arange(z.size) - np.repeat(starts, sizes)
        table = np.zeros((m, k_max))
        table[codes[order], slot] = z[order]
        low = np.zeros((m, k_max + 1))
        low[:, 1:] = np.cumsum(table, axis=1)
        # The sum from the j-th smallest draw up, accumulated from the largest down.
        flipped = np.zeros((m, k_max))
        flipped[codes[order], (sizes[codes[order]] - 1) - slot] = z[order]
        from_top = np.cumsum(flipped, axis=1)
        high = np.zeros((m, k_max + 1))
        j = np.arange(k_max + 1)[None, :]
        taken = sizes[:, None] - 1 - j  # index into from_top of the sum of draws j..size-1
        high[:, :] = np.where(taken >= 0, from_top[np.arange(m)[:, None],
                                                   np.clip(taken, 0, max(k_max - 1, 0))], 0.0)
        self.low, self.high = low, high

    @property
    def counts(self) -> np.ndarray:
        """``counts[r, p]``: run r's draws at or below ``grid[p]`` (a read-only view)."""
        view = self.counts_t.T
        view.flags.writeable = False
        return view

    @staticmethod
    def affordable(z: np.ndarray, codes: np.ndarray) -> bool:
        """Whether the (runs x distinct values) tables fit :data:`RUN_COUNT_CELLS`."""
        m = int(np.asarray(codes).max()) + 1
        return m * np.unique(z).size <= RUN_COUNT_CELLS

    def placement(self) -> np.ndarray:
        """:func:`placement_matrix` of the draws, from the counts (the same numbers).

        With ``c[r, p]`` run r's draws equal to the p-th value and ``C`` their
        cumulative counts, ``W = c (C - c + c / 2)^T``: exact sums of integers
        and halves.
        """
        # c has one nonzero per draw at most: summing the rows of (C - c / 2)^T at each
        # draw's position by run is O(N m), where the dense product is O(m^2 G) (0.2 s
        # for 200 runs x 20,000 values). C - c / 2 at p is (C[p] + C[p - 1]) / 2, formed
        # in the stored (G, m) layout (a difference along the transposed view cost as much
        # as the product). Every term is an integer or a half: exact.
        codes, at = self._draws
        wanted = self.counts_t.copy()
        wanted[1:] += self.counts_t[:-1]
        wanted *= 0.5
        from scipy import sparse

        each = sparse.csr_matrix((np.ones(at.size), (codes, at)), shape=self.counts.shape)
        return np.asarray(each @ wanted)

    def quantile_index(self, k: np.ndarray, target: np.ndarray) -> np.ndarray:
        """Per row, the first grid index ``p`` with ``k @ counts[:, p] >= target``.

        The weighted counts are non-decreasing in ``p`` (exact sums of
        integers), so a search over the grid finds it: ``O(B m (G / 64 +
        log 64))`` with no pass over the draws. ``target`` must be at most
        the row's total weight.
        """
        # The weighted counts at every 64th grid point (one matrix product) bracket the
        # answer; a bisection of the bracket takes 6 rounds instead of ~15 over the grid.
        g = self.grid.size
        if g <= 4 * COARSE_STEP:  # a small grid: every weighted count in one product
            return np.argmax((k @ self.counts) >= target[:, None], axis=1)
        coarse = np.arange(COARSE_STEP - 1, g + COARSE_STEP - 1, COARSE_STEP).clip(max=g - 1)
        reached = (k @ self.counts[:, coarse]) >= target[:, None]
        hi = coarse[np.argmax(reached, axis=1)]  # a weighted count >= target here
        lo = np.maximum(hi - COARSE_STEP + 1, 0)
        while True:
            open_ = lo < hi
            if not open_.any():
                return lo
            mid = (lo + hi) // 2
            enough = np.einsum("bm,bm->b", k, self.counts_t[mid]) >= target
            hi = np.where(open_ & enough, mid, hi)
            lo = np.where(open_ & ~enough, mid + 1, lo)

    def cvar_parts(self, cvar_level: float, tail: str, k: np.ndarray, target: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        """``v`` and each run's influence sum for the CVaR at ``cvar_level`` per row.

        ``v`` is the grid value where the row's weighted count first reaches
        ``target`` (the order statistic the per-draw forms locate). Each
        run's sum of ``psi(z) = (z - v)^+ / (1 - cvar_level)`` (upper tail)
        or ``min(z - v, 0) / cvar_level`` (lower tail) over its draws is ``(sum of
        its draws beyond v - (their number) v) / scale``, read from the tail
        sums at the run's count at ``v``; a run with no draw beyond ``v``
        contributes exactly 0.

        Returns
        -------
        v : numpy.ndarray
            (B,).
        run_sums : numpy.ndarray
            (B, m): one run's sum of ``psi`` (not multiplied by ``k``).
        """
        p = self.quantile_index(k, target)
        v = self.grid[p]
        runs = np.arange(self.m)[None, :]
        if tail == "upper":
            below = self.counts_t[p].astype(np.int64)  # draws <= v, per run
            beyond = self.sizes[None, :] - below
            total = self.high[runs, below]
            scale = 1.0 - cvar_level
        else:
            below = np.where(p[:, None] > 0, self.counts_t[np.maximum(p - 1, 0)], 0.0)
            below = below.astype(np.int64)  # draws < v
            beyond = below.astype(float)
            total = self.low[runs, below]
            scale = cvar_level
        sums = np.where(beyond > 0, (total - beyond * v[:, None]) / scale, 0.0)
        return v, sums


def _weighted_target(level: float, total: np.ndarray) -> np.ndarray:
    """The least weight ``c >= 1`` with ``c / total >= level - 1e-12`` in floating point.

    :func:`weighted_statistic` takes the first draw whose cumulative weight
    share reaches ``level - 1e-12``; ``c / total`` is non-decreasing in
    ``c``, so that draw is where the (integer) cumulative weight first
    reaches this ``c``. The estimate is corrected by one step either way
    so that the rounding of the division decides exactly as there.
    """
    threshold = level - 1e-12
    c = np.ceil(threshold * total)
    for _ in range(2):
        c = np.where((c > 1) & ((c - 1) / total >= threshold), c - 1, c)
        c = np.where(c / total < threshold, c + 1, c)
    return np.clip(c, 1, total)


def cvar_by_run(stat: Statistic, rc: RunCounts, k: np.ndarray, *, form: str,
                se: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """The CVaR (or quantile) and its cluster-robust SE per row of run multiplicities.

    The same estimator as :func:`weighted_statistic` (``form="weighted"``)
    or :func:`grouped_statistic` on the runs listed with repeats
    (``form="grouped"``, equal run sizes): ``v`` is the same order
    statistic (located by a search of the pooled grid with the path's
    own rule, so ties are broken alike), the estimate is ``v +
    sum_c K_c S_c / W`` with ``S_c`` run c's sum of ``psi`` and ``W =
    sum_c K_c n_c``, and the standard error ``sqrt(g sum_c K_c (S_c - n_c
    mean)^2) / W`` with ``g = M / (M - 1)`` for ``M = sum_c K_c`` runs. The
    per-run sums come from tail sums rather than from summing ``psi`` draw
    by draw, so the values agree with those forms up to round-off (about
    1e-15 relative), not to the bit; a row made of copies of a single run
    gets the standard error 0 exactly (those forms give round-off there).
    A quantile (``stat.kind == "quantile"``) is ``v`` alone, the same double
    as there, with no standard error.
    """
    level = stat.params[0]
    k = np.asarray(k, dtype=float)
    total = k @ rc.sizes
    if form == "grouped":
        n = total
        target = np.clip(np.ceil(level * n - 1e-12), 1, n)
    else:
        target = _weighted_target(level, total)
    if stat.kind == "quantile":
        return rc.grid[rc.quantile_index(k, target)], None
    v, sums = rc.cvar_parts(level, stat.params[1], k, target)
    mean_psi = (k * sums).sum(axis=1) / total
    estimate = v + mean_psi
    if not se:
        return estimate, None
    runs = k.sum(axis=1)
    centred = sums - rc.sizes[None, :] * mean_psi[:, None]
    g = np.where(runs > 1, runs / np.maximum(runs - 1, 1), 0.0)
    var = g * (k * centred**2).sum(axis=1) / total**2
    # A resample of copies of one run has no spread between runs: its SE is 0 exactly
    # (summed draw by draw it comes out as round-off, about 1e-16, instead).
    var = np.where((k > 0).sum(axis=1) == 1, 0.0, var)
    return estimate, np.sqrt(np.maximum(var, 0.0))


# ----------------------------------------------------------------------------- permutations
def random_subsets(seed: int | np.random.Generator | None, count: int, size: int,
                   chosen: int) -> np.ndarray:
    """``count`` uniformly random subsets of ``chosen`` of ``size`` items, as a boolean mask.

    The ``chosen`` smallest of IID uniform keys (a partial sort, O(size) per
    row). Keys tie with probability about ``size^2 / 2^53``; a row that got
    the wrong count is drawn again by a random permutation.

    Examples
    --------
    >>> random_subsets(np.random.default_rng(0), 3, 5, 2).sum(axis=1)
    array([2, 2, 2])
    """
    rng = np.random.default_rng(seed)
    if chosen in (0, size):
        return np.full((count, size), chosen == size)
    keys = rng.random((count, size))
    threshold = np.partition(keys, chosen - 1, axis=1)[:, chosen - 1:chosen]
    members = keys <= threshold
    bad = np.flatnonzero(members.sum(axis=1) != chosen)
    if bad.size:
        template = np.zeros(size, dtype=bool)
        template[:chosen] = True
        members[bad] = rng.permuted(np.broadcast_to(template, (bad.size, size)), axis=1)
    return members


def split_count(strata: np.ndarray, first: np.ndarray) -> int:
    """How many distinct splits of the runs keep each stratum's count for the first group.

    Examples
    --------
    >>> split_count(np.zeros(4, dtype=int), np.array([True, True, False, False]))
    6
    """
    total = 1
    for s in np.unique(strata):
        sel = strata == s
        total *= comb(int(sel.sum()), int(first[sel].sum()))
    return total


def all_splits(strata: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Every split (rows of a boolean mask over the runs), the observed one included.

    Examples
    --------
    >>> all_splits(np.zeros(3, dtype=int), np.array([True, False, False])).astype(int)
    array([[1, 0, 0],
           [0, 1, 0],
           [0, 0, 1]])
    """
    groups = [np.flatnonzero(strata == s) for s in np.unique(strata)]
    choices = [list(itertools.combinations(g, int(first[g].sum()))) for g in groups]
    out = []
    for pick in itertools.product(*choices):
        row = np.zeros(first.size, dtype=bool)
        for members in pick:
            row[list(members)] = True
        out.append(row)
    return np.array(out)


def splits(seed: int | np.random.Generator | None, n_splits: int, strata: np.ndarray,
           first: np.ndarray):
    """Blocks of random splits of the runs (within strata), ``n_splits`` rows in all.

    Yields boolean (rows, m) masks: ``True`` for runs given to the first
    group. Block sizes grow from 64 to 256 rows (fewer for large ``m``).
    """
    rng = np.random.default_rng(seed)
    positions = [np.flatnonzero(strata == s) for s in np.unique(strata)]
    done, chunk = 0, 64
    cap = max(16, BLOCK_VALUES // max(first.size, 1))
    while done < n_splits:
        size = min(chunk, n_splits - done, cap)
        members = np.empty((size, first.size), dtype=bool)
        for pos in positions:
            members[:, pos] = random_subsets(rng, size, pos.size, int(first[pos].sum()))
        yield members
        done += size
        chunk = min(2 * chunk, 256)


def runs_needed(threshold: float, symmetric: bool) -> int:
    """The fewest runs per algorithm (equal numbers) whose splits can reach ``p <= threshold``.

    ``symmetric``: the statistic is two-sided and the two groups have equal
    numbers of runs, so a split and its mirror are equally extreme (the
    smallest p is ``2 / C(2m, m)``).

    Examples
    --------
    >>> runs_needed(0.025, False), runs_needed(0.05, True)
    (4, 4)
    """
    m = 1
    while (2.0 if symmetric else 1.0) / comb(2 * m, m) > threshold:
        m += 1
    return m


__all__ = [
    "RunCounts",
    "all_splits",
    "canonical_runs",
    "cluster_bootstrap",
    "cluster_codes",
    "cvar_by_run",
    "equal_size",
    "grouped_statistic",
    "in_blocks",
    "is_clustered",
    "placement_matrix",
    "random_subsets",
    "run_matrix",
    "run_order",
    "runs_needed",
    "sizes_text",
    "split_count",
    "splits",
    "weighted_statistic",
]
