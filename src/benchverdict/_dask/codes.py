"""Label codes from global categories: the one integer encoding every partition shares.

Below both the validation pass (:mod:`benchverdict._dask.frame`) and the
partitioned LMEM (:mod:`benchverdict._dask.lmem`), so neither imports the other.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def codes_in(values: pd.Series, categories: Any) -> np.ndarray:
    """Each value's position in ``categories`` (-1 if absent or missing), as int64.

    A categorical column is mapped through its categories (no hashing per row),
    which is what makes dictionary-encoded Parquet columns cheap.

    Examples
    --------
    >>> codes_in(pd.Series(["b", "a", None], dtype="category"), ["a", "b"]).tolist()
    [1, 0, -1]
    """
    index = pd.Index(categories)
    if isinstance(values.dtype, pd.CategoricalDtype):
        lookup = np.r_[index.get_indexer(values.cat.categories), -1].astype(np.int64)
        return lookup[values.cat.codes.to_numpy().astype(np.int64)]
    return index.get_indexer(values).astype(np.int64)
