"""The report as one self-contained HTML page (figures embedded as SVG, names escaped).

Rendered from the report document (:mod:`benchverdict.report.document`) only.
"""

from __future__ import annotations

import re
from typing import Any

from benchverdict._plain_text import printable
from benchverdict.report import prose
from benchverdict.report.document import MAX_SCOPE_LINES, Figure, ReportDocument

# ----------------------------------------------------------------------------- HTML
#: Figures are shown at this many pixels per inch of their size, at least MIN_FIGURE_PX.
FIGURE_PX_PER_INCH = 110
MAX_FIGURE_PX = 1100
MIN_FIGURE_PX = 700
#: At most this many verdict rows are shown in the HTML page (verdicts.csv has all).
MAX_HTML_VERDICTS = 200
#: The digits after a number's first decimal (``1.23456`` -> ``1.2``): removed by a
#: literal replacement, which re runs in C (a function per number took 0.85 s for the
#: 1.3 million numbers of a 10^6-draw report's figures). It equals removing them number by
#: number for numbers as matplotlib writes them (never two points in one number).
_SVG_EXTRA_DIGITS = re.compile(rb"(?<=\d\.\d)\d+")
_SVG_GEOMETRY = re.compile(
    rb'(\s(?:d|x|y|x1|x2|y1|y2|width|height|transform|points|cx|cy|r)=")([^"]*)(")')
_SVG_PROLOG = re.compile(rb"^.*?(?=<svg\b)", re.S)


def compact_svg(svg: bytes) -> bytes:
    """An SVG with geometry rounded to 0.1 pt and without its XML prolog, for inlining.

    Only geometry attributes are rounded; text (names, tick labels) is left as is.

    Examples
    --------
    >>> svg = b'<?xml version="1.0"?>\\n<svg><path d="M 1.23456 2.5"/><text>0.12345</text></svg>'
    >>> compact_svg(svg)
    b'<svg><path d="M 1.2 2.5"/><text>0.12345</text></svg>'
    """
    svg = _SVG_PROLOG.sub(b"", svg, count=1)
    # A function per attribute, not a "\1" template: re expands a template in Python for
    # every match (the example's figures: 0.095 s with templates, 0.046 s with functions).
    return _SVG_GEOMETRY.sub(
        lambda m: m.group(1) + _SVG_EXTRA_DIGITS.sub(b"", m.group(2)) + m.group(3), svg)


def _html_figure(f: Figure, min_px: int = MIN_FIGURE_PX) -> dict[str, Any]:
    """The template's view of a figure: inline SVG markup and a display width in pixels.

    The SVG comes from matplotlib, which escapes every text it draws, so it
    is safe to inline; the page's Content-Security-Policy forbids scripts anyway.
    """
    from markupsafe import Markup

    width = int(f.width_inches * FIGURE_PX_PER_INCH)
    width = max(min_px, min(MAX_FIGURE_PX, width))
    svg = compact_svg(f.svg()).decode("utf-8")
    return {"fig": f, "svg": Markup(svg), "width": width, "size": len(svg)}


def html_environment():
    r"""The Jinja2 environment of the HTML report.

    Autoescape on; every printed string has its control and bidi characters
    made visible (:func:`~benchverdict._plain_text.printable`) before escaping.

    Examples
    --------
    >>> html_environment().from_string("{{ x }}").render(x="<b>\u202e")
    '&lt;b&gt;\\u202e'
    """
    import jinja2
    from markupsafe import Markup

    return jinja2.Environment(
        loader=jinja2.PackageLoader("benchverdict.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        # Markup (the inline SVG figures, escaped by matplotlib) is passed through as is.
        # Line feeds are kept (a <pre> block or a multi-line note shows them as lines);
        # every other control character is made visible by printable().
        finalize=lambda value: "\n".join(printable(line) for line in value.split("\n"))
        if isinstance(value, str) and not isinstance(value, Markup) else value,
    )


def render_html(document: ReportDocument) -> str:
    """A self-contained HTML page: summary first (one screen), details collapsed.

    The summary holds the headline sentence of every scope, the pairwise
    matrix of the headline scope and the partial-ranking diagram; the
    results table follows it; everything
    else (the methods and results paragraphs for a paper, contradictions,
    power gaps, each analysis, the full tables) follows, mostly in collapsed
    ``<details>`` blocks, and the Glossary closes the page: the first use of
    each technical term in each section links to its definition. Figures are inline SVG. A
    Content-Security-Policy forbids scripts and network access, so the page
    works offline and nothing in it can run.
    """
    from markupsafe import Markup

    template = html_environment().get_template("report.html.j2")
    doc = document
    drawings = doc.drawings.get()
    section = doc.results_table.get()
    analyses = [{"a": a, "figures": [_html_figure(f) for f in shown]}
                for a, shown in zip(doc.analyses, drawings.analyses)]
    context = dict(
        doc=doc,
        summary=doc.summary,
        # The diagrams at their own size (a small diagram blown up to 700 px is unreadable).
        ranking=_html_figure(drawings.ranking, min_px=0) if drawings.ranking else None,
        ranking_scopes=_html_figure(drawings.ranking_scopes, min_px=0)
        if drawings.ranking_scopes else None,
        agreement_figure=_html_figure(drawings.agreement) if drawings.agreement else None,
        analyses=analyses,
        # The table's HTML escapes every name itself (ResultsTable.to_html).
        results_table=None if section is None else {"s": section,
                                                     "html": Markup(section.html)},
        max_verdicts=MAX_HTML_VERDICTS,
        max_scope_lines=MAX_SCOPE_LINES,
        prose=prose,
    )
    # The glossary holds the terms the page uses (and those its definitions use): drawn
    # without it first, then with it, and each section's first use of a term linked to it.
    page = template.render(glossary=(), **context)
    terms = prose.glossary_for([prose.visible_text(page)], doc.glossary)
    return prose.link_terms(template.render(glossary=terms, **context), terms)


def comparison_repr_html(document: ReportDocument) -> str:
    """The notebook view of a comparison: headline sentences and the pairwise matrix."""
    summary = document.summary
    others = [x.sentence for x in summary.others]
    template = html_environment().get_template("summary.html.j2")
    return template.render(
        title=document.title, objective=document.objective, headline=summary.headline,
        others=others[:MAX_SCOPE_LINES], more=max(len(others) - MAX_SCOPE_LINES, 0),
        matrix=summary.matrix, scope=summary.head.scope if summary.head is not None else "",
        status=summary.status_counts)
