"""Sentences the report's formats share, so that HTML, Markdown and LaTeX say the same thing.

Plain text, not escaped: each renderer escapes what it prints. Sentences
that only one format uses stay in that format's module.

The paragraphs a paper can quote are built from the comparison in
:mod:`benchverdict.report.summary` and reach the renderers through the
document (:class:`~benchverdict.report.document.Paper`). The glossary's
entries come with the document too
(:attr:`~benchverdict.report.document.ReportDocument.glossary`, from
:mod:`benchverdict.report.glossary`); the functions below find the terms a
rendered text uses (:func:`glossary_for`) and link them
(:func:`link_terms`), so every format defines the words it prints.
"""

from __future__ import annotations

import functools
import html as _html
import re
from collections.abc import Iterable, Sequence
from typing import Any

#: Said when no two families of evidence contradict each other.
NO_CONTRADICTIONS = "No two families of evidence decide any pair in opposite directions."
#: Said when no pair is a power gap and no family misses a relation another family settles.
NO_POWER_GAPS = ("No pair is a power gap, and no family misses a relation another family "
                 "settles.")
#: Said when pairs are power gaps but every family confirms the settled relations.
NO_UNCONFIRMED = "No family misses a relation another family settles."


def copied_runs_caveat(warning: str, estimand: str = "benchmarks",
                       declared: tuple[str, int] | None = None) -> str | None:
    """The caveat for claims across benchmarks when runs are copied between benchmarks.

    ``warning`` is :meth:`benchverdict.results.Results.copied_runs`'s text. An
    algorithm's runs that repeat on several benchmarks are one observation
    (PriorBand's HB and RS ignore the prior: 24 benchmarks hold 12 independent
    HB - RS differences). The tests that settle pairs across benchmarks
    (Wilcoxon-Holm, the LMEM's paired test) and the effect sizes count each
    group of copies once (:mod:`benchverdict.replicates`); the caveat says so
    beside "24 benchmarks". With ``estimand="these"`` the LMEM's replicates are
    the runs, and its model counts a copied run once per benchmark: the caveat
    says that its pairs are settled only where their own Welch test over the
    runs, which counts each copy's noise once, agrees
    (:mod:`benchverdict.lmem.these_gate`), as the effect intervals do.
    ``declared`` is ``(column, levels)`` of ``replicate_by``: its levels
    count once too. None when there is nothing to say.

    Examples
    --------
    >>> copied_runs_caveat("algorithm HB has identical runs on one group of benchmarks "
    ...                    "(e.g. a and b); algorithm RS has identical runs on one group")[:55]
    'HB and RS have identical runs on several benchmarks; th'
    """
    names = re.findall(r"(?:^|; )algorithm (.+?) has identical runs on ", warning or "")
    if declared is not None:
        by, levels = declared
        each = f"each {by} ({levels} of them)" + (" and each group of copies" if names else "")
        tail = f"the tests that settle pairs count {each} once"
        if not names:
            return tail
    if not names:
        return None
    more = re.search(r"; and (\d+) more algorithm\(s\)", warning)
    if more:  # the warning names five and counts the rest
        names.append(f"{int(more.group(1))} more")
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    verb = "has" if len(names) == 1 else "have"
    them = "it" if len(names) == 1 else "them"
    if declared is not None and estimand != "these":
        return f"{who} {verb} identical runs on several benchmarks; {tail}"
    if estimand == "these":
        return (f"{who} {verb} identical runs on several benchmarks, which the LMEM's model "
                f"on these benchmarks counts as independent runs, so its pairs with {them} "
                f"are settled only where their own Welch test over the runs agrees; that "
                f"test and the effect intervals count each copy's noise once")
    return (f"{who} {verb} identical runs on several benchmarks; the tests that settle "
            f"{'its' if len(names) == 1 else 'their'} pairs count each group of copies once")


def power_gap_pairs(n_pairs: int, n_scopes: int, where: str) -> str:
    """The power gaps (pairs one family decides alone, not after the adjustment), counted.

    Examples
    --------
    >>> power_gap_pairs(34, 12, "relations.csv")[:60]
    '34 pair(s) in 12 scope(s) are power gaps: one family decides'
    """
    return (f"{n_pairs} pair(s) in {n_scopes} scope(s) are power gaps: one family decides "
            f"them at its own level, but not after the family-wise adjustment, so they stay "
            f"open; more data may settle them ({where}, status \"power gap\").")
#: Said when neither validation nor an analysis left anything out.
NOTHING_LEFT_OUT = "Nothing was left out."
#: Why single methods' disagreements are not contradictions (after "... occasion(s) (<file>)").
DISAGREEMENTS_WHY = ("within a family only the primary method votes, and score distributions "
                     "do not vote")


def disagreements(n: int, where: str) -> str:
    """The sentence that introduces the single methods' disagreements.

    Examples
    --------
    >>> disagreements(1234, "method_disagreements.csv")[:60]
    'Single methods name different winners on 1,234 occasion(s) ('
    """
    return (f"Single methods name different winners on {n:,} occasion(s) ({where}); "
            f"{DISAGREEMENTS_WHY}.")


def relations_left_out(n: int) -> str:
    """The note under a relations table that does not show every row ("" when it does).

    Examples
    --------
    >>> relations_left_out(1200)
    '1,200 more rows are not shown here; relations.csv has them all.'
    >>> relations_left_out(0)
    ''
    """
    return f"{n:,} more rows are not shown here; relations.csv has them all." if n > 0 else ""


def rows_left_out(n: int, what: str) -> str:
    """The note under a table of ``what`` that does not show every row ("" when it does).

    Examples
    --------
    >>> rows_left_out(3, "verdicts")
    '3 more rows are not shown here; report.json and verdicts.csv have them all.'
    """
    return (f"{n:,} more rows are not shown here; report.json and {what}.csv have them all."
            if n else "")


def warnings_count(n: int, n_distinct: int) -> str:
    """How many warnings there are, before the list ("Warnings: none." without any).

    Examples
    --------
    >>> warnings_count(7, 2)
    'Warnings: 7, 2 distinct (each one is in report.json)'
    """
    if not n_distinct:
        return "Warnings: none."
    return f"Warnings: {n}, {n_distinct} distinct (each one is in report.json)"


# ----------------------------------------------------------------------------- glossary
# The entries (ReportDocument.glossary) have ``term``, ``definition``, ``spellings`` and
# ``anchor``; these functions match and link them in a rendered text.
def _body(spelling: str, html: bool = False) -> str:
    body = re.escape(spelling)
    if html:  # an apostrophe is an entity in escaped HTML
        body = body.replace("'", "(?:'|&\\#39;|&\\#x27;)")
    return rf"{body}(?![\w])"


@functools.lru_cache(maxsize=16)
def _compile(entries: tuple[Any, ...], html: bool = False) -> tuple[re.Pattern, dict[str, Any]]:
    """One regex for every spelling (longest first) and the entry of each lower-case spelling.

    Spellings in capitals (acronyms) match case-sensitively, others in any case; with
    ``html``, an apostrophe also matches its HTML entity.
    """
    owner: dict[str, Any] = {}
    parts = []
    for entry in entries:
        for s in entry.spellings:
            owner.setdefault(s.lower(), entry)
            parts.append(s)
    parts.sort(key=len, reverse=True)
    alternatives = [(_body(s, html) if not s.isupper() and not s[:2].isupper() else
                     "(?-i:" + _body(s, html) + ")") for s in parts]
    # The word-start test once, before the alternatives (the same matches as one
    # test in each): a position inside a word now fails at once instead of trying
    # every spelling, which took 15 s on a 200-algorithm report's page.
    if not alternatives:
        return re.compile("(?!)"), owner
    return re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + ")", re.IGNORECASE), owner


def terms_used(texts: Iterable[str], entries: Sequence[Any]) -> list[Any]:
    """The entries (of ``entries``, in their order) whose term or an alias the texts use.

    Examples
    --------
    >>> from benchverdict.report.document import GlossaryEntry
    >>> gap = GlossaryEntry("power gap", "A pair one family decides alone.", ("power gaps",))
    >>> [e.term for e in terms_used(["two power gaps"], (gap,))]
    ['power gap']
    """
    entries = tuple(entries)
    regex, owner = _compile(entries)
    used = {owner[m.group(0).lower()].term for text in texts
            for m in regex.finditer(str(text))}
    return [e for e in entries if e.term in used]


def glossary_for(texts: Iterable[str], entries: Sequence[Any]) -> list[Any]:
    """The glossary a text needs: the entries it uses, and those their definitions use.

    Examples
    --------
    >>> from benchverdict.report.document import GlossaryEntry
    >>> gap = GlossaryEntry("power gap", "Decided before the family-wise adjustment.")
    >>> fw = GlossaryEntry("family-wise", "An error rate for a set of decisions.")
    >>> [e.term for e in glossary_for(["a power gap"], (gap, fw))]
    ['power gap', 'family-wise']
    """
    entries = tuple(entries)
    terms = terms_used(texts, entries)
    while True:
        known = {t.term for t in terms}
        new = {t.term for t in terms_used([t.definition for t in terms], entries)} - known
        if not new:
            return terms
        terms = [e for e in entries if e.term in known | new]


def visible_text(html: str) -> str:
    """The text a reader sees on an HTML page: no tags, styles, scripts or figures.

    Examples
    --------
    >>> visible_text("<p>a <b>power gap</b><svg><text>CVaR</text></svg></p><style>x</style>")
    'a power gap '
    """
    html = re.sub(r"(?is)<(svg|style|script|title|head)\b.*?</\1>", " ", html)
    return _html.unescape(re.sub(r"<[^>]+>", "", html))


#: Elements whose text is never linked (links, figures, headings, code, the matrix).
_SKIP = {"a", "svg", "style", "script", "title", "head", "code", "pre", "h1", "h2", "h3",
         "nav", "textarea"}
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)([^>]*)>")


def link_terms(html: str, entries: Sequence[Any]) -> str:
    """``html`` with the first use of each term in each ``<section>`` linked to its entry.

    Text inside links, SVG figures, headings, code, the pairwise matrix
    (``<table class="matrix...">``) and the glossary section itself
    (``<section id="glossary">``) is left as is. A link reads
    ``<a class="gloss" href="#g-...">term</a>``.

    Examples
    --------
    >>> from benchverdict.report.document import GlossaryEntry
    >>> gap = GlossaryEntry("power gap", "A pair one family decides alone.")
    >>> page = '<section id="s"><p>A power gap and a power gap.</p></section>'
    >>> print(link_terms(page, (gap,)).replace("</a>", "</a>\\n"))
    <section id="s"><p>A <a class="gloss" href="#g-power-gap">power gap</a>
     and a power gap.</p></section>
    """
    entries = tuple(entries)
    if not entries:
        return html
    regex, owner = _compile(entries, html=True)
    out: list[str] = []
    seen: set[str] = set()
    skip_tag: str | None = None
    skip_depth = 0
    in_glossary = False
    pos = 0

    def link(text: str) -> str:
        def one(m: re.Match) -> str:
            entry = owner[_html.unescape(m.group(0)).lower()]
            if entry.term in seen:
                return m.group(0)
            seen.add(entry.term)
            return f'<a class="gloss" href="#{entry.anchor}">{m.group(0)}</a>'

        return regex.sub(one, text)

    for m in _TAG.finditer(html):
        text = html[pos:m.start()]
        out.append(text if skip_depth or in_glossary or not text.strip() else link(text))
        closing, name, attrs = m.group(1) == "/", m.group(2).lower(), m.group(3)
        self_closing = attrs.rstrip().endswith("/")
        if skip_depth:
            if name == skip_tag and not self_closing:
                skip_depth += -1 if closing else 1
        elif not closing and not self_closing and (
                name in _SKIP or (name == "table" and re.search(r'class="matrix', attrs))):
            skip_tag, skip_depth = name, 1
        if name == "section" and not closing:
            seen = set()
            in_glossary = bool(re.search(r'id="glossary"', attrs))
        elif name == "section" and closing:
            in_glossary = False
        out.append(m.group(0))
        pos = m.end()
    tail = html[pos:]
    out.append(tail if skip_depth or in_glossary else link(tail))
    return "".join(out)


__all__ = [
    "DISAGREEMENTS_WHY",
    "NOTHING_LEFT_OUT",
    "NO_CONTRADICTIONS",
    "NO_POWER_GAPS",
    "NO_UNCONFIRMED",
    "copied_runs_caveat",
    "disagreements",
    "glossary_for",
    "link_terms",
    "power_gap_pairs",
    "relations_left_out",
    "rows_left_out",
    "terms_used",
    "visible_text",
    "warnings_count",
]
