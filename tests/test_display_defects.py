"""The plotting and display defects of issue 23 (item 5), each checked on what is drawn.

- Autorank's note reaches the document as separate items (no ``\\x0a``, no run-on bullet);
- integer budgets get integer ticks (anytime ranks, tuning curves; linear and log axes);
- no two texts of a tuning figure overlap (off-scale values live in the legend);
- ``TuningCurves.plot()`` draws every benchmark (or says which it cannot);
- ``Comparison.plot()`` draws the answer: the pairwise relation matrix.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.text import Text

from benchverdict.examples import load_example
from benchverdict.plotting import integer_budget_axis
from benchverdict.ranks._examples import small_runs
from benchverdict.ranks.anytime import anytime_ranks
from benchverdict.report.runner import RELATION_COLOURS, compare
from benchverdict.results import Results
from benchverdict.tuning.collection import MAX_PANELS, from_results
from benchverdict.tuning.curves import draw_tuning_curves, tuning_curve


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _drawn_texts(fig) -> list[Text]:
    """Every text the figure shows (tick labels only where their tick is in view)."""
    fig.canvas.draw()
    hidden = set()
    for ax in fig.axes:
        for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            lo, hi = min(lo, hi), max(lo, hi)
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - 1e-9 * abs(hi - lo) <= tick.get_loc() <= hi + 1e-9 * abs(hi - lo):
                    hidden.update({id(tick.label1), id(tick.label2)})
    return [t for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip() and id(t) not in hidden]


def _overlaps(fig) -> list[tuple[str, str]]:
    renderer = fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in _drawn_texts(fig)]
    out = []
    for (ta, a), (tb, b) in itertools.combinations(boxes, 2):
        width = min(a.x1, b.x1) - max(a.x0, b.x0)
        height = min(a.y1, b.y1) - max(a.y0, b.y0)
        if width > 0.5 and height > 0.5:  # more than half a pixel both ways
            out.append((ta, tb))
    return out


def _tick_values(labels) -> list[float]:
    return [float(t.get_text().replace("\u2212", "-")) for t in labels if t.get_text()]


# ------------------------------------------------------------------ (a) the Autorank note
@pytest.fixture(scope="module")
def ranks_report():
    return compare(small_runs(), analyses=["ranks"], progress=False, figures=False)


def test_the_autorank_note_reaches_every_format_as_separate_lines(ranks_report):
    notes = next(a.notes for a in ranks_report.document().analyses if a.name == "ranks")
    assert not any("\n" in n for n in notes)
    heading = next(i for i, n in enumerate(notes) if n.startswith("Autorank on "))
    assert notes[heading + 1:heading + 3] and all(
        not n.startswith("Autorank on ") for n in notes[heading + 1:heading + 3])
    assert any(n.startswith("result: ") for n in notes)
    html = ranks_report.to_html()
    lists = re.findall(r'<ul class="notes">(.*?)</ul>', html, flags=re.S)
    assert lists and not any("\\x0a" in block for block in lists)
    assert any("<li>Autorank on " in block for block in lists)
    markdown = ranks_report.to_markdown()
    bullet = next(line for line in markdown.splitlines() if line.startswith("- Autorank on "))
    assert "result:" not in bullet and "ranking (1 = best)" not in bullet


# ------------------------------------------------------------------ (b) integer budgets
def test_anytime_ranks_label_integer_budgets_with_integers_on_linear_and_log_axes():
    ar = anytime_ranks(small_runs(), n_resamples=50)  # budgets 1, 2, 3
    for log in (False, True):
        ax = ar.plot(log_budget=log)
        ax.figure.canvas.draw()
        values = [v for t, v in zip(ax.get_xticklabels(), _tick_values(ax.get_xticklabels()))
                  if ax.get_xlim()[0] <= v <= ax.get_xlim()[1]]
        assert len(values) >= 2 and all(v == int(v) for v in values), (log, values)
        assert all("." not in t.get_text() for t in ax.get_xticklabels())


def test_integer_axes_fail_without_the_fix_and_leave_fractional_budgets_alone():
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [0, 1, 2])
    fig.canvas.draw()
    assert any(v != int(v) for v in _tick_values(ax.get_xticklabels()))  # 1.25, 1.5, ...
    assert integer_budget_axis(ax, [1, 2, 3])
    fig.canvas.draw()
    assert all(v == int(v) for v in _tick_values(ax.get_xticklabels()))
    assert not integer_budget_axis(ax, [0.5, 1.0])


def test_tuning_curves_on_few_budgets_have_integer_ticks():
    rng = np.random.default_rng(0)
    curves = {n: tuning_curve(rng.normal(m, size=6), band="ld_highest_density")
              for n, m in (("A", 0.0), ("B", 0.5))}
    ax = draw_tuning_curves(curves)
    ax.figure.canvas.draw()
    values = _tick_values(ax.get_xticklabels())
    assert values and all(v == int(v) for v in values)


# ------------------------------------------------------------------ (c) labels never collide
@pytest.fixture(scope="module")
def example_curves():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # ties (tested in test_caveats_once)
        return from_results(load_example())


def test_no_two_texts_of_a_tuning_figure_overlap(example_curves):
    # digits and iris have curves below the y-limits at k = 1 (values marked off scale)
    for bench in ("digits", "iris", "circles"):
        ax = example_curves.plot(benchmark=bench)
        assert _overlaps(ax.figure) == [], bench
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        if bench == "digits":
            assert any("at k = 1, below" in t for t in legend), legend


def test_many_curves_off_scale_at_k_1_never_collide():
    rng = np.random.default_rng(4)
    curves = {}
    for i in range(8):
        # 60% awful draws: the median single draw is awful, the best of two is not
        scores = np.r_[rng.normal(0.9, 0.01, size=40), rng.normal(0.1 + 0.05 * i, 0.01, 60)]
        curves[f"algorithm {i}"] = tuning_curve(scores, band="ld_highest_density",
                                                low=0.0, high=1.0)
    ax = draw_tuning_curves(curves)
    assert _overlaps(ax.figure) == []
    inside = ax.get_window_extent()
    renderer = ax.figure.canvas.get_renderer()
    in_data = [t.get_text() for t in ax.texts
               if t.get_window_extent(renderer).overlaps(inside)]
    assert in_data == []  # the values are in the legend, not on the data or the x-axis
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sum("below" in t for t in legend) >= 4


# ------------------------------------------------------------------ (d) every benchmark drawn
def test_tuning_curves_plot_draws_every_benchmark(example_curves):
    six = example_curves.benchmarks[:6]  # as in the issue: 6 benchmarks, 1 was drawn
    curves = dataclasses.replace(example_curves, curves={
        key: c for key, c in example_curves.curves.items() if key[1] in six})
    fig = curves.plot().figure
    axes = [a for a in fig.axes if a.get_visible()]
    assert [a.get_title() for a in axes] == curves.benchmarks == six
    assert all(len(a.lines) >= len(load_example().algorithms) for a in axes)
    assert fig.legends and [t.get_text() for t in fig.legends[0].get_texts()] == \
        ["LR", "MLP", "RF", "SVM", "kNN"]
    plt.close(fig)
    two = example_curves.plot(benchmark=["iris", "wine"]).figure
    assert [a.get_title() for a in two.axes if a.get_visible()] == ["iris", "wine"]
    assert _overlaps(two) == []
    assert example_curves.plot(benchmark="iris").get_title() == "iris"
    _, given = plt.subplots()  # one Axes given: the first benchmark, and the title says so
    assert example_curves.plot(ax=given) is given
    assert given.get_title() == "blobs_10d_6c (1 of 20 benchmarks; benchmark= picks)"


def test_too_many_benchmarks_or_an_unknown_one_is_said_not_dropped():
    rng = np.random.default_rng(2)
    n_bench = MAX_PANELS + 1
    df = pd.DataFrame([(a, f"b{b:02d}", s, rng.normal()) for a in ("A", "B")
                       for b in range(n_bench) for s in range(3)],
                      columns=["alg", "bench", "seed", "y"])
    res = Results.from_frame(df, algorithm="alg", benchmark="bench", seed="seed", score="y",
                             objective="maximize", kind="trials")
    curves = from_results(res, band=None)
    with pytest.raises(ValueError, match=f"{n_bench} benchmarks are too many"):
        curves.plot()
    with pytest.raises(ValueError, match="has no tuning curves"):
        curves.plot(benchmark="nope")
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match="ax= draws one benchmark"):
        curves.plot(ax=ax, benchmark=["b00", "b01"])
    fig = curves.plot(benchmark=["b00", "b01", "b02"]).figure
    assert [a.get_title() for a in fig.axes if a.get_visible()] == ["b00", "b01", "b02"]


# ------------------------------------------------------------------ (e) the answer
def _ordered_results() -> Results:
    """A > B > C on every benchmark by a wide margin: every relation is settled."""
    rng = np.random.default_rng(5)
    rows = [(alg, f"b{b}", s, mean + rng.normal(0, 0.05))
            for alg, mean in (("A", 2.0), ("B", 1.0), ("C", 0.0)) for b in range(8)
            for s in range(4)]
    df = pd.DataFrame(rows, columns=["alg", "bench", "seed", "y"])
    return Results.from_frame(df, algorithm="alg", benchmark="bench", seed="seed", score="y",
                              objective="maximize", kind="runs")


def test_the_default_comparison_plot_is_the_relation_matrix():
    comp = compare(_ordered_results(), analyses=["lmem"], progress=False, figures=False,
                   sanity_checks=False)
    ax = comp.plot()
    assert ax.get_title().startswith("Who beats whom: all benchmarks")
    image = ax.images[0].get_array()
    assert image.shape == (3, 3)
    rows = [t.get_text() for t in ax.get_yticklabels()]
    assert rows == ["A", "B", "C"]  # best first
    head = comp.relations[comp.relations["scope"] == "all benchmarks"]
    settled = head[head["status"].isin(["settled", "implied"])]
    assert len(settled) == 3
    colours = list(RELATION_COLOURS)
    cmap = ax.images[0].get_cmap()
    for r in settled.itertuples():
        i, j = rows.index(r.winner), rows.index(r.loser)
        assert colours[int(image[i, j])] == "better" and colours[int(image[j, i])] == "worse"
        assert to_hex(cmap(ax.images[0].norm(image[i, j]))) == \
            RELATION_COLOURS["better"].lower()
        label = next(t.get_text() for t in ax.texts
                     if np.allclose(t.get_position(), (j, i)))
        effect = float(label.split("\n")[0])
        assert effect > 0 and label.split("\n")[1] == r.status
    assert comp.plot(kind="agreement").get_title() != ax.get_title()
    with pytest.raises(ValueError, match="scope"):
        comp.plot(scope="benchmark nope")
