"""One exclusion record per row, with every reason that row has (issue 10)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchverdict import Results
from benchverdict.exclusions import EXCLUSION_COLUMNS


def test_a_row_with_two_problems_is_one_excluded_row():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"alg": np.repeat(["a", "b"], 20), "s": np.tile(np.arange(10), 4),
                       "t": np.tile(np.repeat([1.0, 2.0], 10), 2), "y": rng.normal(size=40)})
    df["alg"] = df["alg"].astype(object)
    # 14 bad rows; two of them have two problems each (16 problems in all).
    df.loc[[0, 1, 2, 3, 4, 5], "y"] = np.nan
    df.loc[[6, 7, 8, 9, 10, 11], "t"] = np.inf
    df.loc[[12, 13], "alg"] = None
    df.loc[[0, 12], "t"] = np.nan
    res = Results.from_frame(df, algorithm="alg", seed="s", budget="t", score="y",
                             objective="maximize", on_invalid="drop")
    ex = res.exclusions
    assert list(ex.columns) == list(EXCLUSION_COLUMNS)
    assert (ex["unit"] == "row").all() and (ex["analysis"] == "validation").all()
    assert len(ex) == 14 and ex["row"].is_unique and ex["row"].tolist() == list(range(14))
    assert len(res) + len(ex) == len(df)
    by_row = ex.set_index("row")
    assert by_row.loc[0, "columns"] == "y; t"
    assert by_row.loc[0, "reason"] == "missing score (NaN); missing budget (NaN)"
    assert by_row.loc[12, "reason"] == "missing algorithm; missing budget (NaN)"
    description = res.describe()
    assert int(description.exclusions["rows"].sum()) == 14
    assert "Excluded in validation: 14 row(s)" in str(description)
    assert "14 rows excluded" in repr(res)
