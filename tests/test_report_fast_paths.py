"""The report's fast paths (issue 25) give what the plain paths they replace gave.

report.json streamed (a verdict encoded field by field, records made
column-wise a chunk at a time, the text written piece by piece), matrix cells
whose texts are made when read, the glossary regex, CSV neutralisation per
distinct value: each is checked against the generic path on a small case.
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pandas as pd
import pytest

from benchverdict import Results
from benchverdict._safe_output import _neutralise_column, neutralise_cell, write_csv
from benchverdict.report import json_format, prose, render, summary
from benchverdict.report.document import Rows
from benchverdict.report.glossary import GLOSSARY
from benchverdict.report.runner import compare
from benchverdict.verdict import (
    VERDICT_COLUMNS,
    Effect,
    Evidence,
    Scope,
    SingleDraw,
    Verdict,
    _encode,
    metafeature_label,
    verdict_to_dict,
    verdicts_to_frame,
)


@pytest.fixture(scope="module")
def comparison():
    # 11 algorithms x 8 benchmarks: 55 pairs, so more than 50 verdicts and relations (the
    # long-list layout), in a second or two.
    rng = np.random.default_rng(25)
    rows = [{"algorithm": f"alg{i}", "benchmark": f"b{j}", "seed": s,
             "score": i * 2.0 + j + rng.normal()}
            for i in range(11) for j in range(8) for s in range(2)]
    results = Results.from_frame(pd.DataFrame(rows), algorithm="algorithm",
                                 benchmark="benchmark", seed="seed", score="score",
                                 objective="maximize", kind="runs")
    return compare(results, analyses=["ranks", "lmem"], progress=False, figures=False)


def _reference(comparison) -> dict:
    """The records as the report made them before issue 25: generic encoders, every row."""
    rec = comparison.reconciliation

    def records(frame: pd.DataFrame) -> list[dict]:
        return [{str(k): render._plain(v) for k, v in row.items()}
                for row in frame.to_dict("records")]

    return {"verdicts": [_encode(v) for v in rec.verdicts],
            "relations": records(rec.relations),
            "agreement_rows": records(rec.agreement),
            "conflict_rows": records(rec.conflicts)}


def _without_time(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "generated_at"}


def test_streamed_json_is_the_rendered_text_and_the_generic_records(comparison, tmp_path,
                                                                   monkeypatch):
    # Small chunks, so that records cross chunk boundaries.
    monkeypatch.setattr(render, "_CHUNK", 4)
    doc = comparison.document()
    path = tmp_path / "report.json"
    json_format.write_json(doc, path)
    streamed = json.loads(path.read_text(encoding="utf-8"))
    rendered = json.loads(json_format.render_json(doc))
    assert _without_time(streamed) == _without_time(rendered)
    assert _without_time(json.loads(json_format.render_json(doc, indent=None))) == \
        _without_time(streamed)
    ref = _reference(comparison)
    assert len(ref["verdicts"]) > 50 and len(ref["relations"]) > 50
    assert streamed["verdicts"] == ref["verdicts"]
    assert streamed["relations"] == ref["relations"]
    assert [(r["a"], r["b"], r["benchmark"], r["reason"]) for r in streamed["agreement"]] == [
        (r["a"], r["b"], r["benchmark"], r["reason"]) for r in ref["agreement_rows"]]
    assert len(streamed["conflicts"]) == len(ref["conflict_rows"])
    # The dict the API returns has every row, as lists.
    full = json_format.report_document(doc)
    assert isinstance(full["verdicts"], list)
    assert _without_time(full) == _without_time(streamed)


def test_the_layout_is_unchanged(comparison):
    """One compact record per line in long lists (orjson's: no space after separators),
    the rest indented as json indents it."""
    text = json_format.render_json(comparison.document())
    lines = text.splitlines()
    start = lines.index('  "verdicts": [')
    assert lines[start + 1].startswith('    {"a":"') and lines[start + 1].endswith("},")
    assert '    "analyses": ["' in text  # short lists as json writes them
    assert text.startswith('{\n  "schema": "benchverdict.report",\n')


def test_a_lone_surrogate_is_escaped_in_the_streamed_file_too(comparison, tmp_path):
    doc = comparison.document()
    odd = Verdict("x\udc80", "y", "a", "ranks.nemenyi", Scope(),
                  Evidence("p_value", 0.01, 0.05), "maximize", "made up")
    rec = doc.records.get()
    records = type(rec)(verdicts=Rows(60, lambda: iter([[verdict_to_dict(odd)] * 60])),
                        agreement=rec.agreement, conflicts=rec.conflicts,
                        method_agreement=rec.method_agreement, rankings=rec.rankings,
                        relations=rec.relations)

    class Doc:
        def __getattr__(self, name):
            return getattr(doc, name)

    fake = Doc()
    fake.records = type(doc.records)(lambda: records)
    path = tmp_path / "report.json"
    json_format.write_json(fake, path)
    text = path.read_text(encoding="ascii")  # escaped: ASCII only
    assert "\\udc80" in text
    assert json.loads(text)["verdicts"][0]["a"] == "x\udc80"
    assert text == json_format.render_json(fake).replace(
        json.loads(json_format.render_json(fake))["generated_at"],
        json.loads(text)["generated_at"])


_VERDICTS = [
    Verdict("A", "B", "a", "ranks.nemenyi", Scope(), Evidence("p_value", 0.003, 0.05),
            "minimize", "x", n=12),
    Verdict("A", "B", "inconclusive", "tuning.median_band",
            Scope("bench", metafeature=(("prior", "good"),), trials_low=1, trials_high=5),
            Evidence("band", None, 0.8, "weak"), "maximize", "y",
            effect=Effect("median difference", np.float64(0.5), -math.inf, math.nan, 0.8),
            unit="run", n=np.int64(40), details={"k": np.float32(2.0), "v": [1, math.inf],
                                                 "t": (1, "a"), 3: None},
            lean="a", p_value=np.float64(0.2), p_one_sided=(0.1, np.float64(0.9)),
            parameter=0.95, caveats=("ties",), sizes=(np.int64(3), 4), estimand="benchmark",
            no_vote="draws share a run", pooling="intersection-union",
            single_draw=SingleDraw(0.7, 0.6, math.nan, None)),
    Verdict("A", "B", "b", "dse.cvar", Scope(budget_low=1.0, budget_high=2.0),
            Evidence("confidence", level=0.95), "maximize", "z",
            effect=Effect("d", math.inf), p_one_sided=[0.5, 0.5]),
]


@pytest.mark.parametrize("verdict", _VERDICTS)
def test_the_field_by_field_encoder_is_the_generic_one(verdict):
    fast, generic = verdict_to_dict(verdict), _encode(verdict)
    assert fast == generic
    assert json.dumps(fast) == json.dumps(generic)  # keys in the same order too


def test_column_wise_records_are_plain_values():
    frame = pd.DataFrame({
        "f": [1.5, math.nan, math.inf], "i": [1, 2, 3], "b": [True, False, True],
        "s": pd.array(["x", None, "z"], dtype="string"),
        "o": [np.float64(2.0), pd.NA, (1, np.int64(2))], 7: ["a", "b", "c"]})
    generic = [{str(k): render._plain(v) for k, v in row.items()}
               for row in frame.to_dict("records")]
    assert render._records(frame) == generic
    assert [r for chunk in render._record_chunks(frame, 2) for r in chunk] == generic


def test_lazy_cells_are_the_cells_they_stand_for(comparison):
    rec = comparison.reconciliation
    summaries = summary.scope_summaries(rec, list(comparison.algorithms))
    assert summaries[0] is summary.scope_summaries(rec, list(comparison.algorithms))[0]
    kinds = set()
    for s in summaries:
        rel = rec.scopes[s.scope]
        decimals = summary.effect_decimals(*((r.effect.upper - r.effect.lower) / 2.0
                                             for r in rel.relations if r.effect is not None))
        for r in rel.relations:
            for x, y in ((r.a, r.b), (r.b, r.a)):
                full = summary._full_cell(r, x, y, decimals)
                lazy = s.cells[(x, y)]
                assert lazy.kind == full.kind and lazy == full and full == lazy
                assert (lazy.text, lazy.title, lazy.short, lazy.effect) == (
                    full.text, full.title, full.short, full.effect)
                kinds.add(full.kind)
    assert {"better", "worse"} <= kinds


def _old_regex(entries, html=False):
    """The glossary regex before issue 25: the word-start test in every alternative."""
    def pattern(spelling):
        body = __import__("re").escape(spelling)
        if html:
            body = body.replace("'", "(?:'|&\\#39;|&\\#x27;)")
        return rf"(?<![\w-]){body}(?![\w])"

    parts = sorted((s for e in entries for s in e.spellings), key=len, reverse=True)
    alternatives = [(pattern(s) if not s.isupper() and not s[:2].isupper() else
                     "(?-i:" + pattern(s) + ")") for s in parts]
    return __import__("re").compile("|".join(alternatives), __import__("re").IGNORECASE)


@pytest.mark.parametrize("html", [False, True])
def test_the_glossary_regex_matches_where_it_did(comparison, html):
    page = comparison.to_markdown()
    text = page + " a power-gap, Power Gaps, GLRT glrt, x-CVaR, l'LMEM, don&#39;t p-values"
    new, _ = prose._compile(tuple(GLOSSARY), html)
    old = _old_regex(GLOSSARY, html)
    assert [m.span() for m in new.finditer(text)] == [m.span() for m in old.finditer(text)]


def test_csv_neutralisation_per_distinct_value_is_per_cell(tmp_path):
    column = pd.Series(["=1+1", "SVM", None, "-0.5", "=1+1", "@x", math.nan, "+cmd", "SVM"] * 3)
    expected = column.astype(object).map(neutralise_cell)
    assert _neutralise_column(column).astype(object).tolist() == expected.tolist()
    mixed = pd.Series([["=x"], "=y", 1.5], dtype=object)  # unhashable cells: one by one
    assert _neutralise_column(mixed).tolist() == mixed.map(neutralise_cell).tolist()
    # The file is what neutralising every cell wrote.
    frame = pd.DataFrame({"s": column, "t": pd.Series(["a", "b", None] * 9, dtype="string"),
                          "c": pd.Categorical(["=c", "d", "d"] * 9),
                          "k": pd.Categorical(["c", "d, e", None] * 9),
                          "q": ['say "x"', "a,b", "\n"] * 9,
                          "o": pd.Series(["p", None, 1.5] * 9, dtype=object),
                          "x": np.arange(27.0)})
    write_csv(frame, tmp_path / "new.csv")
    old = frame.copy()
    for name in ("s", "t", "c", "k", "q", "o"):
        old[name] = old[name].astype(object).map(neutralise_cell)
    old.to_csv(tmp_path / "old.csv", index=False, errors="backslashreplace")
    assert (tmp_path / "new.csv").read_bytes() == (tmp_path / "old.csv").read_bytes()


def test_the_verdict_frame_built_by_column_is_the_one_built_by_record(comparison):
    def by_record(verdicts):
        rows = []
        for v in verdicts:
            e, s, x = v.effect, v.scope, v.evidence
            rows.append({
                "a": v.a, "b": v.b, "outcome": v.outcome, "winner": v.winner,
                "lean": v.leans_to, "method": v.method_label, "module": v.module,
                "benchmark": s.benchmark, "budget_low": s.budget_low,
                "budget_high": s.budget_high, "trials_low": s.trials_low,
                "trials_high": s.trials_high, "metafeature": metafeature_label(s.metafeature),
                "evidence_kind": x.kind, "evidence_value": x.value, "evidence_level": x.level,
                "strength": x.strength, "effect_name": None if e is None else e.name,
                "effect": None if e is None else e.estimate,
                "effect_lower": None if e is None else e.lower,
                "effect_upper": None if e is None else e.upper,
                "effect_confidence": None if e is None else e.confidence,
                "objective": v.objective, "unit": v.unit, "n": v.n,
                "explanation": v.explanation})
        return pd.DataFrame(rows, columns=VERDICT_COLUMNS)

    verdicts = comparison.reconciliation.verdicts
    for chosen in (verdicts, _VERDICTS, _VERDICTS[:1], verdicts[:3] + _VERDICTS[1:], []):
        pd.testing.assert_frame_equal(verdicts_to_frame(chosen), by_record(chosen))


@pytest.mark.parametrize("status", list(summary.Status))
def test_a_cells_kind_by_look_up_is_its_status_cells_kind(status):
    # _cell_kind is a table look-up; _status_cell decides the kind branch by branch.
    winner = "A" if status in (summary.Status.SETTLED, summary.Status.IMPLIED) else None
    rel = summary.Relation("A", "B", status, winner=winner,
                           loser="B" if winner else None, reason="r")
    for x, y in (("A", "B"), ("B", "A")):
        assert summary._cell_kind(rel, x) == summary._status_cell(rel, x, y).kind
    # A status read back as its plain text finds the same kind.
    plain = summary.Relation("A", "B", status.value, winner=winner,
                             loser="B" if winner else None, reason="r")
    assert summary._cell_kind(plain, "B") == summary._cell_kind(rel, "B")


def test_a_relation_is_found_in_either_orientation(comparison):
    for rel in comparison.reconciliation.scopes.values():
        for r in rel.relations:
            assert rel.status_of(r.a, r.b) is r and rel.status_of(r.b, r.a) is r
        assert rel.status_of("no such", rel.relations[0].a) is None


@pytest.mark.parametrize("objective", ["maximize", "minimize"])
def test_per_benchmark_verdicts_state_their_contrast_rows(objective):
    # Each verdict is its contrast row, read column-wise: the same numbers, the
    # interval ends in order, the outcome by the Holm-adjusted p, one scope per benchmark.
    from scipy import stats

    from benchverdict.lmem.per_benchmark import per_benchmark_contrasts, per_benchmark_verdicts

    rng = np.random.default_rng(3)
    rows = [{"algorithm": f"a{i}", "benchmark": f"b{j}", "seed": s,
             "score": ((3 * i) % 5 - 2.0) * (j % 3) + rng.normal()}
            for i in range(5) for j in range(4) for s in range(6)]
    results = Results.from_frame(pd.DataFrame(rows), algorithm="algorithm",
                                 benchmark="benchmark", seed="seed", score="score",
                                 objective=objective, kind="runs")
    table = per_benchmark_contrasts(results.final().table)
    verdicts = per_benchmark_verdicts(results, alpha=0.05)
    assert len(verdicts) == len(table) == 4 * 10
    sign = 1.0 if objective == "maximize" else -1.0
    scopes = {}
    for v, r in zip(verdicts, table.itertuples(index=False)):
        assert (v.a, v.b, v.scope.benchmark) == (r.a, r.b, r.benchmark)
        assert scopes.setdefault(r.benchmark, v.scope) is v.scope
        # The wider of the model's and the pair's own Welch interval (intersection-union).
        half = max(stats.t.ppf(1 - 0.05 / 2 / 10, r.df) * r.se,
                   stats.t.ppf(1 - 0.05 / 2 / 10, r.df_welch) * r.se_welch)
        ends = sorted([sign * (r.estimate - half), sign * (r.estimate + half)])
        assert v.effect.estimate == pytest.approx(sign * r.estimate, abs=0, rel=0)
        assert (v.effect.lower, v.effect.upper) == pytest.approx(tuple(ends), rel=1e-15)
        assert v.effect.lower <= v.effect.estimate <= v.effect.upper
        assert v.p_value == r.p_value_iu == max(r.p_value, r.p_value_welch)
        assert v.evidence.value == r.p_value_adjusted
        assert v.outcome == (("a" if sign * r.estimate > 0 else "b")
                             if r.p_value_adjusted < 0.05 else "inconclusive")
        assert v.sizes == (r.n_a, r.n_b) and v.n == r.n_a + r.n_b
        assert f"t({r.df:g}) = {r.statistic:.3g}" in v.explanation
        assert f"{r.estimate:+.4g}" in v.explanation and v.explanation.startswith(
            f"on {r.benchmark}, {r.a} - {r.b}")
    assert {v.outcome for v in verdicts} == {"a", "b", "inconclusive"} and len(scopes) == 4


def test_a_benchmarks_effects_come_from_its_own_rows_split_once():
    # The per-benchmark effects read each benchmark's rows from one split of the table;
    # they must be what selecting that benchmark's rows gives, names that look alike
    # as text included (1 and "1" are one benchmark name once made text).
    from benchverdict.analysis import Options
    from benchverdict.effects.pairwise import effects_from_frame
    from benchverdict.report.effect_sizes import compared_scores, scope_effects

    rng = np.random.default_rng(7)
    rows = [{"algorithm": f"a{i}", "benchmark": f"b{j}", "seed": s,
             "score": (i * 0.3) * (j % 4) + rng.normal()}
            for i in range(4) for j in [3, 10, 1, 7, 2] for s in range(3)]
    frame = pd.DataFrame(rows).sample(frac=1.0, random_state=1)  # benchmarks interleaved
    results = Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
                                 seed="seed", score="score", objective="minimize", kind="runs")
    options = Options(margin=0.5)
    scores = compared_scores(results, options)
    source = scope_effects(scores, options)
    raw = scores.data.table
    algs = ["a0", "a1", "a2", "a3"]
    for bench in ["b1", "b10", "b2", "b3", "b7"]:
        got = source((bench, ()), algs)
        mine = raw[raw["benchmark"].astype(str) == bench]
        want = effects_from_frame(mine, algorithms=algs, estimand="benchmark",
                                  objective="minimize", alpha=options.alpha,
                                  unit="score", margin=options.margin)
        assert got.effects == want.effects and len(got.effects) == 6
    assert source(("no such", ()), algs) is None or not source(("no such", ()), algs).effects


# --------------------------------------------- tables built column-wise, strings shared
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_CELL = st.one_of(st.none(), st.text(max_size=3), st.integers(-5, 5),
                  st.floats(allow_nan=True, allow_infinity=False), st.booleans(),
                  st.tuples(st.text(max_size=2), st.text(max_size=2)))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.fixed_dictionaries({}, optional={c: _CELL for c in "pqrs"}), max_size=6),
       st.sampled_from([list("pqrs"), list("sq"), list("rpqs")]))
def test_records_frame_is_the_plain_frame_with_text_as_objects(rows, columns):
    """The column-wise builder equals ``_text_none`` of ``pd.DataFrame(rows)``, dtypes too,
    from a list or from an iterator read in parts of two rows."""
    reconcile_module = sys.modules["benchverdict.report.reconcile"]
    old = reconcile_module._text_none(pd.DataFrame(rows, columns=columns))
    part_rows = reconcile_module.RECORDS_PART_ROWS
    try:
        reconcile_module.RECORDS_PART_ROWS = 2
        from_iterator = reconcile_module.records_frame(iter(rows), columns)
    finally:
        reconcile_module.RECORDS_PART_ROWS = part_rows
    for new in (reconcile_module.records_frame(rows, columns), from_iterator):
        pd.testing.assert_frame_equal(new, old, check_exact=True)
        for c in columns:
            assert [type(x) for x in new[c]] == [type(x) for x in old[c]], c


def test_records_frame_keeps_the_rows_own_strings():
    """No copy per cell: the text cells are the rows' string objects (not Arrow round trips)."""
    names = ["".join(["algorithm-", str(i)]) for i in range(50)]
    rows = [{"a": n, "p": 0.5} for n in names]
    frame = sys.modules["benchverdict.report.reconcile"].records_frame(rows, ["a", "p"])
    assert all(cell is name for cell, name in zip(frame["a"], names, strict=True))
    assert frame["a"].dtype == object and frame["p"].dtype == float


@pytest.mark.parametrize("values", [["SVM", "RF", "SVM", None], [1.5, 2.0, 1.5],
                                    ["x"] * 3, []])
def test_shared_values_is_tolist_with_one_object_per_value(values):
    from benchverdict._columns import shared_values

    column = pd.Series(values, dtype=None if values else object)
    got = shared_values(column)
    expected = column.tolist()
    assert len(got) == len(expected)
    assert all((g is e) or (g == e) or (g != g and e != e) for g, e in zip(got, expected))
    text = [g for g in got if isinstance(g, str)]
    assert len({id(t) for t in text}) == len(set(text))


@pytest.mark.parametrize("objective", ["maximize", "minimize"])
def test_per_benchmark_verdicts_made_once_equal_the_replaced_ones(objective):
    """The report's per-benchmark verdicts, made in their final form, equal the public
    function's verdicts with the scope, claim and details replaced afterwards."""
    import dataclasses

    from benchverdict.lmem.per_benchmark import _per_benchmark_verdicts, per_benchmark_verdicts
    from benchverdict.lmem.simulate import simulate_results
    from benchverdict.verdict import Scope, replaced

    res = simulate_results(n_benchmarks=3, n_seeds=6, algorithm_effect={"A": -1.0, "C": 0.5},
                           seed=3)
    if objective != res.objective:
        res = Results.from_frame(res.table.assign(score=-res.table["score"]),
                                 algorithm="algorithm", benchmark="benchmark", seed="seed",
                                 budget="budget", score="score", objective=objective,
                                 kind=res.kind)
    scope = Scope(budget_low=5.0, budget_high=5.0)
    extra = {"rows_left_out": 2, "unit_of_replication": "run"}
    once = _per_benchmark_verdicts(res, alpha=0.05, budget=None, scope=scope, details=extra,
                                   claim=True)
    after = [replaced(v, explanation=v.explanation.rstrip(".")
                      + f" (on benchmark {v.scope.benchmark}).",
                      scope=dataclasses.replace(scope, benchmark=v.scope.benchmark),
                      details={**v.details, **extra})
             for v in per_benchmark_verdicts(res, alpha=0.05)]
    assert len(once) == len(after) > 0
    assert once == after
    assert [list(v.details) for v in once] == [list(v.details) for v in after]


_JSON_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.text(max_size=4),
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(allow_nan=False, allow_infinity=False).map(np.float64),
    st.integers(-5, 5).map(np.int64), st.dates(), st.just(Scope(benchmark="b")))
_JSON_VALUE = st.recursive(
    _JSON_LEAF, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.tuples(inner, inner),
        st.dictionaries(st.one_of(st.text(max_size=3), st.integers(-3, 3)), inner,
                        max_size=3)), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(_JSON_VALUE)
def test_records_written_by_orjson_read_back_as_json_writes_them(value):
    """The fast record encoder gives the JSON value json gives: numbers, text, numpy
    scalars, dataclasses and dates (as their str), non-text keys, integers beyond 64 bits
    (written by json)."""
    fast = json_format._record_dumps(False)(value)
    assert json.loads(fast) == json.loads(json_format._dumps(False)(value))


def test_fewer_collections_restores_the_thresholds_and_nests():
    import gc

    from benchverdict._gc import FULL_THRESHOLD, YOUNG_THRESHOLD, fewer_collections

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with pytest.raises(RuntimeError), fewer_collections():
            inside = gc.get_threshold()
            with fewer_collections():
                assert gc.get_threshold() == inside
            assert gc.get_threshold() == inside
            raise RuntimeError
        assert inside[0] >= YOUNG_THRESHOLD and inside[2] >= FULL_THRESHOLD
        assert gc.get_threshold() == (700, 10, 10)  # restored, also on an exception
        gc.set_threshold(50_000, 20, 5_000)  # larger thresholds are kept
        with fewer_collections():
            assert gc.get_threshold() == (50_000, 50, 5_000)
    finally:
        gc.set_threshold(*before)


_ELEMENTS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=3),
    st.floats(allow_nan=True, allow_infinity=True), st.just(np.float64(1.5)),
    st.just(np.int64(2)), st.just((1, math.inf)), st.just({"k": math.nan}))


@settings(max_examples=300, deadline=None)
@given(st.lists(_ELEMENTS, max_size=8), st.booleans())
def test_a_list_of_plain_values_is_encoded_as_element_by_element(value, as_tuple):
    # The copy taken for lists of plain values must be what the element-wise
    # encoding gives: non-finite floats tagged, numpy scalars made plain, nested
    # containers encoded, bool kept apart from int.
    seq = tuple(value) if as_tuple else value
    def by_element(v):
        return [_encode(x) for x in v]
    got = _encode(seq)
    assert json.dumps(got) == json.dumps(by_element(seq))
    assert [type(x) for x in got] == [type(x) for x in by_element(seq)]
    assert got is not seq


def test_a_list_of_finite_floats_with_one_nan_is_tagged():
    assert _encode([1.0, 2.0, math.nan]) == [1.0, 2.0, {"$float": "nan"}]
    assert _encode([1.0, -math.inf]) == [1.0, {"$float": "-inf"}]
    assert _encode([True, 1, "x", None]) == [True, 1, "x", None]
