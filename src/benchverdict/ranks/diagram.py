"""Critical-difference diagrams in one call: one diagram, its TikZ, or several in one figure.

* :func:`cd_diagram` draws the diagram of results (the Friedman test is run),
  of a rank result, or of a Series of positions;
* :func:`cd_tikz` writes the same diagram as a TikZ picture for a paper;
* :func:`cd_diagrams` stacks several diagrams (per budget, per benchmark
  group) in one figure on one shared rank axis.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from benchverdict import critical_difference as cdd
from benchverdict.ranks.autorank_path import AutorankResult
from benchverdict.ranks.friedman import FriedmanResult, _p, friedman
from benchverdict.results import BlockMatrix, Results

#: Options of the drawing itself (the rest go to the Friedman test when results are given).
DRAWING_OPTIONS = ("highlight", "layout", "fontsize", "linewidth", "label_width",
                   "value_format", "max_labels", "contiguous", "title")


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
        diagram drawn. A Friedman result: its diagram. An Autorank result:
        its ``.plot()``. A Series of positions (average ranks, marginal
        means): drawn with ``not_different`` and ``options`` passed to
        :func:`benchverdict.critical_difference.draw_cd_diagram`.
    not_different : pandas.DataFrame, optional
        Only with a Series: the boolean not-significantly-different matrix.
    ax : matplotlib.axes.Axes, optional
    **options
        With results, the Friedman test's options; with results or a
        Friedman result also the drawing options :data:`DRAWING_OPTIONS`
        (``highlight=``, ``layout="compact"``, ``fontsize=``, ...).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from benchverdict.ranks._examples import small_runs
    >>> ax = cd_diagram(small_runs(), posthoc="nemenyi", n_resamples=0)
    >>> ax.get_title()[:22]
    'Friedman p = 0.002, ne'
    >>> ax = cd_diagram(small_runs(), posthoc="nemenyi", n_resamples=0, layout="compact")
    >>> float(round(ax.figure.get_figwidth(), 1))
    3.5
    """
    if isinstance(data, AutorankResult):
        if options or not_different is not None:
            raise TypeError("an Autorank result is drawn as it is: pass no other options.")
        return data.plot(ax=ax)
    if isinstance(data, pd.Series):
        if not_different is None:
            raise TypeError("with a Series of positions, pass the not_different matrix too.")
        return cdd.draw_cd_diagram(data, not_different, ax=ax, **options)
    return cdd.draw_cd_diagram(**_diagram_arguments(data, not_different, options), ax=ax)


def cd_tikz(
    data: Results | BlockMatrix | FriedmanResult | pd.Series,
    not_different: pd.DataFrame | None = None,
    *,
    standalone: bool = True,
    **options: Any,
) -> str:
    r"""The critical-difference diagram of :func:`cd_diagram` as TikZ (for a paper).

    Takes the same inputs (results, a block matrix, a Friedman result, or a
    Series with ``not_different``) and options; see
    :func:`benchverdict.critical_difference.cd_diagram_tikz`.

    Returns
    -------
    str
        A document ``pdflatex`` compiles on its own (``standalone=True``,
        needs the ``standalone`` class and TikZ) or the ``tikzpicture``
        to ``\input`` (after a ``\providecommand`` of ``\bvu``, which
        shows a name's non-ASCII characters).

    Examples
    --------
    >>> from benchverdict.ranks._examples import small_runs
    >>> tex = cd_tikz(small_runs(), posthoc="nemenyi", n_resamples=0, standalone=False)
    >>> tex.splitlines()[1].startswith("\\begin{tikzpicture}"), "CD = " in tex
    (True, True)
    """
    if isinstance(data, pd.Series):
        if not_different is None:
            raise TypeError("with a Series of positions, pass the not_different matrix too.")
        return cdd.cd_diagram_tikz(data, not_different, standalone=standalone, **options)
    return cdd.cd_diagram_tikz(**_diagram_arguments(data, not_different, options),
                               standalone=standalone)


def cd_diagrams(
    panels: Mapping[str, Results | BlockMatrix | FriedmanResult],
    *,
    share_axis: bool = True,
    highlight: str | list[str] | None = None,
    layout: str = "two-sided",
    fontsize: float = 9.0,
    linewidth: float = 0.9,
    width: float | None = None,
    **options: Any,
) -> Figure:
    """Several critical-difference diagrams in one figure, sharing the rank axis.

    Parameters
    ----------
    panels : mapping of str to Results, BlockMatrix or FriedmanResult
        Title -> what to draw, e.g. one entry per budget
        (``{f"budget {b}": friedman(results, budget=b) for b in budgets}``)
        or per benchmark group (``results.subset(benchmarks=...)``).
    share_axis : bool
        One rank axis from 1 to the largest number of algorithms.
    highlight, layout, fontsize, linewidth, width
        See :func:`benchverdict.critical_difference.draw_cd_diagrams`.
    **options
        Passed to :func:`~benchverdict.ranks.friedman` for panels given as
        results or block matrices.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from benchverdict.ranks._examples import small_runs
    >>> runs = small_runs()
    >>> fig = cd_diagrams({"all": runs, "first three": runs.subset(
    ...     benchmarks=runs.benchmarks[:3])}, posthoc="nemenyi", n_resamples=0)
    >>> len(fig.axes)
    2
    """
    specs = {}
    for name, data in panels.items():
        if isinstance(data, (AutorankResult, pd.Series)):
            raise TypeError(f"panel {name!r}: give results, a block matrix or a Friedman "
                            f"result, not {type(data).__name__}.")
        given = dict(options) if isinstance(data, (Results, BlockMatrix)) else {}
        specs[name] = _diagram_arguments(data, None, given)
        specs[name].pop("title", None)
    return cdd.draw_cd_diagrams(specs, share_axis=share_axis, highlight=highlight,
                                layout=layout, fontsize=fontsize, linewidth=linewidth,
                                width=width)


def _diagram_arguments(data: Any, not_different: pd.DataFrame | None,
                       options: dict[str, Any]) -> dict[str, Any]:
    """``draw_cd_diagram``'s arguments for results, a block matrix or a Friedman result."""
    drawing = {k: options.pop(k) for k in list(options) if k in DRAWING_OPTIONS}
    if isinstance(data, (Results, BlockMatrix)):
        if not_different is not None:
            raise TypeError("not_different is only for a Series of positions.")
        data = friedman(data, **options)
    elif isinstance(data, FriedmanResult):
        if options or not_different is not None:
            raise TypeError(f"a Friedman result is drawn as it is: only the drawing options "
                            f"{list(DRAWING_OPTIONS)} apply, not {sorted(options)}.")
    else:
        raise TypeError(
            f"a critical-difference diagram takes Results, a BlockMatrix, a rank result or a "
            f"Series of positions; got {type(data).__name__}."
        )
    nemenyi = data.posthoc == "nemenyi"
    adjust = "" if nemenyi else "-" + data.adjust
    title = (f"Friedman p = {_p(data.p_value)}, {data.posthoc}{adjust}; "
             f"{cdd.short_unit(data.unit)}")
    return {"positions": data.average_ranks, "not_different": data.not_different(),
            "lower_is_better": True,
            "critical_difference": data.critical_difference if nemenyi else None,
            "axis_label": "average rank", "limits": (1, len(data.algorithms)),
            "title": title, **drawing}
