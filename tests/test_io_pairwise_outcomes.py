"""The pairwise-outcome reader: what it accepts, and the errors that name the rows and the fix."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchverdict.io import ReadError
from benchverdict.io.pairwise_outcomes import OUTCOME_COLUMNS, read_pairwise_outcomes


def games(**extra) -> pd.DataFrame:
    base = {"x": ["a", "a", "b", "c"], "y": ["b", "c", "c", "a"],
            "winner": ["x", "tie", "c", "a"]}
    return pd.DataFrame({**base, **extra})


def test_winner_words_and_names_become_x_y_tie_in_order():
    got = read_pairwise_outcomes(games())
    assert got["winner"].tolist() == ["x", "tie", "y", "y"]
    assert got["weight"].tolist() == [1.0] * 4
    assert list(got.columns) == ["x", "y", "winner", "weight"]
    draw = read_pairwise_outcomes(games(winner=["X ", "Draw", "y", "TIE"]))
    assert draw["winner"].tolist() == ["x", "tie", "y", "tie"]


def test_file_round_trip_with_weight_and_benchmark(tmp_path: Path):
    path = tmp_path / "games.csv"
    games(weight=[1, 2, 0.5, 0], benchmark=["p", "p", "q", "q"]).to_csv(path, index=False)
    got = read_pairwise_outcomes(path)
    assert list(got.columns) == OUTCOME_COLUMNS
    assert got["weight"].tolist() == [1.0, 2.0, 0.5, 0.0]
    assert got["benchmark"].tolist() == ["p", "p", "q", "q"]
    # Names are text: "1.10" and "1.1" stay two players.
    path2 = tmp_path / "numbers.csv"
    path2.write_text("x,y,winner\n1.1,1.10,x\n1.10,1.1,1.10\n")
    got = read_pairwise_outcomes(path2)
    assert got["x"].tolist() == ["1.1", "1.10"] and got["winner"].tolist() == ["x", "x"]


def test_other_column_names():
    frame = games().rename(columns={"x": "model_a", "y": "model_b", "winner": "result"})
    got = read_pairwise_outcomes(frame, x="model_a", y="model_b", winner="result")
    assert got["x"].tolist() == ["a", "a", "b", "c"]


@pytest.mark.parametrize("frame,kwargs,message", [
    (games().drop(columns="winner"), {}, r"no column for winner='winner'.*Fix: name"),
    (games(), {"weight": "w"}, r"no column for weight='w'"),
    (games(x=["a", None, "b", "c"]), {}, r"'x' \(x\) is empty in row 2\. Fix"),
    (games(y=["a", "c", "c", "a"]), {}, r"plays itself in row 1 \('a'\)"),
    (games(winner=["x", "tie", "d", "b"]), {},
     r"is 'd' in rows 3, 4, which is neither x, y, tie nor one of the row's players"),
    (games(weight=[1, -1, "heavy", float("inf")]), {},
     r"\(weight\) is missing, not a number, negative or infinite in rows 2, 3, 4"),
    (games(weight=[0, 0, 0, 0]), {}, r"every game has weight 0"),
    (games().iloc[:0], {}, r"no games \(0 rows\)"),
])
def test_errors_name_the_column_rows_and_fix(frame, kwargs, message):
    with pytest.raises(ValueError, match=message):
        read_pairwise_outcomes(frame, **kwargs)


def test_ambiguous_winner_is_an_error_not_a_guess():
    frame = pd.DataFrame({"x": ["tie", "b"], "y": ["b", "x"], "winner": ["tie", "x"]})
    with pytest.raises(ValueError, match=r"ambiguous in rows 1, 2.*rename that player"):
        read_pairwise_outcomes(frame)


def test_many_bad_rows_are_counted_not_all_listed():
    frame = pd.DataFrame({"x": ["a"] * 12, "y": ["a"] * 12, "winner": ["x"] * 12})
    with pytest.raises(ValueError, match=r"rows 1, 2, 3, 4, 5 and 7 more"):
        read_pairwise_outcomes(frame)


def test_empty_or_missing_file(tmp_path: Path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ReadError, match="empty"):
        read_pairwise_outcomes(empty)
    with pytest.raises(FileNotFoundError):
        read_pairwise_outcomes(tmp_path / "nowhere.csv")
