"""Scale-out on Dask: a :class:`~benchverdict.results.Results` whose rows stay in partitions.

Nothing here is imported by ``import benchverdict``: the in-memory path never
touches Dask. :func:`benchverdict.read` with ``engine="dask"`` and
:meth:`Results.from_frame` given a ``dask.dataframe.DataFrame`` come here and
return a :class:`~benchverdict._dask.results.DaskResults`, which has the same
public API as ``Results``. Every heavy step is a per-partition reduction whose
partial results are added on the client (validation, ``describe()``, the
incumbents of every run at a budget, the LMEM cross-products); the analyses
then run unchanged on the small reduced objects.

Install with ``pip install 'benchverdict[dask]'``.
"""

from __future__ import annotations

import importlib


def require_dask() -> None:
    """Raise a clear ImportError when dask[dataframe] or distributed is missing.

    Examples
    --------
    >>> require_dask()  # doctest: +SKIP
    """
    for module in ("dask.dataframe", "distributed"):
        try:
            importlib.import_module(module)
        except ImportError as err:
            raise ImportError(
                f"engine='dask' needs {module.split('.')[0]!r} (not installed: {err}). Fix: "
                f"pip install 'benchverdict[dask]', or use the default in-memory engine."
            ) from err


def is_dask_frame(obj: object) -> bool:
    """Whether ``obj`` is a Dask DataFrame, decided without importing Dask.

    Examples
    --------
    >>> import pandas as pd
    >>> is_dask_frame(pd.DataFrame())
    False
    """
    module = type(obj).__module__ or ""
    return module.split(".")[0] in ("dask", "dask_expr") and hasattr(obj, "npartitions")


__all__ = ["is_dask_frame", "require_dask"]
