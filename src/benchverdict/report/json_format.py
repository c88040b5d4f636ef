"""The report as one JSON document (layout: ``report.schema.json``), from the report document.

Verdicts use :func:`benchverdict.verdict.verdict_to_dict` (lossless:
non-finite floats are tagged ``{"$float": "nan"|"inf"|"-inf"}``); every
other number is finite or ``null``. Unlike the other formats, the JSON
document holds every row (every verdict, agreement row and conflict).
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchverdict.report.document import ReportDocument, Rows

#: Name and version of the report JSON layout (``report.schema.json``). Version 3: a
#: verdict's CVaR level is its ``parameter`` (method ``dse.cvar``; version 2 wrote
#: ``dse.cvar_<level>``), and verdicts carry the typed fields of verdicts JSON version 5.
REPORT_SCHEMA = "benchverdict.report"
REPORT_SCHEMA_VERSION = 3


def _rows(rows: Any) -> Any:
    # Rows stay lazy (the writers stream them); any other sequence is copied to a list.
    return rows if isinstance(rows, Rows) else list(rows)


def _document(doc: ReportDocument) -> dict[str, Any]:
    """The JSON document; its records are shared with ``doc`` (see :func:`report_document`)."""
    data = doc.data
    budgets = data.budgets
    records = doc.records.get()
    settings = doc.settings
    table = doc.results_table.get()
    return {
        "schema": REPORT_SCHEMA,
        "schema_version": REPORT_SCHEMA_VERSION,
        "benchverdict_version": doc.version,
        "generated_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "objective": doc.objective,
        "options": {
            "analyses": list(settings.analyses),
            "confidence": settings.confidence,
            "alpha": settings.alpha,
            "budget": settings.budget,
            "formula": settings.formula,
            "final_budget": settings.final_budget,
            "estimand": settings.estimand,
            "draws": settings.draws,
            "margin": None if settings.margin is None else {
                "value": settings.margin[0],
                "unit": "sd of a benchmark" if settings.margin[1] else "score"},
        },
        "notes": list(doc.summary.notes),
        "data": {
            "n_rows": data.n_rows,
            "kind": data.kind,
            "kind_reason": data.kind_reason,
            "algorithms": list(data.algorithms),
            "benchmarks": list(data.benchmarks),
            "n_seeds": data.n_seeds,
            "metafeatures": list(data.metafeatures),
            "budgets": None if budgets is None else {
                "min": budgets.min, "max": budgets.max, "distinct": budgets.distinct},
            "balanced": data.balanced,
            "n_missing_cells": data.n_missing_cells,
            "seeds_per_cell": {"min": data.seeds_per_cell[0], "max": data.seeds_per_cell[1]},
            "n_excluded_rows": data.n_excluded_rows,
            "exclusions": [{"column": x.column, "reason": x.reason, "rows": x.n_rows}
                           for x in data.validation_exclusions],
        },
        "analyses": [
            {
                "name": a.name,
                "title": a.title,
                "status": a.status,
                "reason": a.reason,
                "n_verdicts": a.n_verdicts,
                "seconds": round(a.seconds, 3),
                "notes": list(a.notes),
                "warnings": list(a.warnings),
                "figures": [{"name": f.name, "file": f.file_name, "title": f.title,
                             "caption": f.caption} for f in a.figures],
                "tables": sorted(t.title for t in a.tables),
            }
            for a in doc.analyses
        ],
        "verdicts": _rows(records.verdicts),
        "agreement": _rows(records.agreement),
        "conflicts": _rows(records.conflicts),
        "method_agreement": records.method_agreement,
        "rankings": list(records.rankings),
        "relations": _rows(records.relations),
        "sanity": [{"analysis": s.analysis, **s.record} for s in doc.sanity],
        "exclusions": [
            {"analysis": x.analysis, "step": x.step, "what": x.what, "count": x.count,
             "examples": x.examples, "reason": x.reason}
            for x in doc.exclusions
        ],
        "warnings": list(doc.warnings),
        **({} if doc.paper is None else {"paper": {
            "methods": doc.paper.methods,
            "methods_latex": doc.paper.methods_latex,
            "methods_pandoc": doc.paper.methods_pandoc,
            "results": [{"scope": p.scope, "text": p.text} for p in doc.paper.results],
            "results_per_benchmark": [{"scope": p.scope, "text": p.text}
                                      for p in doc.paper.results_per_benchmark],
            "references": list(doc.paper.references),
            "bibtex": doc.paper.bibtex,
            **({} if table is None or table.frame is None
               else {"results_table": dict(table.record)})}}),
    }


def report_document(document: ReportDocument) -> dict[str, Any]:
    """The report as one JSON-safe dict (layout: ``report.schema.json``).

    Its version is :data:`REPORT_SCHEMA_VERSION` (the ``schema_version``
    field). The dict is the caller's: changing it does not change ``document``.

    Examples
    --------
    >>> from benchverdict.report.runner import compare
    >>> from benchverdict.results import _example_small
    >>> comp = compare(_example_small(), analyses=["ranks"], progress=False, figures=False)
    >>> doc = report_document(comp.document())
    >>> doc["schema_version"], doc["analyses"][0]["name"], len(doc["verdicts"]) > 0
    (3, 'ranks', True)
    """
    return copy.deepcopy(_materialised(_document(document)))


def _materialised(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with its :class:`Rows` made into lists (they are top-level values)."""
    return {k: list(v) if isinstance(v, Rows) else v for k, v in doc.items()}


#: A list longer than this is written one compact item per line (verdicts, table rows).
_LONG_LIST = 50


def _layout(value: Any, level: int, indent: int, dumps, records=None) -> str:
    """``value`` as indented JSON whose long lists hold one compact item per line.

    ``json.dumps`` with an ``indent`` runs json's pure-Python encoder (its C
    encoder only writes compact text): on 60,000 verdicts that took most of
    a report's writing time. Here dicts and short lists are laid out with
    the indent, and the items of long lists, each written by the C encoder,
    take one line each: the same JSON value, as readable in a diff.
    """
    parts: list[str] = []
    _write(value, level, indent, dumps, parts.append, records)
    return "".join(parts)


def _write(value: Any, level: int, indent: int, dumps: Callable[[Any], str],
           write: Callable[[str], Any], records: Callable[[Any], str] | None = None) -> None:
    """Write :func:`_layout`'s text of ``value`` piece by piece with ``write``.

    A long :class:`Rows` is written a chunk of records at a time (each made
    when reached and dropped once written), so the text and the records of
    the verdicts are never all in memory: a 200-algorithm report's
    report.json is 600 MB. The items of long lists are written by
    ``records`` (default: ``dumps``), everything else by ``dumps``.
    """
    records = dumps if records is None else records
    pad, close = " " * (indent * (level + 1)), " " * (indent * level)
    if isinstance(value, Rows):
        if len(value) > _LONG_LIST:  # dicts, so one compact record per line
            write("[\n")
            sep = ""
            for chunk in value.chunks():
                if chunk:
                    write(sep + ",\n".join([pad + records(v) for v in chunk]))
                    sep = ",\n"
            write("\n" + close + "]")
            return
        value = list(value)
    if isinstance(value, dict) and value:
        sep = "{\n"
        for k, v in value.items():
            write(f"{sep}{pad}{dumps(str(k))}: ")
            _write(v, level + 1, indent, dumps, write, records)
            sep = ",\n"
        write("\n" + close + "}")
        return
    if isinstance(value, list) and value and any(isinstance(v, (dict, list)) for v in value):
        if len(value) > _LONG_LIST:
            write("[\n" + ",\n".join([pad + records(v) for v in value]) + "\n" + close + "]")
            return
        sep = "[\n"
        for v in value:
            write(sep + pad)
            _write(v, level + 1, indent, dumps, write, records)
            sep = ",\n"
        write("\n" + close + "]")
        return
    write(dumps(value))


def _dumps(ascii_only: bool) -> Callable[[Any], str]:
    # default=str: a module may put an object JSON does not know into a verdict's
    # details. One encoder for every call: json.dumps with options builds one per call.
    return json.JSONEncoder(allow_nan=False, ensure_ascii=ascii_only, default=str).encode


def _record_dumps(ascii_only: bool) -> Callable[[Any], str]:
    """The compact JSON of one record of a long list: orjson's, else :func:`_dumps`'s.

    The records of a 200-algorithm report are 600 MB of JSON: json's C encoder
    took 6 s of its writing, orjson a tenth of that. Both give the same JSON
    values; orjson writes no space after a separator and floats in their
    shortest form (``0.00001`` for json's ``1e-05``). It refuses lone
    surrogates and integers beyond 64 bits: such a record is written by json
    (and a lone surrogate then makes the file fall back to ASCII escapes).
    """
    plain = _dumps(ascii_only)
    if ascii_only:
        return plain
    import orjson

    # Dataclasses, datetimes and numpy values go to ``default``, as with json (which
    # writes str() of them, and a numpy float, a float subclass there, as a float).
    options = (orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS
               | orjson.OPT_PASSTHROUGH_DATETIME)
    fast, refused = orjson.dumps, orjson.JSONEncodeError

    def default(value: Any) -> Any:
        return float(value) if isinstance(value, float) else str(value)

    def dumps(value: Any) -> str:
        try:
            return fast(value, default=default, option=options).decode("utf-8")
        except refused:
            return plain(value)

    return dumps


def render_json(document: ReportDocument, *, indent: int | None = 2) -> str:
    """The report as JSON text (strict: no NaN literals).

    ``indent=None`` writes it on one line; with an indent, lists of more than
    50 items (verdicts, table rows) hold one compact item per line.

    Examples
    --------
    >>> print(_layout({"a": [1, 2], "b": [{"x": 1}]}, 0, 2, json.dumps))
    {
      "a": [1, 2],
      "b": [
        {
          "x": 1
        }
      ]
    }
    """
    doc = _document(document)

    def text(ascii_only: bool) -> str:
        dumps = _dumps(ascii_only)
        return (dumps(_materialised(doc)) if indent is None
                else _layout(doc, 0, int(indent), dumps, _record_dumps(ascii_only)))

    out = text(False)
    try:
        out.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate in a name cannot be written as UTF-8: JSON's \u escapes can.
        out = text(True)
    return out


def write_json(document: ReportDocument, path: str | Path, *, indent: int = 2) -> None:
    """Write :func:`render_json`'s text (with an ``indent``) to ``path``, streamed.

    The same bytes as writing ``render_json(document)`` as UTF-8, without
    holding the text or every record at once (see :func:`_write`).
    """
    doc = _document(document)
    path = Path(path)

    def attempt(ascii_only: bool) -> None:
        dumps = _dumps(ascii_only)
        with path.open("wb") as f:
            pending: list[str] = []
            size = 0

            def write(piece: str) -> None:
                nonlocal size
                pending.append(piece)
                size += len(piece)
                if size > 1 << 20:
                    flush()

            def flush() -> None:
                nonlocal size
                f.write("".join(pending).encode("utf-8"))
                pending.clear()
                size = 0

            _write(doc, 0, int(indent), dumps, write, _record_dumps(ascii_only))
            flush()

    try:
        attempt(False)
    except UnicodeEncodeError:
        # A lone surrogate in a name cannot be written as UTF-8: JSON's \u escapes can.
        attempt(True)


__all__ = ["REPORT_SCHEMA", "REPORT_SCHEMA_VERSION", "render_json", "report_document",
           "write_json"]
