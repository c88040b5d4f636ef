"""Names are text, never markup: switch off matplotlib's mathtext in a drawn figure.

Algorithm and benchmark names can hold ``$`` (``"$5 model"``, ``"a$b$c"``);
matplotlib would parse a pair of dollars as mathtext and abort the drawing
on anything it cannot parse. Every ``.plot()`` of the analysis modules calls
:func:`plain_text` on what it drew, so every label, tick label, title and
legend entry is drawn literally.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

__all__ = ["plain_text"]


def plain_text(drawn: T) -> T:
    """Make every text of ``drawn`` (an Axes or a Figure) literal; return ``drawn``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.set_title("cost in $ per $k$")
    >>> plain_text(ax).title.get_parse_math()
    False
    >>> plt.close(fig)
    """
    from matplotlib.text import Text  # here: importing an analysis module must not need it

    figure = getattr(drawn, "figure", None) or drawn
    root = getattr(figure, "get_figure", lambda **_: figure)(root=True) or figure
    for text in root.findobj(Text):
        text.set_parse_math(False)
    return drawn
