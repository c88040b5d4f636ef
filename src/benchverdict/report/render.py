"""Build the report document from a comparison: what every output format shows.

:func:`build_document` reads a :class:`~benchverdict.report.runner.Comparison`
and returns a :class:`~benchverdict.report.document.ReportDocument`, the
typed data every format renders: JSON in :mod:`~benchverdict.report.json_format`,
HTML in :mod:`~benchverdict.report.html`, Markdown in
:mod:`~benchverdict.report.markdown`, LaTeX in :mod:`~benchverdict.report.latex`,
the terminal in :mod:`~benchverdict.report.terminal`. The renderers read only
the document (and :mod:`~benchverdict.report.prose`), so the formats say the
same thing and none depends on the runner.

User-supplied strings (algorithm, benchmark, metafeature and column names,
and anything derived from them) are kept as they are here and escaped by
each renderer for its target: Jinja2's autoescape for HTML, entities and
backslashes for Markdown, the LaTeX specials for LaTeX, and ``json.dumps``
for JSON. In every format, control, lone-surrogate and bidirectional-control
characters in names are shown as visible escapes
(:func:`benchverdict._plain_text.printable`), so a name cannot hide or
reorder the text around it or make a file unreadable.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np
import pandas as pd

from benchverdict._columns import shared_values
from benchverdict._plain_text import file_stem, printable
from benchverdict._version import __version__
from benchverdict.families import families, family_label, family_names
from benchverdict.report.document import (
    MAX_TABLE_ROWS,
    WIDE_MATRIX,
    AnalysisSection,
    AnalysisTable,
    Budgets,
    CsvTable,
    DataFacts,
    Drawings,
    ExclusionStep,
    Figure,
    Guidance,
    Lazy,
    LegendEntry,
    Matrix,
    MatrixCell,
    Paper,
    PaperParagraph,
    Records,
    ReportDocument,
    ResultsTableSection,
    Rows,
    SanityCheck,
    ScopeLine,
    Settings,
    Summary,
    Table,
    ValidationExclusion,
)
from benchverdict.report.glossary import GLOSSARY
from benchverdict.report.json_format import REPORT_SCHEMA, REPORT_SCHEMA_VERSION
from benchverdict.report.reconcile import trials_text
from benchverdict.report.relations import STATUSES
from benchverdict.report.results_table import build_results_table, report_view
from benchverdict.report.summary import (
    CELL_COLOURS,
    CELL_KINDS,
    CELL_MEANING,
    MAX_MATRIX_ALGORITHMS,
    headline_summary,
    scope_summaries,
)
from benchverdict.verdict import metafeature_label, verdict_to_dict

__all__ = [
    "MAX_DOCUMENT_ROWS",
    "REPORT_SCHEMA",
    "REPORT_SCHEMA_VERSION",
    "RESULTS_TABLE_CELL_FIELDS",
    "SCHEMA_PATH",
    "ReportSource",
    "build_document",
    "collapse_similar",
    "full_tables",
    "grouped_guidance",
    "load_schema",
    "paper_text",
    "results_table_section",
    "table_names",
    "write_tables",
]

#: The committed JSON Schema of the report document.
SCHEMA_PATH = Path(__file__).with_name("report.schema.json")
#: At most this many agreement rows (of each kind: all benchmarks, single benchmarks),
#: relations and verdicts are in the document's tables (HTML, Markdown, LaTeX show no
#: more); the JSON records and the CSV files have them all. (1000 algorithms make
#: 500,000 pairs: no page can show them.)
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


def _plain_column(column: pd.Series) -> list[Any]:
    """``[_plain(v) for v in column]``, with the common plain types decided by exact type.

    A float column's non-finite values become ``None`` at once; in other
    columns only values that are not a str, int, bool, ``None`` or finite
    float go through :func:`_plain` (17.6 million calls of it took a
    quarter of a 200-algorithm report's writing time).
    """
    if column.dtype == np.float64:
        values = column.to_numpy()
        out = values.tolist()
        for i in np.flatnonzero(~np.isfinite(values)).tolist():
            out[i] = None
        return out
    out = column.tolist()
    isfinite = math.isfinite
    for i, v in enumerate(out):
        t = type(v)
        if not (v is None or t is str or t is int or t is bool
                or (t is float and isfinite(v))):
            out[i] = _plain(v)
    return out


#: Rows per chunk when a full table's records are made a chunk at a time.
_CHUNK = 5000


def _column_chunks(frame: pd.DataFrame, columns: Sequence[Any] | None = None,
                   size: int | None = None):
    """The plain values (:func:`_plain_column`) of ``columns``, ``size`` rows at a time.

    Yields one list per column for each chunk (all of ``frame``'s columns, by
    position, when ``columns`` is None).
    """
    size = size or _CHUNK
    for start in range(0, len(frame), size):
        part = frame.iloc[start:start + size]
        if columns is None:
            yield [_plain_column(part.iloc[:, j]) for j in range(part.shape[1])]
        else:
            yield [_plain_column(part[c]) for c in columns]


def _record_chunks(frame: pd.DataFrame, size: int | None = None):
    """The rows of ``frame`` as JSON-safe dicts (:func:`_plain` values), ``size`` at a time."""
    keys = [str(k) for k in frame.columns]
    for columns in _column_chunks(frame, size=size):
        yield [dict(zip(keys, row)) for row in zip(*columns)]


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [row for chunk in _record_chunks(frame) for row in chunk]


def _split(text: Any, sep: str) -> list[str]:
    if text is None or (isinstance(text, float) and math.isnan(text)) or text == "":
        return []
    return [t.strip() for t in str(text).split(sep) if t.strip()]


def _meta_pairs(text: Any) -> list[list[str]]:
    if text is None or text == "":  # most rows: no metafeature level
        return []
    return [list(p.split("=", 1)) for p in _split(text, ";")]


def _group_key(a: Any, b: Any, benchmark: Any, metafeature: Any) -> tuple:
    return (a, b, _plain(benchmark), _plain(metafeature) or None)


class _Representative(NamedTuple):
    method: Any
    outcome: Any
    votes: Any
    evidence: Any
    budget: Any


def _representatives_by_group(rec) -> dict[tuple, list]:
    """Each method's representative verdict, by pair and scope (one pass, not per row).

    Made once per reconciliation (the document's agreement table and the
    JSON records both read it) from whole columns: for 200 algorithms it
    was 280,000 ``itertuples`` rows and as many :func:`_plain` calls, twice.
    """
    cached = rec.__dict__.get("_representatives_by_group")
    if cached is not None:
        return cached
    reps = rec.representatives
    groups: dict[tuple, list] = {}
    if len(reps):
        # shared_values: one string per distinct name or text, not one per cell (1.5
        # million cells for 200 algorithms, 86 MB kept with the document).
        keys = zip(shared_values(reps["a"]), shared_values(reps["b"]),
                   _plain_column(reps["benchmark"]),
                   [m or None for m in _plain_column(reps["metafeature"])])
        rows = map(_Representative._make, zip(
            *(shared_values(reps[c]) for c in _Representative._fields)))
        for key, row in zip(keys, rows):
            groups.setdefault(key, []).append(row)
    rec.__dict__["_representatives_by_group"] = groups
    return groups


# ----------------------------------------------------------------------------- the source
class ReportSource(Protocol):
    """What :func:`build_document` reads: a :class:`~benchverdict.report.runner.Comparison`.

    A structural type, so this module need not import the runner (which
    imports it): the builder reads the comparison, the comparison does not
    depend on how it is rendered.
    """

    runs: Sequence[Any]
    #: The data compared (a :class:`~benchverdict.Results`), or None: no results table then.
    results: Any
    reconciliation: Any
    description: Any
    options: Any
    objective: str
    algorithms: Sequence[str]
    benchmarks: Sequence[str]
    n_seeds: int
    metafeatures: Sequence[str]

    @property
    def figures(self) -> list[Any]:
        """The report's own figures, then every analysis's (drawn on first use)."""
        ...

    @property
    def exclusions(self) -> pd.DataFrame:
        """Every row, run, seed or cell left out, one record each."""
        ...

    @property
    def exclusion_summary(self) -> pd.DataFrame:
        """The exclusions counted per analysis, step and kind."""
        ...

    @property
    def warnings(self) -> list[str]:
        """Every warning of every analysis, prefixed by the analysis."""
        ...


# ----------------------------------------------------------------------------- the document
def build_document(comparison: ReportSource) -> ReportDocument:
    """The report of ``comparison`` as a :class:`~benchverdict.report.document.ReportDocument`.

    Every format renders this document. It is computed here once
    (:meth:`Comparison.document <benchverdict.report.runner.Comparison.document>`
    keeps it); the figures and the full JSON records are computed when a
    format first asks for them.

    Examples
    --------
    >>> from benchverdict.report.runner import compare
    >>> from benchverdict.results import _example_small
    >>> doc = build_document(compare(_example_small(), analyses=["ranks"], progress=False,
    ...                              figures=False))
    >>> doc.title, [a.status for a in doc.analyses]
    ('Comparison of 2 algorithms on 2 benchmarks', ['ok'])
    """
    c = comparison
    rec = c.reconciliation
    summary = _summary(c)
    head = summary.head
    exclusion_summary = c.exclusion_summary
    warnings = [str(w) for w in c.warnings]
    n_verdict_rows = min(len(rec.verdicts), MAX_DOCUMENT_ROWS)
    names = table_names(c)
    analyses = tuple(_analysis_section(r, names, file_name)
                     for r, file_name in zip(c.runs, _run_figure_names(c.runs)))
    return ReportDocument(
        title=_title(c),
        objective=str(c.objective),
        version=__version__,
        settings=_settings(c),
        summary=summary,
        contradictions=_contradictions(rec),
        method_disagreements=_method_disagreements(rec),
        n_conflicts=len(rec.conflicts),
        power_gaps=_power_gaps(rec),
        guidance=tuple(Guidance(_scopes_text(scopes), advice)
                       for scopes, advice in grouped_guidance(rec.rankings)),
        relations=_relations(rec),
        head_relations=_relations(rec, scope=head.scope) if head is not None else None,
        agreement=_agreement(rec),
        verdicts=Table(VERDICT_HEADER, tuple(_verdict_row(v)
                                             for v in rec.verdicts[:n_verdict_rows]),
                       len(rec.verdicts) - n_verdict_rows),
        analyses=analyses,
        data=_data_facts(c),
        data_rows=_data_rows(c, exclusion_summary),
        description=str(c.description),
        balance=_table_rows(c.description.balance),
        validation_exclusions=_table_rows(c.description.exclusions)
        if len(c.description.exclusions) else None,
        exclusions=tuple(
            ExclusionStep(str(r["analysis"]), str(r["step"]), str(r["what"]), int(r["count"]),
                          str(r["examples"]), str(r["reason"]))
            for r in exclusion_summary.to_dict("records")),
        exclusion_table=_table_rows(exclusion_summary, limit=10 * MAX_TABLE_ROWS)
        if len(exclusion_summary) else None,
        n_excluded_records=len(c.exclusions),
        sanity=tuple(
            SanityCheck(r.name, str(check.get("name", "")), str(check.get("status", "")),
                        str(check.get("conclusion", "")),
                        {k: _plain(v) for k, v in check.items()})
            for r in c.runs for check in r.sanity),
        warnings=tuple(warnings),
        distinct_warnings=tuple(collapse_similar(warnings)),
        csv_tables=_csv_tables(c),
        drawings=Lazy(lambda: _drawings(c, analyses)),
        records=Lazy(lambda: _json_records(rec)),
        paper=paper_text(c),
        glossary=GLOSSARY,
        results_table=Lazy(lambda: results_table_section(c)),
        power_gap_sentence=_power_gap_sentence(rec),
    )


def _power_gap_sentence(rec) -> str:
    """How many pairs are power gaps, as :func:`prose.power_gap_pairs` says it ("" if none).

    The "Power gaps" section listed only families that did not confirm a settled
    relation, and said "no family misses a relation" while dozens of pairs had the
    glossary's status "power gap".
    """
    from benchverdict.report import prose

    relations = rec.relations
    if relations is None or not len(relations):
        return ""
    gaps = relations[relations["status"].astype(str) == "power gap"]
    if not len(gaps):
        return ""
    return prose.power_gap_pairs(len(gaps), gaps["scope"].nunique(), "relations.csv")


def paper_text(comparison: ReportSource) -> Paper:
    """The methods paragraph, the results paragraphs and the works they cite.

    Examples
    --------
    >>> from benchverdict.report.runner import compare
    >>> from benchverdict.results import _example_small
    >>> paper = paper_text(compare(_example_small(), analyses=["ranks"], progress=False,
    ...                            figures=False))
    >>> [p.scope for p in paper.results], paper.bibtex.count("@")
    (['all benchmarks'], 3)
    """
    from benchverdict.report.citations import (
        bibtex,
        cited_keys,
        reference_list,
        render_citations,
    )
    from benchverdict.report.summary import methods_paragraph, results_paragraphs

    marks = methods_paragraph(comparison, style="marks")
    keys = cited_keys(marks)
    pooled = results_paragraphs(comparison)
    every = results_paragraphs(comparison, per_benchmark=True)
    return Paper(
        methods=render_citations(marks, "text"),
        methods_latex=render_citations(marks, "latex"),
        methods_pandoc=render_citations(marks, "pandoc"),
        results=tuple(PaperParagraph(p.scope, p.text) for p in pooled),
        results_per_benchmark=tuple(PaperParagraph(p.scope, p.text) for p in every
                                    if p.benchmark is not None),
        references=tuple(reference_list(keys)),
        bibtex=bibtex(keys))


#: The fields of each cell in the JSON form of the results table (``paper.results_table``).
RESULTS_TABLE_CELL_FIELDS = ("benchmark", "algorithm", "n", "centre", "lower", "upper",
                             "spread", "text", "rank", "decided", "bold", "worse_than_best")


def results_table_section(comparison: ReportSource) -> ResultsTableSection | None:
    """The results table of the comparison's data, as the report shows it.

    The default table of :func:`benchverdict.paper.results_table` (mean +-
    SD at the budget the relations were decided at, bold and daggers from
    the per-benchmark relations), cut to what a page shows by
    :func:`~benchverdict.report.results_table.report_view`. ``None`` when
    the comparison does not keep its data; a section with no table (``frame``
    None) and the reason as its note when the data give no table (no run
    reaches the budget compared).

    Examples
    --------
    >>> from benchverdict.report.runner import compare
    >>> from benchverdict.results import _example_small
    >>> section = results_table_section(compare(_example_small(), analyses=["lmem"],
    ...                                         progress=False, figures=False))
    >>> section.markdown.splitlines()[0], section.note
    ('| Benchmark | a | b |', '')
    """
    if comparison.results is None:
        return None
    try:
        table = build_results_table(comparison.results, comparison)
    except ValueError as err:  # e.g. no run reaches the budget compared: said, not raised
        return ResultsTableSection(caption="No results table.", markdown="", html="", latex="",
                                   note=f"The results table cannot be built: {err}",
                                   frame=None, record={})
    view, note = report_view(table)
    whole = table if view.orientation == table.orientation else table.transposed()
    cells = table.to_frame()
    record = {
        "statistic": table.statistic,
        "budget": _plain(table.budget),
        "alpha": table.alpha,
        "legend": table.legend(),
        "cells": _records(cells[list(RESULTS_TABLE_CELL_FIELDS)]),
        "average_ranks": _records(table.summary[["algorithm", "average_rank", "n_benchmarks",
                                                 "decided", "bold", "worse_than_best"]]),
    }
    return ResultsTableSection(
        caption=table.caption, markdown=view.to_markdown(), html=view.to_html(),
        latex=whole.to_latex(), note=note, frame=cells, record=record)


def _title(c: ReportSource) -> str:
    return (
        f"Comparison of {len(c.algorithms)} algorithms on {len(c.benchmarks)} "
        f"benchmark{'s' if len(c.benchmarks) != 1 else ''}"
    )


def _settings(c: ReportSource) -> Settings:
    o = c.options
    rec = c.reconciliation
    if o.budget is not None:
        budget_text = f"{o.budget:g}"
    elif rec.final_budget is not None:
        budget_text = f"final ({rec.final_budget:g})"
    elif rec.vote_trials is not None:
        budget_text = (f"none (no budget column): tuning curves are compared at "
                       f"{trials_text(rec.vote_trials)}, half the most trials the draws can bound "
                       f"for the tests together")
    else:
        budget_text = "none (no budget column)"
    population = ("benchmarks like these (the observed benchmarks are a sample)"
                  if o.estimand == "benchmarks" else
                  "exactly these benchmarks (no claim beyond them)")
    margin = ("no margin of practical equivalence given (--margin / margin=), so no pair is "
              "declared equivalent" if o.margin is None else
              f"margin of practical equivalence {o.margin.text('in score units')}")
    text = (
        f"Claims across benchmarks are about {population}; alpha {o.alpha:g} (family-wise "
        f"per scope type for settled and equivalent relations; effect intervals "
        f"{1 - o.alpha:.0%} simultaneous over each scope's pairs); confidence "
        f"{o.confidence:g} for bands and DSE intervals; {margin}; budget "
        f"{budget_text}; formula {o.formula or 'the estimand default'}; draws "
        f"{o.draws}"
    )
    return Settings(analyses=tuple(r.name for r in c.runs), confidence=o.confidence,
                    alpha=o.alpha, budget=o.budget, formula=o.formula,
                    final_budget=_plain(rec.final_budget), estimand=o.estimand,
                    draws=o.draws, text=text,
                    margin=None if o.margin is None else (o.margin.value,
                                                          o.margin.standardized))


def _summary(c: ReportSource) -> Summary:
    """The first screen: the headline scope, the other scopes, the headline's matrix."""
    rec = c.reconciliation
    summaries = scope_summaries(rec, list(c.algorithms))
    head = headline_summary(summaries)
    others = [x for x in summaries if x is not head]
    matrix = None
    if head is not None and len(head.order) <= MAX_MATRIX_ALGORITHMS:
        used = {cell.kind for cell in head.cells.values()}
        matrix = Matrix(
            scope=head.scope, order=tuple(head.order),
            cells=tuple(tuple(None if x == y else _matrix_cell(head.cells.get((x, y)))
                             for y in head.order) for x in head.order),
            legend=tuple(LegendEntry(k, CELL_MEANING[k], CELL_COLOURS[k][0])
                         for k in CELL_KINDS if k in used),
            wide=len(head.order) > WIDE_MATRIX,
            # Every registered family's letter: a fifth family has its own in the legend.
            letters=tuple((f.letter, f.label) for f in families(order="precedence")))
    if head is not None:
        headline = head.sentence
    elif rec.rankings:
        ranked = [r for r in rec.rankings if r.status == "ranked"]
        headline = (
            f"No method judged all benchmarks together; {len(ranked)} of "
            f"{len(rec.rankings)} scope(s) have a consensus ranking (below)."
        )
    else:
        headline = "No analysis produced verdicts, so there is nothing to reconcile."
    return Summary(
        head=_scope_line(head) if head is not None else None,
        headline=headline,
        others=tuple(_scope_line(x) for x in others),
        matrix=matrix,
        notes=tuple(str(n) for n in rec.notes),
        single_draws=tuple(x.single_draws for x in summaries if x.single_draws),
        n_contradicted=int((rec.relations["status"] == "contradicted").sum())
        if len(rec.relations) else 0,
        status_counts=_status_counts(rec.relations))


def _scope_line(s) -> ScopeLine:
    return ScopeLine(s.scope, s.sentence, s.single_draws)


def _matrix_cell(cell) -> MatrixCell | None:
    if cell is None:
        return None
    background, foreground = cell.colours
    return MatrixCell(cell.kind, cell.text, cell.short, cell.title, background, foreground,
                      cell.effect)


def _status_counts(rel: pd.DataFrame | None) -> str:
    if rel is None or not len(rel):
        return "no relations"
    counts = rel["status"].value_counts()
    return ", ".join(f"{int(counts.get(k, 0))} {k}" for k in STATUSES) + (
        f" over {rel['scope'].nunique()} scope(s)")


#: The header of the relation tables (every scope, the headline scope's).
RELATION_HEADER = ("scope", "relation", "status", "families", "adjusted p", "why")
#: The header of the verdict table.
VERDICT_HEADER = ("pair", "scope", "method", "outcome", "evidence", "effect", "unit (n)",
                  "explanation")
#: The header of the agreement table.
AGREEMENT_HEADER = ("pair", "scope", "each method's verdict and evidence", "agreement",
                    "consensus", "why")


def _relations(rec, scope: str | None = None) -> Table:
    """Relations (pair and scope) with status, winner, families and reason.

    At most :data:`MAX_DOCUMENT_ROWS`; only ``scope``'s when given.
    """
    rel = rec.relations
    if scope is not None:
        rel = rel[rel["scope"] == scope]
    rows = []
    for r in rel.head(MAX_DOCUMENT_ROWS).to_dict("records"):
        who = (f"{r['winner']} > {r['loser']}" if not _missing_text(r.get("winner"))
               else f"{r['a']} vs {r['b']}")
        rows.append((str(r["scope"]), who, str(r["status"]),
                     _fmt(r.get("families")), _fmt(r.get("p_value_adjusted")),
                     _fmt(r.get("reason"))))
    return Table(RELATION_HEADER, tuple(rows), len(rel) - len(rows))


def _missing_text(value: Any) -> bool:
    return _plain(value) is None or value == ""


def _power_gaps(rec) -> Table:
    return Table(
        ("scope", "family", "pairs", "which", "settled by", "why"),
        tuple((str(r["scope"]), family_label(str(r["family"])),
               f"{int(r['n_pairs'])}", _fmt(r.get("pairs")), _fmt(r.get("settled_by")),
               _fmt(r.get("reason")))
              for r in rec.power_gaps.to_dict("records")))


def _contradictions(rec) -> Table:
    return Table(
        ("scope", "pair", "for the first", "for the second", "kind", "explanation"),
        tuple((str(r["scope"]), f"{r['a']} vs {r['b']}", _fmt(r.get("for_a")),
               _fmt(r.get("for_b")), _fmt(r.get("kind")), _fmt(r.get("explanation")))
              for r in rec.contradictions.to_dict("records")))


def _method_disagreements(rec) -> Table:
    header = ("method 1", "method 2", "pairs", "which", "explanation")
    groups = rec.conflict_groups
    if groups is None or not len(groups):
        return Table(header, ())
    return Table(header, tuple(
        (_fmt(r.get("method_1")), _fmt(r.get("method_2")), f"{int(r['n_pairs'])}",
         _fmt(r.get("pairs")), _fmt(r.get("explanation")))
        for r in groups.to_dict("records")))


def _agreement(rec) -> Table:
    """Each method's verdict per pair and scope: at most MAX_DOCUMENT_ROWS of each kind.

    The kinds are all benchmarks and single scopes, so the pooled rows are
    not crowded out by thousands of per-benchmark ones.
    """
    by_group = _representatives_by_group(rec)
    rows = []
    n_kept = {True: 0, False: 0}
    for r in rec.agreement.itertuples(index=False):
        is_pooled = _plain(r.benchmark) is None
        if n_kept[is_pooled] >= MAX_DOCUMENT_ROWS:
            if n_kept[not is_pooled] >= MAX_DOCUMENT_ROWS:
                break  # both kinds are full: no later row is shown
            continue
        n_kept[is_pooled] += 1
        rows.append((
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
        ))
    return Table(AGREEMENT_HEADER, tuple(rows), len(rec.agreement) - len(rows))


def _verdict_row(v) -> tuple[str, ...]:
    return (
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
    )


def _data_facts(c: ReportSource) -> DataFacts:
    d = c.description
    budgets = None
    if len(d.budgets):
        budgets = Budgets(
            min=_plain(float(d.budgets["min"].min())),
            max=_plain(float(d.budgets["max"].max())),
            distinct=int(d.counts.loc["budget", "distinct"]) if "budget" in d.counts.index
            else None)
    balance = d.balance.to_numpy()
    return DataFacts(
        n_rows=int(d.n_rows), kind=d.kind, kind_reason=d.kind_reason,
        algorithms=tuple(c.algorithms), benchmarks=tuple(c.benchmarks),
        n_seeds=int(c.n_seeds), metafeatures=tuple(c.metafeatures), budgets=budgets,
        balanced=bool(d.balanced), n_missing_cells=int(d.n_missing_cells),
        seeds_per_cell=(int(balance.min()), int(balance.max())),
        n_excluded_rows=int(d.exclusions["rows"].sum()) if len(d.exclusions) else 0,
        validation_exclusions=tuple(
            ValidationExclusion(str(r["column"]), str(r["reason"]), int(r["rows"]))
            for r in d.exclusions.to_dict("records")))


def _data_rows(c: ReportSource, exclusion_summary: pd.DataFrame) -> tuple[tuple[str, str], ...]:
    d = c.description
    rows = [
        ("rows", f"{d.n_rows:,}"),
        ("kind", f"{d.kind} ({d.kind_reason})"),
        ("objective", c.objective),
        ("algorithms", ", ".join(c.algorithms)),
        ("benchmarks", f"{len(c.benchmarks)}: " + ", ".join(c.benchmarks[:12])
         + (" ..." if len(c.benchmarks) > 12 else "")),
        ("seeds", f"{c.n_seeds:,}"),
        ("design", "balanced" if d.balanced else
         f"UNBALANCED: {d.n_missing_cells:,} algorithm x benchmark x seed cell(s) missing"),
        ("excluded rows", f"{int(d.exclusions['rows'].sum()) if len(d.exclusions) else 0:,}"),
        ("left out by the analyses", _left_out_text(exclusion_summary)),
    ]
    if c.metafeatures:
        rows.append(("metafeatures", ", ".join(c.metafeatures)))
    if len(d.budgets):
        rows.append(("budgets", f"{_fmt(d.budgets['min'].min())} to "
                                f"{_fmt(d.budgets['max'].max())}"))
    return tuple(rows)


def _left_out_text(summary: pd.DataFrame) -> str:
    summary = summary[summary["analysis"] != "validation"]
    if not len(summary):
        return "nothing"
    per = summary.groupby("analysis", sort=False)["count"].sum()
    return "; ".join(f"{name}: {int(n):,}" for name, n in per.items()) + (
        " (see Exclusions)")


def _analysis_section(r, names: dict[tuple[str, str], str],
                      file_names: list[str]) -> AnalysisSection:
    return AnalysisSection(
        name=r.name, title=r.title, status=r.status, reason=r.reason,
        n_verdicts=len(r.verdicts), seconds=float(r.seconds),
        notes=tuple(str(n) for n in r.notes),
        warnings=tuple(str(w) for w in r.warnings),
        distinct_warnings=tuple(collapse_similar(r.warnings)),
        figures=tuple(_figure(f, name) for f, name in zip(r.figures, file_names)),
        tables=tuple(AnalysisTable(title, names[(r.name, title)], _table_rows(frame))
                     for title, frame in r.tables.items()))


#: The report's own figures (drawn first, so their file names are never suffixed).
OWN_FIGURES = ("report-ranking", "report-ranking-scopes", "report-agreement")


def _run_figure_names(runs) -> list[list[str]]:
    """Each analysis figure's file name: unique, as :attr:`Comparison.figures` names them.

    Computed here so that the JSON document can name the files without
    drawing the report's own figures.
    """
    seen = {file_stem(name): 1 for name in OWN_FIGURES}
    out = []
    for r in runs:
        names = []
        for f in r.figures:
            base = file_stem(f.name)
            seen[base] = seen.get(base, 0) + 1
            names.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
        out.append(names)
    return out


def _figure(f, file_name: str) -> Figure:
    return Figure(name=f.name, file_name=file_name, title=f.title, caption=f.caption,
                  width_inches=float(f.figure.get_figwidth()), render_svg=f.svg,
                  write=functools.partial(_save_figure, f, file_name),
                  page_size=f.page_size, row_cuts=f.row_cuts)


def _save_figure(figure, file_name: str, directory: Path, formats: tuple[str, ...]) -> list[Path]:
    return figure.save_as(directory / file_name, formats)


def _drawings(c: ReportSource, analyses: tuple[AnalysisSection, ...]) -> Drawings:
    """Draw the report's own figures; keep each analysis's figures with distinct pictures."""
    figures = c.figures
    own = {f.name: _figure(f, file_stem(f.name))
           for f in figures[:len(figures) - sum(len(r.figures) for r in c.runs)]}
    return Drawings(
        ranking=own.get("report-ranking"),
        ranking_scopes=own.get("report-ranking-scopes"),
        agreement=own.get("report-agreement"),
        analyses=tuple(tuple(_unique_figures(a.figures)) for a in analyses))


def _agreement_chunks(rec):
    """The agreement records (each with its methods' outcomes), a chunk at a time.

    Read column by column (each column's values made plain once, as
    :func:`_record_chunks` makes them), without a dict per row in between:
    a 200-algorithm report has 218,900 of these records.
    """
    by_group = _representatives_by_group(rec)
    names = ["a", "b", "benchmark", "metafeature", "n_methods", "methods", "agreement",
             "consensus", "consensus_winner", "reason", "not_voting", "n_conflicts"]
    for columns in _column_chunks(rec.agreement, names):
        yield [{
            "a": a, "b": b, "benchmark": benchmark,
            "metafeature": _meta_pairs(metafeature),
            "n_methods": int(n_methods),
            "methods": _split(methods, ","),
            "outcomes": [
                {"method": r.method, "outcome": r.outcome, "votes": bool(r.votes)}
                # The values are plain already: the key is _group_key's without its
                # conversions.
                for r in by_group.get((a, b, benchmark, metafeature or None), ())
            ],
            "agreement": agreement,
            "consensus": consensus,
            "consensus_winner": consensus_winner,
            "reason": reason,
            "not_voting": _split(not_voting, ","),
            "n_conflicts": int(n_conflicts),
        } for (a, b, benchmark, metafeature, n_methods, methods, agreement, consensus,
               consensus_winner, reason, not_voting, n_conflicts) in zip(*columns)]


def _conflict_chunks(rec):
    for rows in _record_chunks(rec.conflicts):
        yield [{
            "a": row["a"], "b": row["b"], "benchmark": row["benchmark"],
            "metafeature": _meta_pairs(row["metafeature"]),
            "method_1": row["method_1"], "budget_1": row["budget_1"],
            "outcome_1": row["outcome_1"],
            "method_2": row["method_2"], "budget_2": row["budget_2"],
            "outcome_2": row["outcome_2"],
            "kind": row["kind"],
            "rules": _split(row["rules"], ","),
            "explanation": row["explanation"],
        } for row in rows]


def _verdict_chunks(verdicts: Sequence[Any], size: int | None = None):
    size = size or _CHUNK
    for start in range(0, len(verdicts), size):
        yield [verdict_to_dict(v) for v in verdicts[start:start + size]]


def _json_records(rec) -> Records:
    """The full tables for the JSON document (every row; nothing formatted).

    The long tables are :class:`Rows`, made a chunk at a time whenever they
    are read: the JSON writer streams them to disk, and no dict of them is
    kept (the document keeps its records for as long as the comparison).
    """
    m = rec.method_agreement
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
    verdicts = rec.verdicts
    return Records(
        verdicts=Rows(len(verdicts), lambda: _verdict_chunks(verdicts)),
        agreement=Rows(len(rec.agreement), lambda: _agreement_chunks(rec)),
        conflicts=Rows(len(rec.conflicts), lambda: _conflict_chunks(rec)),
        method_agreement={"methods": [str(x) for x in m.index],
                          "matrix": [[_plain(float(v)) for v in row] for row in m.to_numpy()]},
        rankings=tuple(rankings),
        # _records' values are plain already (the second _plain pass this had was a no-op).
        relations=Rows(len(rec.relations), lambda: _record_chunks(rec.relations)))


def load_schema() -> dict[str, Any]:
    """The JSON Schema of the report document, with the analyses now registered.

    The committed file lists the built-in families in its two analysis
    enums (``options.analyses`` and ``analyses[].name``); a family added with
    :func:`benchverdict.families.register_family` is added to both here, so
    a report that runs it still validates.

    Examples
    --------
    >>> load_schema()["properties"]["schema_version"]["const"]
    3
    >>> load_schema()["properties"]["analyses"]["items"]["properties"]["name"]["enum"]
    ['tuning', 'dse', 'ranks', 'lmem']
    """
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    names = list(family_names())
    schema["properties"]["options"]["properties"]["analyses"]["items"]["enum"] = names
    schema["properties"]["analyses"]["items"]["properties"]["name"]["enum"] = names
    return schema


# ----------------------------------------------------------------------------- texts
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


def _table_rows(frame: pd.DataFrame, limit: int = MAX_TABLE_ROWS) -> Table:
    """Header, formatted rows (at most ``limit``) and the number of rows left out."""
    shown = frame.head(limit)
    if not isinstance(shown.index, pd.RangeIndex):
        shown = shown.reset_index()
    header = tuple(str(c) for c in shown.columns)
    rows = tuple(tuple(_fmt(v) for v in row) for row in shown.itertuples(index=False, name=None))
    return Table(header, rows, max(len(frame) - limit, 0))


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

def table_names(comparison: ReportSource) -> dict[tuple[str, str], str]:
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


def full_tables(comparison: ReportSource) -> dict[str, pd.DataFrame]:
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


def write_tables(comparison: ReportSource, directory: Path) -> dict[str, Path]:
    """Write :func:`full_tables` as CSV files into ``directory``; return their paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    from benchverdict._safe_output import write_csv

    return {t.name: write_csv(t.frame, directory / t.file_name, index=t.with_index)
            for t in _csv_tables(comparison)}


def _csv_tables(comparison: ReportSource) -> tuple[CsvTable, ...]:
    return tuple(CsvTable(name, frame, with_index=not isinstance(frame.index, pd.RangeIndex))
                 for name, frame in full_tables(comparison).items())


def _slug(text: str, width: int = 48) -> str:
    """A short file-name-safe form of a table title (ASCII letters, digits, ``_``, ``-``)."""
    slug = re.sub(r"[^A-Za-z0-9]+", "_", printable(text)).strip("_").lower()
    return slug[:width].rstrip("_") or "table"
