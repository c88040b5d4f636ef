"""Column helpers for building many records from a data frame without a string per cell."""

from __future__ import annotations

import numpy as np
import pandas as pd


def shared_values(column: pd.Series) -> list:
    """``column.tolist()``, each distinct value one object shared by its cells.

    ``tolist`` of a text column (pandas' Arrow-backed strings) makes a new
    string per cell: 600,000 copies of 200 algorithm and 10 benchmark names
    among the 200,000 per-benchmark verdicts of a 200-algorithm study, kept
    as long as the verdicts are.

    Examples
    --------
    >>> v = shared_values(pd.Series(["SVM", "RF", "SVM"]))
    >>> v, v[0] is v[2]
    (['SVM', 'RF', 'SVM'], True)
    """
    if not isinstance(column.dtype, pd.StringDtype):
        # Other columns hold Python objects already (tolist returns them) or numbers.
        return column.tolist()
    codes, uniques = pd.factorize(column, use_na_sentinel=False)
    distinct = pd.Series(uniques, dtype=column.dtype).tolist()
    return [distinct[i] for i in codes]


def text_array(column: pd.Series) -> np.ndarray:
    """``column.astype(str).to_numpy()``: an object array of ``str``, one per cell.

    A categorical column is converted through its categories (each turned
    into text once) and its codes: the same strings, without converting 10^6
    cells to Arrow strings and back (0.16 s a column on 10^6 draws, several
    columns per DSE scope).

    Examples
    --------
    >>> text_array(pd.Series([3, 1, 3], dtype="category")).tolist()
    ['3', '1', '3']
    >>> text_array(pd.Series([2.5, 1.0])).tolist()
    ['2.5', '1.0']
    """
    by_category = _category_text(column)
    if by_category is not None:
        names, codes = by_category
        return names[codes]
    return np.asarray(column.astype(str).to_numpy(), dtype=object)


def _category_text(column: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """The categories as text and each cell's code, or None for the plain path.

    Only for a categorical without missing cells whose categories turn into
    text as its cells do (text, ints, bools). Dates and floats take the plain
    path: an index formats them as a whole (``'2020-01-01'``), a cell on its
    own (``'2020-01-01 00:00:00'``).
    """
    if not isinstance(column.dtype, pd.CategoricalDtype):
        return None
    kind = column.cat.categories.dtype
    if not (isinstance(kind, pd.StringDtype) or getattr(kind, "kind", None) in tuple("iubOSU")):
        return None
    codes = column.cat.codes.to_numpy()
    if not codes.size or codes.min() < 0:
        return None
    return np.asarray(column.cat.categories.astype(str), dtype=object), codes


def positions_in(column: pd.Series, names: list) -> np.ndarray:
    """Each cell's position in ``names`` (by its text; -1 when absent), as ``int64``.

    ``pd.Index(names).get_indexer(text_array(column))``, looking up each
    category once when the column is categorical.

    Examples
    --------
    >>> positions_in(pd.Series(["b", "a", "c"], dtype="category"), ["a", "b"]).tolist()
    [1, 0, -1]
    """
    index = pd.Index(names, dtype=object)
    by_category = _category_text(column)
    if by_category is not None:
        text, codes = by_category
        return index.get_indexer(text)[codes].astype(np.int64)
    return index.get_indexer(text_array(column)).astype(np.int64)
