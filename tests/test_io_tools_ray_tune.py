"""The Ray Tune reader on real Ray Tune experiments (skipped when Ray Tune is absent).

One local Ray instance (started once, ~5 s) runs two search algorithms (random search,
OptunaSearch) on a toy problem with two seeds; a trial fails whenever x > 1.5, so ERROR
trials occur.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from benchverdict.cli import main
from benchverdict.io import adapters

tune = pytest.importorskip("ray.tune")
optuna = pytest.importorskip("optuna")  # OptunaSearch, the second search algorithm
import ray  # noqa: E402
from ray import cloudpickle  # noqa: E402
from ray.tune.search.basic_variant import BasicVariantGenerator  # noqa: E402
from ray.tune.search.optuna import OptunaSearch  # noqa: E402

PATTERN = r"(?P<benchmark>[a-z]+)-(?P<algorithm>\w+)-(?P<seed>\d+)"
SEEDS = (0, 1)
N_TRIALS = 4


def sphere(config):
    if config["x"] > 1.5:
        raise RuntimeError("diverged")  # a real failure: Ray records the trial as ERROR
    for step in range(2):
        tune.report({"loss": config["x"] ** 2 + config["y"] ** 2 + 1.0 / (step + 1)})


# One problem only: every Tuner.fit() costs ~7 s of Ray overhead on two cores.
PROBLEMS = {"sphere": sphere}
SPACE = {"x": tune.uniform(-3, 3), "y": tune.uniform(-3, 3)}


def searcher(name, seed):
    if name == "random":
        return BasicVariantGenerator(random_state=seed)
    return OptunaSearch(seed=seed)


@pytest.fixture(scope="module")
def experiments(tmp_path_factory):
    storage = tmp_path_factory.mktemp("ray-tune")
    # Ray's workers cannot import this test module: ship its functions by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    grids = {}
    try:
        for bench, func in PROBLEMS.items():
            for alg in ("random", "optuna"):
                for seed in SEEDS:
                    name = f"{bench}-{alg}-{seed}"
                    grids[name] = tune.Tuner(
                        func, param_space=SPACE,
                        tune_config=tune.TuneConfig(metric="loss", mode="min", num_samples=N_TRIALS,
                                                    search_alg=searcher(alg, seed)),
                        run_config=tune.RunConfig(name=name, storage_path=str(storage),
                                                  verbose=0),
                    ).fit()
    finally:
        ray.shutdown()
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    return storage, grids


def test_reads_ray_tune_experiments(experiments):
    storage, grids = experiments
    # Read from Ray's JSON records alone (the mode is only in tuner.pkl: given here).
    res = adapters.read_ray_tune(storage, name_pattern=PATTERN, objective="minimize")
    trusted = adapters.read_ray_tune(storage, name_pattern=PATTERN, trust_pickle=True)
    pd.testing.assert_frame_equal(res.table, trusted.table)
    assert res.algorithms == ["optuna", "random"] and res.benchmarks == ["sphere"]
    assert res.seeds == list(SEEDS) and res.objective == "minimize" and res.kind == "runs"
    assert res.roles["score"] == "loss" and res.roles["budget"] == "trials"
    t = res.table
    for name, grid in grids.items():
        bench, alg, seed = name.split("-")
        run = t[(t["benchmark"] == bench) & (t["algorithm"] == alg)
                & (t["seed"] == int(seed))].sort_values("budget")
        # Each row is a terminated trial; the last incumbent is Ray's own best result.
        assert len(run) == len(grid) - len(grid.errors)
        assert run["score"].iloc[-1] == pytest.approx(grid.get_best_result().metrics["loss"])
        # The incumbents are the running minimum of Ray's last-reported values, in the order
        # of Ray's trial counter (the number starting each experiment_tag).
        trials = sorted(tune.ExperimentAnalysis(grid.experiment_path).trials,
                        key=lambda tr: int(tr.experiment_tag.split("_")[0]))
        last = pd.Series([tr.last_result.get("loss") if tr.status == "TERMINATED" else None
                          for tr in trials], dtype=float)
        np.testing.assert_allclose(run["score"], last.dropna().cummin())
        np.testing.assert_array_equal(run["budget"], np.flatnonzero(last.notna()) + 1)
        # The same values as Ray's result frame (one row per trial with results).
        assert sorted(last.dropna()) == sorted(grid.get_dataframe()["loss"])


def test_errored_trials_are_exclusions(experiments):
    storage, grids = experiments
    res = adapters.read_ray_tune(storage, name_pattern=PATTERN, objective="minimize")
    errors = sum(len(g.errors) for g in grids.values())
    assert errors > 0  # P(x > 1.5) = 1/4 per trial; the seeds are fixed
    assert len(res.exclusions) == errors
    assert res.exclusions["reason"].str.startswith("Ray Tune trial state ERROR").all()
    # Their trial numbers still count: the budgets run 1..num_samples in every run.
    assert res.table["budget"].max() <= N_TRIALS
    assert len(res) + len(res.exclusions) == len(grids) * N_TRIALS


def test_result_grid_objects_and_recorded_algorithm(experiments):
    _, grids = experiments
    res = adapters.read_ray_tune(list(grids.values()),
                                 name_pattern=r"(?P<benchmark>[a-z]+)-\w+-(?P<seed>\d+)",
                                 trust_pickle=True)
    assert res.algorithms == ["BasicVariantGenerator", "OptunaSearch"]


def test_missing_seed_and_bad_input(experiments, tmp_path):
    storage, _ = experiments
    with pytest.raises(ValueError, match="do not say their seed"):
        adapters.read_ray_tune(storage, trust_pickle=True)
    with pytest.raises(ValueError, match="no Ray Tune experiment"):
        adapters.read_ray_tune(tmp_path)
    with pytest.raises(FileNotFoundError):
        adapters.read_ray_tune(tmp_path / "missing")


def test_cli_reads_ray_tune(experiments, capsys):
    storage, _ = experiments
    # 1: rows were excluded (the ERROR trials).
    assert main(["validate", str(storage), "--adapter", "ray-tune",
                 "--name-pattern", PATTERN, "--objective", "minimize"]) == 1
    out = capsys.readouterr().out
    assert "Ray Tune trial state ERROR" in out
