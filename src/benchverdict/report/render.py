"""The report as one JSON document, and what every output format shares.

Every renderer starts from :func:`report_document`, so the formats say the
same thing: JSON here, HTML in :mod:`~benchverdict.report.html`, Markdown in
:mod:`~benchverdict.report.markdown`, LaTeX in :mod:`~benchverdict.report.latex`.
User-supplied strings (algorithm, benchmark, metafeature and
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
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from benchverdict._plain_text import printable
from benchverdict._version import __version__
from benchverdict.families import family_label, family_names
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
    """The report as one JSON-safe dict (layout: ``report.schema.json``).

    Its version is :data:`REPORT_SCHEMA_VERSION` (the ``schema_version`` field).

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
            "estimand": c.options.estimand,
            "draws": c.options.draws,
        },
        "notes": [str(n) for n in rec.notes],
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
    """The JSON Schema of the report document, with the analyses now registered.

    The committed file lists the built-in families in its two analysis
    enums (``options.analyses`` and ``analyses[].name``); a family added with
    :func:`benchverdict.families.register_family` is added to both here, so
    a report that runs it still validates.

    Examples
    --------
    >>> load_schema()["properties"]["schema_version"]["const"]
    2
    >>> load_schema()["properties"]["analyses"]["items"]["properties"]["name"]["enum"]
    ['tuning', 'dse', 'ranks', 'lmem']
    """
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    names = list(family_names())
    schema["properties"]["options"]["properties"]["analyses"]["items"]["enum"] = names
    schema["properties"]["analyses"]["items"]["properties"]["name"]["enum"] = names
    return schema


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
            f"{r.method_1} ({r.budget_1}): {_outcome_text(r.a, r.b, r.outcome_1)}",
            f"{r.method_2} ({r.budget_2}): {_outcome_text(r.a, r.b, r.outcome_2)}",
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
    population = ("benchmarks like these (the observed benchmarks are a sample)"
                  if c.options.estimand == "benchmarks" else
                  "exactly these benchmarks (no claim beyond them)")
    options = (
        f"Claims across benchmarks are about {population}; confidence "
        f"{c.options.confidence:g}; alpha {c.options.alpha:g}; budget "
        f"{budget_text}; formula {c.options.formula or 'the estimand default'}; draws "
        f"{c.options.draws}"
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
           "legend": legend, "single_draws": draws, "notes": list(rec.notes),
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


#: At most this many per-scope sentences in a comparison's summary.
MAX_SUMMARY_SCOPES = 8


def comparison_summary(comparison: Comparison) -> str:
    """The comparison in a few lines: what ran, the headline per scope, what was left out."""
    c = comparison
    ok = [r.name for r in c.runs if r.status == "ok"]
    lines = [f"benchverdict report: {len(c.algorithms)} algorithms x {len(c.benchmarks)} "
             f"benchmarks ({c.objective}); {len(c.reconciliation.verdicts):,} verdicts from "
             f"{', '.join(ok) or 'none'}"]
    for run in c.runs:
        lines.append(f"  {run.name:<7} {run.status:<15} {len(run.verdicts):>4} verdicts  "
                     f"{run.seconds:6.1f} s  {run.reason}")
    summary = _summary(c)
    lines.append("")
    if summary["head"] is not None:
        lines.append(summary["head"].sentence)
    lines += [f"  {x.sentence}" for x in summary["others"][:MAX_SUMMARY_SCOPES]]
    if len(summary["others"]) > MAX_SUMMARY_SCOPES:
        lines.append(f"  ... and {len(summary['others']) - MAX_SUMMARY_SCOPES} more scopes "
                     f"(report.md)")
    lines += [f"  Note: {note}" for note in summary["notes"]]
    if summary["n_contradicted"]:
        lines += ["", f"{summary['n_contradicted']} contradicted relation(s): see the report's "
                      f"Contradictions section."]
    n_left_out = len(c.exclusions)
    if n_left_out:
        lines += ["", f"{n_left_out:,} row(s), run(s), seed(s) or cell(s) were left out by "
                      f"validation or the analyses: see the report's Exclusions section and "
                      f"exclusions.csv."]
    return "\n".join(lines)


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
                     _fmt(r.get("families")), _fmt(r.get("p_value_adjusted")),
                     _fmt(r.get("reason"))])
    return rows


def _missing_text(value: Any) -> bool:
    return _plain(value) is None or value == ""


def _power_rows(c: Comparison) -> list[list[str]]:

    return [[str(r["scope"]), family_label(str(r["family"])),
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


def _slug(text: str, width: int = 48) -> str:
    """A short file-name-safe form of a table title (ASCII letters, digits, ``_``, ``-``)."""
    slug = re.sub(r"[^A-Za-z0-9]+", "_", printable(text)).strip("_").lower()
    return slug[:width].rstrip("_") or "table"
