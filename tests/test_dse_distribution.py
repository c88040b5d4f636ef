"""DSE distribution(): tables, pooling, verdicts, plots, and the trials/runs contract."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from benchverdict import Results
from benchverdict.dse import cvar, distribution
from benchverdict.dse.distribution import POOLED


def _results(objective="maximize", n=60, seed=0, scales=(1.0, 10.0)):
    rng = np.random.default_rng(seed)
    rows = []
    names = ("p", "q") if len(scales) == 2 else [f"b{i}" for i in range(len(scales))]
    for bench, scale in zip(names, scales):
        for alg, shift in (("A", 0.3), ("B", 0.0), ("C", 0.15)):
            for s in range(n):
                rows.append((alg, bench, s, scale * (rng.uniform() * 0.7 + shift)))
    df = pd.DataFrame(rows, columns=["alg", "task", "seed", "acc"])
    if objective == "minimize":
        df["acc"] = 10.0 - df["acc"]
    return Results.from_frame(df, algorithm="alg", benchmark="task", seed="seed", score="acc",
                              objective=objective, kind="trials")


def test_table_matches_the_statistics():
    res = _results()
    d = distribution(res, cvar_level=0.5, lower_cvar_level=0.2, threshold=0.5)
    row = d.table.set_index(["benchmark", "algorithm"]).loc[("p", "A")]
    x = res.draws("A", "p")
    assert row["n"] == x.size
    assert row["cvar"] == pytest.approx(cvar(x, 0.5))
    assert row["lower_tail_cvar"] == pytest.approx(cvar(x, 0.2, tail="lower"))
    assert row["median"] == pytest.approx(np.median(x))
    assert row["cvar_lower"] <= row["cvar"] <= row["cvar_upper"]
    assert row["median_lower"] <= row["median"] <= row["median_upper"]
    assert row["exceedance"] == pytest.approx(np.mean(x > 0.5))
    assert d.interval == "bootstrap"  # no support bounds given
    assert distribution(res, low=0, high=10).interval == "band"


def test_minimize_orients_every_statistic():
    d = distribution(_results("minimize"))
    t = d.table.set_index(["benchmark", "algorithm"])
    # As a loss, A is best: its upper-tail CVaR (mean of best half) is the smallest.
    assert t.loc[("p", "A"), "cvar"] < t.loc[("p", "B"), "cvar"]
    assert t.loc[("p", "A"), "cvar"] <= t.loc[("p", "A"), "median"]
    wins = {(v.a, v.b): v.winner for v in d.verdicts() if v.scope.benchmark == "q"
            and v.method == "dse.dominance"}
    assert wins[("A", "B")] == "A"


def test_pooled_normalised_distribution_and_verdicts():
    d = distribution(_results(), pooled=True, normalize="minmax")
    assert d.benchmarks == [POOLED]
    assert d.objective == "maximize"
    assert set(d.table["n"]) == {120}
    v = d.verdicts()
    assert len(v) == 2 * 3  # dominance + CVaR for each of 3 pairs
    assert all(x.scope.benchmark is None for x in v)
    dom = {(x.a, x.b): x for x in v if x.method == "dse.dominance"}
    cv = {(x.a, x.b): x for x in v if x.method == "dse.cvar"}
    # Two benchmarks: A is ahead on both, within each clearly, but a pooled claim about
    # benchmarks like these has two replicates, whose sign flips allow no p below 1/4.
    for x in (dom[("A", "B")], cv[("A", "B")]):
        assert x.winner is None and x.lean == "a"
        assert "at least 6 are needed" in x.explanation
        assert x.details["across_benchmarks"]["n_benchmarks"] == 2
    assert cv[("A", "B")].effect.estimate > 0
    # Eight benchmarks, A ahead on each: the pooled direction is established.
    v8 = distribution(_results(scales=(1.0, 10.0, 3.0, 0.5, 2.0, 7.0, 1.5, 4.0)), pooled=True,
                      normalize="minmax").verdicts()
    dom8 = {(x.a, x.b): x for x in v8 if x.method == "dse.dominance"}
    cv8 = {(x.a, x.b): x for x in v8 if x.method == "dse.cvar"}
    assert dom8[("A", "B")].winner == "A" and cv8[("A", "B")].winner == "A"
    assert dom8[("A", "B")].details["across_benchmarks"]["p_a_better"] == 1 / 2**8
    assert "over the 8 benchmarks too" in dom8[("A", "B")].explanation
    with pytest.raises(ValueError, match="normalised scale"):
        distribution(_results(), normalize="minmax", low=0, high=1)


def test_dominance_and_cvar_difference_tables():
    d = distribution(_results(), low=0, high=10)
    dom = d.dominance()
    assert len(dom) == 2 * 3 and set(dom["outcome"]) <= {"a", "b", "crossing", "none"}
    diff = d.cvar_differences()
    assert (diff["lower"] <= diff["estimate"]).all() and (diff["estimate"] <= diff["upper"]).all()
    assert diff["method"].iloc[0] == "band:dkw"


def test_refuses_runs():
    df = pd.DataFrame({"alg": ["a", "a", "b", "b"], "seed": [0, 0, 0, 0], "b": [1, 2, 1, 2],
                       "acc": [0.5, 0.6, 0.4, 0.7]})
    runs = Results.from_frame(df, algorithm="alg", seed="seed", budget="b", score="acc",
                              objective="maximize")
    assert runs.kind == "runs"
    with pytest.raises(ValueError, match="kind='trials'"):
        distribution(runs)


@pytest.mark.parametrize("kind", ["cdf", "quantile"])
def test_plots(kind):
    d = distribution(_results(), low=0, high=10, band="ld_highest_density")
    ax = d.plot(kind=kind)  # two benchmarks: two panels, the first returned
    assert isinstance(ax, plt.Axes)
    assert len([a for a in ax.figure.axes if a.get_visible()]) == 2
    ax = d.plot(kind=kind, benchmark="p")
    assert len(ax.get_lines()) == 3
    with pytest.raises(KeyError):
        d.plot(kind=kind, benchmark="nope")


def test_example_data_runs_end_to_end():
    from benchverdict.examples import load_example

    try:
        res = load_example()
    except FileNotFoundError as err:  # the committed example data are not generated yet
        pytest.skip(str(err).splitlines()[0])
    d = distribution(res, pooled=True, normalize="minmax", n_resamples=500)
    assert set(d.table["algorithm"]) == set(res.algorithms)
    assert len(d.verdicts()) == 2 * 10


def test_large_samples_are_drawn_thinned_within_one_step_and_bands_never_narrower():
    # 10^6 random-search draws made a 105 MB SVG of 10,000-step CDFs (issue 25). Beyond
    # MAX_DRAWN_STEPS a CDF is drawn at every (n / MAX)-th draw: the drawn step function is
    # within 1 / MAX_DRAWN_STEPS of the ECDF everywhere, and its band contains the true band.
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from benchverdict.dse.distribution import MAX_DRAWN_STEPS, _drawn_band
    from benchverdict.dse.intervals import step_band

    rng = np.random.default_rng(3)
    n = 7 * MAX_DRAWN_STEPS + 13
    frame = pd.DataFrame({"algorithm": np.repeat(["A", "B"], n), "benchmark": "t",
                          "seed": 0, "trial": np.tile(np.arange(n), 2),
                          "score": np.round(rng.normal(size=2 * n), 3)})  # ties too
    res = Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark", seed="seed",
                             budget="trial", score="score", objective="maximize",
                             kind="trials")
    ax = distribution(res, n_permutations=9, n_resamples=9).plot()
    for line, alg in zip(ax.get_lines(), ["A", "B"]):
        x, y = (np.asarray(v, dtype=float) for v in line.get_data())
        assert len(x) <= MAX_DRAWN_STEPS + 1
        xs = np.sort(frame.loc[frame["algorithm"] == alg, "score"].to_numpy())
        probe = np.concatenate([xs, xs - 1e-9, xs + 1e-9])
        true = np.searchsorted(xs, probe, side="right") / n
        drawn = np.where(probe < x[0], 0.0, y[np.maximum(np.searchsorted(x, probe, "right") - 1,
                                                          0)])
        assert np.max(np.abs(drawn - true)) <= 1 / MAX_DRAWN_STEPS + 1e-12

    thinned = []

    @settings(max_examples=50, deadline=None)
    @given(st.integers(2, 5 * MAX_DRAWN_STEPS), st.integers(0, 2**16), st.booleans())
    def band_contains(size, seed, ties):
        z = np.random.default_rng(seed).normal(size=size)
        b = step_band(z.round(3) if ties else z, 0.9)
        v, lo, hi = _drawn_band(b.values, b.lower, b.upper)
        assert len(v) <= MAX_DRAWN_STEPS
        thinned.append(len(v) < len(b.values))
        where = np.searchsorted(v, b.values, side="right") - 1  # the drawn step over each
        assert np.all(lo[where] <= b.lower) and np.all(hi[where] >= b.upper)

    band_contains()
    assert any(thinned)  # the property was checked where thinning happens


def test_thinned_cdf_stays_inside_its_drawn_line():
    # MAX_DRAWN_STEPS is chosen against the figure's geometry: a curve within 1 / MAX of the
    # ECDF is off by at most (axes height) / MAX points, which must stay within half the
    # line's width, in a single panel and in a grid of benchmarks. A taller figure or a
    # thinner line would make the thinning visible: this test then fails.
    from benchverdict.dse.distribution import MAX_DRAWN_STEPS

    rng = np.random.default_rng(5)
    n = 3 * MAX_DRAWN_STEPS
    for n_benchmarks in (1, 2, 4, 10):
        frame = pd.DataFrame({
            "algorithm": np.tile(np.repeat(["A", "B"], n), n_benchmarks),
            "benchmark": np.repeat([f"t{i}" for i in range(n_benchmarks)], 2 * n),
            "seed": 0, "trial": np.tile(np.arange(n), 2 * n_benchmarks),
            "score": rng.normal(size=2 * n * n_benchmarks)})
        res = Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
                                 seed="seed", budget="trial", score="score",
                                 objective="maximize", kind="trials")
        ax = distribution(res, n_permutations=9, n_resamples=9).plot()
        fig = ax.figure
        fig.canvas.draw()  # the constrained layout sets the panels' final sizes
        for panel in fig.axes:
            if not panel.get_visible() or not panel.get_lines():
                continue
            height_pt = panel.get_window_extent().height * 72.0 / fig.dpi
            half_line = min(line.get_linewidth() for line in panel.get_lines()) / 2
            assert height_pt / MAX_DRAWN_STEPS <= half_line, (n_benchmarks, height_pt)
        plt.close(fig)


def test_cvar_direction_needs_thirty_tail_draws():
    # Equal CVaR_0.9, spreads 1 and 3: with 6 tail draws (n = 60) the studentized test named
    # a winner in 0.097 +- 0.012 of 600 data sets (nominal 0.05), nearly always the narrower.
    # Below 30 tail draws a rejection is now a lean; at 30 the direction holds alpha.
    from scipy import stats as st

    from benchverdict.dse.distribution import MIN_TAIL_DRAWS

    level = 0.9
    c = st.norm.pdf(st.norm.ppf(level)) / (1 - level)

    def verdict(n, seed):
        rng = np.random.default_rng(seed)
        df = pd.DataFrame({"alg": ["A"] * n + ["B"] * n, "task": "p", "seed": np.arange(2 * n),
                           "y": np.concatenate([rng.normal(size=n),
                                                3 * rng.normal(size=n) - 2 * c])})
        res = Results.from_frame(df, algorithm="alg", benchmark="task", seed="seed", score="y",
                                 objective="maximize", kind="trials")
        d = distribution(res, cvar_level=level, n_resamples=100, n_permutations=199,
                         seed=seed)
        return next(v for v in d.verdicts() if v.method == "dse.cvar")

    small = [verdict(60, s) for s in range(60)]
    assert all(v.winner is None for v in small)
    rejected = [v for v in small if v.lean is not None and "fewer than" in v.explanation]
    assert rejected and all(f"fewer than {MIN_TAIL_DRAWS})" in v.explanation for v in rejected)
    reps = 150
    named = sum(verdict(10 * MIN_TAIL_DRAWS, s).winner is not None for s in range(reps))
    assert named / reps <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps), named


def test_clustered_cvar_direction_needs_thirty_runs():
    # Review of 2026-11-28: with draws in runs the guard counted draws (6 runs of 100 draws
    # have 300 in the tail), but the studentized run-permutation statistic's limit is in
    # runs: equal CVaR_0.5, spreads 1 and 3, run effect SD 0.5, and dse.cvar named a
    # winner in 0.096 of 2,000 data sets. Below 30 runs a rejection is now a lean.
    from benchverdict.dse.distribution import MIN_CVAR_RUNS

    def verdict(runs, seed):
        rng = np.random.default_rng(seed)
        shift = -0.79788 * 2 * np.sqrt(1.25)  # B's CVaR_0.5 equals A's
        rows = []
        for s in range(runs):
            rows += [("A", s, t, v) for t, v in
                     enumerate(0.5 * rng.normal() + rng.normal(size=100), start=1)]
            rows += [("B", s, t, v) for t, v in
                     enumerate(shift + 3 * (0.5 * rng.normal() + rng.normal(size=100)),
                               start=1)]
        df = pd.DataFrame(rows, columns=["alg", "seed", "trial", "y"])
        res = Results.from_frame(df, algorithm="alg", seed="seed", budget="trial", score="y",
                                 objective="maximize", kind="trials")
        d = distribution(res, cvar_level=0.5, n_resamples=100, n_permutations=199, seed=seed)
        return next(v for v in d.verdicts() if v.method == "dse.cvar")

    found = [verdict(6, s) for s in range(40)]
    assert all(v.winner is None for v in found)
    leaning = [v for v in found if "runs in the smaller sample" in v.explanation]
    assert leaning and all(f"(fewer than {MIN_CVAR_RUNS})" in v.explanation for v in leaning)
    # and the report's verdict table says why no decision was made
    from benchverdict.report.explain import undecided_reason

    assert all(undecided_reason(v) == f"fewer than {MIN_CVAR_RUNS} runs per algorithm: which "
               f"CVaR is higher is not established" for v in leaning)
