"""Every result type of tuning/, dse/ and stats/ answers the one result protocol (issue 14).

``.table`` (a tidy DataFrame), ``.verdicts()`` (a list of Verdict),
``.plot(ax=None, **kw)`` returning the Axes it drew on, ``summary()`` (a
str, also ``str(obj)``), a short ``repr`` and ``_repr_html_``. The test
records (QuantileTest, DominanceTest, PermutationTest) name no algorithms and
keep no draws: they have the table, the summary and the reprs only.
"""

from __future__ import annotations

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from benchverdict.results import Results
from benchverdict.verdict import Verdict


def _trials() -> Results:
    rng = np.random.default_rng(0)
    rows = [(alg, task, s, float(np.clip(rng.normal(0.5 + shift, 0.15), 0.0, 1.0)))
            for task in ("p", "q") for alg, shift in (("A", 0.15), ("B", 0.0)) for s in range(40)]
    frame = pd.DataFrame(rows, columns=["alg", "task", "seed", "acc"])
    return Results.from_frame(frame, algorithm="alg", benchmark="task", seed="seed",
                              score="acc", objective="maximize", kind="trials")


def _tuning_curves():
    from benchverdict import tuning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # ties from the clipping
        return tuning.from_results(_trials(), low=0, high=1)


#: name -> (constructor, makes verdicts). The constructors are the snippets the
#: cross-module protocol test can reuse.
RESULTS = {
    "TuningCurve": (lambda: __import__("benchverdict.tuning", fromlist=["x"]).tuning_curve(
        np.random.default_rng(0).uniform(size=40), low=0, high=1, name="A"), False),
    "TuningCurves": (_tuning_curves, True),
    "TuningComparison": (lambda: _tuning_curves().comparisons()[0], True),
    "CDFBand": (lambda: __import__("benchverdict.stats", fromlist=["x"]).cdf_band(
        np.random.default_rng(0).uniform(size=40), 0.8, low=0, high=1), False),
    "DistributionResult": (lambda: __import__("benchverdict.dse", fromlist=["x"]).distribution(
        _trials(), pooled=True, low=0, high=1, n_resamples=200, n_permutations=99), True),
    "AggregateResult": (lambda: __import__("benchverdict.dse", fromlist=["x"]).aggregate(
        _trials(), n_resamples=200), True),
    "Interval": (lambda: __import__("benchverdict.dse", fromlist=["x"]).interval(
        np.random.default_rng(0).uniform(size=40), "cvar", cvar_level=0.5, low=0, high=1),
        False),
}


@pytest.fixture(params=sorted(RESULTS))
def result(request):
    make, compares = RESULTS[request.param]
    obj = make()
    assert type(obj).__name__ == request.param
    return obj, compares


def test_table_is_a_tidy_frame(result):
    obj, _ = result
    table = obj.table
    assert isinstance(table, pd.DataFrame) and len(table) and len(table.columns)
    assert table.columns.is_unique


def test_verdicts_is_a_list_of_verdicts(result):
    obj, compares = result
    verdicts = obj.verdicts()
    assert isinstance(verdicts, list) and all(isinstance(v, Verdict) for v in verdicts)
    # a single curve, band or interval compares nothing: the list is empty and says so
    assert bool(verdicts) == compares
    if not compares:
        assert "empty list" in type(obj).verdicts.__doc__


def test_plot_returns_the_axes_it_drew_on(result):
    obj, _ = result
    ax = obj.plot()
    assert isinstance(ax, plt.Axes)
    plt.close(ax.figure)
    fig, given = plt.subplots()
    assert obj.plot(ax=given) is given
    plt.close(fig)


def test_summary_is_the_str_and_the_reprs_are_short(result):
    obj, _ = result
    text = obj.summary()
    assert isinstance(text, str) and text and str(obj) == text
    shown = repr(obj)
    assert shown.startswith(f"<{type(obj).__name__}: ") and len(shown) < 1200
    assert "<div" in obj._repr_html_()


def test_test_records_have_a_table_a_summary_and_short_reprs():
    from benchverdict.dse import cvar_permutation_test, dominance_test
    from benchverdict.tuning.quantile_test import quantile_test

    rng = np.random.default_rng(1)
    a, b = rng.normal(1, 1, 60), rng.normal(0, 1, 60)
    for record in (quantile_test(a, b, 2), dominance_test(a, b),
                   cvar_permutation_test(a, b, 0.5, n_resamples=99)):
        assert isinstance(record.table, pd.DataFrame) and len(record.table) == 1
        assert str(record) == record.summary() and record.summary()
        assert repr(record).startswith(f"<{type(record).__name__}: ")
        assert "p_value" in " ".join(record.table.columns)


def test_plots_of_several_panels_return_their_first_axes():
    from benchverdict import dse

    d = dse.distribution(_trials(), low=0, high=1, n_resamples=200, n_permutations=99)
    ax = d.plot(kind="quantile")  # two benchmarks: two panels
    assert isinstance(ax, plt.Axes) and ax is ax.figure.axes[0]
    assert len([a for a in ax.figure.axes if a.get_visible()]) == 2
    plt.close(ax.figure)
    agg = dse.aggregate(_trials(), n_resamples=200, metrics=["iqm", "mean"])
    ax = agg.plot()
    assert isinstance(ax, plt.Axes) and len(ax.figure.axes) == 2
    plt.close(ax.figure)
    # one given axes: one panel (the headline metric, or the one asked for), never overdrawn
    fig, given = plt.subplots()
    assert agg.plot(ax=given) is given and given.get_title() == "IQM"
    assert len(given.patches) == 2
    plt.close(fig)
    fig, given = plt.subplots()
    assert agg.plot(ax=given, metric="mean").get_title() == "mean"
    with pytest.raises(ValueError, match="not computed"):
        agg.plot(metric="median")
    plt.close(fig)
    fig, given = plt.subplots()
    with pytest.raises(ValueError, match="benchmark="):
        d.plot(ax=given)
    assert len(d.plot(ax=given, benchmark="q").get_lines()) == 2
    plt.close(fig)
