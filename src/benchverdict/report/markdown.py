"""The report as Markdown (pipe tables, figures as SVG files, names escaped)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
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
    _scopes_text,
    _summary,
    _unique_figures,
    grouped_guidance,
    table_names,
    write_tables,
)

if TYPE_CHECKING:
    from benchverdict.report.runner import Comparison


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


def _md_omitted(s: dict[str, Any], what: str) -> list[str]:
    text = s["omitted"][what]
    return ["", md_escape(text)] if text else []


#: The matrix legend in plain text (Markdown, LaTeX, the terminal).
MATRIX_LEGEND = ("row vs column: ▲ row better, ▼ row worse (settled, with the families that "
                 "settle it); △/▽ implied by transitivity; ✕ contradicted; a family name alone: "
                 "power gap (it decides alone, not after the family-wise adjustment; (▲)/(▼) "
                 "its direction); – not separated")


def render_markdown(comparison: Comparison, figure_dir: Path | None = None,
                    figure_link: str = "", table_dir: Path | None = None,
                    table_link: str = "") -> str:
    """The report as Markdown: the summary, then the sections a paper would cite.

    Summary: the headline sentence of every scope, the pairwise matrix of
    the headline scope and the partial-ranking diagram. Then contradictions,
    power gaps, one short paragraph per analysis (status, notes, figures),
    the data and what was left out. Full tables are not inlined: with
    ``table_dir`` they are written there as CSV files (:func:`full_tables`)
    and linked at ``table_link/<name>.csv``. With ``figure_dir``, every
    figure is written there as SVG and embedded, linked at
    ``figure_link/<file>.svg`` (paths relative to the Markdown file);
    without it, figures are listed by title.
    """
    c = comparison
    s = _data_sections(c)
    summary = _summary(c)
    tables: dict[str, str] = {}
    if table_dir is not None:
        for name, path in write_tables(c, table_dir).items():
            tables[name] = (f"{table_link.rstrip('/')}/{path.name}" if table_link
                            else path.name)

    def table_ref(name: str) -> str:
        return f"[{md_escape(name)}.csv]({tables[name]})" if name in tables else (
            f"{md_escape(name)}.csv")

    def figure_lines(figs, caption: bool = True) -> list[str]:
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

    n_own = len(c.figures) - sum(len(r.figures) for r in c.runs)
    own = {f.name: f for f in c.figures[:n_own]}
    names = table_names(c)
    head = summary["head"]
    out = [f"# {md_escape(s['title'])}", "",
           f"Objective: **{md_escape(s['objective'])}**. {md_escape(s['options'])}.", "",
           "## Summary", ""]
    out += [f"**{md_escape(head.sentence if head is not None else s['headline'])}**", ""]
    others = summary["others"]
    for x in others[:MAX_SCOPE_LINES]:
        out.append(f"- {md_escape(x.sentence)}")
    if len(others) > MAX_SCOPE_LINES:
        out.append(f"- ... and {len(others) - MAX_SCOPE_LINES} more scopes "
                   f"({table_ref('relations')}).")
    if others:
        out.append("")
    for note in summary["notes"]:
        out += [f"*Note:* {md_escape(note)}", ""]
    for x in summary["single_draws"][:1]:
        out += [md_escape(x.single_draws), ""]
    if summary["matrix"] is not None:
        header, rows = _matrix_rows_text(summary["matrix"])
        legend = MATRIX_LEGEND + ("; " + LETTERS_LEGEND if len(header) - 1 > WIDE_MATRIX
                                  else "")
        out += [f"Pairwise relations, {md_escape(head.scope)} ({md_escape(legend)}):", ""]
        out += [*_md_table(header, rows), ""]
    for name in ("report-ranking", "report-ranking-scopes"):
        if name in own:
            out += figure_lines([own[name]], caption=name == "report-ranking")
    out += ["## Contradictions", ""]
    contradictions = _contradiction_rows(c)
    if contradictions:
        out += _md_table(["scope", "pair", "for the first", "for the second", "kind",
                          "explanation"], contradictions[:MAX_TABLE_ROWS])
        if len(contradictions) > MAX_TABLE_ROWS:
            out.append(f"\n({len(contradictions) - MAX_TABLE_ROWS} more in "
                       f"{table_ref('contradictions')}.)")
    else:
        out.append("No two families of evidence decide any pair in opposite directions.")
    groups = _conflict_group_rows(c)
    if groups:
        out += ["", f"Single methods name different winners on {len(c.conflicts):,} "
                    f"occasion(s) ({table_ref('method_disagreements')}); within a family only "
                    f"the primary method votes, and score distributions do not vote. The "
                    f"explanations, each once:", ""]
        for m1, m2, n, _pairs, why in groups[:MAX_SCOPE_LINES]:
            out.append(f"- {md_escape(m1)} vs {md_escape(m2)} ({n} pair(s)): {md_escape(why)}")
        if len(groups) > MAX_SCOPE_LINES:
            out.append(f"- ... and {len(groups) - MAX_SCOPE_LINES} more.")
    out += ["", "## Power gaps", ""]
    power = _power_rows(c)
    if power:
        out += _md_table(["scope", "family", "pairs", "which", "settled by", "why"],
                         power[:MAX_TABLE_ROWS])
        if len(power) > MAX_TABLE_ROWS:
            out.append(f"\n({len(power) - MAX_TABLE_ROWS} more in {table_ref('power_gaps')}.)")
    else:
        out.append("No family misses a relation another family settles.")
    guided = grouped_guidance(s["rankings"])
    if guided:
        out += ["", "Sample-size guidance (each advice once, with the scopes it applies to; the "
                    "unsettled pairs are in relations.csv):", ""]
        for scopes, advice in guided[:MAX_SCOPE_LINES]:
            out.append(f"- {md_escape(_scopes_text(scopes))}: {md_escape(advice)}")
        if len(guided) > MAX_SCOPE_LINES:
            out.append(f"- ... and {len(guided) - MAX_SCOPE_LINES} more (report.json).")
    out += ["", f"Every relation of every scope, with its status and reason: "
                f"{table_ref('relations')}.", "", "## Analyses", ""]
    for r in c.runs:
        line = (f"**{md_escape(r.title)}**: {md_escape(r.status)}"
                + (f"; {md_escape(r.reason)}" if r.reason else "")
                + f" ({len(r.verdicts)} verdicts, {r.seconds:.1f} s).")
        out += [line, ""]
        for note in r.notes[:MAX_NOTES]:
            out.append(f"- {md_escape(note)}")
        if len(r.notes) > MAX_NOTES:
            out.append(f"- ... and {len(r.notes) - MAX_NOTES} more notes (report.json).")
        if r.notes:
            out.append("")
        own_tables = [names[(r.name, name)] for name in r.tables]
        if own_tables:
            out += ["Tables: " + ", ".join(table_ref(t) for t in own_tables) + ".", ""]
        out += figure_lines(_unique_figures(r.figures), caption=False)
    out += ["## Data", ""]
    out += _md_table(["", "value"], s["data_rows"])
    header, rows, more = s["balance"]
    n_excluded = len(c.exclusions)
    out += ["", (f"Left out: {n_excluded:,} record(s), by analysis and step (every record "
                 f"is in exclusions.csv):") if n_excluded else "Nothing was left out.", ""]
    if s["exclusion_summary"] is not None:
        header, rows, more = s["exclusion_summary"]
        out += _md_table(header, rows[:MAX_TABLE_ROWS])
        if more or len(rows) > MAX_TABLE_ROWS:
            out.append(f"\n({more + max(len(rows) - MAX_TABLE_ROWS, 0)} more rows in "
                       f"exclusions.csv.)")
        out.append("")
    checks = [(r.name, ch) for r in c.runs for ch in r.sanity]
    if checks:
        out += ["Sanity checks:", ""]
        out += _md_table(["analysis", "check", "status", "conclusion"],
                         [[n, ch.get("name", ""), ch.get("status", ""), ch.get("conclusion", "")]
                          for n, ch in checks])
        out.append("")
    warnings = s["warnings"]
    if warnings:
        out += [f"Warnings: {len(c.warnings)}, {len(warnings)} distinct (each one is in "
                f"report.json)" + (f"; the first {MAX_NOTES}:" if len(warnings) > MAX_NOTES
                                   else ":"), ""]
        out += [f"- {md_escape(w)}" for w in warnings[:MAX_NOTES]]
    else:
        out.append("Warnings: none.")
    out += ["", f"*benchverdict {md_escape(s['version'])}*", ""]
    return "\n".join(out)
