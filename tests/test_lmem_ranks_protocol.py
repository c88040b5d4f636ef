"""The one result protocol on every result type of lmem/, ranks/ and the CD grouping (#14).

Every result object has a tidy ``.table``, ``.verdicts()`` (a list of Verdict; empty where
the type compares no algorithms), ``.plot(ax=None, ...)`` returning the Axes, ``summary()``
with ``str()`` returning it, a short ``repr`` and ``_repr_html_``.
"""

from __future__ import annotations

import inspect
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes

from benchverdict import Results
from benchverdict._repr import MAX_LINE, MAX_LINES
from benchverdict.critical_difference import grouping
from benchverdict.lmem import (
    difference_clusters,
    fit,
    glrt,
    metafeature_analysis,
    sanity_checks,
    seed_dependency,
)
from benchverdict.lmem.simulate import simulate_results
from benchverdict.ranks import anytime_ranks, autorank, friedman, win_tie_loss
from benchverdict.ranks._examples import small_runs
from benchverdict.verdict import Verdict


def _metafeature_results() -> Results:
    rng = np.random.default_rng(0)
    df = pd.DataFrame([(a, b, m, s) for a in "AB" for b in ("t1", "t2")
                       for m in ("good", "bad") for s in range(8)],
                      columns=["alg", "task", "prior", "seed"])
    df["loss"] = rng.normal(size=len(df)) - 2.0 * ((df.alg == "A") & (df.prior == "good"))
    return Results.from_frame(df.assign(bench=df.task + "_" + df.prior), algorithm="alg",
                              benchmark="bench", seed="seed", score="loss",
                              objective="minimize", metafeatures=["task", "prior"])


def _glrt():
    res = simulate_results(n_benchmarks=3, n_seeds=6, algorithm_effect={"A": -1.0}, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return glrt(fit(res, "score ~ 1 + (1|benchmark)"),
                    fit(res, "score ~ algorithm + (1|benchmark)"))


#: name -> (builder, whether the type compares algorithms, i.e. has verdicts)
BUILDERS = {
    "FriedmanResult": (lambda: friedman(small_runs(), n_resamples=0), True),
    "AutorankResult": (lambda: autorank(small_runs(n_benchmarks=8)), True),
    "WinTieLossResult": (lambda: win_tie_loss(small_runs()), True),
    "AnytimeRanks": (lambda: anytime_ranks(small_runs(), n_resamples=20), True),
    "MixedModel": (lambda: fit(simulate_results(n_seeds=4, rng=0),
                               "score ~ algorithm + (1|benchmark)"), True),
    "GLRTResult": (_glrt, False),
    "SanityCheck": (lambda: seed_dependency(simulate_results(n_seeds=5, rng=1)), False),
    "SanityReport": (lambda: sanity_checks(simulate_results(n_seeds=5, budgets=(1, 2),
                                                            rng=3)), False),
    "MetafeatureAnalysis": (lambda: metafeature_analysis(_metafeature_results(), ("A", "B"),
                                                         "prior", by="task"), True),
    "DifferenceClusters": (lambda: difference_clusters(
        simulate_results(n_benchmarks=4, n_seeds=6, algorithm_effect={"A": -3.0}, rng=0),
        ("A", "B")), False),
    "Grouping": (lambda: grouping(pd.Series({"A": 1.0, "B": 2.0, "C": 3.0}),
                                  pd.DataFrame([[1, 1, 0], [1, 1, 1], [0, 1, 1]],
                                               index=list("ABC"),
                                               columns=list("ABC")).astype(bool)), False),
}


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def built(request):
    build, compares = BUILDERS[request.param]
    return request.param, build(), compares


def test_the_type_is_the_one_named(built):
    name, result, _ = built
    assert type(result).__name__ == name


def test_table_is_a_tidy_dataframe_property(built):
    _, result, _ = built
    assert isinstance(result.table, pd.DataFrame)
    assert not callable(result.table)
    assert len(result.table.columns) == len(set(result.table.columns))


def test_verdicts_is_a_list_of_verdicts(built):
    _, result, compares = built
    verdicts = result.verdicts()
    assert isinstance(verdicts, list)
    assert all(isinstance(v, Verdict) for v in verdicts)
    assert bool(verdicts) == compares
    if not compares:  # an empty list is documented, not silent
        assert "No verdicts" in inspect.getdoc(type(result).verdicts)


def test_plot_takes_ax_first_and_returns_the_axes(built):
    _, result, _ = built
    first = list(inspect.signature(type(result).plot).parameters.values())[1]
    assert first.name == "ax" and first.default is None
    ax = result.plot()
    assert isinstance(ax, Axes)
    plt.close(ax.figure)


def test_plot_draws_into_a_given_axes(built):
    name, result, _ = built
    if name == "SanityReport" and len(result.checks) > 1:
        fig, ax = plt.subplots()
        with pytest.raises(ValueError, match=r"report\[name\]\.plot\(ax=ax\)"):
            result.plot(ax=ax)
        plt.close(fig)
        return
    fig, ax = plt.subplots()
    assert result.plot(ax=ax) is ax
    plt.close(fig)


def test_summary_is_what_str_prints(built):
    _, result, _ = built
    text = result.summary()
    assert isinstance(text, str) and text.strip()
    assert str(result) == text


def test_repr_is_short_and_html_exists(built):
    _, result, _ = built
    text = repr(result)
    lines = text.splitlines()
    assert 1 <= len(lines) <= MAX_LINES
    assert all(len(line) <= MAX_LINE + 4 for line in lines)
    html = result._repr_html_()
    assert isinstance(html, str) and html.startswith("<div")
