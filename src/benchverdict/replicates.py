r"""Which benchmarks are independent replicates of a pair: runs copied between benchmarks.

A claim across benchmarks ("A beats B on benchmarks like these") takes each
benchmark as an independent replicate of the pair's difference. When an
algorithm's runs are identical on several benchmarks (PriorBand's HB and RS
ignore the prior, so their runs on a task's ``at25`` and ``bad`` variants are
copies), those benchmarks are one observation of it counted several times:

* for HB - RS the two variants give the *same* difference, so 24 benchmarks
  hold 12 independent differences, and a test over 24 overstates its evidence;
* for PB - HB the two differences ``PB_at25 - HB`` and ``PB_bad - HB`` share
  HB's whole contribution (its benchmark effect and its seed noise), so they
  are positively correlated, not independent.

**The rule.** Two benchmarks belong to one *replicate* when some
algorithm's runs are identical on them (and transitively: the connected
components of the union of every algorithm's groups of copies). A pair test
across benchmarks reduces the pair's per-benchmark differences to one mean
per replicate (:func:`replicate_means`) and tests those. The replicates are
independent whenever benchmarks without copies are, so the test keeps its
level; the price is the power a partly shared difference (PB - HB) could
have added. The groups hold for *every* pair, not only the copied
algorithms' pairs: a copy shows that the benchmarks are one problem seen
twice (variants an algorithm ignores), and an algorithm's advantage on the
problem carries over to each variant. With PB and PiBO using the prior, HB
and RS copied and a task-level algorithm effect (10 tasks x 2 priors), the
paired t and Wilcoxon-Holm falsely rejected some pair in 0.070 / 0.060 of
null data sets when only the copied algorithms' pairs were joined, 0.037 /
0.025 with every pair joined (review of 2026-11-28).

Groups of copies come from :meth:`benchverdict.results.Results.copied_benchmarks`
(identical multisets of rows: seed, budget and score; chance coincidences of
few distinct scores excluded, :func:`benchverdict.describe.copied_cell_groups`).

**Declared groups.** Variants of one task share more than copies: an
algorithm's advantage on the task carries over to every variant, so even
without a copied run, 12 tasks x 2 variants are not 24 independent benchmarks
(in a null with a task-level algorithm effect of SD 0.5, 6 tasks x 2 variants,
Wilcoxon-Holm settled a false relation in 0.11 of data sets, against 0.02
with independent benchmarks). Nothing in the scores can tell such variants
apart from independent benchmarks; the user declares them through a benchmark
metafeature (``Options.replicate_by``, ``--replicate-by task``), whose levels
are then one replicate of every pair (:func:`declared_groups`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: The columns of :meth:`BenchmarkReplicates.table`.
COPIED_COLUMNS = ("algorithm", "group", "benchmark")


@dataclass(frozen=True)
class BenchmarkReplicates:
    """Which benchmarks are one replicate of a pair: copied runs, and groups the user declared.

    Attributes
    ----------
    copies : mapping of str to tuple of tuple of str
        ``algorithm -> ((benchmark, ...), ...)``: the groups of benchmarks on
        which the algorithm's runs are identical (algorithms without copies
        are absent). They join benchmarks for every pair.
    shared : tuple of tuple of str
        Groups of benchmarks that are one replicate of *every* pair (variants
        of one task, declared through a benchmark metafeature: ``by``).
    by : str or None
        The metafeature ``shared`` comes from.

    Examples
    --------
    >>> reps = BenchmarkReplicates({"HB": (("t1-at25", "t1-bad"),)})
    >>> bool(reps), bool(BenchmarkReplicates())
    (True, False)
    >>> reps.labels(["t1-at25", "t1-bad", "t2-at25"]).tolist()
    [0, 0, 1]
    """

    copies: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    shared: tuple[tuple[str, ...], ...] = ()
    by: str | None = None

    def __post_init__(self) -> None:
        frozen = {str(a): tuple(tuple(str(b) for b in g) for g in gs)
                  for a, gs in dict(self.copies).items() if gs}
        object.__setattr__(self, "copies", frozen)
        object.__setattr__(self, "shared", tuple(tuple(str(b) for b in g)
                                                 for g in self.shared if len(g) > 1))

    def __bool__(self) -> bool:
        return bool(self.copies or self.shared)

    def with_shared(self, groups: Sequence[Sequence[str]], by: str) -> BenchmarkReplicates:
        """These copies, with ``groups`` (from metafeature ``by``) joined for every pair."""
        return BenchmarkReplicates(self.copies, tuple(tuple(g) for g in groups), by)

    def labels(self, benchmarks: Sequence[str]) -> np.ndarray:
        """The replicate of each of ``benchmarks`` (the same for every pair).

        Integers ``0 .. r - 1`` numbered by first appearance in ``benchmarks``:
        benchmarks joined by a shared group or by any algorithm's copies
        (transitively) share one. Benchmarks a group names but ``benchmarks``
        does not are ignored.
        """
        return connected_components(len(benchmarks), [str(x) for x in benchmarks],
                           [*self.shared, *(g for gs in self.copies.values() for g in gs)])

    def table(self) -> pd.DataFrame:
        """A tidy table: one row per (algorithm, group, benchmark); a shared group's is None."""
        rows = [(a, g, b) for a, gs in self.copies.items() for g, group in enumerate(gs)
                for b in group]
        rows += [(None, g, b) for g, group in enumerate(self.shared) for b in group]
        return pd.DataFrame(rows, columns=list(COPIED_COLUMNS))


def declared_groups(results, by: str) -> list[list[str]]:
    """The benchmarks of each level of the benchmark metafeature ``by`` (sorted by level).

    Raises
    ------
    ValueError
        ``by`` is not a metafeature of the data (the message lists them), a
        benchmark has no value of it (missing), or several.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict import Results
    >>> f = pd.DataFrame({"alg": ["A", "B"] * 3, "bench": ["t1-x", "t1-x", "t1-y", "t1-y",
    ...                   "t2-x", "t2-x"], "task": ["t1"] * 4 + ["t2"] * 2, "seed": 0,
    ...                   "y": [1.0, 2, 3, 4, 5, 6]})
    >>> res = Results.from_frame(f, algorithm="alg", benchmark="bench", seed="seed",
    ...                          score="y", objective="maximize", metafeatures=["task"],
    ...                          kind="runs")
    >>> declared_groups(res, "task")
    [['t1-x', 't1-y'], ['t2-x']]
    """
    names = list(getattr(results, "metafeatures", ()) or ())
    if by not in names:
        raise ValueError(
            f"replicate_by={by!r} is not a benchmark metafeature of the data (they are "
            f"{names or 'none'}). Fix: name the column that groups benchmarks into "
            f"independent units (e.g. the task behind several prior variants) and pass it "
            f"as a metafeature (metafeatures=[...], --metafeature).")
    table = results.table[["benchmark", by]].drop_duplicates()
    missing = table.loc[table[by].isna(), "benchmark"].astype(str).unique()
    if len(missing):
        shown = ", ".join(sorted(missing)[:5]) + (" ..." if len(missing) > 5 else "")
        raise ValueError(
            f"replicate_by={by!r}: {len(missing)} benchmark(s) have no value of {by!r} "
            f"({shown}); each would count as its own replicate, and the report would "
            f"miscount the groups. Fix: give every benchmark a value of {by!r} (its own, "
            f"if it stands alone).")
    table = table.assign(benchmark=table["benchmark"].astype(str), level=table[by].astype(str))
    several = table.groupby("benchmark")["level"].nunique()
    several = several[several > 1]
    if len(several):
        shown = ", ".join(map(str, several.index[:5]))
        raise ValueError(
            f"replicate_by={by!r}: {len(several)} benchmark(s) have several values of {by!r} "
            f"(e.g. {shown}); a replicate groups whole benchmarks. Fix: give each benchmark "
            f"one value of {by!r}.")
    return [sorted(part["benchmark"].tolist())
            for _, part in sorted(table.groupby("level"), key=lambda kv: str(kv[0]))]


def connected_components(n: int, names: list[str],
                         groups: Sequence[Sequence[str]]) -> np.ndarray:
    """Connected components of ``names`` joined by ``groups``, numbered by first appearance.

    Examples
    --------
    >>> connected_components(4, ["a", "b", "c", "d"], [["a", "c"], ["c", "d"]]).tolist()
    [0, 1, 0, 0]
    """
    parent = list(range(n))
    where = {name: i for i, name in enumerate(names)}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for group in groups:
        members = [where[x] for x in group if x in where]
        for other in members[1:]:
            ra, rb = root(members[0]), root(other)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    number: dict[int, int] = {}
    return np.array([number.setdefault(root(i), len(number)) for i in range(n)],
                    dtype=np.int64)


def joins(labels: np.ndarray) -> bool:
    """Whether :meth:`BenchmarkReplicates.labels` joined any two benchmarks.

    Examples
    --------
    >>> joins(np.array([0, 0, 1])), joins(np.array([0, 1, 2]))
    (True, False)
    """
    return bool(labels.size) and int(labels.max()) + 1 < labels.size


def replicate_means(d: np.ndarray, replicates: np.ndarray) -> np.ndarray:
    """The mean of the finite entries of ``d`` per replicate (replicates without any dropped).

    ``d`` is one value per benchmark, or a matrix with one row per benchmark
    (then every entry must be finite; one row of means per replicate).

    Examples
    --------
    >>> replicate_means(np.array([1.0, 1.0, 3.0, np.nan]), np.array([0, 0, 1, 2])).tolist()
    [1.0, 3.0]
    >>> replicate_means(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
    ...                 np.array([0, 0, 1])).tolist()
    [[2.0, 3.0], [5.0, 6.0]]
    """
    d = np.asarray(d, dtype=float)
    replicates = np.asarray(replicates, dtype=np.int64)
    if d.ndim == 2:
        total = np.zeros((int(replicates.max()) + 1 if replicates.size else 0, d.shape[1]))
        np.add.at(total, replicates, d)
        return total / np.bincount(replicates)[:, None]
    ok = np.isfinite(d)
    size = int(replicates.max()) + 1 if replicates.size else 0
    total = np.bincount(replicates[ok], d[ok], minlength=size)
    count = np.bincount(replicates[ok], minlength=size)
    return total[count > 0] / count[count > 0]


def pair_replicates(results, replicate_by: str | None = None) -> BenchmarkReplicates:
    """The data's copied runs, with the levels of ``replicate_by`` joined for every pair.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> bool(pair_replicates(_example_small()))
    False
    """
    found = results.copied_benchmarks()
    if replicate_by is None:
        return found
    return found.with_shared(declared_groups(results, replicate_by), replicate_by)

