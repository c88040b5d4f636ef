"""The report as Markdown (pipe tables, figures as SVG files, names escaped).

Rendered from the report document (:mod:`benchverdict.report.document`) only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from benchverdict._plain_text import printable
from benchverdict._safe_output import write_csv
from benchverdict.report import prose
from benchverdict.report.document import (
    MAX_NOTES,
    MAX_SCOPE_LINES,
    MAX_TABLE_ROWS,
    Figure,
    Paper,
    ReportDocument,
    ResultsTableSection,
)

#: The files :func:`write_paper_files` writes.
PAPER_FILES = ("methods.md", "references.bib")

# ----------------------------------------------------------------------------- Markdown
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
#: Characters that start a block (heading, list, quote) when they open a line.
_MD_BLOCK_START = re.compile(r"^(\s*)(?:([#+\-=])|(\d+)([.)])(?=\s|$))")


def md_escape(text: Any) -> str:
    """Escape a string for Markdown (CommonMark/GFM), including inside table cells.

    ``&``, ``<`` and ``>`` become entities (so no HTML can be injected),
    Markdown punctuation is backslash-escaped, newlines become spaces, and
    other control and bidi characters become visible escapes.

    Examples
    --------
    >>> md_escape("<script>a|b*</script>")
    '&lt;script&gt;a\\\\|b\\\\*&lt;/script&gt;'
    """
    s = re.sub(r"\s*[\r\n]+\s*", " ", str(text))
    s = printable(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    def block(m: re.Match) -> str:
        if m.group(2):
            return m.group(1) + "\\" + m.group(2)
        return m.group(1) + m.group(3) + "\\" + m.group(4)

    return _MD_BLOCK_START.sub(block, s)


def _md_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(md_escape(h) for h in header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(md_escape(v) for v in row) + " |" for row in rows]
    return lines


#: The matrix legend in plain text (Markdown, LaTeX, the terminal).
MATRIX_LEGEND = ("row vs column: ▲ row better, ▼ row worse (settled, with the families that "
                 "settle it); △/▽ implied by transitivity; ✕ contradicted; a family name alone: "
                 "power gap (it decides alone, not after the family-wise adjustment; (▲)/(▼) "
                 "its direction); ≈ practically equivalent (within the margin); – not "
                 "separated; the signed number: how much better the row is (mean difference; "
                 "intervals in relations.csv)")


def paper_markdown(paper: Paper) -> str:
    """``methods.md``: the methods and results paragraphs with Pandoc citations.

    The citation keys are those of ``references.bib``
    (``pandoc --citeproc --bibliography references.bib methods.md``); the
    methods paragraph follows with LaTeX ``\\citep`` citations.

    Examples
    --------
    >>> from benchverdict.report.document import Paper, PaperParagraph
    >>> p = Paper("m (Holm 1979)", "m \\\\citep{holm1979}", "m [@holm1979]",
    ...           (PaperParagraph("all benchmarks", "A > B."),), (), ("Holm ...",), "@article")
    >>> print(paper_markdown(p).splitlines()[2])
    m [@holm1979]
    """
    out = ["# Methods", "", paper.methods_pandoc, "", "# Results", ""]
    for p in paper.results:
        out += [p.text, ""]
    if paper.results_per_benchmark:
        out += ["## Per benchmark", ""]
        for p in paper.results_per_benchmark:
            out += [p.text, ""]
    out += ["<!-- Citation keys are those of references.bib: pandoc --citeproc "
            "--bibliography references.bib methods.md. The methods paragraph for LaTeX "
            "(natbib): -->", "", "```latex", paper.methods_latex, "```", ""]
    return "\n".join(out)


def write_paper_files(document: ReportDocument, directory: Path) -> list[Path]:
    """Write ``methods.md`` (:func:`paper_markdown`) and ``references.bib`` into ``directory``.

    Returns the paths written (none for a document without its paper text).
    """
    paper = document.paper
    if paper is None:
        return []
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    methods, bib = (directory / name for name in PAPER_FILES)
    methods.write_text(paper_markdown(paper), encoding="utf-8")
    bib.write_text(paper.bibtex, encoding="utf-8")
    return [methods, bib]


def _paper_lines(paper: Paper | None, link: str | None) -> list[str]:
    """The report's "For a paper" section: methods, results, references."""
    if paper is None:
        return []
    out = ["## For a paper: methods and results", "",
           "*Methods.* " + md_escape(paper.methods), ""]
    for p in paper.results:
        out += ["*Results, " + md_escape(p.scope) + ".* " + md_escape(p.text), ""]
    if paper.references:
        out += ["References:", ""]
        out += [f"- {md_escape(r)}" for r in paper.references]
        out.append("")
    if link is not None:
        out += [f"The same with Pandoc and LaTeX citations, and every benchmark's paragraph: "
                f"[methods.md]({link}methods.md); BibTeX: [references.bib]({link}references.bib)."
                , ""]
    return out


def _results_table_lines(section: ResultsTableSection | None) -> list[str]:
    """The report's "Results table" section: the table, its legend, what it leaves out.

    Examples
    --------
    >>> s = ResultsTableSection("Results (mean).", "| Benchmark | a |\\n", "", "", "", [], {})
    >>> _results_table_lines(s)[:3]
    ['## Results table', '', '*Results (mean).*']
    """
    if section is None:
        return []
    out = ["## Results table", ""]
    if section.frame is None:  # no table: why
        return [*out, md_escape(section.note), ""]
    out += [f"*{md_escape(section.caption)}*", "", section.markdown.rstrip("\n"), ""]
    if section.note:
        out += [f"*Not shown here.* {md_escape(section.note)}.", ""]
    return out


def _glossary_lines(text: str, entries: Sequence[Any]) -> list[str]:
    """The Glossary section: every term the Markdown ``text`` uses (escapes undone)."""
    import html

    terms = prose.glossary_for([html.unescape(re.sub(r"\\(.)", r"\1", text))], entries)
    if not terms:
        return []
    out = ["## Glossary", ""]
    out += [f"- **{md_escape(t.term)}**: {md_escape(t.definition)}" for t in terms]
    return [*out, ""]


def render_markdown(document: ReportDocument, figure_dir: Path | None = None,
                    figure_link: str = "", table_dir: Path | None = None,
                    table_link: str = "", paper_dir: Path | None = None,
                    paper_link: str = "") -> str:
    """The report as Markdown: the summary, then the sections a paper would cite.

    Summary: the headline sentence of every scope, the pairwise matrix of
    the headline scope and the partial-ranking diagram. Then the results
    table a paper prints (bold by the per-benchmark relations), the
    paragraphs for a paper, contradictions,
    power gaps, one short paragraph per analysis (status, notes, figures),
    the data and what was left out. Full tables are not inlined: with
    ``table_dir`` they are written there as CSV files
    (:attr:`~benchverdict.report.document.ReportDocument.csv_tables`) and
    linked at ``table_link/<name>.csv``. With ``figure_dir``, every figure
    is written there as SVG and embedded, linked at
    ``figure_link/<file>.svg`` (paths relative to the Markdown file);
    without it, figures are listed by title. With ``paper_dir``,
    ``methods.md`` and ``references.bib`` (:func:`write_paper_files`) are
    written there and linked at ``paper_link``. The technical terms the
    page uses are defined in its last section, the Glossary.
    """
    doc = document
    summary = doc.summary
    tables: dict[str, str] = {}
    if table_dir is not None:
        table_dir.mkdir(parents=True, exist_ok=True)
        for t in doc.csv_tables:
            path = write_csv(t.frame, table_dir / t.file_name, index=t.with_index)
            tables[t.name] = (f"{table_link.rstrip('/')}/{path.name}" if table_link
                              else path.name)

    def table_ref(name: str) -> str:
        return f"[{md_escape(name)}.csv]({tables[name]})" if name in tables else (
            f"{md_escape(name)}.csv")

    def figure_lines(figs: Sequence[Figure], caption: bool = True) -> list[str]:
        lines = []
        for f in figs:
            if figure_dir is None:
                lines.append(f"- Figure *{md_escape(f.title)}*")
                continue
            figure_dir.mkdir(parents=True, exist_ok=True)
            (figure_dir / f"{f.file_name}.svg").write_bytes(f.svg())
            link = f"{figure_link.rstrip('/')}/{f.file_name}.svg" if figure_link else (
                f"{f.file_name}.svg")
            lines += [f"![{md_escape(f.title)}]({link})", ""]
            if caption:
                lines += [f"*{md_escape(f.title)}.* {md_escape(f.caption)}", ""]
        return lines

    drawings = doc.drawings.get()
    out = [f"# {md_escape(doc.title)}", "",
           f"Objective: **{md_escape(doc.objective)}**. {md_escape(doc.settings.text)}.", "",
           "## Summary", ""]
    out += [f"**{md_escape(summary.headline)}**", ""]
    others = summary.others
    for x in others[:MAX_SCOPE_LINES]:
        out.append(f"- {md_escape(x.sentence)}")
    if len(others) > MAX_SCOPE_LINES:
        out.append(f"- ... and {len(others) - MAX_SCOPE_LINES} more scopes "
                   f"({table_ref('relations')}).")
    if others:
        out.append("")
    for note in summary.notes:
        out += [f"*Note:* {md_escape(note)}", ""]
    for text in summary.single_draws[:1]:
        out += [md_escape(text), ""]
    matrix = summary.matrix
    if matrix is not None:
        header, rows = matrix.plain_rows()
        legend = MATRIX_LEGEND + ("; " + matrix.letters_legend if matrix.wide else "")
        out += [f"Pairwise relations, {md_escape(matrix.scope)} ({md_escape(legend)}):", ""]
        out += [*_md_table(header, rows), ""]
    if drawings.ranking is not None:
        out += figure_lines([drawings.ranking])
    if drawings.ranking_scopes is not None:
        out += figure_lines([drawings.ranking_scopes], caption=False)
    if out[-1]:
        out.append("")  # a list of figures ends without a blank line
    out += _results_table_lines(doc.results_table.get())
    if paper_dir is not None:
        write_paper_files(doc, paper_dir)
    link = (paper_link.rstrip("/") + "/" if paper_link else "") if paper_dir is not None else None
    out += _paper_lines(doc.paper, link)
    out += ["## Contradictions", ""]
    contradictions = doc.contradictions
    if contradictions:
        out += _md_table(contradictions.header, contradictions.body[:MAX_TABLE_ROWS])
        if len(contradictions.body) > MAX_TABLE_ROWS:
            out.append(f"\n({len(contradictions.body) - MAX_TABLE_ROWS} more in "
                       f"{table_ref('contradictions')}.)")
    else:
        out.append(prose.NO_CONTRADICTIONS)
    groups = doc.method_disagreements.body
    if groups:
        out += ["", prose.disagreements(doc.n_conflicts, table_ref("method_disagreements"))
                + " The explanations, each once:", ""]
        for m1, m2, n, _pairs, why in groups[:MAX_SCOPE_LINES]:
            out.append(f"- {md_escape(m1)} vs {md_escape(m2)} ({n} pair(s)): {md_escape(why)}")
        if len(groups) > MAX_SCOPE_LINES:
            out.append(f"- ... and {len(groups) - MAX_SCOPE_LINES} more.")
    out += ["", "## Power gaps", ""]
    if doc.power_gap_sentence:
        out += [md_escape(doc.power_gap_sentence), ""]
    power = doc.power_gaps
    if power:
        out += _md_table(power.header, power.body[:MAX_TABLE_ROWS])
        if len(power.body) > MAX_TABLE_ROWS:
            out.append(f"\n({len(power.body) - MAX_TABLE_ROWS} more in "
                       f"{table_ref('power_gaps')}.)")
    else:
        out.append(prose.NO_UNCONFIRMED if doc.power_gap_sentence else prose.NO_POWER_GAPS)
    guided = doc.guidance
    if guided:
        out += ["", "Sample-size guidance (each advice once, with the scopes it applies to; the "
                    "unsettled pairs are in relations.csv):", ""]
        for g in guided[:MAX_SCOPE_LINES]:
            out.append(f"- {md_escape(g.scopes)}: {md_escape(g.advice)}")
        if len(guided) > MAX_SCOPE_LINES:
            out.append(f"- ... and {len(guided) - MAX_SCOPE_LINES} more (report.json).")
    out += ["", f"Every relation of every scope, with its status and reason: "
                f"{table_ref('relations')}.", "", "## Analyses", ""]
    for a, shown in zip(doc.analyses, drawings.analyses):
        line = (f"**{md_escape(a.title)}**: {md_escape(a.status)}"
                + (f"; {md_escape(a.reason)}" if a.reason else "")
                + f" ({a.n_verdicts} verdicts, {a.seconds:.1f} s).")
        out += [line, ""]
        for note in a.notes[:MAX_NOTES]:
            out.append(f"- {md_escape(note)}")
        if len(a.notes) > MAX_NOTES:
            out.append(f"- ... and {len(a.notes) - MAX_NOTES} more notes (report.json).")
        if a.notes:
            out.append("")
        if a.tables:
            out += ["Tables: " + ", ".join(table_ref(t.csv_name) for t in a.tables) + ".", ""]
        out += figure_lines(shown, caption=False)
    out += ["## Data", ""]
    out += _md_table(["", "value"], doc.data_rows)
    n_excluded = doc.n_excluded_records
    out += ["", (f"Left out: {n_excluded:,} record(s), by analysis and step (every record "
                 f"is in exclusions.csv):") if n_excluded else prose.NOTHING_LEFT_OUT, ""]
    if doc.exclusion_table is not None:
        t = doc.exclusion_table
        out += _md_table(t.header, t.body[:MAX_TABLE_ROWS])
        if t.n_left_out or len(t.body) > MAX_TABLE_ROWS:
            out.append(f"\n({t.n_left_out + max(len(t.body) - MAX_TABLE_ROWS, 0)} more rows "
                       f"in exclusions.csv.)")
        out.append("")
    if doc.sanity:
        out += ["Sanity checks:", ""]
        out += _md_table(["analysis", "check", "status", "conclusion"],
                         [[ch.analysis, ch.name, ch.status, ch.conclusion] for ch in doc.sanity])
        out.append("")
    warnings = doc.distinct_warnings
    if warnings:
        out += [prose.warnings_count(len(doc.warnings), len(warnings))
                + (f"; the first {MAX_NOTES}:" if len(warnings) > MAX_NOTES else ":"), ""]
        out += [f"- {md_escape(w)}" for w in warnings[:MAX_NOTES]]
    else:
        out.append(prose.warnings_count(len(doc.warnings), 0))
    out.append("")
    out += _glossary_lines("\n".join(out), doc.glossary)
    out += [f"*benchverdict {md_escape(doc.version)}*", ""]
    return "\n".join(out)
