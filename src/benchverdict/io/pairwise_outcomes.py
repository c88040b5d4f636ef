"""Pairwise-outcome tables: one game per row, ``x, y, winner[, weight][, benchmark]``.

The format living leaderboards (Chatbot Arena's battles, evalica's inputs)
keep: who played whom and who won. :func:`read_pairwise_outcomes` reads
such a file (or a DataFrame) into a tidy table that
:func:`benchverdict.leaderboard.arena.arena_from_outcomes` rates.

``winner`` is ``"x"``, ``"y"`` or ``"tie"`` (``"draw"`` is read as a tie),
or the name of the winning player itself (the row's ``x`` or ``y`` value).
Every row is kept, in file order (the order Elo plays the games in); a row
that cannot be read is an error naming its row numbers and the fix, never
dropped.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from benchverdict.io import read_frame

#: Columns of the tidy table :func:`read_pairwise_outcomes` returns (``benchmark`` only if given).
OUTCOME_COLUMNS = ["x", "y", "winner", "weight", "benchmark"]
#: Words read as a tie in the winner column.
TIE_WORDS = frozenset({"tie", "draw"})
_SHOWN = 5


def _rows(mask: np.ndarray) -> str:
    """Row numbers of ``mask`` as a reader counts them (1 = first data row), a few shown."""
    at = np.flatnonzero(mask) + 1
    shown = ", ".join(str(i) for i in at[:_SHOWN])
    return f"row{'s' if len(at) > 1 else ''} {shown}" + (
        f" and {len(at) - _SHOWN} more" if len(at) > _SHOWN else "")


def read_pairwise_outcomes(
    source: str | Path | pd.DataFrame,
    *,
    x: str = "x",
    y: str = "y",
    winner: str = "winner",
    weight: str | None = None,
    benchmark: str | None = None,
) -> pd.DataFrame:
    """Read a table of games ``x, y, winner[, weight][, benchmark]`` and validate it.

    Parameters
    ----------
    source : str, Path or pandas.DataFrame
        A CSV, TSV, Parquet or JSON Lines file (format from the suffix), or a frame.
    x, y, winner : str
        Columns of the two players and of the outcome: ``"x"``, ``"y"``,
        ``"tie"`` (or ``"draw"``), or the winning player's name.
    weight : str, optional
        A column of non-negative finite game weights (default: a column named
        ``weight`` if there is one, else every game weighs 1).
    benchmark : str, optional
        A column naming the benchmark (or any cluster) a game belongs to; the
        arena's bootstrap then resamples benchmarks, not games (default: a
        column named ``benchmark`` if there is one).

    Returns
    -------
    pandas.DataFrame
        One row per game, in the source's order: ``x``, ``y`` (str),
        ``winner`` (``"x"``, ``"y"`` or ``"tie"``), ``weight`` (float) and,
        if given, ``benchmark`` (str).

    Raises
    ------
    ValueError
        On a missing column, a missing name, a game of a player against
        itself, a winner that is neither ``x``, ``y``, a tie word nor one of
        the row's players (or is ambiguous: a player named ``"x"`` or
        ``"tie"``), a weight that is negative, missing or not finite, or no
        game of positive weight. The message names the rows and the fix.
    FileNotFoundError, benchverdict.io.ReadError
        If the file is missing, empty or unreadable.

    Examples
    --------
    >>> import pandas as pd
    >>> games = pd.DataFrame({"x": ["gpt", "gpt", "llama"], "y": ["llama", "mistral", "mistral"],
    ...                       "winner": ["gpt", "tie", "y"]})
    >>> read_pairwise_outcomes(games)
           x        y winner  weight
    0    gpt    llama      x     1.0
    1    gpt  mistral    tie     1.0
    2  llama  mistral      y     1.0
    """
    if isinstance(source, pd.DataFrame):
        frame, where = source, "the table"
    else:
        wanted = [x, y, winner] + [c for c in (weight, benchmark) if c is not None]
        frame = read_frame(source, text_columns=wanted)
        where = repr(str(source))
    if weight is None and "weight" in frame.columns:
        weight = "weight"
    if benchmark is None and "benchmark" in frame.columns:
        benchmark = "benchmark"
    roles = {"x": x, "y": y, "winner": winner, "weight": weight, "benchmark": benchmark}
    missing = [f"{role}={col!r}" for role, col in roles.items()
               if col is not None and col not in frame.columns]
    if missing:
        raise ValueError(
            f"pairwise outcomes in {where}: no column for {', '.join(missing)}; the columns "
            f"are {list(map(str, frame.columns))}. Fix: name the columns with x=, y=, "
            f"winner= (weight=, benchmark=).")
    if len(frame) == 0:
        raise ValueError(f"pairwise outcomes in {where}: no games (0 rows).")
    out = pd.DataFrame(index=pd.RangeIndex(len(frame)))
    for role in ("x", "y", "winner") + (("benchmark",) if benchmark is not None else ()):
        column = frame[roles[role]].reset_index(drop=True)
        absent = column.isna().to_numpy()
        if absent.any():
            raise ValueError(
                f"pairwise outcomes in {where}: column {roles[role]!r} ({role}) is empty in "
                f"{_rows(absent)}. Fix: fill in or delete those rows.")
        out[role] = column.astype(str).str.strip()
    same = (out["x"] == out["y"]).to_numpy()
    if same.any():
        raise ValueError(
            f"pairwise outcomes in {where}: a player plays itself in {_rows(same)} "
            f"({out['x'][same].iloc[0]!r}). Fix: delete those rows.")
    word = out["winner"].str.lower()
    is_x = (word == "x") | (out["winner"] == out["x"])
    is_y = (word == "y") | (out["winner"] == out["y"])
    is_tie = word.isin(TIE_WORDS)
    ambiguous = ((is_x.astype(int) + is_y.astype(int) + is_tie.astype(int)) > 1).to_numpy()
    if ambiguous.any():
        raise ValueError(
            f"pairwise outcomes in {where}: the winner is ambiguous in {_rows(ambiguous)} "
            f"(a player is named 'x', 'y' or 'tie', so the word could mean either). Fix: "
            f"write the winner as the literal x, y or tie, and rename that player.")
    unknown = ~(is_x | is_y | is_tie).to_numpy()
    if unknown.any():
        first = out["winner"][unknown].iloc[0]
        raise ValueError(
            f"pairwise outcomes in {where}: column {winner!r} (winner) is {first!r} in "
            f"{_rows(unknown)}, which is neither x, y, tie nor one of the row's players. "
            f"Fix: write x, y or tie (or the winning player's name).")
    out["winner"] = np.where(is_x, "x", np.where(is_y, "y", "tie"))
    if weight is None:
        out["weight"] = 1.0
    else:
        values = pd.to_numeric(frame[weight].reset_index(drop=True), errors="coerce")
        bad = ~(np.isfinite(values.to_numpy(dtype=float)) & (values.to_numpy() >= 0))
        if bad.any():
            raise ValueError(
                f"pairwise outcomes in {where}: column {weight!r} (weight) is missing, not a "
                f"number, negative or infinite in {_rows(bad)}. Fix: give each game a "
                f"non-negative weight (1 = one game).")
        out["weight"] = values.astype(float)
    if not (out["weight"] > 0).any():
        raise ValueError(f"pairwise outcomes in {where}: every game has weight 0; nothing to "
                         f"rate. Fix: give the games positive weights.")
    return out[[c for c in OUTCOME_COLUMNS if c in out.columns]]
