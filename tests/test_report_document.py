"""The report document (issue 21, item 3): built once, read by every format, figures lazy."""

from __future__ import annotations

import dataclasses
import json

import matplotlib.pyplot as plt
import pytest

from benchverdict.report import html, json_format, markdown, terminal
from benchverdict.report.document import ReportDocument, ScopeLine, Table
from benchverdict.report.runner import AnalysisRun, ReportFigure, compare
from benchverdict.results import _example_small


@pytest.fixture(scope="module")
def comparison():
    return compare(_example_small(), analyses=["ranks"], progress=False, figures=False)


def test_the_comparison_builds_its_document_once_per_reconciliation(comparison):
    doc = comparison.document()
    assert isinstance(doc, ReportDocument)
    assert comparison.document() is doc
    comparison.to_markdown()
    repr(comparison)
    assert comparison.document() is doc
    # A new reconciliation (the comparison re-reconciled) gets a new document.
    fresh = compare(_example_small(), analyses=["ranks"], progress=False, figures=False)
    saved = comparison.reconciliation
    try:
        comparison.reconciliation = fresh.reconciliation
        assert comparison.document() is not doc
    finally:
        comparison.reconciliation = saved


def test_json_draws_no_figure_and_its_dict_is_the_callers():
    comp = compare(_example_small(), analyses=["ranks"], progress=False, figures=False)
    text = comp.to_json()
    doc = comp.document()
    assert repr(doc.drawings) == "Lazy(not computed)"
    assert repr(doc.records) == "Lazy(computed)"
    first = comp.to_dict()
    first["verdicts"][0]["a"] = "changed"
    first["analyses"].clear()
    again = comp.to_dict()
    assert again["verdicts"][0]["a"] != "changed" and again["analyses"]
    assert {k: v for k, v in json.loads(text).items() if k != "generated_at"} == {
        k: v for k, v in again.items() if k != "generated_at"}
    comp.to_html()
    assert repr(doc.drawings) == "Lazy(computed)"


def test_every_format_shows_what_the_document_says(comparison):
    """The renderers read the document only: change it, and each format changes with it."""
    doc = comparison.document()
    title = "T <b>|x|</b> & $y$"
    headline = "A beats everyone \u202e (made up)"
    changed = dataclasses.replace(
        doc, title=title,
        summary=dataclasses.replace(doc.summary, headline=headline, others=(
            ScopeLine("benchmark q", "On q: nothing."),)),
        power_gaps=Table(doc.power_gaps.header, (("s", "family", "1", "a vs b", "-", "why"),)))
    page = html.render_html(changed)
    assert "T &lt;b&gt;|x|&lt;/b&gt; &amp; $y$" in page and "\\u202e (made up)" in page
    assert "On q: nothing." in page and "<td>a vs b</td>" in page
    md = markdown.render_markdown(changed)
    assert md.startswith("# T &lt;b&gt;\\|x\\|&lt;/b&gt; &amp; $y$")
    assert "- On q: nothing." in md and "| s | family | 1 | a vs b |" in md
    assert json_format.report_document(changed)["warnings"] == list(doc.warnings)
    headed = dataclasses.replace(changed, summary=dataclasses.replace(
        changed.summary, head=ScopeLine("all benchmarks", headline)))
    assert headline in terminal.comparison_summary(headed)
    assert "\\u202e (made up)" in terminal.comparison_repr(headed)
    # The original document is unchanged (frozen data, replaced copies).
    assert comparison.document().title != title


def test_tables_carry_what_they_leave_out(monkeypatch):
    from benchverdict.report import render

    monkeypatch.setattr(render, "MAX_DOCUMENT_ROWS", 1)
    comp = compare(_example_small(), analyses=["ranks"], progress=False, figures=False)
    doc = comp.document()
    assert len(doc.verdicts.body) == 1
    assert doc.verdicts.total == doc.n_verdicts == len(comp.reconciliation.verdicts) > 1
    assert len(doc.relations.body) <= 1
    assert doc.relations.total == len(comp.relations)


def test_figure_files_are_named_alike_in_json_markdown_and_latex(tmp_path):
    """Two figures of one name get two files, and the JSON names them before any is drawn."""
    def runner(results, options):
        run = AnalysisRun("ranks", "ok")
        for colour in ("red", "blue"):
            fig, ax = plt.subplots()
            ax.plot([0, 1], [0, 1], color=colour)  # two pictures: both are shown
            run.figures.append(ReportFigure("ranks-same", f"same {colour}", fig))
        return run

    comp = compare(_example_small(), analyses=["ranks"], runners={"ranks": runner},
                   progress=False)
    files = [f["file"] for f in json.loads(comp.to_json())["analyses"][0]["figures"]]
    assert files == ["ranks-same", "ranks-same-2"]
    comp.to_markdown(tmp_path / "report.md")
    comp.to_latex(tmp_path / "latex")
    assert {p.stem for p in (tmp_path / "report_figures").glob("ranks-*.svg")} == set(files)
    assert {p.stem for p in (tmp_path / "latex" / "figures").glob("ranks-*.pdf")} == set(files)
    assert [f.file_name for f in comp.figures if f.name == "ranks-same"] == files
