"""What a mixed model's input left out: invalid rows and runs without an incumbent.

Two things can keep data out of an LMEM fit, and both are counted, never
dropped silently:

* rows the :class:`~benchverdict.results.Results` excluded at validation
  (``results.exclusions``, with ``on_invalid="drop"``), one record per row;
* runs with no observation at or below the budget the incumbents are taken
  at (a :meth:`Results.at_budget` view records them in its ``exclusions``).

:func:`exclusions_of` collects both into one tidy table, which
:class:`~benchverdict.lmem.model.MixedModel` carries as ``exclusions`` and
whose counts every LMEM verdict repeats in its ``details``
(``excluded_rows``, ``excluded_runs``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from benchverdict.exclusions import concat_exclusions, empty_exclusions

if TYPE_CHECKING:
    from benchverdict.results import Results


def empty() -> pd.DataFrame:
    """An exclusions table with no records (:func:`benchverdict.exclusions.empty_exclusions`).

    Examples
    --------
    >>> empty().empty
    True
    """
    return empty_exclusions()


def exclusions_of(results: Results | pd.DataFrame | None) -> pd.DataFrame:
    """Rows and runs left out of the data a model is fitted on.

    Parameters
    ----------
    results : Results, optional
        Its ``exclusions``: the invalid rows dropped at validation, and for a
        view (:meth:`Results.at_budget`) the runs without an incumbent there.
        A DataFrame (rows given as they are) or ``None`` left nothing out.

    Returns
    -------
    pandas.DataFrame
        The records, columns
        :data:`~benchverdict.exclusions.EXCLUSION_COLUMNS`: ``unit``
        ``"row"`` (with its ``row`` label) or ``"run"`` (with its
        ``algorithm``, ``benchmark`` and ``seed``), and the ``reason``; one
        record per excluded row or run.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict.results import Results
    >>> df = pd.DataFrame({"alg": ["a", "a", "b", "b"], "seed": [0, 0, 0, 0],
    ...                    "t": [1, 2, 2, 3], "y": [0.1, 0.2, 0.3, 0.4]})
    >>> res = Results.from_frame(df, algorithm="alg", seed="seed", budget="t", score="y",
    ...                          objective="maximize", kind="runs")
    >>> exclusions_of(res.at_budget(1))[["unit", "algorithm", "seed", "reason"]].values.tolist()
    [['run', 'b', 0, 'no observation at or below budget 1']]
    """
    table = getattr(results, "exclusions", None)
    if not isinstance(table, pd.DataFrame) or table.empty:
        return empty()
    # A fresh table: the model keeps it, the Results keeps its own.
    return concat_exclusions([table])


def counts(exclusions: pd.DataFrame) -> dict[str, int]:
    """``{"excluded_rows": ..., "excluded_runs": ...}`` of an exclusions table.

    Examples
    --------
    >>> counts(empty())
    {'excluded_rows': 0, 'excluded_runs': 0}
    """
    units = exclusions["unit"].value_counts() if len(exclusions) else {}
    return {"excluded_rows": int(units.get("row", 0)), "excluded_runs": int(units.get("run", 0))}


def describe(exclusions: pd.DataFrame) -> str:
    """One line for a summary: what was left out and why (empty when nothing was).

    Examples
    --------
    >>> from benchverdict.exclusions import exclusions_frame
    >>> describe(exclusions_frame([
    ...     {"unit": "row", "row": 4, "reason": "score: not a number"},
    ...     {"unit": "run", "algorithm": "A", "benchmark": "b", "seed": 1,
    ...      "reason": "no incumbent"}]))
    'Left out of this fit: 1 input row (score: not a number); 1 run (no incumbent).'
    """
    if not len(exclusions):
        return ""
    parts = []
    for unit in ("row", "run"):
        sub = exclusions[exclusions["unit"] == unit]
        if not len(sub):
            continue
        reasons = "; ".join(list(dict.fromkeys(sub["reason"]))[:3])
        label = "input row" if unit == "row" else "run"
        parts.append(f"{len(sub)} {label}{'s' if len(sub) != 1 else ''} ({reasons})")
    return "Left out of this fit: " + "; ".join(parts) + "."
