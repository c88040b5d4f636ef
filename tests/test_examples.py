"""The built-in example benchmark: the committed data, the loader and the generator."""

from __future__ import annotations

import dataclasses
import hashlib
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from benchverdict import Results, examples
from benchverdict.examples import EXAMPLE_METAFEATURES, example_path, load_example

pytest.importorskip("sklearn")

from benchverdict.examples import jordan2018
from benchverdict.examples.jordan2018 import (
    ALGORITHMS,
    DATASETS,
    Hyperparameter,
    generate,
    sample_configs,
)

N_ALGORITHMS, N_BENCHMARKS = 5, 20
N_SEEDS, N_TRIALS = jordan2018.N_SEEDS, jordan2018.N_TRIALS

#: The documented search spaces (data/README.md): a change to a range must change this too.
DOCUMENTED_SPACES = {
    "kNN": {
        "n_neighbors": ("int", 1, 50, True),
        "weights": ("choice", ("uniform", "distance")),
        "p": ("choice", (1, 2)),
    },
    "RF": {
        "n_estimators": ("int", 10, 50, False),
        "max_depth": ("int", 1, 20, False),
        "max_features": ("float", 0.1, 1.0, False),
        "min_samples_leaf": ("int", 1, 10, False),
        "criterion": ("choice", ("gini", "entropy")),
    },
    "SVM": {"C": ("float", 1e-3, 1e3, True), "gamma": ("float", 1e-4, 1e1, True)},
    "LR": {"C": ("float", 1e-4, 1e4, True)},
    "MLP": {
        "hidden_layers": ("int", 1, 2, False),
        "hidden_units": ("int", 8, 128, True),
        "activation": ("choice", ("relu", "tanh")),
        "alpha": ("float", 1e-6, 1e-1, True),
        "learning_rate_init": ("float", 1e-4, 1e-1, True),
    },
}


@pytest.fixture(scope="module")
def example() -> Results:
    return load_example()


@pytest.fixture(scope="module")
def example_frame() -> pd.DataFrame:
    return examples.load_example_frame()


# ---------------------------------------------------------------------------- committed data
def test_example_has_the_documented_shape(example: Results) -> None:
    assert example.kind == "trials"
    assert example.objective == "maximize"
    assert example.algorithms == sorted(ALGORITHMS)
    assert example.benchmarks == sorted(DATASETS)
    assert len(example.algorithms) == N_ALGORITHMS
    assert len(example.benchmarks) == N_BENCHMARKS
    assert example.seeds == list(range(N_SEEDS))
    np.testing.assert_array_equal(example.budgets, np.arange(1, N_TRIALS + 1))
    assert len(example) == N_ALGORITHMS * N_BENCHMARKS * N_SEEDS * N_TRIALS
    assert len(example.exclusions) == 0
    assert example.metafeatures == EXAMPLE_METAFEATURES
    # Balanced: every algorithm x benchmark x seed search has trials 1..B exactly once.
    table = example.table
    counts = table.groupby(["algorithm", "benchmark", "seed"], observed=True)["budget"].nunique()
    assert len(counts) == N_ALGORITHMS * N_BENCHMARKS * N_SEEDS
    assert (counts == N_TRIALS).all()


def test_example_file_is_small_and_found() -> None:
    path = example_path()
    assert path.name == examples.EXAMPLE_FILE
    assert path.stat().st_size < 5_000_000


def test_accuracies_are_test_set_fractions(example_frame: pd.DataFrame) -> None:
    acc, n_test = example_frame["accuracy"], example_frame["n_test"]
    assert acc.between(0, 1).all()
    # accuracy = correct / n_test, so accuracy * n_test is a whole number.
    correct = acc * n_test
    np.testing.assert_allclose(correct, np.round(correct), atol=1e-6)


def test_metafeatures_match_the_data_sets(example_frame: pd.DataFrame) -> None:
    for name, make in DATASETS.items():
        X, y = make(0)
        rows = example_frame[example_frame["benchmark"] == name]
        assert set(rows["n_samples"]) == {X.shape[0]}
        assert set(rows["n_features"]) == {X.shape[1]}
        assert set(rows["n_classes"]) == {len(np.unique(y))}
        assert (rows["n_train"] + rows["n_test"] == rows["n_samples"]).all()


def test_committed_hyperparameters_are_the_sampler_draws(example_frame: pd.DataFrame) -> None:
    # The hyperparameter columns are exactly what the seeded samplers draw:
    # the committed file was made by this code with the documented seed.
    for algorithm in ALGORITHMS:
        for benchmark in DATASETS:
            for seed in (0, N_SEEDS - 1):
                configs = sample_configs(benchmark, algorithm, seed, N_TRIALS)
                rows = example_frame[
                    (example_frame["algorithm"] == algorithm)
                    & (example_frame["benchmark"] == benchmark)
                    & (example_frame["seed"] == seed)
                ].sort_values("trial")
                for name in configs[0]:
                    expected = [c[name] for c in configs]
                    got = rows[f"hp_{name}"].tolist()
                    if isinstance(expected[0], str):
                        assert got == expected, (algorithm, benchmark, seed, name)
                    else:
                        np.testing.assert_allclose(got, expected, rtol=1e-9)


@pytest.mark.parametrize(("data_set", "algorithm"), [("wine", "kNN"), ("moons", "SVM")])
def test_committed_scores_are_reproduced(
    example_frame: pd.DataFrame, data_set: str, algorithm: str
) -> None:
    # kNN and libsvm are exact algorithms, so their accuracies reproduce bit for bit.
    rows, failures = jordan2018.run_search(data_set, algorithm, 3, N_TRIALS)
    assert failures == []
    committed = example_frame[
        (example_frame["algorithm"] == algorithm)
        & (example_frame["benchmark"] == data_set)
        & (example_frame["seed"] == 3)
    ].sort_values("trial")
    # The file stores 10 significant digits.
    np.testing.assert_allclose(committed["accuracy"], [r["accuracy"] for r in rows], rtol=1e-9)


def test_tuned_models_beat_the_majority_baseline_on_moons(example: Results) -> None:
    # After 20 trials, RF and SVM must beat always predicting the majority
    # class (accuracy 0.5 on the balanced moons) on every seed, by a wide margin.
    final = example.final().table
    for algorithm in ("RF", "SVM"):
        scores = final[(final["algorithm"] == algorithm) & (final["benchmark"] == "moons")]
        assert len(scores) == N_SEEDS
        assert (scores["score"] > 0.75).all(), scores["score"].min()


@pytest.mark.parametrize("data_set", ["circles", "circles_close", "quantiles_2d"])
def test_linear_models_cannot_separate_rings(example: Results, data_set: str) -> None:
    # Concentric classes (rings, Gaussian quantiles) are not linearly separable:
    # logistic regression stays near chance (0.5 on these balanced problems)
    # even when tuned, while kNN (a local method) does well.
    final = example.final().table
    rows = final[final["benchmark"] == data_set].groupby("algorithm", observed=True)["score"]
    assert rows.mean()["LR"] < 0.65
    assert rows.mean()["kNN"] > 0.8


def test_trials_are_not_clustered_by_seed(example_frame: pd.DataFrame) -> None:
    # Every trial draws its own configuration and its own data, so the 200
    # trials of an (algorithm, benchmark) are IID and the seed labels are
    # exchangeable: a Kruskal-Wallis test of accuracy by seed is then under its
    # null in every cell. Bonferroni over the 100 cells keeps the chance of a
    # false failure below 0.001. (With one split shared by a seed's trials, as
    # the data were once made, LR on circles had an intra-seed correlation of 0.99.)
    family_level = 1e-3
    cells = example_frame.groupby(["algorithm", "benchmark"])
    assert cells.ngroups == N_ALGORITHMS * N_BENCHMARKS
    for (algorithm, benchmark), rows in cells:
        groups = [g.to_numpy() for _, g in rows.groupby("seed")["accuracy"]]
        if np.ptp(rows["accuracy"]) == 0:
            continue  # no variation at all: nothing to cluster
        pvalue = stats.kruskal(*groups).pvalue
        assert pvalue > family_level / cells.ngroups, (algorithm, benchmark, pvalue)


def test_incumbent_never_gets_worse(example: Results) -> None:
    key = ["algorithm", "benchmark", "seed"]
    first = example.at_budget(1).table.set_index(key)["score"]
    last = example.final().table.set_index(key)["score"].reindex(first.index)
    assert len(first) == N_ALGORITHMS * N_BENCHMARKS * N_SEEDS
    assert (last >= first).all()
    assert (last > first).any()  # the search does improve somewhere


# ---------------------------------------------------------------------------- generator
TINY = {"benchmarks": ["moons", "wine"], "algorithms": ["kNN", "RF"], "n_seeds": 2}


@pytest.fixture(scope="module")
def tiny() -> pd.DataFrame:
    trials, failures = generate(**TINY, n_trials=3, progress=False)
    assert len(failures) == 0
    return trials


def test_generator_is_deterministic(tiny: pd.DataFrame) -> None:
    again, _ = generate(**TINY, n_trials=3, progress=False)
    pd.testing.assert_frame_equal(tiny, again)
    assert len(tiny) == 2 * 2 * 2 * 3
    assert list(tiny.columns[: len(jordan2018.BASE_COLUMNS)]) == list(jordan2018.BASE_COLUMNS)


def test_generator_output_does_not_depend_on_workers_or_on_other_cells(
    tiny: pd.DataFrame,
) -> None:
    parallel, _ = generate(**TINY, n_trials=3, progress=False, n_jobs=2)
    pd.testing.assert_frame_equal(tiny, parallel)
    # One cell run alone, with fewer trials, is a prefix of the same cell in the bigger run.
    alone, _ = generate(["wine"], ["RF"], n_seeds=2, n_trials=2, progress=False)
    part = tiny[(tiny["benchmark"] == "wine") & (tiny["algorithm"] == "RF") & (tiny["trial"] <= 2)]
    pd.testing.assert_frame_equal(
        alone.dropna(axis=1, how="all"),
        part.dropna(axis=1, how="all").reset_index(drop=True),
        check_dtype=False,  # hp columns are float in the mixed frame (NaN for other models)
    )


def test_different_master_seeds_give_different_searches(tiny: pd.DataFrame) -> None:
    other, _ = generate(**TINY, n_trials=3, progress=False, master_seed=7)
    assert not other["hp_n_neighbors"].equals(tiny["hp_n_neighbors"])


def test_split_is_a_function_of_benchmark_seed_and_trial() -> None:
    a = jordan2018.split("moons", 0, 1)
    for other in (jordan2018.split("moons", 1, 1), jordan2018.split("moons", 0, 2)):
        assert not np.array_equal(a[0], other[0])
    again = jordan2018.split("moons", 0, 1)
    for x, y in zip(a, again, strict=True):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match="start at 1"):
        jordan2018.split("moons", 0, 0)


def _fingerprint(*arrays: np.ndarray) -> str:
    digest = hashlib.sha1()
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def test_every_trial_has_its_own_split_shared_by_all_algorithms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Replace two algorithms by estimators that record the data the generator
    # hands them: trial t of seed s must show every algorithm the same split,
    # and different trials (and seeds) must see different splits.
    seen: dict[tuple[str, str, int], list[str]] = {}

    class Recorder:
        def __init__(self, key: tuple[str, str, int]) -> None:
            self.key = key

        def fit(self, X: np.ndarray, y: np.ndarray) -> Recorder:
            self.train = _fingerprint(X, y)
            return self

        def predict(self, X: np.ndarray) -> np.ndarray:
            seen.setdefault(self.key, []).append(self.train + _fingerprint(X))
            return np.zeros(len(X), dtype=int)

    benchmarks, seeds, n_trials = ["moons", "wine"], [0, 1], 4
    for algorithm in ("kNN", "LR"):
        for benchmark in benchmarks:
            for seed in seeds:
                key = (algorithm, benchmark, seed)
                spec = dataclasses.replace(
                    ALGORITHMS[algorithm], builder=lambda p, r, key=key: Recorder(key)
                )
                monkeypatch.setitem(ALGORITHMS, algorithm, spec)
                rows, failures = jordan2018.run_search(benchmark, algorithm, seed, n_trials)
                assert failures == [] and len(rows) == n_trials
    for benchmark in benchmarks:
        for seed in seeds:
            knn, lr = seen[("kNN", benchmark, seed)], seen[("LR", benchmark, seed)]
            assert knn == lr  # paired: same split for every algorithm, trial by trial
            assert len(set(knn)) == n_trials  # a fresh split for every trial
    all_splits = [f for key, splits in seen.items() if key[0] == "kNN" for f in splits]
    assert len(set(all_splits)) == len(benchmarks) * len(seeds) * n_trials


#: The data sets that ship with scikit-learn: fixed points, a fresh split per trial.
FIXED = {"digits", "breast_cancer", "wine", "iris"}


@pytest.mark.parametrize("data_set", list(DATASETS))
def test_synthetic_data_are_sampled_afresh_for_every_trial(data_set: str) -> None:
    def pooled(trial: int) -> np.ndarray:
        X_train, X_test, _, _ = jordan2018.split(data_set, 0, trial)
        X = np.concatenate([X_train, X_test])
        return X[np.lexsort(X.T)]

    if data_set in FIXED:
        # A fixed data set: the same points, split differently.
        np.testing.assert_array_equal(pooled(1), pooled(2))
    else:
        # A synthetic problem: a new sample of points, not only a new split.
        assert not np.array_equal(pooled(1), pooled(2))
    assert not np.array_equal(
        jordan2018.split(data_set, 0, 1)[1], jordan2018.split(data_set, 0, 2)[1]
    )


def test_benchmarks_are_varied() -> None:
    # The set spans sizes, dimensions and class counts (the variety across which
    # a claim "across benchmarks" is meant to generalise), and no two data sets
    # are the same problem under two names.
    shapes = {}
    for name, make in DATASETS.items():
        X, y = make(0)
        shapes[name] = (X.shape[0], X.shape[1], len(np.unique(y)))
        assert np.isfinite(X).all(), name
        assert np.bincount(np.unique(y, return_inverse=True)[1]).min() >= 10, name
    dims = {d for _, d, _ in shapes.values()}
    classes = {k for _, _, k in shapes.values()}
    assert {2, 4, 10, 64}.issubset(dims) and max(dims) >= 50
    assert {2, 3, 4, 6, 10}.issubset(classes)
    fingerprints = {name: _fingerprint(*make(0)) for name, make in DATASETS.items()}
    assert len(set(fingerprints.values())) == len(DATASETS)


def test_appending_benchmarks_kept_the_original_streams() -> None:
    # A benchmark's position in DATASETS is part of its random streams, so new
    # data sets are appended: the six original benchmarks keep the data seeds
    # (and hence the splits and samples) they had when there were only six.
    # The expected values were computed by the six-benchmark generator.
    assert list(DATASETS)[:6] == ["moons", "circles", "linear", "digits", "breast_cancer", "wine"]
    assert jordan2018.data_seed("moons", 0, 1) == 232013918
    assert jordan2018.data_seed("wine", 9, 20) == 1346200181


def test_failed_fits_are_recorded_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = ALGORITHMS["kNN"]

    class Broken:
        def fit(self, X, y):
            raise RuntimeError("boom")

    def build(params, random_state):
        return Broken() if params["n_neighbors"] > 3 else spec.builder(params, random_state)

    monkeypatch.setitem(ALGORITHMS, "kNN", dataclasses.replace(spec, builder=build))
    trials, failures = generate(["wine"], ["kNN"], n_seeds=1, n_trials=10, progress=False)
    configs = sample_configs("wine", "kNN", 0, 10)
    broken = [t for t, c in enumerate(configs, start=1) if c["n_neighbors"] > 3]
    assert 0 < len(broken) < 10
    assert failures["trial"].tolist() == broken
    assert failures["error"].str.contains("boom").all()
    assert sorted(trials["trial"].tolist() + broken) == list(range(1, 11))


def test_command_line_writes_a_loadable_file(tmp_path, monkeypatch, capsys) -> None:
    code = jordan2018.main(
        [
            "--out",
            str(tmp_path),
            "--seeds",
            "2",
            "--trials",
            "2",
            "--benchmarks",
            "wine",
            "circles",
            "--algorithms",
            "kNN",
            "LR",
            "--no-progress",
        ]
    )
    assert code == 0
    assert "wrote 16 trials" in capsys.readouterr().out
    assert not (tmp_path / jordan2018.FAILURES_FILE).exists()
    monkeypatch.setenv(examples.EXAMPLE_ENV, str(tmp_path))
    assert example_path() == tmp_path / examples.EXAMPLE_FILE
    res = load_example()
    assert (len(res.algorithms), len(res.benchmarks), len(res.seeds)) == (2, 2, 2)
    assert len(res) == 16


def test_module_command_runs_with_parallel_workers(tmp_path) -> None:
    # `python -m` runs the module as __main__; its joblib workers must still
    # find the cells' functions (regression: a module-level cache was unpicklable).
    import subprocess
    import sys

    command = [sys.executable, "-m", "benchverdict.examples.jordan2018", "--out", str(tmp_path)]
    command += ["--seeds", "1", "--trials", "2", "--benchmarks", "wine", "digits"]
    command += ["--algorithms", "kNN", "--n-jobs", "2", "--no-progress"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    written = pd.read_csv(tmp_path / examples.EXAMPLE_FILE)
    serial, _ = generate(["wine", "digits"], ["kNN"], n_seeds=1, n_trials=2, progress=False)
    np.testing.assert_allclose(written["accuracy"], serial["accuracy"], rtol=1e-9)


def test_missing_file_error_says_how_to_regenerate(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(examples, "_candidates", lambda: [tmp_path / "nope.csv.gz"])
    with pytest.raises(FileNotFoundError, match=r"python -m benchverdict\.examples\.jordan2018"):
        example_path()


def test_unknown_names_raise() -> None:
    with pytest.raises(KeyError, match="unknown"):
        generate(["mnist"], ["kNN"], n_seeds=1, n_trials=1, progress=False)
    with pytest.raises(KeyError, match="unknown"):
        sample_configs("moons", "XGB", 0, 1)


# ---------------------------------------------------------------------------- samplers
def test_search_spaces_are_the_documented_ones() -> None:
    assert set(ALGORITHMS) == set(DOCUMENTED_SPACES)
    for name, spec in ALGORITHMS.items():
        assert spec.name == name
        documented = DOCUMENTED_SPACES[name]
        assert [hp.name for hp in spec.space] == list(documented)
        for hp in spec.space:
            kind, *rest = documented[hp.name]
            assert hp.kind == kind
            if kind == "choice":
                assert hp.choices == rest[0]
            else:
                assert (hp.low, hp.high, hp.log) == tuple(rest)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), algorithm=st.sampled_from(sorted(ALGORITHMS)))
def test_samplers_respect_their_ranges(seed: int, algorithm: str) -> None:
    spec = ALGORITHMS[algorithm]
    rng = np.random.default_rng(seed)
    for _ in range(5):
        params = spec.sample(rng)
        assert spec.contains(params)
        for hp in spec.space:
            value = params[hp.name]
            if hp.kind == "int":
                assert isinstance(value, int)
                assert hp.low <= value <= hp.high
            elif hp.kind == "float":
                assert isinstance(value, float)
                assert hp.low <= value <= hp.high
            else:
                assert value in hp.choices


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), algorithm=st.sampled_from(sorted(ALGORITHMS)))
def test_sampled_configurations_build_estimators(seed: int, algorithm: str) -> None:
    from sklearn.base import is_classifier

    spec = ALGORITHMS[algorithm]
    model = spec.build(spec.sample(np.random.default_rng(seed)), seed=seed)
    assert is_classifier(model)
    assert (type(model).__name__ == "Pipeline") == spec.standardize


def test_contains_rejects_out_of_range_and_extra_names() -> None:
    spec = ALGORITHMS["SVM"]
    assert not spec.contains({"C": 1e4, "gamma": 1.0})
    assert not spec.contains({"C": 1.0})
    assert not spec.contains({"C": 1.0, "gamma": 1.0, "degree": 3})
    assert not ALGORITHMS["kNN"].contains({"n_neighbors": 2.5, "weights": "uniform", "p": 2})


def test_log_uniform_integer_frequencies() -> None:
    # floor of a log-uniform draw on [1, 51): P(k) = log((k+1)/k) / log(51).
    hp = Hyperparameter("k", "int", 1, 50, log=True)
    rng = np.random.default_rng(12345)
    n = 20_000
    draws = np.array([hp.sample(rng) for _ in range(n)])
    for k in (1, 2, 10, 50):
        p = math.log((k + 1) / k) / math.log(51)
        count = int((draws == k).sum())
        # Two-sided 99.9% binomial acceptance region for the count.
        low, high = stats.binom.ppf([0.0005, 0.9995], n, p)
        assert low <= count <= high, (k, count, n * p)


def test_log_uniform_float_is_uniform_on_the_log_scale() -> None:
    hp = Hyperparameter("C", "float", 1e-3, 1e3, log=True)
    rng = np.random.default_rng(2024)
    logs = np.log10([hp.sample(rng) for _ in range(5_000)])
    # Fixed seed, so deterministic; fails only if the sampler is not log-uniform.
    assert stats.kstest(logs, stats.uniform(loc=-3, scale=6).cdf).pvalue > 1e-3


def test_invalid_hyperparameters_raise() -> None:
    with pytest.raises(ValueError, match="low <= high"):
        Hyperparameter("x", "float", 2.0, 1.0)
    with pytest.raises(ValueError, match="low > 0"):
        Hyperparameter("x", "float", 0.0, 1.0, log=True)
    with pytest.raises(ValueError, match="at least one"):
        Hyperparameter("x", "choice")
    with pytest.raises(KeyError, match="lacks"):
        ALGORITHMS["LR"].build({}, seed=0)
