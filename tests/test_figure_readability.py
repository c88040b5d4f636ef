"""Every figure the report draws reads at 9 pt or more on the HTML page, and no two texts
overlap: on the built-in example and on a 30-algorithm x 100-benchmark synthetic design.

Text size on the page: a figure W inches wide is shown at P = clip(110 W, 700, 1100) px
(report/html.py), so s-point text reads as s P / (96 W) points (:func:`drawn_texts`).
"""

from __future__ import annotations

import functools
import os

import numpy as np
import pandas as pd
import pytest

from benchverdict import Results
from benchverdict.plotting import drawn_texts, overlapping_texts
from benchverdict.report import compare
from benchverdict.report import html as report_html

MIN_PAGE_POINTS = 9.0
#: ``nox -s simulations`` sets BENCHVERDICT_SIM_SCALE; the heaviest figure check runs there.
SCALE = float(os.environ.get("BENCHVERDICT_SIM_SCALE", "1"))


def _check(figures) -> dict[str, list[str]]:
    problems: dict[str, list[str]] = {}
    for f in figures:
        boxes = drawn_texts(f.figure, px_per_inch=report_html.FIGURE_PX_PER_INCH,
                            min_px=report_html.MIN_FIGURE_PX, max_px=report_html.MAX_FIGURE_PX)
        small = sorted({(round(b.page_points, 1), b.text[:30]) for b in boxes
                        if b.page_points < MIN_PAGE_POINTS})
        found = [f"text {t!r} reads at {p} pt" for p, t in small[:5]]
        found += [f"{a[:30]!r} overlaps {b[:30]!r}" for a, b in overlapping_texts(boxes)[:5]]
        if found:
            problems[f.name] = found
    return problems


@functools.cache
def _synthetic() -> Results:
    """30 algorithms x 100 benchmarks x 2 seeds with a budget: clear and tied differences."""
    rng = np.random.default_rng(23)
    algs = [f"algorithm_{i:02d}" for i in range(30)]
    skill = np.repeat(np.linspace(0, 1.5, 10), 3)  # groups of three alike
    rows = []
    for b in range(100):
        level = rng.normal(0, 2)
        for i, alg in enumerate(algs):
            for seed in range(2):
                for budget in (10, 100):
                    rows.append((alg, f"benchmark_{b:03d}", seed, budget,
                                 level + skill[i] * budget / 100 + rng.normal(0, 0.5)))
    frame = pd.DataFrame(rows, columns=["alg", "task", "seed", "budget", "acc"])
    return Results.from_frame(frame, algorithm="alg", benchmark="task", seed="seed",
                              budget="budget", score="acc", objective="maximize")


def test_the_page_rule_is_the_html_reports():
    assert (report_html.FIGURE_PX_PER_INCH, report_html.MIN_FIGURE_PX,
            report_html.MAX_FIGURE_PX) == (110, 700, 1100)


def test_example_report_figures_read_at_9pt_without_overlaps(example_comparison):
    # Every analysis of the example (the report shared with the presentation tests).
    names = [f.name for f in example_comparison.figures]
    assert {"report-ranking", "ranks-cd-nemenyi", "ranks-win-tie-loss", "lmem-cd"} <= set(names)
    assert _check(example_comparison.figures) == {}


def test_thirty_algorithms_on_a_hundred_benchmarks_read_at_9pt_without_overlaps():
    comp = compare(_synthetic(), analyses=["ranks"], progress=False)
    assert "ranks-cd-nemenyi" in [f.name for f in comp.figures]
    assert _check(comp.figures) == {}


@pytest.mark.slow
@pytest.mark.skipif(SCALE < 2, reason="fits the LMEM on 30 x 100 cells (minutes); runs in "
                                     "nox -s simulations (BENCHVERDICT_SIM_SCALE >= 2)")
def test_every_analysis_of_the_synthetic_design_reads_at_9pt_without_overlaps():
    comp = compare(_synthetic(), analyses=["ranks", "lmem"], progress=False)
    assert _check(comp.figures) == {}
