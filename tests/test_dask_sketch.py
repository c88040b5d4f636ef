"""The exact-count ECDF sketch (stats/ecdf_sketch.py) and its Dask reduction (_dask/sketch.py).

(a) exactness: the sketch's ECDF equals numpy's at every edge, brackets it
    everywhere, and its stated error bound is the largest bin mass, on data
    whose cells cross partition boundaries (with ties);
(b) simulation: the DKW band widened by the sketch keeps its coverage, for
    the CDF and for the tuning curve, with a binomial tolerance;
(c) the PriorBand anytime data, partitioned.
"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict.stats.ecdf_sketch import ECDFSketch, bin_counts, choose_edges, sketch_of


def _exact_ecdf(values: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.searchsorted(np.sort(values), x, side="right") / len(values)


def _assert_exact(sketch: ECDFSketch, values: np.ndarray) -> None:
    values = np.asarray(values, dtype=float)
    assert sketch.n == len(values)
    assert sketch.edges[0] == values.min() and sketch.edges[-1] == values.max()
    np.testing.assert_array_equal(sketch.cum, [(values <= e).sum() for e in sketch.edges])
    np.testing.assert_array_equal(sketch.at_edge, [(values == e).sum() for e in sketch.edges])
    # The bracket holds at every data point, between them and outside the range.
    u = np.unique(values)
    x = np.r_[u, (u[1:] + u[:-1]) / 2, u[0] - 1, u[-1] + 1]
    lo, hi = sketch.ecdf_bounds(x)
    exact = _exact_ecdf(values, x)
    assert np.all(lo <= exact + 1e-15) and np.all(exact <= hi + 1e-15)
    # The stated bound is the largest bin mass, and bounds the sup-norm error.
    assert sketch.error_bound == sketch.interior.max() / len(values)
    assert np.max(exact - lo) <= sketch.error_bound + 1e-15
    assert np.max(hi - lo) <= sketch.error_bound + 1e-15
    # At the edges the sketch is exact.
    lo_e, hi_e = sketch.ecdf_bounds(sketch.edges)
    np.testing.assert_array_equal(lo_e, _exact_ecdf(values, sketch.edges))
    np.testing.assert_array_equal(hi_e, lo_e)


# ------------------------------------------------------------------------ in memory
@pytest.mark.parametrize("kind", ["continuous", "ties", "constant"])
def test_sketch_is_exact_at_edges_and_brackets_everywhere(kind):
    rng = np.random.default_rng(1)
    values = {"continuous": rng.normal(size=5000),
              "ties": rng.integers(0, 40, size=5000) / 4.0,
              "constant": np.full(300, 0.7)}[kind]
    sketch = sketch_of(values, n_bins=64, seed=3)
    _assert_exact(sketch, values)
    if kind != "continuous":
        assert sketch.error_bound == 0.0  # every distinct value is an edge


def test_quantile_bounds_hold_the_empirical_quantile():
    rng = np.random.default_rng(2)
    values = np.round(rng.gamma(2.0, size=3000), 2)
    sketch = sketch_of(values, n_bins=50, seed=0)
    p = np.linspace(0.001, 1.0, 400)
    low, high = sketch.quantile_bounds(p)
    exact = np.sort(values)[np.ceil(p * len(values)).astype(int) - 1]
    assert np.all(low <= exact) and np.all(exact <= high)
    exact_at_edge = low == high
    np.testing.assert_array_equal(low[exact_at_edge], exact[exact_at_edge])


def test_mirrored_sketch_is_the_sketch_of_the_negated_scores():
    rng = np.random.default_rng(3)
    values = rng.integers(0, 500, size=2000) / 7.0
    m = sketch_of(values, n_bins=32, seed=1).mirrored()
    _assert_exact(m, -values)


def test_bin_counts_refuses_values_outside_the_edges():
    with pytest.raises(ValueError, match="outside the edges"):
        bin_counts([0.0, 5.0], np.array([1.0, 2.0]))
    assert choose_edges([], 4, 0.0, 1.0).tolist() == [0.0, 1.0]


# ------------------------------------------------------------------------ (b) coverage
def _covers(band, cdf) -> bool:
    """Whether L <= F <= U everywhere, for a continuous F (checked where it can fail)."""
    edges = band.sketch.edges
    # L is a step function, constant on [e_j, e_{j+1}), and F increases: the worst point
    # is e_j. U is constant on [e_{j-1}, e_j): the worst point is just left of e_j.
    if np.any(band.lower_cdf(edges) > cdf(edges) + 1e-12):
        return False
    return not np.any(band.upper_cdf(np.nextafter(edges, -np.inf)) < cdf(edges) - 1e-12)


@pytest.mark.parametrize("n_bins", [8, 64])
def test_widened_dkw_band_keeps_its_coverage(n_bins):
    # 400 seeded replications of n = 2000 normal draws, coarse sketches (so the widening
    # matters). The DKW band covers with probability >= 0.8; allow 3 binomial SEs below.
    confidence, reps, n = 0.8, 400, 2000
    rng = np.random.default_rng(12)
    hits, curve_hits, widths = 0, 0, []
    ks = np.array([1, 2, 4, 16, 64])
    truth = stats.norm.ppf(0.5 ** (1 / ks))
    for _ in range(reps):
        values = rng.normal(size=n)
        band = sketch_of(values, n_bins=n_bins, seed=int(rng.integers(2**31))).band(confidence)
        hits += _covers(band, stats.norm.cdf)
        curve = band.tuning_curve(ks)
        curve_hits += bool(np.all((curve["lower"] <= truth) & (truth <= curve["upper"])))
        x = np.linspace(-3, 3, 61)
        widths.append(np.max(band.upper_cdf(x) - band.lower_cdf(x)))
        assert widths[-1] <= 2 * band.epsilon + band.error_bound + 1e-12
    tolerance = 3 * np.sqrt(confidence * (1 - confidence) / reps)
    assert hits / reps >= confidence - tolerance
    assert curve_hits / reps >= hits / reps  # the curve band follows from the CDF band
    # Not vacuous: the band is far narrower than [0, 1].
    assert np.mean(widths) < 0.5


def test_unwidened_sketch_band_would_undercover():
    # The reason for the widening: the exact DKW band's half-width placed around the
    # sketch's lower step (ignoring the bin mass) misses F far more often than 1 - conf.
    confidence, reps, n = 0.8, 200, 5000
    rng = np.random.default_rng(4)
    misses = 0
    for _ in range(reps):
        values = rng.uniform(size=n)
        s = sketch_of(values, n_bins=8, seed=int(rng.integers(2**31)))
        eps = s.band(confidence).epsilon
        mid = (s.edges[1:] + s.edges[:-1]) / 2
        lo, _ = s.ecdf_bounds(mid)
        misses += bool(np.any(lo + eps < mid))  # U = lo + eps below F(x) = x
    assert misses / reps > 0.5


# ------------------------------------------------------------------------ Dask reduction
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster_client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, memory_limit="2GiB")
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def _trials(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 6000
    df = pd.DataFrame({"alg": rng.choice(["A", "B", "C"], size=n),
                       "bench": rng.choice(["p", "q"], size=n),
                       "seed": np.arange(n) % 50, "trial": np.arange(n) // 50})
    df["acc"] = np.round(rng.normal(size=n) + (df["alg"] == "B"), 3)  # ties
    return df


#: The roles of _trials(): every row one random-search draw.
ROLES = dict(algorithm="alg", benchmark="bench", seed="seed", budget="trial", score="acc",
             objective="maximize", kind="trials")


def test_dask_sketches_are_exact_on_cells_crossing_partitions(cluster_client):
    from benchverdict.io import from_dask_frame

    df = _trials()
    dk = from_dask_frame(dd.from_pandas(df, npartitions=9, sort=False), **ROLES)
    sketches = dk.ecdf_sketches(n_bins=32, sample_size=200, seed=5)
    assert len(sketches) == 6
    for (a, b), sketch in sketches.items():
        values = df.loc[(df["alg"] == a) & (df["bench"] == b), "acc"].to_numpy()
        _assert_exact(sketch, values)
        assert sketch.sample_size == 200 and sketch.error_bound > 0
    # The sample (hence the edges) depends on the rows and the seed, not on the partitioning.
    other = from_dask_frame(dd.from_pandas(df, npartitions=4, sort=False), **ROLES)
    again = other.ecdf_sketches([("B", "q")], n_bins=32, sample_size=200, seed=5)
    np.testing.assert_array_equal(again[("B", "q")].edges, sketches[("B", "q")].edges)
    np.testing.assert_array_equal(again[("B", "q")].cum, sketches[("B", "q")].cum)


def test_draws_beyond_the_client_limit_point_to_the_sketch(cluster_client, monkeypatch):
    from benchverdict._dask import results as dask_results
    from benchverdict.io import from_dask_frame

    df = _trials()
    dk = from_dask_frame(dd.from_pandas(df, npartitions=5), **ROLES)
    monkeypatch.setattr(dask_results, "MAX_CLIENT_ROWS", 100)
    with pytest.raises(dask_results.RowsTooLargeError, match="ecdf_sketches"):
        dk.draws("A", "p")
    sketch = dk.ecdf_sketches([("A", "p")], n_bins=16)[("A", "p")]
    _assert_exact(sketch, df.loc[(df["alg"] == "A") & (df["bench"] == "p"), "acc"].to_numpy())


@pytest.mark.shared_data
def test_priorband_cells_partitioned(cluster_client, shared_data, tmp_path):
    import benchverdict as bv

    path = shared_data / "priorband" / "priorband_anytime_full.parquet"
    df = pd.read_parquet(path)
    for i, part in enumerate(np.array_split(np.arange(len(df)), 8)):
        df.iloc[part].to_parquet(tmp_path / f"part-{i:02d}.parquet", index=False)
    # Every row of a cell as a draw (kind forced): the sketch summarises the cell's values.
    dk = bv.read(tmp_path, engine="dask", algorithm="algorithm", benchmark="bench_prior",
                 seed="seed", budget="used_fidelity", score="value", objective="minimize",
                 kind="trials")
    cells = [(dk.algorithms[0], dk.benchmarks[0]), (dk.algorithms[-1], dk.benchmarks[-1])]
    for (a, b), sketch in dk.ecdf_sketches(cells, n_bins=64, seed=1).items():
        values = df.loc[(df["algorithm"].astype(str) == a)
                        & (df["bench_prior"].astype(str) == b), "value"].to_numpy()
        _assert_exact(sketch, values)
        band = sketch.band(0.9)
        assert band.details()["sketch_error_bound"] == sketch.error_bound


# ------------------------------------------------------------------------ tuning on Dask
def test_tuning_curves_beyond_the_client_limit_come_from_sketches(cluster_client, monkeypatch):
    # With the client limit below the data, every cell is sketched; 2^16 bins exceed a
    # cell's ~1,000 draws, so the sketches are exact and the curves equal the in-memory
    # DKW curves to the last bit (bands, points, band verdicts); only the order-statistic
    # tests, which need the draws, are left out, and the verdicts say so in their details.
    from benchverdict import tuning
    from benchverdict._dask import results as dask_results
    from benchverdict.io import from_dask_frame
    from benchverdict.results import Results

    df = _trials()
    dk = from_dask_frame(dd.from_pandas(df, npartitions=7, sort=False), **ROLES)
    mem = Results.from_frame(df, **ROLES)
    budgets = [1, 2, 4, 8, 16]
    exact = tuning.from_results(mem, band="dkw", calibrate="cdf", budgets=budgets)
    monkeypatch.setattr(dask_results, "MAX_CLIENT_ROWS", 100)
    sketched = tuning.from_results(dk, band="ld_highest_density", budgets=budgets)
    assert sorted(sketched.sketched) == ["p", "q"]
    for key, curve in sketched:
        assert curve.band == "dkw" and curve.sketch is not None
        for name in ("point", "lower", "upper"):
            np.testing.assert_array_equal(getattr(curve, name), getattr(exact[key], name))
    got = [(v.a, v.b, v.outcome, v.scope.benchmark, v.scope.trials_low)
           for v in sketched.verdicts() if v.method.endswith("_band")]
    want = [(v.a, v.b, v.outcome, v.scope.benchmark, v.scope.trials_low)
            for v in exact.verdicts() if v.method.endswith("_band")]
    assert got == want and got
    assert not [v for v in sketched.verdicts() if v.method.endswith("_test")]
    assert all("sketch_error_bound_a" in v.details for v in sketched.verdicts())
    assert len(sketched.tests()) == 0


def test_cells_within_the_limit_stay_exact_and_share_the_benchmarks_band(cluster_client,
                                                                         monkeypatch):
    from benchverdict import tuning
    from benchverdict._dask import results as dask_results
    from benchverdict._dask import sketch as dask_sketch
    from benchverdict.io import from_dask_frame

    df = _trials(1)
    df = df[~((df["alg"] == "C") & (df["bench"] == "q") & (df["trial"] % 2 == 0))]
    dk = from_dask_frame(dd.from_pandas(df, npartitions=5, sort=False),
                         **{**ROLES, "objective": "minimize"})
    sizes = dk.cell_sizes()
    # Room for the smallest cell only: it comes exactly, the rest as sketches.
    monkeypatch.setattr(dask_results, "MAX_CLIENT_ROWS", int(sizes.min()))
    got = dask_sketch.draws_or_sketches(dk, dask_results.MAX_CLIENT_ROWS)
    small = sizes.idxmin()
    assert isinstance(got[(str(small[0]), str(small[1]))], np.ndarray)
    np.testing.assert_array_equal(  # exact, in row order, as in memory
        got[(str(small[0]), str(small[1]))],
        df.loc[(df["alg"] == small[0]) & (df["bench"] == small[1]), "acc"].to_numpy())
    assert sum(isinstance(v, np.ndarray) for v in got.values()) == 1
    curves = tuning.from_results(dk, budgets=[1, 2, 4])
    # Every curve on a benchmark with a sketched cell uses DKW, so pairs stay comparable.
    assert {c.band for _, c in curves} == {"dkw"}
    assert len(curves.comparisons()) == 6


def _report_run_on_dask(df: pd.DataFrame, analysis: str, **options):
    """The report's run of one analysis on ``df`` in 4 Dask partitions (asserted ok)."""
    import benchverdict as bv
    from benchverdict.io import from_dask_frame

    dk = from_dask_frame(dd.from_pandas(df, npartitions=4), **ROLES)
    report = bv.compare(dk, analyses=[analysis], progress=False, figures=False, **options)
    run = next(r for r in report.runs if r.name == analysis)
    assert run.status == "ok", run.warnings
    return run


def test_report_on_trials_beyond_the_client_limit_explains_the_sketches(cluster_client,
                                                                        monkeypatch):
    from benchverdict._dask import results as dask_results

    df = _trials(2)
    df["acc"] += 0.8 * (df["alg"] == "B")
    monkeypatch.setattr(dask_results, "MAX_CLIENT_ROWS", 500)
    # The draws stated independent: on draws that share a run the bands decide nothing.
    run = _report_run_on_dask(df, "tuning", draws="iid")
    assert any("ECDF sketches" in note for note in run.notes)
    band_wins = [v for v in run.verdicts
                 if v.method.endswith("_band") and v.outcome != "inconclusive"]
    assert band_wins and all(v.winner == "B" for v in band_wins if "B" in (v.a, v.b))


# ------------------------------------------------------------------------ DSE on Dask
def test_dse_beyond_its_size_limit_runs_on_the_same_uniform_sample_as_in_memory(
        cluster_client, monkeypatch):
    # Over dse.MAX_CELL_DRAWS draws in a cell, DSE runs on a uniform random sample: each
    # row kept with one probability from a hash of its position, so in memory and on
    # Dask (any partitioning) the same rows are kept and every answer is identical.
    from benchverdict import dse
    dse_distribution = importlib.import_module("benchverdict.dse.distribution")
    from benchverdict.io import from_dask_frame
    from benchverdict.results import Results

    df = _trials(3)
    dk = from_dask_frame(dd.from_pandas(df, npartitions=6, sort=False), **ROLES)
    mem = Results.from_frame(df, **ROLES)
    monkeypatch.setattr(dse_distribution, "MAX_CELL_DRAWS", 300)
    kw = dict(confidence=0.9, n_resamples=200, n_permutations=99)
    res, want = dse.distribution(dk, **kw), dse.distribution(mem, **kw)
    rate = res.sample_rate
    assert 0 < rate < 1 and rate == want.sample_rate
    pd.testing.assert_frame_equal(res.table, want.table)
    pd.testing.assert_frame_equal(res.subsampled, want.subsampled)
    assert [(v.a, v.b, v.outcome, v.evidence.value) for v in res.verdicts()] == [
        (v.a, v.b, v.outcome, v.evidence.value) for v in want.verdicts()]
    sub = res.subsampled
    assert sub["n_available"].sum() == len(df)
    # Each cell keeps a Binomial(n, rate) share: within 4 standard deviations.
    sd = np.sqrt(sub["n_available"] * rate * (1 - rate))
    assert np.all(np.abs(sub["n_used"] - sub["n_available"] * rate) <= 4 * sd)
    for (bench, alg), x in res.draws.items():
        cell = df.loc[(df["alg"] == alg) & (df["bench"] == bench), "acc"].to_numpy()
        assert np.isin(x, cell).all()  # a subset of the cell's draws
    assert all(v.details["sample_rate"] == rate for v in res.verdicts())
    # The kept rows depend on the rows' positions and the seed, never on the scores.
    flipped = Results.from_frame(df.assign(acc=-df["acc"]), **ROLES)
    again = dse.distribution(flipped, **kw)
    for key, x in res.draws.items():
        np.testing.assert_array_equal(np.sort(-again.draws[key]), np.sort(x))


def test_report_records_the_draws_left_out_of_the_dse_sample(cluster_client, monkeypatch):
    dse_distribution = importlib.import_module("benchverdict.dse.distribution")
    monkeypatch.setattr(dse_distribution, "MAX_DRAWS", 2000)
    run = _report_run_on_dask(_trials(4), "dse")
    assert any("uniform random sample" in note for note in run.notes)
    left = [e for e in run.exclusions
            if e["unit"] == "draw" and e["step"] == "score distributions per benchmark"]
    assert len(left) == 6 and all("not in the uniform random sample" in e["reason"]
                                  for e in left)


def test_sample_size_guidance_uses_the_band_the_sketched_curves_had(cluster_client,
                                                                   monkeypatch):
    # Sketched curves have DKW bands, which bound the curve to far smaller budgets than
    # LD bands of the same n: the guidance must state the DKW reach, not the LD one.
    from benchverdict import tuning
    from benchverdict._dask import results as dask_results
    from benchverdict.analysis import Options
    from benchverdict.io import from_dask_frame
    from benchverdict.report.guidance import sample_size_guidance
    from benchverdict.tuning.runner import run_tuning

    df = _trials(5)
    dk = from_dask_frame(dd.from_pandas(df, npartitions=4), **ROLES)
    monkeypatch.setattr(dask_results, "MAX_CLIENT_ROWS", 500)
    options = Options()
    run = run_tuning(dk, options)
    guide = sample_size_guidance([run])
    n = int(df[(df["alg"] == "A") & (df["bench"] == "p")].shape[0])
    n = min(n, int(df[(df["alg"] == "B") & (df["bench"] == "p")].shape[0]))
    text = guide("A", "B", ("p", ()))
    dkw = tuning.largest_budget(n, options.confidence, "dkw", calibrate="cdf")
    ld = tuning.largest_budget(n, options.confidence, "ld_highest_density", calibrate="curve")
    assert dkw < ld and "DKW band" in text and f"k = {dkw:.1f}" in text, text
