"""DSE resamples each distribution once and shares it across its pairs (issue #25, speed).

A CVaR difference's bootstrap resamples A and B independently, so A's
replicates need not depend on B: :func:`~benchverdict.dse.distribution`
draws them once per distribution, from a stream of its own, and every
pairwise interval (and the distribution's own CVaR interval) uses them.
These tests check that this keeps what the per-pair bootstrap promised:
coverage (seeded simulation, binomial tolerance), exact antisymmetry,
identical samples handled, and no dependence on names, row order or an
increasing transform of the scores.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchverdict import Results
from benchverdict.dse import distribution
from benchverdict.dse.compare import cvar_difference
from benchverdict.dse.intervals import bootstrap_interval, sample_replicates
from benchverdict.dse.statistics import statistic

RUNS, DRAWS = 10, 20
LABELS = np.repeat(np.arange(RUNS), DRAWS)


def _clustered(rng, shift: float) -> np.ndarray:
    """10 runs x 20 draws: a N(0, 1) run offset shared by a run's draws, N(0, 1) noise."""
    return np.repeat(rng.normal(0, 1, RUNS), DRAWS) + rng.normal(0, 1, RUNS * DRAWS) + shift


def _frame(rng, shifts: dict[str, float], benchmarks=("p", "q")) -> pd.DataFrame:
    rows = []
    for bench in benchmarks:
        for alg, shift in shifts.items():
            x = _clustered(rng, shift)
            rows.append(pd.DataFrame({"algorithm": alg, "benchmark": bench, "seed": LABELS,
                                      "trial": np.tile(np.arange(1, DRAWS + 1), RUNS),
                                      "score": x}))
    return pd.concat(rows, ignore_index=True)


def _results(frame: pd.DataFrame, objective: str = "maximize") -> Results:
    return Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
                              seed="seed", budget="trial", score="score", objective=objective,
                              kind="trials")


def test_shared_replicates_cover_every_pair_at_the_nominal_level():
    # Three algorithms whose laws differ by a shift, so every CVaR difference is the
    # shift difference; each algorithm's replicates serve both of its pairs.
    rng = np.random.default_rng(7)
    stat = statistic("cvar", cvar_level=0.5)
    shifts = (0.0, 0.4, 1.0)
    reps, confidence = 150, 0.8
    hits = np.zeros(3)
    pairs = [(0, 1), (0, 2), (1, 2)]
    for r in range(reps):
        xs = [_clustered(rng, s) for s in shifts]
        shared = [sample_replicates(x, stat, 300, np.random.SeedSequence([r, i]), LABELS)
                  for i, x in enumerate(xs)]
        for j, (a, b) in enumerate(pairs):
            iv = cvar_difference(xs[a], xs[b], 0.5, confidence=confidence,
                                 clusters=(LABELS, LABELS),
                                 replicates=(shared[a], shared[b]))
            assert iv.method == "bootstrap:cluster-studentized"
            hits[j] += iv.contains(shifts[a] - shifts[b])
    bound = confidence - 3 * np.sqrt(confidence * (1 - confidence) / reps)
    print("coverage per pair at 0.8:", hits / reps)
    assert (hits / reps >= bound).all(), hits / reps


def test_distribution_intervals_are_made_from_each_distributions_replicates():
    rng = np.random.default_rng(3)
    res = _results(_frame(rng, {"A": 0.0, "B": 0.5, "C": 0.5}))
    d = distribution(res, n_resamples=400)
    assert set(d.replicates) == {(b, a) for b in ("p", "q") for a in ("A", "B", "C")}
    row = d.table.iloc[0]
    own = bootstrap_interval(d.draws["p", "A"], statistic("cvar", cvar_level=0.5),
                             clusters=d.clusters["p", "A"], replicates=d.replicates["p", "A"])
    assert (row["cvar_lower"], row["cvar_upper"]) == (own.lower, own.upper)
    diff = d.cvar_differences().set_index(["benchmark", "a", "b"])
    ab = diff.loc[("p", "A", "B")]
    again = cvar_difference(d.draws["p", "A"], d.draws["p", "B"], 0.5,
                            clusters=(d.clusters["p", "A"], d.clusters["p", "B"]),
                            replicates=(d.replicates["p", "A"], d.replicates["p", "B"]))
    assert (ab["lower"], ab["upper"]) == (again.lower, again.upper)
    assert ab["lower"] < ab["estimate"] < ab["upper"]


def test_swapping_a_pair_mirrors_its_interval_exactly():
    rng = np.random.default_rng(11)
    stat = statistic("cvar", cvar_level=0.9)
    x, y = _clustered(rng, 0.0), _clustered(rng, 0.3)
    rx = sample_replicates(x, stat, 300, 1, LABELS)
    ry = sample_replicates(y, stat, 300, 2, LABELS)
    ab = cvar_difference(x, y, 0.9, clusters=(LABELS, LABELS), replicates=(rx, ry))
    ba = cvar_difference(y, x, 0.9, clusters=(LABELS, LABELS), replicates=(ry, rx))
    assert (ba.estimate, ba.lower, ba.upper) == (-ab.estimate, -ab.upper, -ab.lower)


def test_identical_distributions_do_not_share_a_degenerate_interval():
    # Identical samples get the same stream; the pair must not then compare a resample
    # with itself (every difference 0): it falls back to resampling each afresh.
    rng = np.random.default_rng(5)
    frame = _frame(rng, {"A": 0.0}, benchmarks=("p",))
    twin = frame.assign(algorithm="B")
    res = _results(pd.concat([frame, twin], ignore_index=True))
    iv = distribution(res, n_resamples=400).cvar_differences().iloc[0]
    assert iv["estimate"] == 0.0
    assert iv["lower"] == -iv["upper"] and iv["upper"] > 0.05


@pytest.mark.parametrize("transform", ["rename", "reorder", "affine", "negate"])
def test_no_name_order_or_increasing_transform_moves_a_stream(transform):
    rng = np.random.default_rng(19)
    frame = _frame(rng, {"A": 0.0, "B": 0.3, "C": 0.6})
    base = distribution(_results(frame), n_resamples=300).cvar_differences()
    objective, scale = "maximize", 1.0
    other = frame.copy()
    if transform == "rename":
        other["algorithm"] = other["algorithm"].map({"A": "z", "B": "y", "C": "x"})
    elif transform == "reorder":
        other = other.sample(frac=1.0, random_state=2).reset_index(drop=True)
    elif transform == "affine":
        other["score"] = 1000.0 * other["score"] + 7.0
        scale = 1000.0
    else:
        other["score"] = -other["score"]
        objective = "minimize"
    got = distribution(_results(other, objective), n_resamples=300).cvar_differences()
    names = {"A": "z", "B": "y", "C": "x"} if transform == "rename" else None
    for row in base.itertuples():
        a, b = (names[row.a], names[row.b]) if names else (row.a, row.b)
        hit = got[(got["benchmark"] == row.benchmark) & (got["a"] == a) & (got["b"] == b)]
        if hit.empty:  # the pair is listed the other way round: mirrored
            hit = got[(got["benchmark"] == row.benchmark) & (got["a"] == b) & (got["b"] == a)]
            lo, hi = -hit["upper"].iloc[0], -hit["lower"].iloc[0]
        else:
            lo, hi = hit["lower"].iloc[0], hit["upper"].iloc[0]
        assert lo == pytest.approx(scale * row.lower, rel=1e-9, abs=1e-9)
        assert hi == pytest.approx(scale * row.upper, rel=1e-9, abs=1e-9)
