"""Verdict: validation, flattening, and the lossless JSON round trip."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchverdict.verdict import (
    VERDICT_COLUMNS,
    Effect,
    Evidence,
    Scope,
    Verdict,
    verdicts_from_json,
    verdicts_to_frame,
    verdicts_to_json,
)

names = st.text(min_size=1, max_size=12)
floats = st.floats(allow_nan=True, allow_infinity=True)
maybe_float = st.none() | floats


@st.composite
def verdicts(draw):
    a = draw(names)
    b = draw(names.filter(lambda s: s != a))
    lo = draw(st.none() | st.floats(-1e6, 1e6))
    scope = Scope(
        benchmark=draw(st.none() | names),
        budget_low=lo,
        budget_high=None if lo is None else lo + draw(st.floats(0, 1e6)),
        metafeature=tuple(draw(st.lists(st.tuples(names, names), max_size=2))),
    )
    evidence = Evidence(
        kind=draw(st.sampled_from(["p_value", "confidence", "band", "posterior", "descriptive"])),
        value=draw(maybe_float),
        level=draw(maybe_float),
        strength=draw(st.none() | st.sampled_from(["weak", "fair", "strong"])),
    )
    effect = draw(st.none() | st.builds(Effect, names, floats, maybe_float, maybe_float,
                                        maybe_float))
    return Verdict(
        a=a, b=b, outcome=draw(st.sampled_from(["a", "b", "tie", "inconclusive"])),
        method=draw(st.sampled_from(["ranks.nemenyi", "tuning.median_band", "dse.cvar"])),
        scope=scope, evidence=evidence, objective=draw(st.sampled_from(["maximize", "minimize"])),
        explanation=draw(st.text(max_size=40)), effect=effect,
        unit=draw(st.text(max_size=10)), n=draw(st.none() | st.integers(0, 10**6)),
        details={"p": draw(floats), "names": draw(st.lists(names, max_size=3))},
    )


def _same(x, y):
    """Equality that treats nan as equal to nan, recursively."""
    if isinstance(x, float) and isinstance(y, float):
        return (math.isnan(x) and math.isnan(y)) or x == y
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(_same(x[k], y[k]) for k in x)
    if isinstance(x, (list, tuple)):
        return len(x) == len(y) and all(_same(a, b) for a, b in zip(x, y))
    if hasattr(x, "__dataclass_fields__"):
        return type(x) is type(y) and all(
            _same(getattr(x, f), getattr(y, f)) for f in x.__dataclass_fields__)
    return x == y


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(verdicts(), max_size=4))
def test_json_round_trip_is_lossless(vs):
    text = verdicts_to_json(vs)

    def refuse(constant):
        raise AssertionError(f"non-standard JSON constant {constant}")

    json.loads(text, parse_constant=refuse)  # strict JSON: no bare NaN/Infinity
    back = verdicts_from_json(text)
    assert len(back) == len(vs)
    assert all(_same(x, y) for x, y in zip(vs, back))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(verdicts())
def test_frame_has_one_row_per_verdict_and_winner(v):
    frame = verdicts_to_frame([v, v.swapped()])
    assert list(frame.columns) == VERDICT_COLUMNS
    assert frame.loc[0, "winner"] == frame.loc[1, "winner"] or v.outcome in ("tie",
                                                                            "inconclusive")


def test_validation():
    ev = Evidence("p_value", 0.01, 0.05)
    with pytest.raises(ValueError, match="outcome"):
        Verdict("a", "b", "win", "x.y", Scope(), ev, "maximize", "")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="two different"):
        Verdict("a", "a", "a", "x.y", Scope(), ev, "maximize", "")
    with pytest.raises(ValueError, match="budget_low"):
        Scope(budget_low=1.0)
    with pytest.raises(ValueError, match="kind"):
        Evidence("bayes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="schema_version"):
        verdicts_from_json('{"schema": "benchverdict.verdicts", "schema_version": 99}')


def test_str_and_swap():
    v = Verdict("PB", "RS", "a", "ranks.nemenyi", Scope(benchmark="LC", budget_low=5.0,
                budget_high=5.0), Evidence("p_value", 0.001, 0.05), "minimize", "fewer ranks",
                effect=Effect("rank difference", 1.2, 0.4, 2.0, 0.95))
    assert str(v).startswith("PB beats RS on benchmark LC, budget 5")
    s = v.swapped()
    assert s.winner == "PB" and s.a == "RS" and s.effect.estimate == -1.2
    assert (s.effect.lower, s.effect.upper) == (-2.0, -0.4)


def test_effect_interval_is_lower_upper_at_confidence_and_version_2_still_reads():
    from benchverdict.verdict import JSON_SCHEMA_VERSION, verdicts_to_frame

    v = Verdict("A", "B", "a", "ranks.nemenyi", Scope(), Evidence("p_value", 0.01, 0.05),
                "maximize", "", effect=Effect("rank difference", 1.2, 0.4, 2.0, 0.95))
    doc = json.loads(verdicts_to_json([v]))
    assert doc["schema_version"] == JSON_SCHEMA_VERSION == 5
    assert set(doc["verdicts"][0]["effect"]) == {"name", "estimate", "lower", "upper",
                                                  "confidence"}
    frame = verdicts_to_frame([v])
    assert frame[["effect_lower", "effect_upper", "effect_confidence"]].values.tolist() == [
        [0.4, 2.0, 0.95]]
    # A version-2 document (effect interval as low/high/level) reads into the new fields.
    old = json.loads(json.dumps(doc))
    old["schema_version"] = 2
    old["verdicts"][0]["effect"] = {"name": "rank difference", "estimate": 1.2, "low": 0.4,
                                    "high": 2.0, "level": 0.95}
    (back,) = verdicts_from_json(json.dumps(old))
    assert back == v
    # Version 1 (no lean) still reads as well.
    old["schema_version"] = 1
    del old["verdicts"][0]["lean"]
    assert verdicts_from_json(json.dumps(old))[0].effect == v.effect


def test_metafeature_label_is_one_spelling():
    from benchverdict.report.reconcile import group_label
    from benchverdict.verdict import metafeature_label, verdicts_to_frame

    meta = (("prior", "good"), ("task", "t1"))
    assert metafeature_label(meta) == "prior=good;task=t1"
    v = Verdict("A", "B", "a", "ranks.nemenyi", Scope(metafeature=meta),
                Evidence("p_value", 0.01, 0.05), "maximize", "")
    assert verdicts_to_frame([v])["metafeature"].tolist() == ["prior=good;task=t1"]
    assert str(v.scope).endswith("prior=good, task=t1")
    assert group_label((None, meta)) == "all benchmarks, prior=good, task=t1"


def test_scope_holds_budgets_and_trial_counts_apart():
    """Issue 21: budgets in the budget column's unit, k (random-search draws) on its own."""
    s = Scope("moons", trials_low=1, trials_high=5)
    assert (s.budget_low, s.axis, s.key, s.where(), str(s)) == (
        None, "trials", ("moons", ()), "k = 1-5", "benchmark moons, k = 1-5")
    b = Scope("moons", 3000.0, 3000.0)
    assert (b.axis, b.key, b.where()) == ("budget", s.key, "budget 3000")
    assert Scope().where(final_budget=5.0) == "final" and Scope().axis is None
    with pytest.raises(ValueError, match="trials_low"):
        Scope(trials_low=1.0)
    with pytest.raises(ValueError, match="trials_low 5"):
        Scope(trials_low=5.0, trials_high=1.0)
    v = Verdict("A", "B", "a", "tuning.median_band", s, Evidence("band", None, 0.95, "strong"),
                "maximize", "")
    assert verdicts_from_json(verdicts_to_json([v]))[0] == v
    assert verdicts_to_frame([v])[["budget_low", "trials_low", "trials_high"]].values.tolist() \
        == [[None, 1.0, 5.0]]


def test_version_3_tuning_and_dse_budgets_read_as_trial_counts():
    """Before version 4, tuning curves and DSE wrote k into budget_low/budget_high."""
    tuning = Verdict("A", "B", "a", "tuning.median_band", Scope("m", trials_low=1, trials_high=5),
                     Evidence("band", None, 0.95, "strong"), "maximize", "")
    dse = Verdict("A", "B", "a", "dse.cvar", Scope("m", trials_low=1, trials_high=1),
                  Evidence("p_value", 0.01, 0.05), "maximize", "")
    ranks = Verdict("A", "B", "a", "ranks.nemenyi", Scope(None, 20.0, 20.0),
                    Evidence("p_value", 0.01, 0.05), "maximize", "")
    old = json.loads(verdicts_to_json([tuning, dse, ranks]))
    old["schema_version"] = 3
    for d in old["verdicts"]:
        scope = d["scope"]
        if scope["trials_low"] is not None:
            scope["budget_low"], scope["budget_high"] = scope["trials_low"], scope["trials_high"]
        del scope["trials_low"], scope["trials_high"]
    assert verdicts_from_json(json.dumps(old)) == [tuning, dse, ranks]


@st.composite
def verdicts_with_int_or_float_budgets(draw):
    """Budgets and trial counts that are ints, floats or missing: a part without a
    missing value would be int64 on its own (and print "3" where the whole prints "3.0")."""
    v = draw(verdicts())
    number = st.none() | st.integers(0, 50) | st.floats(0, 50)
    lo, tr = draw(number), draw(number)
    scope = Scope(benchmark=v.scope.benchmark, budget_low=lo, budget_high=lo,
                  trials_low=tr, trials_high=tr, metafeature=v.scope.metafeature)
    from benchverdict.verdict import replaced
    return replaced(v, scope=scope, n=draw(st.none() | st.integers(0, 9)))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(verdicts_with_int_or_float_budgets(), max_size=7), st.integers(1, 4))
def test_verdict_frames_are_the_frame_in_parts_and_write_the_same_csv(tmp_path_factory, vs,
                                                                     rows):
    import pandas as pd

    from benchverdict._safe_output import write_csv, write_csv_parts
    from benchverdict.verdict import verdict_frames

    whole = verdicts_to_frame(vs)
    parts = list(verdict_frames(vs, size=rows))
    assert all(len(p) <= rows for p in parts) or not vs
    pd.testing.assert_frame_equal(pd.concat(parts), whole, check_exact=True)
    for part in parts:  # each part has the whole's dtypes, not its own
        assert part.dtypes.to_dict() == whole.dtypes.to_dict()
    d = tmp_path_factory.mktemp("csv")
    write_csv(whole, d / "whole.csv")
    write_csv_parts(verdict_frames(vs, size=rows), d / "parts.csv")
    assert (d / "parts.csv").read_bytes() == (d / "whole.csv").read_bytes()
