"""LaTeX text from any name: every character shown as it is, nothing run.

One escaping for every LaTeX file the project writes (the report, its
tables, the results table, the CD diagram's TikZ): names come from the
user's data, so a name must never become a command, an optional argument,
a ligature or a missing glyph.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from benchverdict._plain_text import printable

#: LaTeX's special characters and what each is written as.
LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    '"': r"\textquotedbl{}",
    "|": r"\textbar{}",
    # After \\, \midrule or \item a "[" opens an optional argument and "*" makes \\*:
    # braced, they are text wherever a name lands.
    "[": "{[}",
    "]": "{]}",
    "*": "{*}",
}
#: Also escaped: the first character of every ligature T1 fonts make of ASCII (``--`` and
#: ``---`` print as dashes, ``''`` and ``\`\``` as double quotes, ``,,`` as a low double
#: quote, ``!\``` and ``?\``` as inverted marks: a name's characters stay apart, each shown
#: as its own glyph) and every non-ASCII character.
_LATEX_RE = re.compile("|".join(re.escape(k) for k in LATEX_SPECIAL)
                       + r"|-(?=-)|,(?=,)|'(?=')|`(?=`)|[!?](?=`)|[^\x00-\x7f]")

#: A word (run of non-space characters) longer than this is shortened in LaTeX.
MAX_WORD = 60
#: A shortened word keeps this many first characters, then "..." and its digest.
SHORT_PREFIX = 40
#: A word longer than this may break after punctuation (``/``, ``_``, ``.``, ...), and one
#: longer than ``BREAK_ANYWHERE`` also every ``BREAK_EVERY`` characters: a name in a narrow
#: column would overflow it. Prose words are shorter and keep their hyphenation.
BREAK_WORD = 12
BREAK_ANYWHERE = 20
BREAK_EVERY = 8
_UNITS = re.compile(r"\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|.", re.S)
_BREAK_AFTER = frozenset("/_.,;:|{}()[]=+&@#")  # not "\\": it opens an escape (\\x00)
#: The rule, stated in report.tex when a word was shortened.
SHORTENING_RULE = (f"A word longer than {MAX_WORD} characters (and a longer text in a table "
                   f"column that cannot wrap) is shown as its first {SHORT_PREFIX} characters, "
                   f"'...' and the first 8 hex digits of the SHA-256 of the whole in brackets, "
                   f"so distinct names stay distinct; report.json and the CSV files have every "
                   f"name in full.")
SHORTENED_WORD = re.compile(r"\.\.\.\{\[\}[0-9a-f]{8}\{\]\}")


def short_word(word: str) -> str:
    """``word`` shortened by the stated rule (:data:`SHORTENING_RULE`) when it is too long.

    Examples
    --------
    >>> short_word("SVM")
    'SVM'
    >>> short_word("x" * 100)
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...[09ecb6eb]'
    """
    if len(word) <= MAX_WORD:
        return word
    digest = hashlib.sha256(word.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{word[:SHORT_PREFIX]}...[{digest}]"


def _escape_chars(text: str) -> str:
    def one(m: re.Match) -> str:
        c = m.group(0)
        if c in LATEX_SPECIAL:
            return LATEX_SPECIAL[c]
        if c in "-,'`!?":  # a ligature's first character (the pattern takes no others)
            return c + "{}"
        # pdfLaTeX typesets the characters its fonts have and shows the code point of the
        # others, e.g. [U+6771] (\bvu, defined in report.tex and in each table file);
        # LuaLaTeX/XeLaTeX typeset all of them.
        return rf"\bvu{{{c}}}{{{ord(c):04X}}}"

    return _LATEX_RE.sub(one, text)


def _escape_word(m: re.Match) -> str:
    word = short_word(m.group(0))
    if len(word) <= BREAK_WORD:
        return _escape_chars(word)
    # A visible escape of printable() (\x00, \u202e) is one unit: never broken inside.
    units = _UNITS.findall(word)
    pieces, piece = [], ""
    for unit in units:
        piece += unit
        if unit in _BREAK_AFTER or (len(word) > BREAK_ANYWHERE and len(piece) >= BREAK_EVERY):
            pieces.append(piece)
            piece = ""
    if piece or not pieces:
        pieces.append(piece)
    return r"\allowbreak{}".join(_escape_chars(p) for p in pieces)


def latex_escape(text: Any) -> str:
    r"""Escape a string for LaTeX text: every character is shown as it is, nothing runs.

    Control and bidi characters are first made visible (``\x00``); newlines
    become spaces; every LaTeX special character (also ``[``, ``]``, ``*``
    and a ``-`` before another, which a preceding command or a ligature
    would take) is escaped; every non-ASCII character becomes ``\bvu``
    with the character and its hex code, e.g. ``\bvu{é}{00E9}`` (defined
    in ``report.tex``: the character itself, or its code point such as
    ``[U+6771]`` where pdfLaTeX has no glyph for it). A word longer than
    :data:`MAX_WORD` characters is shortened by :data:`SHORTENING_RULE`, and a word longer than
    :data:`BREAK_WORD` may break across lines (``\allowbreak``).

    Examples
    --------
    >>> latex_escape("50% of a_b & {c} $")
    '50\\% of a\\_b \\& \\{c\\} \\$'
    >>> latex_escape("[x] -y --z é")
    '{[}x{]} -y -{}-z \\bvu{é}{00E9}'
    """
    s = printable(re.sub(r"\s*[\r\n]+\s*", " ", str(text)))
    return re.sub(r"\S+", _escape_word, s)


#: Defines \bvu{c}{hex code} (a non-ASCII character, see latex_escape) unless defined already:
#: each table file starts with it, so that it can be \input into another document too.
BVU_FALLBACK = r"\providecommand\bvu[2]{#1}"
#: The definition in report.tex: pdfLaTeX typesets a character its input encoding declares
#: and prints the code point (e.g. [U+6771]) for the others, so that no name vanishes from the PDF.
BVU_DEFINITION = (
    r"\makeatletter\ifPDFTeX\DeclareRobustCommand\bvu[2]{\ifcsname u8:\detokenize{#1}"
    r"\endcsname#1\else[U+#2]\allowbreak\fi}\else\DeclareRobustCommand\bvu[2]{#1}\fi\makeatother")
#: The preamble lines every standalone document of the project starts with (after
#: ``\documentclass``): UTF-8 names under pdfLaTeX (T1 fonts, ``\bvu`` printing
#: a code point such as ``[U+6771]`` for a character it has no glyph for, a boxed ?
#: for any other text), or fontspec under LuaLaTeX and XeLaTeX; text extraction from
#: pdfLaTeX's fonts.
UNICODE_PREAMBLE = (
    r"\usepackage{iftex}",
    r"\ifPDFTeX\usepackage[utf8]{inputenc}\usepackage[T1]{fontenc}\else"
    r"\usepackage{fontspec}\fi",
    r"\ifPDFTeX\makeatletter\def\UTFviii@undefined@err#1{\fbox{?}}\makeatother\fi",
    BVU_DEFINITION,
    r"\ifPDFTeX\IfFileExists{glyphtounicode.tex}{\input{glyphtounicode}\pdfgentounicode=1}{}"
    r"\IfFileExists{lmodern.sty}{\usepackage{lmodern}}{}\fi",
)
