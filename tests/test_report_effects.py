"""The report says by how much, which pairs are practically equivalent, and how many runs
would settle the rest (issue 22)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from benchverdict import Results
from benchverdict.report import compare
from benchverdict.report.relations import (
    RELATION_COLUMNS,
    EquivalenceTest,
    Status,
    family_votes,
)
from benchverdict.verdict import Evidence, Scope, Verdict


def _study(seed=0, shift=0.4, n_bench=20, seeds=5, close=0.0):
    """Four algorithms: A best by ``shift``; B, C and D within ``close`` of each other."""
    rng = np.random.default_rng(seed)
    means = {"A": shift, "B": 0.0, "C": close, "D": -close}
    rows = []
    for b in range(n_bench):
        base = 5 + rng.normal(0, 1)
        for alg, mu in means.items():
            cell = base + mu + rng.normal(0, 0.02)
            rows += [(alg, f"t{b:02d}", s, cell + rng.normal(0, 0.1)) for s in range(seeds)]
    return pd.DataFrame(rows, columns=["algorithm", "benchmark", "seed", "score"])


def _results(frame, objective="maximize"):
    return Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark", seed="seed",
                              score="score", objective=objective, kind="runs")


def _across(comp):
    rel = comp.reconciliation.relations
    return rel[rel["scope_type"] == "all benchmarks"].set_index(["a", "b"])


@pytest.fixture(scope="module")
def with_margin():
    return compare(_results(_study()), analyses=["ranks", "lmem"], progress=False,
                   figures=False, sanity_checks=False, margin=0.1)


def test_every_relation_carries_its_effect_and_the_headline_says_by_how_much(with_margin):
    rel = _across(with_margin)
    assert set(RELATION_COLUMNS) <= set(with_margin.reconciliation.relations.columns)
    assert rel[["difference", "difference_lower", "difference_upper"]].notna().all().all()
    assert (rel["difference_unit"] == "score").all() and (rel["confidence"] == 0.95).all()
    a_b = rel.loc[("A", "B")]
    assert a_b["status"] == "settled" and a_b["difference_lower"] > 0.2
    headline = with_margin.reconciliation.headline.message
    assert "A is best" in headline and "by how much" in headline
    assert "A over B +0.3" in headline and "adjusted p = " in headline
    assert "B, C and D are practically equivalent" in headline


def test_margin_gives_equivalent_pairs_named_in_the_headline(with_margin):
    rel = _across(with_margin)
    for pair in [("B", "C"), ("B", "D"), ("C", "D")]:
        assert rel.loc[pair, "status"] == "equivalent"
        assert rel.loc[pair, "p_equivalence_adjusted"] <= 0.05
        assert rel.loc[pair, "margin"] == 0.1
    headline = with_margin.reconciliation.headline.message
    assert "practically equivalent (|difference| < 0.1 score" in headline
    assert "B, C and D" in headline
    summary = with_margin.document().summary
    kinds = {c.kind for row in summary.matrix.cells for c in row if c is not None}
    assert "equivalent" in kinds
    assert any(e.kind == "equivalent" for e in summary.matrix.legend)
    assert "margin of practical equivalence 0.1" in with_margin.document().settings.text


def test_no_margin_says_so_and_declares_nothing_equivalent():
    comp = compare(_results(_study()), analyses=["ranks"], progress=False, figures=False)
    assert "no margin of practical equivalence given" in comp.document().settings.text
    assert not (comp.reconciliation.relations["status"] == "equivalent").any()
    assert comp.reconciliation.relations["p_equivalence"].isna().all()


def test_negating_and_rescaling_keep_statuses_and_effects(with_margin):
    base = _across(with_margin)
    f = _study()
    neg = _across(compare(_results(f.assign(score=-f.score), "minimize"),
                          analyses=["ranks", "lmem"], progress=False, figures=False,
                          sanity_checks=False, margin=0.1))
    scaled = _across(compare(_results(f.assign(score=100 * f.score + 7)),
                             analyses=["ranks", "lmem"], progress=False, figures=False,
                             sanity_checks=False, margin=10.0))
    for other in (neg, scaled):
        assert (other["status"] == base["status"]).all()
        assert np.allclose(other["superiority"], base["superiority"])
    assert np.allclose(-neg["difference"], base["difference"])
    assert np.allclose(scaled["difference"], 100 * base["difference"])


def test_equivalence_tests_share_the_votes_holm_family():
    """Three votes and two TOST p-values of one scope type: Holm over all five."""
    def vote(a, b, p):
        return Verdict(a, b, "a", "lmem.tukey", Scope(), Evidence("p_value", p, 0.05),
                       "maximize", "", estimand="benchmarks", p_value=p)
    votes = [vote("A", "B", 0.001), vote("A", "C", 0.011), vote("B", "C", 0.3)]
    tests = [EquivalenceTest((None, ()), "B", "C", 0.012),
             EquivalenceTest((None, ()), "A", "C", 0.6)]
    out = family_votes(votes, alpha=0.05, covers=lambda v: True,
                       representative=lambda vs: vs[0], group_key=lambda v: (None, ()),
                       estimand="benchmarks", equivalence=tests)
    adjusted = sorted([v.p_value_adjusted for v in out] + [t.p_value_adjusted for t in tests])
    assert adjusted == pytest.approx([0.005, 0.044, 0.044, 0.6, 0.6])
    assert tests[0].equivalent and not tests[1].equivalent


def test_a_margin_in_score_units_on_mixed_scales_fails_before_any_analysis():
    f = _study()
    f.loc[f.benchmark.isin(["t00", "t01"]), "score"] *= -300
    with pytest.raises(ValueError, match=r"margin='0.2sd'"):
        compare(_results(f), analyses=["ranks"], progress=False, figures=False, margin=0.1)
    comp = compare(_results(f), analyses=["ranks"], progress=False, figures=False,
                   margin="0.5sd")
    rel = _across(comp)
    assert rel["difference_unit"].str.startswith("the pair's run-to-run SD of a benchmark").all()


def test_unsettled_pairs_get_a_plan_for_more_runs():
    f = _study(shift=0.05, n_bench=6, seeds=3)
    comp = compare(_results(f), analyses=["ranks", "lmem"], progress=False, figures=False,
                   sanity_checks=False)
    notes = " ".join(n for r in comp.reconciliation.rankings if r.benchmark is None
                     and not r.metafeature for n in r.guidance)
    assert "What would settle them across benchmarks" in notes and " benchmarks at " in notes


def test_relations_table_has_the_superiority_interval(with_margin):
    table = with_margin.reconciliation.relations
    row = table[(table.a == "A") & (table.b == "B") & table.benchmark.isna()].iloc[0]
    assert math.isfinite(row["superiority"]) and row["superiority"] == 1.0
    assert row["superiority_lower"] < 1.0  # 20 benchmarks cannot make it certain


def test_example_headline_gives_difference_and_interval():
    from benchverdict.examples import load_example

    comp = compare(load_example(), analyses=["lmem", "ranks"], progress=False, figures=False,
                   sanity_checks=False)
    head = comp.reconciliation.headline.message
    # Nothing is settled across benchmarks; the largest differences say by how much.
    assert "largest differences (mean difference" in head
    for pair in ("MLP over LR", "RF over LR", "SVM over LR"):
        assert pair in head
    assert "95% simultaneous intervals over 10 pair(s)" in head


def test_effects_of_draws_without_a_trial_order_are_the_tuning_curves_difference(shared_data):
    # Review: on meanmax (draws without a trial order) the headline said "cannot be
    # separated" (the tuning curves at the final budget) beside "+0.447", a difference of
    # single draws, without saying so: it read as a contradiction. Per benchmark the
    # tuning curves' vote decides, so the effect is now their difference at its k.
    from benchverdict.io.adapters import read_adapter
    from benchverdict.tuning.quantile_test import vote_budget

    draws = read_adapter("meanmax", shared_data / "meanmax" / "hedwig.tsv")
    comp = compare(draws, analyses=["tuning"], progress=False, figures=False)
    k = vote_budget(145, 0.05)
    assert f"(median best-of-{k} difference in f1, positive = better" in (
        comp.reconciliation.headline.message)
    # Draws with a trial order: the effects compare each search's incumbents, no such words.
    rows = [(a, "t", s, k, m + 0.1 * np.sin(k + s)) for a, m in (("X", 0.6), ("Y", 0.5))
            for s in range(6) for k in range(1, 6)]
    searches = Results.from_frame(pd.DataFrame(rows, columns=["a", "b", "s", "k", "y"]),
                                  algorithm="a", benchmark="b", seed="s", budget="k", score="y",
                                  objective="maximize", kind="trials")
    comp = compare(searches, analyses=["tuning"], progress=False, figures=False)
    assert "single draws, positive" not in comp.reconciliation.headline.message


def test_priorband_headline_gives_difference_and_interval(shared_data):
    from benchverdict.io.adapters import read_priorband

    path = shared_data / "priorband" / "priorband_data.parquet"
    if not path.exists():
        pytest.skip(f"{path} not found")
    comp = compare(read_priorband(path), analyses=["lmem", "ranks"], progress=False,
                   figures=False, sanity_checks=False, margin="0.05sd")
    head = comp.reconciliation.headline.message
    assert "PB > HB > RS" in head
    assert "PB over HB +" in head and "SD of a benchmark" in head
    rel = _across(comp)
    assert rel.loc[("HB", "PB")]["status"] == Status.SETTLED.value


def test_leaderboard_takes_a_margin_and_keeps_it_for_updates(tmp_path):
    from benchverdict.leaderboard import create_leaderboard, update_leaderboard

    f = _study()
    first = f[f.algorithm != "D"]
    board = create_leaderboard(tmp_path / "board", _results(first), analyses=["ranks", "lmem"],
                               margin=0.1)
    assert (board.relations["status"] == "equivalent").any()
    assert "practically equivalent" in board.headline
    # A submission needs two algorithms to be a table: D and E, a copy of D with noise.
    d = f[f.algorithm == "D"]
    e = d.assign(algorithm="E", score=d.score + np.random.default_rng(1).normal(0, 0.01, len(d)))
    board2, _ = update_leaderboard(tmp_path / "board",
                                   _results(pd.concat([d, e], ignore_index=True)))
    same = board2.relations[board2.relations["status"] == "equivalent"]
    assert "D" in set(same["a"]) | set(same["b"])
    assert "B, C, D and E" in board2.headline


@pytest.mark.parametrize("command", ["report", "leaderboard"])
def test_a_bad_margin_is_a_usage_error_naming_the_option(command, capsys, tmp_path):
    from benchverdict.cli import main

    with pytest.raises(SystemExit) as done:
        main([command, "--example", "--margin", "0.2 points", "-o", str(tmp_path / "x")])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "--margin" in err and "0.2sd" in err


def test_round_off_widths_do_not_set_the_digits():
    # HPO-B: runs with identical scores gave intervals 5e-16 wide, and every difference of
    # the scope was printed with 8 decimals ("+0.01019833 [+0.01019833, +0.01019833]").
    from benchverdict.effects.pairwise import PairEffect
    from benchverdict.report.relations import effect_decimals, effect_text

    flat = PairEffect("A", "B", 0.0101983, 0.0101983 - 5.4e-16, 0.0101983 + 5.4e-16, 0.0,
                      9, 1e-20, 1.0, 1.0, 1.0, 10)
    assert effect_text(flat, "A") == "+0.0102 [+0.0102, +0.0102]"
    assert effect_decimals(5.4e-16, 0.00024, values=[0.0102, 0.0101]) == 5
    assert effect_decimals(5.4e-16) == 8  # no values to judge by: a width as before


def test_per_benchmark_equivalence_uses_the_pairs_run_sd_not_a_noisier_thirds():
    """On one benchmark, A and B 2 run SDs apart and C with run SD 10 (margin 0.5sd): the
    benchmark's run SD pooled over all three made the margin 2.9 and the report called A and B
    practically equivalent there. In the pair's own run SD they are 4 margins apart."""
    rng = np.random.default_rng(3)
    rows = []
    for b in range(4):
        shift = rng.normal(0, 3)
        for alg, mu, sd in (("A", 0.0, 1.0), ("B", 2.0, 1.0), ("C", 0.0, 10.0)):
            rows += [(alg, f"t{b}", s, shift + mu + sd * rng.normal()) for s in range(30)]
    frame = pd.DataFrame(rows, columns=["algorithm", "benchmark", "seed", "score"])
    # The LMEM speaks per benchmark (each benchmark's runs); the rank tests across them.
    comp = compare(_results(frame), analyses=["ranks", "lmem"], progress=False,
                   figures=False, sanity_checks=False, margin="0.5sd")
    rel = comp.reconciliation.relations
    per = rel[(rel["scope_type"] == "per benchmark") & (rel["a"].isin(["A", "B"]))
              & (rel["b"].isin(["A", "B"]))]
    assert len(per) == 4
    assert not (per["status"] == "equivalent").any()
    cells = frame.groupby(["benchmark", "algorithm"])["score"].var().unstack()
    want = 0.5 * np.sqrt((cells["A"] + cells["B"]) / 2)
    got = per.set_index("benchmark")["margin"]
    assert got.index.tolist() == ["t0", "t1", "t2", "t3"]
    assert got.to_numpy() == pytest.approx(want[got.index].to_numpy(), rel=1e-9)


def test_single_draws_on_one_benchmark_use_each_pairs_own_margin():
    """Draws without a trial order: per benchmark the tuning curves' difference is the
    effect and its equivalence is tested at the margin (curve_equivalence_p); a margin in
    SDs is the pair's own SD there too (A and B with SD 1: 0.5; was 3.6 beside C's 10)."""
    rng = np.random.default_rng(0)
    rows = [(alg, "b0", i, mu + sd * rng.normal())
            for alg, mu, sd in (("A", 0.0, 1.0), ("B", 0.3, 1.0), ("C", 0.0, 10.0))
            for i in range(200)]
    frame = pd.DataFrame(rows, columns=["algorithm", "benchmark", "seed", "score"])
    res = Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
                             seed="seed", score="score", objective="maximize", kind="trials")
    comp = compare(res, analyses=["tuning"], progress=False, figures=False,
                   sanity_checks=False, margin="0.5sd")
    rel = comp.reconciliation.relations.set_index(["a", "b"])
    var = frame.groupby("algorithm")["score"].var()
    for a, b in [("A", "B"), ("A", "C"), ("B", "C")]:
        assert rel.loc[(a, b), "margin"] == pytest.approx(
            0.5 * np.sqrt((var[a] + var[b]) / 2), rel=1e-9)
