"""The unified results schema: one validated, immutable long table.

A :class:`Results` holds benchmark results in long format with canonical
roles:

========== ==========================================================
role       meaning
========== ==========================================================
algorithm  the method being compared (category)
benchmark  the problem instance (category; a constant if there is one)
seed       the replicate: an HPO run's seed or a random-search run (category)
budget     optional tuning effort or fidelity (float64)
score      the measured outcome (float64, in the user's direction)
========== ==========================================================

plus any metafeature columns, and ``objective`` (``"maximize"`` or
``"minimize"``), which every analysis honours.

Two kinds of data fit the schema (``Results.kind``):

* ``"trials"``: every row is an independent random-search draw (a
  configuration trained and scored once). ``budget``, if given, is the trial
  order within a seed's search. Tuning curves and DSE use these rows
  directly; the incumbent of a seed's search after ``b`` trials is the best
  score among its first ``b`` trials.
* ``"runs"``: every row is the incumbent of an HPO run at a budget, so scores
  never get worse along the budget within a run. Rank tests and LMEMs use
  these; they are not IID draws and tuning curves refuse them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from benchverdict._validation import (
    Problem,
    ValidationError,
    duplicated_keys,
    format_rows,
    missing_columns,
    missing_ids,
    mixed_types,
    name_labels,
    numeric_column,
    to_cli,
)
from benchverdict.describe import Description, describe_results

Objective = Literal["maximize", "minimize"]
Kind = Literal["trials", "runs"]
ID_ROLES = ("algorithm", "benchmark", "seed")
#: The benchmark label given to data sets with a single benchmark.
SINGLE_BENCHMARK = "all"

_PANDAS_COW = int(pd.__version__.split(".")[0]) >= 3


def check_objective(objective: object) -> Objective:
    """Return ``objective`` if it is ``"maximize"`` or ``"minimize"``, else raise.

    Examples
    --------
    >>> check_objective("minimize")
    'minimize'
    """
    if objective not in ("maximize", "minimize"):
        raise ValueError(
            f"objective must be 'maximize' or 'minimize', got {objective!r}. It is required "
            "because benchverdict never guesses whether larger scores are better."
        )
    return objective  # type: ignore[return-value]


#: Columns of ``Results.exclusions``: one record per input row dropped at validation
#: (``unit`` ``"row"``, ``row`` its index label) or per run a view left out (``unit`` ``"run"``,
#: with its ``algorithm``, ``benchmark`` and ``seed``); ``columns`` and ``reasons`` say why.
EXCLUSION_COLUMNS = ("unit", "row", "algorithm", "benchmark", "seed", "columns", "reasons")


#: How a view's ``kind_reason`` starts (:meth:`Results.at_budget`, :meth:`Results.final`).
VIEW = "a view: "


class NoIncumbentsError(ValueError):
    """No run has an observation at or below the requested budget (:meth:`Results.at_budget`)."""


#: Reasons recorded in ``BlockMatrix.exclusions`` (each starts with one of these).
BLOCK_DROPPED = "block dropped"
RUN_LEFT_OUT = "left out (complete cases)"
NO_INCUMBENT = "no observation at or below budget"


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
        Everything left out, one record per (block, algorithm[, seed]):
        columns ``block``, ``algorithm``, ``seed`` (``None`` when the record
        is about the whole cell) and ``reason``. Reasons start with
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
        hit = ex["reason"].astype(str).str.contains(BLOCK_DROPPED, regex=False)
        return list(dict.fromkeys(ex.loc[hit, "block"]))

    def exclusion_summary(self) -> str:
        """One sentence saying what was left out and why ('' when nothing was).

        Examples
        --------
        >>> import pandas as pd
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


class Results:
    """Validated benchmark results in the unified long-format schema.

    Build one with :meth:`from_frame` or :func:`benchverdict.read`. The object
    is immutable: views return new frames (cheap copy-on-write copies), and
    nothing an analysis does can change it.

    Attributes
    ----------
    objective : {"maximize", "minimize"}
        Whether larger or smaller scores are better. Scores are always stored
        in the user's direction.
    kind : {"trials", "runs"}
        Whether rows are IID random-search draws or HPO-run incumbents (see
        the module docstring).
    kind_reason : str
        Why ``kind`` has its value (given, or how it was inferred).
    roles : dict
        The user's column for each role.
    metafeatures : tuple of str
        Metafeature column names (kept under their own names).
    exclusions : pandas.DataFrame
        Everything left out, columns :data:`EXCLUSION_COLUMNS`. Every row
        dropped during validation is one record with ``unit`` ``"row"``:
        ``row`` (the input's index label), ``columns`` and ``reasons`` (a
        row with two problems, say a missing score and a missing budget, is
        one record whose columns and reasons are joined by ``"; "``).
        Adapters add the rows they filter out on purpose here too. A view
        (:meth:`at_budget`) adds one record with ``unit`` ``"run"`` per run
        without an incumbent, naming its ``algorithm``, ``benchmark`` and
        ``seed``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"model": ["a", "a", "b", "b"], "seed": [0, 1, 0, 1],
    ...                    "acc": [0.8, 0.82, 0.7, 0.75]})
    >>> res = Results.from_frame(df, algorithm="model", seed="seed", score="acc",
    ...                          objective="maximize", kind="trials")
    >>> res.algorithms
    ['a', 'b']
    >>> res.draws("b", "all")
    array([0.7 , 0.75])
    """

    __slots__ = (
        "_cache",
        "_frame",
        "exclusions",
        "kind",
        "kind_reason",
        "metafeatures",
        "objective",
        "roles",
    )

    def __init__(
        self,
        frame: pd.DataFrame,
        *,
        objective: Objective,
        kind: Kind,
        kind_reason: str,
        roles: dict[str, str],
        metafeatures: tuple[str, ...],
        exclusions: pd.DataFrame,
    ):
        # Private constructor: use from_frame. No validation happens here.
        object.__setattr__(self, "_frame", frame)
        object.__setattr__(self, "objective", objective)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "kind_reason", kind_reason)
        object.__setattr__(self, "roles", dict(roles))
        object.__setattr__(self, "metafeatures", tuple(metafeatures))
        object.__setattr__(self, "exclusions", _exclusions_table(exclusions))
        # Derived arrays computed once (e.g. the budget's integer codes); never user-visible.
        object.__setattr__(self, "_cache", {})

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Results is immutable; build a new one with from_frame().")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Results is immutable.")

    # Pickling (joblib, multiprocessing) and copy.copy/deepcopy go through these two: the
    # state is the constructor's arguments, restored with object.__setattr__ so the object
    # stays immutable. The derived-array cache is rebuilt on demand, not shipped.
    def __getstate__(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__ if name != "_cache"}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_cache", {})

    def equals(self, other: object) -> bool:
        """Whether ``other`` holds the same data, roles, objective, kind and exclusions.

        Examples
        --------
        >>> import copy, pickle
        >>> from benchverdict.results import _example_small
        >>> res = _example_small()
        >>> res.equals(pickle.loads(pickle.dumps(res))) and res.equals(copy.deepcopy(res))
        True
        """
        if not isinstance(other, Results):
            return False
        return (
            self.objective == other.objective
            and self.kind == other.kind
            and self.kind_reason == other.kind_reason
            and self.roles == other.roles
            and self.metafeatures == other.metafeatures
            and self._frame.equals(other._frame)
            and self._frame.index.equals(other._frame.index)
            and self.exclusions.equals(other.exclusions)
        )

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        *,
        algorithm: str,
        seed: str,
        score: str,
        objective: Objective,
        benchmark: str | None = None,
        budget: str | None = None,
        metafeatures: Sequence[str] = (),
        on_invalid: Literal["raise", "drop"] = "raise",
        kind: Kind | None = None,
        min_algorithms: int = 2,
    ) -> Results:
        """Validate a long-format frame and map its columns onto the schema's roles.

        Parameters
        ----------
        df : pandas.DataFrame
            One row per observation.
        algorithm, seed, score : str
            The user's columns for these roles.
        objective : {"maximize", "minimize"}
            Required: whether larger scores are better.
        benchmark : str, optional
            The benchmark column. Without one, every row gets the constant
            benchmark ``"all"``.
        budget : str, optional
            The budget (trial number, epochs, fidelity, seconds) column.
        metafeatures : sequence of str
            Other columns to keep, under their own names.
        min_algorithms : int
            Fewer distinct algorithms is an error (default 2: a comparison
            needs two). A leaderboard submission may hold one (``1``).
        on_invalid : {"raise", "drop"}
            ``"raise"`` (default) raises :class:`ValidationError` listing every
            problem. ``"drop"`` drops rows with row-level problems (missing
            ids, non-numeric or non-finite scores or budgets, duplicated keys)
            and records each in ``results.exclusions``. Frame-level problems
            (missing columns, empty frame, mixed id types, names with control
            characters, fewer than two algorithms) always raise.
        kind : {"trials", "runs"}, optional
            Whether rows are IID random-search draws or HPO-run incumbents.
            Required without a budget column: a row can then be one
            random-search draw or the final result of one run, and the data
            cannot tell which, so omitting it raises :class:`ValidationError`
            (see :func:`kind_needed_problem`). With a budget column it may be
            omitted and is inferred: scores that never get worse along the
            budget within every run are ``"runs"``; scores that get worse
            somewhere are ``"trials"`` (incumbents cannot get worse); runs of
            a single row each are ``"trials"``. The reason is kept in
            ``kind_reason`` and printed by :meth:`describe`.

        Returns
        -------
        Results

        Raises
        ------
        ValidationError
            With every problem found, each naming the column, the first
            offending rows, and the fix.

        Notes
        -----
        Names are text. Algorithm, benchmark and seed labels, and text
        metafeatures, given as bytes are decoded as UTF-8 (bytes that are not
        UTF-8 are refused). Names holding control characters (NUL, tab,
        newline, ESC, other C0/C1 controls) or bidirectional-formatting
        characters (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C)
        are refused, never silently cleaned: they are invisible or reorder
        text, break SVG figures, and let two different names look alike.

        Booleans are not scores: a boolean score or budget column, and
        ``True``/``False`` values inside an object column, are refused rather
        than read as 1/0 (the values are droppable rows with
        ``on_invalid="drop"``).

        Duplicated keys are reported with every row of one example key and
        with the unmapped columns that differ within duplicated keys (the
        column that probably tells them apart).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"alg": ["rs", "rs", "bo", "bo"], "seed": [1, 2, 1, 2],
        ...                    "loss": [0.3, float("nan"), 0.2, 0.25]})
        >>> res = Results.from_frame(df, algorithm="alg", seed="seed", score="loss",
        ...                          objective="minimize", on_invalid="drop", kind="runs")
        >>> res.exclusions[["unit", "row", "columns", "reasons"]]
          unit row columns              reasons
        0  row   1    loss  missing score (NaN)
        """
        check_objective(objective)
        if on_invalid not in ("raise", "drop"):
            raise ValueError(f"on_invalid must be 'raise' or 'drop', got {on_invalid!r}.")
        if kind is not None and kind not in ("trials", "runs"):
            raise ValueError(f"kind must be 'trials', 'runs' or None, got {kind!r}.")
        if not isinstance(df, pd.DataFrame):
            if type(df).__module__.split(".")[0] == "dask":
                # The Dask engine sits above Results (DaskResults is a Results), so the
                # constructor of a Dask frame is benchverdict.io's, not this one.
                raise TypeError(
                    "df is a Dask DataFrame. Fix: build its Results with "
                    "benchverdict.from_dask_frame(df, ...) (the same role arguments; needs "
                    "benchverdict[dask]) or read the files with "
                    "benchverdict.read(path, ..., engine='dask').")
            raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}.")
        frame, problems, exclusions, budget_index = _validate(
            df,
            algorithm=algorithm,
            benchmark=benchmark,
            seed=seed,
            budget=budget,
            score=score,
            metafeatures=tuple(metafeatures),
            on_invalid=on_invalid,
            min_algorithms=min_algorithms,
        )
        if kind is None and budget is None:
            problems = [*problems, kind_needed_problem()]
        if problems:
            raise ValidationError(problems)
        roles = {"algorithm": algorithm, "seed": seed, "score": score}
        if benchmark is not None:
            roles["benchmark"] = benchmark
        if budget is not None:
            roles["budget"] = budget
        if kind is None:
            kind, kind_reason = _infer_kind(frame, objective)
        else:
            kind_reason = "given by the caller"
        results = cls(
            frame,
            objective=objective,
            kind=kind,
            kind_reason=kind_reason,
            roles=roles,
            metafeatures=tuple(metafeatures),
            exclusions=exclusions,
        )
        if budget_index is not None:
            results._cache["budget_index"] = budget_index
        return results

    def _budget_index(self) -> tuple[np.ndarray, np.ndarray]:
        """Integer codes of the budget per row and the sorted distinct budgets.

        Levels may include budgets of rows dropped in validation; codes only
        refer to budgets present.
        """
        if "budget_index" not in self._cache:
            codes, levels = pd.factorize(self._frame["budget"].to_numpy(), sort=True)
            self._cache["budget_index"] = (codes, np.asarray(levels))
        return self._cache["budget_index"]

    # ------------------------------------------------------------------ basic properties
    @property
    def table(self) -> pd.DataFrame:
        """The long table with canonical column names (a cheap copy).

        Columns: ``algorithm``, ``benchmark``, ``seed``, [``budget``], ``score``
        and the metafeatures. The index holds the input's row labels. Scores
        are in the user's direction; see ``objective``. This is the view the
        LMEM module fits.
        """
        return self._frame.copy(deep=not _PANDAS_COW)

    @property
    def has_budget(self) -> bool:
        """Whether a budget column was mapped."""
        return "budget" in self._frame.columns

    @property
    def algorithms(self) -> list[str]:
        """Algorithm names, in sorted order."""
        return [str(c) for c in self._frame["algorithm"].cat.categories]

    @property
    def benchmarks(self) -> list[str]:
        """Benchmark names, in sorted order."""
        return [str(c) for c in self._frame["benchmark"].cat.categories]

    @property
    def seeds(self) -> list:
        """Seed labels, in sorted order."""
        return list(self._frame["seed"].cat.categories)

    @property
    def budgets(self) -> np.ndarray:
        """The sorted distinct budgets (empty without a budget column)."""
        if not self.has_budget:
            return np.array([], dtype=float)
        return np.unique(self._frame["budget"].to_numpy())

    @property
    def sign(self) -> float:
        """``+1.0`` when maximising, ``-1.0`` when minimising.

        Multiplying scores by ``sign`` gives values where larger is better.
        """
        return 1.0 if self.objective == "maximize" else -1.0

    def __len__(self) -> int:
        return len(self._frame)

    def __repr__(self) -> str:
        f = self._frame
        budget = f", {f['budget'].nunique()} budgets" if self.has_budget else ""
        return (
            f"Results({len(f)} rows, kind={self.kind!r}, objective={self.objective!r}: "
            f"{len(self.algorithms)} algorithms x {len(self.benchmarks)} benchmarks x "
            f"{len(self.seeds)} seeds{budget}; {len(self.exclusions)} rows excluded)"
        )

    def copy(self) -> Results:
        """Return a cheap copy (the data are shared copy-on-write)."""
        return Results(
            self._frame.copy(deep=not _PANDAS_COW),
            objective=self.objective,
            kind=self.kind,
            kind_reason=self.kind_reason,
            roles=self.roles,
            metafeatures=self.metafeatures,
            exclusions=self.exclusions.copy(),
        )

    def subset(
        self,
        *,
        algorithms: Sequence[str] | None = None,
        benchmarks: Sequence[str] | None = None,
    ) -> Results:
        """Restrict to some algorithms and/or benchmarks.

        Unknown names raise. The exclusions are kept (rows left out by the
        subset are a choice, not an exclusion).

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> _example_small().subset(algorithms=["a", "b"]).algorithms
        ['a', 'b']
        """
        frame = self._frame
        mask = np.ones(len(frame), dtype=bool)
        for role, names in (("algorithm", algorithms), ("benchmark", benchmarks)):
            if names is None:
                continue
            known = set(map(str, frame[role].cat.categories))
            unknown = [n for n in names if str(n) not in known]
            if unknown:
                raise KeyError(f"unknown {role}(s) {unknown}; known: {sorted(known)}.")
            mask &= frame[role].astype(str).isin([str(n) for n in names]).to_numpy()
        sub = frame[mask].copy()
        for role in ("algorithm", "benchmark"):
            sub[role] = sub[role].cat.remove_unused_categories()
        return Results(
            sub,
            objective=self.objective,
            kind=self.kind,
            kind_reason=self.kind_reason,
            roles=self.roles,
            metafeatures=self.metafeatures,
            exclusions=self.exclusions,
        )

    # ------------------------------------------------------------------ views
    def draws(self, algorithm: str, benchmark: str | None = None) -> np.ndarray:
        """The IID scores of one algorithm on one benchmark.

        For ``kind="trials"`` every row is an independent random-search draw,
        so the draws are all rows of the (algorithm, benchmark) cell, pooled
        over seeds and trials. Scores keep the user's direction: a tuning
        curve or CDF built from them must be told ``objective``.

        Parameters
        ----------
        algorithm : str
        benchmark : str, optional
            May be omitted when there is a single benchmark.

        Returns
        -------
        numpy.ndarray
            float64 scores in row order.

        Raises
        ------
        ValueError
            For ``kind="runs"``: incumbents of HPO runs are not IID draws.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> _example_small().draws("a", "p")
        array([0.1, 0.5, 0.2, 0.6])
        """
        self.require_kind("trials", "draws()")
        if benchmark is None:
            if len(self.benchmarks) != 1:
                raise ValueError(
                    f"benchmark is required: there are {len(self.benchmarks)} benchmarks "
                    f"({self.benchmarks[:5]}...)."
                )
            benchmark = self.benchmarks[0]
        self._check_name("algorithm", algorithm)
        self._check_name("benchmark", benchmark)
        f = self._frame
        mask = (f["algorithm"] == algorithm).to_numpy() & (f["benchmark"] == benchmark).to_numpy()
        return f["score"].to_numpy()[mask].copy()

    def iter_draws(self) -> Iterator[tuple[str, str, np.ndarray]]:
        """Yield ``(algorithm, benchmark, draws)`` for every non-empty cell."""
        self.require_kind("trials", "iter_draws()")
        f = self._frame
        for (alg, bench), group in f.groupby(["algorithm", "benchmark"], observed=True, sort=True):
            yield str(alg), str(bench), group["score"].to_numpy().copy()

    def _incumbent_rows(self, budget: float | None = None) -> pd.DataFrame:
        """The incumbent of every run at ``budget`` (default: each run's final), as rows.

        The table behind :meth:`at_budget`, :meth:`final` and :meth:`blocks`
        (an engine keeping rows elsewhere, e.g. Dask, overrides it). Runs without an incumbent at
        ``budget`` are simply absent; :meth:`runs_without_incumbent` lists
        them and :meth:`at_budget` records them in its exclusions.

        Returns
        -------
        pandas.DataFrame
            Columns ``algorithm, benchmark, seed, [budget], score`` and the
            metafeatures (their values at the incumbent's row), one row per run.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> _example_small()._incumbent_rows(1)["score"].tolist()
        [0.1, 0.2, 0.9, 0.7, 0.3, 0.4, 0.2, 0.7]
        """
        if budget is None:
            picked = self._incumbents(self._frame)
            if self.has_budget and self.kind == "trials":
                # The incumbent of a search is reported at the search's length, not at the
                # trial that found it.
                last = (
                    self._frame.groupby(["algorithm", "benchmark", "seed"], observed=True)[
                        "budget"].max().rename("_last").reset_index()
                )
                picked = picked.merge(last, on=["algorithm", "benchmark", "seed"], how="left")
                picked["budget"] = picked.pop("_last")
            return picked
        if not self.has_budget:
            raise ValueError(
                "at_budget() needs a budget column; pass budget=<column> to from_frame, or "
                "use final()."
            )
        budget = float(budget)
        f = self._frame
        picked = self._incumbents(f[f["budget"].to_numpy() <= budget])
        picked["budget"] = budget
        return picked

    def at_budget(self, budget: float) -> Results:
        """The incumbent of every run after ``budget``, as a ``kind="runs"`` Results.

        A run is one (algorithm, benchmark, seed). For ``kind="runs"`` the
        incumbent is the score of the last row with ``budget <= b`` (the
        incumbent is carried forward between observations). For
        ``kind="trials"`` it is the best score (by ``objective``) among the
        run's trials with ``budget <= b``: the view under which rank tests
        and LMEMs compare random searches.

        The view keeps the objective, the roles and the metafeatures (their
        values at the incumbent's row); its ``budget`` column is ``b``. Runs
        with no observation at or below ``b`` cannot have an incumbent: they
        are left out and recorded in the view's :attr:`exclusions` (``unit``
        ``"run"``, with the run's algorithm, benchmark and seed), after the
        rows validation dropped.

        Raises
        ------
        NoIncumbentsError
            When no run has an observation at or below ``budget``.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"alg": ["a", "a", "b", "b"], "seed": [0, 0, 0, 0],
        ...                    "t": [1, 2, 2, 3], "y": [0.1, 0.2, 0.3, 0.4]})
        >>> res = Results.from_frame(df, algorithm="alg", seed="seed", budget="t", score="y",
        ...                          objective="maximize", kind="runs")
        >>> view = res.at_budget(1)
        >>> view.kind, view.table["score"].tolist()
        ('runs', [0.1])
        >>> view.exclusions[["unit", "algorithm", "seed", "reasons"]].values.tolist()
        [['run', 'b', 0, 'no observation at or below budget 1']]
        """
        picked = self._incumbent_rows(budget)
        budget = float(budget)
        late = self.runs_without_incumbent(budget)
        records = pd.DataFrame({
            "unit": "run",
            "row": None,
            "algorithm": late["algorithm"].astype(object),
            "benchmark": late["benchmark"].astype(object),
            "seed": late["seed"].astype(object),
            "columns": "budget",
            "reasons": f"{NO_INCUMBENT} {budget:g}",
        }, columns=list(EXCLUSION_COLUMNS))
        if picked.empty:
            raise NoIncumbentsError(
                f"no run has an observation at or below budget {budget:g}, so there are no "
                f"incumbents; choose a budget at or above the first observation "
                f"({float(late['first_budget'].min()):g}).")
        return self._view(picked, f"the incumbent of every run at budget {budget:g}", records)

    def final(self) -> Results:
        """The final incumbent of every run (algorithm, benchmark, seed), as a Results.

        The view is of ``kind="runs"``.

        Without a budget column every row is already one run's result (a
        ``kind="trials"`` row is a run of one trial). With one, this is the
        incumbent at each run's own largest budget (see :meth:`at_budget`),
        and the ``budget`` column holds that largest budget. Every run has a
        final incumbent, so the view adds no exclusions.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> view = _example_small().final()
        >>> view.kind, view.table["score"].tolist()
        ('runs', [0.5, 0.6, 0.9, 0.8, 0.3, 0.4, 0.8, 0.7])
        """
        return self._view(self._incumbent_rows(None), "the final incumbent of every run",
                          _empty_exclusions())

    def incumbents(self, budget: float | None = None) -> Results:
        """The runs' incumbents at ``budget``; ``None`` (default): each run's final one.

        :meth:`final` or :meth:`at_budget`, as every analysis that compares
        incumbents chooses them.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> print(_example_small().incumbents(1).rows_used())
        8 rows: the incumbent of every run at budget 1
        """
        return self.final() if budget is None else self.at_budget(budget)

    def rows_used(self) -> str:
        """Which rows these are and what was left out, in one line (printed by the analyses).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"alg": ["a", "a", "b", "b"], "seed": [0, 0, 0, 0],
        ...                    "t": [1, 2, 2, 3], "y": [0.1, 0.2, 0.3, 0.4]})
        >>> res = Results.from_frame(df, algorithm="alg", seed="seed", budget="t", score="y",
        ...                          objective="maximize", kind="runs")
        >>> res.rows_used()
        'all 4 rows'
        >>> print(res.at_budget(1).rows_used())
        1 rows: the incumbent of every run at budget 1; 1 run(s) left out (no observation at
        or below budget 1)
        """
        if self.kind_reason.startswith(VIEW):
            text = f"{len(self):,} rows: {self.kind_reason[len(VIEW):]}"
        else:
            text = f"all {len(self):,} rows"
        units = self.exclusions["unit"]
        late = self.exclusions[units == "run"]
        if len(late):
            text += f"; {len(late):,} run(s) left out ({late['reasons'].iloc[0]})"
        n_rows = int((units == "row").sum())
        if n_rows:
            text += f"; {n_rows:,} invalid input row(s) excluded"
        return text

    def _view(self, picked: pd.DataFrame, what: str, runs_left_out: pd.DataFrame) -> Results:
        """A ``kind="runs"`` Results of incumbent rows (already canonical and valid)."""
        frame = picked.reset_index(drop=True)
        for role in ID_ROLES:
            frame[role] = frame[role].cat.remove_unused_categories()
        exclusions = (pd.concat([self.exclusions, runs_left_out], ignore_index=True)
                      if len(runs_left_out) else self.exclusions)
        return Results(
            frame,
            objective=self.objective,
            kind="runs",
            kind_reason=f"{VIEW}{what}",
            roles=self.roles,
            metafeatures=self.metafeatures,
            exclusions=exclusions,
        )

    def incumbent_trajectories(self) -> Results:
        """Every seed's random search as an HPO run: its incumbent after each trial.

        For ``kind="trials"`` data with a trial order (budget), the score at
        budget ``b`` becomes the best score among the run's trials up to
        ``b``, so the result is a ``kind="runs"`` Results (a non-worsening
        series per run). ``kind="runs"`` data are returned unchanged.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> traj = _example_small().incumbent_trajectories()
        >>> traj.kind, traj.table["score"].tolist()[:4]
        ('runs', [0.1, 0.5, 0.2, 0.6])
        """
        if self.kind == "runs":
            return self
        if not self.has_budget:
            raise ValueError("incumbent trajectories need a trial order (a budget column).")
        keys = list(ID_ROLES)
        frame = self._frame.sort_values([*keys, "budget"], kind="stable").reset_index(drop=True)
        oriented = frame["score"] * self.sign
        frame["score"] = oriented.groupby([frame[k] for k in keys], observed=True).cummax() * (
            self.sign)
        return Results(
            frame,
            objective=self.objective,
            kind="runs",
            kind_reason=f"{VIEW}every random search's incumbent after each trial",
            roles=self.roles,
            metafeatures=self.metafeatures,
            exclusions=self.exclusions,
        )

    def _incumbents(self, frame: pd.DataFrame) -> pd.DataFrame:
        keys = ["algorithm", "benchmark", "seed"]
        if "budget" not in frame.columns:
            return frame.reset_index(drop=True)
        if self.kind == "runs":
            order = frame.sort_values([*keys, "budget"], kind="stable")
            picked = order.drop_duplicates(keys, keep="last")
        else:
            oriented = frame["score"] * self.sign
            # Best trial per run; ties go to the earliest trial.
            order = frame.assign(_o=-oriented).sort_values([*keys, "_o", "budget"], kind="stable")
            picked = order.drop_duplicates(keys, keep="first").drop(columns="_o")
        return picked.sort_values(keys, kind="stable").reset_index(drop=True)

    def incumbent_cube(self, budgets: Sequence[float]) -> np.ndarray:
        """The incumbent of every run at many budgets at once, as a dense array.

        ``cube[t, i, j, s]`` is the incumbent (as :meth:`at_budget` defines it,
        in the user's direction) of algorithm ``self.algorithms[i]`` on
        benchmark ``self.benchmarks[j]`` with seed ``self.seeds[s]`` after
        ``budgets[t]``; ``nan`` where the run has no observation at or below
        that budget or does not exist. One sorted pass and a binary search per
        (run, budget) replace a call of :meth:`at_budget` per budget.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> cube = _example_small().incumbent_cube([1, 2])
        >>> cube.shape
        (2, 2, 2, 2)
        >>> cube[:, 0, 0, 0].tolist()   # algorithm a, benchmark p, seed 0: best of 0.1, 0.5
        [0.1, 0.5]
        """
        if not self.has_budget:
            raise ValueError("incumbent_cube() needs a budget column; use final().")
        f = self._frame
        cats = [f[c].cat for c in ("algorithm", "benchmark", "seed")]
        sizes = [len(c.categories) for c in cats]
        run = np.zeros(len(f), dtype=np.int64)
        for cat, size in zip(cats, sizes):
            run = run * size + cat.codes.to_numpy().astype(np.int64)
        b_codes, levels = self._budget_index()
        n_levels = max(len(levels), 1)
        key = run * n_levels + b_codes
        order = np.argsort(key, kind="stable")
        key = key[order]
        scores = f["score"].to_numpy()[order]
        if self.kind == "trials":
            # The incumbent of a search is its best trial so far: a running best per run.
            oriented = pd.Series(scores * self.sign)
            scores = oriented.groupby(run[order]).cummax().to_numpy() * self.sign
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

    def blocks(
        self,
        unit: Literal["benchmark", "benchmark_seed"] = "benchmark",
        aggregate: Literal["mean", "median"] = "mean",
        *,
        budget: float | None = None,
        missing: Literal["raise", "drop"] = "raise",
        seeds: Literal["complete", "available"] = "complete",
    ) -> BlockMatrix:
        """A block x algorithm score matrix for rank tests.

        With ``unit="benchmark"`` each algorithm's runs in a benchmark are
        averaged before ranking. That is a choice (Demšar's setting: the
        benchmarks are the independent units); it is stated in
        :meth:`BlockMatrix.describe_unit`, which every rank output prints.

        Seeds missing for some algorithm would make the averages unfair: an
        algorithm could win a block only because its bad seed is missing. So
        by default only *complete cases* are averaged: in each benchmark, the
        seeds every algorithm has. Runs of other seeds are left out, a
        benchmark with no complete seed is dropped, and each is recorded in
        ``BlockMatrix.exclusions``. When no seed label is shared between
        algorithms at all (each row its own draw, e.g. random-search trials
        with their own seeds), seeds do not pair runs and every run is
        averaged (``BlockMatrix.seeds == "unpaired"``).

        Parameters
        ----------
        unit : {"benchmark", "benchmark_seed"}
            The replication unit. ``"benchmark"``: one block per benchmark,
            seeds aggregated by ``aggregate``. ``"benchmark_seed"``: every
            benchmark x seed is a block (seeds are treated as independent
            replicates, which inflates the sample size when seeds share a
            benchmark; say so when you use it).
        aggregate : {"mean", "median"}
            How seeds are combined for ``unit="benchmark"``.
        budget : float, optional
            Use the incumbents at this budget (:meth:`at_budget`); default
            each run's final incumbent (:meth:`final`). Runs with no
            observation at or below it have no incumbent: they are recorded.
        missing : {"raise", "drop"}
            A block with an empty cell cannot be ranked. ``"raise"`` lists the
            empty cells; ``"drop"`` drops those blocks and records them.
        seeds : {"complete", "available"}
            ``"complete"`` (default): average only the seeds every algorithm
            has in the block. ``"available"``: average whatever seeds each
            cell has (the count of uneven cells is kept in
            ``BlockMatrix.uneven_cells``).

        Returns
        -------
        BlockMatrix
            Scores in the user's direction; ``objective`` says how to rank.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> _example_small().blocks().matrix
        algorithm     a     b
        benchmark
        p          0.55  0.35
        q          0.85  0.75
        """
        if unit not in ("benchmark", "benchmark_seed"):
            raise ValueError(f"unit must be 'benchmark' or 'benchmark_seed', got {unit!r}.")
        if aggregate not in ("mean", "median"):
            raise ValueError(f"aggregate must be 'mean' or 'median', got {aggregate!r}.")
        if missing not in ("raise", "drop"):
            raise ValueError(f"missing must be 'raise' or 'drop', got {missing!r}.")
        if seeds not in ("complete", "available"):
            raise ValueError(f"seeds must be 'complete' or 'available', got {seeds!r}.")
        runs = self._incumbent_rows(budget)
        algorithms = [str(c) for c in self._frame["algorithm"].cat.categories]
        late = (self.runs_without_incumbent(budget) if budget is not None
                else pd.DataFrame(columns=["algorithm", "benchmark", "seed", "first_budget"]))
        records = [
            {"block": r.benchmark if unit == "benchmark" else (r.benchmark, r.seed),
             "algorithm": r.algorithm, "seed": r.seed,
             "reason": f"{NO_INCUMBENT} {float(budget):g} (the run starts at "
                       f"{r.first_budget:g}): no incumbent"}
            for r in late.itertuples(index=False)
        ]
        rule = None
        uneven = 0
        if unit == "benchmark":
            rule, used, left_out = _seed_cases(runs, len(algorithms), seeds, self._paired())
            matrix = used.pivot_table(
                index="benchmark", columns="algorithm", values="score", aggfunc=aggregate,
                observed=False, dropna=False,
            )
            categories = self._frame["benchmark"].cat.categories
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
        matrix = matrix.reindex(columns=self._frame["algorithm"].cat.categories)
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
                            records.append({"block": label, "algorithm": alg, "seed": label[1],
                                            "reason": f"missing cell: {BLOCK_DROPPED}"})
                        continue
                    if (str(label), alg) not in has_run:
                        why = (f"no run reaches budget {float(budget):g} on this benchmark"
                               if (str(label), alg) in starts_late
                               else "no run on this benchmark")
                        records.append({"block": label, "algorithm": alg, "seed": None,
                                        "reason": f"{why}: {BLOCK_DROPPED}"})
                    elif all((str(label), a) in has_run for a in algorithms):
                        records.append({"block": label, "algorithm": alg, "seed": None,
                                        "reason": "no seed that every algorithm ran: "
                                                  f"{BLOCK_DROPPED}"})
            if missing == "raise":
                cells = [r for r in records if BLOCK_DROPPED in r["reason"]]
                shown = "; ".join(f"({r['block']}, {r['algorithm']}: "
                                  f"{r['reason'].split(':')[0]})" for r in cells[:6])
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
                    "block": r.benchmark, "algorithm": str(r.algorithm), "seed": r.seed,
                    "reason": f"seed {r.seed} has no result for {', '.join(lacking)} on this "
                              f"benchmark: {RUN_LEFT_OUT}",
                })
        exclusions = pd.DataFrame(records, columns=["block", "algorithm", "seed", "reason"])
        return BlockMatrix(
            matrix=matrix,
            unit=unit,
            aggregate=aggregate if unit == "benchmark" else None,
            budget=None if budget is None else float(budget),
            objective=self.objective,
            exclusions=exclusions,
            seeds=rule,
            uneven_cells=uneven,
        )

    def _paired(self) -> bool:
        """Whether some seed label is shared by two algorithms within a benchmark."""
        if "paired" not in self._cache:
            f = self._frame
            sizes = [len(f[c].cat.categories) for c in ("benchmark", "seed", "algorithm")]
            key = np.zeros(len(f), dtype=np.int64)
            for column, size in zip(("benchmark", "seed", "algorithm"), sizes):
                key = key * size + f[column].cat.codes.to_numpy().astype(np.int64)
            cells = np.unique(key) // sizes[2]  # one entry per (benchmark, seed, algorithm)
            self._cache["paired"] = bool(len(cells) and (np.diff(cells) == 0).any())
        return self._cache["paired"]

    def runs_without_incumbent(self, budget: float) -> pd.DataFrame:
        """The runs with no observation at or below ``budget`` (they start after it).

        Such a run has no incumbent at ``budget``, so :meth:`at_budget` and
        every analysis built on it leave it out (the view records them in its
        :attr:`exclusions`, ``unit`` ``"run"``).

        Returns
        -------
        pandas.DataFrame
            Columns ``algorithm``, ``benchmark``, ``seed`` and
            ``first_budget`` (the run's smallest budget), one row per run.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"alg": ["a", "a", "b", "b"], "seed": [0, 0, 0, 0],
        ...                    "t": [1, 2, 2, 3], "y": [0.1, 0.2, 0.3, 0.4]})
        >>> res = Results.from_frame(df, algorithm="alg", seed="seed", budget="t", score="y",
        ...                          objective="maximize", kind="runs")
        >>> res.runs_without_incumbent(1)
          algorithm benchmark  seed  first_budget
        0         b       all     0           2.0
        """
        if not self.has_budget:
            raise ValueError("runs_without_incumbent() needs a budget column.")
        if "first_budget" not in self._cache:
            # Every run's smallest budget, computed once: at_budget() and blocks() ask often.
            f = self._frame
            cats = [f[c].cat for c in ("algorithm", "benchmark", "seed")]
            sizes = [len(c.categories) for c in cats]
            key = np.zeros(len(f), dtype=np.int64)
            for cat, size in zip(cats, sizes):
                key = key * size + cat.codes.to_numpy().astype(np.int64)
            first = pd.Series(f["budget"].to_numpy()).groupby(key, sort=True).min()
            self._cache["first_budget"] = (first.index.to_numpy(), first.to_numpy(), sizes)
        keys, first, sizes = self._cache["first_budget"]
        late = first > float(budget)
        rest, s_codes = np.divmod(keys[late], sizes[2])
        a_codes, b_codes = np.divmod(rest, sizes[1])
        f = self._frame
        return pd.DataFrame({
            "algorithm": [str(c) for c in f["algorithm"].cat.categories[a_codes]],
            "benchmark": [str(c) for c in f["benchmark"].cat.categories[b_codes]],
            "seed": pd.Series(np.asarray(f["seed"].cat.categories[s_codes]), dtype=object),
            "first_budget": first[late].astype(float),
        })

    def _engine_step(self, step: str) -> Callable[..., Any] | None:
        """The engine's own implementation of an analysis step, or ``None`` to run it in memory.

        An engine that keeps the rows elsewhere (the Dask one) overrides this
        so that a step such as ``"lmem.fit"`` runs as per-partition
        reductions; the analysis modules ask, and never import the engine.
        In memory every step runs as written.

        Examples
        --------
        >>> _example_small()._engine_step("lmem.fit") is None
        True
        """
        return None

    def cell_sizes(self) -> pd.Series:
        """Rows per (algorithm, benchmark) cell that has any.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> _example_small().cell_sizes().tolist()
        [4, 4, 4, 4]
        """
        return self._frame.groupby(["algorithm", "benchmark"], observed=True).size()

    def uniform_sample(self, rate: float, seed: int = 0) -> Results:
        """The rows kept by a uniform random sample at ``rate`` (in memory; same roles).

        Each row is kept independently with probability ``rate``, from a
        hash of its position in the input and ``seed``
        (:mod:`benchverdict.stats.row_sample`): the same rows on every engine
        and partitioning, independent of the scores. Exclusions carry over.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> res = _example_small()
        >>> len(res.uniform_sample(1.0)) == len(res), len(res.uniform_sample(0.0))
        (True, 0)
        """
        from benchverdict.stats.row_sample import keep

        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"rate must lie in [0, 1], got {rate}.")
        frame = self._frame[keep(self._frame.index.to_numpy(), rate, seed)]
        return Results(frame, objective=self.objective, kind=self.kind,
                       kind_reason=self.kind_reason, roles=self.roles,
                       metafeatures=self.metafeatures, exclusions=self.exclusions)

    def run_sizes(self, budget: float | None = None) -> pd.Series:
        """Rows per run (algorithm, benchmark, seed), counting rows with budget <= ``budget``.

        ``budget=None`` counts every row. Runs with no row there are left out.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> _example_small().run_sizes().tolist()
        [2, 2, 2, 2, 2, 2, 2, 2]
        """
        table = self._frame
        if budget is not None:
            table = table[table["budget"].to_numpy() <= float(budget)]
        return table.groupby(["algorithm", "benchmark", "seed"], observed=True).size()

    def _last_budgets(self) -> pd.DataFrame:
        """One row per run: algorithm, benchmark, seed and its largest budget (``last_budget``)."""
        keys = list(ID_ROLES)
        groups = self._frame.groupby(keys, observed=True, sort=True)
        if not self.has_budget:
            return groups.size().rename("last_budget").reset_index().assign(last_budget=np.nan)
        return groups["budget"].max().rename("last_budget").reset_index()

    def _run_completeness(self, budget: float | None) -> pd.DataFrame:
        """Every run with its last budget, compared budget and whether it is incomplete."""
        columns = ["algorithm", "benchmark", "seed", "last_budget", "compared_budget"]
        runs = self._last_budgets()
        if not self.has_budget:
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

    def incomplete_runs(self, budget: float | None = None) -> pd.DataFrame:
        """The runs that stop before the budget they are compared at.

        A run is one (algorithm, benchmark, seed); its *last budget* is the
        largest budget among its rows. The *compared budget* is ``budget``
        if given, else the final budget of the design on the run's
        benchmark: the largest budget any run (of any algorithm) reaches on
        that benchmark, as a leaderboard's final budget. A run whose last
        budget is below its compared budget (by more than a relative
        ``1e-9``) is incomplete: an analysis that takes every run at its own
        final budget compares it on less tuning effort than the others, and
        an analysis at the compared budget has no observation of it there
        that is not a carried-forward incumbent. Its rows cannot tell
        whether it was stopped early or had nothing more to report.

        Without a budget column every row is a final result and no run is
        incomplete (the table is empty).

        Parameters
        ----------
        budget : float, optional
            The budget every run is compared at. Default: each benchmark's
            largest budget.

        Returns
        -------
        pandas.DataFrame
            One row per incomplete run, sorted by algorithm, benchmark and
            seed, with columns ``algorithm``, ``benchmark``, ``seed``,
            ``last_budget`` and ``compared_budget``.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"alg": ["a"] * 4 + ["b"] * 2, "seed": [0, 0, 1, 1, 0, 1],
        ...                    "t": [1, 3, 1, 3, 1, 1], "y": [1, 2, 1, 3, 1, 2]})
        >>> res = Results.from_frame(df, algorithm="alg", seed="seed", budget="t", score="y",
        ...                          objective="maximize", kind="runs")
        >>> res.incomplete_runs()[["algorithm", "seed", "last_budget", "compared_budget"]]
          algorithm seed  last_budget  compared_budget
        0         b    0          1.0              3.0
        1         b    1          1.0              3.0
        """
        runs = self._run_completeness(budget)
        out = runs[runs["incomplete"].to_numpy()].drop(columns="incomplete")
        return out.reset_index(drop=True)

    def completeness(self, budget: float | None = None) -> pd.DataFrame:
        """Per algorithm: how many of its runs reach the budget they are compared at.

        See :meth:`incomplete_runs` for the compared budget.

        Parameters
        ----------
        budget : float, optional
            The budget every run is compared at (default: each benchmark's
            largest budget).

        Returns
        -------
        pandas.DataFrame
            Indexed by algorithm, with columns ``n_runs``, ``n_incomplete``,
            ``last_budget_min`` and ``last_budget_max`` (the smallest and
            largest last budget of its runs; NaN without a budget column).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"alg": ["a"] * 4 + ["b"] * 2, "seed": [0, 0, 1, 1, 0, 1],
        ...                    "t": [1, 3, 1, 3, 1, 1], "y": [1, 2, 1, 3, 1, 2]})
        >>> res = Results.from_frame(df, algorithm="alg", seed="seed", budget="t", score="y",
        ...                          objective="maximize", kind="runs")
        >>> res.completeness()
                   n_runs  n_incomplete  last_budget_min  last_budget_max
        algorithm
        a               2             0              3.0              3.0
        b               2             2              1.0              1.0
        """
        runs = self._run_completeness(budget)
        out = runs.groupby("algorithm", observed=True, sort=True).agg(
            n_runs=("seed", "size"), n_incomplete=("incomplete", "sum"),
            last_budget_min=("last_budget", "min"), last_budget_max=("last_budget", "max"))
        out["n_incomplete"] = out["n_incomplete"].astype(np.int64)
        out.index = pd.Index(out.index.astype(str), name="algorithm")
        return out

    def first_per_benchmark(self, name: str) -> pd.Series:
        """The first value of column ``name`` in each benchmark (a metafeature's level).

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> _example_small().first_per_benchmark("score").tolist()
        [0.1, 0.9]
        """
        return self._frame.groupby("benchmark", observed=True)[name].first()

    def describe(self) -> Description:
        """Summarise the data: counts, design balance, budgets, metafeatures.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> d = _example_small().describe()
        >>> int(d.counts.loc["algorithm", "distinct"])
        2
        """
        return describe_results(self)

    # ------------------------------------------------------------------ helpers
    def require_kind(self, kind: Kind, what: str) -> None:
        """Raise a clear error if the data are not of ``kind``."""
        if self.kind == kind:
            return
        if kind == "trials":
            raise ValueError(
                f"{what} needs IID random-search draws (kind='trials'), but these results are "
                f"HPO-run incumbents (kind='runs': {self.kind_reason}). Incumbents along a "
                f"budget are running maxima, not independent draws, so tuning curves and score "
                f"distributions built from them would be wrong. Use the rank or LMEM analyses, "
                f"or, if every row really is an independent draw, pass kind='trials'."
            )
        raise ValueError(
            f"{what} needs HPO-run incumbents (kind='runs'), but these results are random-search "
            f"draws (kind='trials': {self.kind_reason})."
        )

    def _check_name(self, role: str, name: str) -> None:
        known = self._frame[role].cat.categories
        if name not in known:
            raise KeyError(f"unknown {role} {name!r}; known: {[str(k) for k in known][:20]}.")


# ---------------------------------------------------------------------- validation
def _validate(
    df: pd.DataFrame,
    *,
    algorithm: str,
    benchmark: str | None,
    seed: str,
    budget: str | None,
    score: str,
    metafeatures: tuple[str, ...],
    on_invalid: str,
    min_algorithms: int = 2,
) -> tuple[pd.DataFrame, list[Problem], pd.DataFrame, tuple | None]:
    """Check ``df`` and build the canonical frame.

    Returns the frame, the problems that must raise, the exclusions, and the
    budget's (codes, levels) when there is a budget.
    """
    role_columns = {"algorithm": algorithm, "seed": seed, "score": score}
    if benchmark is not None:
        role_columns["benchmark"] = benchmark
    if budget is not None:
        role_columns["budget"] = budget
    used = list(role_columns.values())
    duplicates = sorted({c for c in used if used.count(c) > 1})
    if duplicates:
        raise ValueError(f"column(s) {duplicates} are mapped to more than one role.")
    for name in metafeatures:
        if name in role_columns.values():
            raise ValueError(f"metafeature {name!r} is already mapped to a role.")
        if name in ("algorithm", "benchmark", "seed", "budget", "score"):
            raise ValueError(
                f"metafeature {name!r} clashes with a canonical role name; rename the column."
            )
    all_columns = dict(role_columns)
    all_columns.update({f"metafeature {m}": m for m in metafeatures})
    problems = missing_columns(df, all_columns)
    if problems:
        return df, problems, _empty_exclusions(), None
    if len(df) == 0:
        return df, [
            Problem(
                column="(table)",
                reason="empty",
                message="the table has no rows. Fix: check the file or the filter that made it.",
            )
        ], _empty_exclusions(), None
    if not df.index.is_unique:
        raise ValueError(
            "the frame's index has duplicated labels, so rows could not be reported "
            "unambiguously. Fix: df = df.reset_index(drop=True)."
        )

    frame_problems: list[Problem] = []
    row_problems: list[Problem] = []
    id_columns = {"algorithm": algorithm, "seed": seed}
    if benchmark is not None:
        id_columns["benchmark"] = benchmark
    # Factorise each key column once: the codes serve the name checks, the duplicate check
    # and the categoricals of the canonical frame (hashing 10^7 strings twice would dominate).
    codes: dict[str, tuple[np.ndarray, pd.Index]] = {}
    for role, column in id_columns.items():
        row_problems += missing_ids(df, column, role)
        mixed = mixed_types(df, column, role)
        frame_problems += mixed
        if not mixed:
            role_codes, labels = _factorize(df[column])
            labels, problems = name_labels(labels, role_codes, df, column, role)
            frame_problems += problems
            codes[role] = (role_codes, labels)
    meta_values = {}
    for m in metafeatures:
        meta_values[m], problems = _metafeature_values(df, m)
        frame_problems += problems
    score_values, score_problems = numeric_column(df, score, "score")
    row_problems += score_problems
    budget_values = None
    if budget is not None:
        budget_values, budget_problems = numeric_column(df, budget, "budget")
        row_problems += budget_problems
    for p in row_problems:
        if not p.droppable:
            frame_problems.append(p)
    row_problems = [p for p in row_problems if p.droppable]
    if frame_problems:
        return df, frame_problems + row_problems, _empty_exclusions(), None

    bad = np.zeros(len(df), dtype=bool)
    position = pd.Series(np.arange(len(df)), index=df.index)
    for p in row_problems:
        bad[position.loc[list(p.rows)].to_numpy()] = True
    key_parts = [codes[r] for r in ("algorithm", "benchmark", "seed") if r in codes]
    if budget_values is not None:
        b_codes, b_levels = pd.factorize(budget_values, sort=True)
        key_parts.append((b_codes, b_levels))
    dup = _duplicated_rows(key_parts, ~bad)
    if dup.any():
        key_columns = {r: c for r, c in role_columns.items() if r != "score"}
        example, n_keys, separating = _duplicate_groups(dup, key_parts, df, role_columns)
        row_problems += duplicated_keys(dup, df, key_columns, example_rows=example,
                                        n_keys=n_keys, separating=separating)
    if row_problems and on_invalid == "raise":
        return df, row_problems, _empty_exclusions(), None

    exclusions = _exclusion_records(row_problems, position, df.index)
    for p in row_problems:
        bad[position.loc[list(p.rows)].to_numpy()] = True
    keep = ~bad
    all_kept = bool(keep.all())

    out = {
        "algorithm": _kept_categorical(*codes["algorithm"], keep, all_kept),
        "benchmark": (
            _kept_categorical(*codes["benchmark"], keep, all_kept)
            if benchmark is not None
            else pd.Categorical.from_codes(
                np.zeros(int(keep.sum()), dtype=np.int8), categories=[SINGLE_BENCHMARK]
            )
        ),
        "seed": _kept_categorical(*codes["seed"], keep, all_kept),
    }
    if budget_values is not None:
        out["budget"] = budget_values if all_kept else budget_values[keep]
    out["score"] = score_values if all_kept else score_values[keep]
    index = df.index if all_kept else df.index[keep]
    frame = pd.DataFrame(out, index=index)
    for m in metafeatures:
        frame[m] = meta_values[m] if all_kept else meta_values[m][keep]
    n_alg = len(frame["algorithm"].cat.categories)
    if n_alg < min_algorithms:
        names = list(frame["algorithm"].cat.categories)
        return df, [
            Problem(
                column=algorithm,
                reason="too_few_algorithms",
                message=(
                    f"column {algorithm!r} (algorithm) has {n_alg} distinct value(s) {names}"
                    f"{' after dropping invalid rows' if len(exclusions) else ''}; a comparison "
                    f"needs at least {max(min_algorithms, 1)} "
                    f"{'algorithm' if min_algorithms <= 1 else 'algorithms'}. Fix: check that "
                    f"you mapped the right column "
                    f"and did not filter the others away."
                ),
            )
        ], exclusions, None
    budget_index = None
    if budget_values is not None:
        budget_index = (b_codes if all_kept else b_codes[keep], np.asarray(b_levels))
    return frame, [], exclusions, budget_index


def _seed_cases(
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


def _short_reason(p: Problem) -> str:
    return {
        "missing_score": "missing score (NaN)",
        "non_finite_score": "infinite score",
        "non_numeric_score": "non-numeric score",
        "missing_budget": "missing budget (NaN)",
        "non_finite_budget": "infinite budget",
        "non_numeric_budget": "non-numeric budget",
        "duplicate_key": "duplicated key (every row of the key dropped)",
        "missing_algorithm": "missing algorithm",
        "missing_benchmark": "missing benchmark",
        "missing_seed": "missing seed",
    }.get(p.reason, p.reason)


def _exclusion_records(
    problems: list[Problem], position: pd.Series, index: pd.Index
) -> pd.DataFrame:
    """One record per dropped row, with every column and reason that row has.

    A row with a missing score and a missing budget is one excluded row with
    two reasons, so ``len(exclusions)`` is the number of rows dropped.
    """
    if not problems:
        return _empty_exclusions()
    parts = [
        pd.DataFrame({"position": position.loc[list(p.rows)].to_numpy(),
                      "columns": p.column, "reasons": _short_reason(p)})
        for p in problems
    ]
    long = pd.concat(parts, ignore_index=True)
    if long["position"].is_unique:
        per_row = long.sort_values("position", kind="stable")
    else:
        per_row = (
            long.groupby("position", sort=True)
            .agg({"columns": "; ".join, "reasons": "; ".join})
            .reset_index()
        )
    return _exclusions_table(pd.DataFrame({
        "row": index[per_row["position"].to_numpy()].to_numpy(dtype=object),
        "columns": per_row["columns"].to_numpy(dtype=object),
        "reasons": per_row["reasons"].to_numpy(dtype=object),
    }))


#: At most this many duplicated keys are inspected for a column that tells rows apart.
_DUPLICATE_KEYS_INSPECTED = 2000


def _duplicate_groups(
    dup: np.ndarray,
    key_parts: list[tuple[np.ndarray, pd.Index]],
    df: pd.DataFrame,
    role_columns: dict[str, str],
) -> tuple[np.ndarray, int, list[tuple[str, str]]]:
    """Describe the duplicated keys: one key's rows, the number of keys, and the fix.

    Returns the positions of every row of the first duplicated key, how many
    keys are duplicated, and the unmapped columns that differ within
    duplicated keys (as ``(column, how)``), best first. Float columns
    (measurements) and columns unique on every row (row ids) are not
    suggested: they tell rows apart without naming a design factor.
    """
    pos = np.flatnonzero(dup)
    group = (
        pd.DataFrame({i: codes[pos] for i, (codes, _) in enumerate(key_parts)})
        .groupby(list(range(len(key_parts))), sort=False)
        .ngroup()
        .to_numpy()
    )
    n_keys = int(group.max()) + 1
    example = pos[group == group[0]]
    inspected = group < _DUPLICATE_KEYS_INSPECTED
    g, p = group[inspected], pos[inspected]
    n_groups = min(n_keys, _DUPLICATE_KEYS_INSPECTED)
    sizes = np.bincount(g, minlength=n_groups)
    mapped = set(role_columns.values())
    candidates = []
    for column in df.columns:
        if column in mapped or pd.api.types.is_float_dtype(df[column].dtype):
            continue
        try:
            value_codes, levels = pd.factorize(df[column].iloc[p])
        except TypeError:  # unhashable values (lists, dicts): cannot name a design factor
            continue
        pair = pd.unique(g.astype(np.int64) * (len(levels) + 1) + (value_codes + 1))
        distinct = np.bincount(pair // (len(levels) + 1), minlength=n_groups)
        varies = int((distinct > 1).sum())
        if varies == 0:
            continue
        if df[column].is_unique:
            continue
        separates = int((distinct == sizes).sum())
        candidates.append((-separates, -varies, df[column].nunique(), str(column),
                           separates, varies))
    candidates.sort()
    checked = f" (of the first {n_groups:,} checked)" if n_keys > n_groups else ""
    out = []
    for _, _, _, column, separates, varies in candidates[:3]:
        if separates == n_groups:
            how = f"tells the rows apart in every duplicated key{checked}"
        else:
            how = f"differs within {varies:,} of {n_groups:,} duplicated key(s){checked}"
        out.append((column, how))
    return example, n_keys, out


def _metafeature_values(df: pd.DataFrame, column: str) -> tuple[np.ndarray, list[Problem]]:
    """A metafeature's values; text labels are checked like names (they label groups)."""
    values = df[column]
    if isinstance(values.dtype, pd.CategoricalDtype):
        labels, problems = name_labels(values.cat.categories, values.cat.codes.to_numpy(),
                                       df, column, "metafeature")
        if not problems and not labels.equals(values.cat.categories):
            values = values.cat.rename_categories(list(labels))
        return values.to_numpy(), problems
    if not (pd.api.types.is_object_dtype(values.dtype)
            or pd.api.types.is_string_dtype(values.dtype)):
        return values.to_numpy(), []
    try:
        value_codes, uniques = pd.factorize(values)
    except TypeError:  # unhashable values: not labels
        return values.to_numpy(), []
    labels, problems = name_labels(pd.Index(uniques, dtype=object), value_codes, df, column,
                                   "metafeature")
    if problems or labels.equals(pd.Index(uniques, dtype=object)):
        return values.to_numpy(), problems
    decoded = np.asarray(list(labels), dtype=object)
    out = np.where(value_codes >= 0, decoded[np.maximum(value_codes, 0)], None)
    return out, []


def _factorize(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes (-1 for missing) and sorted categories of an id column."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        cat = values.array
        if not cat.ordered:
            cat = cat.reorder_categories(sorted(cat.categories))
        return np.asarray(cat.codes, dtype=np.int64), cat.categories
    codes, uniques = pd.factorize(values, sort=True)
    return codes.astype(np.int64, copy=False), pd.Index(uniques)


def _kept_categorical(
    codes: np.ndarray, categories: pd.Index, keep: np.ndarray, all_kept: bool
) -> pd.Categorical:
    """The categorical of the kept rows, without unused categories."""
    kept = codes if all_kept else codes[keep]
    used = np.bincount(kept, minlength=len(categories)) > 0
    if not used.all():
        remap = np.cumsum(used) - 1
        kept = remap[kept]
        categories = categories[used]
    small = np.int8 if len(categories) < 127 else np.int32
    return pd.Categorical.from_codes(kept.astype(small), categories=categories, validate=False)


def _duplicated_rows(parts: list[tuple[np.ndarray, pd.Index]], valid: np.ndarray) -> np.ndarray:
    """Mask of valid rows whose combined key occurs more than once among valid rows."""
    cards = [max(len(levels), 1) for _, levels in parts]
    total = 1
    for c in cards:
        total *= c
    dup = np.zeros(len(valid), dtype=bool)
    if total >= 2**62:  # too many combinations for one int64 key: let pandas hash tuples
        frame = pd.DataFrame({i: c for i, (c, _) in enumerate(parts)})[valid]
        dup[valid] = frame.duplicated(keep=False).to_numpy()
        return dup
    all_valid = bool(valid.all())
    key = np.zeros(len(valid) if all_valid else int(valid.sum()), dtype=np.int64)
    for (codes, _), card in zip(parts, cards):
        key *= card
        key += codes if all_valid else codes[valid]
    if total <= 4 * len(key) + 1_000_000:
        counts = np.bincount(key, minlength=total)
        found = counts[key] > 1
    else:
        found = pd.Series(key).duplicated(keep=False).to_numpy()
    if all_valid:
        return found
    dup[valid] = found
    return dup


def _empty_exclusions() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object) for c in EXCLUSION_COLUMNS})


def _exclusions_table(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with the columns of :data:`EXCLUSION_COLUMNS` first.

    Records made by validation or an adapter (``row``, ``columns``,
    ``reasons``) are rows: ``unit`` ``"row"``, no run named. Other columns
    an adapter adds are kept after these.
    """
    if (tuple(table.columns[:len(EXCLUSION_COLUMNS)]) == EXCLUSION_COLUMNS
            and not table["unit"].isna().any()):
        return table
    out = table.copy()
    for column in EXCLUSION_COLUMNS:
        if column not in out.columns:
            out[column] = None
        out[column] = out[column].astype(object)
    # Records an adapter concatenated without a unit are rows of the input.
    out["unit"] = out["unit"].where(out["unit"].notna(), "row")
    extra = [c for c in out.columns if c not in EXCLUSION_COLUMNS]
    return out[[*EXCLUSION_COLUMNS, *extra]]


#: ``Problem.reason`` of a table whose kind the caller must give.
KIND_NEEDED = "kind_needed"


def kind_needed_problem() -> Problem:
    """The problem raised when a table without a budget column comes without ``kind``.

    Without a budget column the two kinds of data have the same shape (one
    score per algorithm, benchmark and seed row) and no property of the
    scores tells them apart, so the kind is never guessed. There is no
    exception: even a table with one row per (algorithm, benchmark, seed)
    is either one draw per search or one final score per run.

    Examples
    --------
    >>> p = kind_needed_problem()
    >>> p.reason
    'kind_needed'
    >>> p.cli_message().endswith("--kind trials or --kind runs.")
    True
    """
    message = (
        "the table has no budget column, so a row can be one random-search draw "
        "(kind='trials': tuning curves and score distributions pool the draws of each "
        "algorithm and benchmark) or the final result of one run, e.g. one seed's final "
        "accuracy (kind='runs': rank tests and LMEMs compare the runs, one per seed). The "
        "data cannot tell which. Fix: pass kind='trials' or kind='runs'.")
    return Problem(column="kind", reason=KIND_NEEDED, message=message,
                   cli=to_cli(message, {"kind": "--kind"}, fix_only=False))


def _infer_kind(frame: pd.DataFrame, objective: Objective) -> tuple[Kind, str]:
    """Decide whether rows are random-search draws or run incumbents.

    Only called with a budget column (without one the caller must give the
    kind, see :func:`kind_needed_problem`). Rows whose score never gets
    worse along the budget within every run are incumbent series ("runs").
    Scores that get worse somewhere, or runs of one row, are "trials".
    """
    if "budget" not in frame.columns:
        raise ValidationError([kind_needed_problem()])
    sign = 1.0 if objective == "maximize" else -1.0
    cats = [frame[c].cat for c in ("algorithm", "benchmark", "seed")]
    run = np.zeros(len(frame), dtype=np.int64)
    for cat in cats:
        run = run * len(cat.categories) + cat.codes.to_numpy()
    budget = frame["budget"].to_numpy()
    # Most files are already sorted by run and budget: check in O(n) before sorting.
    in_order = bool(
        np.all((run[1:] > run[:-1]) | ((run[1:] == run[:-1]) & (budget[1:] >= budget[:-1])))
    ) if len(run) > 1 else True
    order = np.arange(len(run)) if in_order else np.lexsort((budget, run))
    run_sorted = run[order]
    same_run = run_sorted[1:] == run_sorted[:-1]
    if not same_run.any():
        return "trials", "inferred: every run has a single row, so rows are taken as draws"
    oriented = frame["score"].to_numpy()[order] * sign
    worse = (oriented[1:] < oriented[:-1]) & same_run
    if worse.any():
        return "trials", (
            f"inferred: scores get worse along the budget within {int(worse.sum())} step(s) "
            f"of some runs, so rows are independent trials, not incumbents"
        )
    return "runs", (
        "inferred: scores never get worse along the budget within any run, so rows are "
        "incumbents of HPO runs"
    )


def _example_small() -> Results:
    """A tiny trials data set used in docstring examples."""
    df = pd.DataFrame(
        {
            "alg": ["a"] * 8 + ["b"] * 8,
            "task": (["p"] * 4 + ["q"] * 4) * 2,
            "seed": [0, 0, 1, 1] * 4,
            "trial": [1, 2] * 8,
            "acc": [0.1, 0.5, 0.2, 0.6, 0.9, 0.8, 0.7, 0.8,
                    0.3, 0.2, 0.4, 0.1, 0.2, 0.8, 0.7, 0.6],
        }
    )
    return Results.from_frame(
        df, algorithm="alg", benchmark="task", seed="seed", budget="trial", score="acc",
        objective="maximize",
    )


__all__ = ["EXCLUSION_COLUMNS", "KIND_NEEDED", "BlockMatrix", "NoIncumbentsError", "Objective",
           "Results", "ValidationError", "check_objective", "format_rows", "kind_needed_problem"]

