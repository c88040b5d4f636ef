"""The shared figure theme and small helpers every module's ``.plot()`` uses.

One theme for all figures: seaborn's colour-blind-safe palette, fonts large
enough to read at a paper's column width, no chart junk, and vector output
(PDF/SVG) by default. Every algorithm keeps the same colour in every figure
of a report (:func:`algorithm_colors`).

Names are text, never markup: the theme turns matplotlib's mathtext off
(``text.parse_math``), so an algorithm called ``$x^$`` is drawn as those four
characters instead of aborting the figure, and :func:`literal_text` makes a
finished figure safe to save (mathtext off on every text, control and
bidirectional-override characters shown as visible escapes).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import seaborn as sns
from matplotlib import ticker
from matplotlib.category import StrCategoryFormatter

#: The palette: seaborn's "colorblind" (Okabe-Ito-like, safe for deuteranopia/protanopia).
PALETTE = "colorblind"
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


#: Characters a name must not carry into a figure or a document as they are: C0/C1
#: controls (NUL makes an SVG invalid XML), lone surrogates (not encodable as UTF-8),
#: line/paragraph separators, the byte-order mark and the bidirectional marks,
#: embeddings, overrides and isolates (U+202E reverses the text that follows it).
_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]"
)


def printable(text: object) -> str:
    r"""``text`` with every control, surrogate and bidi-control character made visible.

    Each such character becomes its Python escape (``\x00``, ``\u202e``), so
    what is shown is what the data hold and nothing can hide or reorder the
    text around it. Every other character is kept.

    Examples
    --------
    >>> printable("A\x00B")
    'A\\x00B'
    >>> printable("evil\u202etxt.exe"), printable("Ünïcødé $x^$")
    ('evil\\u202etxt.exe', 'Ünïcødé $x^$')
    """

    def escape(m: re.Match) -> str:
        code = ord(m.group(0))
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _UNPRINTABLE.sub(escape, str(text))


def literal_text(fig: plt.Figure) -> plt.Figure:
    r"""Make every text of ``fig`` literal: no mathtext, no invisible characters.

    The theme already turns mathtext off for texts created inside it; this
    also covers texts a plot created outside the theme. Returns ``fig``.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set_title("$x^$ \x00")
    >>> literal_text(fig).axes[0].title.get_text(), ax.title.get_parse_math()
    ('$x^$ \\x00', False)
    >>> plt.close(fig)
    """
    from matplotlib.text import Text

    for text in fig.findobj(Text):
        text.set_parse_math(False)
        raw = text.get_text()
        if isinstance(raw, str) and _UNPRINTABLE.search(raw):
            text.set_text(printable(raw))
    # Tick labels are rewritten from the axis formatter at draw time: clean them there too.
    for ax in fig.axes:
        for axis in ax._axis_map.values():
            for get, put in ((axis.get_major_formatter, axis.set_major_formatter),
                             (axis.get_minor_formatter, axis.set_minor_formatter)):
                formatter = get()
                if isinstance(formatter, _TEXT_FORMATTERS):
                    put(_PrintableFormatter(formatter))
    return fig


class _PrintableFormatter(ticker.Formatter):
    """A tick formatter whose labels pass through :func:`printable` (wraps another)."""

    def __init__(self, inner: ticker.Formatter):
        self.inner = inner

    def set_axis(self, axis) -> None:
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def __call__(self, x, pos=None) -> str:
        return printable(self.inner(x, pos))

    def format_ticks(self, values) -> list[str]:
        return [printable(label) for label in self.inner.format_ticks(values)]

    def set_locs(self, locs) -> None:
        self.inner.set_locs(locs)

    def get_offset(self) -> str:
        return printable(self.inner.get_offset())

    def format_data(self, value) -> str:
        return printable(self.inner.format_data(value))

    def format_data_short(self, value) -> str:
        return printable(self.inner.format_data_short(value))


#: Formatters whose labels can be names (fixed labels, functions, categories).
_TEXT_FORMATTERS = (ticker.FixedFormatter, ticker.FuncFormatter, StrCategoryFormatter)


def algorithm_colors(names: Sequence[str]) -> dict[str, tuple[float, float, float]]:
    """A stable colour for each algorithm: the sorted names index the palette.

    Examples
    --------
    >>> colors = algorithm_colors(["SVM", "kNN"])
    >>> colors["SVM"] == algorithm_colors(["kNN", "SVM", "RF"])["SVM"]
    False
    >>> len(colors)
    2
    """
    ordered = sorted(map(str, names))
    palette = sns.color_palette(PALETTE, n_colors=max(len(ordered), 1))
    if len(ordered) > len(sns.color_palette(PALETTE)):
        palette = sns.color_palette("husl", n_colors=len(ordered))
    return {name: palette[i] for i, name in enumerate(ordered)}


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


def save_figure(fig: plt.Figure, path: str | Path, *, formats: Sequence[str] = ("pdf",)) -> list[
    Path
]:
    """Save ``fig`` in each format (vector by default) and return the paths.

    ``path`` is used without its suffix; ``formats`` picks the files, e.g.
    ``("pdf", "svg", "png")``.

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
    literal_text(fig)
    # The theme also while drawing: matplotlib creates some tick labels at draw time.
    with plt.rc_context(RC):
        for fmt in formats:
            target = base.with_suffix(f".{fmt}")
            fig.savefig(target, format=fmt)
            out.append(target)
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
