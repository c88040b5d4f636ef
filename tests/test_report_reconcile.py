"""Reconciliation of hand-made verdicts: rules, agreement, conflicts, error-controlled relations.

Issue 11 changed the consensus: one vote per family of evidence (rank tests, LMEM,
tuning curves; DSE does not vote), Holm over every vote of a scope type, settled /
implied / contradicted / power gap / unsettled relations and a partial order. Tests that
encoded the old per-method majority (pair_consensus, "inconclusive" whenever any pair is
open, a DSE verdict deciding alone) were rewritten to the new rules.
"""

from __future__ import annotations

import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchverdict.lmem.model import SINGULAR_CAVEAT
from benchverdict.report import explain as ex
from benchverdict.report.reconcile import (
    reconcile,
    representative,
)
from benchverdict.verdict import Effect, Evidence, Scope, Verdict

#: ``nox -s simulations`` multiplies the replications (BENCHVERDICT_SIM_SCALE).
SCALE = float(os.environ.get("BENCHVERDICT_SIM_SCALE", "1"))

P = Evidence("p_value", 0.01, 0.05)
STRONG = Evidence("p_value", 1e-4, 0.05)
BAND = Evidence("band", level=0.8, strength="strong")


def V(a="A", b="B", outcome="a", method="ranks.wilcoxon_holm", scope=None, evidence=P,
      unit="benchmark", n=12, details=None, effect=None, lean=None, **fields):
    if method.startswith("lmem."):
        # As the report's LMEM states it: its contrast generalises over benchmarks
        # (tests/test_report_estimand.py checks what happens when a verdict does not).
        fields.setdefault("estimand", "benchmarks")
    if method.startswith("dse.cvar_"):  # a CVaR level is the verdict's parameter
        fields.setdefault("parameter", float(method.removeprefix("dse.cvar_")))
        method = "dse.cvar"
    return Verdict(a, b, outcome, method, scope or Scope(), evidence, "maximize",
                   f"{method} says {outcome}", effect=effect, unit=unit, n=n,
                   details=dict(details or {}), lean=lean, **fields)


# ----------------------------------------------------------------------------- small functions
def test_disagreement_kind_is_symmetric_and_complete():
    outcomes = ["a", "b", "tie", "inconclusive"]
    for x in outcomes:
        for y in outcomes:
            assert ex.disagreement_kind(x, y) == ex.disagreement_kind(y, x)
            assert (ex.disagreement_kind(x, y) is None) == (x == y)
    assert ex.disagreement_kind("tie", "inconclusive") == "tie"


def test_orient_swaps_outcome_and_effect():
    v = V(a="B", b="A", outcome="a", effect=Effect("diff", 2.0, 1.0, 3.0, 0.95))
    o = ex.orient(v, "A")
    assert (o.a, o.b, o.outcome) == ("A", "B", "b")
    assert (o.effect.estimate, o.effect.lower, o.effect.upper) == (-2.0, -3.0, -1.0)
    with pytest.raises(ValueError, match="not one of"):
        ex.orient(v, "C")


@pytest.mark.parametrize(
    ("method", "scope", "region", "paired"),
    [
        ("tuning.median_band", Scope(trials_low=1, trials_high=1), ex.CENTRE, False),
        ("tuning.median_band", Scope(trials_low=5, trials_high=50), ex.UPPER_TAIL, False),
        ("dse.cvar", Scope(), ex.UPPER_TAIL, False),
        ("dse.dominance", Scope(), ex.WHOLE, False),
        ("dse.aggregate_median", Scope(), ex.CENTRE, False),
        ("ranks.nemenyi", Scope(), ex.CENTRE, True),
        # The sign test pairs by benchmark (the old name-guessing called it unpaired).
        ("ranks.sign_test", Scope(), ex.CENTRE, True),
        ("ranks.autorank_tukey", Scope(), ex.CENTRE, False),
        ("lmem.tukey", Scope(), ex.CENTRE, True),
    ],
)
def test_method_traits(method, scope, region, paired):
    t = ex.method_traits(V(method=method, scope=scope))
    assert t.region == region
    assert t.paired is paired


def test_method_traits_details_override():
    t = ex.method_traits(V(method="dse.cvar", details={"tail": "lower", "paired": True}))
    assert t.region == ex.LOWER_TAIL
    assert t.paired is True


# ----------------------------------------------------------------------------- each rule
def test_rule_budget_fires_only_without_overlap():
    early = V(method="tuning.median", scope=Scope(trials_low=1, trials_high=5), evidence=BAND)
    late = V(outcome="b", method="tuning.mean", scope=Scope(trials_low=10, trials_high=20),
             evidence=BAND)
    assert "k = 1-5 trials" in ex.explain_budget(early, late, {})
    overlapping = V(outcome="b", method="tuning.mean", scope=Scope(trials_low=4, trials_high=8),
                    evidence=BAND)
    assert ex.explain_budget(early, overlapping, {}) is None
    # Without a budget scope, the verdict refers to the final budget, where a search has
    # final_trials trials: a trial count meets a budget only there.
    final = V(outcome="b")
    assert ex.explain_budget(early, final, {"final_budget": 5000.0,
                                            "final_trials": 50}) is not None
    assert ex.explain_budget(early, final, {"final_budget": 5000.0,
                                            "final_trials": 5}) is None
    assert ex.explain_budget(early, final, {"final_budget": None}) is None
    # A budget in the budget column's unit is never compared with a trial count as a number.
    at_5 = V(outcome="b", scope=Scope(budget_low=5.0, budget_high=5.0))
    assert ex.explain_budget(early, at_5, {"final_budget": 5000.0, "final_trials": 50}) is None


def test_rule_replication_unit():
    v1 = V(unit="benchmark (mean over seeds)", n=12)
    v2 = V(outcome="b", unit="benchmark x seed", n=600)
    text = ex.explain_replication_unit(v1, v2, {})
    assert "600" in text and "benchmark x seed" in text
    assert ex.explain_replication_unit(v1, V(unit="Benchmark (mean over seeds)"), {}) is None
    assert ex.explain_replication_unit(V(unit="random-search draw"),
                                       V(unit="random-search draw (trial)"), {}) is None
    assert ex.explain_replication_unit(v1, V(unit=""), {}) is None


def test_rule_sample_size_only_for_power_disagreements():
    decided = V(n=600)
    undecided = V(outcome="inconclusive", n=12, method="lmem.tukey")
    assert "only 12" in ex.explain_sample_size(decided, undecided, {})
    assert "only 12" in ex.explain_sample_size(undecided, decided, {})
    assert ex.explain_sample_size(V(n=12), V(outcome="inconclusive", n=600), {}) is None
    assert ex.explain_sample_size(V(n=5), V(outcome="b", n=600), {}) is None
    assert "not stated" in ex.explain_sample_size(V(n=None), V(outcome="inconclusive"), {})


def test_rule_pairing():
    paired = V(method="ranks.wilcoxon_holm")
    unpaired = V(outcome="inconclusive", method="ranks.autorank_tukey")
    text = ex.explain_pairing(paired, unpaired, {})
    assert text.startswith("ranks.wilcoxon_holm pairs")
    assert ex.explain_pairing(paired, V(method="lmem.tukey"), {}) is None
    with pytest.raises(KeyError, match="not registered"):  # an unknown method is an error
        ex.explain_pairing(paired, V(method="other.thing"), {})


def test_rule_distribution_region():
    centre = V(method="dse.aggregate_median")
    tail = V(outcome="b", method="dse.cvar")
    assert "upper tail" in ex.explain_distribution_region(centre, tail, {})
    assert ex.explain_distribution_region(centre, V(method="lmem.tukey"), {}) is None


def test_rule_score_scale():
    ranks = V(method="ranks.nemenyi")
    lmem = V(outcome="b", method="lmem.tukey")
    assert "weighs every benchmark equally" in ex.explain_score_scale(lmem, ranks, {})
    assert ex.explain_score_scale(ranks, V(method="ranks.wilcoxon_holm"), {}) is None
    one_benchmark = V(outcome="b", method="lmem.tukey", scope=Scope(benchmark="x"))
    assert ex.explain_score_scale(ranks, one_benchmark, {}) is None
    normalised = V(method="dse.aggregate_iqm", details={"normalize": "minmax"})
    assert "normalized" in ex.explain_score_scale(normalised, ranks, {})


def test_rule_violated_assumption():
    # The rule reads the caveats the emitting module set; it decides nothing by details.
    singular = V(method="lmem.tukey", caveats=(SINGULAR_CAVEAT,),
                 details={"singular": "ignored: details are for display"})
    text = ex.explain_violated_assumption(singular, V(outcome="b"), {})
    assert "singular" in text
    listed = V(caveats=("normality of residuals",))
    assert "normality of residuals" in ex.explain_violated_assumption(listed, V(), {})
    descriptive = V(evidence=Evidence("descriptive"))
    assert "descriptive" in ex.explain_violated_assumption(V(), descriptive, {})
    undeclared = V(details={"violated_assumptions": ["normality"], "singular": True})
    assert ex.explain_violated_assumption(undeclared, V(outcome="b"), {}) is None
    assert ex.explain_violated_assumption(V(), V(outcome="b"), {}) is None


def test_modules_set_the_caveats_the_rule_cites():
    # Autorank: a caveat only when a parametric test ran on data its checks rejected.
    from benchverdict.dse.distribution import _tail_caveats
    from benchverdict.ranks.autorank_path import PARAMETRIC_OMNIBUS

    assert PARAMETRIC_OMNIBUS == ("anova", "ttest")
    # DSE's CVaR: a bootstrap interval with fewer than 10 tail draws per algorithm.
    assert "tail draws" in _tail_caveats("bootstrap (studentized)", 20 * (1 - 0.95))[0]
    assert _tail_caveats("bootstrap (studentized)", 200 * (1 - 0.5)) == ()
    assert _tail_caveats("exact", 1.0) == ()


def test_rule_error_standard():
    band80 = V(method="tuning.median", evidence=Evidence("band", level=0.8, strength="fair"))
    text = ex.explain_error_standard(band80, V(outcome="b"), {})
    assert "0.2" in text and "0.05" in text
    assert ex.explain_error_standard(V(), V(outcome="b"), {}) is None
    assert ex.explain_error_standard(V(evidence=Evidence("descriptive")), V(), {}) is None


def test_rule_multiplicity():
    nemenyi = V(method="ranks.nemenyi", outcome="inconclusive")
    holm = V(method="ranks.wilcoxon_holm")
    assert "nemenyi" in ex.explain_multiplicity(nemenyi, holm, {})
    assert ex.explain_multiplicity(holm, V(method="ranks.wilcoxon_holm"), {}) is None
    assert ex.explain_multiplicity(holm, V(method="dse.cvar"), {}) is None


def test_rule_borderline():
    near = V(evidence=Evidence("p_value", 0.04, 0.05))
    assert "p = 0.04" in ex.explain_borderline(near, V(outcome="inconclusive"), {})
    assert ex.explain_borderline(V(evidence=Evidence("p_value", 1e-6, 0.05)), V(), {}) is None
    weak = V(evidence=Evidence("band", level=0.8, strength="weak"), method="tuning.median")
    assert "weak" in ex.explain_borderline(weak, V(outcome="inconclusive"), {})


def test_explain_disagreement_falls_back_to_unexplained():
    v1, v2 = V(), V(outcome="b", method="ranks.sign_test")
    found = ex.explain_disagreement(v1, v2)
    assert [e.rule for e in found] == ["unexplained"]
    assert ex.explain_disagreement(v1, V(method="ranks.sign_test")) == []


def test_explain_disagreement_orients_the_second_verdict():
    v1 = V(a="A", b="B", outcome="a")
    same_claim_swapped = V(a="B", b="A", outcome="b", method="ranks.sign_test")
    assert ex.explain_disagreement(v1, same_claim_swapped) == []


# ----------------------------------------------------------------------------- reconcile
def test_representative_prefers_the_final_budget_then_a_decision():
    k1 = V(method="tuning.median_band", scope=Scope(trials_low=1, trials_high=10),
           outcome="b", evidence=BAND)
    k2 = V(method="tuning.median_band", scope=Scope(trials_low=11, trials_high=40),
           outcome="inconclusive", evidence=BAND)
    assert representative([k1, k2], 40.0, 40) is k2
    assert representative([k1, k2], 4e6, 10) is k1  # any budget unit: k = 10 trials there
    assert representative([k1, k2], None) is k2  # the highest budget
    nb = V(method="lmem.tukey", outcome="inconclusive")
    nb2 = V(method="lmem.tukey", outcome="a", scope=Scope(benchmark=None))
    assert representative([nb, nb2], None) is nb2


def test_one_vote_per_family_rank_tests_do_not_outvote_the_lmem():
    # Issue 11: Nemenyi, Autorank's Nemenyi, the sign test and Wilcoxon-Holm on the same
    # blocks are one family; undecided, they must not outvote a decided LMEM.
    ranks = [V(outcome="inconclusive", method=m, evidence=Evidence("p_value", 0.3, 0.05))
             for m in ("ranks.nemenyi", "ranks.autorank_nemenyi", "ranks.sign_test",
                       "ranks.wilcoxon_holm")]
    lmem = V(method="lmem.tukey", evidence=STRONG, n=600, unit="row")
    rec = reconcile([*ranks, lmem])
    assert set(rec.votes["family"]) == {"ranks", "lmem"}
    assert rec.votes.groupby("family").size().to_dict() == {"lmem": 1, "ranks": 1}
    # The ranks family votes through its primary method.
    assert rec.votes.set_index("family").loc["ranks", "method"] == "ranks.wilcoxon_holm"
    row = rec.relations.iloc[0]
    assert (row["status"], row["winner"], row["families"]) == ("settled", "A", "lmem")
    assert row["lacking"] == "ranks"
    # Two families deciding opposite ways is a contradiction, never a settled relation.
    against = V(outcome="b", method="ranks.wilcoxon_holm", evidence=STRONG)
    rec = reconcile([against, lmem])
    assert rec.relations.iloc[0]["status"] == "contradicted"
    assert len(rec.contradictions) == 1 and rec.headline.status == "inconclusive"
    assert "contradicted" in rec.headline.message


def test_dse_does_not_vote_and_leans_never_settle():
    dse = V(method="dse.cvar_0.5", evidence=STRONG, unit="draw", n=400)
    lean = V(outcome="inconclusive", method="tuning.median_band",
             evidence=Evidence("band", level=0.8, strength="strong"), lean="a")
    rec = reconcile([dse, lean])
    assert rec.votes.empty
    assert rec.relations.iloc[0]["status"] == "unsettled"
    assert "leans A" in rec.relations.iloc[0]["leans"]


def test_holm_controls_the_family_wise_error_per_scope_type():
    # 10 pairs at p = 0.01 each: alone each would decide, together Holm keeps none
    # (10 x 0.01 > 0.05): every pair is a power gap, stated once per family.
    algs = list("ABCDE")
    vs = [V(a=a, b=b) for i, a in enumerate(algs) for b in algs[i + 1:]]
    rec = reconcile(vs, algorithms=algs)
    assert set(rec.relations["status"]) == {"power gap"}
    assert rec.headline.status == "inconclusive"
    assert (rec.votes["p_value_adjusted"] == 0.1).all()
    # Per benchmark the adjustment runs over every benchmark's votes together.
    per = [V(a="A", b="B", scope=Scope(benchmark=b), evidence=Evidence("p_value", 0.02, 0.05))
           for b in ("x", "y", "z")]
    rec = reconcile(per)
    assert (rec.votes["p_value_adjusted"] == 0.06).all()
    assert set(rec.relations["status"]) == {"power gap"}


def _three_way(outcomes_by_pair, methods=("ranks.wilcoxon_holm", "lmem.tukey")):
    out = []
    for (a, b), outcome in outcomes_by_pair.items():
        for m in methods:
            out.append(V(a=a, b=b, outcome=outcome, method=m,
                         evidence=STRONG if outcome in ("a", "b") else P))
    return out


def test_consensus_ranking_total_order():
    vs = _three_way({("A", "B"): "a", ("B", "C"): "a", ("A", "C"): "a"})
    rec = reconcile(vs)
    head = rec.headline
    assert head.status == "ranked"
    assert head.tiers == [["A"], ["B"], ["C"]]
    assert (rec.agreement["agreement"] == 1.0).all()
    assert rec.conflicts.empty
    assert head.message == ("Across benchmarks like these: A > B > C (settled by LMEM and rank "
                            "tests).")


def test_consensus_ranking_with_a_tie_tier():
    vs = _three_way({("A", "B"): "a", ("A", "C"): "a", ("B", "C"): "tie"})
    rec = reconcile(vs)
    assert rec.headline.tiers == [["A"], ["B", "C"]]
    assert rec.headline.status == "partial"
    assert rec.groups["algorithms"].tolist() == ["B, C"]
    assert rec.headline.message.startswith("Across benchmarks like these: A is best")
    assert "B and C cannot be separated" in rec.headline.message


def test_cycle_is_a_contradiction():
    vs = _three_way({("A", "B"): "a", ("B", "C"): "a", ("A", "C"): "b"})
    rec = reconcile(vs)
    head = rec.headline
    assert head.status == "inconclusive"
    assert set(rec.relations["status"]) == {"contradicted"}
    assert set(rec.contradictions["kind"]) == {"cycle"}
    assert "contradicted" in head.message


def test_unsettled_pair_keeps_the_partial_order_and_gives_guidance():
    vs = _three_way({("A", "B"): "a", ("B", "C"): "inconclusive", ("A", "C"): "a"})

    def guidance(a, b, key):
        return "about 300 draws each would settle it"

    head = reconcile(vs, guidance=guidance).headline
    assert head.status == "partial"
    assert head.tiers == [["A"], ["B", "C"]]
    assert head.unsettled[0][:2] == ("B", "C")
    assert head.guidance == ["B vs C: about 300 draws each would settle it"]
    assert ("A", "B") in head.settled


def test_pairs_with_the_same_guidance_share_a_line():
    vs = _three_way({("A", "B"): "inconclusive", ("B", "C"): "inconclusive",
                     ("A", "C"): "a"})
    head = reconcile(vs, guidance=lambda a, b, key: "more benchmarks").headline
    assert head.guidance == ["A vs B, B vs C: more benchmarks"]


def test_missing_pair_is_implied_by_transitivity():
    vs = [V(a="A", b="B", evidence=STRONG), V(a="B", b="C", evidence=STRONG)]
    rec = reconcile(vs, algorithms=["A", "B", "C"])
    head = rec.headline
    assert head.status == "ranked" and head.implied == [("A", "C")]
    row = rec.relations.set_index(["a", "b"]).loc[("A", "C")]
    assert (row["status"], row["via"]) == ("implied", "A > B > C")
    # Without the chain the pair stays open, and says why.
    open_bc = V(a="B", b="C", outcome="inconclusive", evidence=Evidence("p_value", 0.3, 0.05))
    rec = reconcile([vs[0], open_bc], algorithms=["A", "B", "C"])
    row = rec.relations.set_index(["a", "b"]).loc[("A", "C")]
    assert row["status"] == "unsettled" and row["reason"] == "no family that votes judged this pair"


def test_meanmax_like_conflict_is_explained_by_the_distribution_region():
    median = V(a="MLP", b="LSTM", outcome="a", method="dse.aggregate_median",
               evidence=Evidence("confidence", level=0.95), unit="random-search draw", n=297)
    cvar = V(a="LSTM", b="MLP", outcome="a", method="dse.cvar",
             evidence=Evidence("confidence", level=0.95), unit="random-search draw", n=297)
    rec = reconcile([median, cvar], algorithms=["LSTM", "MLP"])
    assert len(rec.conflicts) == 1
    row = rec.conflicts.iloc[0]
    assert row["kind"] == "contradiction"
    assert row["rules"] == "distribution_region"
    assert rec.headline.status == "inconclusive"
    # Score distributions describe single draws: they do not vote, so no relation.
    assert rec.agreement.loc[0, "consensus"] == "inconclusive"
    assert rec.method_agreement.loc["dse.aggregate_median", "dse.cvar"] == 0.0


def test_budget_matching_compares_nearest_budgets():
    tuning = [
        V(method="tuning.median_band", scope=Scope(trials_low=1, trials_high=4), outcome="b",
          evidence=BAND),
        V(method="tuning.median_band", scope=Scope(trials_low=5, trials_high=50), outcome="a",
          evidence=BAND),
    ]
    ranks = V(method="ranks.wilcoxon_holm", outcome="a")
    rec = reconcile([*tuning, ranks], final_budget=50000.0, final_trials=50)
    # The final-budget rank verdict meets only the k = 5-50 tuning verdict: they agree.
    assert rec.conflicts.empty
    assert len(rec.comparisons) == 1  # the 1-4 verdict shares no budget with it
    # Methods that share no budget at all are compared at their nearest budgets.
    apart = reconcile([tuning[0], ranks], final_budget=50.0, final_trials=50)
    assert apart.conflicts.loc[0, "rules"].startswith("budget")
    assert rec.agreement.loc[0, "agreement"] == 1.0


def test_groups_by_benchmark_and_metafeature():
    vs = [
        V(scope=Scope(benchmark="x")),
        V(scope=Scope(benchmark="x"), method="lmem.tukey", outcome="b"),
        V(scope=Scope(benchmark="y"), method="lmem.tukey", outcome="b"),
        V(scope=Scope(metafeature=(("prior", "good"),)), method="lmem.tukey"),
    ]
    rec = reconcile(vs)
    assert len(rec.agreement) == 3
    assert len(rec.conflicts) == 1
    assert rec.conflicts.loc[0, "benchmark"] == "x"
    assert [r.scope_label for r in rec.rankings] == [
        "all benchmarks, prior=good", "benchmark x", "benchmark y"]
    assert rec.headline is None
    assert rec.coverage.loc["lmem.tukey"].sum() == 3


def test_empty_input():
    rec = reconcile([])
    assert rec.verdict_table.empty and rec.agreement.empty and rec.conflicts.empty
    assert rec.rankings == []


# ----------------------------------------------------------------------------- properties
outcome_st = st.sampled_from(["a", "b", "tie", "inconclusive"])
verdict_st = st.builds(
    lambda a_first, outcome, method, bench, lo, width, n, unit: V(
        a="A" if a_first else "B", b="B" if a_first else "A", outcome=outcome, method=method,
        scope=Scope(bench, lo, lo + width) if lo is not None else Scope(bench), n=n, unit=unit,
    ),
    st.booleans(), outcome_st,
    st.sampled_from(["ranks.nemenyi", "lmem.tukey", "dse.cvar", "tuning.median_band"]),
    st.sampled_from([None, "x"]),
    st.one_of(st.none(), st.integers(1, 30)), st.integers(0, 10),
    st.one_of(st.none(), st.integers(1, 500)),
    st.sampled_from(["benchmark", "draw", ""]),
)


@settings(max_examples=int(75 * SCALE), deadline=None)
@given(st.lists(verdict_st, max_size=8))
def test_reconcile_properties(verdicts):
    rec = reconcile(verdicts, final_budget=40.0)
    scores = rec.agreement["agreement"].dropna()
    assert ((scores >= 0) & (scores <= 1)).all()
    # Every disagreement has a non-empty explanation, and agreeing pairs are not conflicts.
    assert (rec.conflicts["explanation"].str.len() > 0).all()
    assert (rec.conflicts["outcome_1"] != rec.conflicts["outcome_2"]).all()
    # The matrix is symmetric, and the consensus never contradicts a unanimous decision.
    m = rec.method_agreement
    assert ((m.fillna(-1) - m.T.fillna(-1)).abs() < 1e-12).all().all()
    for _, row in rec.agreement.iterrows():
        if row["consensus"] in ("a", "b"):
            assert row["n_conflicts"] == 0 or row["n_methods"] > 1
    # Swapping every verdict's orientation changes nothing.
    swapped = reconcile([v.swapped() for v in verdicts], final_budget=40.0)
    assert swapped.agreement.equals(rec.agreement)
    assert len(swapped.conflicts) == len(rec.conflicts)


@settings(max_examples=100, deadline=None)
@given(st.permutations(["A", "B", "C", "D"]))
def test_ranking_recovers_any_total_order(order):
    rank = {a: i for i, a in enumerate(order)}
    vs = []
    for a, b in [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]:
        vs.append(V(a=a, b=b, outcome="a" if rank[a] < rank[b] else "b", evidence=STRONG))
    head = reconcile(vs).headline
    assert head.status == "ranked"
    assert [t[0] for t in head.tiers] == list(order)
    assert not math.isnan(reconcile([*vs, V(method="lmem.tukey")]).agreement["agreement"].iloc[0])


def test_single_benchmark_data_have_a_headline():
    vs = [V(scope=Scope(benchmark="Reuters")), V(scope=Scope(benchmark="Reuters"),
                                                  method="lmem.tukey")]
    head = reconcile(vs).headline
    assert head is not None and head.benchmark == "Reuters" and head.status == "ranked"
    rec = reconcile(vs)
    assert set(rec.comparisons["budget_1"]) == {"any"}  # no budget anywhere
    assert set(reconcile(vs, final_budget=20.0).comparisons["budget_1"]) == {"final"}


def test_only_methods_at_the_final_budget_vote():
    one_draw = V(method="dse.cvar", scope=Scope(trials_low=1, trials_high=1), outcome="b",
                 evidence=Evidence("confidence", level=0.8))
    final = [V(method="ranks.nemenyi"), V(method="lmem.tukey")]
    rec = reconcile([one_draw, *final], final_budget=20.0, final_trials=20)
    row = rec.agreement.iloc[0]
    assert row["consensus"] == "a"  # ranks and LMEM at p = 0.01 each: Holm 0.02
    assert row["agreement"] == 1 / 3  # the budget-1 verdict disagrees with both others
    assert row["not_voting"] == "dse.cvar"
    assert len(rec.conflicts) == 2  # still listed, and explained by the budget
    assert rec.conflicts["rules"].str.startswith("budget").all()
    assert rec.representatives.set_index("method")["votes"].to_dict() == {
        "dse.cvar": False, "lmem.tukey": True, "ranks.nemenyi": True}
    # Score distributions never vote, even alone.
    alone = reconcile([one_draw], final_budget=20.0, final_trials=20)
    assert alone.agreement.iloc[0]["consensus"] == "inconclusive"


method_st = st.sampled_from([
    "ranks.nemenyi", "ranks.wilcoxon_holm", "ranks.sign_test", "ranks.autorank_tukey",
    "lmem.tukey", "dse.cvar_0.5", "dse.cvar_0.99", "dse.dominance", "tuning.median_band",
])
evidence_st = st.sampled_from([
    Evidence("p_value", 0.04, 0.05), Evidence("p_value", 1e-5, 0.05),
    Evidence("band", level=0.8, strength="weak"), Evidence("confidence", level=0.95),
    Evidence("descriptive"),
])
rich_verdict_st = st.builds(
    lambda outcome, method, lo, width, n, unit, evidence, singular: V(
        outcome=outcome, method=method, n=n, unit=unit, evidence=evidence,
        scope=Scope(None, lo, lo + width) if lo is not None else Scope(),
        caveats=(SINGULAR_CAVEAT,) if singular else (),
    ),
    outcome_st, method_st, st.one_of(st.none(), st.integers(1, 30)), st.integers(0, 10),
    st.one_of(st.none(), st.integers(1, 5000)),
    st.sampled_from(["benchmark", "random-search draw", "row of a mixed model"]),
    evidence_st, st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(rich_verdict_st, rich_verdict_st, st.one_of(st.none(), st.just(20.0)))
def test_rules_are_symmetric_and_always_explain(v1, v2, final_budget):
    """Which reasons apply does not depend on the order of the two verdicts."""
    forward = ex.explain_disagreement(v1, v2, final_budget=final_budget)
    backward = ex.explain_disagreement(v2, v1, final_budget=final_budget)
    assert {e.rule for e in forward} == {e.rule for e in backward}
    if v1.outcome != v2.outcome:
        assert forward and all(e.text for e in forward)
    else:
        assert forward == []


family_method_st = st.sampled_from(["ranks.wilcoxon_holm", "lmem.tukey", "tuning.median_test",
                                    "ranks.nemenyi", "dse.cvar_0.5"])
vote_st = st.builds(
    lambda pair, outcome, method, p, bench: V(
        a=pair[0], b=pair[1], outcome=outcome if p <= 0.05 else "inconclusive",
        method=method, evidence=Evidence("p_value", p, 0.05), scope=Scope(bench),
        effect=Effect("diff", 1.0 if outcome == "a" else -1.0)),
    st.sampled_from([("A", "B"), ("A", "C"), ("B", "C"), ("C", "D"), ("B", "D"), ("A", "D")]),
    st.sampled_from(["a", "b"]), family_method_st,
    st.sampled_from([1e-6, 1e-4, 0.003, 0.02, 0.2, 0.9]), st.sampled_from([None, "x", "y"]))


def _facts(rec) -> set:
    return {(r.scope, frozenset((r.a, r.b)), r.status, r.winner)
            for r in rec.relations.itertuples(index=False)}


@settings(max_examples=60, deadline=None)
@given(st.lists(vote_st, max_size=12,  # a method judges a pair and scope once
                unique_by=lambda v: (v.method, frozenset((v.a, v.b)), v.scope.benchmark)),
       st.permutations(["A", "B", "C", "D"]))
def test_relations_do_not_depend_on_the_order_or_orientation(verdicts, order):
    base = reconcile(verdicts, algorithms=["A", "B", "C", "D"])
    other = reconcile([v.swapped() for v in verdicts[::-1]], algorithms=list(order))
    assert _facts(base) == _facts(other)
    # Settled relations never contradict each other, and implied ones follow from them.
    for rel in (base, other):
        settled = rel.relations[rel.relations["status"].isin(["settled", "implied"])]
        for _, here in settled.groupby("scope"):
            reverse = set(zip(here["loser"], here["winner"]))
            assert not any(pair in reverse for pair in zip(here["winner"], here["loser"]))
        # Score distributions never vote.
        assert "dse" not in set(rel.votes["family"])


def test_autorank_forced_parametric_on_skewed_data_carries_its_caveat():
    # Lognormal scores fail Shapiro-Wilk; forcing the parametric path runs ANOVA anyway,
    # and the verdicts say so in their caveats (the rule above cites them).
    import numpy as np
    import pandas as pd

    from benchverdict import ranks
    from benchverdict.results import Results

    rng = np.random.default_rng(3)
    rows = [{"algorithm": alg, "benchmark": f"b{i}", "seed": 0,
             "score": float(np.exp(rng.normal(0, 2)) + shift)}
            for i in range(30) for alg, shift in (("A", 0.0), ("B", 0.5), ("C", 1.0))]
    res = Results.from_frame(pd.DataFrame(rows), algorithm="algorithm", benchmark="benchmark",
                             seed="seed", score="score", objective="maximize", kind="runs")
    forced = ranks.autorank(res, force_mode="parametric")
    assert forced.omnibus in ("anova", "ttest")
    caveats = {c for v in forced.verdicts() for c in v.caveats}
    assert any("Shapiro-Wilk rejected normality" in c for c in caveats), caveats
    chosen = ranks.autorank(res)
    assert chosen.omnibus not in ("anova", "ttest")
    assert not any(v.caveats for v in chosen.verdicts())
