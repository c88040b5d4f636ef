"""The report's estimand: claims across benchmarks generalise, counted on the right unit.

Issue 20 measured that the report's old LMEM vote (``score ~ algorithm +
(1|benchmark)``, seeds as replicates of the algorithm effect) settled a false
relation across benchmarks in 65 of 100 data sets when algorithms differ per
benchmark but not on average. These tests check, by seeded simulation with
binomial tolerances, that the default ("benchmarks like these") keeps the
family-wise error per scope type at ``alpha`` under nulls that can produce
that failure: an algorithm x benchmark interaction, heavy tails, unbalanced
cells, scores on scales that differ by orders of magnitude and random-search
draws that share a run; that the simulations can detect the failure (the
"these benchmarks" estimand, which is about the observed benchmarks only,
settles the same data often); that a planted effect is found about as often
as by the best single method; and the pieces behind it (which votes count
under which estimand, transitivity within one family, the single-draw line
and the notes on what a scope type can settle).
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict import lmem
from benchverdict.analysis import Options, draws_reading
from benchverdict.lmem.estimand import FIXED_BENCHMARKS_FORMULA, GENERALISING_FORMULA
from benchverdict.lmem.per_benchmark import per_benchmark_contrasts
from benchverdict.lmem.runner import formula_estimand
from benchverdict.report.reconcile import reconcile, scope_sentence_label
from benchverdict.report.relations import vote_estimand
from benchverdict.report.runner import compare
from benchverdict.results import Results
from benchverdict.stats.multiple_testing import holm
from benchverdict.verdict import Evidence, Scope, Verdict

ALPHA = 0.05
ALGORITHMS = ["A", "B", "C", "D"]


def study(seed: int, scenario: str = "interaction", *, n_benchmarks: int = 8,
          n_seeds: int = 6, effect: float = 0.0, interaction_sd: float = 0.5) -> Results:
    """Final scores of runs: benchmark offset + algorithm x benchmark shift + run noise.

    The algorithm x benchmark shifts are independent N(0, interaction_sd^2) and not
    centred over the drawn benchmarks, so the algorithms differ on each benchmark but
    not on average over the population of benchmarks (unless ``effect`` moves A).
    Scenarios: ``interaction`` (normal noise), ``heavy`` (t with 2 df), ``unbalanced``
    (2-11 seeds per cell, one cell missing), ``scales`` (each benchmark's scores
    multiplied by 10^U(-2, 2)).
    """
    rng = np.random.default_rng([20, seed, len(scenario)])
    rows = []
    for b in range(n_benchmarks):
        base = rng.normal(0.0, 2.0)
        scale = 10 ** rng.uniform(-2, 2) if scenario == "scales" else 1.0
        for a in ALGORITHMS:
            shift = rng.normal(0.0, interaction_sd)
            n = int(rng.integers(2, 2 * n_seeds)) if scenario == "unbalanced" else n_seeds
            if scenario == "unbalanced" and b == 0 and a == "D":
                continue
            noise = rng.standard_t(2, n) if scenario == "heavy" else rng.normal(0.0, 1.0, n)
            mu = base + shift + (effect if a == "A" else 0.0)
            rows += [(a, f"b{b}", s, scale * (mu + e)) for s, e in enumerate(noise)]
    frame = pd.DataFrame(rows, columns=["alg", "bench", "seed", "score"])
    return Results.from_frame(frame, algorithm="alg", benchmark="bench", seed="seed",
                              score="score", objective="maximize", kind="runs")


def clustered_trials(seed: int, *, n_benchmarks: int = 6, n_seeds: int = 6,
                     n_trials: int = 8) -> Results:
    """Random-search trials whose draws share a run offset N(0, 1); identical algorithms."""
    rng = np.random.default_rng([21, seed])
    rows = []
    for b in range(n_benchmarks):
        for a in ALGORITHMS:
            for s in range(n_seeds):
                offset = rng.normal()
                rows += [(a, f"b{b}", s, t + 1, offset + rng.normal())
                         for t in range(n_trials)]
    frame = pd.DataFrame(rows, columns=["alg", "bench", "seed", "trial", "score"])
    return Results.from_frame(frame, algorithm="alg", benchmark="bench", seed="seed",
                              budget="trial", score="score", objective="maximize")


def report(results: Results, analyses=("ranks", "lmem"), **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare(results, analyses=list(analyses), progress=False, figures=False,
                       sanity_checks=False, alpha=ALPHA, **kwargs)


def settled_by_scope_type(comparison) -> dict[str, bool]:
    rel = comparison.reconciliation.relations
    return {st: bool(rel[rel["scope_type"] == st]["status"].isin(["settled", "implied"]).any())
            for st in ("all benchmarks", "per benchmark")}


def at_most_alpha(hits: int, n: int, alpha: float = ALPHA) -> bool:
    """Whether ``hits`` in ``n`` is consistent with a rate <= alpha (one-sided, 0.001)."""
    return stats.binomtest(hits, n, alpha, alternative="greater").pvalue > 0.001


# ------------------------------------------------------------------ error control, simulated
#: ``nox -s simulations`` multiplies the replications (BENCHVERDICT_SIM_SCALE).
SCALE = float(os.environ.get("BENCHVERDICT_SIM_SCALE", "1"))
#: 15 per scenario in CI (at most 4 settling data sets pass the 0.001 check; the old
#: estimand's 65% fails it with probability > 0.99); the simulations session runs 75.
N_NULL = int(15 * SCALE)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["interaction", "heavy", "unbalanced", "scales"])
def test_family_wise_error_across_benchmarks_under_nulls(scenario):
    hits = {"all benchmarks": 0}
    for seed in range(N_NULL):
        got = settled_by_scope_type(report(study(seed, scenario)))
        hits["all benchmarks"] += got["all benchmarks"]
    assert at_most_alpha(hits["all benchmarks"], N_NULL), (scenario, hits, N_NULL)


def test_the_old_estimand_settles_the_interaction_null_often():
    # The same data under estimand="these" (claims about the observed benchmarks only,
    # seeds as replicates): the algorithms do differ on these benchmarks, so settling is
    # right for that estimand -- and shows the simulation produces the failure mode the
    # default guards against.
    # (Interaction sd 1 and 10 seeds: 9 of these 12 data sets settle something.)
    hits = sum(settled_by_scope_type(report(study(seed, n_seeds=10, interaction_sd=1.0),
                                            estimand="these"))["all benchmarks"]
               for seed in range(12))
    assert hits >= 6, hits


@pytest.mark.slow
def test_family_wise_error_with_draws_that_share_a_run():
    # Identical algorithms, random-search draws with a run offset: neither scope type may
    # settle beyond alpha. Tuning curves do not vote on clustered draws; the runs decide.
    hits = {"all benchmarks": 0, "per benchmark": 0}
    n = int(12 * SCALE)
    for seed in range(n):
        comp = report(clustered_trials(seed), analyses=("tuning", "ranks", "lmem"))
        for st, was in settled_by_scope_type(comp).items():
            hits[st] += was
        votes = comp.reconciliation.votes
        assert "tuning" not in set(votes["family"])
    for st, h in hits.items():
        assert at_most_alpha(h, n), (st, h, n)


@pytest.mark.slow
def test_power_against_a_planted_effect_matches_the_best_single_family():
    # A is better by 1.5 on average over benchmarks (interaction sd 0.5, 8 benchmarks, 6
    # seeds). Power = A's three pairs settled in A's favour, per data set. The report
    # adjusts over both families' votes; a family alone would adjust over its own six.
    n = int(12 * SCALE)
    report_found, alone = 0, {"lmem": 0, "ranks": 0}
    for seed in range(n):
        rec = report(study(1000 + seed, effect=1.5)).reconciliation
        rel = rec.relations[rec.relations["scope_type"] == "all benchmarks"]
        with_a = rel[(rel["a"] == "A") | (rel["b"] == "A")]
        report_found += int(((with_a["status"] == "settled")
                             & (with_a["winner"] == "A")).sum())
        votes = rec.votes[rec.votes["scope_type"] == "all benchmarks"]
        for family in alone:
            mine = votes[votes["family"] == family].reset_index(drop=True)
            adjusted = holm(mine["p_value"].to_numpy())
            a_pairs = ((mine["a"] == "A") | (mine["b"] == "A")).to_numpy()
            favours_a = (mine["direction"] == "A").to_numpy()  # the votes name the winner
            alone[family] += int((a_pairs & favours_a & (adjusted <= ALPHA)).sum())
    best = max(alone.values())
    assert report_found >= 0.5 * 3 * n, (report_found, alone)
    # The report adjusts over twice the votes of one family (Holm over 12, not 6). Since an
    # LMEM vote across benchmarks also needs its pair's paired test (lmem.paired), its
    # p-values on 8 benchmarks sit nearer the thresholds, and the doubled family costs more:
    # 20 pairs against the LMEM's 30 alone in this simulation.
    assert report_found >= 0.6 * best, (report_found, alone)


# ------------------------------------------------------------------------- the pieces
def _verdict(a, b, method, p, scope=None, **fields):
    return Verdict(a, b, "a" if p < ALPHA else "inconclusive", method, scope or Scope(),
                   Evidence("p_value", p, ALPHA), "maximize", "", n=6, p_value=p, **fields)


def test_votes_about_these_benchmarks_only_do_not_settle_claims_about_benchmarks_like_them():
    vs = [_verdict("A", "B", "lmem.tukey", 1e-8),  # no stated estimand: fixed benchmarks
          _verdict("A", "B", "ranks.wilcoxon_holm", 0.2)]
    default = reconcile(vs, algorithms=["A", "B"], benchmarks=range(6))
    row = default.relations.iloc[0]
    assert row["status"] == "unsettled", row.to_dict()
    assert default.headlines["sentence"].iloc[0].startswith("Across benchmarks like these 6")
    these = reconcile(vs, algorithms=["A", "B"], benchmarks=range(6), estimand="these")
    assert these.relations.iloc[0]["status"] == "settled"
    assert these.headlines["sentence"].iloc[0].startswith("On these 6 benchmarks")
    # The rank tests ask about benchmarks like these: not a lack of power.
    gap = these.power_gaps.iloc[0]
    assert "different estimand, not a lack of power" in gap["reason"], gap["reason"]
    assert "lack power" not in these.headlines["sentence"].iloc[0]


def test_stated_estimand_and_family_defaults():
    gen = _verdict("A", "B", "lmem.tukey", 0.01, estimand="benchmarks")
    assert vote_estimand(gen, "lmem") == "benchmarks"
    assert vote_estimand(_verdict("A", "B", "lmem.tukey", 0.01), "lmem") == "these"
    assert vote_estimand(_verdict("A", "B", "ranks.nemenyi", 0.01), "ranks") == "benchmarks"
    assert formula_estimand(GENERALISING_FORMULA) == "benchmarks"
    assert formula_estimand(FIXED_BENCHMARKS_FORMULA) == "these"
    assert formula_estimand("score ~ algorithm + (0 + algorithm|benchmark)") == "benchmarks"
    assert scope_sentence_label((None, ()), 3) == "Across benchmarks like these 3"


def test_transitivity_never_chains_two_families():
    # LMEM settles A > B, rank tests settle B > C: A vs C must stay open.
    vs = [_verdict("A", "B", "lmem.tukey", 1e-9, estimand="benchmarks"),
          _verdict("B", "C", "ranks.wilcoxon_holm", 1e-9)]
    rec = reconcile(vs, algorithms=["A", "B", "C"], benchmarks=range(6))
    status = {(r.a, r.b): r.status for r in rec.relations.itertuples()}
    assert status[("A", "B")] == "settled" and status[("B", "C")] == "settled"
    assert status[("A", "C")] != "implied"
    # Within one family, transitivity holds and says which family.
    vs = [_verdict("A", "B", "lmem.tukey", 1e-9, estimand="benchmarks"),
          _verdict("B", "C", "lmem.tukey", 1e-9, estimand="benchmarks")]
    rec = reconcile(vs, algorithms=["A", "B", "C"], benchmarks=range(6))
    row = rec.relations.set_index(["a", "b"]).loc[("A", "C")]
    assert row["status"] == "implied" and "LMEM" in row["reason"]


def test_single_draw_line_names_only_holm_adjusted_winners_on_null_p_values():
    # Uniform p-values for 6 pairs (null): some data set shows a winner at most alpha of
    # the time; before, an unadjusted decision named one in 96 of 100 null reports.
    from benchverdict.report.relations import single_draw_sentence
    from benchverdict.verdict import SingleDraw

    rng = np.random.default_rng(3)
    n, hits = 2000, 0
    pairs = [(a, b) for i, a in enumerate(ALGORITHMS) for b in ALGORITHMS[i + 1:]]
    for _ in range(n):
        vs = [Verdict(a, b, "inconclusive", "dse.dominance", Scope(),
                      Evidence("p_value", 1.0, ALPHA), "maximize", "",
                      single_draw=SingleDraw(0.5 + rng.uniform(-0.1, 0.1),
                                             p_value=rng.uniform()))
              for a, b in pairs]
        hits += "a single draw of" in single_draw_sentence(vs, ALPHA)
    assert at_most_alpha(hits, n), hits / n
    assert hits > 0  # Holm is not vacuous: with uniform p-values it errs sometimes


def test_note_says_when_a_scope_type_cannot_settle_anything():
    vs = [_verdict(a, b, "lmem.holm", 0.004, Scope(benchmark=f"b{k}"), estimand="benchmark")
          for k in range(5) for i, a in enumerate(ALGORITHMS) for b in ALGORITHMS[i + 1:]]
    rec = reconcile(vs, algorithms=ALGORITHMS, benchmarks=[f"b{k}" for k in range(5)])
    assert len(rec.notes) == 1
    note = rec.notes[0]
    assert note.startswith("Per benchmark, no relation can be settled with these data")
    assert "0.004" in note and f"{ALPHA / 30:.2g}" in note
    # Nothing significant even alone: the data, not the adjustment, so no such note.
    weak = [_verdict(a, b, "lmem.holm", 0.3, Scope(benchmark="b0"), estimand="benchmark")
            for i, a in enumerate(ALGORITHMS) for b in ALGORITHMS[i + 1:]]
    assert reconcile(weak, algorithms=ALGORITHMS).notes == []
    # One vote strong enough: no such note.
    vs[0] = _verdict("A", "B", "lmem.holm", 1e-6, Scope(benchmark="b0"), estimand="benchmark")
    assert reconcile(vs, algorithms=ALGORITHMS).notes == []
    assert "more runs per cell (or fewer" in note


def test_note_across_benchmarks_like_these_asks_for_benchmarks_not_runs():
    """Across benchmarks like these the benchmark is the replicate: the note asked for more
    runs per cell, and the sample-size advice beside it said more seeds cannot do it."""
    across = [_verdict(a, b, "lmem.tukey", 0.02, estimand="benchmarks")
              for i, a in enumerate(ALGORITHMS) for b in ALGORITHMS[i + 1:]]
    note = reconcile(across, algorithms=ALGORITHMS).notes[0]
    assert note.startswith("All benchmarks, no relation can be settled")
    assert "more benchmarks (across benchmarks the benchmark is the replicate" in note
    assert "more runs per cell (or" not in note
    these = [_verdict(a, b, "lmem.tukey", 0.02, estimand="these")
             for i, a in enumerate(ALGORITHMS) for b in ALGORITHMS[i + 1:]]
    assert "more runs per cell (or" in reconcile(these, algorithms=ALGORITHMS,
                                                  estimand="these").notes[0]


def test_per_benchmark_contrasts_equal_one_linear_model_per_benchmark():
    res = study(5, "unbalanced")
    final = res.table
    got = per_benchmark_contrasts(final).set_index(["benchmark", "a", "b"])
    for bench in ("b0", "b3"):
        part = final[final["benchmark"] == bench]
        model = lmem.fit(part.assign(benchmark=part["benchmark"].astype(str)),
                         "score ~ algorithm")
        ref = model.pairwise(adjust="none")
        for r in ref.itertuples():
            mine = got.loc[(bench, str(r.a), str(r.b))]
            assert mine["estimate"] == pytest.approx(r.estimate, rel=1e-10, abs=1e-12)
            assert mine["se"] == pytest.approx(r.se, rel=1e-8)
            assert mine["df"] == pytest.approx(r.df)
            assert mine["p_value"] == pytest.approx(r.p_value, rel=1e-8, abs=1e-300)


def test_draws_are_read_from_the_data_structure_or_the_users_statement():
    trials = clustered_trials(0, n_benchmarks=2, n_seeds=3, n_trials=4)
    assert draws_reading(trials, Options())[0] == "clustered"
    assert draws_reading(trials, Options(draws="iid"))[0] == "iid"
    single = Results.from_frame(
        trials.table[trials.table["budget"] == 1].drop(columns="budget"),
        algorithm="algorithm", benchmark="benchmark", seed="seed", score="score",
        objective="maximize", kind="trials")
    assert draws_reading(single, Options())[0] == "iid"
    comp = report(trials, analyses=("tuning",))
    assert all(v.no_vote for v in comp.reconciliation.verdicts)
    assert "clustered by run" in comp.runs[0].reason
    comp = report(trials, analyses=("tuning",), draws="iid")
    assert not any(v.no_vote for v in comp.reconciliation.verdicts)
    with pytest.raises(ValueError, match="draws must be one of"):
        Options(draws="maybe")
    with pytest.raises(ValueError, match="estimand must be one of"):
        Options(estimand="all")


# ------------------------------------------------------------------ per benchmark, unequal spreads
def unequal_spreads(seed: int, *, n_seeds: int = 5, shift: float = 0.0) -> Results:
    """6 benchmarks: 10 deterministic algorithms (1.0 on every seed) and 3 noisy ones,
    N(0.85, 0.05^2) per run; ``shift`` moves N0. A null among N0-N2 unless shifted."""
    rng = np.random.default_rng([22, seed])
    rows = []
    for b in range(6):
        rows += [(f"C{a}", f"b{b}", s, 1.0) for a in range(10) for s in range(n_seeds)]
        for a in range(3):
            x = 0.85 + (shift if a == 0 else 0.0) + 0.05 * rng.standard_normal(n_seeds)
            rows += [(f"N{a}", f"b{b}", s, float(v)) for s, v in enumerate(x)]
    frame = pd.DataFrame(rows, columns=["alg", "bench", "seed", "score"])
    return Results.from_frame(frame, algorithm="alg", benchmark="bench", seed="seed",
                              score="score", objective="maximize", kind="runs")


def noisy_pairs_settled(comparison) -> pd.DataFrame:
    rel = comparison.reconciliation.relations
    noisy = rel["a"].str.startswith("N") & rel["b"].str.startswith("N")
    return rel[(rel["scope_type"] == "per benchmark") & noisy
               & rel["status"].isin(["settled", "implied"])]


def test_per_benchmark_lmem_holds_its_level_when_algorithms_spread_differently():
    """Ten quiet algorithms shrank the pooled residual variance of a benchmark, so a null
    pair of noisy ones was settled in 14 of 20 data sets (HPO-B: BOHAMIANN over GP-C,
    adjusted p = 1.9e-14, where Welch's test alone gives p = 0.002). The pair's own Welch
    test now has to agree (intersection-union)."""
    n = int(20 * SCALE)
    hits = sum(len(noisy_pairs_settled(report(unequal_spreads(seed), analyses=("lmem",)))) > 0
               for seed in range(n))
    assert at_most_alpha(hits, n), (hits, n)


def test_per_benchmark_lmem_still_finds_a_shift_among_noisy_algorithms():
    found = noisy_pairs_settled(report(unequal_spreads(0, n_seeds=10, shift=0.2),
                                       analyses=("lmem",)))
    n0 = found[(found["a"] == "N0") | (found["b"] == "N0")]
    assert (n0["winner"] == "N0").all()
    assert n0["benchmark"].nunique() >= 5, n0[["benchmark", "a", "b"]]


def test_per_benchmark_welch_p_values_are_scipys():
    res = study(3, "unbalanced")
    final = res.table
    got = per_benchmark_contrasts(final)
    for r in got.itertuples():
        part = final[final["benchmark"] == r.benchmark]
        xa = part.loc[part["algorithm"] == r.a, "score"]
        xb = part.loc[part["algorithm"] == r.b, "score"]
        if min(len(xa), len(xb)) < 2:
            assert np.isnan(r.p_value_welch) and r.p_value_iu == r.p_value
            continue
        # Welch's statistic (scipy's), on Hsu's conservative df: min(n_a, n_b) - 1.
        ref = stats.ttest_ind(xa, xb, equal_var=False)
        hsu = min(len(xa), len(xb)) - 1
        assert r.df_welch == hsu and hsu <= ref.df
        assert r.p_value_welch == pytest.approx(
            2 * stats.t.sf(abs(ref.statistic), hsu), rel=1e-9, abs=1e-300)
        assert r.p_value_welch >= ref.pvalue
        assert r.p_value_iu == max(r.p_value, r.p_value_welch)


def test_two_constant_cells_get_the_exact_permutation_p_value_not_zero():
    """Review of 2026-11-28: HPO-B's 4796/23 had BOHAMIANN at 1.0 and Random at 0.9898 on
    every one of 5 seeds; the Welch check's SE was 0 and its p forced to 0, so the model's
    pooled variance settled the pair at adjusted p = 6.6e-27. Complete separation of 5 runs
    from 5 is worth the exact Mann-Whitney p = 2 / C(10, 5) = 0.0079, no less."""
    rng = np.random.default_rng(3)
    rows = []
    for b in ("p", "q"):
        for s in range(5):
            rows += [("A", b, s, 1.0), ("B", b, s, 0.9898),
                     ("C", b, s, 0.5 + rng.normal(0, 0.01)),
                     ("D", b, s, 0.5 + rng.normal(0, 0.01))]
    frame = pd.DataFrame(rows, columns=["algorithm", "benchmark", "seed", "score"])
    got = per_benchmark_contrasts(frame)
    pair = got[(got["a"] == "A") & (got["b"] == "B")]
    assert len(pair) == 2
    assert np.allclose(pair["p_value_welch"], 2 / 252)
    assert (pair["p_value_iu"] >= 2 / 252).all()

    def welch_p_of_equal_constant_cells(value: float, runs_b: int) -> float:
        """A and B score ``value`` on every run (3 and ``runs_b`` runs), C varies."""
        rows = ([("A", "p", s, value) for s in range(3)]
                + [("B", "p", s, value) for s in range(runs_b)]
                + [("C", "p", s, float(s)) for s in range(3)])
        got = per_benchmark_contrasts(pd.DataFrame(
            rows, columns=["algorithm", "benchmark", "seed", "score"]))
        return got.loc[(got["a"] == "A") & (got["b"] == "B"), "p_value_welch"].item()

    assert welch_p_of_equal_constant_cells(1.0, 3) == 1.0
    # Equal values, unequal runs: the means differ by round-off (0.1 x 3 / 3 is not 0.1).
    assert welch_p_of_equal_constant_cells(0.1, 2) == 1.0


@pytest.mark.parametrize("factor", [1e-150, 1e141, 1e150])
def test_per_benchmark_welch_tests_do_not_overflow_at_extreme_scales(factor):
    final = study(3, "unbalanced").table
    plain = per_benchmark_contrasts(final)
    scaled = per_benchmark_contrasts(final.assign(score=final["score"] * factor))
    for column in ("df_welch", "p_value_welch", "p_value_iu", "p_value_adjusted"):
        np.testing.assert_allclose(scaled[column], plain[column], rtol=1e-9)


def _few_runs_beside_many(seed: int, *, ceiling: bool) -> pd.DataFrame:
    """Equal means on 10 benchmarks: A has 2-3 runs (noisy, SD 4; or a ceiling, 1.0 with
    probability 0.8 and 0.9 otherwise, 5 benchmarks), B, C and D 10 quiet runs each."""
    rng = np.random.default_rng([31, seed])
    rows = []
    for b in range(5 if ceiling else 10):
        if ceiling:
            a = np.where(rng.random(3) < 0.8, 1.0, 0.9)
            others = {x: 0.98 + 0.01 * rng.standard_normal(10) for x in "BCD"}
        else:
            a = 4.0 * rng.standard_normal(int(rng.integers(2, 4)))
            others = {x: 0.5 * rng.standard_normal(10) for x in "BCD"}
        rows += [("A", f"b{b}", float(v)) for v in a]
        rows += [(x, f"b{b}", float(v)) for x, vs in others.items() for v in vs]
    return pd.DataFrame(rows, columns=["algorithm", "benchmark", "score"])


@pytest.mark.parametrize("ceiling", [False, True], ids=["two-noisy-runs", "ceiling"])
def test_per_benchmark_welch_holds_its_level_with_two_or_three_runs(ceiling):
    """Welch-Satterthwaite's df trust a 2-3-run cell's sample variance: when it happens to
    be small (or 0: a ceiling) the df jump, and false per-benchmark relations were settled
    in 21% (noisy A) and 83% (ceiling A) of null data sets. Hsu's df keep the level."""
    reps = int(150 * SCALE)
    hits = 0
    for s in range(reps):
        # The report's per-benchmark family: Holm over every benchmark's pairs together.
        p = per_benchmark_contrasts(_few_runs_beside_many(s, ceiling=ceiling))["p_value_iu"]
        hits += bool((holm(p.dropna().to_numpy()) <= ALPHA).any())
    assert at_most_alpha(hits, reps), (hits, reps)


def test_a_benchmark_without_variance_is_listed_not_silently_absent():
    """HPO-B's 5891/9980 (every algorithm the same on every seed) had no per-benchmark
    relations, no exclusion record, and the results table blamed the analyses run."""
    rows = [(a, "flat", s, 1.0 if a in ("A", "B") else 0.909) for a in ALGORITHMS
            for s in range(5)]
    rng = np.random.default_rng(0)
    rows += [(a, f"b{k}", s, float(rng.normal())) for k in range(3) for a in ALGORITHMS
             for s in range(5)]
    frame = pd.DataFrame(rows, columns=["alg", "bench", "seed", "score"])
    data = Results.from_frame(frame, algorithm="alg", benchmark="bench", seed="seed",
                              score="score", objective="maximize", kind="runs")
    comp = report(data, analyses=("lmem",))
    ex = comp.exclusions
    flat = ex[(ex["unit"] == "benchmark") & (ex["benchmark"] == "flat")]
    assert len(flat) == 1 and "no variance within any algorithm" in flat["reason"].iloc[0]
    assert flat["step"].iloc[0] == "per-benchmark contrasts (runs as replicates)"
    lmem_notes = next(r.notes for r in comp.runs if r.name == "lmem")
    assert any(n.startswith("No per-benchmark test on 1 benchmark(s): flat") for n in lmem_notes)


def test_a_benchmark_without_a_model_test_has_no_adjusted_p():
    """fmax ignored the model's NaN: A = [1, 1], B = C = [2, 2] gave p_value_iu 0 and an
    adjusted p of 0 on a benchmark that has no test."""
    t = pd.DataFrame({"algorithm": list("AABBCC"), "benchmark": "p",
                      "score": [1.0, 1, 2, 2, 2, 2]})
    got = per_benchmark_contrasts(t)
    assert got[["p_value", "p_value_iu", "p_value_adjusted"]].isna().all().all()


def _two_identical_with_run_effects(seed: int) -> Results:
    """Two identical algorithms on one benchmark: 5 runs of 20 draws each, run effect sd 1,
    draw noise sd 0.5 (the draws of a run share its effect)."""
    rng = np.random.default_rng(seed)
    rows = []
    for alg in "AB":
        for s in range(5):
            u = rng.normal()
            rows += [(alg, "p", s, t, u + 0.5 * rng.normal()) for t in range(1, 21)]
    frame = pd.DataFrame(rows, columns=["algorithm", "benchmark", "seed", "trial", "score"])
    return Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
                              seed="seed", budget="trial", score="score",
                              objective="maximize", kind="trials")


def test_tuning_verdicts_on_draws_that_share_a_run_decide_nothing():
    # The bands assume independent draws. On these null data half the data sets got a
    # tuning.median_band verdict naming a winner, whose explanation said "the decision
    # errs with probability at most 0.05"; and the notes said both that the tuning curves
    # "do not vote" and that the test's "p-value is the tuning curves' vote".
    leaned = 0
    for seed in range(12):
        comp = compare(_two_identical_with_run_effects(seed), analyses=["tuning"],
                       progress=False, figures=False)
        tuning = [v for v in comp.verdicts() if v.method.startswith("tuning.")]
        assert tuning and all(v.no_vote and v.winner is None for v in tuning)
        for v in tuning:
            assert "so the decision errs" not in v.explanation
            # A band decision turned into a lean says why (other leans are the bands' own).
            leaned += v.explanation.startswith("not decided, a lean: the draws of a run may "
                                               "share a run effect")
        notes = " ".join(r for run in comp.runs for r in run.notes)
        assert "do not vote" in notes
        assert "its p-value is the tuning curves' vote where the draws are independent" in notes
    assert leaned  # the failure mode occurs in these data: a band that would have decided


def _single_draw_study(seeds: int) -> Results:
    """10 algorithms (45 pairs) on 2 benchmarks, runs of 30 draws; alg i's draws N(0.3 i, 1)."""
    rng = np.random.default_rng(0)
    rows = [(f"alg{i}", f"task{b}", s, t + 1, 0.3 * i + rng.normal())
            for b in range(2) for i in range(10) for s in range(seeds) for t in range(30)]
    frame = pd.DataFrame(rows, columns=["algorithm", "benchmark", "seed", "trial", "score"])
    return Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
                              seed="seed", budget="trial", score="score",
                              objective="maximize", kind="trials")


def test_single_draw_line_can_name_winners_over_45_pairs():
    """Review of 2026-11-29: with 499 run splits the single-draw p-values stopped at 0.002,
    above Holm's first threshold over 45 pairs (0.05 / 45 = 0.0011): no pair could ever be
    named, and the line read as if single draws won equally often (alg9's beat alg0's 97% of
    the time, on 8 + 8 runs). A p-value at the floor is now refined on 2 m / alpha splits.
    With 6 + 6 runs the data's own floor (2 / C(12, 6) = 0.0022) is too coarse: the line
    says so."""
    enough = compare(_single_draw_study(8), analyses=["dse"], progress=False, figures=False,
                     sanity_checks=False).reconciliation.headlines.set_index("scope")
    line = enough.loc["benchmark task0", "single_draws"]
    assert "a single draw of alg9 beats one of alg0" in line
    assert "Holm-adjusted p = 0.025" in line
    # Pooled, a pair's p-value is also the sign-flip test's over the 2 benchmarks, whose
    # smallest two-sided value is 2 / 2^2 = 0.5: the data cannot decide any pair there.
    pooled = enough.loc["all benchmarks", "single_draws"]
    assert "smallest p-value these data allow a pair, 0.5" in pooled
    few = compare(_single_draw_study(6), analyses=["dse"], progress=False, figures=False,
                  sanity_checks=False).reconciliation.headlines.set_index("scope")
    line = few.loc["benchmark task0", "single_draws"]
    assert "a single draw of" not in line
    assert "smallest p-value these data allow a pair, 0.0022" in line
    assert "alpha / 45 = 0.0011" in line
