"""The SMAC3 reader on real SMAC3 output (skipped when SMAC3 is not installed)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import benchverdict as bv
from benchverdict.cli import main
from benchverdict.io import adapters

smac = pytest.importorskip("smac")
from ConfigSpace import ConfigurationSpace, Float  # noqa: E402 (after the skip)

FACADES = ("RandomFacade", "HyperparameterOptimizationFacade")
SEEDS = (0, 1, 2)
PATTERN = r"(?P<benchmark>[a-z]+)-(?P<algorithm>\w+)/\d+"


def sphere(config, seed: int = 0) -> float:
    if config["x"] > 3.5:  # a real crash: SMAC records it as CRASHED with crash_cost
        raise ValueError("diverged")
    return config["x"] ** 2 + config["y"] ** 2


def absolute(config, seed: int = 0) -> float:
    return abs(config["x"] - 1) + abs(config["y"] + 2)


PROBLEMS = {"sphere": sphere, "absolute": absolute}


@pytest.fixture(scope="module")
def smac_output(tmp_path_factory):
    out = tmp_path_factory.mktemp("smac")
    space = ConfigurationSpace(seed=0)
    space.add([Float("x", (-5, 5)), Float("y", (-5, 5))])
    for bench, func in PROBLEMS.items():
        for facade in FACADES:
            for seed in SEEDS:
                # A finite crash cost: SMAC 2.4's random forest cannot fit an infinite one.
                scenario = smac.Scenario(space, deterministic=True, n_trials=8, seed=seed,
                                         name=f"{bench}-{facade}", output_directory=out,
                                         crash_cost=1e3)
                getattr(smac, facade)(scenario, func, overwrite=True,
                                      logging_level=40).optimize()
    return out


def test_reads_smac_runs_and_their_incumbents(smac_output):
    res = adapters.read_smac(smac_output, name_pattern=PATTERN)
    assert res.algorithms == sorted(FACADES) and res.benchmarks == ["absolute", "sphere"]
    assert res.seeds == list(SEEDS) and res.objective == "minimize" and res.kind == "runs"
    crashed = 0
    for folder in sorted(p.parent for p in smac_output.rglob("runhistory.json")):
        bench, facade = folder.parent.name.split("-")
        seed = json.loads((folder / "scenario.json").read_text())["seed"]
        trials = json.loads((folder / "runhistory.json").read_text())["data"]
        crashed += sum(t["status"] == 2 for t in trials)
        # Deterministic, no instances: SMAC's incumbent is the best successful cost so far.
        costs = [t["cost"] if t["status"] == 1 else np.inf for t in trials]
        running = np.minimum.accumulate(costs)
        t = res.table
        rows = t[(t["algorithm"] == facade) & (t["benchmark"] == bench) & (t["seed"] == seed)]
        for budget, score in zip(rows["budget"], rows["score"]):
            assert score == running[int(budget) - 1]
        assert rows["budget"].max() == len(trials)
    assert crashed > 0
    assert (res.exclusions["reason"] == "SMAC trial status CRASHED").sum() == crashed
    comp = bv.compare(res, analyses=["ranks", "lmem"], progress=False)
    assert {r.name: r.status for r in comp.runs} == {"ranks": "ok", "lmem": "ok"}


def test_runs_without_benchmark_collide_with_a_clear_message(smac_output):
    with pytest.raises(ValueError, match=r"one run per \(algorithm, benchmark, seed\).*"
                                         "name_pattern"):
        adapters.read_smac(smac_output)
    with pytest.raises(Exception, match="at least 2 algorithms"):
        adapters.read_smac(smac_output / "sphere-RandomFacade")


def test_incomplete_folder_and_cli(smac_output, tmp_path, capsys):
    broken = tmp_path / "run" / "0"
    broken.mkdir(parents=True)
    (broken / "runhistory.json").write_text('{"data": []}')
    with pytest.raises(FileNotFoundError, match=r"lacks scenario\.json"):
        adapters.read_smac(tmp_path)
    assert main(["validate", str(smac_output), "--adapter", "smac", "--name-pattern",
                 PATTERN]) == 1  # the crashed trials are listed: exit 1
    out = capsys.readouterr().out
    assert "HyperparameterOptimizationFacade" in out and "SMAC trial status CRASHED" in out
    assert main(["validate", str(smac_output), "--adapter", "smac"]) == 1
    assert "name_pattern" in capsys.readouterr().err
