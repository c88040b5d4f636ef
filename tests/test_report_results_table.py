"""The report's "Results table" section: where it stands, what it shows, what it leaves out.

The bold cells and daggers the report prints must be the per-benchmark
relations' answer: read here from the relations themselves (who is beaten by
whom), not from the table's own decision functions. The example report is the
shared session fixture; the other checks use the small built-in example
(under a second each).
"""

from __future__ import annotations

import copy
import re
from html.parser import HTMLParser

import pytest

from benchverdict.report import compare
from benchverdict.report import results_table as rt
from benchverdict.report.render import results_table_section
from benchverdict.results import _example_small


@pytest.fixture(scope="module")
def small():
    return compare(_example_small(), analyses=["lmem"], progress=False, figures=False)


def _expected(comparison) -> dict[str, tuple[set[str], set[str]]]:
    """Per benchmark: (bold, daggered) algorithms, straight from the relations."""
    out = {}
    for scope in comparison.reconciliation.scopes.values():
        bench, meta = scope.key
        if bench is None or meta:
            continue
        algs = {str(a) for a in scope.algorithms}
        beats = {a: {str(b) for b in scope.better.get(a, ())} & algs for a in algs}
        bold = {a for a in algs if not any(a in beats[w] for w in algs)}
        dagger = {a for a in algs - bold if all(a in beats[w] for w in bold)}
        out[str(bench)] = (bold, dagger)
    return out


def _markdown_cells(markdown: str) -> dict[str, dict[str, str]]:
    """Benchmark -> algorithm -> cell text of a Markdown results table (rows = benchmarks)."""
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    header = [h.strip() for h in rows[0].strip("|").split("|")]
    out = {}
    for line in rows[1:]:
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        out[cells[0].replace("\\_", "_")] = dict(zip(header[1:], cells[1:]))
    return out


class _Cells(HTMLParser):
    """Row label -> list of (classes, text) of the cells of a bv-results-table's body."""

    def __init__(self):
        super().__init__()
        self.rows: dict[str, list[tuple[str, str]]] = {}
        self._row: list = []
        self._label = None
        self._in: str | None = None
        self._cls = ""
        self._text = ""
        self._body = False

    def handle_starttag(self, tag, attrs):
        if tag == "tbody":
            self._body = True
        if self._body and tag in ("th", "td"):
            self._in, self._cls, self._text = tag, dict(attrs).get("class", ""), ""

    def handle_endtag(self, tag):
        if tag == "tbody":
            self._body = False
        if self._body and tag == self._in:
            if tag == "th":
                self._label = self._text
            else:
                self._row.append((self._cls, self._text))
            self._in = None
        if self._body and tag == "tr":
            self.rows[self._label] = self._row
            self._row = []

    def handle_data(self, data):
        if self._in:
            self._text += data


def test_the_example_reports_bold_cells_are_the_relations(example_comparison):
    section = example_comparison.document().results_table.get()
    expected = _expected(example_comparison)
    assert expected, "the example has per-benchmark relations"
    md = _markdown_cells(section.markdown)
    parser = _Cells()
    parser.feed(section.html)
    algorithms = list(example_comparison.algorithms)
    for bench, (bold, dagger) in expected.items():
        cells = md[bench]
        assert {a for a, c in cells.items() if c.startswith("**")} == bold, bench
        assert {a for a, c in cells.items() if "†" in c} == dagger, bench
        html_cells = dict(zip(algorithms, parser.rows[bench]))
        assert {a for a, (cls, _) in html_cells.items() if "bv-best" in cls} == bold, bench
        assert {a for a, (_, text) in html_cells.items() if "†" in text} == dagger, bench
    # Something is decided on the example: not every cell is bold.
    assert any(dagger for _, dagger in expected.values())


def test_the_section_stands_after_the_summary_before_the_details(small):
    md = small.to_markdown()
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[:3] == ["## Summary", "## Results table",
                         "## For a paper: methods and results"]
    section = md[md.index("## Results table"):md.index("## For a paper")]
    assert "| Benchmark | a | b |" in section and "Cells: mean ± SD" in section
    page = small.to_html()
    order = [page.index(f'<section id="{name}">')
             for name in ("summary", "results-table", "paper", "contradictions")]
    assert order == sorted(order)
    assert '<a href="#results-table">Results table</a>' in page
    assert page.count('<table class="bv-results-table">') == 1


def test_json_holds_every_cell(small):
    record = small.to_dict()["paper"]["results_table"]
    assert len(record["cells"]) == 4 and len(record["average_ranks"]) == 2
    section = small.document().results_table.get()
    assert [c["bold"] for c in record["cells"]] == section.frame["bold"].tolist()
    assert record["legend"].startswith("Cells: mean ± SD")


def test_a_large_table_is_cut_and_says_what_is_left_out(example_comparison):
    table = rt.build_results_table(example_comparison.results, example_comparison)
    n_b = len(table.benchmarks)
    # Too many benchmarks: the first rows, and the rest named.
    view, note = rt.report_view(table, max_rows=5)
    assert view.orientation == "benchmarks" and view.benchmarks == table.benchmarks[:5]
    assert f"5 of {n_b} benchmarks" in note and table.benchmarks[5] in note
    assert "results_table.csv" in note
    assert f"and {n_b - 5 - 8} more" in note  # 8 names, then a count
    # Too many algorithms: the best average ranks, the others named; bold unchanged.
    view, note = rt.report_view(table, max_columns=3)
    ranks = table.summary.set_index("algorithm")["average_rank"]
    kept = set(ranks.sort_values(kind="stable").index[:3])
    assert set(view.algorithms) == kept
    assert all(a in note for a in set(table.algorithms) - kept)
    full = table.cells.set_index(["benchmark", "algorithm"])["bold"]
    shown = view.cells.set_index(["benchmark", "algorithm"])["bold"]
    assert shown.to_dict() == {k: full[k] for k in shown.index}
    # More algorithms than columns and than benchmarks: one row per algorithm.
    few = table.subset(benchmarks=table.benchmarks[:3])
    view, note = rt.report_view(few, max_columns=4)
    assert view.orientation == "algorithms" and note == ""
    assert view.to_markdown().splitlines()[0].startswith("| Algorithm |")
    with pytest.raises(ValueError, match="not in the table"):
        table.subset(algorithms=["nobody"])


def test_the_cut_reaches_every_format(small, monkeypatch, tmp_path):
    monkeypatch.setattr(rt, "MAX_REPORT_ROWS", 1)
    section = results_table_section(small)
    assert "Shown: 1 of 2 benchmarks" in section.note
    assert "| q |" not in section.markdown
    assert "\nq &" in section.latex  # the LaTeX and the CSV hold the whole table
    assert set(section.frame["benchmark"]) == {"p", "q"}
    fresh = copy.copy(small)
    fresh._document = None
    monkeypatch.setattr(rt, "MAX_REPORT_ROWS", 1)
    assert "*Not shown here.* Shown: 1 of 2 benchmarks" in fresh.to_markdown()
    assert re.search(r"<strong>Not shown here.</strong> Shown: 1 of 2 benchmarks",
                     fresh.to_html())
    # The LaTeX report inputs the table only whole; else it says where the table is.
    tex = fresh.to_latex(tmp_path / "cut").read_text(encoding="utf-8")
    assert "more than a page holds" in tex and r"\input{tables/results_table" not in tex
    whole = copy.copy(small)
    whole._document = None
    monkeypatch.undo()
    tex = whole.to_latex(tmp_path / "whole").read_text(encoding="utf-8")
    assert r"\input{tables/results_table.tex}" in tex


def test_no_data_no_section(small):
    bare = copy.copy(small)
    bare.results, bare._document = None, None
    assert bare.document().results_table.get() is None
    assert "## Results table" not in bare.to_markdown()
    assert "results_table" not in bare.to_dict()["paper"]
