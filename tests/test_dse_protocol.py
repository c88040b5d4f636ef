"""The DSE protocol runner: Algorithm 1, DSE-Tuning, determinism, failed trials."""

from __future__ import annotations

import numpy as np
import pytest

from benchverdict.dse import dominance_test, run_protocol
from benchverdict.dse.protocol import kfold_splits


def toy_data(rng):
    """A regression-like toy: y = x + noise; train/test split of 60/30 points."""
    x = rng.uniform(-1, 1, size=90)
    y = x + rng.normal(0, 0.1, size=90)
    return x[:60], y[:60], x[60:], y[60:]


def toy_train_eval(params, data, rng):
    """Score = minus the test MSE of the prediction slope * x (best slope = 1)."""
    _, _, x_test, y_test = data
    return -float(np.mean((params["slope"] * x_test - y_test) ** 2))


def wide(rng):
    return {"slope": rng.uniform(-2, 4)}


def narrow(rng):
    return {"slope": rng.uniform(0.5, 1.5)}


def test_algorithm_one_is_deterministic_and_paired():
    kw = dict(progress=False, seed=3)
    fs = {"wide": toy_train_eval, "narrow": toy_train_eval}
    phis = {"wide": wide, "narrow": narrow}
    a = run_protocol(fs, phis, toy_data, 12, **kw)
    b = run_protocol(fs, phis, toy_data, 12, n_jobs=2, **kw)
    assert a.kind == "trials" and len(a) == 24
    assert np.array_equal(a.table["score"].to_numpy(), b.table["score"].to_numpy())
    assert a.objective == "maximize"
    # The narrow sampler concentrates on good slopes: it dominates.
    t = dominance_test(a.draws("narrow", "all"), a.draws("wide", "all"))
    assert t.outcome == "a"


def test_failed_trials_are_recorded_not_fatal():
    def flaky(params, data, rng):
        if params["slope"] > 3:
            raise RuntimeError("diverged")
        return toy_train_eval(params, data, rng)

    with pytest.warns(RuntimeWarning, match="failed"):
        res, failures = run_protocol({"A": flaky, "B": toy_train_eval}, {"A": wide, "B": wide},
                                     toy_data, 40, progress=False, return_failures=True)
    assert len(failures) > 0
    assert set(failures["algorithm"]) == {"A"}
    assert failures["error"].str.contains("RuntimeError: diverged").all()
    assert len(res.exclusions) == len(failures)
    assert len(res) == 80 - len(failures)


def test_dse_tuning_uses_inner_cv_and_beats_sampling():
    fs = {"sampled": toy_train_eval, "tuned": toy_train_eval}
    phis = {"sampled": wide, "tuned": wide}
    sampled = run_protocol(fs, phis, toy_data, 15, progress=False)
    calls = []

    def counting(params, data, rng):
        calls.append(len(data[0]))
        return toy_train_eval(params, data, rng)

    tuned = run_protocol({"A": counting, "B": toy_train_eval}, {"A": wide, "B": wide},
                         toy_data, 15, tuning="random_search_cv3", n_tuning=8, progress=False)
    # Per trial: 8 configurations x 3 folds of 40 training points, then one refit on 60.
    assert calls.count(40) == 15 * 8 * 3 and calls.count(60) == 15
    t = dominance_test(tuned.draws("A", "all"), sampled.draws("sampled", "all"))
    assert t.outcome == "a"


def test_tuning_with_a_minimised_score_picks_the_smallest():
    def mse(params, data, rng):
        return -toy_train_eval(params, data, rng)

    res = run_protocol({"A": mse, "B": mse}, {"A": wide, "B": narrow}, toy_data, 10,
                       tuning="random_search_cv3", n_tuning=10, objective="minimize",
                       progress=False)
    assert res.objective == "minimize"
    assert np.median(res.draws("A", "all")) < 0.1  # tuned slopes near 1


def test_input_errors():
    with pytest.raises(ValueError, match="at least two algorithms"):
        run_protocol(toy_train_eval, wide, toy_data, 3, progress=False)
    with pytest.raises(ValueError, match="same algorithms"):
        run_protocol({"A": toy_train_eval, "B": toy_train_eval}, {"A": wide}, toy_data, 3)
    with pytest.raises(ValueError, match="tuning"):
        run_protocol({"A": toy_train_eval, "B": toy_train_eval}, {"A": wide, "B": wide},
                     toy_data, 3, tuning="grid")

    def bad_data(rng):
        return rng.uniform(size=5)

    with pytest.warns(RuntimeWarning, match="X_train, y_train"):
        res, fail = run_protocol({"A": toy_train_eval, "B": toy_train_eval},
                                 {"A": wide, "B": wide}, {"x": bad_data, "y": toy_data}, 2,
                                 tuning="random_search_cv3", progress=False,
                                 return_failures=True)
    assert set(fail["benchmark"]) == {"x"} and res.benchmarks == ["y"]


def test_kfold_splits_partition():
    folds = kfold_splits(10, 3, np.random.default_rng(0))
    assert sorted(np.concatenate([v for _, v in folds]).tolist()) == list(range(10))
    for tr, va in folds:
        assert set(tr).isdisjoint(va) and len(tr) + len(va) == 10


def test_with_the_jordan2018_models():
    pytest.importorskip("sklearn")
    from benchverdict.examples.jordan2018 import ALGORITHMS, DATASETS

    def sample_data(rng):
        X, y = DATASETS["moons"](int(rng.integers(2**31)))
        idx = rng.permutation(len(y))
        tr, te = idx[:200], idx[200:]
        return X[tr], y[tr], X[te], y[te]

    def train_eval(name):
        def f(params, data, rng):
            x_tr, y_tr, x_te, y_te = data
            model = ALGORITHMS[name].build(params, int(rng.integers(2**31)))
            return float(model.fit(x_tr, y_tr).score(x_te, y_te))
        return f

    names = ["kNN", "LR"]
    res = run_protocol({n: train_eval(n) for n in names},
                       {n: ALGORITHMS[n].sample for n in names}, {"moons": sample_data}, 4,
                       progress=False)
    assert res.algorithms == sorted(names) and len(res) == 8
    assert res.table["score"].between(0, 1).all()
