"""DSE aggregation: rliable's definitions, the vectorised stratified bootstrap, normalisation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict import Results
from benchverdict.dse import aggregate, normalize_frame
from benchverdict.dse.aggregate import aggregate_values, percentile_interval, stratified_bootstrap


def reference_metrics(matrix: np.ndarray, gamma: float = 1.0) -> dict[str, float]:
    """rliable.metrics' definitions on a runs x tasks matrix, written out."""
    task_means = matrix.mean(axis=0)
    return {
        "mean": task_means.mean(),
        "median": np.median(task_means),
        "iqm": stats.trim_mean(matrix, 0.25, axis=None),
        "optimality_gap": gamma - np.minimum(matrix, gamma).mean(),
    }


def recording_sampler(store: list):
    def sample(rng, b, sizes):
        idx = rng.integers(0, sizes.max(), size=(b, int(sizes.sum())))
        store.append(idx)
        return idx

    return sample


def test_vectorised_replicates_equal_per_replicate_metrics():
    rng = np.random.default_rng(0)
    scores = rng.beta(2, 3, size=(10, 26)) * 1.2  # some above gamma = 1
    groups = [scores[:, t] for t in range(26)]
    store: list = []
    out = stratified_bootstrap(groups, n_resamples=40, seed=1,
                               index_sampler=recording_sampler(store), chunk=40)
    idx = store[0].reshape(40, 26, 10).transpose(0, 2, 1)  # (rep, run, task)
    for r in range(40):
        resample = np.take_along_axis(scores, idx[r], axis=0)
        ref = reference_metrics(resample)
        for m, v in ref.items():
            assert out[m][r] == pytest.approx(v, abs=1e-12), m


def test_point_estimates_match_rliable_if_installed():
    metrics = pytest.importorskip("rliable.metrics")
    scores = np.random.default_rng(5).normal(size=(7, 9))
    groups = [scores[:, t] for t in range(9)]
    assert aggregate_values(groups, "iqm") == pytest.approx(metrics.aggregate_iqm(scores))
    assert aggregate_values(groups, "mean") == pytest.approx(metrics.aggregate_mean(scores))
    assert aggregate_values(groups, "median") == pytest.approx(metrics.aggregate_median(scores))
    assert aggregate_values(groups, "optimality_gap", 0.5) == pytest.approx(
        metrics.aggregate_optimality_gap(scores, 0.5)
    )


def test_ragged_tasks_and_stratification():
    # Resampling stays within each task: with constant tasks the bootstrap has no spread.
    groups = [np.full(3, 1.0), np.full(8, 5.0)]
    out = stratified_bootstrap(groups, ["mean", "median"], n_resamples=200, seed=0)
    assert np.all(out["mean"] == 3.0) and np.all(out["median"] == 3.0)
    assert aggregate_values([np.array([0.0, 1.0]), np.array([4.0])], "mean") == 2.25


def test_percentile_interval_is_numpy_linear_percentile():
    v = np.random.default_rng(1).normal(size=1001)
    assert percentile_interval(v, 0.9) == pytest.approx(tuple(np.percentile(v, [5, 95])))


def test_stratified_bootstrap_interval_covers_the_iqm_of_a_known_law():
    # 8 tasks x 15 runs of U(task, task + 1): the population IQM of the equal mixture
    # is the mean of its middle half. Percentile-bootstrap coverage is asymptotic, so
    # we only require it not to fall clearly below nominal (slack 0.05 + CP error).
    rng = np.random.default_rng(12)
    pop = np.sort(np.concatenate([t + rng.uniform(size=200_000) for t in range(8)]))
    k = int(0.25 * pop.size)
    truth = pop[k:-k].mean()
    reps, hits = 150, 0
    for r in range(reps):
        groups = [t + rng.uniform(size=15) for t in range(8)]
        lo, hi = percentile_interval(
            stratified_bootstrap(groups, ["iqm"], n_resamples=1000, seed=r)["iqm"], 0.9
        )
        hits += lo <= truth <= hi
    upper = stats.binomtest(hits, reps).proportion_ci(0.999, method="exact").high
    assert upper >= 0.85, hits / reps


def _frame():
    return pd.DataFrame({
        "algorithm": ["a", "b", "c"] * 4,
        "benchmark": ["p"] * 6 + ["q"] * 6,
        "score": [1.0, 2.0, 3.0, 1.5, 2.5, 2.0, 10.0, 30.0, 20.0, 15.0, 25.0, 12.0],
    })


def test_normalisation_minmax_and_reference():
    f = normalize_frame(_frame(), sign=1.0)
    for _, g in f.groupby("benchmark"):
        assert g["performance"].min() == 0 and g["performance"].max() == 1
    r = normalize_frame(_frame(), sign=1.0, method="reference", reference="b")
    for _, g in r.groupby("benchmark"):
        assert np.median(g.loc[g.algorithm == "b", "performance"]) == pytest.approx(1.0)
    m = normalize_frame(_frame(), sign=-1.0)  # a loss: the smallest score becomes 1
    assert m.loc[m.score == 1.0, "performance"].item() == 1.0
    with pytest.raises(ValueError, match="reference=<algorithm"):
        normalize_frame(_frame(), sign=1.0, method="reference")
    flat = _frame().assign(score=1.0)
    with pytest.raises(ValueError, match="scale is zero"):
        normalize_frame(flat, sign=1.0)


def test_aggregate_on_results_orients_and_verdicts():
    rng = np.random.default_rng(8)
    rows = []
    for bench, scale in (("p", 1.0), ("q", 100.0)):
        for alg, shift in (("good", 0.3), ("bad", 0.0)):
            for s in range(30):
                rows.append((alg, bench, s, scale * (rng.uniform() + shift)))
    df = pd.DataFrame(rows, columns=["alg", "task", "seed", "loss"])
    df["loss"] = -df["loss"]  # as a loss, "good" has the smaller values
    res = Results.from_frame(df, algorithm="alg", benchmark="task", seed="seed", score="loss",
                             objective="minimize", kind="trials")
    agg = aggregate(res, n_resamples=2000)
    iqm = agg.table[agg.table.metric == "iqm"].set_index("algorithm")["estimate"]
    assert iqm["good"] > iqm["bad"]
    gap = agg.table[agg.table.metric == "optimality_gap"].set_index("algorithm")["estimate"]
    assert gap["good"] < gap["bad"]
    v = {x.method: x for x in agg.verdicts("iqm") + agg.verdicts("optimality_gap")}
    assert v["dse.aggregate_iqm"].winner == "good"
    assert v["dse.aggregate_optimality_gap"].winner == "good"
    raw = aggregate(res, normalize=None, n_resamples=500, metrics=["mean"])
    mean = raw.table.set_index("algorithm")["estimate"]
    assert mean["good"] == pytest.approx(df.loc[df.alg == "good"].groupby("task")["loss"]
                                         .mean().mean())
    runs = Results.from_frame(df.assign(b=1), algorithm="alg", benchmark="task", seed="seed",
                              score="loss", objective="minimize", budget="b", kind="runs")
    with pytest.raises(ValueError, match="kind='trials'"):
        aggregate(runs)
