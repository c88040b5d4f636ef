"""What a mixed model's input left out: invalid rows and runs without an incumbent.

Two things can keep data out of an LMEM fit, and both are counted, never
dropped silently:

* rows the :class:`~benchverdict.results.Results` excluded at validation
  (``results.exclusions``, with ``on_invalid="drop"``), one record per row;
* runs with no observation at or below the budget the incumbents are taken
  at (:meth:`Results.at_budget` lists them in ``frame.attrs["excluded_runs"]``).

:func:`exclusions_of` collects both into one tidy table, which
:class:`~benchverdict.lmem.model.MixedModel` carries as ``exclusions`` and
whose counts every LMEM verdict repeats in its ``details``
(``excluded_rows``, ``excluded_runs``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from benchverdict.results import Results

COLUMNS = ["unit", "id", "reason"]


def empty() -> pd.DataFrame:
    """An exclusions table with no records."""
    return pd.DataFrame({c: pd.Series(dtype=object) for c in COLUMNS})


def exclusions_of(results: Results | pd.DataFrame | None,
                  frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """Rows and runs left out of ``frame`` (the table a model is fitted on).

    Parameters
    ----------
    results : Results or DataFrame, optional
        Its ``exclusions`` (invalid rows dropped at validation) are counted.
    frame : DataFrame, optional
        A table derived from ``results``; runs listed in its
        ``attrs["excluded_runs"]`` (set by :meth:`Results.at_budget`) are counted.

    Returns
    -------
    pandas.DataFrame
        ``unit`` (``"row"`` or ``"run"``), ``id`` (the input row, or
        ``"algorithm / benchmark / seed"``) and ``reason``; one record per
        excluded row or run.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"score": [0.1]})
    >>> frame.attrs["excluded_runs"] = (("A", "b1", 3),)
    >>> frame.attrs["budget"] = 5.0
    >>> exclusions_of(None, frame).to_dict("records")
    [{'unit': 'run', 'id': 'A / b1 / 3', 'reason': 'no observation at or below budget 5'}]
    """
    records = []
    table = getattr(results, "exclusions", None)
    if isinstance(table, pd.DataFrame) and len(table):
        if "unit" in table.columns:
            # Results.exclusions: validation's rows and the runs a view (at_budget) left out.
            for r in table.to_dict("records"):
                run = r["unit"] == "run"
                key = (" / ".join(str(r[k]) for k in ("algorithm", "benchmark", "seed"))
                       if run else str(r["row"]))
                records.append({"unit": "run" if run else "row", "id": key,
                                "reason": str(r["reasons"])})
        elif "row" in table.columns:
            # Results.exclusions holds one record per row with all its reasons joined.
            column = "reasons" if "reasons" in table else "reason" if "reason" in table else None
            reasons = table.groupby("row", sort=True)[column].agg(
                lambda r: "; ".join(dict.fromkeys(map(str, r)))) if column else None
            for row in dict.fromkeys(table["row"]):
                why = reasons[row] if reasons is not None else "excluded at validation"
                records.append({"unit": "row", "id": str(row), "reason": why})
        else:
            for i in range(len(table)):
                records.append({"unit": "row", "id": str(i), "reason": "excluded at validation"})
    for source in (frame, results if isinstance(results, pd.DataFrame) else None):
        if source is None:
            continue
        runs = source.attrs.get("excluded_runs", ())
        budget = source.attrs.get("budget")
        why = ("no observation at or below budget " + f"{float(budget):g}"
               if budget is not None else "no incumbent")
        for run in runs:
            records.append({"unit": "run", "id": " / ".join(map(str, run)), "reason": why})
        if runs:
            break
    return pd.DataFrame(records, columns=COLUMNS) if records else empty()


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
    >>> import pandas as pd
    >>> describe(pd.DataFrame({"unit": ["row", "run"], "id": ["4", "A / b / 1"],
    ...                        "reason": ["score: not a number", "no incumbent"]}))
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
