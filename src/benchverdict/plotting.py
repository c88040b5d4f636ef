"""The shared figure theme and small helpers every module's ``.plot()`` uses.

One theme for all figures: seaborn's colour-blind-safe palette, fonts large
enough to read at a paper's column width, no chart junk, and vector output
(PDF/SVG) by default. Every algorithm keeps the same colour in every figure
of a report (:func:`algorithm_colors`).

Names are text, never markup: the theme turns matplotlib's mathtext off
(``text.parse_math``), so an algorithm called ``$x^$`` is drawn as those four
characters instead of aborting the figure, and
:func:`~benchverdict._plain_text.plain_text` makes a finished figure safe to
save (mathtext off on every text, control and bidirectional-override
characters shown as visible escapes).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import seaborn as sns

from benchverdict._plain_text import plain_text

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
    plain_text(fig)
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
