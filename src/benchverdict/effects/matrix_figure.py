"""The pairwise matrix as a figure: every pair's effect, coloured by its settled relation.

A multi-comparison matrix in the sense of aeon's MCM (Ismail-Fawaz et al.
2023): rows and columns are the algorithms, best first; the cell of row
``x`` and column ``y`` shows how much better ``x`` is than ``y`` (the mean
difference oriented so that positive favours the row, in the effect's unit)
with its simultaneous interval, or the probability that ``x`` beats ``y``;
its colour is the relation the report settled for the pair (``better``,
``worse``, implied by transitivity, ``equivalent``, ``contradicted``,
``power gap``, ``unsettled``: the report's matrix colours, colour-blind safe).

:func:`pairwise_matrix` builds it from a :class:`~benchverdict.effects.PairwiseEffects`
(relations given, or read off the simultaneous intervals alone);
:func:`benchverdict.report.figures.comparison_matrix` from a report's
:class:`~benchverdict.report.Comparison`, with the relations it settled under its error
control (it lives in the report, which reads the effects, not the other way round).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from benchverdict._colour import RELATION_COLOURS
from benchverdict._plain_text import plain_text, printable, set_lines
from benchverdict._repr import ResultText
from benchverdict.effects.pairwise import PairwiseEffects

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

__all__ = ["CELL_CONTENTS", "MATRIX_COLOURS", "PairwiseMatrix", "pairwise_matrix"]

#: Relation kinds and their (background, text) colours: the report's matrix colours
#: (Okabe-Ito), so the figure and the report's table read alike.
MATRIX_COLOURS = RELATION_COLOURS
#: What a cell can show.
CELL_CONTENTS = ("interval", "difference", "superiority")
#: Above this many algorithms the cells are coloured only (the table has the numbers).
MAX_ANNOTATED = 12
#: Widest figure (in): the report shows figures at 110 px per inch up to 1100 px.
MAX_WIDTH = 10.0

_COLUMNS = ["row", "column", "advantage", "lower", "upper", "superiority", "superiority_lower",
            "superiority_upper", "relation"]


@dataclass(frozen=True, repr=False)
class PairwiseMatrix(ResultText):
    """Every ordered pair's effect and relation, ready to draw as a matrix.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy, one row per ordered pair (both orders): ``row, column,
        advantage`` (how much better ``row`` is: positive favours it),
        ``lower, upper`` (its simultaneous interval), ``superiority``
        (probability that ``row`` is better) with its interval, and
        ``relation`` (a key of :data:`MATRIX_COLOURS`).
    order : list of str
        Algorithms best first (rows and columns).
    unit : str
    confidence : float
        Simultaneous level of the intervals.
    source : str
        Where the relations come from, in words.
    """

    table: pd.DataFrame
    order: list[str]
    unit: str
    confidence: float
    source: str

    def verdicts(self) -> list:
        """An empty list: the matrix shows the relations; the families decide them."""
        return []

    def _summary_lines(self) -> list[str]:
        counts = (self.table[self.table["row"] < self.table["column"]]["relation"]
                  .replace({"worse": "better", "implied worse": "implied better"})
                  .value_counts())
        return [f"pairwise matrix of {len(self.order)} algorithms ({self.unit}, "
                f"{self.confidence:.0%} simultaneous intervals); relations {self.source}",
                "pairs: " + ", ".join(f"{n} {k}" for k, n in counts.items())]

    def plot(self, ax: plt.Axes | None = None, *, cell: str = "interval",
             fontsize: float = 8.0) -> plt.Axes:
        """Draw the matrix: each cell the row's advantage over the column, coloured by relation.

        Parameters
        ----------
        ax : matplotlib Axes, optional
        cell : {"interval", "difference", "superiority"}
            The advantage and its interval (two lines), the advantage alone,
            or ``P(row better)``.
        fontsize : float
            Cell text size (names are one point larger).

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> from benchverdict.effects.pairwise import pairwise_effects
        >>> m = pairwise_matrix(pairwise_effects(_example_small(), estimand="these"))
        >>> ax = m.plot(cell="difference")
        >>> sorted(t.get_text() for t in ax.texts)
        ['+0.2', '-0.2']
        """
        from matplotlib.patches import Patch, Rectangle

        from benchverdict.plotting import new_axes, shorten, theme

        if cell not in CELL_CONTENTS:
            raise ValueError(f"cell must be one of {CELL_CONTENTS}, got {cell!r}.")
        k = len(self.order)
        annotate = k <= MAX_ANNOTATED
        size = min(1.05 if cell == "interval" else 0.7, (MAX_WIDTH - 2.6) / max(k, 1))
        height = size * (0.55 if cell == "interval" else 0.45) / 0.7 if annotate else size
        height = max(height, 0.28)
        ax = new_axes(ax, width=min(MAX_WIDTH, 2.6 + size * k),
                      height=1.6 + height * k)
        index = {name: i for i, name in enumerate(self.order)}
        decimals = _decimals(self.table)
        with theme():
            for r in self.table.itertuples(index=False):
                i, j = index[r.row], index[r.column]
                background, ink = MATRIX_COLOURS[r.relation]
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=background,
                                       edgecolor="white", linewidth=1.5))
                if annotate:
                    # the line break is layout: kept as a break (plain_text shows others)
                    set_lines(ax.text(j, i, "", ha="center", va="center", fontsize=fontsize,
                                      color=ink, linespacing=1.1),
                              _cell_text(r, cell, decimals).split("\n"))
            for i in range(k):
                ax.add_patch(Rectangle((i - 0.5, i - 0.5), 1, 1, facecolor="white",
                                       edgecolor="white"))
            labels = [printable(shorten(n, 18)) for n in self.order]
            ax.set_xlim(-0.5, k - 0.5)
            ax.set_ylim(k - 0.5, -0.5)
            ax.set_xticks(range(k), labels, rotation=35, ha="right",
                          fontsize=fontsize + 1)
            ax.set_yticks(range(k), labels, fontsize=fontsize + 1)
            ax.tick_params(length=0)
            for spine in ax.spines.values():
                spine.set_visible(False)
            what = {"interval": f"row minus column ({self.unit}), "
                                f"{self.confidence:.0%} simultaneous interval",
                    "difference": f"row minus column ({self.unit})",
                    "superiority": "P(row better than column)"}[cell]
            ax.set_title(f"Pairwise effects: {what}", fontsize=fontsize + 1)
            shown = [kind for kind in MATRIX_COLOURS if kind in set(self.table["relation"])]
            # below the matrix, outside the axes (constrained layout makes room)
            ax.figure.legend([Patch(facecolor=MATRIX_COLOURS[kind][0]) for kind in shown],
                             shown, loc="outside lower center", ncols=min(4, len(shown)),
                             fontsize=fontsize, frameon=False, handlelength=1.2,
                             columnspacing=1.0, title=f"colour: relation {self.source}",
                             title_fontsize=fontsize)
        return plain_text(ax)


def _decimals(table: pd.DataFrame) -> int:
    """Decimals that show the narrowest interval's half-width to one significant digit."""
    half = ((table["upper"] - table["lower"]) / 2).to_numpy(dtype=float)
    half = half[np.isfinite(half) & (half > 0)]
    scale = float(np.min(half)) if half.size else float(np.nanmax(np.abs(table["advantage"]))
                                                            or 1.0)
    return int(min(6, max(0, -math.floor(math.log10(scale)))))


def _signed(value: float, decimals: int) -> str:
    return "NA" if not math.isfinite(value) else f"{value:+.{decimals}f}"


def _cell_text(r: Any, cell: str, decimals: int) -> str:
    if cell == "superiority":
        return "NA" if not math.isfinite(r.superiority) else f"{r.superiority:.2f}"
    text = _signed(r.advantage, decimals)
    if cell == "interval":
        text += f"\n[{_signed(r.lower, decimals)}, {_signed(r.upper, decimals)}]"
    return text


def _own_relation(advantage: tuple[float, float, float], margin: float) -> str:
    _, lower, upper = advantage
    if lower > 0:
        return "better"
    if upper < 0:
        return "worse"
    if math.isfinite(margin) and -margin < lower and upper < margin:
        return "equivalent"
    return "unsettled"


def pairwise_matrix(
    effects: PairwiseEffects,
    relations: Mapping[tuple[str, str], str] | None = None,
    *,
    order: Sequence[str] | None = None,
) -> PairwiseMatrix:
    """The matrix of a scope's pairwise effects, coloured by the given (or own) relations.

    Parameters
    ----------
    effects : PairwiseEffects
        One scope's effects (:func:`~benchverdict.effects.pairwise_effects`,
        or the report's).
    relations : mapping of (row, column) to str, optional
        The settled relation of each ordered pair (a key of
        :data:`MATRIX_COLOURS`; one order is enough, the other is mirrored).
        Default: read off the simultaneous intervals alone: ``better`` or
        ``worse`` where the interval excludes 0, ``equivalent`` where it lies
        within the margin, else ``unsettled``.
    order : sequence of str, optional
        Rows and columns; default by the number of pairs won, then by mean
        advantage.

    Returns
    -------
    PairwiseMatrix

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> from benchverdict.effects.pairwise import pairwise_effects
    >>> m = pairwise_matrix(pairwise_effects(_example_small(), estimand="these"))
    >>> m.table[["row", "column", "advantage", "relation"]].round(3).values.tolist()
    [['a', 'b', 0.15, 'better'], ['b', 'a', -0.15, 'worse']]
    """
    if not isinstance(effects, PairwiseEffects):
        raise TypeError(f"effects must be a PairwiseEffects, got {type(effects).__name__}.")
    names = list(dict.fromkeys(n for e in effects.effects for n in (e.a, e.b)))
    if not names:
        raise ValueError("effects has no pairs: nothing to draw.")
    given = _mirror(relations or {}, names)
    rows = []
    for e in effects.effects:
        for x, y in ((e.a, e.b), (e.b, e.a)):
            own = e if x == e.a else e.flipped()
            advantage = e.advantage(x)
            sup = (own.superiority, own.superiority_lower, own.superiority_upper)
            margin = e.margin_value if math.isfinite(e.margin_value) else effects.margin_value
            relation = given.get((x, y)) or _own_relation(advantage, margin)
            rows.append([x, y, *advantage, *sup, relation])
    table = pd.DataFrame(rows, columns=_COLUMNS)
    if order is None:
        wins = table[table["relation"].isin(["better", "implied better"])].groupby("row").size()
        mean = table.groupby("row")["advantage"].mean()
        order = sorted(names, key=lambda n: (-int(wins.get(n, 0)), -float(mean.get(n, 0.0)), n))
    else:
        order = [str(n) for n in order]
        if sorted(order) != sorted(names):
            raise ValueError(f"order must name each algorithm of the effects once: "
                             f"{sorted(names)}; got {order}.")
    position = {n: i for i, n in enumerate(order)}
    table = table.sort_values(["row", "column"], key=lambda s: s.map(position),
                              kind="stable").reset_index(drop=True)
    source = "as given" if relations else "read off the simultaneous intervals alone"
    return PairwiseMatrix(table, list(order), effects.unit, effects.confidence, source)


_MIRROR = {"better": "worse", "worse": "better", "implied better": "implied worse",
           "implied worse": "implied better"}


def _mirror(relations: Mapping[tuple[str, str], str], names: list[str]
            ) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for (x, y), kind in relations.items():
        if kind not in MATRIX_COLOURS:
            raise ValueError(f"relation of ({x}, {y}) is {kind!r}; use one of "
                             f"{list(MATRIX_COLOURS)}.")
        unknown = [n for n in (x, y) if n not in names]
        if unknown:
            raise ValueError(f"relations name {unknown}, which have no effects ({names}).")
        out[(x, y)] = kind
        out.setdefault((y, x), _MIRROR.get(kind, kind))
    return out
