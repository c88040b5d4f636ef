"""A leaderboard's design, and checking a submission against it.

A leaderboard compares every entry on one design: the same benchmarks, the
same seeds, the same objective and, for HPO runs, the same final budget. A
submission that misses part of the design is *incomplete*: it is listed
with what it misses and is not compared, because comparing it on a smaller
design would rank it on different evidence from the others. Rows outside
the design (an extra benchmark or seed) are left out of the comparison and
counted, never dropped silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from benchverdict.results import Results

#: At most this many missing cells or names are listed in a reason.
MAX_LISTED = 10


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else "")


@dataclass(frozen=True)
class Design:
    """What every complete entry of a leaderboard was run on.

    Attributes
    ----------
    objective : {"maximize", "minimize"}
    kind : {"trials", "runs"}
        How the rows are read (see :class:`~benchverdict.Results`).
    benchmarks : tuple of str
    seeds : tuple of str
        Seeds as text (so ``1`` and ``"1"`` are one seed).
    final_budget : float or None
        The budget every run must reach; ``None`` without a budget column.
    """

    objective: str
    kind: str
    benchmarks: tuple[str, ...]
    seeds: tuple[str, ...]
    final_budget: float | None

    @classmethod
    def from_results(cls, results: Results) -> Design:
        """The design of the first submission: its benchmarks, seeds and final budget.

        Raises
        ------
        ValueError
            If the submission holds no runs a leaderboard can rank (see
            :func:`unrankable_reason`).

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> Design.from_results(_example_small()).benchmarks
        ('p', 'q')
        """
        problem = unrankable_reason(results)
        if problem is not None:
            raise ValueError(problem)
        final_budget = None
        if results.has_budget:
            final_budget = float(np.max(results.budgets))
        return cls(
            objective=results.objective,
            kind=results.kind,
            benchmarks=tuple(str(b) for b in results.benchmarks),
            seeds=tuple(sorted({str(s) for s in results.seeds})),
            final_budget=final_budget,
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (see :meth:`from_dict`)."""
        return {"objective": self.objective, "kind": self.kind,
                "benchmarks": list(self.benchmarks), "seeds": list(self.seeds),
                "final_budget": self.final_budget}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Design:
        """Inverse of :meth:`to_dict`."""
        budget = data.get("final_budget")
        return cls(objective=str(data["objective"]), kind=str(data["kind"]),
                   benchmarks=tuple(str(b) for b in data["benchmarks"]),
                   seeds=tuple(str(s) for s in data["seeds"]),
                   final_budget=None if budget is None else float(budget))

    @property
    def n_cells(self) -> int:
        """Benchmark x seed cells every complete entry has."""
        return len(self.benchmarks) * len(self.seeds)


def unrankable_reason(results: Results) -> str | None:
    """Why ``results`` holds no runs a leaderboard can rank, or ``None`` when it does.

    A leaderboard ranks each algorithm's *runs* (one per benchmark and seed)
    by their incumbents at the final budget, and settles positions by tests
    over benchmarks (and seeds). Three kinds of data have no such runs, and a
    board built from them would list numbers with nothing to back an order:

    - random-search draws without a trial order (no budget column): no run
      has an incumbent;
    - random-search draws with one trial per (algorithm, benchmark, seed):
      each "run" is a single draw, and pairing draws by seed is arbitrary;
    - one score per algorithm (one benchmark and one seed, e.g. a published
      table of aggregates): there is no replicate to test on.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict.results import Results, _example_small
    >>> unrankable_reason(_example_small()) is None
    True
    >>> one = Results.from_frame(pd.DataFrame({"algorithm": ["a", "b"], "seed": 0,
    ...                                        "score": [0.9, 0.8]}),
    ...                          algorithm="algorithm", seed="seed", score="score",
    ...                          objective="maximize", kind="runs")
    >>> print(unrankable_reason(one))  # doctest: +ELLIPSIS
    each algorithm has a single score (one benchmark, one seed), ...
    """
    table = results.table
    if results.kind == "trials" and not results.has_budget:
        return ("the rows are random-search draws without a trial order (kind 'trials', no "
                "budget column), so they hold no runs to rank: a leaderboard ranks each "
                "algorithm's runs (one per benchmark and seed) by their final incumbents. "
                "Fix: give the trial number as --budget if each seed is one search of several "
                "trials, or compare the draws' score distributions with `benchverdict report`.")
    if results.kind == "trials":
        trials = table.groupby(["algorithm", "benchmark", "seed"], observed=True).size()
        if len(trials) and int(trials.max()) <= 1:
            return ("every (algorithm, benchmark, seed) holds a single trial: these are single "
                    "random-search draws, not searches, and pairing draws by their seed is "
                    "arbitrary, so there are no runs to rank. Fix: give each search its own "
                    "seed with several trials (the trial number as --budget), or compare the "
                    "draws' score distributions with `benchverdict report`.")
    if len(results.benchmarks) == 1 and len(results.seeds) == 1:
        return ("each algorithm has a single score (one benchmark, one seed), e.g. a published "
                "table of aggregates: there is no replicate to test an order on. Fix: submit "
                "every benchmark's (and seed's) score, one row each, so positions can be "
                "settled over benchmarks.")
    return None


@dataclass
class SubmissionCheck:
    """How one submitted algorithm fits a leaderboard's design.

    Attributes
    ----------
    algorithm : str
    complete : bool
        Every benchmark x seed cell of the design present, each run with a
        result at or below the final budget, and the algorithm's runs
        reaching it.
    missing_cells : list of (str, str)
        (benchmark, seed) cells of the design the submission lacks.
    short_runs : list of (str, str)
        (benchmark, seed) runs with no observation at or below the design's
        final budget (no incumbent there).
    longest_budget : float or None
        The largest budget the algorithm's runs reach, when that is below the
        design's final budget (``None`` when they reach it).
    extra_rows : int
        Rows outside the design (other benchmarks or seeds): left out.
    extra : list of str
        The benchmarks and seeds those rows belong to.
    """

    algorithm: str
    complete: bool
    missing_cells: list[tuple[str, str]] = field(default_factory=list)
    short_runs: list[tuple[str, str]] = field(default_factory=list)
    extra_rows: int = 0
    extra: list[str] = field(default_factory=list)
    longest_budget: float | None = None

    @property
    def reasons(self) -> list[str]:
        """What is missing or left out, as sentences."""
        out = []
        if self.missing_cells:
            cells = [f"{b}/seed {s}" for b, s in self.missing_cells]
            out.append(f"missing {len(cells)} benchmark x seed cell(s): {_listed(cells)}")
        if self.longest_budget is not None:
            out.append(f"its runs stop at budget {self.longest_budget:g}, before the "
                       f"leaderboard's final budget")
        if self.short_runs:
            runs = [f"{b}/seed {s}" for b, s in self.short_runs]
            out.append(f"{len(runs)} run(s) have no result at or below the leaderboard's "
                       f"final budget: {_listed(runs)}")
        if self.extra_rows:
            out.append(f"{self.extra_rows} row(s) outside the design left out "
                       f"({_listed(self.extra)})")
        return out


def check_submission(design: Design, results: Results) -> tuple[list[SubmissionCheck],
                                                                   pd.DataFrame]:
    """Check each algorithm of ``results`` against ``design``.

    Returns
    -------
    checks : list of SubmissionCheck
        One per algorithm, in the order of ``results.algorithms``.
    inside : pandas.DataFrame
        The canonical table (``Results.table``) restricted to the design's
        benchmarks and seeds (the rows the leaderboard keeps).

    Raises
    ------
    ValueError
        If the objective or the kind of rows differs from the design's: the
        submission measured something else, and no comparison is meaningful.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> res = _example_small()
    >>> design = Design.from_results(res)
    >>> checks, kept = check_submission(design, res)
    >>> [c.complete for c in checks]
    [True, True]
    """
    if results.objective != design.objective:
        raise ValueError(
            f"objective: the submission is {results.objective!r} but the leaderboard is "
            f"{design.objective!r}. Fix: read the submission with --objective "
            f"{design.objective} if its scores mean the same thing, else start a new "
            f"leaderboard.")
    if results.kind != design.kind:
        raise ValueError(
            f"kind: the submission's rows are {results.kind!r} but the leaderboard's are "
            f"{design.kind!r}. Fix: read it with --kind {design.kind}.")
    if (design.final_budget is None) != (not results.has_budget):
        need = "a budget column (--budget)" if design.final_budget is not None else "no budget"
        raise ValueError(f"budget: the leaderboard compares runs with {need}; the "
                         f"submission differs. Fix: read it the same way as the leaderboard.")
    table = results.table
    seeds_text = table["seed"].astype(str)
    benches_text = table["benchmark"].astype(str)
    inside_mask = benches_text.isin(design.benchmarks) & seeds_text.isin(design.seeds)
    checks = []
    wanted = pd.MultiIndex.from_product([design.benchmarks, design.seeds])
    for algorithm in results.algorithms:
        mine = (table["algorithm"] == algorithm).to_numpy()
        own = table[mine & inside_mask.to_numpy()]
        present = pd.MultiIndex.from_arrays(
            [own["benchmark"].astype(str), own["seed"].astype(str)]).unique()
        missing = [tuple(x) for x in wanted.difference(present)]
        short: list[tuple[str, str]] = []
        longest = None
        if design.final_budget is not None and len(own):
            tolerance = 1e-9 * max(1.0, abs(design.final_budget))
            # A run is compared by its incumbent at the final budget: it needs an
            # observation at or below it. Whether a run that stops reporting earlier was
            # stopped early or found nothing better cannot be told from its rows, so the
            # algorithm as a whole must reach the final budget.
            starts = own.groupby([own["benchmark"].astype(str), own["seed"].astype(str)],
                                 observed=True)["budget"].min()
            short = [tuple(map(str, k)) for k in
                     starts[starts > design.final_budget + tolerance].index]
            reached = float(own["budget"].max())
            if reached < design.final_budget - tolerance:
                longest = reached
        outside = table[mine & ~inside_mask.to_numpy()]
        extra = sorted({f"benchmark {b}" for b in outside["benchmark"].astype(str)
                        if b not in design.benchmarks}
                       | {f"seed {s}" for s in outside["seed"].astype(str)
                          if s not in design.seeds})
        checks.append(SubmissionCheck(
            algorithm=str(algorithm), complete=not missing and not short and longest is None,
            missing_cells=sorted(missing), short_runs=sorted(short), longest_budget=longest,
            extra_rows=len(outside), extra=extra))
    return checks, table[inside_mask.to_numpy()]


def budget_text(budget: float | None) -> str:
    """Where entries are compared, for sentences.

    Examples
    --------
    >>> budget_text(None), budget_text(100.0)
    ('the final budget', 'budget 100')
    """
    if budget is None or not math.isfinite(budget):
        return "the final budget"
    return f"budget {budget:g}"
