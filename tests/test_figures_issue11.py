"""Figures a reader can use (issue 11, presentation).

Checked on the drawn figures, not on the code that draws them:

- every pair of algorithms gets colours told apart under normal vision and
  the two red-green dichromacies (seaborn's colorblind palette gave MLP and
  SVM a CIEDE2000 difference of 9.0 in the example);
- the legend sits outside the data;
- one extreme point (SVM's median at k = 1 on breast_cancer) does not flatten
  the other curves: it is drawn off scale and marked;
- sanity-check bar charts with 24+ benchmarks have readable, non-overlapping
  labels and the flagged bars marked.
"""

from __future__ import annotations

import warnings
from functools import cache

import numpy as np
import pytest
from matplotlib.colors import to_rgb

from benchverdict import lmem, tuning
from benchverdict._colour import ciede2000, min_pairwise_difference, srgb_to_lab
from benchverdict.examples import load_example
from benchverdict.lmem.simulate import simulate_results
from benchverdict.plotting import MIN_COLOUR_DIFFERENCE, algorithm_styles


@cache
def example_curves():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tuning.from_results(load_example())


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


# Sharma, Wu and Dalal (2005), Table 1: pairs 1, 7, 17, 25 and 34 with their CIEDE2000.
SHARMA = [((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
          ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
          ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
          ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
          ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082)]


@pytest.mark.parametrize(("lab1", "lab2", "expected"), SHARMA)
def test_ciede2000_matches_sharma_reference_pairs(lab1, lab2, expected):
    assert float(ciede2000(lab1, lab2)) == pytest.approx(expected, abs=5e-5)
    assert float(ciede2000(lab2, lab1)) == pytest.approx(expected, abs=5e-5)  # symmetric


def test_white_is_l100():
    assert srgb_to_lab([1.0, 1.0, 1.0]).round(2).tolist() == [100.0, 0.0, 0.0]


@pytest.mark.parametrize("n", [2, 5, 10, 13])
def test_every_pair_of_algorithms_is_distinguishable(n):
    names = [f"alg{i}" for i in range(n)]
    styles = algorithm_styles(names)
    # two algorithms differ in colour by the bound, or (beyond the palette) in line style too
    for i in range(n):
        for j in range(i + 1, n):
            a, b = styles[names[i]], styles[names[j]]
            far = min_pairwise_difference([to_rgb(a.color), to_rgb(b.color)]) \
                >= MIN_COLOUR_DIFFERENCE
            assert far or (a.linestyle, a.marker) != (b.linestyle, b.marker), (i, j)
    if n <= 10:
        colours = [to_rgb(styles[name].color) for name in names]
        assert min_pairwise_difference(colours) >= MIN_COLOUR_DIFFERENCE


def test_seaborn_colorblind_palette_failed_the_bound():
    # why the palette was replaced: its 2nd and 4th colours (MLP and SVM in the example's
    # order LR, MLP, RF, SVM, kNN) are 9.0 apart under one of the checked visions
    import seaborn as sns

    assert min_pairwise_difference(sns.color_palette("colorblind", 5)) < MIN_COLOUR_DIFFERENCE


def test_example_tuning_curves_figure():
    curves = example_curves()
    ax = curves.plot(benchmark="breast_cancer")
    fig = ax.figure
    fig.canvas.draw()
    lines = [line for line in ax.get_lines() if line.get_label() in
             {"LR", "MLP", "RF", "SVM", "kNN"}]
    colours = {line.get_label(): to_rgb(line.get_color()) for line in lines}
    assert set(colours) == {"LR", "MLP", "RF", "SVM", "kNN"}
    assert min_pairwise_difference(list(colours.values())) >= MIN_COLOUR_DIFFERENCE
    # the legend (one entry per algorithm) is outside the data area
    legends = [*fig.legends, *([ax.get_legend()] if ax.get_legend() else [])]
    assert legends
    for legend in legends:
        assert not _overlap(legend.get_window_extent(), ax.get_window_extent())
        assert len(legend.get_texts()) <= 5 + 2  # algorithms (+ band/off-scale keys)
    # SVM's median at k = 1 is far below the rest; it must not set the y-limits
    svm = curves[("SVM", "breast_cancer")]
    low, high = ax.get_ylim()
    assert svm.point[0] < low
    others = np.concatenate([curves[(a, "breast_cancer")].point for a in
                             ("LR", "MLP", "RF", "kNN")])
    assert (others.max() - others.min()) > 0.3 * (high - low)


def test_sanity_bars_readable_with_many_benchmarks():
    data = simulate_results(n_benchmarks=26, n_seeds=4, seed=0, uninformative=(3, 17))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check = lmem.benchmark_informativeness(data)
    ax = check.plot()
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = [t for t in ax.get_yticklabels() if t.get_text()]
    assert len(labels) >= 24  # horizontal bars: one readable label per benchmark
    boxes = [t.get_window_extent(renderer) for t in labels]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not _overlap(boxes[i], boxes[j]), (labels[i].get_text(), labels[j].get_text())
    assert min(t.get_fontsize() for t in labels) >= 6
    if check.flagged:
        hatched = [p for p in ax.patches if p.get_hatch()]
        assert len(hatched) >= len(check.flagged)


def _texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts] + [ax.get_title()]


def test_cd_diagram_states_one_cd_when_the_range_collapses():
    import pandas as pd

    from benchverdict.critical_difference import draw_cd_diagram

    pos = pd.Series({"A": 1.2, "B": 2.0, "C": 2.8})
    nd = pd.DataFrame(True, index=pos.index, columns=pos.index)
    nd.loc["A", "C"] = nd.loc["C", "A"] = False
    ax = draw_cd_diagram(pos, nd, lower_is_better=True, critical_difference_range=(1.1, 1.1004))
    cd_texts = [t for t in _texts(ax) if "CD" in t]
    assert cd_texts == ["CD = 1.1 (every pair)"]
    ax = draw_cd_diagram(pos, nd, lower_is_better=True, critical_difference_range=(0.9, 1.3))
    assert not any("every pair" in t for t in _texts(ax))  # a real range is still a range


def test_friedman_cd_title_is_short_lines_not_an_escaped_line():
    from benchverdict import ranks

    result = ranks.friedman(load_example(), n_resamples=0)
    ax = result.plot()
    title = ax.get_title()
    assert "\\n" not in title
    assert all(len(line) <= 90 for line in title.splitlines())
    # the title names the blocks and the budget; the full replication statement is elsewhere
    assert "blocks (unit: benchmark" in title and "seeds averaged" not in title
