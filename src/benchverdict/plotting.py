"""The shared figure theme and small helpers every module's ``.plot()`` uses.

One theme for all figures: a colour-blind-safe palette whose colours stay
apart under deuteranopia and protanopia (:data:`ALGORITHM_PALETTE`), fonts
of at least 8 pt at the figure's printed size, no chart junk, and vector
output (PDF/SVG) by default. Every algorithm keeps the same colour and line
style in every figure of a report (:func:`algorithm_styles`); legends go
outside the data (:func:`legend_outside`); axis limits follow the bulk of
the data, not one extreme point (:func:`robust_limits`).

Names are text, never markup: the theme turns matplotlib's mathtext off
(``text.parse_math``), so an algorithm called ``$x^$`` is drawn as those four
characters instead of aborting the figure, and
:func:`~benchverdict._plain_text.plain_text` makes a finished figure safe to
save (mathtext off on every text, control and bidirectional-override
characters shown as visible escapes).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.layout_engine import PlaceHolderLayoutEngine

from benchverdict._plain_text import plain_text

#: Ten algorithm colours, chosen so that every pair differs by a CIEDE2000 of at least
#: :data:`MIN_COLOUR_DIFFERENCE` under normal vision and simulated deuteranopia and
#: protanopia (Machado et al. 2009; see :mod:`benchverdict._colour`), with lightness
#: 30-75 so that lines stay visible on white. Ordered so that the first few are the most
#: distinct (2: blue and orange). Found by a max-min search over the sRGB cube.
#: seaborn's "colorblind" palette, used before, reaches only 9.0 between its 2nd and 4th
#: colours under deuteranopia (orange and vermillion).
ALGORITHM_PALETTE = (
    "#0021DE", "#F4A600", "#900B21", "#2CC8F4", "#6FC8B1",
    "#6F3759", "#217AFF", "#219064", "#9B6F90", "#DE2C00",
)
#: The smallest CIEDE2000 difference between two palette colours under any of
#: normal vision, deuteranopia and protanopia (the palette reaches 18.3).
MIN_COLOUR_DIFFERENCE = 18.0
#: Beyond the palette's ten colours, algorithms sharing a colour get another line style
#: (and beyond forty, a marker), so every algorithm's (colour, style) is unique.
LINE_STYLES: tuple[Any, ...] = ("-", (0, (5, 2)), (0, (1, 1.3)), (0, (6, 1.5, 1, 1.5)))
MARKERS: tuple[str | None, ...] = (None, "o", "s", "^", "D", "v", "P", "X")
#: The theme's default colour cycle (the algorithm palette).
PALETTE = list(ALGORITHM_PALETTE)
#: Figure widths in inches for a single and a double column of a two-column paper.
SINGLE_COLUMN = 3.5
DOUBLE_COLUMN = 7.0

RC = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "savefig.bbox": "tight",
    "savefig.dpi": 200,
    "pdf.fonttype": 42,  # embed TrueType: editable text, accepted by publishers
    "ps.fonttype": 42,
    "svg.fonttype": "none",  # keep text as text in SVG
    "figure.constrained_layout.use": True,
    # Names are text: "$" in an algorithm or benchmark name must not start mathtext.
    "text.parse_math": False,
}

@contextlib.contextmanager
def theme() -> Iterator[None]:
    """Apply benchverdict's figure theme inside a ``with`` block.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> with theme():
    ...     fig, ax = plt.subplots()
    >>> plt.close(fig)
    """
    with sns.axes_style("ticks"), sns.plotting_context("paper"), plt.rc_context(RC):
        with sns.color_palette(PALETTE):
            yield


class Style(NamedTuple):
    """How one algorithm is drawn: colour, line style and marker (``None``: no marker)."""

    color: tuple[float, float, float]
    linestyle: Any
    marker: str | None

    def line_kw(self) -> dict[str, Any]:
        """Keyword arguments for ``ax.plot`` (the marker every few points, if any)."""
        kw: dict[str, Any] = {"color": self.color, "linestyle": self.linestyle}
        if self.marker is not None:
            kw.update(marker=self.marker, markevery=0.1, markersize=3.5)
        return kw


def algorithm_styles(names: Sequence[str]) -> dict[str, Style]:
    """A stable colour and line style for each algorithm: the sorted names index them.

    Up to ten algorithms get ten distinct colours (:data:`ALGORITHM_PALETTE`) and
    solid lines. Beyond ten, the colours repeat with another line style (then
    a marker), so that two algorithms never share both.

    Examples
    --------
    >>> styles = algorithm_styles([f"alg{i:02d}" for i in range(12)])
    >>> styles["alg00"].color == styles["alg10"].color, styles["alg10"].linestyle != "-"
    (True, True)
    >>> len(set(styles.values()))
    12
    """
    from matplotlib.colors import to_rgb

    ordered = sorted(dict.fromkeys(map(str, names)))
    n_colours = len(ALGORITHM_PALETTE)
    out = {}
    for i, name in enumerate(ordered):
        cycle = i // n_colours
        out[name] = Style(
            to_rgb(ALGORITHM_PALETTE[i % n_colours]),
            LINE_STYLES[cycle % len(LINE_STYLES)],
            MARKERS[(cycle // len(LINE_STYLES)) % len(MARKERS)],
        )
    return out


def algorithm_colors(names: Sequence[str]) -> dict[str, tuple[float, float, float]]:
    """A stable colour for each algorithm: the sorted names index the palette.

    The colours of :func:`algorithm_styles`; with more than ten algorithms
    colours repeat, so draw lines with the full style.

    Examples
    --------
    >>> colors = algorithm_colors(["SVM", "kNN"])
    >>> colors["SVM"] == algorithm_colors(["kNN", "SVM", "RF"])["SVM"]
    False
    >>> len(colors)
    2
    """
    return {name: style.color for name, style in algorithm_styles(names).items()}


def legend_outside(where: plt.Axes | plt.Figure, handles: Sequence[Any] | None = None,
                   labels: Sequence[str] | None = None, **kwargs: Any) -> Any:
    """A legend to the right of the data, never on it.

    For an Axes, the legend sits right of its data area (constrained layout
    makes room); for a Figure of several panels, right of all of them.

    Examples
    --------
    >>> ax = new_axes()
    >>> _ = ax.plot([0, 1], [0, 1], label="A")
    >>> legend = legend_outside(ax)
    >>> ax.figure.canvas.draw()
    >>> bool(legend.get_window_extent().x0 >= ax.get_window_extent().x1)
    True
    >>> plt.close(ax.figure)
    """
    if handles is None:
        axes = where.axes if isinstance(where, plt.Figure) else [where]
        found: dict[str, Any] = {}
        for ax in axes:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                found.setdefault(label, handle)
        labels, handles = list(found), list(found.values())
    kwargs.setdefault("frameon", False)
    if isinstance(where, plt.Figure):
        return where.legend(handles, labels, loc="outside right upper", **kwargs)
    return where.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                        borderaxespad=0.0, **kwargs)


def robust_limits(values: Any, *, trim: float = 0.01, pad: float = 0.05,
                  max_stretch: float = 1.5) -> tuple[float, float]:
    """Axis limits that follow the bulk of ``values``, not one extreme point.

    The limits span the ``trim`` and ``1 - trim`` quantiles of the finite
    values, padded by ``pad`` of that span. When the full range is at most
    ``max_stretch`` times wider, the full range is used instead (then
    nothing is cut off for a small gain). At most ``2 * trim`` of the values
    fall outside.

    Examples
    --------
    >>> values = np.r_[np.linspace(0.9, 1.0, 200), 0.1]   # one extreme point
    >>> [round(v, 3) for v in robust_limits(values)]
    [0.896, 1.004]
    >>> [round(v, 3) for v in robust_limits([0.0, 0.5, 1.0])]
    [-0.05, 1.05]
    """
    finite = np.asarray(values, dtype=float).ravel()
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return 0.0, 1.0
    full_lo, full_hi = float(finite.min()), float(finite.max())
    lo, hi = (float(v) for v in np.quantile(finite, [trim, 1 - trim]))
    if (full_hi - full_lo) <= max_stretch * (hi - lo) or hi <= lo:
        lo, hi = full_lo, full_hi
    span = hi - lo if hi > lo else max(abs(hi), 1.0)
    return lo - pad * span, hi + pad * span


def mark_off_scale(ax: plt.Axes, x: Any, y: Any, *, color: Any, label: str | None = None,
                   axis: str = "y", fmt: str = "{:.3g}") -> int:
    """Mark the points of a line that lie beyond the axis limits, at the edge they cross.

    For each side, the most extreme point gets a small triangle on the edge
    (in the line's colour) and its value (after ``label``, if given) beside
    it, so a curve cut off by :func:`robust_limits` is never silently
    hidden. Labels of several lines on the same edge are stacked, never
    drawn over each other. Returns how many points are off scale.

    Examples
    --------
    >>> ax = new_axes()
    >>> _ = ax.plot([1, 2, 3], [0.1, 0.9, 1.0])
    >>> _ = ax.set_ylim(0.8, 1.05)
    >>> mark_off_scale(ax, [1, 2, 3], [0.1, 0.9, 1.0], color="k", label="A")
    1
    >>> ax.texts[-1].get_text()
    'A: 0.1'
    >>> plt.close(ax.figure)
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    lo, hi = ax.get_ylim() if axis == "y" else ax.get_xlim()
    lo, hi = min(lo, hi), max(lo, hi)
    values = y if axis == "y" else x
    stacked = ax.__dict__.setdefault("_benchverdict_off_scale", {"low": 0, "high": 0})
    count = 0
    for side, outside, edge, marker in (("low", values < lo, lo, "v" if axis == "y" else "<"),
                                        ("high", values > hi, hi, "^" if axis == "y" else ">")):
        if not outside.any():
            continue
        count += int(outside.sum())
        i = int(np.argmin(values) if side == "low" else np.argmax(values))
        at = (x[i], edge) if axis == "y" else (edge, y[i])
        ax.plot(*at, marker=marker, color=color, markersize=5, clip_on=False, zorder=5,
                linestyle="none")
        step = 10 * stacked[side]
        stacked[side] += 1
        text = fmt.format(values[i]) if label is None else f"{label}: {fmt.format(values[i])}"
        offset = (4, 3 + step) if side == "low" else (4, -3 - step)
        if axis == "x":
            offset = (4 + 0 * step, 3 + step) if side == "low" else (-4, 3 + step)
        ax.annotate(text, at, xytext=offset, textcoords="offset points", fontsize=8,
                    color=color, va="bottom" if side == "low" else "top",
                    ha="left" if side == "low" or axis == "y" else "right",
                    annotation_clip=False,
                    bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 0.4})
    return count


def plain_log_axis(ax: plt.Axes, axis: str = "x") -> None:
    """A log-scaled axis whose tick labels are plain numbers (1, 10, 100), not mathtext.

    The theme turns mathtext off (names are text), which would print
    matplotlib's default log labels as ``$\\mathdefault{10^{1}}$``.

    Examples
    --------
    >>> ax = new_axes()
    >>> _ = ax.plot([1, 1000], [0, 1])
    >>> plain_log_axis(ax)
    >>> ax.figure.canvas.draw()
    >>> [t.get_text() for t in ax.get_xticklabels() if t.get_text()][1:4]
    ['1', '10', '100']
    >>> plt.close(ax.figure)
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    lo, hi = (ax.get_xlim() if axis == "x" else ax.get_ylim())
    decades = np.log10(max(hi, 1e-300) / max(lo, 1e-300)) if lo > 0 else np.inf
    # within two decades label 1, 2, 5, 10, 20, 50 (two labels only would be hard to read)
    subs = (1.0, 2.0, 5.0) if decades <= 2.5 else (1.0,)
    target.set_major_locator(LogLocator(base=10, subs=subs))
    target.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    target.set_minor_formatter(NullFormatter())


def new_axes(ax: plt.Axes | None = None, *, width: float = SINGLE_COLUMN,
             height: float | None = None) -> plt.Axes:
    """Return ``ax``, or a fresh themed axes of the given size.

    Examples
    --------
    >>> ax = new_axes()
    >>> float(round(ax.figure.get_figwidth(), 1))
    3.5
    >>> plt.close(ax.figure)
    """
    if ax is not None:
        return ax
    with theme():
        _, ax = plt.subplots(figsize=(width, height or width * 0.75))
    return ax


def freeze_layout(fig: plt.Figure) -> None:
    """Keep ``fig``'s current axes positions: no layout engine runs at its next draws.

    Call it after a draw has laid the figure out (a ``savefig``): saving it
    again in another vector format then skips the constrained-layout solve,
    which is most of the time of drawing a small figure.

    Examples
    --------
    >>> import io
    >>> fig, ax = plt.subplots(layout="constrained")
    >>> fig.savefig(io.BytesIO(), format="svg")
    >>> before = ax.get_position().bounds
    >>> freeze_layout(fig)
    >>> fig.savefig(io.BytesIO(), format="pdf")
    >>> ax.get_position().bounds == before, type(fig.get_layout_engine()).__name__
    (True, 'PlaceHolderLayoutEngine')
    >>> plt.close(fig)
    """
    fig.set_layout_engine("none")


#: Formats whose backends measure text alike (in points): one tight box crops them all.
VECTOR_FORMATS = frozenset({"pdf", "svg", "eps", "ps"})


def save_tight(fig: plt.Figure, target: Any, fmt: str) -> Any:
    """Save ``fig`` as ``fmt`` cropped to its tight bounding box; return that box (inches).

    The box is the one matplotlib computed for this file, padded as it padded it. Pass
    it as ``bbox_inches`` to later saves of the same (laid-out, frozen) figure in
    another vector format: they then skip matplotlib's dry-run draw and bounding-box
    search, and are cropped exactly alike (the vector backends measure text alike).

    Examples
    --------
    >>> import io
    >>> fig, ax = plt.subplots()
    >>> box = save_tight(fig, io.BytesIO(), "svg")
    >>> bool(0 < box.width < fig.get_figwidth())
    True
    >>> plt.close(fig)
    """
    import matplotlib as mpl

    boxes = []
    measure = fig.get_tightbbox

    def capture(*args: Any, **kwargs: Any) -> Any:
        box = measure(*args, **kwargs)
        boxes.append(box)
        return box

    fig.get_tightbbox = capture  # type: ignore[method-assign]  # on this figure only
    try:
        fig.savefig(target, format=fmt, bbox_inches="tight", pad_inches=None)
    finally:
        del fig.get_tightbbox
    pad = mpl.rcParams["savefig.pad_inches"]
    return boxes[-1].padded(pad) if boxes else None


#: Every PDF font subset that :func:`shared_font_subsets` makes holds these characters
#: (printable ASCII and the few symbols figures print), so most figures reuse one subset.
SUBSET_BASE_CHARACTERS = "".join(map(chr, range(0x20, 0x7F))) + (
    "\u2212\u2013\u2014\u2026\u00b7\u00d7\u00b1\u2264\u2265\u00b0\u00b5\u00b2")
#: (font file, face) -> (glyph ids held, the subset font's bytes, glyph id -> subset id).
_FONT_SUBSETS: dict[tuple[str, int], tuple[frozenset[int], bytes, dict[int, int]]] = {}


@contextlib.contextmanager
def shared_font_subsets() -> Iterator[None]:
    """Inside the block, PDF files embed one cached subset per font instead of a new one each.

    matplotlib embeds each TrueType font of a PDF (Type 42, as :data:`RC` asks:
    what publishers accept) as a subset holding only the glyphs that file uses,
    made by fontTools for every file anew: about 75 ms for DejaVu Sans, as
    long as drawing a small figure. Here a subset of each font holds the glyphs
    the files asked for so far plus :data:`SUBSET_BASE_CHARACTERS`; a file whose
    glyphs it holds embeds it as it is (a few kB larger than its own subset), a
    file that needs another glyph makes a larger one, which is kept instead. The
    fonts stay embedded, subset and Type 42; text stays text.

    With a matplotlib whose subsetting function this does not know (before
    3.11), the block changes nothing.

    Examples
    --------
    >>> import io
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set_title("A title")
    >>> with shared_font_subsets():
    ...     fig.savefig(io.BytesIO(), format="pdf")
    >>> plt.close(fig)
    """
    try:
        from matplotlib.backends import _backend_pdf_ps as pdf_ps

        original = pdf_ps.get_glyphs_subset
        results = pdf_ps.SubsetResults
        results._as_cm  # noqa: B018  # the 3.11 interface (glyph ids in, glyph map out)
        font_as_file = pdf_ps.font_as_file
    except (ImportError, AttributeError):
        yield
        return
    if getattr(original, "shared", False):  # already inside such a block
        yield
        return

    def get_glyphs_subset(fontfile: Any, glyphs: Any) -> Any:
        try:
            return shared(fontfile, glyphs)
        except Exception:  # a matplotlib whose private interface moved: its own subset
            return original(fontfile, glyphs)

    def shared(fontfile: Any, glyphs: Any) -> Any:
        from fontTools.ttLib import TTFont
        from matplotlib.font_manager import get_font

        wanted = {int(g) for g in glyphs}
        key = (str(fontfile), int(getattr(fontfile, "face_index", 0)))
        held = _FONT_SUBSETS.get(key)
        if held is None or not wanted <= held[0]:
            if held is None:
                font = get_font(fontfile)
                wanted |= {font.get_char_index(ord(c)) for c in SUBSET_BASE_CHARACTERS}
            else:
                wanted |= held[0]
            with original(fontfile, wanted) as made:
                held = (frozenset(wanted), font_as_file(made.font).getvalue(),
                        {int(k): int(v) for k, v in made.glyph_index_map.items()})
            _FONT_SUBSETS[key] = held
        return results(TTFont(io.BytesIO(held[1])), dict(held[2]))._as_cm()

    get_glyphs_subset.shared = True  # type: ignore[attr-defined]
    pdf_ps.get_glyphs_subset = get_glyphs_subset
    try:
        yield
    finally:
        pdf_ps.get_glyphs_subset = original


def _save_laid_out(fig: plt.Figure, target: Any, fmt: str, bbox_inches: Any) -> None:
    """Save a laid-out figure (layout frozen) cropped to ``bbox_inches``: one draw.

    While a figure has any layout engine (also the ``PlaceHolderLayoutEngine``
    that :func:`freeze_layout` sets to keep a computed layout), matplotlib draws
    it once without output before drawing it into the file. A frozen figure has
    nothing left to lay out and its box is known, so the engine is taken off for
    the save and put back after it.
    """
    engine = fig.get_layout_engine()
    if engine is not None and not isinstance(engine, PlaceHolderLayoutEngine):
        # Not frozen: matplotlib lays it out again, and the box may no longer fit it.
        fig.savefig(target, format=fmt, bbox_inches="tight")
        return
    with plt.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
        fig.set_layout_engine(None)  # no engine at all (the rc says none)
    try:
        fig.savefig(target, format=fmt, bbox_inches=bbox_inches)
    finally:
        if engine is not None:
            fig.set_layout_engine(engine)


def save_figure(fig: plt.Figure, path: str | Path, *, formats: Sequence[str] = ("pdf",),
                bbox_inches: Any = None) -> list[Path]:
    """Save ``fig`` in each format (vector by default) and return the paths.

    ``path`` is used without its suffix; ``formats`` picks the files, e.g.
    ``("pdf", "svg", "png")``. Every file is cropped to the figure's tight
    bounding box: the first vector file computes it (and the layout), the other
    vector files reuse both. ``bbox_inches`` is a box already computed for this figure (by
    :func:`save_tight`, with its layout frozen): every file then reuses it.

    Examples
    --------
    >>> import tempfile, os
    >>> fig, ax = plt.subplots()
    >>> d = tempfile.mkdtemp()
    >>> [p.suffix for p in save_figure(fig, os.path.join(d, "f"), formats=("svg", "png"))]
    ['.svg', '.png']
    >>> plt.close(fig)
    """
    base = Path(path)
    base = base.with_suffix("") if base.suffix in {".pdf", ".svg", ".png"} else base
    base.parent.mkdir(parents=True, exist_ok=True)
    out = []
    plain_text(fig)
    # The theme also while drawing: matplotlib creates some tick labels at draw time.
    engine = fig.get_layout_engine()
    with plt.rc_context(RC), shared_font_subsets():
        for i, fmt in enumerate(formats):
            target = base.with_suffix(f".{fmt}")
            if fmt in VECTOR_FORMATS and bbox_inches is not None:
                _save_laid_out(fig, target, fmt, bbox_inches)
            elif fmt in VECTOR_FORMATS and len(formats) > 1:
                bbox_inches = save_tight(fig, target, fmt)
            else:  # a raster file is cropped by its own (pixel) text metrics
                fig.savefig(target, format=fmt)
            out.append(target)
            if i == 0 and len(formats) > 1 and engine is not None:
                freeze_layout(fig)  # one layout for every format
    if len(formats) > 1 and engine is not None:
        fig.set_layout_engine(engine)  # the caller's figure keeps its engine
    return out


def shorten(label: str, width: int = 28) -> str:
    """Shorten a long label for an axis, keeping its start and end.

    Examples
    --------
    >>> shorten("a_very_long_algorithm_name_with_many_parts", 20)
    'a_very_lon…any_parts'
    """
    label = str(label)
    if len(label) <= width:
        return label
    keep = width - 1
    return label[: keep - keep // 2] + "…" + label[-(keep // 2):]


def label_inches(n_chars: int, fontsize: float = 9.0) -> float:
    """About how wide a label of ``n_chars`` characters is, in inches, before it is drawn.

    DejaVu Sans averages 0.6 em per character: enough to size a figure for its
    longest label (tick labels are 9 pt).

    Examples
    --------
    >>> label_inches(10)
    0.75
    """
    return 0.6 * n_chars * fontsize / 72.0


# ----------------------------------------------------------------------------- readability
#: The widest figure (inches) whose 8 pt text still reads at 9 pt or more in the HTML report
#: (shown at 110 px per inch up to 1100 px, see :mod:`benchverdict.report.html`).
REPORT_MAX_WIDTH = 10.0
#: The smallest text a figure may print, at its drawn size (points).
MIN_FONT_SIZE = 8.0


class TextBox(NamedTuple):
    """One drawn text: what it says, its size on the page (points) and its corners (px)."""

    text: str
    page_points: float
    corners: np.ndarray


def drawn_texts(fig: plt.Figure, *, px_per_inch: float = 110.0, min_px: float = 700.0,
                max_px: float = 1100.0, page_px: float = 1132.0) -> list[TextBox]:
    """Every visible, non-empty text of ``fig`` with its size as a reader of the page sees it.

    A figure ``W`` inches wide is shown ``P = min(page_px, clip(W * px_per_inch,
    min_px, max_px))`` CSS pixels wide (the HTML report's rule); its
    tight bounding box (``W_t`` inches) fills that width, so a text of ``s``
    points reads as ``s * P / (96 W_t)`` points (96 CSS px per inch). The
    corners are the text's (rotated) rectangle in display pixels.

    Examples
    --------
    >>> ax = new_axes(width=7.0)
    >>> _ = ax.set_title("A title", fontsize=10)
    >>> [round(t.page_points, 1) for t in drawn_texts(ax.figure) if t.text == "A title"]
    [11.7]
    >>> plt.close(ax.figure)
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    with plt.rc_context(RC):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        tight = fig.get_tightbbox(renderer).width
        shown = min(page_px, min(max_px, max(min_px, fig.get_figwidth() * px_per_inch)))
        scale = shown / (96.0 * tight)
        hidden = _undrawn_axis_texts(fig)
        out = []
        for t in fig.findobj(Text):
            if not (t.get_visible() and t.get_text().strip()) or id(t) in hidden:
                continue
            box = t.get_window_extent(renderer)
            angle = np.deg2rad(t.get_rotation())
            if angle % np.pi:
                rotation = t.get_rotation()
                t.set_rotation(0)
                flat = t.get_window_extent(renderer)
                t.set_rotation(rotation)
                w, h = flat.width, flat.height
            else:
                w, h = box.width, box.height
            c, s = np.cos(angle), np.sin(angle)
            half = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2.0
            corners = half @ np.array([[c, s], [-s, c]]) + [(box.x0 + box.x1) / 2,
                                                            (box.y0 + box.y1) / 2]
            out.append(TextBox(t.get_text(), float(t.get_fontsize() * scale), corners))
    return out


def _undrawn_axis_texts(fig: plt.Figure) -> set[int]:
    """Texts matplotlib keeps but does not draw: the axes' of a hidden axis, ticks off view."""
    from matplotlib.text import Text

    hidden: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if not (ax.axison and axis.get_visible() and ax.get_visible()):
                hidden |= {id(t) for t in axis.findobj(Text)}
                continue
            ticks = axis.get_major_ticks() + axis.get_minor_ticks()
            every = {id(t) for tick in ticks for t in (tick.label1, tick.label2)}
            drawn = {id(t) for tick in axis._update_ticks() for t in (tick.label1, tick.label2)}
            hidden |= every - drawn
    return hidden


def overlapping_texts(boxes: Sequence[TextBox], *, tolerance: float = 1.0
                      ) -> list[tuple[str, str]]:
    """Pairs of texts whose (rotated) rectangles overlap by more than ``tolerance`` px.

    Separating-axis test on the rectangles of :func:`drawn_texts`.

    Examples
    --------
    >>> box = lambda x: TextBox("t", 9.0, np.array([[x, 0], [x + 10, 0], [x + 10, 5], [x, 5]]))
    >>> overlapping_texts([box(0), box(5), box(30)])
    [('t', 't')]
    """
    out = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            if _rectangles_overlap(boxes[i].corners, boxes[j].corners, tolerance):
                out.append((boxes[i].text, boxes[j].text))
    return out


def _rectangles_overlap(a: np.ndarray, b: np.ndarray, tolerance: float) -> bool:
    if (a[:, 0].max() <= b[:, 0].min() + tolerance or b[:, 0].max() <= a[:, 0].min() + tolerance
            or a[:, 1].max() <= b[:, 1].min() + tolerance
            or b[:, 1].max() <= a[:, 1].min() + tolerance):
        return False
    for rect in (a, b):
        for k in range(2):
            edge = rect[k + 1] - rect[k]
            norm = np.hypot(*edge)
            if norm == 0:
                return False
            axis = np.array([-edge[1], edge[0]]) / norm
            pa, pb = a @ axis, b @ axis
            if pa.max() <= pb.min() + tolerance or pb.max() <= pa.min() + tolerance:
                return False
    return True


def integer_budget_axis(ax, budgets, axis: str = "x") -> bool:
    """Integer ticks on a budget axis whose budgets are all whole numbers.

    Trials, iterations and epochs are counted: ticks at 2.5, 5.0 or 7.5 would
    name budgets that do not exist. On a linear axis the ticks are integers
    (:class:`~matplotlib.ticker.MaxNLocator` with ``integer=True``); on a log
    axis the current locator's ticks are kept where they are whole numbers
    (1, 2, 5, 10, ...). Labels are plain (``"5"``, not ``"5.0"``). Budgets
    that are not all whole numbers leave the axis as it is.

    Returns whether the axis was made an integer axis.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], range(10))
    >>> integer_budget_axis(ax, range(1, 11))
    True
    >>> fig.canvas.draw()
    >>> all(float(t.get_text()).is_integer() for t in ax.get_xticklabels() if t.get_text())
    True
    >>> plt.close(fig)
    """
    from matplotlib.ticker import FuncFormatter, Locator, MaxNLocator

    values = np.asarray(list(budgets), dtype=float)
    values = values[np.isfinite(values)]
    if not values.size or not np.all(values == np.round(values)):
        return False
    target = ax.xaxis if axis == "x" else ax.yaxis
    if target.get_scale() == "log":
        inner = target.get_major_locator()

        class _WholeTicks(Locator):
            def __call__(self):
                return self.tick_values(*target.get_view_interval())

            def tick_values(self, vmin, vmax):
                ticks = np.asarray(inner.tick_values(vmin, vmax), dtype=float)
                return ticks[(ticks >= 1) & np.isclose(ticks, np.round(ticks))]

        target.set_major_locator(_WholeTicks())
    else:
        target.set_major_locator(MaxNLocator(integer=True))
    target.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    return True
