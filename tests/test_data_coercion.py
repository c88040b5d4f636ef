"""No silent coercion: id columns are read as text, booleans are not scores (issue 10)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import benchverdict as bv
from benchverdict import Results, ValidationError

ROLES = dict(algorithm="alg", seed="s", score="y", objective="maximize", kind="trials")


def write(path, rows, fmt):
    if fmt == "csv":
        path.write_text("alg,s,y\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n")
    elif fmt == "tsv":
        path.write_text("alg\ts\ty\n" + "\n".join("\t".join(map(str, r)) for r in rows) + "\n")
    else:
        path.write_text("\n".join(json.dumps({"alg": a, "s": s, "y": y}) for a, s, y in rows))


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_numeric_looking_names_stay_distinct(tmp_path, fmt):
    rows = [("1.1", 0, 0.1), ("1.1", 1, 0.2), ("1.10", 0, 0.3), ("1.10", 1, 0.4),
            ("007", 0, 0.5), ("007", 1, 0.6), ("7", 0, 0.7), ("7", 1, 0.8)]
    path = tmp_path / f"r.{fmt}"
    write(path, rows, fmt)
    res = bv.read(path, **ROLES)
    assert sorted(res.algorithms) == ["007", "1.1", "1.10", "7"]
    assert len(res) == 8 and len(res.exclusions) == 0


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_plain_integer_ids_stay_integers(tmp_path, fmt):
    rows = [(a, s, 0.1 * s) for a in ("x", "y") for s in (1, 2, 10)]
    path = tmp_path / f"r.{fmt}"
    write(path, rows, fmt)
    res = bv.read(path, **ROLES)
    assert res.seeds == [1, 2, 10]  # integer order, not "1", "10", "2"


def test_booleans_in_an_object_score_column_are_refused_like_a_boolean_column():
    df = pd.DataFrame({"alg": ["a", "a", "b", "b"], "s": [0, 1, 0, 1],
                       "y": pd.Series([True, 0.5, False, 0.3], dtype=object)})
    with pytest.raises(ValidationError) as err:
        Results.from_frame(df, **ROLES)
    problem = err.value.problems[0]
    assert problem.reason == "non_numeric_score" and problem.rows == (0, 2)
    assert "booleans" in problem.message
    res = Results.from_frame(df, **ROLES, on_invalid="drop")
    assert res.table["score"].tolist() == [0.5, 0.3]
    assert res.exclusions["row"].tolist() == [0, 2]
    with pytest.raises(ValidationError, match="boolean"):
        Results.from_frame(df.assign(y=[True, False, True, False]), **ROLES)


def test_numpy_bools_in_budget_are_refused():
    df = pd.DataFrame({"alg": ["a", "a", "b", "b"], "s": [0, 0, 0, 0],
                       "t": pd.Series([1, np.True_, 1, 2], dtype=object), "y": [1.0] * 4})
    with pytest.raises(ValidationError, match="booleans"):
        Results.from_frame(df, **ROLES, budget="t")
