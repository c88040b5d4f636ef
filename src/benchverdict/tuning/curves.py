"""Tuning curves with simultaneous confidence bands (Lourie, Cho & He 2024).

Everything is computed on the performance :math:`Z` (the score when
maximising, minus the score when minimising; larger is better) and mapped
back to the score, so negating every score and flipping the objective
negates a curve and swaps and negates its band, exactly. Both kinds of band
come from one simultaneous CDF band :math:`L \\le F \\le U` of :math:`Z`
(:func:`benchverdict.stats.cdf_band`):

Median (quantile) tuning curve
    The ``q``-quantile of the best performance of ``k`` draws is
    :math:`F^{-1}(p_k)` with :math:`p_k = q^{1/k}` (for a loss, ``q``
    refers to performance too: ``q = 0.9`` is the optimistic curve in
    both directions). On the band's event every quantile of :math:`F` lies
    between the quantiles of :math:`U` and :math:`L`, so
    :math:`[U^{-1}(p_k), L^{-1}(p_k)]` covers the curve **at every budget
    asked for simultaneously** with the band's probability: exactly
    ``confidence`` for the LD and KS bands with continuous scores, at least
    ``confidence`` with ties or the DKW band. Exactness needs the band to
    be calibrated for the budgets it is reported at (``calibrate``): by
    default for exactly the ``budgets`` (the integers ``1..n``), whose
    quantile levels :math:`p_k` form a finite set; a band calibrated for
    every real ``k >= 1`` covers 0.80 over all real budgets but 0.88 at the
    integers, which is as conservative as opda's whole-CDF band there. Without a finite upper
    support bound ``high``, the upper band is ``+inf`` for budgets beyond what
    the sample can vouch for (see :mod:`benchverdict.tuning.guidance`).
Mean (expected-maximum) tuning curve
    :math:`E[\\max_k]` is monotone in the stochastic order, and
    :math:`L \\le F \\le U` means the distributions with CDFs :math:`U`
    and :math:`L` are stochastically smaller and larger than :math:`F`;
    their expected maxima bound the curve for all ``k`` at once. The mass
    that :math:`L` leaves at the top sits at ``high`` and the mass :math:`U`
    puts at the bottom sits at ``low``, so **without finite bounds the mean
    band is infinite**; with them it is valid but conservative.

The point estimates are the plug-in empirical quantile (median curve) and
the V, U or W estimate (mean curve, :mod:`benchverdict.tuning.estimators`).

From an ECDF sketch (too many draws for one machine)
    :func:`tuning_curve` also takes an
    :class:`~benchverdict.stats.ecdf_sketch.ECDFSketch` (exact counts at and
    between bin edges): the median/quantile curve with the DKW band widened
    by the sketch's exact error bound, which keeps the DKW guarantee
    (:class:`~benchverdict.stats.ecdf_sketch.SketchBand`). The point is the
    midpoint of the sketch's exact bracket of the in-memory empirical
    quantile (``point_lower``, ``point_upper`` in the table). Mean curves
    and the LD/KS bands need the order statistics themselves, and are refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchverdict._plain_text import plain_text
from benchverdict._repr import ResultText
from benchverdict.results import check_objective
from benchverdict.stats.cdf_bands import METHODS, CDFBand, cdf_band
from benchverdict.stats.ecdf_sketch import ECDFSketch
from benchverdict.stats.samples import sorted_finite_scores
from benchverdict.tuning.estimators import expected_max, quantile_levels, quantile_tuning_curve

__all__ = ["KINDS", "TuningCurve", "default_budgets", "tuning_curve"]

#: Tuning-curve kinds.
KINDS = ("median", "mean", "quantile")


def kind_label(kind: str, q: float | None) -> str:
    """How to name a curve of this kind: "median", "expected" or "0.9-quantile".

    Examples
    --------
    >>> kind_label("quantile", 0.9)
    '0.9-quantile'
    """
    if kind == "quantile":
        return f"{q:g}-quantile"
    return {"median": "median", "mean": "expected"}[kind]


def default_budgets(n: int) -> np.ndarray:
    """The default budget grid: every integer from 1 to ``n``.

    Examples
    --------
    >>> default_budgets(3)
    array([1., 2., 3.])
    """
    return np.arange(1, int(n) + 1, dtype=float)


@dataclass(repr=False, frozen=True, eq=False)
class TuningCurve(ResultText):
    """A tuning curve with (optionally) a confidence band.

    Attributes
    ----------
    k : numpy.ndarray
        Budgets (number of random-search configurations).
    point : numpy.ndarray
        Point estimate at each budget.
    lower, upper : numpy.ndarray
        Band at each budget (``nan`` when no band was asked for; ``-inf`` /
        ``inf`` where the data cannot bound the curve).
    kind : {"median", "mean", "quantile"}
    q : float or None
        The quantile for ``kind="quantile"`` (0.5 for the median).
    estimator : str
        ``"empirical quantile"`` or the mean estimator (``"v"``, ``"u"``,
        ``"w"``).
    band : str or None
        The CDF-band method, ``"bootstrap"`` for percentile bootstrap bands,
        or ``None``.
    confidence : float or None
    simultaneous : bool
        Whether the band holds for all budgets at once (CDF-based bands) or
        pointwise only (bootstrap).
    objective : {"maximize", "minimize"}
    n : int
        Sample size.
    low, high : float
        Support bounds used by the band.
    cdf : CDFBand or None
        The CDF band the curve band was built from.
    name : str or None
        A label (e.g. the algorithm).
    scores : numpy.ndarray
        The sorted sample (empty for a curve from a sketch).
    calibrate : {"budgets", "curve", "cdf"}
        How the band was calibrated (see :func:`tuning_curve`).
    sketch : ECDFSketch or None
        The sketch of the draws (user's units) when the curve was built from
        one; then ``point`` is the midpoint of ``point_lower``..``point_upper``,
        the exact bracket of the in-memory point estimate.
    point_lower, point_upper : numpy.ndarray or None
        That bracket (``None`` for a curve from the draws themselves).
    """

    k: np.ndarray
    point: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    kind: str
    q: float | None
    estimator: str
    band: str | None
    confidence: float | None
    simultaneous: bool
    objective: str
    n: int
    low: float
    high: float
    scores: np.ndarray
    cdf: CDFBand | None = None
    name: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    calibrate: str = "budgets"
    sketch: ECDFSketch | None = None
    point_lower: np.ndarray | None = None
    point_upper: np.ndarray | None = None

    def _summary_lines(self) -> list[str]:
        name = f" {self.name}" if self.name else ""
        band = ("no band" if self.band is None else
                f"{self.confidence:.0%} {self.band} band, "
                f"{'simultaneous' if self.simultaneous else 'pointwise'}")
        k = f"k = {self.k.min():g}..{self.k.max():g}" if self.k.size else "no budgets"
        lines = [f"{kind_label(self.kind, self.q)} tuning curve{name}: n = {self.n}, {k}, "
                 f"{band}; {self.objective}"]
        for i in dict.fromkeys([0, self.k.size - 1]) if self.k.size else ():
            band_at = "" if self.band is None else f" [{self.lower[i]:.4g}, {self.upper[i]:.4g}]"
            lines.append(f"at k = {self.k[i]:g}: {self.point[i]:.4g}{band_at}")
        return lines

    def summary(self) -> str:
        """What the curve is, its band's guarantee and its ends, as text (also ``str``)."""
        return "\n".join([*self._summary_lines(), self.describe(), *self.notes])

    def verdicts(self) -> list:
        """An empty list: a single curve compares nothing.

        Compare two curves with :func:`benchverdict.tuning.compare_curves` (or
        :meth:`TuningCurves.verdicts`); this method is here so that every
        result object answers the same protocol.
        """
        return []

    @property
    def table(self) -> pd.DataFrame:
        """Tidy table: columns k (the budget), point, lower, upper.

        A curve from a sketch adds ``point_lower`` and ``point_upper``, the
        exact bracket of the point estimate the draws would give.
        """
        out = pd.DataFrame(
            {"k": self.k, "point": self.point, "lower": self.lower, "upper": self.upper}
        )
        if self.point_lower is not None:
            out["point_lower"], out["point_upper"] = self.point_lower, self.point_upper
        return out

    def sketch_details(self) -> dict[str, float | int]:
        """What a verdict from this curve must state about its sketch (empty without one).

        Examples
        --------
        >>> from benchverdict.stats.ecdf_sketch import sketch_of
        >>> rng = np.random.default_rng(0)
        >>> curve = tuning_curve(sketch_of(rng.uniform(size=5_000), n_bins=64), [1, 4],
        ...                      band="dkw", low=0, high=1)
        >>> sorted(curve.sketch_details())
        ['sketch_bins', 'sketch_error_bound', 'sketch_sample']
        """
        if self.sketch is None:
            return {}
        return {"sketch_bins": self.sketch.n_bins, "sketch_sample": self.sketch.sample_size,
                "sketch_error_bound": self.sketch.error_bound}

    def at_confidence(self, confidence: float) -> TuningCurve:
        """The same curve (same draws, budgets, band and calibration) at another confidence.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> curve = tuning_curve(rng.uniform(size=40), budgets=[1, 2, 4], low=0, high=1)
        >>> wide = curve.at_confidence(0.95)
        >>> bool(np.all(wide.lower <= curve.lower) and np.all(wide.upper >= curve.upper))
        True
        """
        if self.band is None or self.band == "bootstrap":
            raise ValueError("only a curve with a CDF-based band can be rebuilt at another "
                             "confidence.")
        import warnings

        with warnings.catch_warnings():  # ties were reported when the curve was built
            warnings.simplefilter("ignore", UserWarning)
            return tuning_curve(
                self.scores if self.sketch is None else self.sketch, self.k, kind=self.kind,
                band=self.band, confidence=confidence,
                low=self.low, high=self.high, objective=self.objective, q=self.q or 0.5,
                estimator=self.estimator if self.kind == "mean" else "v", name=self.name,
                calibrate=self.calibrate)

    def with_name(self, name: str) -> TuningCurve:
        """The same curve labelled ``name``."""
        from dataclasses import replace

        return replace(self, name=str(name))

    def describe(self) -> str:
        """One line saying what the curve and its band are."""
        what = kind_label(self.kind, self.q)
        best = "best" if self.objective == "maximize" else "lowest"
        text = f"{what} {best} score after k random-search trials, from n={self.n} draws"
        if self.sketch is not None:
            text += (f" (an exact-count ECDF sketch, error at most "
                     f"{self.sketch.error_bound:.2g} in the CDF, added to the band)")
        if self.band is None:
            return text + " (no band)."
        if not self.simultaneous:
            scope = "pointwise at each k"
        elif self.kind == "mean" or self.calibrate == "cdf":
            scope = "simultaneous over all k (whole-CDF band)"
        elif self.calibrate == "curve":
            scope = f"simultaneous over every real k >= {self.k.min():g}"
        else:
            scope = f"simultaneous over the {self.k.size} budget(s) k shown"
        return text + f"; {self.confidence:.0%} {self.band} band, {scope}."

    def plot(self, ax=None, *, color=None, label: str | None = None, cdf: bool = False,
             legend: bool = True):
        """Draw the curve and its band (and, with ``cdf=True``, the CDF band beside it).

        The x-axis ends where the band stops bounding the curve (beyond it
        the band is unbounded and says nothing); the y-limits follow the bulk
        of the curve, and a point beyond them is marked on the edge with its
        value (see :func:`draw_tuning_curves`). ``legend=False`` leaves the
        legend to the caller (several curves on one axes).

        Returns the Axes of the curve (with ``cdf=True`` the CDF panel is
        the other Axes of its figure, ``ax.figure.axes[1]``).

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> curve = tuning_curve(rng.uniform(size=40), band="ld_highest_density", low=0, high=1)
        >>> curve.plot().get_xlabel()
        'budget k (random-search trials)'
        """
        import matplotlib.pyplot as plt

        from benchverdict.plotting import DOUBLE_COLUMN, legend_outside, theme

        if cdf:
            if self.cdf is None:
                raise ValueError("this curve has no CDF band to draw (band was None or "
                                 "bootstrap, or the curve comes from an ECDF sketch).")
            with theme():
                fig, (ax_curve, ax_cdf) = plt.subplots(
                    1, 2, figsize=(DOUBLE_COLUMN, DOUBLE_COLUMN * 0.38)
                )
            self.plot(ax_curve, color=color, label=label, legend=False)
            self.cdf.plot(ax_cdf, color=color, label=label or self.name)
            ax_cdf.set_title("score distribution")
            if legend:  # one legend for both panels (it names the curve), right of them
                legend_outside(fig)
            plain_text(fig)
            return ax_curve
        label = label or self.name or f"{self.kind} tuning curve"
        style = None if color is None else {"color": color}
        return draw_tuning_curves({label: self}, ax=ax, styles={label: style} if style else None,
                                  legend=legend)

    def _finite_band(self, ax) -> tuple[np.ndarray, np.ndarray]:
        """Clip infinite band ends to the plotted range (they mean: unbounded)."""
        lo, hi = self.lower.copy(), self.upper.copy()
        finite = np.concatenate([self.point, lo[np.isfinite(lo)], hi[np.isfinite(hi)]])
        span = np.ptp(finite) if finite.size else 1.0
        pad = 0.1 * (span if span > 0 else 1.0)
        lo[~np.isfinite(lo)] = np.nanmin(finite) - pad
        hi[~np.isfinite(hi)] = np.nanmax(finite) + pad
        return lo, hi


#: The most budgets a drawn tuning curve has; more (10,000 for 10^4 draws) are drawn at
#: about this many, evenly spaced on the axis (see :func:`drawn_budgets`).
MAX_DRAWN_BUDGETS = 1000


def drawn_budgets(k: np.ndarray) -> np.ndarray:
    """Which of the budgets ``k`` (increasing) a figure draws: all, or about 1,000 spread out.

    Spread evenly in ``log k`` when the axis is logarithmic (budgets spanning
    more than a factor 50, as :func:`draw_tuning_curves` draws them), else evenly;
    the first and last budgets are always kept. A curve of 10,000 budgets made
    a 4.8 MB SVG per benchmark, with hundreds of points per pixel.

    Examples
    --------
    >>> drawn_budgets(np.arange(1.0, 6.0)).tolist()
    [0, 1, 2, 3, 4]
    >>> keep = drawn_budgets(np.arange(1.0, 10_001.0))
    >>> int(keep[0]), int(keep[-1]), bool(keep.size <= 1000)
    (0, 9999, True)
    """
    k = np.asarray(k, dtype=float)
    n = k.size
    if n <= MAX_DRAWN_BUDGETS:
        return np.arange(n)
    if k[0] > 0 and k[-1] / k[0] > 50:
        marks = np.geomspace(k[0], k[-1], MAX_DRAWN_BUDGETS)
    else:
        marks = np.linspace(k[0], k[-1], MAX_DRAWN_BUDGETS)
    keep = np.searchsorted(k, marks, side="left").clip(0, n - 1)
    return np.unique(np.concatenate([[0], keep, [n - 1]]))


def widened_band(lower: np.ndarray, upper: np.ndarray, keep: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """A band drawn at the budgets ``keep`` that contains the band at every budget.

    Straight lines join the drawn budgets, so each drawn lower (upper) end is
    the least (largest) over both segments it ends: the line between two drawn
    budgets then stays at or below (above) the band at every budget between.

    Examples
    --------
    >>> lo, hi = widened_band(np.array([0.0, 2.0, 1.0, 3.0]), np.array([1.0, 4.0, 2.0, 5.0]),
    ...                       np.array([0, 3]))
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.0], [5.0, 5.0])
    """
    if keep.size == lower.size:
        return lower, upper
    # Each segment's extremes, both ends included.
    seg_lo = np.minimum(np.minimum.reduceat(lower, keep)[:-1], lower[keep[1:]])
    seg_hi = np.maximum(np.maximum.reduceat(upper, keep)[:-1], upper[keep[1:]])
    lo = np.minimum(np.append(seg_lo, np.inf), np.insert(seg_lo, 0, np.inf))
    hi = np.maximum(np.append(seg_hi, -np.inf), np.insert(seg_hi, 0, -np.inf))
    return lo, hi


def bounded_budgets(curve: TuningCurve) -> np.ndarray:
    """The budgets at which ``curve``'s band bounds it on both sides (finite ends).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> curve = tuning_curve(rng.normal(size=50), band="ld_highest_density")
    >>> bool(bounded_budgets(curve).max() < curve.k.max())
    True
    """
    if curve.band is None:
        return curve.k[:0]
    finite = np.isfinite(curve.lower) & np.isfinite(curve.upper)
    return curve.k[finite]


def draw_tuning_curves(curves, ax=None, *, styles=None, legend: bool = True):
    """Draw several tuning curves with their bands on one axes, readably.

    - The x-axis runs to the largest budget at which some curve's band is
      bounded on both sides: beyond it every band is unbounded (the data
      cannot say more), so the curves there are not informative. Without
      bands, the whole range. Log-scaled (plain 1, 10, 100 labels) when the
      budgets span more than a factor 50.
    - The y-limits span the bulk of what is drawn (:func:`~benchverdict.
      plotting.robust_limits`): one extreme point (the best of a single
      draw of an erratic algorithm) no longer flattens the other curves. A
      point beyond the limits is marked on the edge with its value.
    - One legend entry per curve (line and band together), outside the data.

    Parameters
    ----------
    curves : dict
        ``{label: TuningCurve}``.
    ax : matplotlib.axes.Axes, optional
    styles : dict, optional
        ``{label: Style or dict of line keywords}``; default
        :func:`benchverdict.plotting.algorithm_styles` of the labels.
    legend : bool

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> curves = {n: tuning_curve(rng.normal(m, size=60), band="ld_highest_density")
    ...           for n, m in [("A", 0.0), ("B", 1.0)]}
    >>> ax = draw_tuning_curves(curves)
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['A', 'B']
    """
    from matplotlib.patches import Patch

    from benchverdict.plotting import (
        SINGLE_COLUMN,
        algorithm_styles,
        integer_budget_axis,
        legend_outside,
        mark_off_scale,
        new_axes,
        plain_log_axis,
        robust_limits,
        theme,
    )

    curves = {str(name): curve for name, curve in curves.items()}
    defaults = algorithm_styles(list(curves))
    # the legend sits beside the data: a wider default figure keeps the data area
    ax = new_axes(ax, width=SINGLE_COLUMN + 1.1, height=SINGLE_COLUMN * 0.75)
    bounded = [bounded_budgets(c) for c in curves.values()]
    k_all = np.concatenate([c.k for c in curves.values()]) if curves else np.array([1.0])
    k_lo = float(k_all.min())
    reach = [float(b.max()) for b in bounded if b.size]
    k_hi = max(reach) if reach else float(k_all.max())
    k_hi = max(k_hi, k_lo)
    handles = []
    colours = []
    shown = []
    with theme():
        for name, curve in curves.items():
            style = (styles or {}).get(name) or defaults[name]
            kw = dict(style.line_kw() if hasattr(style, "line_kw") else style)
            kw.setdefault("linewidth", 1.5)
            keep = drawn_budgets(curve.k)
            line = ax.plot(curve.k[keep], curve.point[keep], label=name, **kw)[0]
            colours.append(line.get_color())
            handle = [line]
            if curve.band is not None:
                lo, hi = widened_band(*curve._finite_band(ax), keep)
                ax.fill_between(curve.k[keep], lo, hi, color=line.get_color(), alpha=0.25,
                                linewidth=0)
                handle.insert(0, Patch(facecolor=line.get_color(), alpha=0.25, linewidth=0))
            handles.append(tuple(handle))
            inside = curve.k <= k_hi
            shown.append(curve.point[inside])
            for edge in (curve.lower, curve.upper):
                e = edge[inside]
                shown.append(e[np.isfinite(e)])
        first = next(iter(curves.values()), None)
        ax.set_xlabel("budget k (random-search trials)")
        if first is not None:
            ax.set_ylabel(f"{kind_label(first.kind, first.q)} best score")
        if k_hi > k_lo:
            ax.set_xlim(k_lo, k_hi)
        if k_hi / max(k_lo, 1e-12) > 50:
            plain_log_axis(ax, "x")
        integer_budget_axis(ax, k_all, "x")
        if shown:
            ax.set_ylim(*robust_limits(np.concatenate(shown)))
        labels = list(curves)
        for i, ((name, curve), colour) in enumerate(zip(curves.items(), colours)):
            inside = curve.k <= k_hi
            if legend:
                # The off-scale value goes into the curve's legend entry (outside the data),
                # not beside the edge, where labels of several curves at k = 1 collided
                # with each other and the x-axis.
                said = _off_scale(ax, curve.k[inside], curve.point[inside], colour)
                if said:
                    labels[i] = f"{name} ({said})"
            else:
                mark_off_scale(ax, curve.k[inside], curve.point[inside], color=colour,
                               label=name if len(curves) > 1 else None)
        if legend and curves:
            from matplotlib.legend_handler import HandlerTuple

            title = None
            if first is not None and first.band is not None:
                title = f"{first.confidence:.0%} band" + (
                    "" if first.simultaneous else " (pointwise)")
            legend_outside(ax, handles, labels, title=title,
                           handler_map={tuple: HandlerTuple(ndivide=1)})
    return plain_text(ax)


def _off_scale(ax, k: np.ndarray, y: np.ndarray, colour) -> str:
    """Mark a curve's points beyond the y-limits on the edge; say the extreme one in words.

    A triangle on the edge (in the curve's colour) at the most extreme point
    of each side; the text (``"0.88 at k = 1, below"``) is returned for the
    legend. Empty when the whole curve is on scale.
    """
    lo, hi = sorted(ax.get_ylim())
    finite = np.isfinite(y)
    said = []
    for side, outside, edge, marker in (("below", finite & (y < lo), lo, "v"),
                                        ("above", finite & (y > hi), hi, "^")):
        if not outside.any():
            continue
        i = int(np.flatnonzero(outside)[np.argmin(y[outside]) if side == "below"
                                        else np.argmax(y[outside])])
        ax.plot(k[i], edge, marker=marker, color=colour, markersize=5, clip_on=False,
                zorder=5, linestyle="none")
        said.append(f"{y[i]:.3g} at k = {k[i]:g}, {side}")
    return "; ".join(said)


def _mean_band(band: CDFBand, budgets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Expected best-of-k (larger is better) under the band's two extreme CDFs (module doc)."""
    y = band.scores
    lower_cdf = np.concatenate([band.lower, [1.0]])  # CDF values of F_L at y_1..y_n, high
    lower_pts = np.concatenate([y, [band.high]])
    upper_cdf = np.concatenate([band.upper, [1.0]])  # CDF values of F_U at low, y_1..y_n
    upper_pts = np.concatenate([[band.low], y])
    out_lo = np.empty(budgets.size)
    out_hi = np.empty(budgets.size)
    for j, k in enumerate(budgets):
        out_hi[j] = _expected_max(lower_pts, lower_cdf, k)
        out_lo[j] = _expected_max(upper_pts, upper_cdf, k)
    return out_lo, out_hi


def _expected_max(points: np.ndarray, cdf: np.ndarray, k: float) -> float:
    """E[max] of k draws from the discrete law with CDF ``cdf`` at ``points``."""
    prev = np.concatenate([[0.0], cdf[:-1]])
    mass = np.clip(cdf**k - prev**k, 0.0, None)
    keep = mass > 0
    pts = points[keep]
    if np.any(np.isinf(pts)):
        # Mass at an infinite support bound: the bound is infinite.
        return float(pts[np.isinf(pts)][0])
    return float(np.dot(mass[keep], pts))


def tuning_curve(
    scores,
    budgets=None,
    *,
    kind: str = "median",
    band: str | None = "ld_highest_density",
    confidence: float = 0.8,
    low: float = -np.inf,
    high: float = np.inf,
    objective: str = "maximize",
    q: float = 0.5,
    estimator: str = "v",
    name: str | None = None,
    calibrate: str = "budgets",
) -> TuningCurve:
    """A tuning curve from IID random-search scores, with a simultaneous band.

    Parameters
    ----------
    scores : array_like of float, or ECDFSketch
        One score per random-search configuration (IID draws), or the
        :class:`~benchverdict.stats.ecdf_sketch.ECDFSketch` of too many
        draws to hold (median/quantile curves with ``band="dkw"`` or no band;
        see the module docstring).
    budgets : array_like, optional
        Budgets ``k`` (random-search trials); default every integer from 1 to ``n``. Real values are
        allowed for the median/quantile curve and the V estimate.
    kind : {"median", "mean", "quantile"}
        ``"median"``: the median best score after ``k`` trials (Lourie et
        al.); ``"quantile"``: the ``q``-quantile; ``"mean"``: the expected
        best score (Dodge et al.), estimated by ``estimator``.
    band : {"ld_highest_density", "ld_equal_tailed", "ks", "dkw"} or None
        The simultaneous CDF band the curve band is built from (see
        :func:`benchverdict.stats.cdf_band`); ``None`` for no band. For
        percentile bootstrap bands use
        :func:`benchverdict.tuning.bootstrap_band`.
    confidence : float
        Simultaneous coverage of the band.
    low, high : float
        Known bounds of the score's support (e.g. 0 and 1 for accuracy).
        Needed for a finite mean band, and for a finite median band at
        large budgets.
    objective : {"maximize", "minimize"}
    q : float
        The quantile for ``kind="quantile"``.
    estimator : {"v", "u", "w"}
        Point estimate of the mean curve.
    name : str, optional
        A label (e.g. the algorithm name).
    calibrate : {"budgets", "curve", "cdf"}
        ``"budgets"`` (default): calibrate the median/quantile band for
        exactly the ``budgets`` (their levels :math:`p_k`), so it covers
        the curve at every one of the ``budgets`` simultaneously with probability
        exactly ``confidence`` (continuous scores), and says nothing about
        budgets between them. ``"curve"``: calibrate on every real budget
        ``k >= min(budgets)``; exact over all those budgets, conservative at the
        integers. ``"cdf"``: use the band for the whole CDF, as opda 0.8.0
        does; valid but conservative (the curve ignores the CDF below the
        median). Mean bands always use the whole-CDF band.

    Returns
    -------
    TuningCurve

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> curve = tuning_curve(rng.uniform(size=48), budgets=[1, 2, 4, 8], low=0, high=1)
    >>> curve.table.round(3)
         k  point  lower  upper
    0  1.0  0.512  0.423  0.613
    1  2.0  0.725  0.541  0.828
    2  4.0  0.840  0.750  0.950
    3  8.0  0.950  0.828  0.970
    """
    check_objective(objective)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}.")
    if band is not None and band not in METHODS:
        raise ValueError(
            f"band must be one of {METHODS} or None, got {band!r} (for percentile bootstrap "
            f"bands use benchverdict.tuning.bootstrap_band)."
        )
    if calibrate not in ("budgets", "curve", "cdf"):
        raise ValueError(f"calibrate must be 'budgets', 'curve' or 'cdf', got {calibrate!r}.")
    if isinstance(scores, ECDFSketch):
        return _sketch_tuning_curve(scores, budgets, kind=kind, band=band,
                                    confidence=confidence, low=float(low), high=float(high),
                                    objective=objective, q=0.5 if kind == "median" else q,
                                    name=name, calibrate=calibrate)
    y = sorted_finite_scores(scores)
    n = y.size
    budgets = (default_budgets(n) if budgets is None
               else np.atleast_1d(np.asarray(budgets, dtype=float)))
    if kind == "median":
        q = 0.5
    low, high = float(low), float(high)
    if not (low <= y[0] and y[-1] <= high):
        raise ValueError(
            f"scores must lie within [low, high] = [{low}, {high}], but they range over "
            f"[{y[0]}, {y[-1]}]; pass support bounds that contain every score."
        )
    # Everything is computed on the performance z (larger is better) and mapped back, so
    # negating the scores and flipping the objective negates the curve and its band exactly.
    maximize = objective == "maximize"
    z, z_low, z_high = (y, low, high) if maximize else (-y[::-1], -high, -low)
    levels, grid = (0.0, 1.0), None
    if kind != "mean" and calibrate == "curve" and budgets.size:
        p_first = float(quantile_levels([max(float(budgets.min()), 1e-12)], q)[0])
        levels = (p_first, 1.0)
    elif kind != "mean" and calibrate == "budgets" and budgets.size:
        # The levels of the budgets asked for (performance is larger-is-better, so the
        # same levels serve either objective).
        grid = tuple(np.asarray(quantile_levels(budgets, q), dtype=float).tolist())
    cdf_z = (cdf_band(z, confidence, band, low=z_low, high=z_high, levels=levels, grid=grid)
             if band else None)
    notes: list[str] = []
    if kind == "mean":
        point = expected_max(y, budgets, estimator, objective)
        if cdf_z is not None:
            lower_z, upper_z = _mean_band(cdf_z, budgets)
            if not (np.isfinite(low) and np.isfinite(high)):
                notes.append(
                    "mean band is infinite on the side(s) without a finite support bound "
                    "(pass low and high)"
                )
        else:
            lower_z = upper_z = np.full(budgets.size, np.nan)
        est_name = estimator
    else:
        p_levels = quantile_levels(budgets, q)
        if cdf_z is not None:
            point_z = cdf_z.quantile(p_levels)
            lower_z, upper_z = cdf_z.quantile_interval(p_levels)
        else:
            point_z = quantile_tuning_curve(z, budgets, q)
            lower_z = upper_z = np.full(budgets.size, np.nan)
        point = point_z if maximize else -np.asarray(point_z, dtype=float)
        est_name = "empirical quantile"
    lower, upper = (lower_z, upper_z) if maximize else (-np.asarray(upper_z, dtype=float),
                                                        -np.asarray(lower_z, dtype=float))
    # The CDF band in the user's units (for plots): the oriented band, mirrored when minimising.
    cdf = None if cdf_z is None else (cdf_z if maximize else cdf_z.mirrored())
    return TuningCurve(
        k=budgets, point=np.asarray(point, dtype=float), lower=np.asarray(lower, dtype=float),
        upper=np.asarray(upper, dtype=float), kind=kind,
        q=None if kind == "mean" else q, estimator=est_name, band=band,
        confidence=None if band is None else float(confidence),
        simultaneous=band is not None, objective=objective, n=n, low=low, high=high,
        scores=y, cdf=cdf, name=name, notes=tuple(notes), calibrate=calibrate,
    )


def _sketch_tuning_curve(sketch: ECDFSketch, budgets, *, kind: str, band: str | None,
                         confidence: float, low: float, high: float, objective: str, q: float,
                         name: str | None, calibrate: str) -> TuningCurve:
    """:func:`tuning_curve` from an ECDF sketch (see the module docstring)."""
    if kind == "mean":
        raise ValueError("a mean tuning curve needs every draw (its estimators weight the "
                         "order statistics); from an ECDF sketch use kind='median' or "
                         "'quantile'.")
    if band not in (None, "dkw"):
        raise ValueError(f"band {band!r} needs the order statistics themselves; from an ECDF "
                         f"sketch use band='dkw' (the DKW band widened by the sketch's error "
                         f"bound keeps its coverage) or band=None.")
    lo_edge, hi_edge = float(sketch.edges[0]), float(sketch.edges[-1])
    if not (low <= lo_edge and hi_edge <= high):
        raise ValueError(
            f"scores must lie within [low, high] = [{low}, {high}], but they range over "
            f"[{lo_edge}, {hi_edge}]; pass support bounds that contain every score.")
    ks = (default_budgets(sketch.n) if budgets is None
          else np.atleast_1d(np.asarray(budgets, dtype=float)))
    maximize = objective == "maximize"
    # On the performance z (larger is better), as for draws: mirror the sketch to minimise.
    z_sketch, z_low, z_high = (sketch, low, high) if maximize else (sketch.mirrored(), -high,
                                                                    -low)
    p = quantile_levels(ks, q)
    bracket_lo, bracket_hi = z_sketch.quantile_bounds(p)
    if band is None:
        lower_z = upper_z = np.full(ks.size, np.nan)
    else:
        lower_z, upper_z = z_sketch.band(confidence).quantile_interval(p, low=z_low, high=z_high)
    point_z = (bracket_lo + bracket_hi) / 2

    def user(z: np.ndarray) -> np.ndarray:
        return np.asarray(z, dtype=float) if maximize else -np.asarray(z, dtype=float)

    lower, upper = (user(lower_z), user(upper_z)) if maximize else (user(upper_z),
                                                                    user(lower_z))
    point_lower, point_upper = ((user(bracket_lo), user(bracket_hi)) if maximize
                                else (user(bracket_hi), user(bracket_lo)))
    return TuningCurve(
        k=ks, point=user(point_z), lower=lower, upper=upper, kind=kind, q=q,
        estimator="empirical quantile", band=band,
        confidence=None if band is None else float(confidence), simultaneous=band is not None,
        objective=objective, n=int(sketch.n), low=low, high=high, scores=np.array([]),
        cdf=None, name=name, calibrate="cdf" if band is not None else calibrate,
        sketch=sketch, point_lower=point_lower, point_upper=point_upper)
