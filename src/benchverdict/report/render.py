"""Renderers: one JSON document, rendered as JSON, HTML, Markdown and LaTeX.

Every renderer starts from :func:`report_document`, so the formats say the
same thing. User-supplied strings (algorithm, benchmark, metafeature and
column names, and anything derived from them) are escaped for each target:
Jinja2's autoescape for HTML, entities and backslashes for Markdown, the
LaTeX specials for LaTeX, and ``json.dumps`` for JSON. In every format,
control, lone-surrogate and bidirectional-control characters in names are
shown as visible escapes (:func:`benchverdict._plain_text.printable`), so a
name cannot hide or reorder the text around it or make a file unreadable.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from benchverdict._plain_text import printable
from benchverdict._version import __version__
from benchverdict.verdict import metafeature_label, verdict_to_dict

if TYPE_CHECKING:
    from benchverdict.report.runner import Comparison

#: Name and version of the report JSON layout (``report.schema.json``).
REPORT_SCHEMA = "benchverdict.report"
REPORT_SCHEMA_VERSION = 2
#: The committed JSON Schema of the report document.
SCHEMA_PATH = Path(__file__).with_name("report.schema.json")
#: Disagreements shown before the rest fold into a <details> block (HTML).
SHOWN_CONFLICTS = 25
#: At most this many rows of a module's table are shown in HTML/Markdown/LaTeX.
MAX_TABLE_ROWS = 40
#: At most this many agreement rows (of each kind: all benchmarks, single benchmarks),
#: disagreements and verdicts are shown in HTML/Markdown/LaTeX; JSON and the CSV files
#: have them all. (1000 algorithms make 500,000 pairs: no page can show them.)
MAX_DOCUMENT_ROWS = 2000


# ----------------------------------------------------------------------------- plain values
def _plain(value: Any) -> Any:
    """JSON-safe plain value: numpy scalars unwrapped, NaN/inf -> None."""
    if isinstance(value, (np.generic,)):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, bool)):
        return value
    # pd.isna raises on containers it cannot judge; those are rendered as text.
    with contextlib.suppress(TypeError, ValueError):
        if pd.isna(value):
            return None
    return str(value)


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): _plain(v) for k, v in row.items()} for row in frame.to_dict("records")]


def _split(text: Any, sep: str) -> list[str]:
    if text is None or (isinstance(text, float) and math.isnan(text)) or text == "":
        return []
    return [t.strip() for t in str(text).split(sep) if t.strip()]


def _meta_pairs(text: Any) -> list[list[str]]:
    return [list(p.split("=", 1)) for p in _split(text, ";")]


def _group_key(a: Any, b: Any, benchmark: Any, metafeature: Any) -> tuple:
    return (a, b, _plain(benchmark), _plain(metafeature) or None)


def _representatives_by_group(rec) -> dict[tuple, list]:
    """Each method's representative verdict, by pair and scope (one pass, not per row)."""
    groups: dict[tuple, list] = {}
    for x in rec.representatives.itertuples(index=False):
        groups.setdefault(_group_key(x.a, x.b, x.benchmark, x.metafeature), []).append(x)
    return groups


# ----------------------------------------------------------------------------- the document
def report_document(comparison: Comparison) -> dict[str, Any]:
    """The report as one JSON-safe dict (layout: ``report.schema.json``, version 1).

    Verdicts use :func:`benchverdict.verdict.verdict_to_dict` (lossless:
    non-finite floats are tagged ``{"$float": "nan"|"inf"|"-inf"}``); every
    other number is finite or ``null``.
    """
    c = comparison
    rec = c.reconciliation
    d = c.description
    budgets = None
    if len(d.budgets):
        budgets = {
            "min": _plain(float(d.budgets["min"].min())),
            "max": _plain(float(d.budgets["max"].max())),
            "distinct": int(d.counts.loc["budget", "distinct"]) if "budget" in d.counts.index
            else None,
        }
    balance = d.balance
    data = {
        "n_rows": int(d.n_rows),
        "kind": d.kind,
        "kind_reason": d.kind_reason,
        "algorithms": list(c.algorithms),
        "benchmarks": list(c.benchmarks),
        "n_seeds": int(c.n_seeds),
        "metafeatures": list(c.metafeatures),
        "budgets": budgets,
        "balanced": bool(d.balanced),
        "n_missing_cells": int(d.n_missing_cells),
        "seeds_per_cell": {"min": int(balance.to_numpy().min()),
                           "max": int(balance.to_numpy().max())},
        "n_excluded_rows": int(d.exclusions["rows"].sum()) if len(d.exclusions) else 0,
        "exclusions": [
            {"column": str(r["column"]), "reason": str(r["reason"]), "rows": int(r["rows"])}
            for r in d.exclusions.to_dict("records")
        ],
    }
    analyses = [
        {
            "name": r.name,
            "title": r.title,
            "status": r.status,
            "reason": r.reason,
            "n_verdicts": len(r.verdicts),
            "seconds": round(float(r.seconds), 3),
            "notes": [str(n) for n in r.notes],
            "warnings": [str(w) for w in r.warnings],
            "figures": [{"name": f.name, "file": f.file_name, "title": f.title,
                         "caption": f.caption} for f in r.figures],
            "tables": sorted(r.tables),
        }
        for r in c.runs
    ]
    by_group = _representatives_by_group(rec)
    agreement = []
    for row in _records(rec.agreement):
        agreement.append({
            "a": row["a"], "b": row["b"], "benchmark": row["benchmark"],
            "metafeature": _meta_pairs(row["metafeature"]),
            "n_methods": int(row["n_methods"]),
            "methods": _split(row["methods"], ","),
            "outcomes": [
                {"method": r.method, "outcome": r.outcome, "votes": bool(r.votes)}
                for r in by_group.get(_group_key(row["a"], row["b"], row["benchmark"],
                                                 row["metafeature"]), ())
            ],
            "agreement": row["agreement"],
            "consensus": row["consensus"],
            "consensus_winner": row["consensus_winner"],
            "reason": row["reason"],
            "not_voting": _split(row["not_voting"], ","),
            "n_conflicts": int(row["n_conflicts"]),
        })
    conflicts = []
    for row in _records(rec.conflicts):
        conflicts.append({
            "a": row["a"], "b": row["b"], "benchmark": row["benchmark"],
            "metafeature": _meta_pairs(row["metafeature"]),
            "method_1": row["method_1"], "budget_1": row["budget_1"],
            "outcome_1": row["outcome_1"],
            "method_2": row["method_2"], "budget_2": row["budget_2"],
            "outcome_2": row["outcome_2"],
            "kind": row["kind"],
            "rules": _split(row["rules"], ","),
            "explanation": row["explanation"],
        })
    m = rec.method_agreement
    method_agreement = {
        "methods": [str(x) for x in m.index],
        "matrix": [[_plain(float(v)) for v in row] for row in m.to_numpy()],
    }
    rankings = [
        {
            "benchmark": r.benchmark,
            "metafeature": [list(p) for p in r.metafeature],
            "status": r.status,
            "tiers": [list(t) for t in r.tiers],
            "settled": [list(p) for p in r.settled],
            "unsettled": [{"a": a, "b": b, "why": why} for a, b, why in r.unsettled],
            "message": r.message,
            "guidance": list(r.guidance),
        }
        for r in rec.rankings
    ]
    sanity = [
        {"analysis": r.name, **{k: _plain(v) for k, v in check.items()}}
        for r in c.runs for check in r.sanity
    ]
    exclusions = [
        {"analysis": str(r["analysis"]), "step": str(r["step"]), "what": str(r["what"]),
         "count": int(r["count"]), "examples": str(r["examples"]), "reason": str(r["reason"])}
        for r in c.exclusion_summary.to_dict("records")
    ]
    return {
        "schema": REPORT_SCHEMA,
        "schema_version": REPORT_SCHEMA_VERSION,
        "benchverdict_version": __version__,
        "generated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "objective": c.objective,
        "options": {
            "analyses": [r.name for r in c.runs],
            "confidence": c.options.confidence,
            "alpha": c.options.alpha,
            "budget": c.options.budget,
            "formula": c.options.formula,
            "final_budget": _plain(rec.final_budget),
        },
        "data": data,
        "analyses": analyses,
        "verdicts": [verdict_to_dict(v) for v in rec.verdicts],
        "agreement": agreement,
        "conflicts": conflicts,
        "method_agreement": method_agreement,
        "rankings": rankings,
        "sanity": sanity,
        "exclusions": exclusions,
        "warnings": [str(w) for w in c.warnings],
    }


def render_json(comparison: Comparison, *, indent: int | None = 2) -> str:
    """The report document as JSON text (strict: no NaN literals)."""
    # default=str: a module may put an object JSON does not know into a verdict's details.
    doc = report_document(comparison)
    text = json.dumps(doc, indent=indent, allow_nan=False, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate in a name cannot be written as UTF-8; JSON's \u escapes can.
        text = json.dumps(doc, indent=indent, allow_nan=False, ensure_ascii=True, default=str)
    return text


def load_schema() -> dict[str, Any]:
    """The committed JSON Schema of the report document.

    Examples
    --------
    >>> load_schema()["properties"]["schema_version"]["const"]
    1
    """
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- shared prose
def _title(c: Comparison) -> str:
    return (
        f"Comparison of {len(c.algorithms)} algorithms on {len(c.benchmarks)} "
        f"benchmark{'s' if len(c.benchmarks) != 1 else ''}"
    )


def _fmt(value: Any, digits: int = 3) -> str:
    value = _plain(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e6):
            return f"{value:.{digits - 1}e}"
        return f"{value:.{digits}g}"
    return str(value)


def _scope_text(benchmark: Any, metafeature: Any) -> str:
    bench = _plain(benchmark)
    parts = ["all benchmarks" if bench is None else str(bench)]
    if isinstance(metafeature, list):
        parts += [metafeature_label(metafeature, ", ")] if metafeature else []
    elif _plain(metafeature):
        parts.append(str(metafeature))
    return ", ".join(parts)


def _outcome_text(a: str, b: str, outcome: str) -> str:
    return {"a": f"{a} better", "b": f"{b} better", "tie": "tie",
            "inconclusive": "no decision", "conflict": "conflict"}.get(outcome, outcome)


def _table_rows(frame: pd.DataFrame, limit: int = MAX_TABLE_ROWS) -> tuple[list[str], list[
        list[str]], int]:
    """Header, formatted rows (at most ``limit``) and the number of rows left out."""
    shown = frame.head(limit)
    if not isinstance(shown.index, pd.RangeIndex):
        shown = shown.reset_index()
    header = [str(c) for c in shown.columns]
    rows = [[_fmt(v) for v in row] for row in shown.itertuples(index=False, name=None)]
    return header, rows, max(len(frame) - limit, 0)


def _left_out_text(c: Comparison) -> str:
    summary = c.exclusion_summary
    summary = summary[summary["analysis"] != "validation"]
    if not len(summary):
        return "nothing"
    per = summary.groupby("analysis", sort=False)["count"].sum()
    return "; ".join(f"{name}: {int(n):,}" for name, n in per.items()) + (
        " (see Exclusions)")


def _data_sections(c: Comparison) -> dict[str, Any]:
    """Prose and tables shared by the HTML, Markdown and LaTeX renderers."""
    rec = c.reconciliation
    by_group = _representatives_by_group(rec)
    agreement_rows = []
    pooled = []
    n_kept = {True: 0, False: 0}
    for r in rec.agreement.itertuples(index=False):
        is_pooled = _plain(r.benchmark) is None
        if n_kept[is_pooled] >= MAX_DOCUMENT_ROWS:
            continue
        n_kept[is_pooled] += 1
        pooled.append(is_pooled)
        agreement_rows.append([
            f"{r.a} vs {r.b}",
            _scope_text(r.benchmark, r.metafeature),
            "; ".join(
                f"{x.method}: {_outcome_text(r.a, r.b, x.outcome)} ({x.evidence}"
                + ("" if x.votes else f"; budget {x.budget}, not voting") + ")"
                for x in by_group.get(_group_key(r.a, r.b, r.benchmark, r.metafeature), ())
            ),
            _fmt(r.agreement, 2) or "n/a (one method)",
            _outcome_text(r.a, r.b, r.consensus),
            r.reason + (f" ({r.not_voting} judged another budget and do not vote)"
                        if isinstance(r.not_voting, str) and r.not_voting else ""),
        ])
    conflict_rows = [
        [
            f"{r.a} vs {r.b}",
            _scope_text(r.benchmark, r.metafeature),
            f"{r.method_1} (budget {r.budget_1}): {_outcome_text(r.a, r.b, r.outcome_1)}",
            f"{r.method_2} (budget {r.budget_2}): {_outcome_text(r.a, r.b, r.outcome_2)}",
            r.kind,
            r.explanation,
        ]
        for r in rec.conflicts.head(MAX_DOCUMENT_ROWS).itertuples(index=False)
    ]
    verdict_rows = [
        [
            f"{v.a} vs {v.b}",
            str(v.scope),
            v.method,
            _outcome_text(v.a, v.b, v.outcome),
            str(v.evidence),
            "" if v.effect is None else (
                f"{v.effect.name} {_fmt(v.effect.estimate)}"
                + ("" if v.effect.lower is None else
                   f" [{_fmt(v.effect.lower)}, {_fmt(v.effect.upper)}]")
            ),
            f"{v.unit} (n={v.n})" if v.n is not None else v.unit,
            v.explanation,
        ]
        for v in rec.verdicts[:MAX_DOCUMENT_ROWS]
    ]
    head = rec.headline
    if head is not None:
        headline = head.message
    elif rec.rankings:
        ranked = [r for r in rec.rankings if r.status == "ranked"]
        headline = (
            f"No method judged all benchmarks together; {len(ranked)} of "
            f"{len(rec.rankings)} scope(s) have a consensus ranking (below)."
        )
    else:
        headline = "No analysis produced verdicts, so there is nothing to reconcile."
    d = c.description
    data_rows = [
        ["rows", f"{d.n_rows:,}"],
        ["kind", f"{d.kind} ({d.kind_reason})"],
        ["objective", c.objective],
        ["algorithms", ", ".join(c.algorithms)],
        ["benchmarks", f"{len(c.benchmarks)}: " + ", ".join(c.benchmarks[:12])
         + (" ..." if len(c.benchmarks) > 12 else "")],
        ["seeds", f"{c.n_seeds:,}"],
        ["design", "balanced" if d.balanced else
         f"UNBALANCED: {d.n_missing_cells:,} algorithm x benchmark x seed cell(s) missing"],
        ["excluded rows", f"{int(d.exclusions['rows'].sum()) if len(d.exclusions) else 0:,}"],
        ["left out by the analyses", _left_out_text(c)],
    ]
    if c.metafeatures:
        data_rows.append(["metafeatures", ", ".join(c.metafeatures)])
    if len(d.budgets):
        data_rows.append(["budgets", f"{_fmt(d.budgets['min'].min())} to "
                                     f"{_fmt(d.budgets['max'].max())}"])
    if c.options.budget is not None:
        budget_text = f"{c.options.budget:g}"
    elif rec.final_budget is not None:
        budget_text = f"final ({rec.final_budget:g})"
    else:
        budget_text = "none (no budget column)"
    options = (
        f"confidence {c.options.confidence:g}; alpha {c.options.alpha:g}; budget "
        f"{budget_text}; formula {c.options.formula or 'module default'}"
    )
    return {
        "title": _title(c),
        "objective": c.objective,
        "headline": headline,
        "rankings": rec.rankings,
        "agreement_header": ["pair", "scope", "each method's verdict and evidence",
                             "agreement", "consensus", "why"],
        "agreement_rows": agreement_rows,
        "omitted": {
            what: (f"{n:,} more rows are not shown here; report.json and {what}.csv have "
                   f"them all.") if n else ""
            for what, n in (("agreement", len(rec.agreement) - len(agreement_rows)),
                            ("conflicts", len(rec.conflicts) - len(conflict_rows)),
                            ("verdicts", len(rec.verdicts) - len(verdict_rows)))
        },
        "agreement_pooled": [r for r, p in zip(agreement_rows, pooled) if p],
        "agreement_single": [r for r, p in zip(agreement_rows, pooled) if not p],
        "conflict_header": ["pair", "scope", "method 1", "method 2", "kind", "explanation"],
        "conflict_rows": conflict_rows,
        "verdict_header": ["pair", "scope", "method", "outcome", "evidence", "effect",
                           "unit (n)", "explanation"],
        "verdict_rows": verdict_rows,
        "data_rows": data_rows,
        "description": str(d),
        "balance": _table_rows(d.balance),
        "exclusions": _table_rows(d.exclusions) if len(d.exclusions) else None,
        "exclusion_summary": _table_rows(c.exclusion_summary, limit=10 * MAX_TABLE_ROWS)
        if len(c.exclusion_summary) else None,
        "warnings": collapse_similar(c.warnings),
        "options": options,
        "version": __version__,
    }


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def collapse_similar(messages: Sequence[str]) -> list[str]:
    """Messages that differ only in numbers and their subject, stated once with a count.

    Two messages are similar when they are equal after numbers are replaced and
    the subject (the text before the first ": " after an optional ``[analysis]
    Category:`` prefix, e.g. "LR on moons") is dropped. The first of a group is
    kept, followed by "(and N similar: subject, subject, ...)".

    Examples
    --------
    >>> collapse_similar(["[t] UserWarning: A on x: 3 of 4 ties.",
    ...                   "[t] UserWarning: B on y: 2 of 4 ties.", "other"])
    ['[t] UserWarning: A on x: 3 of 4 ties. (and 1 similar: B on y)', 'other']
    """
    prefix = re.compile(r"^(\[[^\]]*\]\s*(?:\w+(?:Warning|Error):\s*)?)")

    def split(message: str) -> tuple[str, str, str]:
        m = prefix.match(message)
        head = m.group(1) if m else ""
        rest = message[len(head):]
        subject, sep, body = rest.partition(": ")
        if not sep or len(subject) > 80:
            return head, "", rest
        return head, subject, body

    groups: dict[str, list[tuple[str, str]]] = {}
    for message in messages:
        head, subject, body = split(str(message))
        key = head + "\x00" + _NUMBER.sub("#", body)
        groups.setdefault(key, []).append((str(message), subject))
    out = []
    for items in groups.values():
        first = items[0][0]
        if len(items) > 1:
            subjects = [x for _, x in items[1:] if x]
            named = ", ".join(subjects[:6]) + (f" and {len(subjects) - 6} more" if len(
                subjects) > 6 else "")
            first += f" (and {len(items) - 1} similar" + (f": {named})" if named else ")")
        out.append(first)
    return out


# ----------------------------------------------------------------------------- summary
def _summary(c: Comparison) -> dict[str, Any]:
    """The first screen of every format: sentences, the headline scope's matrix, files.

    ``head`` is the scope the summary leads with (all benchmarks when
    judged), ``others`` the remaining scopes, ``matrix`` the headline
    scope's pairwise cells (row algorithm vs column algorithm).
    """
    from benchverdict.report.summary import (
        CELL_KINDS,
        CELL_MEANING,
        MAX_MATRIX_ALGORITHMS,
        headline_summary,
        scope_summaries,
    )

    # Every format asks for it: computed once per reconciliation (linear in the pairs, but
    # 200 algorithms make 19,900 of them).
    cached = getattr(c, "_summary_cache", None)
    if cached is not None and cached[0] is c.reconciliation:
        return cached[1]
    summaries = scope_summaries(c.reconciliation, c.algorithms)
    head = headline_summary(summaries)
    others = [x for x in summaries if x is not head]
    matrix = None
    if head is not None and len(head.order) <= MAX_MATRIX_ALGORITHMS:
        matrix = {"order": head.order,
                  "rows": [[None if x == y else head.cells.get((x, y)) for y in head.order]
                           for x in head.order]}
    used = {cell.kind for x in ([head] if head is not None else summaries)
            for cell in x.cells.values()}
    legend = [(k, CELL_MEANING[k]) for k in CELL_KINDS if k in used]
    rec = c.reconciliation
    draws = [x for x in summaries if x.single_draws]
    out = {"summaries": summaries, "head": head, "others": others, "matrix": matrix,
           "legend": legend, "single_draws": draws,
           "n_contradicted": int((rec.relations["status"] == "contradicted").sum())
           if len(rec.relations) else 0}
    c._summary_cache = (c.reconciliation, out)
    return out


#: Above this many algorithms the matrix names families by one letter (L, R, T, D).
WIDE_MATRIX = 7
LETTERS_LEGEND = "families: L LMEM, R rank tests, T tuning curves, D score distributions"


def _matrix_rows_text(matrix: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The matrix as plain-text table rows (Markdown, LaTeX); letters when it is wide."""
    wide = len(matrix["order"]) > WIDE_MATRIX
    header = ["", *matrix["order"]]
    rows = [[x, *("·" if cell is None else (cell.short if wide else cell.text)
                  for cell in row)]
            for x, row in zip(matrix["order"], matrix["rows"])]
    return header, rows


#: The headline sentence in ``repr`` is cut after this many characters.
REPR_SENTENCE = 240


def _status_counts(c: Comparison) -> str:
    rel = c.reconciliation.relations
    if rel is None or not len(rel):
        return "no relations"
    counts = rel["status"].value_counts()
    from benchverdict.report.relations import STATUSES

    return ", ".join(f"{int(counts.get(k, 0))} {k}" for k in STATUSES) + (
        f" over {rel['scope'].nunique()} scope(s)")


def comparison_repr(comparison: Comparison) -> str:
    """A short ``repr`` of a comparison: size, analyses that ran, the headline, the counts.

    A few lines whatever the size of the data (the tables are attributes).
    """
    c = comparison
    summary = _summary(c)
    head = summary["head"]
    sentence = head.sentence if head is not None else (
        f"{len(summary['others'])} scope(s), none over all benchmarks")
    if len(sentence) > REPR_SENTENCE:
        sentence = sentence[:REPR_SENTENCE - 3] + "..."
    ok = [r.name for r in c.runs if r.status == "ok"]
    other = [f"{r.name} {r.status}" for r in c.runs if r.status != "ok"]
    return (f"Comparison({len(c.algorithms)} algorithms x {len(c.benchmarks)} benchmarks, "
            f"{c.objective}; analyses: {', '.join(ok) or 'none'}"
            + (f" ({', '.join(other)})" if other else "")
            + f"; {len(c.reconciliation.verdicts):,} verdicts\n  {printable(sentence)}\n  "
            f"relations: {_status_counts(c)})")


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


def _unique_figures(figures) -> list:
    """Figures with distinct pictures: a figure whose SVG repeats an earlier one is dropped."""
    seen: set[bytes] = set()
    out = []
    for f in figures:
        body = re.sub(rb'id="[^"]*"|xlink:href="[^"]*"|url\(#[^)]*\)|<title>.*?</title>|'
                      rb"<dc:date>.*?</dc:date>", b"", f.svg())
        if body in seen:
            continue
        seen.add(body)
        out.append(f)
    return out


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


def _cell_colours() -> dict[str, tuple[str, str]]:
    from benchverdict.report.summary import CELL_COLOURS

    return CELL_COLOURS


def _relations_left_out(c: Comparison, shown: int, scope: str | None = None) -> str:
    """The note for relation rows a document does not show ("" when it shows them all)."""
    rel = c.reconciliation.relations
    total = int((rel["scope"] == scope).sum()) if scope is not None else len(rel)
    n = total - shown
    return (f"{n:,} more rows are not shown here; relations.csv has them all." if n > 0
            else "")


def _relation_rows(c: Comparison, scope: str | None = None) -> list[list[str]]:
    """Relations (pair and scope) with status, winner, families and reason.

    At most :data:`MAX_DOCUMENT_ROWS`; only ``scope``'s when given.
    """
    rel = c.reconciliation.relations
    if scope is not None:
        rel = rel[rel["scope"] == scope]
    rows = []
    for r in rel.head(MAX_DOCUMENT_ROWS).to_dict("records"):
        who = (f"{r['winner']} > {r['loser']}" if not _missing_text(r.get("winner"))
               else f"{r['a']} vs {r['b']}")
        rows.append([str(r["scope"]), who, str(r["status"]),
                     _fmt(r.get("families")), _fmt(r.get("p_adjusted")),
                     _fmt(r.get("reason"))])
    return rows


def _missing_text(value: Any) -> bool:
    return _plain(value) is None or value == ""


def _power_rows(c: Comparison) -> list[list[str]]:
    from benchverdict.methods import FAMILY_LABELS

    return [[str(r["scope"]), FAMILY_LABELS.get(str(r["family"]), str(r["family"])),
             f"{int(r['n_pairs'])}", _fmt(r.get("pairs")), _fmt(r.get("settled_by")),
             _fmt(r.get("reason"))]
            for r in c.reconciliation.power_gaps.to_dict("records")]


def _contradiction_rows(c: Comparison) -> list[list[str]]:
    return [[str(r["scope"]), f"{r['a']} vs {r['b']}", _fmt(r.get("for_a")),
             _fmt(r.get("for_b")), _fmt(r.get("kind")), _fmt(r.get("explanation"))]
            for r in c.reconciliation.contradictions.to_dict("records")]


def _conflict_group_rows(c: Comparison) -> list[list[str]]:
    groups = c.reconciliation.conflict_groups
    if groups is None or not len(groups):
        return []
    return [[_fmt(r.get("method_1")), _fmt(r.get("method_2")), f"{int(r['n_pairs'])}",
             _fmt(r.get("pairs")), _fmt(r.get("explanation"))]
            for r in groups.to_dict("records")]


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


def _slug(text: str, width: int = 48) -> str:
    """A short file-name-safe form of a table title (ASCII letters, digits, ``_``, ``-``)."""
    slug = re.sub(r"[^A-Za-z0-9]+", "_", printable(text)).strip("_").lower()
    return slug[:width].rstrip("_") or "table"


def table_names(comparison: Comparison) -> dict[tuple[str, str], str]:
    """The CSV name (without ``.csv``) of each analysis table, by (analysis, table title).

    ``<analysis>-<slug of the title>``; a clash gets ``-2``, ``-3``, ...

    Examples
    --------
    >>> _slug("Pairwise Wilcoxon signed-rank tests (Holm)")
    'pairwise_wilcoxon_signed_rank_tests_holm'
    """
    out: dict[tuple[str, str], str] = {}
    used = {"relations", "power_gaps", "contradictions", "method_disagreements"}
    for r in comparison.runs:
        for name in r.tables:
            stem = base = f"{_slug(r.name, 16)}-{_slug(name)}"
            i = 1
            while stem in used:
                i += 1
                stem = f"{base}-{i}"
            used.add(stem)
            out[(r.name, name)] = stem
    return out


def full_tables(comparison: Comparison) -> dict[str, pd.DataFrame]:
    """Every full table of the report, by CSV file name (without ``.csv``).

    The relations of every scope, the power gaps, the contradictions, the
    method-level disagreements grouped by explanation, and each analysis's
    tables (named by :func:`table_names`). Markdown and LaTeX link to these
    files instead of printing the tables inline.
    """
    rec = comparison.reconciliation
    out: dict[str, pd.DataFrame] = {
        "relations": rec.relations,
        "power_gaps": rec.power_gaps,
        "contradictions": rec.contradictions,
    }
    if rec.conflict_groups is not None and len(rec.conflict_groups):
        out["method_disagreements"] = rec.conflict_groups
    names = table_names(comparison)
    for r in comparison.runs:
        for name, frame in r.tables.items():
            out[names[(r.name, name)]] = frame
    return out


def write_tables(comparison: Comparison, directory: Path) -> dict[str, Path]:
    """Write :func:`full_tables` as CSV files into ``directory``; return their paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, frame in full_tables(comparison).items():
        path = directory / f"{name}.csv"
        shown = frame if isinstance(frame.index, pd.RangeIndex) else frame.reset_index()
        # A lone surrogate in a name cannot be written as UTF-8: write its escape instead.
        shown.to_csv(path, index=False, errors="backslashreplace")
        paths[name] = path
    return paths


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


#: At most this many scope sentences, explanations or guidance lines in Markdown and LaTeX.
MAX_SCOPE_LINES = 12
#: At most this many notes per analysis (and warnings) in Markdown and LaTeX.
MAX_NOTES = 5


def grouped_guidance(rankings) -> list[tuple[list[str], str]]:
    """Sample-size guidance, each distinct advice once with the scopes it applies to.

    A guidance line reads ``"<pairs>: <advice>"``; scopes whose advice is the
    same text share one line (the pairs are in relations.csv).
    """
    by_advice: dict[str, list[str]] = {}
    for r in rankings:
        for g in r.guidance:
            pairs, sep, advice = str(g).partition(": ")
            text = advice if sep and " vs " in pairs else str(g)
            scopes = by_advice.setdefault(text, [])
            if r.scope_label not in scopes:
                scopes.append(r.scope_label)
    return [(scopes, advice) for advice, scopes in by_advice.items()]


def _scopes_text(scopes: list[str], limit: int = 8) -> str:
    names = [x.removeprefix("benchmark ") for x in scopes]
    prefix = "benchmarks " if all(x.startswith("benchmark ") for x in scopes) and len(
        scopes) > 1 else ("benchmark " if len(scopes) == 1 and scopes[0].startswith(
            "benchmark ") else "")
    shown = ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(
        names) > limit else "")
    return prefix + shown


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
    draws = "".join(latex_escape(x.single_draws) for x in summary["single_draws"][:1])
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
