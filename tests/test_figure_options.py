"""Paper options of the critical-difference diagram: highlight, compact layout, font and line
sizes, TikZ export (compiled with pdflatex when TikZ is installed) and several diagrams."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex

from benchverdict import critical_difference as cdd
from benchverdict.ranks._examples import small_runs
from benchverdict.ranks.diagram import cd_diagram, cd_diagrams, cd_tikz
from benchverdict.ranks.friedman import friedman

NAMES = ["PriorBand", "HyperBand", "RS_{x}", "BOHB", "DEHB", "a$b%c&d#e~^"]


def _example() -> tuple[pd.Series, pd.DataFrame]:
    pos = pd.Series([1.1, 1.9, 2.4, 4.2, 5.1, 5.6], index=NAMES)
    nd = pd.DataFrame(True, index=NAMES, columns=NAMES)
    for a, b in [("PriorBand", "DEHB"), ("PriorBand", NAMES[-1]), ("HyperBand", NAMES[-1])]:
        nd.loc[a, b] = nd.loc[b, a] = False
    return pos, nd


def _name_texts(ax):
    return {t.get_text().split(" (")[0]: t for t in ax.texts if " (" in t.get_text()
            and not t.get_text().startswith(("CD", "average", "note"))}


def test_highlight_is_bold_in_the_accent_colour_and_only_it():
    pos, nd = _example()
    ax = cdd.draw_cd_diagram(pos, nd, limits=(1, 6), highlight="BOHB")
    texts = _name_texts(ax)
    assert texts["BOHB"].get_fontweight() == "bold"
    assert to_hex(texts["BOHB"].get_color()) == cdd.HIGHLIGHT_COLOUR.lower()
    others = [t for name, t in texts.items() if name != "BOHB"]
    assert len(others) == 5 and all(t.get_fontweight() == "normal" for t in others)
    coloured = [c for c in ax.collections
                if to_hex(c.get_edgecolor()[0]) == cdd.HIGHLIGHT_COLOUR.lower()]
    assert len(coloured) == 1 and len(coloured[0].get_segments()) == 1


def test_highlight_of_an_unknown_name_says_which_names_exist():
    pos, nd = _example()
    with pytest.raises(ValueError, match=r"\['Proposed'\].*PriorBand"):
        cdd.draw_cd_diagram(pos, nd, highlight=["Proposed"])


def test_compact_layout_puts_every_name_left_of_the_axis_best_on_top_and_is_narrow():
    pos, nd = _example()
    ax = cdd.draw_cd_diagram(pos, nd, limits=(1, 6), layout="compact")
    fig = ax.figure
    assert fig.get_figwidth() == pytest.approx(3.5)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    axis_left = ax.transData.transform((0, 0))[0]
    texts = _name_texts(ax)
    assert set(texts) == set(NAMES)
    for t in texts.values():
        assert t.get_window_extent(renderer).x1 <= axis_left
    tops = [texts[n].get_window_extent(renderer).y0 for n in NAMES]
    assert tops == sorted(tops, reverse=True)  # best on top, in rank order
    two_sided = cdd.draw_cd_diagram(pos, nd, limits=(1, 6))
    assert two_sided.figure.get_figwidth() == pytest.approx(7.0)


def test_fontsize_and_linewidth_reach_the_drawing():
    pos, nd = _example()
    ax = cdd.draw_cd_diagram(pos, nd, limits=(1, 6), critical_difference=1.0, fontsize=12,
                             linewidth=2.0)
    sizes = {round(t.get_fontsize(), 1) for t in ax.texts}
    assert sizes == {12.0, 11.0}
    assert ax.lines[0].get_linewidth() == pytest.approx(2.0)
    small = cdd.draw_cd_diagram(pos, nd, limits=(1, 6), critical_difference=1.0)
    assert ax.figure.get_figheight() > small.figure.get_figheight()  # rows grow with the font
    with pytest.raises(ValueError, match="fontsize"):
        cdd.draw_cd_diagram(pos, nd, fontsize=0)
    with pytest.raises(ValueError, match="layout"):
        cdd.draw_cd_diagram(pos, nd, layout="one-sided")


def test_tikz_has_every_name_escaped_the_groups_and_the_highlight():
    pos, nd = _example()
    tex = cdd.cd_diagram_tikz(pos, nd, critical_difference=1.3, limits=(1, 6),
                              highlight="PriorBand", standalone=False)
    assert tex.startswith("\\providecommand\\bvu[2]{#1}\n\\begin{tikzpicture}")
    assert tex.endswith("\\end{tikzpicture}\n")
    assert r"RS\_\{x\} (2.40)" in tex
    assert r"a\$b\%c\&d\#e\textasciitilde{}\textasciicircum{} (5.60)" in tex
    assert tex.count(r"\bfseries") == 1 and r"{PriorBand (1.10)}" in tex
    found = cdd.grouping(pos, nd)
    bars = [line for line in tex.splitlines() if "black!90" in line and "--" in line]
    assert len(bars) == len(found.groups)
    assert "CD = 1.3" in tex
    doc = cdd.cd_diagram_tikz(pos, nd)
    assert doc.startswith(r"\documentclass[tikz") and tex.count("tikzpicture") == 2


def _kpsewhich(name: str) -> bool:
    if shutil.which("kpsewhich") is None or shutil.which("pdflatex") is None:
        return False
    out = subprocess.run(["kpsewhich", name], capture_output=True, text=True, check=False)
    return bool(out.stdout.strip())


def _compile(tmp_path, source: str) -> None:
    (tmp_path / "cd.tex").write_text(source, encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "cd.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "cd.pdf").stat().st_size > 1000


@pytest.mark.skipif(not _kpsewhich("tikz.sty"),
                    reason="pdflatex with TikZ not installed (Debian: texlive-pictures)")
def test_tikz_picture_compiles_with_pdflatex(tmp_path):
    pos, nd = _example()
    pictures = [cdd.cd_diagram_tikz(pos, nd, critical_difference_range=(1.0, 1.5), limits=(1, 6),
                                    highlight="PriorBand", layout=layout, title="Budget 100 %",
                                    standalone=False, max_labels=4)
                for layout in cdd.CD_LAYOUTS]
    _compile(tmp_path, "\\documentclass{article}\n\\usepackage{tikz}\n\\begin{document}\n"
             + "\n".join(pictures) + "\\end{document}\n")


@pytest.mark.skipif(not _kpsewhich("tikz.sty"),
                    reason="TikZ is not installed (Debian: texlive-pictures)")
def test_standalone_tikz_document_compiles(tmp_path):
    document = cd_tikz(small_runs(), posthoc="nemenyi", n_resamples=0)
    head = "\\documentclass[tikz,border=3pt]{standalone}\n"
    assert document.startswith(head) and document.rstrip().endswith("\\end{document}")
    if not _kpsewhich("standalone.cls"):
        # The standalone class is in Debian's large texlive-latex-extra, which CI does not
        # install: the same document with article + TikZ compiles the picture and the rest.
        document = "\\documentclass{article}\n\\usepackage{tikz}\n" + document[len(head):]
    _compile(tmp_path, document)


def test_several_diagrams_share_the_rank_axis_and_keep_each_panel():
    pos, nd = _example()
    sub = NAMES[:4]
    fewer = pos[sub].rank()
    panels = {"budget 10": {"positions": pos, "not_different": nd, "limits": (1, 6),
                            "critical_difference": 1.2},
              "budget 1": {"positions": fewer, "not_different": nd.loc[sub, sub],
                           "limits": (1, 4)}}
    fig = cdd.draw_cd_diagrams(panels, highlight="PriorBand", layout="compact")
    assert [ax.get_title() for ax in fig.axes] == ["budget 10", "budget 1"]
    fig.canvas.draw()
    # one axis range for both: position 4 sits at the same place in both panels
    xs = [ax.transData.transform((3 / 5, 0))[0] for ax in fig.axes]
    assert xs[0] == pytest.approx(xs[1], abs=0.5)
    ticks = [sorted(t.get_text() for t in ax.texts if t.get_text().isdigit()) for ax in fig.axes]
    assert ticks[0] == ticks[1] == list("123456")
    for ax in fig.axes:
        assert sum(t.get_fontweight() == "bold" for t in ax.texts) == 1
    with pytest.raises(ValueError, match="lower_is_better"):
        cdd.draw_cd_diagrams({"a": panels["budget 10"],
                              "b": {**panels["budget 1"], "lower_is_better": False}})
    with pytest.raises(ValueError, match="not_different"):
        cdd.draw_cd_diagrams({"a": {"positions": pos}})


def test_cd_diagrams_from_rank_results_and_options_through_cd_diagram():
    runs = small_runs()
    results = {"all benchmarks": friedman(runs, posthoc="nemenyi", n_resamples=0),
               "first half": runs.subset(benchmarks=runs.benchmarks[: len(runs.benchmarks) // 2])}
    fig = cd_diagrams(results, posthoc="nemenyi", n_resamples=0, fontsize=10)
    assert len(fig.axes) == 2
    sizes = {t.get_fontsize() for ax in fig.axes for t in ax.texts}
    assert sizes == {10.0, 9.0}
    name = runs.algorithms[0]
    ax = cd_diagram(runs, posthoc="nemenyi", n_resamples=0, highlight=name, layout="compact")
    assert [t.get_fontweight() for t in ax.texts if t.get_text().startswith(name + " (")] == [
        "bold"]
    with pytest.raises(TypeError, match="drawing options"):
        cd_diagram(results["all benchmarks"], posthoc="wilcoxon")
    assert np.isfinite(results["all benchmarks"].critical_difference)


@pytest.mark.skipif(not _kpsewhich("tikz.sty") or shutil.which("pdftotext") is None,
                    reason="pdflatex with TikZ or pdftotext not installed")
def test_tikz_with_hostile_names_compiles_and_shows_every_name(tmp_path):
    """The TikZ export escapes names as the report does (it had its own table, never run
    against hostile names): optional-argument brackets, a star, dashes, a TeX command,
    accents, CJK and a very long name all compile and stay visible."""

    names = ["[x]", "*y", "a--b", "\\input{/etc/passwd}", "%", "$&#_^~{}", "é", "東京",
             "n" * 200]
    pos = pd.Series({n: 1.0 + 0.5 * i for i, n in enumerate(names)})
    nd = pd.DataFrame(True, index=pos.index, columns=pos.index)
    document = cdd.cd_diagram_tikz(pos, nd, critical_difference=1.0, label_width=400)
    head = "\\documentclass[tikz,border=3pt]{standalone}\n"
    if not _kpsewhich("standalone.cls"):
        document = "\\documentclass{article}\n\\usepackage{tikz}\n" + document[len(head):]
    _compile(tmp_path, document)
    text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "cd.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    flat = "".join(text.split())
    for name in names[:-2]:
        assert "".join(name.split()) in flat, name
    assert ("[U+6771]" in flat and "[U+4EAC" in flat) or "東京" in flat  # pdfLaTeX or not
    assert "n" * 12 in flat  # (shortened to 40 + a digest; article pages may crop it)
