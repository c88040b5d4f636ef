"""The NePS reader on real NePS runs (skipped when NePS is absent).

NePS has no seed argument: it draws from Python's, NumPy's and torch's global
generators, so each run seeds all three first. Two cheap optimizers (random
search and regularized evolution) run on two toy problems with two seeds; an
evaluation crashes whenever x > 1.5, so crashed trials occur.
"""

from __future__ import annotations

import logging
import random

import numpy as np
import pytest

import benchverdict as bv
from benchverdict.cli import main
from benchverdict.io import adapters

neps = pytest.importorskip("neps")
import torch  # noqa: E402  (NePS depends on torch)

PATTERN = r"(?P<benchmark>[a-z]+)/(?P<algorithm>\w+)-(?P<seed>\d+)"
OPTIMIZERS = ("random_search", "neps_regularized_evolution")
SEEDS = (0, 1)
N_EVALUATIONS = 6


class Space(neps.PipelineSpace):
    x = neps.Float(lower=-3.0, upper=3.0)
    y = neps.Float(lower=-3.0, upper=3.0)


def sphere(x, y):
    if x > 1.5:
        raise RuntimeError("diverged")  # a real failure: NePS records the trial as crashed
    return x * x + y * y


def shifted(x, y):
    if x > 1.5:
        raise RuntimeError("diverged")
    return abs(x - 1) + abs(y + 1)


PROBLEMS = {"sphere": sphere, "shifted": shifted}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    top = tmp_path_factory.mktemp("neps")
    logging.getLogger("neps").setLevel(logging.CRITICAL)  # crashes are logged as errors
    for bench, func in PROBLEMS.items():
        for optimizer in OPTIMIZERS:
            for seed in SEEDS:
                random.seed(seed)
                np.random.seed(seed)  # noqa: NPY002  (NePS draws from the global generators)
                torch.manual_seed(seed)
                neps.run(func, Space(), optimizer=optimizer, ignore_errors=True,
                         root_directory=top / bench / f"{optimizer}-{seed}",
                         total_evaluations_to_spend=N_EVALUATIONS)
    return top


def test_reads_neps_runs(runs):
    res = adapters.read_neps(runs, name_pattern=PATTERN, trust_pickle=True)
    assert res.algorithms == sorted(OPTIMIZERS) and res.benchmarks == ["shifted", "sphere"]
    assert res.seeds == list(SEEDS) and res.objective == "minimize" and res.kind == "runs"
    assert res.roles["score"] == "objective_to_minimize"
    assert res.roles["budget"] == "evaluations"
    t = res.table
    for bench in PROBLEMS:
        for optimizer in OPTIMIZERS:
            for seed in SEEDS:
                full, short = neps.status(runs / bench / f"{optimizer}-{seed}")
                run = t[(t["benchmark"] == bench) & (t["algorithm"] == optimizer)
                        & (t["seed"] == seed)].sort_values("budget")
                # The last incumbent is NePS's own best; each row is a successful trial.
                assert run["score"].iloc[-1] == pytest.approx(
                    short["best_objective_to_minimize"])
                assert len(run) == short["num_success"]
                ok = full["objective_to_minimize"].astype(float)
                np.testing.assert_allclose(run["score"], ok.dropna().cummin())
                # Budgets count every sampled trial, crashed ones too (neps.status's order).
                np.testing.assert_array_equal(run["budget"], np.flatnonzero(ok.notna()) + 1)
    comp = bv.compare(res, analyses=["ranks"], progress=False)
    assert comp.runs[0].status == "ok"


def test_crashed_trials_are_exclusions(runs):
    res = adapters.read_neps(runs, name_pattern=PATTERN, trust_pickle=True)
    crashed = 0
    for root in {p.parent for p in runs.rglob("optimizer_info.yaml")}:
        full, short = neps.status(root)
        crashed += len(full) - int(short["num_success"])
    assert crashed > 0  # P(x > 1.5) = 1/4 per trial: no crash in 48 trials has p < 1e-5
    assert len(res.exclusions) == crashed
    assert res.exclusions["reason"].str.startswith(
        "NePS trial state crashed: RuntimeError: diverged").all()
    assert len(res) + len(res.exclusions) == len(PROBLEMS) * len(OPTIMIZERS) * len(SEEDS) * (
        N_EVALUATIONS)


def test_name_pattern_errors(runs, tmp_path):
    with pytest.raises(ValueError, match="do not say their seed"):
        adapters.read_neps(runs, trust_pickle=True)
    with pytest.raises(ValueError, match="do not match name_pattern"):
        adapters.read_neps(runs, name_pattern=r"(?P<seed>\d+)", trust_pickle=True)
    with pytest.raises(ValueError, match="no NePS run"):
        adapters.read_neps(tmp_path, trust_pickle=True)


def test_cli_reads_neps(runs, capsys):
    assert main(["validate", str(runs), "--adapter", "neps", "--name-pattern", PATTERN,
                 "--trust-pickle"]) == 1
    out = capsys.readouterr().out
    assert "NePS trial state crashed" in out
