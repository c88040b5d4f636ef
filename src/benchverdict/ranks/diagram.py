"""``cd_diagram``: one call from results (or a rank result) to a critical-difference diagram."""

from __future__ import annotations

from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from benchverdict import critical_difference as cdd
from benchverdict.ranks.autorank_path import AutorankResult
from benchverdict.ranks.friedman import FriedmanResult, friedman
from benchverdict.results import BlockMatrix, Results


def cd_diagram(
    data: Results | BlockMatrix | FriedmanResult | AutorankResult | pd.Series,
    not_different: pd.DataFrame | None = None,
    *,
    ax: Axes | None = None,
    **options: Any,
) -> Axes:
    """Draw a critical-difference diagram from whatever you have.

    Parameters
    ----------
    data : Results, BlockMatrix, FriedmanResult, AutorankResult or pandas.Series
        Results or a block matrix: :func:`~benchverdict.ranks.friedman` is run
        with ``options`` (e.g. ``posthoc="wilcoxon"``, ``budget=...``) and its
        diagram drawn. A result: its ``.plot()``. A Series of positions
        (average ranks, marginal means): drawn with ``not_different`` and
        ``options`` passed to
        :func:`benchverdict.critical_difference.draw_cd_diagram`.
    not_different : pandas.DataFrame, optional
        Only with a Series: the boolean not-significantly-different matrix.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from benchverdict.ranks._examples import small_runs
    >>> ax = cd_diagram(small_runs(), posthoc="nemenyi", n_resamples=0)
    >>> ax.get_title()[:22]
    'Friedman p = 0.002, ne'
    """
    if isinstance(data, (FriedmanResult, AutorankResult)):
        if options or not_different is not None:
            raise TypeError("a result is drawn as it is: pass no other options.")
        return data.plot(ax=ax)
    if isinstance(data, (Results, BlockMatrix)):
        if not_different is not None:
            raise TypeError("not_different is only for a Series of positions.")
        return friedman(data, **options).plot(ax=ax)
    if isinstance(data, pd.Series):
        if not_different is None:
            raise TypeError("with a Series of positions, pass the not_different matrix too.")
        return cdd.draw_cd_diagram(data, not_different, ax=ax, **options)
    raise TypeError(
        f"cd_diagram takes Results, a BlockMatrix, a rank result or a Series of positions; got "
        f"{type(data).__name__}."
    )
