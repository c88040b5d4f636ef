"""Column helpers (``benchverdict._columns``) give what the plain pandas forms give."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from benchverdict._columns import positions_in, text_array

_VALUES = st.one_of(st.text(max_size=4), st.integers(-3, 3), st.floats(allow_nan=False))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=4), st.integers(-3, 3)), max_size=20),
       st.booleans(), st.booleans(), st.sampled_from(["category", "object", "str"]))
def test_text_array_is_astype_str(values, missing, unused, dtype):
    column = pd.Series(values + ([None] if missing else []), dtype=object)
    if dtype == "category":
        column = column.astype("category")
        if unused:
            column = column.cat.add_categories(["never seen"])
    elif dtype == "str":
        column = column.astype(str)
    got = text_array(column)
    want = column.astype(str).to_numpy()
    assert got.dtype == object
    assert [None if pd.isna(x) else x for x in got] == [None if pd.isna(x) else x
                                                         for x in want]
    if not missing:  # (a missing cell is whatever pandas makes of it: never in Results)
        assert all(type(x) is str for x in got)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "1", 1]), max_size=20),
       st.lists(st.sampled_from(["a", "b", "c", "1", "z"]), unique=True, max_size=4),
       st.booleans())
def test_positions_in_is_get_indexer_of_the_text(values, names, categorical):
    column = pd.Series(values, dtype="category" if categorical else object)
    got = positions_in(column, names)
    want = pd.Index(names, dtype=object).get_indexer(column.astype(str).to_numpy())
    assert got.dtype == np.int64
    assert got.tolist() == want.tolist()


def test_dates_and_floats_as_categories_read_as_their_cells_do():
    # An index formats dates as a whole ('2020-01-01'); a cell alone keeps its time.
    for values in (pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-01"]),
                   [1.5, 2.0, 1e-05], pd.to_timedelta([1, 2, 1], unit="s")):
        column = pd.Series(values).astype("category")
        assert text_array(column).tolist() == column.astype(str).tolist()
        names = column.astype(str).unique().tolist()[:1]
        want = pd.Index(names, dtype=object).get_indexer(column.astype(str).to_numpy())
        assert positions_in(column, names).tolist() == want.tolist()
