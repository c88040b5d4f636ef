"""Short reprs and notebook HTML for result objects.

A result object's ``repr`` is what a REPL or a log prints: one or a few lines
saying what it is (never its arrays: the ``repr`` of the example's tuning
curves used to be over a million characters). In a notebook, ``_repr_html_``
shows the same lines and the head of its tidy table.

A class opts in by defining ``_summary_lines(self) -> list[str]`` (the first
line says what it is; a few more may follow) and, optionally,
``_summary_table(self)`` (a DataFrame, default its ``table`` attribute), and
deriving from :class:`ResultText`, which gives the short ``repr``, the
notebook HTML, ``str()`` (its ``summary()``) and a default ``summary()``.
A ``@dataclass`` deriving from it passes ``repr=False``: otherwise the
generated ``__repr__`` (every field, arrays included) would win.
"""

from __future__ import annotations

import html
from abc import ABC, abstractmethod
from typing import Any

from benchverdict._plain_text import printable

#: Longest line of a repr; longer lines are cut with an ellipsis.
MAX_LINE = 150
#: Most lines of a repr (the first included).
MAX_LINES = 6
#: Rows of the tidy table shown in a notebook.
HTML_ROWS = 8
#: Longest text in a cell of that table.
HTML_CELL = 80


def _cut(text: str, width: int = MAX_LINE) -> str:
    text = printable(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def _lines(obj: Any) -> list[str]:
    try:
        lines = [str(line) for line in obj._summary_lines()]
    except Exception as err:  # a repr must never raise: say what went wrong instead
        lines = [f"(summary unavailable: {type(err).__name__})"]
    lines = [_cut(line) for line in lines if line] or [""]
    if len(lines) > MAX_LINES:
        lines = [*lines[: MAX_LINES - 1], f"... and {len(lines) - MAX_LINES + 1} more"]
    return lines


def result_repr(obj: Any) -> str:
    """``<ClassName: first line`` plus indented further lines, then ``>``.

    Examples
    --------
    >>> class R:
    ...     def _summary_lines(self):
    ...         return ["3 curves", "median; 80% band"]
    >>> print(result_repr(R()))
    <R: 3 curves
      median; 80% band>
    """
    lines = _lines(obj)
    head = f"<{type(obj).__name__}: {lines[0]}"
    rest = "".join(f"\n  {line}" for line in lines[1:])
    return f"{head}{rest}>"


def result_html(obj: Any) -> str:
    """A small HTML summary: the class name, the summary lines and the head of the table.

    Examples
    --------
    >>> import pandas as pd
    >>> class R:
    ...     table = pd.DataFrame({"algorithm": ["A<b>"], "value": [1.0]})
    ...     def _summary_lines(self):
    ...         return ["one row"]
    >>> text = result_html(R())
    >>> text.startswith("<div"), "A&lt;b&gt;" in text, "<b>" in text
    (True, True, False)
    """
    import pandas as pd

    lines = _lines(obj)
    # tex2jax_ignore / mathjax_ignore: a notebook's MathJax must not typeset a name like "$x$"
    parts = [f'<div class="benchverdict-result tex2jax_ignore mathjax_ignore">'
             f"<strong>{_escape(type(obj).__name__)}</strong>: {_escape(lines[0])}"]
    if len(lines) > 1:
        parts.append("<ul>" + "".join(f"<li>{_escape(line)}</li>" for line in lines[1:])
                     + "</ul>")
    table = _table(obj)
    if table is not None and len(table.columns):
        shown = table.head(HTML_ROWS)
        # the index is shown when it says something (e.g. algorithms as the index)
        index = not isinstance(shown.index, pd.RangeIndex)
        shown = shown.map(lambda v: _cut(v, HTML_CELL) if isinstance(v, str) else v)
        shown.index = [_cut(str(v), HTML_CELL) for v in shown.index]
        parts.append(shown.to_html(index=index, escape=True, max_cols=12,
                                   float_format=lambda v: f"{v:.4g}").replace("$", "&#36;"))
        if len(table) > HTML_ROWS:
            parts.append(f"<p>{HTML_ROWS} of {len(table):,} rows (<code>.table</code> has "
                         f"all)</p>")
    parts.append("</div>")
    return "".join(parts)


def _escape(text: str) -> str:
    """HTML-escape, and write ``$`` as an entity so no TeX delimiter appears in the markup."""
    return html.escape(text).replace("$", "&#36;")


def _table(obj: Any):
    import pandas as pd

    try:
        table = obj._summary_table() if hasattr(obj, "_summary_table") else getattr(
            obj, "table", None)
    except Exception:
        return None
    if isinstance(table, pd.Series):
        table = table.to_frame()
    return table if isinstance(table, pd.DataFrame) else None


def names(values: Any, limit: int = 6) -> str:
    """A short list of names: the first ``limit`` and how many more.

    Examples
    --------
    >>> names(["a", "b", "c"], limit=2)
    'a, b and 1 more'
    """
    values = [str(v) for v in values]
    if len(values) <= limit:
        return ", ".join(values)
    return ", ".join(values[:limit]) + f" and {len(values) - limit} more"


class ResultText(ABC):
    """The text side of the result protocol, written once.

    ``repr`` is :func:`result_repr`, ``_repr_html_`` :func:`result_html`,
    ``str()`` is ``summary()``, and ``summary()`` joins ``_summary_lines()``
    unless the class writes a fuller one.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(repr=False)
    ... class Answer(ResultText):
    ...     value: int
    ...     def _summary_lines(self) -> list[str]:
    ...         return [f"answer: {self.value}"]
    >>> a = Answer(42)
    >>> repr(a), str(a), a.summary()
    ('<Answer: answer: 42>', 'answer: 42', 'answer: 42')
    >>> @dataclass(repr=False)
    ... class Silent(ResultText):
    ...     value: int
    >>> Silent(1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: Can't instantiate abstract class Silent ...abstract method..._summary_lines...
    """

    @abstractmethod
    def _summary_lines(self) -> list[str]:
        """The result in a few lines: the first is the short ``repr``'s text.

        Every result type writes its own; a class without it cannot be
        instantiated (``TypeError`` naming the method).
        """

    def summary(self) -> str:
        """What the result says, as text (also ``str(result)``)."""
        return "\n".join(self._summary_lines())

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return result_repr(self)

    def _repr_html_(self) -> str:
        return result_html(self)
