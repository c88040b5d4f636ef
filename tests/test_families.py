"""The family registry (issue 21, item 2): every list of analyses derives from it, and a
fifth family is one runner plus one registry entry."""

from __future__ import annotations

import itertools
import json
import warnings

import jsonschema
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict import Results
from benchverdict.analysis import AnalysisRun, Options
from benchverdict.families import (
    BUILTIN_FAMILIES,
    Family,
    families,
    family_names,
    get_family,
    leaderboard_families,
    register_family,
    registered,
)
from benchverdict.methods import METHODS, register_method
from benchverdict.report import compare
from benchverdict.report.render import SCHEMA_PATH, load_schema
from benchverdict.report.runner import applicability
from benchverdict.verdict import Effect, Evidence, Scope, Verdict


def test_the_committed_schema_lists_the_builtin_families_in_report_order():
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    options = schema["properties"]["options"]["properties"]["analyses"]["items"]["enum"]
    names = schema["properties"]["analyses"]["items"]["properties"]["name"]["enum"]
    assert options == names == list(BUILTIN_FAMILIES) == list(family_names())


def test_every_entry_is_consistent():
    entries = families()
    assert len({f.letter for f in entries}) == len({f.short for f in entries}) == len(entries)
    assert sorted(f.precedence for f in entries) == sorted({f.precedence for f in entries})
    for f in entries:
        assert callable(f.run_function())
    assert leaderboard_families() == tuple(f.name for f in entries if f.leaderboard)
    assert all(get_family(n).reads == "incumbents" for n in leaderboard_families())


@pytest.mark.parametrize("change, message", [
    (dict(name="Bad-Name"), "lower-case identifier"),
    (dict(reads="rows"), "reads must be one of"),
    (dict(letter="xy"), "one upper-case letter"),
    (dict(runner="no_colon"), "module:function"),
    (dict(reads="draws", leaderboard=True), "leaderboard ranks incumbents"),
])
def test_a_malformed_entry_is_refused_with_the_reason(change, message):
    fields = dict(name="demo", title="Demo", label="demo tests", short="demo", letter="X",
                  reads="incumbents", runner=f"{__name__}:run_fifth", precedence=9)
    with pytest.raises(ValueError, match=message):
        Family(**{**fields, **change})


def test_a_taken_name_or_letter_is_refused():
    with pytest.raises(ValueError, match="already registered"):
        register_family(get_family("ranks"))
    clash = Family("demo", "Demo", "demo tests", "demo", "R", "incumbents",
                   f"{__name__}:run_fifth", precedence=9)
    with pytest.raises(ValueError, match="already belong to 'ranks'"):
        register_family(clash)
    assert "demo" not in family_names()


def test_unknown_analysis_names_the_registered_ones():
    res = study()
    with pytest.raises(ValueError, match=r"choose from .*'lmem'"):
        compare(res, analyses=["nope"], progress=False)
    with pytest.raises(ValueError, match=r"known: .*'tuning'"):
        applicability(res, "nope")


# ----------------------------------------------------------------------------- a fifth family
FIFTH = Family(
    name="fifth", title="Paired t-tests on benchmark means (a test family)",
    label="paired t-tests", short="t-test", letter="P", reads="incumbents",
    runner=f"{__name__}:run_fifth", precedence=5)


def study(gap: float = 3.0) -> Results:
    """Three algorithms on 8 benchmarks x 3 seeds x 2 budgets; A is better by ``gap``."""
    rng = np.random.default_rng(5)
    rows = []
    for b in range(8):
        offset = rng.normal(0, 2)
        for alg in "ABC":
            for seed in range(3):
                base = offset + (gap if alg == "A" else 0.0) + rng.normal(0, 1)
                rows += [(alg, f"p{b}", seed, 1, base - 1.0), (alg, f"p{b}", seed, 2, base)]
    frame = pd.DataFrame(rows, columns=["alg", "bench", "seed", "budget", "score"])
    return Results.from_frame(frame, algorithm="alg", benchmark="bench", seed="seed",
                              budget="budget", score="score", objective="maximize")


def run_fifth(results: Results, options: Options) -> AnalysisRun:
    """Each pair: a paired t-test on the benchmarks' mean final scores, Bonferroni over pairs."""
    run = AnalysisRun("fifth", "ok")
    final = results.incumbents(None).table
    means = final.groupby(["benchmark", "algorithm"], observed=True)["score"].mean().unstack()
    pairs = list(itertools.combinations(results.algorithms, 2))
    for a, b in pairs:
        diff = means[a] - means[b]
        test = stats.ttest_1samp(diff, 0.0)
        p = float(test.pvalue)
        won = p <= options.alpha / len(pairs)
        run.verdicts.append(Verdict(
            a=a, b=b, outcome=("a" if diff.mean() > 0 else "b") if won else "inconclusive",
            method="fifth.paired_t", scope=Scope(), objective=results.objective,
            evidence=Evidence("p_value", min(1.0, p * len(pairs)), options.alpha),
            effect=Effect("mean difference", float(diff.mean())), unit="benchmark",
            n=int(diff.size), explanation=f"paired t-test over {diff.size} benchmarks",
            p_value=p, estimand="benchmarks"))
    run.tables["paired t-tests"] = pd.DataFrame(
        [{"a": v.a, "b": v.b, "p_value": v.p_value} for v in run.verdicts])
    return run


@pytest.fixture
def fifth_family():
    with registered(FIFTH):
        register_method("fifth.paired_t", "fifth", "paired t-test on benchmark means",
                        paired=True, unit="benchmark (mean over seeds)", aspect="centre",
                        assumptions="normal differences of benchmark means",
                        error_control="family-wise over pairs", votes=True, primary=True,
                        scale="raw")
        try:
            yield FIFTH
        finally:
            METHODS.pop("fifth.paired_t", None)


def test_a_fifth_family_votes_in_the_report_and_appears_in_every_format(fifth_family,
                                                                        tmp_path):
    assert family_names()[-1] == "fifth"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = compare(study(), analyses=["ranks", "fifth"], progress=False, figures=False,
                       sanity_checks=False)
    assert [r.name for r in comp.runs] == ["ranks", "fifth"]
    assert comp.runs[1].status == "ok" and comp.runs[1].title == FIFTH.title
    rel = comp.relations
    mine = rel[rel["families"].astype(str).str.contains("fifth")]
    assert len(mine) >= 2 and set(mine["winner"]) == {"A"}
    assert "paired t-tests" in comp.summary()
    doc = comp.to_dict()
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    assert [a["name"] for a in doc["analyses"]] == ["ranks", "fifth"]
    assert FIFTH.title in comp.to_markdown()
    assert FIFTH.title in comp.to_html()
    tex = comp.to_latex(tmp_path / "latex")
    assert "paired t-tests" in "".join(p.read_text(encoding="utf-8")
                                       for p in tex.parent.rglob("*.tex"))
    # A wide matrix names families by letter; the legend comes from the registry.
    legend = comp.document().summary.matrix.letters_legend
    assert legend == ("families: L LMEM, R rank tests, T tuning curves, D score "
                      "distributions, P paired t-tests"), legend


def test_after_removal_the_registry_and_schema_are_the_builtin_ones():
    with registered(FIFTH):
        assert "fifth" in load_schema()["properties"]["options"]["properties"]["analyses"][
            "items"]["enum"]
    assert family_names() == BUILTIN_FAMILIES
    assert load_schema()["properties"]["options"]["properties"]["analyses"]["items"][
        "enum"] == list(BUILTIN_FAMILIES)
    assert "fifth.paired_t" not in METHODS

