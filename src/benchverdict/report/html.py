"""The report as one self-contained HTML page (figures embedded as SVG, names escaped)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from benchverdict._plain_text import printable
from benchverdict.report.render import (
    MAX_SCOPE_LINES,
    SHOWN_CONFLICTS,
    _cell_colours,
    _conflict_group_rows,
    _contradiction_rows,
    _data_sections,
    _outcome_text,
    _power_rows,
    _relation_rows,
    _relations_left_out,
    _scopes_text,
    _status_counts,
    _summary,
    _table_rows,
    _title,
    _unique_figures,
    collapse_similar,
    grouped_guidance,
)

if TYPE_CHECKING:
    from benchverdict.report.runner import Comparison


# ----------------------------------------------------------------------------- HTML
#: Figures are shown at this many pixels per inch of their size, at least MIN_FIGURE_PX.
FIGURE_PX_PER_INCH = 110
MAX_FIGURE_PX = 1100
MIN_FIGURE_PX = 700
#: At most this many verdict rows are shown in the HTML page (verdicts.csv has all).
MAX_HTML_VERDICTS = 200
_SVG_NUMBER = re.compile(rb"(-?\d+\.\d)\d+")
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
    return _SVG_GEOMETRY.sub(
        lambda m: m.group(1) + _SVG_NUMBER.sub(rb"\1", m.group(2)) + m.group(3), svg)


def _html_figure(f, min_px: int = MIN_FIGURE_PX) -> dict[str, Any]:
    """The template's view of a figure: inline SVG markup and a display width in pixels.

    The SVG comes from matplotlib, which escapes every text it draws, so it
    is safe to inline; the page's Content-Security-Policy forbids scripts anyway.
    """
    from markupsafe import Markup

    width = int(f.figure.get_figwidth() * FIGURE_PX_PER_INCH)
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
        finalize=lambda value: printable(value) if isinstance(value, str) and not isinstance(
            value, Markup) else value,
    )


def render_html(comparison: Comparison) -> str:
    """A self-contained HTML page: summary first (one screen), details collapsed.

    The summary holds the headline sentence of every scope, the pairwise
    matrix of the headline scope and the partial-ranking diagram; everything
    else (contradictions, power gaps, each analysis, the full tables) follows
    in collapsed ``<details>`` blocks. Figures are inline SVG. A
    Content-Security-Policy forbids scripts and network access, so the page
    works offline and nothing in it can run.
    """
    template = html_environment().get_template("report.html.j2")
    c = comparison
    n_own = len(c.figures) - sum(len(r.figures) for r in c.runs)
    own = {f.name: f for f in c.figures[:n_own]}
    analyses = []
    for r in c.runs:
        tables = []
        for name, frame in r.tables.items():
            header, rows, more = _table_rows(frame)
            tables.append({"name": name, "header": header, "rows": rows, "more": more})
        analyses.append({"run": r, "tables": tables,
                         "figures": [_html_figure(f) for f in _unique_figures(r.figures)]})
    sanity = [(r.name, check) for r in c.runs for check in r.sanity]
    s = _data_sections(c)
    return template.render(
        s=s,
        summary=_summary(c),
        # The diagrams at their own size (a small diagram blown up to 700 px is unreadable).
        ranking=_html_figure(own["report-ranking"], min_px=0) if "report-ranking" in own
        else None,
        ranking_scopes=_html_figure(own["report-ranking-scopes"], min_px=0)
        if "report-ranking-scopes" in own else None,
        agreement_figure=_html_figure(own["report-agreement"])
        if "report-agreement" in own else None,
        analyses=analyses,
        sanity=sanity,
        outcome_text=_outcome_text,
        shown_conflicts=SHOWN_CONFLICTS,
        max_verdicts=MAX_HTML_VERDICTS,
        cell_colours=_cell_colours(),
        collapse=collapse_similar,
        rec=c.reconciliation,
        relation_rows=_relation_rows(c),
        relations_left_out=_relations_left_out(c, len(_relation_rows(c))),
        guidance=[(_scopes_text(scopes), advice)
                  for scopes, advice in grouped_guidance(s["rankings"])],
        power_rows=_power_rows(c),
        contradiction_rows=_contradiction_rows(c),
        conflict_group_rows=_conflict_group_rows(c),
    )


def comparison_repr_html(comparison: Comparison) -> str:
    """The notebook view of a comparison: headline sentences and the pairwise matrix."""
    c = comparison
    summary = _summary(c)
    head = summary["head"]
    others = [x.sentence for x in summary["others"]]
    template = html_environment().get_template("summary.html.j2")
    return template.render(
        title=_title(c), objective=c.objective,
        headline=head.sentence if head is not None else _data_sections(c)["headline"],
        others=others[:MAX_SCOPE_LINES], more=max(len(others) - MAX_SCOPE_LINES, 0),
        matrix=summary["matrix"], scope=head.scope if head is not None else "",
        status=_status_counts(c))
