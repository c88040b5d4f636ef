"""The report as LaTeX: ``report.tex``, booktabs tables and PDF figures."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchverdict._plain_text import printable
from benchverdict.report.render import (
    LETTERS_LEGEND,
    MAX_NOTES,
    MAX_SCOPE_LINES,
    MAX_TABLE_ROWS,
    WIDE_MATRIX,
    _conflict_group_rows,
    _contradiction_rows,
    _data_sections,
    _matrix_rows_text,
    _power_rows,
    _relation_rows,
    _relations_left_out,
    _scopes_text,
    _summary,
    _unique_figures,
    grouped_guidance,
    table_names,
)

if TYPE_CHECKING:
    from benchverdict.report.runner import Comparison


# ----------------------------------------------------------------------------- LaTeX
_LATEX_SPECIAL = {
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
}
_LATEX_RE = re.compile("|".join(re.escape(k) for k in _LATEX_SPECIAL))


def latex_escape(text: Any) -> str:
    r"""Escape a string for LaTeX text (every special character, newlines as spaces).

    Control and bidi characters are first made visible (``\x00``), then
    escaped like any other text.

    Unicode is kept as is: compile with LuaLaTeX or XeLaTeX (or pdfLaTeX with
    ``inputenc`` for Latin scripts).

    Examples
    --------
    >>> latex_escape("50% of a_b & {c} $")
    '50\\% of a\\_b \\& \\{c\\} \\$'
    """
    s = printable(re.sub(r"\s*[\r\n]+\s*", " ", str(text)))
    return _LATEX_RE.sub(lambda m: _LATEX_SPECIAL[m.group(0)], s)


def _latex_table(header: Sequence[str], rows: Sequence[Sequence[Any]], *, caption: str,
                 label: str, spec: str, long: bool = False) -> str:
    head = " & ".join(rf"\textbf{{{latex_escape(h)}}}" for h in header) + r" \\"
    body = "\n".join(" & ".join(latex_escape(v) for v in row) + r" \\" for row in rows)
    if long:
        return "\n".join([
            rf"\begin{{longtable}}{{{spec}}}",
            rf"\caption{{{latex_escape(caption)}}}\label{{{label}}} \\",
            r"\toprule", head, r"\midrule", r"\endfirsthead",
            r"\toprule", head, r"\midrule", r"\endhead",
            r"\bottomrule", r"\endlastfoot",
            body,
            r"\end{longtable}", ""])
    return "\n".join([
        r"\begin{table}[htbp]", r"\centering", r"\small",
        rf"\caption{{{latex_escape(caption)}}}\label{{{label}}}",
        rf"\begin{{tabular}}{{{spec}}}", r"\toprule", head, r"\midrule", body,
        r"\bottomrule", r"\end{tabular}", r"\end{table}", ""])


_LATEX_CELL = str.maketrans({"▲": ">", "▼": "<", "△": "(>)", "▽": "(<)", "✕": "x",
                             "–": "--", "·": ""})


def render_latex(comparison: Comparison, directory: Path) -> Path:
    """Write ``report.tex``, ``tables/*.tex`` (booktabs) and ``figures/*.pdf``.

    Returns the path of ``report.tex``, a standalone document (``article``
    with booktabs, longtable, graphicx) that ``\\input``s every table file.
    It holds what a paper cites: the summary (headline sentences, the
    pairwise matrix, the partial-ranking diagram), the relations of the
    headline scope, contradictions, power gaps, each analysis's figures and
    the data. Each table file is a complete ``table``/``longtable``; the full
    tables (every scope, every verdict, each analysis's tables) are the CSV
    files of the report directory (:func:`full_tables`).
    """
    c = comparison
    s = _data_sections(c)
    summary = _summary(c)
    directory = Path(directory)
    (directory / "tables").mkdir(parents=True, exist_ok=True)
    (directory / "figures").mkdir(parents=True, exist_ok=True)
    tables: list[str] = []

    def write_table(name: str, text: str) -> None:
        (directory / "tables" / f"{name}.tex").write_text(text, encoding="utf-8")
        tables.append(name)

    head = summary["head"]
    if summary["matrix"] is not None:
        header, rows = _matrix_rows_text(summary["matrix"])
        rows = [[r[0], *(v.translate(_LATEX_CELL) for v in r[1:])] for r in rows]
        write_table("matrix", _latex_table(
            header, rows,
            caption=f"Pairwise relations, {head.scope}: row vs column; > row better, < row "
                    f"worse (settled, with the families that settle it at family-wise error "
                    f"{c.options.alpha:g}); (>) (<) implied by transitivity; x contradicted; a "
                    f"family name alone: power gap; -- not separated."
                    + (f" Letters name the {LETTERS_LEGEND}." if len(header) - 1 > WIDE_MATRIX
                       else ""),
            label="tab:matrix", spec="l" + "c" * (len(header) - 1)))
    if head is not None:
        head_rows = [r for r in _relation_rows(c, scope=head.scope)]
        left = _relations_left_out(c, len(head_rows), scope=head.scope)
        write_table("relations", _latex_table(
            ["scope", "relation", "status", "families", "adjusted p", "why"], head_rows,
            caption=f"Every pair on {head.scope}: status, the families that settle it, the "
                    f"Holm-adjusted p-value over the scope type, and why. Every scope is in "
                    f"relations.csv. {left}",
            label="tab:relations", spec="p{2.2cm}p{2.6cm}p{1.6cm}p{1.8cm}rp{8.5cm}",
            long=True))
    contradictions = _contradiction_rows(c)
    if contradictions:
        write_table("contradictions", _latex_table(
            ["scope", "pair", "for the first", "for the second", "kind", "explanation"],
            contradictions[:MAX_TABLE_ROWS],
            caption="Families of evidence deciding a pair in opposite directions."
                    + (f" ({len(contradictions) - MAX_TABLE_ROWS} more in contradictions.csv.)"
                       if len(contradictions) > MAX_TABLE_ROWS else ""),
            label="tab:contradictions", spec="p{2.2cm}p{2.4cm}p{1.8cm}p{1.8cm}p{1.6cm}p{8cm}",
            long=True))
    power = _power_rows(c)
    if power:
        write_table("power_gaps", _latex_table(
            ["scope", "family", "pairs", "which", "settled by", "why"], power[:MAX_TABLE_ROWS],
            caption="Power gaps: settled relations a family could not decide on its own data."
                    + (f" ({len(power) - MAX_TABLE_ROWS} more in power_gaps.csv.)"
                       if len(power) > MAX_TABLE_ROWS else ""),
            label="tab:power", spec="p{2.2cm}p{2.0cm}rp{4.0cm}p{1.8cm}p{7.5cm}", long=True))
    write_table("data", _latex_table(["", "value"], s["data_rows"], caption="The data.",
                                     label="tab:data", spec="lp{11cm}"))
    if s["exclusion_summary"] is not None:
        header, rows, more = s["exclusion_summary"]
        write_table("exclusions", _latex_table(
            header, rows, caption="What each analysis left out (count per step), with examples "
            "and the most common reason; exclusions.csv has every record."
            + (f" ({more} more rows not shown.)" if more else ""),
            label="tab:exclusions", spec="p{1.4cm}p{3.0cm}p{1.6cm}rp{6.0cm}p{5.0cm}",
            long=True))
    checks = [[r.name, ch.get("name", ""), ch.get("status", ""), ch.get("conclusion", "")]
              for r in c.runs for ch in r.sanity]
    if checks:
        write_table("sanity", _latex_table(
            ["analysis", "check", "status", "conclusion"], checks,
            caption="Sanity checks, and analysis steps that failed or were not run.",
            label="tab:sanity", spec="p{1.4cm}p{4.0cm}p{1.4cm}p{11cm}", long=True))

    def figure_block(f) -> str:
        f.save(directory / "figures", formats=("pdf",))
        return "\n".join([
            r"\begin{figure}[htbp]", r"\centering",
            rf"\includegraphics[width=\linewidth,height=0.8\textheight,keepaspectratio]"
            rf"{{figures/{f.file_name}.pdf}}",
            rf"\caption{{{latex_escape(f.title)}. {latex_escape(f.caption)}}}",
            rf"\label{{fig:{f.file_name}}}", r"\end{figure}", ""])

    n_own = len(c.figures) - sum(len(r.figures) for r in c.runs)
    own = {f.name: f for f in c.figures[:n_own]}
    summary_figures = [figure_block(own[n]) for n in ("report-ranking", "report-ranking-scopes")
                       if n in own]
    names = table_names(c)
    analysis_parts = []
    for r in c.runs:
        part = [rf"\subsection*{{{latex_escape(r.title)}}}",
                latex_escape(f"Status: {r.status}" + (f"; {r.reason}" if r.reason else "")
                             + f" ({len(r.verdicts)} verdicts)."), ""]
        if r.notes:
            part += [r"\begin{itemize}", *(rf"\item {latex_escape(n)}"
                                           for n in r.notes[:MAX_NOTES]), r"\end{itemize}"]
        if r.tables:
            part.append(latex_escape("Tables (CSV): " + ", ".join(
                f"{names[(r.name, t)]}.csv" for t in r.tables) + "."))
        part += [figure_block(f) for f in _unique_figures(r.figures)]
        analysis_parts.append("\n".join(part))
    others = summary["others"][:MAX_SCOPE_LINES]
    scope_items = "\n".join(rf"\item {latex_escape(x.sentence)}" for x in others)
    draws = " ".join([*(latex_escape("Note: " + n) for n in summary["notes"]),
                      *(latex_escape(x.single_draws) for x in summary["single_draws"][:1])])
    guidance = "\n".join(rf"\item \textbf{{{latex_escape(_scopes_text(sc))}}}: "
                         rf"{latex_escape(adv)}"
                         for sc, adv in grouped_guidance(s["rankings"])[:MAX_SCOPE_LINES])
    groups = _conflict_group_rows(c)
    explanations = "\n".join(
        rf"\item {latex_escape(m1)} vs {latex_escape(m2)} ({latex_escape(n)} pair(s)): "
        rf"{latex_escape(why)}" for m1, m2, n, _, why in groups[:MAX_SCOPE_LINES])
    warnings = s["warnings"]

    def itemize(body: str) -> list[str]:
        return [r"\begin{itemize}", body, r"\end{itemize}"] if body else []

    headline = head.sentence if head is not None else s["headline"]
    disagreements = (f"Single methods name different winners on {len(c.conflicts):,} "
                     f"occasion(s) (method_disagreements.csv); within a family only the "
                     f"primary method votes, and score distributions do not vote. The "
                     f"explanations:")
    doc = "\n".join([
        "% benchverdict comparison report. Compile with lualatex or xelatex (unicode names),",
        "% or pdflatex for Latin-script names. Tables need booktabs and longtable.",
        r"\documentclass[10pt]{article}",
        r"\usepackage[margin=2cm,landscape]{geometry}",
        r"\usepackage{iftex}",
        r"\ifPDFTeX\usepackage[utf8]{inputenc}\usepackage[T1]{fontenc}\else"
        r"\usepackage{fontspec}\fi",
        "% pdfLaTeX knows only some Unicode characters: show the others as a boxed ? instead",
        "% of stopping (LuaLaTeX and XeLaTeX typeset them with a suitable font).",
        r"\ifPDFTeX\makeatletter\def\UTFviii@undefined@err#1{\fbox{?}}\makeatother\fi",
        r"\usepackage{booktabs,longtable,graphicx,array}",
        rf"\title{{{latex_escape(s['title'])}}}",
        rf"\date{{benchverdict {latex_escape(s['version'])}}}",
        r"\begin{document}", r"\maketitle",
        rf"Objective: \textbf{{{latex_escape(s['objective'])}}}. "
        rf"Options: {latex_escape(s['options'])}.",
        r"\section{Summary}\label{sec:summary}",
        rf"\textbf{{{latex_escape(headline)}}}",
        *itemize(scope_items),
        draws, "",
        *[rf"\input{{tables/{t}.tex}}" for t in tables if t == "matrix"],
        *summary_figures,
        *[rf"\input{{tables/{t}.tex}}" for t in tables if t == "relations"],
        r"\section{Contradictions}\label{sec:contradictions}",
        *([r"\input{tables/contradictions.tex}"] if "contradictions" in tables else
          ["No two families of evidence decide any pair in opposite directions."]),
        *(["", latex_escape(disagreements), *itemize(explanations)] if explanations else []),
        r"\section{Power gaps}\label{sec:power}",
        *([r"\input{tables/power_gaps.tex}"] if "power_gaps" in tables else
          ["No family misses a relation another family settles."]),
        *(["Sample-size guidance:", *itemize(guidance)] if guidance else []),
        r"\section{Analyses}\label{sec:analyses}",
        *analysis_parts,
        r"\section{Data}\label{sec:data}",
        r"\input{tables/data.tex}",
        *([r"\input{tables/exclusions.tex}"] if "exclusions" in tables else []),
        *([r"\input{tables/sanity.tex}"] if "sanity" in tables else []),
        latex_escape(f"Warnings: {len(c.warnings)}, {len(warnings)} distinct (each one is in "
                     f"report.json)." if warnings else "Warnings: none."),
        *itemize("\n".join(rf"\item {latex_escape(w)}" for w in warnings[:MAX_NOTES])),
        r"\end{document}", ""])
    path = directory / "report.tex"
    path.write_text(doc, encoding="utf-8")
    return path
