"""Block x algorithm matrices for rank tests: :class:`BlockMatrix` and how one is built.

:meth:`Results.blocks <benchverdict.results.core.Results.blocks>` picks the
incumbent of every run (the engine's own step, in memory or per partition)
and hands the incumbent table here; :func:`block_matrix` averages seeds into
blocks (complete cases by default), drops blocks with an empty cell and
records everything left out. Nothing here reads a ``Results``: the function
sees only the incumbent rows and the category order, so both engines share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from benchverdict.exclusions import exclusions_frame
from benchverdict.results.schema import NO_INCUMBENT, Objective
from benchverdict.stats.round_off import snap_round_off

#: Reasons recorded in ``BlockMatrix.exclusions`` (each starts with one of these).
BLOCK_DROPPED = "block dropped"
RUN_LEFT_OUT = "left out (complete cases)"


@dataclass(frozen=True)
class BlockMatrix:
    """A block x algorithm matrix of scores, for rank tests.

    Attributes
    ----------
    matrix : pandas.DataFrame
        Rows are blocks, columns are algorithms, values are scores in the
        user's direction.
    unit : str
        The replication unit: ``"benchmark"`` (seeds aggregated) or
        ``"benchmark_seed"`` (each benchmark x seed is a block).
    aggregate : str or None
        How seeds were aggregated within a benchmark (``None`` for
        ``unit="benchmark"_seed``).
    budget : float or None
        The budget the incumbents were taken at (``None``: each run's final).
    objective : str
        ``"maximize"`` or ``"minimize"``.
    exclusions : pandas.DataFrame
        Everything left out, one record per (block, algorithm[, seed]), with
        the columns of :data:`~benchverdict.exclusions.EXCLUSION_COLUMNS`
        (``step`` ``"rank blocks"``): ``unit`` ``"cell"`` for a missing cell
        (its block is dropped) or ``"run"`` for a run left out; the block is
        ``benchmark`` (with ``seed`` for ``unit="benchmark_seed"``; for
        ``"benchmark"`` a cell's ``seed`` is ``None``). Reasons start with
        ``"block dropped"`` (an algorithm has no result in the block, or no
        seed is complete), mention ``"left out (complete cases)"`` (a run
        whose seed some other algorithm lacks in that benchmark) or start with
        ``"no observation at or below budget"`` (a run that starts after the
        requested budget has no incumbent there).
    seeds : {"complete", "available", "unpaired"} or None
        How seeds were combined for ``unit="benchmark"``: only the seeds every
        algorithm has in the block (``"complete"``, the default), whatever
        each cell has (``"available"``), or every run because no seed label
        is shared between algorithms (``"unpaired"``: seeds are draw ids).
    uneven_cells : int
        With ``"available"`` or ``"unpaired"``: the number of cells averaging
        fewer runs than the fullest cell of their block.
    """

    matrix: pd.DataFrame
    unit: str
    aggregate: str | None
    budget: float | None
    objective: Objective
    exclusions: pd.DataFrame
    seeds: str | None = None
    uneven_cells: int = 0

    @property
    def dropped_blocks(self) -> list:
        """The blocks dropped because a cell could not be filled."""
        ex = self.exclusions
        if not len(ex):
            return []
        hit = ex[ex["reason"].astype(str).str.contains(BLOCK_DROPPED, regex=False)]
        blocks = (hit["benchmark"] if self.unit == "benchmark"
                  else zip(hit["benchmark"], hit["seed"]))
        return list(dict.fromkeys(blocks))

    def exclusion_summary(self) -> str:
        """One sentence saying what was left out and why ('' when nothing was).

        Examples
        --------
        >>> import pandas as pd
        >>> from benchverdict.results import Results
        >>> df = pd.DataFrame({"alg": ["a", "a", "b"], "task": ["p", "p", "p"],
        ...                    "seed": [0, 1, 0], "acc": [0.9, 0.1, 0.5]})
        >>> res = Results.from_frame(df, algorithm="alg", benchmark="task", seed="seed",
        ...                          score="acc", objective="maximize", kind="runs")
        >>> print(res.blocks().exclusion_summary())
        1 run(s) left out of the seed means because another algorithm lacks their seed
        in that benchmark (complete cases)
        """
        ex = self.exclusions
        if not len(ex):
            return ""
        reason = ex["reason"].astype(str)
        parts = []
        dropped = self.dropped_blocks
        if dropped:
            shown = ", ".join(map(str, dropped[:5])) + (" ..." if len(dropped) > 5 else "")
            parts.append(f"{len(dropped)} block(s) dropped because a cell is missing (an "
                         f"algorithm has no result there: {shown})")
        n_left = int(reason.str.contains(RUN_LEFT_OUT, regex=False).sum())
        if n_left:
            parts.append(f"{n_left} run(s) left out of the seed means because another "
                         f"algorithm lacks their seed in that benchmark (complete cases)")
        late = reason.str.startswith(NO_INCUMBENT)
        if late.any():
            parts.append(f"{int(late.sum())} run(s) have no observation at or below budget "
                         f"{self.budget:g} and no incumbent there")
        known = (reason.str.contains(BLOCK_DROPPED, regex=False)
                 | reason.str.contains(RUN_LEFT_OUT, regex=False) | late)
        if not known.all():  # records made by hand (e.g. a BlockMatrix built directly)
            other = reason[~known]
            parts.append(f"{len(other)} other record(s) left out "
                         f"({', '.join(sorted(set(other))[:3])})")
        return "; ".join(parts)

    def describe_unit(self) -> str:
        """A statement of the replication unit and of what was left out, printed in every output.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> print(_example_small().blocks().describe_unit())
        2 blocks (unit: benchmark; seeds averaged (mean) before ranking, a choice: unit
        benchmark_seed ranks each seed; complete cases: only the seeds every algorithm has
        in the block; final budget)
        """
        if self.unit == "benchmark":
            how = (f"seeds averaged ({self.aggregate}) before ranking, a choice: unit "
                   f"benchmark_seed ranks each seed")
            if self.seeds == "complete":
                how += "; complete cases: only the seeds every algorithm has in the block"
            elif self.seeds == "available":
                how += "; whatever seeds each cell has (not complete cases)"
            elif self.seeds == "unpaired":
                how += ("; no seed is shared between algorithms (unpaired draws), so each cell "
                        "averages all its runs")
            if self.uneven_cells:
                how += f" ({self.uneven_cells} cell(s) average fewer runs than others)"
        else:
            how = ("each benchmark x seed run is its own block (seeds of one benchmark "
                   "are not independent)")
        at = "final budget" if self.budget is None else f"budget {self.budget:g}"
        text = f"{self.matrix.shape[0]} blocks (unit: {self.unit}; {how}; {at})"
        summary = self.exclusion_summary() if "reason" in self.exclusions else ""
        return f"{text}; {summary}" if summary else text



def seed_cases(
    runs: pd.DataFrame, n_algorithms: int, seeds: str, paired: bool
) -> tuple[str, pd.DataFrame, pd.DataFrame]:
    """Choose the runs averaged per block: the rule used, the runs kept and those left out.

    With ``seeds="complete"`` a run is kept when every algorithm has a run
    with its seed in its benchmark. If no seed label is shared by two
    algorithms anywhere in the data (``paired`` false), seeds do not pair
    runs (``"unpaired"``) and every run is kept.
    """
    if not paired:
        return "unpaired", runs, runs.iloc[:0]
    if seeds == "available":
        return "available", runs, runs.iloc[:0]
    bench = runs["benchmark"].cat.codes.to_numpy().astype(np.int64)
    seed_codes = runs["seed"].cat.codes.to_numpy().astype(np.int64)
    n_seeds = max(len(runs["seed"].cat.categories), 1)
    cell = bench * n_seeds + seed_codes
    _, inverse, counts = np.unique(cell, return_inverse=True, return_counts=True)
    complete = counts[inverse] == n_algorithms
    return "complete", runs[complete], runs[~complete]




def check_block_options(unit: str, aggregate: str, missing: str, seeds: str) -> None:
    """Raise on an unknown option of :func:`block_matrix` (before any incumbent is computed).

    Examples
    --------
    >>> check_block_options("benchmark", "mean", "raise", "complete")
    >>> check_block_options("run", "mean", "raise", "complete")
    Traceback (most recent call last):
    ...
    ValueError: unit must be 'benchmark' or 'benchmark_seed', got 'run'.
    """
    if unit not in ("benchmark", "benchmark_seed"):
        raise ValueError(f"unit must be 'benchmark' or 'benchmark_seed', got {unit!r}.")
    if aggregate not in ("mean", "median"):
        raise ValueError(f"aggregate must be 'mean' or 'median', got {aggregate!r}.")
    if missing not in ("raise", "drop"):
        raise ValueError(f"missing must be 'raise' or 'drop', got {missing!r}.")
    if seeds not in ("complete", "available"):
        raise ValueError(f"seeds must be 'complete' or 'available', got {seeds!r}.")


def block_matrix(
    runs: pd.DataFrame,
    *,
    algorithm_categories: pd.Index,
    benchmark_categories: pd.Index,
    objective: Objective,
    paired: bool,
    late: pd.DataFrame | None = None,
    unit: Literal["benchmark", "benchmark_seed"] = "benchmark",
    aggregate: Literal["mean", "median"] = "mean",
    budget: float | None = None,
    missing: Literal["raise", "drop"] = "raise",
    seeds: Literal["complete", "available"] = "complete",
) -> BlockMatrix:
    """The :class:`BlockMatrix` of the incumbent rows ``runs`` (see ``Results.blocks``).

    Parameters
    ----------
    runs : pandas.DataFrame
        One incumbent per run: ``algorithm``, ``benchmark``, ``seed``
        (categoricals) and ``score``.
    algorithm_categories, benchmark_categories : pandas.Index
        Every algorithm and benchmark of the data, in order: a block or
        column without incumbents still appears (and is dropped or raises).
    objective : {"maximize", "minimize"}
    paired : bool
        Whether some seed label is shared by two algorithms in a benchmark
        (otherwise every run is averaged: ``seeds == "unpaired"``).
    late : pandas.DataFrame, optional
        The runs without an incumbent at ``budget``
        (``Results.runs_without_incumbent``), recorded as left out.
    unit, aggregate, budget, missing, seeds
        As for ``Results.blocks``.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> res = _example_small()
    >>> runs = res.final().table
    >>> block_matrix(runs, algorithm_categories=pd.Index(["a", "b"]),
    ...              benchmark_categories=pd.Index(["p", "q"]), objective="maximize",
    ...              paired=True).matrix.round(2).to_numpy().tolist()
    [[0.55, 0.35], [0.85, 0.75]]
    """
    algorithms = [str(c) for c in algorithm_categories]
    if late is None:
        late = pd.DataFrame(columns=["algorithm", "benchmark", "seed", "first_budget"])
    # A block is a benchmark (unit "benchmark") or a (benchmark, seed) pair: the record
    # names it by those two fields.
    records = [
        {"unit": "run", "benchmark": r.benchmark, "algorithm": r.algorithm, "seed": r.seed,
         "budget": budget,
         "reason": f"{NO_INCUMBENT} {float(budget):g} (the run starts at "
                   f"{r.first_budget:g}): no incumbent"}
        for r in late.itertuples(index=False)
    ]
    rule = None
    uneven = 0
    if unit == "benchmark":
        rule, used, left_out = seed_cases(runs, len(algorithms), seeds, paired)
        matrix = used.pivot_table(
            index="benchmark", columns="algorithm", values="score", aggfunc=aggregate,
            observed=False, dropna=False,
        )
        categories = benchmark_categories
        matrix = matrix.reindex(index=pd.CategoricalIndex(
            categories, categories=categories, name="benchmark"))
        if rule == "available":
            counts = used.pivot_table(index="benchmark", columns="algorithm",
                                      values="score", aggfunc="size", observed=False)
            counts = counts.to_numpy(dtype=float)
            uneven = int(((counts > 0) & (counts < np.nanmax(counts, axis=1,
                          initial=0)[:, None])).sum())
    else:
        matrix = runs.pivot_table(
            index=["benchmark", "seed"], columns="algorithm", values="score",
            aggfunc="first", observed=True,
        )
        left_out = runs.iloc[:0]
    matrix = matrix.reindex(columns=algorithm_categories)
    matrix.columns = pd.Index([str(c) for c in matrix.columns], name="algorithm")
    holes = matrix.isna()
    dropped_rows = holes.any(axis=1).to_numpy()
    if dropped_rows.any():
        has_run = set(zip(runs["benchmark"].astype(str), runs["algorithm"].astype(str)))
        starts_late = set(zip(late["benchmark"], late["algorithm"]))
        for label, row in holes[dropped_rows].iterrows():
            empty = [a for a, h in zip(algorithms, row.to_numpy()) if h]
            for alg in algorithms:
                if unit == "benchmark_seed":
                    if alg in empty:
                        records.append({"unit": "cell", "benchmark": label[0],
                                        "algorithm": alg, "seed": label[1],
                                        "reason": f"missing cell: {BLOCK_DROPPED}"})
                    continue
                if (str(label), alg) not in has_run:
                    why = (f"no run reaches budget {float(budget):g} on this benchmark"
                           if (str(label), alg) in starts_late
                           else "no run on this benchmark")
                    records.append({"unit": "cell", "benchmark": label, "algorithm": alg,
                                    "reason": f"{why}: {BLOCK_DROPPED}"})
                elif all((str(label), a) in has_run for a in algorithms):
                    records.append({"unit": "cell", "benchmark": label, "algorithm": alg,
                                    "reason": "no seed that every algorithm ran: "
                                              f"{BLOCK_DROPPED}"})
        if missing == "raise":
            cells = [r for r in records if BLOCK_DROPPED in r["reason"]]
            shown = "; ".join(
                f"({r['benchmark'] if unit == 'benchmark' else (r['benchmark'], r['seed'])}, "
                f"{r['algorithm']}: {r['reason'].split(':')[0]})" for r in cells[:6])
            more = f" and {len(cells) - 6} more" if len(cells) > 6 else ""
            raise ValueError(
                f"{int(dropped_rows.sum())} block(s) have an algorithm without a result, "
                f"e.g. {shown}{more}. A rank test needs every "
                f"algorithm on every block. Fix: pass missing='drop' to drop these blocks "
                f"(they are recorded), or choose a budget every run reached."
            )
        matrix = matrix[~dropped_rows]
    if len(left_out):
        kept_blocks = set(matrix.index)
        present = left_out.groupby(["benchmark", "seed"], observed=True)["algorithm"].agg(
            lambda a: {str(x) for x in a})
        for r in left_out.itertuples(index=False):
            if r.benchmark not in kept_blocks:
                continue  # the whole block is recorded as dropped
            lacking = [a for a in algorithms if a not in present[(r.benchmark, r.seed)]]
            records.append({
                "unit": "run", "benchmark": r.benchmark, "algorithm": str(r.algorithm),
                "seed": r.seed,
                "reason": f"seed {r.seed} has no result for {', '.join(lacking)} on this "
                          f"benchmark: {RUN_LEFT_OUT}",
            })
    exclusions = exclusions_frame(records, step="rank blocks",
                                  budget=None if budget is None else float(budget))
    # Means equal but for their summation order (or inputs differing in the 16th digit)
    # would decide ranks by round-off, and rescaling the scores would change the test.
    matrix = pd.DataFrame(snap_round_off(matrix.to_numpy(dtype=float)), index=matrix.index,
                          columns=matrix.columns)
    return BlockMatrix(
        matrix=matrix,
        unit=unit,
        aggregate=aggregate if unit == "benchmark" else None,
        budget=None if budget is None else float(budget),
        objective=objective,
        exclusions=exclusions,
        seeds=rule,
        uneven_cells=uneven,
    )


__all__ = ["BLOCK_DROPPED", "RUN_LEFT_OUT", "BlockMatrix", "block_matrix", "check_block_options",
           "seed_cases"]
