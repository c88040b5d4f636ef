"""The report as LaTeX: ``report.tex``, booktabs tables and PDF figures.

Rendered from the report document (:mod:`benchverdict.report.document`) only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchverdict._latex_text import (
    BVU_FALLBACK,
    SHORTENED_WORD,
    SHORTENING_RULE,
    UNICODE_PREAMBLE,
    latex_escape,
    short_word,
)
from benchverdict.report import prose
from benchverdict.report.document import (
    MAX_NOTES,
    MAX_SCOPE_LINES,
    MAX_TABLE_ROWS,
    Figure,
    ReportDocument,
)


# ----------------------------------------------------------------------------- LaTeX
# Escaping lives in benchverdict._latex_text, shared with the CD diagram's TikZ export.
def _columns(spec: str) -> list[str]:
    """The column types of a tabular spec: ``l``, ``c``, ``r`` or ``p``."""
    spec = re.sub(r"[<>]\{[^}]*\}", "", spec)  # >{\raggedright} and the like
    return [c[0] for c in re.findall(r"p\{[^}]*\}|[lcr]", spec)]


def _cell(value: Any, kind: str) -> str:
    """A table cell; in a column that cannot wrap (l, c, r) a long text is shortened."""
    text = str(value)
    return latex_escape(short_word(text) if kind != "p" else text)


def _latex_table(header: Sequence[str], rows: Sequence[Sequence[Any]], *, caption: str,
                 label: str, spec: str, long: bool = False, rotate_header: bool = False) -> str:
    # Every cell is written even if the spec could not be read (then as a column that cannot
    # wrap): a cell is never dropped.
    kinds = _columns(spec) + ["l"] * max(0, len(header) - len(_columns(spec)),
                                         *(len(row) - len(_columns(spec)) for row in rows))
    head = " & ".join(
        rf"\rotatebox{{90}}{{\textbf{{{_cell(h, 'l')}}}}}" if rotate_header and i and h else
        rf"\textbf{{{_cell(h, k)}}}" for i, (h, k) in enumerate(zip(header, kinds))) + r" \\"
    body = "\n".join(" & ".join(_cell(v, k) for v, k in zip(row, kinds)) + r" \\"
                     for row in rows)
    if long:
        return "\n".join([
            rf"\begin{{longtable}}{{{spec}}}",
            rf"\caption{{{latex_escape(caption)}}}\label{{{label}}} \\",
            r"\toprule", head, r"\midrule", r"\endfirsthead",
            r"\toprule", head, r"\midrule", r"\endhead",
            r"\bottomrule", r"\endlastfoot",
            body,
            r"\end{longtable}", ""])
    # Set in a box first: a table wider than the text (a matrix of many algorithms) is
    # scaled down to the text width (graphicx's \resizebox, where loaded), never overfull.
    return "\n".join([
        r"\begin{table}[htbp]", r"\centering", r"\small",
        rf"\caption{{{latex_escape(caption)}}}\label{{{label}}}",
        FIT_BOX_DEFINITION, rf"\sbox\bvtablebox{{\begin{{tabular}}{{{spec}}}", r"\toprule",
        head, r"\midrule", body,
        r"\bottomrule", r"\end{tabular}}", FIT_BOX_USE, r"\end{table}", ""])


#: The box a table is set in (defined once, also when a table file is \input elsewhere).
FIT_BOX_DEFINITION = r"\ifdefined\bvtablebox\else\newsavebox\bvtablebox\fi"
#: The box, scaled to the text width when wider (and graphicx is loaded), else as it is.
FIT_BOX_USE = (r"\ifdim\wd\bvtablebox>\linewidth\ifdefined\resizebox"
               r"\resizebox{\linewidth}{!}{\usebox\bvtablebox}\else\usebox\bvtablebox\fi"
               r"\else\usebox\bvtablebox\fi")


#: The tallest part of a figure printed on one page, as a multiple of its width: on
#: report.tex's landscape page (0.8 of the text height is about 400 pt) a part of a
#: figure as wide as the HTML report's (about 530 pt) then prints near its own size.
MAX_PART_RATIO = 0.8
#: report.tex's text width and the height a figure may take (0.8 of the text height), in
#: points: US letter, landscape, 2 cm margins (A4 is a little wider and lower).
PAGE_TEXT_WIDTH, PAGE_FIGURE_HEIGHT = 678.0, 399.0
#: A figure that would print below this fraction of its size for its height alone is
#: printed in parts instead.
MIN_PRINTED_SCALE = 0.5


def page_slices(size: tuple[float, float] | None, row_cuts: Callable[[], Sequence[float]]
                ) -> list[tuple[float, float, float]]:
    """The parts a figure is printed in: ``(bottom, top, height)`` in points, top part first.

    One part (the whole figure) unless its height alone would print it below
    :data:`MIN_PRINTED_SCALE` of its size on a page and it has rows of panels
    to cut between (``size`` and ``row_cuts`` from
    :class:`~benchverdict.analysis.ReportFigure`; the cuts are found only then);
    then each part holds as many whole rows as fit :data:`MAX_PART_RATIO`
    times its width (a taller row is a part alone).

    Examples
    --------
    >>> page_slices(None, tuple)
    [(0.0, 0.0, 0.0)]
    >>> cuts = tuple(float(c) for c in range(1000, 0, -200))
    >>> [(lo, hi) for lo, hi, _ in page_slices((500.0, 1200.0), lambda: cuts)]
    [(800.0, 1200.0), (400.0, 800.0), (0.0, 400.0)]
    >>> len(page_slices((500.0, 700.0), lambda: (350.0,)))  # at 57% of its size: whole
    1
    """
    if size is None:
        return [(0.0, 0.0, 0.0)]
    width, height = size
    limit = MAX_PART_RATIO * width
    by_height = PAGE_FIGURE_HEIGHT / max(height, 1e-9)
    if (height <= limit or by_height >= MIN_PRINTED_SCALE
            or by_height >= PAGE_TEXT_WIDTH / max(width, 1e-9)):
        return [(0.0, height, height)]
    cuts = row_cuts()
    if not cuts:
        return [(0.0, height, height)]
    parts, top = [], height
    ordered = sorted(cuts, reverse=True)
    for cut, below in zip(ordered, [*ordered[1:], 0.0]):
        # Cut here when the part would grow beyond the limit by taking the next row.
        if top - below > limit:
            parts.append((cut, top, height))
            top = cut
    parts.append((0.0, top, height))
    return parts


_LATEX_CELL = str.maketrans({"▲": ">", "▼": "<", "△": "(>)", "▽": "(<)", "✕": "x",
                             "·": ""})
def render_latex(document: ReportDocument, directory: Path) -> Path:
    """Write ``report.tex``, ``tables/*.tex`` (booktabs) and ``figures/*.pdf``.

    Returns the path of ``report.tex``, a standalone document (``article``
    with booktabs, longtable, graphicx) that ``\\input``s every table file.
    It holds what a paper cites: the summary (headline sentences, the
    pairwise matrix, the partial-ranking diagram), the relations of the
    headline scope, the results table (when a page holds it whole),
    contradictions, power gaps, each analysis's figures and the data. Each
    table file is a complete ``table``/``longtable``; the full tables (every
    scope, every verdict, each analysis's tables) are the CSV files of the
    report directory
    (:attr:`~benchverdict.report.document.ReportDocument.csv_tables`).
    """
    doc = document
    summary = doc.summary
    directory = Path(directory)
    (directory / "tables").mkdir(parents=True, exist_ok=True)
    (directory / "figures").mkdir(parents=True, exist_ok=True)
    tables: list[str] = []
    table_texts: list[str] = []

    def write_table(name: str, text: str) -> None:
        table_texts.append(text)
        (directory / "tables" / f"{name}.tex").write_text(f"{BVU_FALLBACK}\n{text}",
                                                          encoding="utf-8")
        tables.append(name)

    matrix = summary.matrix
    if matrix is not None:
        header, rows = matrix.plain_rows()
        rows = [[r[0], *(v.translate(_LATEX_CELL) for v in r[1:])] for r in rows]
        write_table("matrix", _latex_table(
            header, rows,
            caption=f"Pairwise relations, {matrix.scope}: row vs column; > row better, < row "
                    f"worse (settled, with the families that settle it at family-wise error "
                    f"{doc.settings.alpha:g}); (>) (<) implied by transitivity; x contradicted; "
                    f"a family name alone: power gap; -- not separated."
                    + (f" Letters name the {matrix.letters_legend}." if matrix.wide else ""),
            label="tab:matrix", spec=r">{\raggedright\arraybackslash}p{3.2cm}"
            + "c" * (len(header) - 1), rotate_header=True))
    if summary.head is not None and doc.head_relations is not None:
        head_rows = doc.head_relations
        write_table("relations", _latex_table(
            head_rows.header, head_rows.body,
            caption=f"Every pair on {summary.head.scope}: status, the families that settle "
                    f"it, the Holm-adjusted p-value over the scope type, and why. Every scope "
                    f"is in relations.csv. {prose.relations_left_out(head_rows.n_left_out)}",
            label="tab:relations", spec="p{2.2cm}p{2.6cm}p{1.6cm}p{1.8cm}rp{8.5cm}",
            long=True))
    # The results table: whole when the report's page shows it whole, else what it leaves out
    # (results_table.tex beside the report folder's files has the whole table).
    section = doc.results_table.get()
    results_part: list[str] = []
    if section is not None:
        results_part = [r"\section{Results table}\label{sec:results-table}"]
        if section.frame is not None and not section.note:
            write_table("results_table", section.latex)
            results_part.append(r"\input{tables/results_table.tex}")
        else:
            frame = section.frame
            results_part.append(latex_escape(
                section.note if frame is None else
                f"{section.caption} The table ({frame['benchmark'].nunique()} benchmarks x "
                f"{frame['algorithm'].nunique()} algorithms) is more than a page holds: it is "
                f"in results_table.tex (a booktabs table to \\input) and results_table.csv, "
                f"written with the report by benchverdict report."))
    contradictions = doc.contradictions
    if contradictions:
        write_table("contradictions", _latex_table(
            contradictions.header, contradictions.body[:MAX_TABLE_ROWS],
            caption="Families of evidence deciding a pair in opposite directions."
                    + (f" ({len(contradictions.body) - MAX_TABLE_ROWS} more in "
                       f"contradictions.csv.)" if len(contradictions.body) > MAX_TABLE_ROWS
                       else ""),
            label="tab:contradictions", spec="p{2.2cm}p{2.4cm}p{1.8cm}p{1.8cm}p{1.6cm}p{8cm}",
            long=True))
    power = doc.power_gaps
    if power:
        write_table("power_gaps", _latex_table(
            power.header, power.body[:MAX_TABLE_ROWS],
            caption="Power gaps: settled relations a family could not decide on its own data."
                    + (f" ({len(power.body) - MAX_TABLE_ROWS} more in power_gaps.csv.)"
                       if len(power.body) > MAX_TABLE_ROWS else ""),
            label="tab:power", spec="p{2.2cm}p{2.0cm}rp{4.0cm}p{1.8cm}p{7.5cm}", long=True))
    write_table("data", _latex_table(["", "value"], doc.data_rows, caption="The data.",
                                     label="tab:data", spec="lp{11cm}"))
    if doc.exclusion_table is not None:
        t = doc.exclusion_table
        write_table("exclusions", _latex_table(
            t.header, t.body, caption="What each analysis left out (count per step), with "
            "examples and their reasons (each with its count when several); exclusions.csv "
            "has every record."
            + (f" ({t.n_left_out} more rows not shown.)" if t.n_left_out else ""),
            label="tab:exclusions", spec="p{1.4cm}p{3.0cm}p{1.6cm}rp{6.0cm}p{5.0cm}",
            long=True))
    if doc.sanity:
        write_table("sanity", _latex_table(
            ["analysis", "check", "status", "conclusion"],
            [[ch.analysis, ch.name, ch.status, ch.conclusion] for ch in doc.sanity],
            caption="Sanity checks, and analysis steps that failed or were not run.",
            label="tab:sanity", spec="p{1.4cm}p{4.0cm}p{1.4cm}p{11cm}", long=True))

    def figure_block(f: Figure) -> str:
        # The SVG first (kept; the HTML report has drawn it already): it lays the figure
        # out and finds its tight box, which the PDF and the cuts between panels reuse.
        f.svg()
        f.save(directory / "figures", formats=("pdf",))
        parts = page_slices(f.page_size(), f.row_cuts)
        blocks = []
        for i, (low, high, height) in enumerate(parts):
            # A tall figure (a panel per scope) is printed a few rows per page, each part
            # cut between two rows of panels: at one page's height it would be unreadable.
            trim = ("" if len(parts) == 1 else
                    f",trim=0 {low:.2f}bp 0 {height - high:.2f}bp,clip")
            part = "" if len(parts) == 1 else f" (part {i + 1} of {len(parts)})"
            blocks += [
                r"\begin{figure}[htbp]", r"\centering",
                rf"\includegraphics[width=\linewidth,height=0.8\textheight,keepaspectratio"
                rf"{trim}]{{figures/{f.file_name}.pdf}}",
                rf"\caption{{{latex_escape(f.title + part)}. {latex_escape(f.caption)}}}"
                if i == 0 else rf"\caption{{{latex_escape(f.title + part)}.}}",
                *([rf"\label{{fig:{f.file_name}}}"] if i == 0 else []), r"\end{figure}", ""]
        return "\n".join(blocks)

    drawings = doc.drawings.get()
    summary_figures = [figure_block(f) for f in (drawings.ranking, drawings.ranking_scopes)
                       if f is not None]
    analysis_parts = []
    for a, shown in zip(doc.analyses, drawings.analyses):
        part = [rf"\subsection*{{{latex_escape(a.title)}}}",
                latex_escape(f"Status: {a.status}" + (f"; {a.reason}" if a.reason else "")
                             + f" ({a.n_verdicts} verdicts)."), ""]
        if a.notes:
            part += [r"\begin{itemize}", *(rf"\item {latex_escape(n)}"
                                           for n in a.notes[:MAX_NOTES]), r"\end{itemize}"]
        if a.tables:
            part.append(latex_escape("Tables (CSV): " + ", ".join(
                f"{t.csv_name}.csv" for t in a.tables) + "."))
        part += [figure_block(f) for f in shown]
        analysis_parts.append("\n".join(part))
    others = summary.others[:MAX_SCOPE_LINES]
    scope_items = "\n".join(rf"\item {latex_escape(x.sentence)}" for x in others)
    draws = " ".join([*(latex_escape("Note: " + n) for n in summary.notes),
                      *(latex_escape(x) for x in summary.single_draws[:1])])
    guidance = "\n".join(rf"\item \textbf{{{latex_escape(g.scopes)}}}: "
                         rf"{latex_escape(g.advice)}"
                         for g in doc.guidance[:MAX_SCOPE_LINES])
    explanations = "\n".join(
        rf"\item {latex_escape(m1)} vs {latex_escape(m2)} ({latex_escape(n)} pair(s)): "
        rf"{latex_escape(why)}"
        for m1, m2, n, _, why in doc.method_disagreements.body[:MAX_SCOPE_LINES])
    warnings = doc.distinct_warnings

    def itemize(body: str) -> list[str]:
        return [r"\begin{itemize}", body, r"\end{itemize}"] if body else []

    disagreements = (prose.disagreements(doc.n_conflicts, "method_disagreements.csv")
                     + " The explanations:")
    lines = [
        "% benchverdict comparison report. Compile with lualatex or xelatex (unicode names),",
        "% or pdflatex for Latin-script names. Tables need booktabs and longtable.",
        r"\documentclass[10pt]{article}",
        r"\usepackage[margin=2cm,landscape]{geometry}",
        "% pdfLaTeX knows only some Unicode characters: names show the others as [U+XXXX]",
        "% (\\bvu), any other text as a boxed ? instead of stopping (LuaLaTeX and XeLaTeX",
        "% typeset them with a suitable font); text extraction from pdfLaTeX's fonts.",
        *UNICODE_PREAMBLE,
        r"\usepackage{booktabs,longtable,graphicx,array}",
        "% Lines with long names: stretch spaces rather than run into the margin.",
        r"\setlength{\emergencystretch}{3em}",
        rf"\title{{{latex_escape(doc.title)}}}",
        rf"\date{{benchverdict {latex_escape(doc.version)}}}",
        r"\begin{document}", r"\maketitle",
        rf"Objective: \textbf{{{latex_escape(doc.objective)}}}. "
        rf"Options: {latex_escape(doc.settings.text)}.",
        r"\section{Summary}\label{sec:summary}",
        rf"\textbf{{{latex_escape(summary.headline)}}}",
        *itemize(scope_items),
        draws, "",
        *[rf"\input{{tables/{t}.tex}}" for t in tables if t == "matrix"],
        *summary_figures,
        *[rf"\input{{tables/{t}.tex}}" for t in tables if t == "relations"],
        *results_part,
        r"\section{Contradictions}\label{sec:contradictions}",
        *([r"\input{tables/contradictions.tex}"] if "contradictions" in tables else
          [prose.NO_CONTRADICTIONS]),
        *(["", latex_escape(disagreements), *itemize(explanations)] if explanations else []),
        r"\section{Power gaps}\label{sec:power}",
        *([latex_escape(doc.power_gap_sentence), ""] if doc.power_gap_sentence else []),
        *([r"\input{tables/power_gaps.tex}"] if "power_gaps" in tables else
          [prose.NO_UNCONFIRMED if doc.power_gap_sentence else prose.NO_POWER_GAPS]),
        *(["Sample-size guidance:", *itemize(guidance)] if guidance else []),
        r"\section{Analyses}\label{sec:analyses}",
        *analysis_parts,
        r"\section{Data}\label{sec:data}",
        r"\input{tables/data.tex}",
        *([r"\input{tables/exclusions.tex}"] if "exclusions" in tables else []),
        *([r"\input{tables/sanity.tex}"] if "sanity" in tables else []),
        latex_escape((prose.warnings_count(len(doc.warnings), len(warnings)) + ".")
                     if warnings else prose.warnings_count(len(doc.warnings), 0)),
        *itemize("\n".join(rf"\item {latex_escape(w)}" for w in warnings[:MAX_NOTES])),
        r"\end{document}", ""]
    if any(SHORTENED_WORD.search(text.replace(r"\allowbreak{}", ""))
           for text in [*lines, *table_texts]):
        at = lines.index(r"\input{tables/data.tex}") + 1
        lines[at:at] = [latex_escape(SHORTENING_RULE), ""]
    tex = "\n".join(lines)
    path = directory / "report.tex"
    path.write_text(tex, encoding="utf-8")
    return path
