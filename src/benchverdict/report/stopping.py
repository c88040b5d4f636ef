"""Which algorithms' runs all stop before the final budget (the report leaves them out there).

Its own module so that both the runner and the results table
(:mod:`benchverdict.report.results_table`, which the report document builds)
read the one rule without importing each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from benchverdict.results import Results


class _Budgeted(Protocol):
    """What the rule reads of the report's options (:class:`~benchverdict.report.Options`)."""

    budget: float | None

__all__ = ["stopped_early"]


def stopped_early(results: Results, options: _Budgeted) -> dict[str, float]:
    """Algorithms whose runs all stop before the final budget: name -> their longest budget.

    Rank tests and LMEMs compare each run's incumbent at the final budget
    (``options.budget`` unset). An algorithm none of whose runs reaches the
    largest budget of the design (e.g. HPO-B's RF, whose runs stop at trial 5
    while the others run to 100) would be compared on less tuning effort; the
    report leaves it out of those comparisons and says so in the headline.
    The rule is per algorithm, as the leaderboard's: data that record an
    incumbent only when it changes end each run at its last improvement, but
    some run of each algorithm still reaches the end.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict.report.runner import Options
    >>> from benchverdict.results import Results
    >>> df = pd.DataFrame({"alg": ["a", "a", "b", "b", "c", "c"], "seed": [0] * 6,
    ...                    "t": [1, 3, 1, 2, 1, 3], "y": [1, 2, 1, 3, 2, 2]})
    >>> res = Results.from_frame(df, algorithm="alg", seed="seed", budget="t", score="y",
    ...                          objective="maximize", kind="runs")
    >>> stopped_early(res, Options())
    {'b': 2.0}
    """
    if options.budget is not None or not results.has_budget:
        return {}
    done = results.completeness()
    final = float(done["last_budget_max"].max())
    tolerance = 1e-9 * max(1.0, abs(final))
    return {str(a): float(b) for a, b in done["last_budget_max"].items()
            if b < final - tolerance}
