"""Sentences the report's formats share, so that HTML, Markdown and LaTeX say the same thing.

Plain text, not escaped: each renderer escapes what it prints. Sentences
that only one format uses stay in that format's module.
"""

from __future__ import annotations

#: Said when no two families of evidence contradict each other.
NO_CONTRADICTIONS = "No two families of evidence decide any pair in opposite directions."
#: Said when no family misses a relation another family settles.
NO_POWER_GAPS = "No family misses a relation another family settles."
#: Said when neither validation nor an analysis left anything out.
NOTHING_LEFT_OUT = "Nothing was left out."
#: Why single methods' disagreements are not contradictions (after "... occasion(s) (<file>)").
DISAGREEMENTS_WHY = ("within a family only the primary method votes, and score distributions "
                     "do not vote")


def disagreements(n: int, where: str) -> str:
    """The sentence that introduces the single methods' disagreements.

    Examples
    --------
    >>> disagreements(1234, "method_disagreements.csv")[:60]
    'Single methods name different winners on 1,234 occasion(s) ('
    """
    return (f"Single methods name different winners on {n:,} occasion(s) ({where}); "
            f"{DISAGREEMENTS_WHY}.")


def relations_left_out(n: int) -> str:
    """The note under a relations table that does not show every row ("" when it does).

    Examples
    --------
    >>> relations_left_out(1200)
    '1,200 more rows are not shown here; relations.csv has them all.'
    >>> relations_left_out(0)
    ''
    """
    return f"{n:,} more rows are not shown here; relations.csv has them all." if n > 0 else ""


def rows_left_out(n: int, what: str) -> str:
    """The note under a table of ``what`` that does not show every row ("" when it does).

    Examples
    --------
    >>> rows_left_out(3, "verdicts")
    '3 more rows are not shown here; report.json and verdicts.csv have them all.'
    """
    return (f"{n:,} more rows are not shown here; report.json and {what}.csv have them all."
            if n else "")


def warnings_count(n: int, n_distinct: int) -> str:
    """How many warnings there are, before the list ("Warnings: none." without any).

    Examples
    --------
    >>> warnings_count(7, 2)
    'Warnings: 7, 2 distinct (each one is in report.json)'
    """
    if not n_distinct:
        return "Warnings: none."
    return f"Warnings: {n}, {n_distinct} distinct (each one is in report.json)"


__all__ = [
    "DISAGREEMENTS_WHY",
    "NOTHING_LEFT_OUT",
    "NO_CONTRADICTIONS",
    "NO_POWER_GAPS",
    "disagreements",
    "relations_left_out",
    "rows_left_out",
    "warnings_count",
]
