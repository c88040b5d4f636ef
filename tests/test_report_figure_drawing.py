"""How often the report draws each figure, and that the files stay the same figure.

Drawing is most of the time of writing a report: each figure is laid out once
(for its SVG), and its PDF reuses that layout and tight box (one draw, no
dry run); deduplication compares pictures that are drawn anyway.
"""

from __future__ import annotations

import io
import re
from collections import Counter

import matplotlib.figure
import matplotlib.pyplot as plt
import numpy as np
import pytest

from benchverdict.analysis import ReportFigure
from benchverdict.plotting import new_axes, save_figure, save_tight, theme
from benchverdict.report._cli import write_report
from benchverdict.report.render import _unique_figures
from benchverdict.report.runner import compare
from benchverdict.results import _example_small


@pytest.fixture
def draws(monkeypatch):
    """Count ``Figure.draw`` calls by (figure, renderer class)."""
    counts: Counter = Counter()
    draw = matplotlib.figure.Figure.draw

    def counting(self, renderer):
        inner = getattr(renderer, "_renderer", renderer)  # inside a MixedModeRenderer
        counts[(id(self), type(inner).__name__)] += 1
        return draw(self, renderer)

    monkeypatch.setattr(matplotlib.figure.Figure, "draw", counting)
    return counts


def _figure(seed: int = 0) -> plt.Figure:
    with theme():
        fig, ax = plt.subplots(figsize=(3.5, 2.6))
    ax.plot(np.random.default_rng(seed).normal(size=20), label="an algorithm")
    ax.set_title("A title")
    ax.set_xlabel("budget")
    ax.legend()
    return fig


def _media_box(pdf: bytes) -> tuple[float, ...]:
    return tuple(float(x) for x in re.search(rb"/MediaBox \[ ([^\]]*) \]", pdf).group(1).split())


def _svg_size(svg: bytes) -> tuple[float, float]:
    m = re.search(rb'<svg[^>]* width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    return float(m.group(1)), float(m.group(2))


def test_the_pdf_after_the_svg_is_drawn_once_and_cropped_alike(draws, tmp_path):
    fig = _figure()
    figure = ReportFigure("x", "X", fig)
    svg = figure.svg()
    svg_draws = sum(n for (f, _), n in draws.items() if f == id(fig))
    assert svg_draws == 2  # the layout (a dry run) and the file
    draws.clear()
    (path,) = figure.save(tmp_path)
    assert draws == Counter({(id(fig), "RendererPdf"): 1})  # no dry run, no second layout
    width, height = _svg_size(svg)
    box = _media_box(path.read_bytes())
    assert box[:2] == (0.0, 0.0)
    assert box[2] == pytest.approx(width, abs=1e-3) and box[3] == pytest.approx(height, abs=1e-3)
    plt.close(fig)


def test_a_pdf_without_an_svg_first_is_laid_out_and_cropped_as_before(draws, tmp_path):
    fig = _figure()
    (path,) = ReportFigure("x", "X", fig).save(tmp_path)
    assert sum(draws.values()) == 2  # the layout (a dry run) and the file
    reference = _figure()
    buffer = io.BytesIO()
    with theme():
        reference.savefig(buffer, format="pdf", bbox_inches="tight")
    assert _media_box(path.read_bytes()) == pytest.approx(_media_box(buffer.getvalue()))
    plt.close(fig)
    plt.close(reference)


def test_save_figure_lays_out_once_for_every_vector_format(draws, tmp_path):
    fig = _figure()
    engine = type(fig.get_layout_engine())
    paths = save_figure(fig, tmp_path / "f", formats=("svg", "pdf"))
    assert [p.suffix for p in paths] == [".svg", ".pdf"]
    assert draws[(id(fig), "RendererSVG")] == 2 and draws[(id(fig), "RendererPdf")] == 1
    assert type(fig.get_layout_engine()) is engine  # the caller's figure keeps its engine
    width, height = _svg_size(paths[0].read_bytes())
    assert _media_box(paths[1].read_bytes())[2:] == pytest.approx((width, height), abs=1e-3)
    plt.close(fig)


def test_a_raster_file_is_cropped_by_its_own_metrics(tmp_path):
    fig = _figure()
    png = save_figure(fig, tmp_path / "f", formats=("svg", "png"))[1]
    alone = _figure()
    reference = save_figure(alone, tmp_path / "g", formats=("png",))[0]
    from PIL import Image

    assert Image.open(png).size == Image.open(reference).size
    plt.close(fig)
    plt.close(alone)


def test_save_tight_returns_the_padded_box_the_file_was_cropped_to():
    fig = _figure()
    buffer = io.BytesIO()
    with theme():
        box = save_tight(fig, buffer, "svg")
    width, height = _svg_size(buffer.getvalue())
    assert box.width * 72 == pytest.approx(width, abs=1e-3)
    assert box.height * 72 == pytest.approx(height, abs=1e-3)
    assert "get_tightbbox" not in vars(fig)  # the figure's own method again
    plt.close(fig)


def test_deduplication_still_drops_a_repeated_picture_and_keeps_distinct_ones():
    same_a, same_b, other = _figure(0), _figure(0), _figure(1)
    figures = [ReportFigure("a", "A", same_a), ReportFigure("b", "B", same_b),
               ReportFigure("c", "C", other)]
    assert [f.name for f in _unique_figures(figures)] == ["a", "c"]
    for fig in (same_a, same_b, other):
        plt.close(fig)


def test_writing_a_report_draws_each_figure_once_per_file_and_once_to_lay_it_out(
        draws, tmp_path):
    comparison = compare(_example_small(), analyses=["ranks"], progress=False)
    figures = comparison.figures
    assert figures
    draws.clear()
    write_report(comparison, tmp_path / "report")
    pdfs = list((tmp_path / "report" / "latex" / "figures").glob("*.pdf"))
    assert pdfs
    by_figure: dict[int, Counter] = {}
    for (fig, renderer), n in draws.items():
        by_figure.setdefault(fig, Counter())[renderer] = n
    for f in figures:
        counts = by_figure.get(id(f.figure), Counter())
        assert counts["RendererSVG"] <= 2, (f.name, counts)  # layout, then the SVG
        assert counts["RendererPdf"] <= 1, (f.name, counts)  # the PDF, on the SVG's layout
        assert set(counts) <= {"RendererSVG", "RendererPdf"}, (f.name, counts)
    assert sum(c["RendererPdf"] for c in by_figure.values()) == len(pdfs)


def test_new_axes_figures_still_save(tmp_path):
    ax = new_axes()
    ax.plot([1, 2, 3])
    assert save_figure(ax.figure, tmp_path / "a", formats=("pdf", "svg"))[1].stat().st_size
    plt.close(ax.figure)


# ----------------------------------------------------------------------------- PDF fonts
pdf_ps = pytest.importorskip("matplotlib.backends._backend_pdf_ps")
needs_subset_results = pytest.mark.skipif(
    not hasattr(getattr(pdf_ps, "SubsetResults", None), "_as_cm"),
    reason="shared_font_subsets knows matplotlib 3.11's subsetting interface only")


def _embedded_fonts(pdf: bytes) -> list:
    """The TrueType fonts embedded in a PDF (its FontFile2 streams), as fontTools fonts."""
    import zlib

    from fontTools.ttLib import TTFont

    ids = re.findall(rb"/FontFile2 (\d+) 0 R", pdf)
    fonts = []
    for i in ids:
        m = re.search(rb"\n" + i + rb" 0 obj\n.*?stream\n(.*?)\nendstream", pdf, re.S)
        fonts.append(TTFont(io.BytesIO(zlib.decompress(m.group(1)))))
    return fonts


def _text_figure(text: str) -> plt.Figure:
    fig = _figure()
    fig.axes[0].set_title(text)
    return fig


@needs_subset_results
def test_pdfs_share_one_font_subset_until_a_glyph_is_missing(monkeypatch, tmp_path):
    import benchverdict.plotting as plotting

    monkeypatch.setattr(plotting, "_FONT_SUBSETS", {})
    made = []
    subset = pdf_ps.get_glyphs_subset

    def counting(fontfile, glyphs):
        made.append(set(glyphs))
        return subset(fontfile, glyphs)

    monkeypatch.setattr(pdf_ps, "get_glyphs_subset", counting)
    paths = []
    for i, title in enumerate(["plain ASCII 1", "more ASCII: 2 (x)", "Omega \u03a9 here"]):
        fig = _text_figure(title)
        paths += save_figure(fig, tmp_path / f"f{i}", formats=("pdf",))
        plt.close(fig)
    assert len(made) == 2  # the first file's subset served the second; the third needed Ω
    assert pdf_ps.get_glyphs_subset is counting  # the block put matplotlib's function back
    for path, title in zip(paths, ["plain ASCII 1", "more ASCII: 2 (x)", "Omega \u03a9 here"]):
        pdf = path.read_bytes()
        assert b"/FontFile2" in pdf and b"/CIDFontType2" in pdf  # Type 42, embedded
        (font,) = _embedded_fonts(pdf)
        held = set(font.getBestCmap())
        assert {ord(c) for c in title} <= held  # every character drawn is in the font
        assert len(font.getGlyphOrder()) < 400  # a subset (DejaVu Sans has 6,000 glyphs)


@needs_subset_results
def test_shared_font_subsets_draw_the_same_page(monkeypatch, tmp_path):
    import benchverdict.plotting as plotting

    monkeypatch.setattr(plotting, "_FONT_SUBSETS", {})
    fig = _text_figure("Same text \u00e9")
    with theme():
        fig.savefig(tmp_path / "own.pdf")
        with plotting.shared_font_subsets():
            fig.savefig(tmp_path / "shared.pdf")
    own, shared = (_embedded_fonts((tmp_path / n).read_bytes())[0] for n in ("own.pdf",
                                                                              "shared.pdf"))
    for c in "Same text \u00e9":
        a = own["glyf"][own.getBestCmap()[ord(c)]] if c != " " else None
        b = shared["glyf"][shared.getBestCmap()[ord(c)]] if c != " " else None
        if a is not None:
            a.expand(own["glyf"])
            b.expand(shared["glyf"])
            assert a.getCoordinates(own["glyf"])[0] == b.getCoordinates(shared["glyf"])[0], c
    plt.close(fig)


# ----------------------------------------------------------------------------- the Hasse diagrams
def _svg_bytes(fig: plt.Figure) -> bytes:
    buffer = io.BytesIO()
    with theme(), plt.rc_context({"svg.hashsalt": "test"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def test_ranking_diagrams_have_no_ticks_to_place_and_draw_as_before():
    from matplotlib.ticker import AutoLocator

    from benchverdict.report.figures import ranking_panels
    from benchverdict.report.reconcile import reconcile
    from benchverdict.report.summary import scope_summaries
    from benchverdict.verdict import Evidence, Scope, Verdict

    vs = [Verdict(a, b, "a", "lmem.tukey", Scope(t), Evidence("p_value", 1e-6, 0.05),
                  "maximize", "x", n=60)
          for t in ("t1", "t2", "t3", "t4") for a, b in (("A", "B"), ("B", "C"))]
    summaries = scope_summaries(reconcile(vs), ["A", "B", "C"])
    fig, before = ranking_panels(summaries), ranking_panels(summaries)
    assert all(len(ax.get_xticks()) == 0 == len(ax.get_yticks()) for ax in fig.axes)
    for ax in before.axes:  # the ticks matplotlib placed before: none drawn, the axes are off
        ax.xaxis.set_major_locator(AutoLocator())
        ax.yaxis.set_major_locator(AutoLocator())
    assert len(before.axes[0].get_xticks()) > 0
    assert _svg_bytes(fig) == _svg_bytes(before)
    plt.close(fig)
    plt.close(before)


def test_a_box_for_a_figure_that_is_not_frozen_is_not_trusted(tmp_path):
    fig = _figure()
    buffer = io.BytesIO()
    with theme():
        stale = save_tight(fig, buffer, "svg")  # the layout engine is left on
    fig.set_size_inches(5.0, 3.0)  # the figure changes: the box no longer fits it
    (path,) = save_figure(fig, tmp_path / "f", formats=("pdf",), bbox_inches=stale)
    box = _media_box(path.read_bytes())
    assert box[2] > stale.width * 72 + 50  # cropped to the figure as it is now
    plt.close(fig)
