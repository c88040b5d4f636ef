"""The multi-comparison matrix figure: cells are the report's effects, colours its relations."""

from __future__ import annotations

import math

import matplotlib.colors as mcolors
import pandas as pd
import pytest

from benchverdict.effects.matrix_figure import (
    MATRIX_COLOURS,
    pairwise_matrix,
)
from benchverdict.effects.pairwise import PairEffect, PairwiseEffects, pairwise_effects
from benchverdict.report.figures import comparison_matrix
from benchverdict.results import _example_small


def _effects(margin: float = math.nan) -> PairwiseEffects:
    """Three algorithms to maximise: A beats C clearly, A ~ B within the margin, B vs C open."""
    e = [PairEffect("A", "B", 0.01, -0.02, 0.04, 0.01, 9, 0.4, 0.55, 0.4, 0.7, 10),
         PairEffect("A", "C", 0.30, 0.10, 0.50, 0.08, 9, 0.001, 0.9, 0.7, 0.97, 10),
         PairEffect("B", "C", 0.20, -0.05, 0.45, 0.1, 9, 0.06, 0.8, 0.5, 0.9, 10)]
    return PairwiseEffects(tuple(e), "benchmarks", 0.95, "accuracy", False, "maximize",
                           margin_value=margin)


def test_cells_are_the_rows_advantage_and_relations_are_read_off_the_intervals():
    m = pairwise_matrix(_effects(margin=0.05))
    t = m.table.set_index(["row", "column"])
    assert t.loc[("A", "C"), ["advantage", "lower", "upper"]].tolist() == [0.30, 0.10, 0.50]
    assert t.loc[("C", "A"), ["advantage", "lower", "upper"]].tolist() == [-0.30, -0.50, -0.10]
    assert t.loc[("C", "A"), "superiority"] == pytest.approx(0.1)
    assert t["relation"].to_dict() == {
        ("A", "B"): "equivalent", ("A", "C"): "better", ("B", "A"): "equivalent",
        ("B", "C"): "unsettled", ("C", "A"): "worse", ("C", "B"): "unsettled"}
    assert m.order == ["A", "B", "C"]
    # without a margin, A ~ B is merely unsettled
    assert pairwise_matrix(_effects()).table.set_index(["row", "column"]).loc[
        ("A", "B"), "relation"] == "unsettled"


def test_minimised_scores_favour_the_lower_mean():
    e = PairEffect("A", "B", -0.2, -0.3, -0.1, 0.04, 9, 0.001, 0.9, 0.7, 0.97, 10, sign=-1.0)
    m = pairwise_matrix(PairwiseEffects((e,), "benchmarks", 0.95, "loss", False, "minimize"))
    t = m.table.set_index(["row", "column"])
    assert t.loc[("A", "B"), ["advantage", "lower", "upper", "relation"]].tolist() == [
        0.2, 0.1, 0.3, "better"]


def test_given_relations_win_and_are_mirrored_and_checked():
    m = pairwise_matrix(_effects(), {("C", "B"): "implied worse", ("A", "B"): "power gap"},
                        order=["C", "B", "A"])
    t = m.table.set_index(["row", "column"])["relation"]
    assert (t[("B", "C")], t[("C", "B")], t[("B", "A")]) == ("implied better", "implied worse",
                                                              "power gap")
    assert list(m.table["row"].drop_duplicates()) == ["C", "B", "A"]
    with pytest.raises(ValueError, match="'won'"):
        pairwise_matrix(_effects(), {("A", "B"): "won"})
    with pytest.raises(ValueError, match=r"\['D'\]"):
        pairwise_matrix(_effects(), {("A", "D"): "better"})
    with pytest.raises(ValueError, match="order must name"):
        pairwise_matrix(_effects(), order=["A", "B"])


def test_plot_colours_each_cell_by_its_relation_and_prints_the_interval():
    m = pairwise_matrix(_effects(margin=0.05))
    ax = m.plot()
    texts = {t.get_text() for t in ax.texts}
    assert "+0.30\n[+0.10, +0.50]" in texts and "-0.30\n[-0.50, -0.10]" in texts
    faces = {mcolors.to_hex(p.get_facecolor()) for p in ax.patches}
    assert {MATRIX_COLOURS[k][0].lower() for k in ("better", "worse", "equivalent",
                                                  "unsettled")} <= faces
    legend = [t.get_text() for t in ax.figure.legends[0].get_texts()]
    assert legend == ["better", "worse", "equivalent", "unsettled"]
    sup = m.plot(cell="superiority")
    assert "0.90" in {t.get_text() for t in sup.texts}
    with pytest.raises(ValueError, match="cell"):
        m.plot(cell="p")


def test_matrix_of_many_algorithms_stays_within_the_report_width_and_drops_cell_text():
    rows = [{"alg": f"alg{i:02d}", "task": f"t{t}", "seed": s, "acc": i * 0.01 + t + 0.1 * s}
            for i in range(20) for t in range(5) for s in range(3)]
    from benchverdict import Results

    res = Results.from_frame(pd.DataFrame(rows), algorithm="alg", benchmark="task", seed="seed",
                             score="acc", objective="maximize", kind="trials")
    ax = pairwise_matrix(pairwise_effects(res)).plot()
    assert ax.figure.get_figwidth() <= 10.0 and not ax.texts


def test_comparison_matrix_uses_the_reports_relations_and_effects():
    from benchverdict.report import compare

    comp = compare(_example_small(), analyses=["ranks", "lmem"], progress=False, figures=False)
    m = comparison_matrix(comp)
    rel = comp.reconciliation.scopes["all benchmarks"]
    assert m.source.startswith("settled by the report")
    eff = rel.effects.effect("a", "b")
    row = m.table.set_index(["row", "column"]).loc[("a", "b")]
    assert (row["advantage"], row["lower"], row["upper"]) == pytest.approx(eff.advantage("a"))
    with pytest.raises(ValueError, match="no scope 'moons'"):
        comparison_matrix(comp, scope="moons")


def test_each_pair_is_judged_by_its_own_margin_and_the_forest_plot_draws_each():
    """On one benchmark a margin in SDs is each pair's own (PairEffect.margin_value): A ~ B
    within its margin 0.05, B vs C's difference 0.2 [-0.05, 0.45] not within its 0.3. With
    the scope's one margin (0.5, the benchmark's over every algorithm) B ~ C read as
    equivalent."""
    from dataclasses import replace

    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    own = {("A", "B"): 0.05, ("A", "C"): 0.3, ("B", "C"): 0.3}
    base = _effects(margin=0.5)
    eff = replace(base, effects=tuple(replace(e, margin_value=own[(e.a, e.b)])
                                      for e in base.effects))
    t = pairwise_matrix(eff).table.set_index(["row", "column"])
    assert t.loc[("A", "B"), "relation"] == "equivalent"
    assert t.loc[("B", "C"), "relation"] == "unsettled"
    assert pairwise_matrix(base).table.set_index(["row", "column"]).loc[
        ("B", "C"), "relation"] == "equivalent"
    ax = eff.plot()
    bands = [c for c in ax.collections if isinstance(c, PolyCollection) and c.get_paths()
             and len(c.get_paths()[0].vertices)]  # not the legend's empty proxy
    widths = sorted(round(float(b.get_paths()[0].vertices[:, 0].max()), 6) for b in bands)
    assert widths == [0.05, 0.3, 0.3]
    plt.close(ax.figure)
