"""Every result object has a short repr and a notebook HTML summary (issue 11).

The repr of the example's tuning curves was over a million characters (numpy
arrays and nested curves); a REPL, a log or a traceback must print a few
lines instead: what the object is, how many, the headline numbers.
``_repr_html_`` gives a notebook the same summary and the head of the tidy
table, with every name escaped: an algorithm called ``<b>`` must not become
markup, nor one called ``$x$`` TeX for the notebook's MathJax.

Every case is built from data whose names are hostile: one algorithm is
called ``<b>`` and another ``$x$`` (and a benchmark ``<i>``), so the escaping
is checked on every result type, not on a toy.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd
import pytest

from benchverdict import Results, dse, lmem, ranks, tuning
from benchverdict import critical_difference as cdd
from benchverdict._repr import MAX_LINE, MAX_LINES, result_html, result_repr
from benchverdict.examples import load_example
from benchverdict.lmem.simulate import simulate_results
from benchverdict.ranks._examples import small_runs
from benchverdict.stats.cdf_bands import cdf_band

#: A repr is at most this many characters (MAX_LINES lines of MAX_LINE, with the indents).
MAX_REPR_CHARS = MAX_LINES * (MAX_LINE + 4)
#: The hostile names: markup and TeX.
TAG, TEX, BENCH = "<b>", "$x$", "<i>"
#: How each must appear in the HTML.
ESCAPED = {TAG: "&lt;b&gt;", TEX: "&#36;x&#36;", BENCH: "&lt;i&gt;"}


def hostile(results: Results, algorithms: dict[str, str], benchmark: str | None = None
            ) -> Results:
    """The same results with two algorithms (and a benchmark) renamed to hostile names."""
    t = results.table.copy()
    t["algorithm"] = t["algorithm"].astype(str).replace(algorithms)
    if benchmark is not None:
        t["benchmark"] = t["benchmark"].astype(str).replace({benchmark: BENCH})
    return Results.from_frame(t, algorithm="algorithm", benchmark="benchmark", seed="seed",
                              budget="budget" if results.has_budget else None, score="score",
                              objective=results.objective, metafeatures=results.metafeatures,
                              kind=results.kind)


@cache
def example() -> Results:
    # LR is far behind on circles, SVM's draws spread widest: both stay in the headlines
    return hostile(load_example(), {"LR": TAG, "MLP": TEX}, benchmark="digits")


@cache
def runs() -> Results:
    return hostile(small_runs(), {"PB": TAG, "HB": TEX}, benchmark="b0")


@cache
def simulated() -> Results:
    return hostile(simulate_results(n_seeds=4, seed=0), {"A": TAG, "B": TEX})


@cache
def curves():
    return tuning.from_results(example())


@cache
def model():
    return lmem.fit(simulated(), "score ~ algorithm + (1|benchmark)")


def metafeature_results() -> Results:
    rng = np.random.default_rng(1)
    df = pd.DataFrame([(a, t, m, s) for a in (TAG, TEX, "C") for t in ("t1", "t2")
                       for m in ("good", "bad") for s in range(6)],
                      columns=["alg", "task", "prior", "seed"])
    df["loss"] = rng.normal(size=len(df)) + (df["task"] == "t2") * 3.0
    df["bench"] = df["task"] + "_" + df["prior"]
    return Results.from_frame(df, algorithm="alg", benchmark="bench", seed="seed", score="loss",
                              objective="minimize", metafeatures=["task", "prior"], kind="trials")


def glrt():
    m0 = lmem.fit(simulated(), "score ~ 1 + (1|benchmark)", reml=False)
    m1 = lmem.fit(simulated(), "score ~ algorithm + (1|benchmark)", reml=False)
    return lmem.glrt(m0, m1)


def grouping():
    pos = pd.Series({TAG: 1.2, TEX: 2.0, "C": 2.8})
    nd = pd.DataFrame(True, index=pos.index, columns=pos.index)
    nd.loc[TAG, "C"] = nd.loc["C", TAG] = False
    return cdd.grouping(pos, nd)


def normal(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=n)


@dataclass(frozen=True)
class Case:
    """How to build one result type, and what its repr must mention."""

    make: Callable[[], object]
    #: Words the repr must contain: what it is and its headline numbers.
    keys: tuple[str, ...]
    #: Hostile names that must show in the HTML (escaped).
    names: tuple[str, ...] = ()


CASES = {
    "TuningCurves": Case(curves, ("100 median tuning curves: 5 algorithms x 20 benchmarks",
                                  "80%", "band", TAG, TEX, BENCH, "0 cell(s) excluded"),
                         (TAG, TEX)),
    "TuningCurve": Case(lambda: curves()[(TAG, BENCH)],
                        ("median tuning curve", TAG, "n = 200", "k = 1..200", "at k = 200:")),
    "TuningComparison": Case(lambda: curves().comparisons()[0],
                             (f"{TEX} vs {TAG}", "verdict(s)", "at k = 200:"), (TAG, TEX)),
    "CDFBand": Case(lambda: cdf_band(normal(0, 200), 0.8), ("CDF band", "n = 200", "0.8")),
    "DistributionResult": Case(lambda: dse.distribution(example()),
                               ("5 algorithms x 20 benchmark(s)", "CVaR_0.5", TAG, TEX,
                                "0 row(s) excluded"), (TAG, TEX)),
    "AggregateResult": Case(lambda: dse.aggregate(example(), n_resamples=200),
                            ("20 benchmarks", "5 algorithms", "iqm, best first", TAG, TEX,
                             "95% intervals"), (TAG, TEX)),
    "DominanceTest": Case(lambda: dse.dominance_test(normal(0, 80), normal(1, 90)),
                          ("dominance", "p(a better)", "n = 80, 90")),
    "StepBand": Case(lambda: dse.intervals.step_band(normal(0, 300)), ("step band", "300")),
    "Interval": Case(lambda: dse.interval(normal(0, 300), "mean"), ("mean = ", "95%")),
    "SingleDrawTest": Case(lambda: dse.single_draw_test(normal(0, 80), normal(1, 90)),
                           ("P(a single draw of A beats one of B)", "p = ", "unit: draw")),
    "PermutationTest": Case(lambda: dse.cvar_permutation_test(normal(0, 80), normal(1, 90), 0.5,
                                                             n_resamples=99),
                            ("CVaR permutation test", "p = ")),
    "FriedmanResult": Case(lambda: ranks.friedman(runs(), n_resamples=0),
                           ("Friedman chi2", "p = ", "best first", TAG, TEX), (TAG, TEX)),
    "AutorankResult": Case(lambda: ranks.autorank(runs()), ("autorank", "p = ", TAG, TEX),
                           (TAG, TEX)),
    "AnytimeRanks": Case(lambda: ranks.anytime_ranks(runs()),
                         ("3 algorithms at 3 budget(s)", "at budget 3, best first", TAG, TEX),
                         (TAG, TEX)),
    "WinTieLossResult": Case(lambda: ranks.win_tie_loss(runs()),
                             ("3 pair(s)", "sign test", f"{TEX} vs {TAG}", "(p = ",
                              "row(s) excluded"), (TAG, TEX)),
    # "$x$" sorts first, so it is the reference level and only "<b>" names a coefficient
    "MixedModel": Case(model, ("score ~", "logLik", "n=72"), (TAG,)),
    "SanityReport": Case(lambda: lmem.sanity_checks(simulated()),
                         ("sanity check(s)", "seed_dependency", "benchmark_informativeness")),
    "SanityCheck": Case(lambda: lmem.seed_dependency(simulated()),
                        ("seed_dependency", "alpha = 0.05", "data: ")),
    "MetafeatureAnalysis": Case(lambda: lmem.metafeature_analysis(
        metafeature_results(), (TAG, TEX), "prior", by="task"),
        (f"{TAG} - {TEX} by prior", "2 group(s)", "depends on prior in", "p = ")),
    "DifferenceClusters": Case(lambda: lmem.difference_clusters(
        metafeature_results(), (TAG, TEX)),
        (f"{TAG} - {TEX} on 4 benchmark(s)", "Tukey", "benchmark pair(s) differ")),
    "GLRTResult": Case(glrt, ("GLRT chi2", "df = 2", "p = ")),
    "Grouping": Case(grouping, ("2 group(s)", TAG, TEX), (TAG, TEX)),
    "PerformanceProfile": Case(lambda: dse.performance_profile(example(), n_resamples=50),
                               ("performance profiles of 5 algorithm(s) over 20 benchmark(s)",
                                "bands (50 resamples)", TAG, TEX), (TAG, TEX)),
    "ImprovementProbabilities": Case(
        lambda: dse.improvement_probabilities(runs(), n_resamples=50),
        ("probability of improvement for 3 pair(s)", f"P({TEX} > {TAG})"), (TAG, TEX)),
}


def test_every_public_result_class_has_a_case():
    """A new result class in tuning/, lmem/, ranks/ or dse/ must join CASES (or be exempt)."""
    import inspect

    import benchverdict.critical_difference

    not_results = {"Formula", "FormulaError", "DegenerateFitError", "NestingError",
                   "BoundaryWarning"}
    public = {name for module in (tuning, lmem, ranks, dse)
              for name in getattr(module, "__all__", ())
              if inspect.isclass(getattr(module, name))} | {"Grouping"}
    assert inspect.isclass(benchverdict.critical_difference.Grouping)
    assert public - not_results - set(CASES) == set()


@pytest.mark.parametrize("name", sorted(CASES))
def test_repr_is_short_and_html_summarises_and_escapes(name):
    case = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = case.make()
    assert type(result).__name__ == name

    text = repr(result)
    assert len(text) <= MAX_REPR_CHARS, (name, len(text), text[:300])
    assert len(text.splitlines()) <= MAX_LINES, text
    assert name in text
    for key in case.keys:
        assert key in text, (key, text)
    # the repr is the class's own, not a dataclass field dump or object's default
    assert " at 0x" not in text and "array(" not in text, text

    html_text = result._repr_html_()
    assert html_text.startswith("<div") and html_text.rstrip().endswith("</div>")
    assert name in html_text
    assert "tex2jax_ignore" in html_text.split(">", 1)[0]  # MathJax leaves it alone
    # hostile names are escaped wherever they appear: never markup, never a TeX delimiter
    assert TAG not in html_text and BENCH not in html_text and "$" not in html_text
    for hostile_name in case.names:
        assert ESCAPED[hostile_name] in html_text, (hostile_name, html_text[:2000])
    table = getattr(result, "table", None)
    if isinstance(table, pd.DataFrame) and len(table) and len(table.columns):
        assert "<table" in html_text  # the head of the tidy table is shown
    assert len(html_text) < 20_000, len(html_text)


def test_tuning_curves_repr_was_megabytes_and_is_now_a_few_lines():
    # the measurement: repr(TuningCurves) of the example was 1,067,855 characters
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = repr(tuning.from_results(load_example()))
    assert len(text) < 500
    assert text.startswith("<TuningCurves: 100 median tuning curves: 5 algorithms x 20 "
                           "benchmarks")


def test_repr_shows_names_as_text():
    pos = pd.Series({"A\x00": 1.0, "B\u202e": 2.0})
    nd = pd.DataFrame(True, index=pos.index, columns=pos.index)
    text = repr(cdd.grouping(pos, nd))
    assert "\x00" not in text and "\u202e" not in text
    assert "\\x00" in text and "\\u202e" in text


class _Broken:
    table = pd.DataFrame({"algorithm": ["a" * 500]})

    def _summary_lines(self):
        raise RuntimeError("boom")


def test_a_failing_summary_still_gives_a_repr_and_long_text_is_cut():
    # a repr must never raise (it runs inside tracebacks and debuggers)
    assert result_repr(_Broken()) == "<_Broken: (summary unavailable: RuntimeError)>"
    html_text = result_html(_Broken())
    assert "a" * 80 not in html_text and "a" * 79 + "…" in html_text


def test_results_has_a_notebook_view():
    """Results shows what the data are, how they were read and the table's head (issue 25:
    it had no notebook HTML view); names are escaped; left-out rows are pointed to."""
    import pandas as pd

    from benchverdict.results import Results

    frame = pd.DataFrame({"alg": ["<script>x</script>", "b"] * 10, "seed": range(20),
                          "score": [0.1 * i for i in range(20)]})
    frame.loc[3, "score"] = float("nan")
    res = Results.from_frame(frame, algorithm="alg", seed="seed", score="score",
                             objective="maximize", kind="runs", on_invalid="drop")
    html = res._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "rows read as runs" in html and "left out: see .exclusions" in html
    assert "8 of 19 rows" in html
