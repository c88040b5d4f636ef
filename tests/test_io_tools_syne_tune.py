"""The Syne Tune reader on real Syne Tune experiments (skipped when Syne Tune is absent).

Syne Tune is in the ``tools`` extra, which ``nox -s tests`` installs. Each trial is a
subprocess of Syne Tune's local backend (~1 s each), so the experiments are tiny.
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import pandas as pd
import pytest

import benchverdict as bv
from benchverdict.io import adapters

syne_tune = pytest.importorskip("syne_tune")
from syne_tune.backend import PythonBackend  # noqa: E402
from syne_tune.config_space import uniform  # noqa: E402
from syne_tune.experiments import load_experiment  # noqa: E402
from syne_tune.optimizer.baselines import TPE, RandomSearch  # noqa: E402


def train_sphere(x: float, y: float, epochs: int):
    from syne_tune import Reporter

    report = Reporter()
    for epoch in range(1, epochs + 1):
        report(epoch=epoch, loss=x * x + y * y + 1.0 / epoch)


def train_shifted(x: float, y: float, epochs: int):
    from syne_tune import Reporter

    report = Reporter()
    for epoch in range(1, epochs + 1):
        report(epoch=epoch, loss=abs(x - 1) + abs(y + 1) + 0.5 / epoch)


SPACE = {"x": uniform(-3, 3), "y": uniform(-3, 3), "epochs": 2}
PROBLEMS = {"sphere": train_sphere, "shifted": train_shifted}


@pytest.fixture(scope="module")
def experiments(tmp_path_factory):
    root = tmp_path_factory.mktemp("syne-tune")
    old = os.environ.get("SYNETUNE_FOLDER")
    os.environ["SYNETUNE_FOLDER"] = str(root)
    here = os.getcwd()
    os.chdir(root)  # Syne Tune writes a std.out file (from nvidia-smi) in the working folder
    names = []
    try:
        for bench, func in PROBLEMS.items():
            for seed in (0, 1):
                for scheduler in (RandomSearch(SPACE, metrics=["loss"], random_seed=seed),
                                  TPE(SPACE, metric="loss", random_seed=seed)):
                    tuner = syne_tune.Tuner(
                        trial_backend=PythonBackend(tune_function=func, config_space=SPACE),
                        scheduler=scheduler, n_workers=2, sleep_time=0.01, save_tuner=False,
                        stop_criterion=syne_tune.StoppingCriterion(max_num_trials_finished=3),
                        metadata={"benchmark": bench}, print_update_interval=1000,
                        tuner_name=f"{bench}-{type(scheduler).__name__}-{seed}")
                    tuner.run()
                    names.append(tuner.name)
    finally:
        os.chdir(here)
        if old is None:
            os.environ.pop("SYNETUNE_FOLDER", None)
        else:
            os.environ["SYNETUNE_FOLDER"] = old
    return root, names


def test_reads_syne_tune_best_over_time(experiments):
    root, names = experiments
    res = adapters.read_syne_tune(root)
    assert res.algorithms == ["RandomSearch", "TPE"] and res.benchmarks == ["shifted", "sphere"]
    assert res.seeds == [0, 1] and res.objective == "minimize" and res.kind == "runs"
    assert res.roles == {"algorithm": "algorithm", "seed": "seed", "score": "loss",
                         "benchmark": "benchmark", "budget": "st_tuner_time"}
    os.environ["SYNETUNE_FOLDER"] = str(root)
    try:
        for name in names:
            exp = load_experiment(name)  # Syne Tune's own loader of the same experiment
            bench, alg, seed = name.split("-")[:3]
            df = exp.results.sort_values("st_tuner_time")
            want = df.groupby("st_tuner_time")["loss"].min().cummin()  # as Syne Tune plots it
            t = res.table
            got = t[(t["algorithm"] == alg) & (t["benchmark"] == bench)
                    & (t["seed"] == int(seed))].sort_values("budget")
            np.testing.assert_allclose(got["budget"], want.index)
            np.testing.assert_allclose(got["score"], want.to_numpy())
    finally:
        os.environ.pop("SYNETUNE_FOLDER", None)
    comp = bv.compare(res, analyses=["ranks"], progress=False)
    assert comp.runs[0].status == "ok"


def test_trials_without_results_are_exclusions(experiments):
    root, _ = experiments
    res = adapters.read_syne_tune(root)
    folders = [p for p in root.rglob("*") if p.is_dir() and p.name.isdigit()]
    reported = 0
    for exp in {p.parent for p in folders}:
        reported += pd.read_csv(exp / "results.csv.zip")["trial_id"].nunique()
    assert len(res.exclusions) == len(folders) - reported
    assert res.exclusions["reason"].str.startswith("Syne Tune trial reported no result").all()


def test_metric_choice_and_identity_errors(experiments):
    root, _ = experiments
    with pytest.raises(ValueError, match="has no metric 'accuracy'"):
        adapters.read_syne_tune(root, metric="accuracy")
    with pytest.raises(ValueError, match="do not match name_pattern"):
        adapters.read_syne_tune(root, name_pattern=r"(?P<algorithm>x+)")


def test_close_report_times_stay_distinct_rows(experiments, tmp_path):
    # Reports 1 microsecond apart (two workers can report that close): each is its own row.
    # Labels rounded to 6 significant digits once merged them into duplicate labels.
    root, names = experiments
    lengths = []
    for name in names[:2]:  # RandomSearch and TPE, sphere, seed 0
        shutil.copytree(root / name, tmp_path / name)
        results = pd.read_csv(tmp_path / name / "results.csv.zip")
        results = results.sort_values("st_tuner_time").reset_index(drop=True)
        results["loss"] = np.arange(len(results), 0, -1, dtype=float)  # every report improves
        results["st_tuner_time"] = 12.345678 + np.arange(len(results)) * 1e-6
        results.to_csv(tmp_path / name / "results.csv.zip", index=False)
        lengths.append(len(results))
    res = adapters.read_syne_tune(tmp_path)
    assert len(res) == sum(lengths) and res.table.index.is_unique
    for alg, n in zip(["RandomSearch", "TPE"], lengths):
        run = res.table[res.table["algorithm"] == alg].sort_values("budget")
        np.testing.assert_allclose(run["score"], np.arange(n, 0, -1))
