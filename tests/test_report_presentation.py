"""The report as a reader meets it: the summary first, short documents, small pages, reprs.

On the built-in example (issue 11): the headline names LR as worst over all benchmarks,
the Markdown fits in about 150 lines with the full tables in CSV files, the HTML stays
under 1.5 MB, and in headless Chromium at 1400 px the first screen (900 px) shows the
headline, the pairwise matrix and the partial-ranking diagram.
"""

from __future__ import annotations

import itertools
import re
import shutil
import subprocess

import numpy as np
import pytest

from benchverdict.examples import load_example
from benchverdict.report.reconcile import reconcile
from benchverdict.report.summary import CELL_COLOURS, headline_summary, scope_summaries
from benchverdict.verdict import Evidence, Scope, Verdict

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

#: The example's Markdown should fit in about 150 lines (issue 11); issue 22 adds a few lines
#: that answer more (what would settle the open pairs, for the scope and per pair).
MAX_MARKDOWN_LINES = 176
#: The example's HTML must stay under 2 MB (it was 1.5 MB for 6 benchmarks; the example
#: has 20 since issue 20, and the per-benchmark CDF figure grew with them).
MAX_HTML_BYTES = 2_000_000


@pytest.fixture(scope="module")
def example(example_comparison):
    return example_comparison


# ----------------------------------------------------------------------------- summary data
def lmem(a: str, b: str, outcome: str, p: float, bench: str | None = None) -> Verdict:
    # As the report's LMEM states it: across benchmarks its contrast generalises.
    return Verdict(a, b, outcome, "lmem.tukey", Scope(bench), Evidence("p_value", p, 0.05),
                   "maximize", "x", n=60, estimand="benchmarks" if bench is None else None)


def chain(names: list[str]) -> list[Verdict]:
    """names[0] > names[1] > names[2] settled; names[0] vs names[2] undecided (p = 0.5)."""
    a, b, c = names
    return [lmem(a, b, "a", 1e-8), lmem(b, c, "a", 1e-8), lmem(a, c, "inconclusive", 0.5)]


def test_transitive_relation_is_implied_and_drawn_as_a_chain():
    summary = scope_summaries(reconcile(chain(["A", "B", "C"])), ["A", "B", "C"])[0]
    assert summary.order == ["A", "B", "C"]
    assert summary.cells[("A", "C")].kind == "implied better"
    assert summary.cells[("C", "A")].kind == "implied worse"
    assert summary.cells[("A", "B")].text == "▲ LMEM"
    # Hasse diagram: only the cover relations, both settled; three layers.
    assert summary.cover_edges() == [("A", "B", True), ("B", "C", True)]
    assert summary.levels() == {"A": 0, "B": 1, "C": 2}


@pytest.mark.parametrize("order", list(itertools.permutations(["x", "y", "z"])))
def test_matrix_does_not_depend_on_the_order_of_algorithms(order):
    """Reordering the algorithms (and the verdicts' a/b roles) changes no cell."""
    names = {"x": "Alpha", "y": "Beta", "z": "Gamma"}
    ref = scope_summaries(reconcile(chain(list(names.values()))), list(names.values()))[0]
    algs = [names[k] for k in order]
    verdicts = [v.swapped() if algs.index(v.a) > algs.index(v.b) else v
                for v in chain(list(names.values()))]
    got = scope_summaries(reconcile(verdicts, algorithms=algs), algs)[0]
    assert got.order == ref.order
    assert {k: (c.kind, c.text) for k, c in got.cells.items()} == {
        k: (c.kind, c.text) for k, c in ref.cells.items()}


def test_renaming_algorithms_renames_the_summary_and_nothing_else():
    ref = scope_summaries(reconcile(chain(["A", "B", "C"])), ["A", "B", "C"])[0]
    new = {"A": "zeta", "B": "eta", "C": "alpha"}
    got = scope_summaries(reconcile(chain(list(new.values()))), list(new.values()))[0]
    assert got.order == [new[x] for x in ref.order]
    assert {(new[x], new[y]): c.kind for (x, y), c in ref.cells.items()} == {
        k: c.kind for k, c in got.cells.items()}


def test_pooled_scope_leads_and_benchmarks_follow():
    vs = [*chain(["A", "B", "C"]), lmem("A", "B", "a", 1e-08, "t1"),
          lmem("A", "B", "inconclusive", 0.4, "t2")]
    summaries = scope_summaries(reconcile(vs), ["A", "B", "C"])
    assert [s.scope for s in summaries] == ["all benchmarks", "benchmark t1", "benchmark t2"]
    assert headline_summary(summaries) is summaries[0]
    assert summaries[2].cells[("A", "B")].kind == "unsettled"


# ----------------------------------------------------------------------------- the example
def test_example_markdown_is_short_and_answers_first(example, tmp_path):
    md = example.to_markdown(tmp_path / "report.md")
    # The results table, the sections for a paper (methods, results, references) and the
    # Glossary are added reading, bounded on their own; the rest stays short.
    head, paper = md.split("## For a paper: methods and results")
    head, table = head.split("## Results table")
    paper, rest = paper.split("\n## Contradictions")
    rest, glossary = rest.split("\n## Glossary")
    lines = (head + rest).splitlines()
    assert len(lines) <= MAX_MARKDOWN_LINES
    from benchverdict.report.results_table import MAX_REPORT_ROWS

    assert len(table.splitlines()) <= MAX_REPORT_ROWS + 12
    assert len(paper.splitlines()) <= 45
    from benchverdict.report.glossary import GLOSSARY

    assert len(glossary.splitlines()) <= len(GLOSSARY) + 4
    summary = md.split("## Summary")[1].split("\n## ")[0]
    # Across benchmarks no pair is settled (LR's deficit varies across benchmarks, which the
    # pair's own paired test counts), and the headline says by how much pairs differ.
    assert "Across benchmarks like these 20: LR, MLP, RF, SVM and kNN cannot be separated" \
        in summary.splitlines()[2]
    assert r"SVM over LR +0.097 \[-0.022, +0.215\]" in summary.splitlines()[2]
    # One sentence per benchmark (the first 12, then a pointer to relations.csv), and the
    # matrix (header, rule, one row per algorithm).
    assert sum(line.startswith("- On ") for line in summary.splitlines()) == 12
    assert "- ... and 8 more scopes" in summary
    assert sum(line.startswith("| ") for line in summary.splitlines()) == 1 + 5
    assert "![Partial ranking on all benchmarks](report_figures/report-ranking.svg)" in summary
    # Full tables are CSV files, linked; none is inlined beyond a screenful.
    assert (tmp_path / "report_tables" / "relations.csv").is_file()
    tables = re.findall(r"^\|", md, flags=re.M)
    assert len(tables) < 60


def test_example_html_is_small_summary_first_and_each_figure_once(example):
    page = example.to_html()
    assert len(page.encode("utf-8")) < MAX_HTML_BYTES
    assert "<img" not in page  # figures are inline SVG, not base64 images
    start = page.index('id="summary"')
    assert start < page.index('id="headline"') < page.index('id="matrix"') < page.index(
        'id="ranking-diagram"') < page.index('id="contradictions"')
    # The headline's technical terms link to the Glossary: read it without the links.
    headline = re.sub(r"<[^>]+>", "", re.search(r'id="headline">(.*?)</p>', page).group(1))
    assert headline.startswith("Across benchmarks like these 20: LR, MLP, RF, SVM and kNN "
                               "cannot be separated")
    # Details are collapsed: every analysis is a closed <details>.
    analyses = page[page.index('id="analyses"'):page.index('id="details"')]
    assert analyses.count("<details>") >= 4 and "<details open" not in analyses
    # No picture twice.
    svgs = re.findall(r"<svg\b.*?</svg>", page, flags=re.S)
    bodies = [re.sub(r'id="[^"]*"|xlink:href="[^"]*"|url\(#[^)]*\)|<title>.*?</title>|'
                     r"<dc:date>.*?</dc:date>", "", s) for s in svgs]
    assert len(bodies) == len(set(bodies))


def test_example_repr_is_short_and_html_repr_is_the_summary(example):
    text = repr(example)
    assert len(text) < 700 and text.count("\n") <= 3
    assert "LR, MLP, RF, SVM and kNN cannot be separated" in text
    html = example._repr_html_()
    assert len(html) < 30_000
    assert "SVM over LR" in html and "<table" in html and "<svg" not in html
    assert "On breast_cancer" in html


# ----------------------------------------------------------------------------- the browser
def screenshot(html_path, png_path, profile, width=1400, height=2400):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--disable-background-networking", "--disable-component-update", "--no-first-run",
           f"--user-data-dir={profile}", f"--window-size={width},{height}",
           f"--screenshot={png_path}", html_path.resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]


def colour_area(image: np.ndarray, hex_colour: str, tol: int = 6) -> int:
    """Pixels of ``image`` (floats in [0, 1]) within ``tol`` of the colour in every channel."""
    rgb = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)])
    pixels = (image[..., :3] * 255).round().astype(int)
    return int((np.abs(pixels - rgb).max(axis=-1) <= tol).sum())


def first_screen(png_path, height: int = 900) -> dict[str, bool]:
    """What the first screen of the page shows, judged by colours only the summary uses.

    headline: the headline box (its soft grey background); matrix: blocks of the "better"
    and "worse" cell colours; diagram: the grey-blue band of the ranking diagram (an SVG
    colour the page's CSS never uses).
    """
    import matplotlib.image

    image = matplotlib.image.imread(png_path)[:height]
    return {
        "headline": colour_area(image, "#f6f7f9", tol=1) > 30_000,
        # Across benchmarks the example settles no pair; four are power gaps (one family
        # decides them before the adjustment): blocks of that cell colour.
        "matrix": colour_area(image, CELL_COLOURS["power gap"][0]) > 2_000,
        "diagram": colour_area(image, "#e4ecf2", tol=2) > 5_000,
    }


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_first_screen_shows_headline_matrix_and_ranking(example, tmp_path):
    html = tmp_path / "report.html"
    page = example.to_html(html)
    png = tmp_path / "shot.png"
    screenshot(html, png, tmp_path / "profile")
    assert first_screen(png) == {"headline": True, "matrix": True, "diagram": True}
    # Guard: the same page with a screen of space above the summary fails every check.
    pushed = tmp_path / "pushed.html"
    pushed.write_text(page.replace('<section id="summary">',
                                   '<div style="height: 1200px"></div><section id="summary">'),
                      encoding="utf-8")
    screenshot(pushed, tmp_path / "pushed.png", tmp_path / "profile")
    assert first_screen(tmp_path / "pushed.png") == {
        "headline": False, "matrix": False, "diagram": False}


def test_autorank_diagram_is_not_drawn_twice():
    """Autorank on the Friedman + Nemenyi path draws the Nemenyi diagram: show it once.

    Where Autorank takes another path (e.g. ANOVA + Tukey on normal data), its
    own diagram is kept.
    """
    import numpy as np
    import pandas as pd

    from benchverdict import Results
    from benchverdict.report import compare

    def ranks_run(results):
        comp = compare(results, analyses=["ranks"], progress=False)
        return next(r for r in comp.runs if r.name == "ranks")

    run = ranks_run(load_example())
    names = [f.name for f in run.figures]
    assert "ranks-cd-nemenyi" in names and "ranks-autorank" not in names
    assert any("shown once" in n for n in run.notes)
    # Normal block means with equal variances: Autorank's parametric path, own diagram.
    rng = np.random.default_rng(3)
    rows = [(a, f"b{b}", s, 10.0 * off + rng.normal())
            for a, off in (("x", 0.0), ("y", 0.3), ("z", 0.6))
            for b in range(40) for s in range(1)]
    frame = pd.DataFrame(rows, columns=["alg", "bench", "seed", "score"])
    normal = Results.from_frame(frame, algorithm="alg", benchmark="bench", seed="seed",
                                score="score", objective="maximize", kind="runs")
    from benchverdict import ranks

    blocks = normal.blocks()
    auto = ranks.autorank(blocks)
    assert not auto.is_friedman_nemenyi  # normal data: the parametric path
    assert not auto.same_diagram_as(ranks.friedman(blocks))
    run = ranks_run(normal)
    assert "ranks-autorank" in [f.name for f in run.figures]
    assert not any("shown once" in n for n in run.notes)
