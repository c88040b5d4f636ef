"""Names are text, never markup, in figures and file names.

Algorithm and benchmark names can hold ``$`` (``"$5 model"``, ``"a$b$c"``),
which matplotlib would parse as mathtext (and abort on anything it cannot
parse), and, when validation was bypassed, control or bidirectional-override
characters (a NUL makes an SVG invalid XML; U+202E reverses the text after
it). Every ``.plot()`` of the analysis modules and every saved figure goes
through :func:`plain_text`; every file named after a name gets
:func:`file_stem`. Nothing here imports matplotlib at import time, so the
analysis modules can import it freely.
"""

from __future__ import annotations

import hashlib
import re
from typing import TypeVar

T = TypeVar("T")

__all__ = ["file_stem", "plain_text", "printable", "set_lines"]

#: Attribute marking a Text whose line breaks are layout, set by :func:`set_lines`.
_LINES_MARK = "_benchverdict_lines"

#: Characters a name must not carry into a figure or a document as they are: C0/C1
#: controls, lone surrogates (not encodable as UTF-8), line/paragraph separators, the
#: byte-order mark and the bidirectional marks, embeddings, overrides and isolates.
_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u2028-\u202e"
    "\u2066-\u2069\ufeff]"
)
#: A name used unchanged as a file name: lower-case ASCII letters, digits and "-".
_PLAIN_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,79}")
#: Longest readable part of a file name built from a name that is not plain.
_SLUG_LENGTH = 48


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


def file_stem(name: str) -> str:
    """A file-name-safe, unique and stable stem for a name (also a valid LaTeX label).

    A plain name (lower-case ASCII letters, digits and ``-``, at most 80
    characters) is used as it is. Any other name becomes a readable slug of
    it (lower case, every run of other characters replaced by ``_``, at most
    48 characters) plus the first 10 hex digits of the SHA-256 of the exact
    name, so names that differ only in characters the slug drops (``a b``,
    ``a_b``, ``a/b``, ``A_B``) get different files, also on case-insensitive
    file systems. The result depends on the name alone: the same in every
    run and for any row order.

    Examples
    --------
    >>> file_stem("ranks-cd-nemenyi")
    'ranks-cd-nemenyi'
    >>> [file_stem(n)[:10] for n in ("tuning-a b", "tuning-a_b", "tuning-a/b")]
    ['tuning-a_b', 'tuning-a_b', 'tuning-a_b']
    >>> len({file_stem(n) for n in ("tuning-a b", "tuning-a_b", "tuning-a/b")})
    3
    """
    name = str(name)
    if _PLAIN_NAME.fullmatch(name):
        return name
    slug = re.sub(r"[^a-z0-9-]+", "_", name.lower()).strip("_-")[:_SLUG_LENGTH].strip("_-")
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{slug or 'figure'}-{digest}"


def plain_text(drawn: T) -> T:
    r"""Make every text of ``drawn`` (an Axes or a Figure) literal; return ``drawn``.

    Mathtext is switched off on every text of the whole figure, control and
    bidirectional characters are shown as visible escapes (:func:`printable`),
    and tick labels, which matplotlib rebuilds from the axis formatter while
    drawing, pass through :func:`printable` too.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set_title("cost in $ per $k$ \x00")
    >>> plain_text(ax).title.get_parse_math(), ax.title.get_text()
    (False, 'cost in $ per $k$ \\x00')
    >>> plt.close(fig)
    """
    from matplotlib.text import Text  # here: importing an analysis module must not need it

    figure = getattr(drawn, "figure", None) or drawn
    root = getattr(figure, "get_figure", lambda **_: figure)(root=True) or figure
    for text in root.findobj(Text):
        text.set_parse_math(False)
        raw = text.get_text()
        if getattr(text, _LINES_MARK, None) == raw:
            continue  # its lines were made printable one by one (set_lines)
        if isinstance(raw, str) and _UNPRINTABLE.search(raw):
            text.set_text(printable(raw))
    for ax in getattr(root, "axes", []):
        for axis in ax._axis_map.values():
            for get, put in ((axis.get_major_formatter, axis.set_major_formatter),
                             (axis.get_minor_formatter, axis.set_minor_formatter)):
                formatter = get()
                if _is_text_formatter(formatter):
                    put(_printable_formatter(formatter))
    return drawn


def set_lines(text: T, lines: list[str]) -> T:
    r"""Set a matplotlib Text to ``lines``, one per line: each made printable, then joined.

    The line breaks are layout (a wrapped title), so :func:`plain_text` keeps
    them; a line break inside a name is still shown as ``\x0a``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> title = set_lines(ax.title, ["first", "a\nb"])
    >>> plain_text(ax).title.get_text()
    'first\na\\x0ab'
    >>> plt.close(fig)
    """
    joined = "\n".join(printable(line) for line in lines)
    text.set_text(joined)  # type: ignore[attr-defined]
    setattr(text, _LINES_MARK, joined)
    return text


def _is_text_formatter(formatter: object) -> bool:
    """Formatters whose labels can be names (fixed labels, functions, categories)."""
    from matplotlib import ticker
    from matplotlib.category import StrCategoryFormatter

    return isinstance(formatter, (ticker.FixedFormatter, ticker.FuncFormatter,
                                  StrCategoryFormatter))


def _printable_formatter(inner: object) -> object:
    """A tick formatter whose labels pass through :func:`printable` (wraps ``inner``)."""
    from matplotlib import ticker

    class PrintableFormatter(ticker.Formatter):
        def set_axis(self, axis) -> None:
            super().set_axis(axis)
            inner.set_axis(axis)

        def __call__(self, x, pos=None) -> str:
            return printable(inner(x, pos))

        def format_ticks(self, values) -> list[str]:
            return [printable(label) for label in inner.format_ticks(values)]

        def set_locs(self, locs) -> None:
            inner.set_locs(locs)

        def get_offset(self) -> str:
            return printable(inner.get_offset())

        def format_data(self, value) -> str:
            return printable(inner.format_data(value))

        def format_data_short(self, value) -> str:
            return printable(inner.format_data_short(value))

    return PrintableFormatter()
