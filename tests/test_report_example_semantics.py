"""What the report concludes on the bundled example (issue 11's 'done when').

The example (5 classifiers x 6 benchmarks x 20 seeds x 20 random-search trials): the
LMEM finds LR worse than every other algorithm (p <= 7e-15) and the tuning curves show
LR far behind on circles; the old report's headline was "inconclusive: more data
needed on all benchmarks". Now: one sentence per scope that names LR as worst, a
partial ranking per benchmark, contradictions apart from power gaps, every emitted
method registered, and no small p-value without a decision and its reason.
"""

from __future__ import annotations

import re
import warnings

import pytest

from benchverdict.methods import FAMILIES, method_info
from benchverdict.report.relations import (
    CONTRADICTION_COLUMNS,
    GROUP_COLUMNS,
    HEADLINE_COLUMNS,
    POWER_GAP_COLUMNS,
    RELATION_COLUMNS,
)
from benchverdict.report.runner import compare


@pytest.fixture(scope="module")
def example():
    try:
        from benchverdict.examples import load_example

        results = load_example()
    except (ImportError, FileNotFoundError) as err:
        pytest.skip(f"the example data are missing: {err}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare(results, progress=False, figures=False)


def test_every_emitted_method_is_registered(example):
    methods = set(example.verdict_table["method"])
    assert {m.split(".")[0] for m in methods} == {"tuning", "dse", "ranks", "lmem"}
    for method in methods:
        info = method_info(method)  # raises KeyError for an unregistered method
        assert info.family in FAMILIES
        assert info.family == method.split(".")[0]


def test_headline_names_lr_as_worst_on_all_benchmarks(example):
    rec = example.reconciliation
    head = rec.headline
    assert head.message.startswith("On all 6 benchmarks: LR is worst (settled by LMEM")
    assert "MLP, RF, SVM and kNN cannot be separated" in head.message
    assert head.status == "partial"
    assert head.tiers[-1] == ["LR"]
    assert sorted(head.settled) == [("MLP", "LR"), ("RF", "LR"), ("SVM", "LR"),
                                    ("kNN", "LR")]
    # Rank tests on 6 blocks cannot reach the family-wise threshold: a power gap, stated
    # once for the four pairs, not four "conflicts".
    gaps = rec.power_gaps[rec.power_gaps["scope"] == "all benchmarks"]
    ranks = gaps[gaps["family"] == "ranks"].iloc[0]
    assert ranks["n_pairs"] == 4 and "6 blocks" in ranks["reason"]
    groups = rec.groups[rec.groups["scope"] == "all benchmarks"]["algorithms"].tolist()
    assert groups == ["MLP, RF, SVM, kNN"]


def test_a_headline_and_a_partial_ranking_per_benchmark(example):
    rec = example.reconciliation
    headlines = rec.headlines.set_index("scope")
    benchmarks = example.benchmarks
    for bench in benchmarks:
        sentence = headlines.loc[f"benchmark {bench}", "sentence"]
        assert sentence.startswith(f"On {bench}: ")
        assert "inconclusive: more data needed" not in sentence
    rankings = {r.benchmark: r for r in rec.rankings if not r.metafeature}
    assert set(benchmarks) <= set(rankings)
    # Circles: the tuning curves put LR below every other algorithm.
    circles = rankings["circles"]
    assert circles.tiers[-1] == ["LR"] and circles.status == "partial"
    assert headlines.loc["benchmark circles", "sentence"].startswith(
        "On circles: LR is worst (settled by tuning curves)")
    # Every scope's single-draw row comes from the score distributions, which do not vote.
    assert headlines["single_draws"].str.startswith("Single draws (budget 1").all()
    assert "dse" not in set(rec.votes["family"])


def test_tables_for_the_presentation_have_stable_columns(example):
    rec = example.reconciliation
    assert list(rec.relations.columns) == RELATION_COLUMNS
    assert list(rec.groups.columns) == GROUP_COLUMNS
    assert list(rec.headlines.columns) == HEADLINE_COLUMNS
    assert list(rec.contradictions.columns) == CONTRADICTION_COLUMNS
    assert list(rec.power_gaps.columns) == POWER_GAP_COLUMNS
    # The same tables on the report object itself.
    for name in ("relations", "groups", "headlines", "contradictions", "power_gaps"):
        assert getattr(example, name) is getattr(rec, name)
    # One relation per pair and scope, statuses from the fixed set.
    assert not rec.relations.duplicated(["scope", "a", "b"]).any()
    assert set(rec.relations["status"]) <= {"settled", "implied", "contradicted",
                                            "power gap", "unsettled"}


def test_no_small_p_value_without_a_decision_and_its_reason(example):
    table = example.reconciliation.table
    for _, row in table.iterrows():
        m = re.match(r"p = ([0-9.e+-]+) \(alpha = ([0-9.]+)\)", row["evidence"])
        if m and row["outcome"] == "inconclusive" and float(m[1]) <= float(m[2]):
            assert "; no decision: " in row["evidence"], row["evidence"]


def test_conflicts_are_contradictions_each_explanation_once(example):
    rec = example.reconciliation
    assert (rec.conflicts["kind"] == "contradiction").all()
    grouped = rec.conflict_groups
    assert grouped["n_pairs"].sum() == len(rec.conflicts)
    assert not grouped.duplicated(["kind", "method_1", "method_2", "rules",
                                   "explanation"]).any()
