"""The :class:`Results` class: the validated, immutable long table every analysis reads.

The class holds the canonical frame, its roles, objective, kind and
exclusions, and names every view an analysis uses as a method. The work is
done one layer below: validation in :mod:`~benchverdict.results.validation`,
the incumbent and run views in :mod:`~benchverdict.results.views`, the rank
tests' blocks in :mod:`~benchverdict.results.blocks`, the summary in
:mod:`benchverdict.describe`. The steps an engine may run its own way are
:attr:`Results.engine`'s (:mod:`~benchverdict.results.engine`). See
:mod:`benchverdict.results` for the schema's roles and kinds.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Literal

import numpy as np
import pandas as pd

from benchverdict._validation import ValidationError
from benchverdict.describe import Description, describe_results
from benchverdict.exclusions import concat_exclusions
from benchverdict.replicates import BenchmarkReplicates
from benchverdict.results import views
from benchverdict.results.blocks import BlockMatrix, block_matrix, check_block_options
from benchverdict.results.engine import IN_MEMORY, Engine
from benchverdict.results.schema import (
    VIEW,
    Kind,
    NoIncumbentsError,
    Objective,
    check_objective,
    empty_exclusions,
    exclusions_table,
)
from benchverdict.results.validation import infer_kind, kind_needed_problem, validate_frame

#: pandas 3 copies on write: a shallow copy of the frame is then as safe as a deep one.
_PANDAS_COW = int(pd.__version__.split(".")[0]) >= 3


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
        ``analysis`` and ``step`` ``"validation"``, ``row`` (the input's
        index label), ``columns`` and ``reason`` (a row with two problems,
        say a missing score and a missing budget, is one record whose
        columns and reasons are joined by ``"; "``).
        Adapters add the rows they filter out on purpose here too. A view
        (:meth:`at_budget`) adds one record with ``unit`` ``"run"`` per run
        without an incumbent, naming its ``algorithm``, ``benchmark``,
        ``seed``, ``budget`` and the view's ``step``.

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
        object.__setattr__(self, "exclusions", exclusions_table(exclusions))
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
        >>> res.exclusions[["unit", "row", "columns", "reason"]]
          unit row columns               reason
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
        frame, problems, exclusions, budget_index = validate_frame(
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
            kind, kind_reason = infer_kind(frame, objective)
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
        # A report asks eight times (0.05 s each at 10^6 rows); a copy, so callers may write.
        if "budgets" not in self._cache:
            self._cache["budgets"] = np.unique(self._frame["budget"].to_numpy())
        return self._cache["budgets"].copy()

    def budget_grid(self, max_budgets: int) -> np.ndarray:
        """At most ``max_budgets`` of the observed budgets, spread over their range.

        Every distinct budget when there are no more, else their
        ``max_budgets`` quantiles at evenly spaced levels (inverted CDF:
        observed budgets only, duplicates dropped). The anytime ranks and
        the LMEM's budget check read the incumbents on such grids.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> _example_small().budget_grid(1).tolist(), _example_small().budget_grid(5).tolist()
        ([1.0], [1.0, 2.0])
        """
        observed = np.asarray(self.budgets, dtype=float)
        if len(observed) > max_budgets:
            observed = np.unique(np.quantile(observed, np.linspace(0, 1, max_budgets),
                                             method="inverted_cdf"))
        return observed

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

    def _summary_lines(self) -> list[str]:
        lines = [repr(self).removeprefix("Results(").removesuffix(")"),
                 f"rows read as {self.kind}: {self.kind_reason}"]
        if len(self.exclusions):
            lines.append(f"{len(self.exclusions):,} row(s) or run(s) left out: see "
                         f".exclusions")
        return lines

    def _summary_table(self) -> pd.DataFrame:
        return self._frame  # read only: the notebook view shows its head

    def _repr_html_(self) -> str:
        """The notebook view: what the data are, how they were read, the table's head.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> html = _example_small()._repr_html_()
        >>> html.startswith("<div"), "rows read as trials" in html, "<table" in html
        (True, True, True)
        """
        from benchverdict._repr import result_html

        return result_html(self)

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

    def without_cells(self, cells: Iterable[tuple[str, str]]) -> Results:
        """These results without the rows of some (algorithm, benchmark) cells.

        Unknown names raise. The exclusions are kept unchanged: a caller that
        leaves cells out records why (as the report does for cells whose runs
        stop before the final budget).

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> r = _example_small().without_cells([("a", "p")])
        >>> sorted(map(tuple, r.table[["algorithm", "benchmark"]].astype(str)
        ...                    .drop_duplicates().to_numpy().tolist()))
        [('a', 'q'), ('b', 'p'), ('b', 'q')]
        """
        pairs = {(str(a), str(b)) for a, b in cells}
        for role, names in (("algorithm", {a for a, _ in pairs}),
                            ("benchmark", {b for _, b in pairs})):
            known = set(map(str, self._frame[role].cat.categories))
            unknown = sorted(names - known)
            if unknown:
                raise KeyError(f"unknown {role}(s) {unknown}; known: {sorted(known)}.")
        frame = self._frame
        keys = pd.MultiIndex.from_arrays([frame["algorithm"].astype(str),
                                          frame["benchmark"].astype(str)])
        drop = keys.isin(list(pairs)) if pairs else np.zeros(len(frame), dtype=bool)
        sub = frame[~np.asarray(drop)].copy()
        for role in ("algorithm", "benchmark"):
            sub[role] = sub[role].cat.remove_unused_categories()
        return Results(sub, objective=self.objective, kind=self.kind,
                       kind_reason=self.kind_reason, roles=self.roles,
                       metafeatures=self.metafeatures, exclusions=self.exclusions)

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
        return views.incumbent_rows(self._frame, self.kind, self.sign, budget)

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
        >>> view.exclusions[["unit", "algorithm", "seed", "reason"]].values.tolist()
        [['run', 'b', 0, 'no observation at or below budget 1']]
        """
        key = ("at_budget", float(budget))
        if key in self._cache:  # a report asks for the same view from several analyses
            return self._cache[key]
        picked = self._incumbent_rows(budget)
        budget = float(budget)
        late = self.runs_without_incumbent(budget)
        records = views.no_incumbent_records(late, budget)
        if picked.empty:
            raise NoIncumbentsError(
                f"no run has an observation at or below budget {budget:g}, so there are no "
                f"incumbents; choose a budget at or above the first observation "
                f"({float(late['first_budget'].min()):g}).")
        view = self._view(picked, f"the incumbent of every run at budget {budget:g}", records)
        self._cache[key] = view
        return view

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
        # Both are immutable, so the view is computed once per Results: a report asks for
        # it from every analysis that compares incumbents (it sorted every row each time).
        if "final" not in self._cache:
            self._cache["final"] = self._view(self._incumbent_rows(None),
                                              "the final incumbent of every run",
                                              empty_exclusions())
        return self._cache["final"]

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
            text += f"; {len(late):,} run(s) left out ({late['reason'].iloc[0]})"
        n_rows = int((units == "row").sum())
        if n_rows:
            text += f"; {n_rows:,} invalid input row(s) excluded"
        return text

    def _view(self, picked: pd.DataFrame, what: str, runs_left_out: pd.DataFrame) -> Results:
        """A ``kind="runs"`` Results of incumbent rows (already canonical and valid)."""
        frame = views.view_frame(picked)
        exclusions = concat_exclusions([self.exclusions, runs_left_out])
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
        frame = views.trajectories(self._frame, self.sign)
        return Results(
            frame,
            objective=self.objective,
            kind="runs",
            kind_reason=f"{VIEW}every random search's incumbent after each trial",
            roles=self.roles,
            metafeatures=self.metafeatures,
            exclusions=self.exclusions,
        )

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
        return views.incumbent_cube(self._frame, self._budget_index(), self.kind, self.sign,
                                    budgets)

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
        check_block_options(unit, aggregate, missing, seeds)
        runs = self._incumbent_rows(budget)
        f = self._frame
        return block_matrix(
            runs, algorithm_categories=f["algorithm"].cat.categories,
            benchmark_categories=f["benchmark"].cat.categories, objective=self.objective,
            # Pairing only matters when seeds are averaged into benchmark blocks.
            paired=self._paired() if unit == "benchmark" else True,
            late=self.runs_without_incumbent(budget) if budget is not None else None,
            unit=unit, aggregate=aggregate, budget=budget, missing=missing, seeds=seeds)

    def _paired(self) -> bool:
        """Whether some seed label is shared by two algorithms within a benchmark."""
        if "paired" not in self._cache:
            self._cache["paired"] = views.is_paired(self._frame)
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
            self._cache["first_budget"] = views.first_budgets(self._frame)
        return views.late_runs(self._frame, self._cache["first_budget"], budget)

    @property
    def engine(self) -> Engine:
        """The engine that runs the steps that must run where the rows are (see ``engine``).

        In memory every step runs as the analysis wrote it
        (:class:`~benchverdict.results.engine.InMemoryEngine`); an engine that
        keeps the rows elsewhere (the Dask one) returns its own, whose
        methods run a step as per-partition reductions. The analysis modules
        ask, and never import the engine.

        Examples
        --------
        >>> _example_small().engine.lmem_fit("score ~ algorithm") is None
        True
        """
        return IN_MEMORY

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
        return views.last_budgets(self._frame)

    def _run_completeness(self, budget: float | None) -> pd.DataFrame:
        """Every run with its last budget, compared budget and whether it is incomplete."""
        return views.run_completeness(self._last_budgets(), self.has_budget, budget)

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
        return views.incomplete_of(self._run_completeness(budget))

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
        return views.completeness_per_algorithm(self._run_completeness(budget))

    def first_per_benchmark(self, name: str) -> pd.Series:
        """The first value of column ``name`` in each benchmark (a metafeature's level).

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> _example_small().first_per_benchmark("score").tolist()
        [0.1, 0.9]
        """
        return self._frame.groupby("benchmark", observed=True)[name].first()

    def copied_runs(self) -> str:
        """A warning naming algorithms whose runs are identical on several benchmarks ("" if none).

        Claims across benchmarks take each benchmark as an independent
        replicate; a copy counts one observation twice. The groups are
        :meth:`copied_benchmarks`'; the report and ``validate`` print this text
        (:func:`benchverdict.describe.copied_runs_text`).

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> _example_small().copied_runs()
        ''
        """
        from benchverdict.describe import copied_runs_text

        return copied_runs_text(self.copied_benchmarks().copies)

    def copied_benchmarks(self) -> BenchmarkReplicates:
        """Per algorithm, the groups of benchmarks on which its runs are identical.

        The pair tests across benchmarks count each group as one replicate of
        the pairs of its algorithm (:mod:`benchverdict.replicates`).

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> bool(_example_small().copied_benchmarks())
        False
        """
        from benchverdict.describe import (
            cell_fingerprints,
            cell_shape_fingerprints,
            copied_cell_groups,
            run_fingerprints,
        )

        if "copied_benchmarks" not in self._cache:
            prints = cell_fingerprints(self._frame)
            # Copies up to a rescaling of each benchmark's scores are copies too.
            groups = copied_cell_groups(prints, run_fingerprints(self._frame),
                                        self.algorithms, self.benchmarks,
                                        shapes=cell_shape_fingerprints(self._frame, prints))
            self._cache["copied_benchmarks"] = BenchmarkReplicates(
                {a: tuple(map(tuple, gs)) for a, gs in groups.items()})
        return self._cache["copied_benchmarks"]

    def describe(self) -> Description:
        """Summarise the data: counts, design balance, budgets, metafeatures.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> d = _example_small().describe()
        >>> int(d.counts.loc["algorithm", "distinct"])
        2
        """
        return describe_results(
            self._frame, roles=self.roles, objective=self.objective, kind=self.kind,
            kind_reason=self.kind_reason, metafeatures=self.metafeatures,
            exclusions=self.exclusions,
            budget_index=self._budget_index() if self.has_budget else None)

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


__all__ = ["Results"]

