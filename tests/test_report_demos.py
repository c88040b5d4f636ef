"""Demonstration cases on real data: the report explains where methods part ways.

* meanmax (Tang et al.'s hedwig data): the MLP is better in the centre of the
  score distribution, the LSTM in its extreme upper tail (CVaR_0.99).
* PriorBand (Geburek et al.): the LMEM against Friedman/Nemenyi, Wilcoxon-Holm
  and Autorank, at the final budget (they agree) and early (they differ in
  power and even in conclusion, and the report says why).

These need the analysis modules; a test whose module is missing is skipped
with the module's name.
"""

from __future__ import annotations

import importlib

import pytest

from benchverdict.io.adapters import read_meanmax, read_priorband
from benchverdict.report.runner import compare

pytestmark = pytest.mark.shared_data


def need(module: str, attribute: str) -> None:
    try:
        mod = importlib.import_module(f"benchverdict.{module}")
    except ModuleNotFoundError:
        pytest.skip(f"benchverdict.{module} is missing")
    if not hasattr(mod, attribute):
        pytest.skip(f"benchverdict.{module}.{attribute} is missing")


@pytest.fixture(scope="module")
def hedwig(shared_data):
    return read_meanmax(shared_data / "meanmax" / "hedwig.tsv")


@pytest.fixture(scope="module")
def priorband(shared_data):
    return read_priorband(shared_data / "priorband" / "priorband_data.parquet")


def test_meanmax_centre_and_tail_disagree(hedwig):
    need("dse", "distribution")
    comp = compare(hedwig, analyses=["dse"], cvar_levels=(0.5, 0.99), progress=False)
    assert [r.status for r in comp.runs] == ["ok"]
    v = comp.verdicts.set_index("method")
    # The MLP is better in the centre (CVaR_0.5: mean of the best half) ...
    assert v.loc["dse.cvar_0.5", "winner"] == "mlp"
    # ... the LSTM in the extreme tail (CVaR_0.99), as Tang et al. and Lourie et al. show.
    assert v.loc["dse.cvar_0.99", "winner"] == "reg_lstm"
    clash = comp.conflicts[
        (comp.conflicts["kind"] == "contradiction")
        & comp.conflicts[["method_1", "method_2"]].isin(["dse.cvar_0.5"]).any(axis=1)
        & comp.conflicts[["method_1", "method_2"]].isin(["dse.cvar_0.99"]).any(axis=1)
    ]
    assert len(clash) == 1
    rules = clash.iloc[0]["rules"].split(",")
    assert "distribution_region" in rules
    # The tail verdict rests on ~1.5 draws per algorithm: the report flags its bootstrap.
    assert "violated_assumption" in rules
    assert "Tang et al. 2020" in clash.iloc[0]["explanation"]
    # No consensus where the methods contradict each other.
    row = comp.agreement.iloc[0]
    assert row["consensus"] == "conflict"
    assert all(r.status == "inconclusive" for r in comp.rankings)


def test_meanmax_median_tuning_curve_against_cvar(hedwig):
    need("dse", "distribution")
    need("tuning", "from_results")
    comp = compare(hedwig, analyses=["tuning", "dse"], cvar_levels=(0.5, 0.99), progress=False)
    assert [r.status for r in comp.runs] == ["ok", "ok"], [r.reason for r in comp.runs]
    tuning = comp.verdicts[comp.verdicts["module"] == "tuning"]
    assert len(tuning)
    # At k = 1 the median tuning curve is the median of the draws: the MLP's is higher.
    first = tuning[tuning["budget_low"] <= 1]
    assert set(first["winner"].dropna()) <= {"mlp"}
    assert "mlp" in set(first["winner"].dropna())
    # The median curve at small k against the extreme-tail CVaR: a contradiction, explained
    # by the part of the distribution each looks at.
    c = comp.conflicts
    pair = c[["method_1", "method_2"]]
    clash = c[
        (c["kind"] == "contradiction")
        & pair.apply(lambda col: col.str.startswith("tuning")).any(axis=1)
        & pair.isin(["dse.cvar_0.99"]).any(axis=1)
        & (c["budget_1"].str.startswith("1-") | c["budget_2"].str.startswith("1-"))
    ]
    assert len(clash)
    assert all("distribution_region" in r for r in clash["rules"])


def test_priorband_final_budget_methods_agree(priorband):
    need("ranks", "friedman")
    need("lmem", "fit")
    comp = compare(priorband, analyses=["ranks", "lmem"], progress=False)
    assert [r.status for r in comp.runs] == ["ok", "ok"]
    methods = set(comp.verdicts["method"])
    assert {"lmem.tukey", "ranks.nemenyi", "ranks.wilcoxon_holm"} <= methods
    head = comp.reconciliation.headline
    # Geburek et al.: PriorBand is best at the full budget, whichever method is used.
    assert head.status == "ranked"
    assert head.tiers[0] == ["PB"]
    assert comp.conflicts.empty
    # Each prior quality is its own scope, for both families.
    scopes = {r.scope_label for r in comp.rankings}
    assert {"all benchmarks, prior=at25", "all benchmarks, prior=bad"} <= scopes


def test_priorband_early_budget_lmem_and_ranks_differ_and_the_report_says_why(priorband):
    need("ranks", "friedman")
    need("lmem", "fit")
    comp = compare(priorband, analyses=["ranks", "lmem"], budget=3.0, progress=False)
    pooled = comp.conflicts[comp.conflicts["metafeature"].isna()]
    lmem_vs_ranks = pooled[
        (pooled["method_1"] == "lmem.tukey") & pooled["method_2"].str.startswith("ranks.")
    ]
    assert len(lmem_vs_ranks)
    # Every LMEM-vs-rank disagreement is explained by what the methods treat as a unit
    # (3,600 runs against 24 benchmarks) and by raw scores against ranks.
    for rules in lmem_vs_ranks["rules"]:
        assert {"replication_unit", "score_scale"} <= set(rules.split(","))
    # Power: where only one family decides, the LMEM is the one that does, and the
    # report attributes it to the number of units each method counts as independent.
    power = lmem_vs_ranks[lmem_vs_ranks["kind"] == "power"]
    assert len(power)
    assert (power["outcome_2"] == "inconclusive").all()
    assert power["explanation"].str.contains("3,600").all()
    assert power["explanation"].str.contains(r"\(24\)").all()
    decided = comp.verdicts.groupby("method")["winner"].apply(lambda w: w.notna().sum())
    assert decided["lmem.tukey"] >= decided["ranks.nemenyi"]
    # No consensus ranking where the families disagree; sample-size guidance instead.
    head = comp.reconciliation.headline
    assert head.status == "inconclusive"
    assert head.guidance and all("benchmark" in g for g in head.guidance)


def test_example_data_run_every_analysis_and_validate():
    """On random-search trials with a trial order, all four families apply and reconcile."""
    for module, attribute in (("tuning", "from_results"), ("dse", "distribution"),
                              ("ranks", "friedman"), ("lmem", "fit")):
        need(module, attribute)
    try:
        from benchverdict.examples import load_example

        example = load_example()
    except (ImportError, FileNotFoundError) as err:
        pytest.skip(f"the example data are missing: {err}")
    small = example.subset(algorithms=example.algorithms[:3], benchmarks=example.benchmarks[:5])
    comp = compare(small, progress=False)
    assert {r.name: r.status for r in comp.runs} == {
        "tuning": "ok", "dse": "ok", "ranks": "ok", "lmem": "ok"}, comp.warnings
    assert set(comp.verdicts["module"]) == {"tuning", "dse", "ranks", "lmem"}
    # Rank tests and the LMEM judge the final budget (20 trials); DSE single draws (budget 1).
    v = comp.verdicts
    assert (v.loc[v["module"] == "dse", "budget_high"] == 1).all()
    assert comp.reconciliation.final_budget == 20
    # Every disagreement is explained, and the sanity section has the LMEM checks.
    assert (comp.conflicts["explanation"].str.len() > 0).all()
    lmem_run = next(r for r in comp.runs if r.name == "lmem")
    assert {c["name"] for c in lmem_run.sanity} >= {"seed dependency",
                                                     "benchmark informativeness"}
    jsonschema = pytest.importorskip("jsonschema")
    from benchverdict.report.render import load_schema

    jsonschema.validate(comp.to_dict(), load_schema())
