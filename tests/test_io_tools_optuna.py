"""The Optuna reader on real Optuna studies (skipped when Optuna is not installed).

Studies are made here with Optuna itself (small, seeded): three samplers on two
toy objectives with five seeds, with a pruner and failing trials so that
pruned and failed trials occur.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import benchverdict as bv
from benchverdict.cli import main
from benchverdict.io import adapters

optuna = pytest.importorskip("optuna")
pytestmark = pytest.mark.filterwarnings("ignore::optuna.exceptions.ExperimentalWarning")
optuna.logging.set_verbosity(optuna.logging.WARNING)

SAMPLERS = ("RandomSampler", "TPESampler", "QMCSampler")
SEEDS = range(5)
N_TRIALS = 12


def sphere(trial, sign=1.0):
    x = trial.suggest_float("x", -5, 5)
    y = trial.suggest_float("y", -5, 5)
    return sign * (x * x + y * y)


def pruned_rosenbrock(trial, sign=1.0):
    """Rosenbrock reported over three steps (so the median pruner can stop it); fails for x > 4."""
    x = trial.suggest_float("x", -2, 5)
    y = trial.suggest_float("y", -2, 5)
    value = (1 - x) ** 2 + 100 * (y - x * x) ** 2
    for step in range(3):
        trial.report(sign * value * (1 + (2 - step) / 10), step)
        if trial.should_prune():
            raise optuna.TrialPruned()
    if x > 4:
        raise ValueError("diverged")  # a real failure: Optuna records it as FAIL
    return sign * value


OBJECTIVES = {"sphere": sphere, "rosenbrock": pruned_rosenbrock}


def make_sampler(name, seed):
    if name == "QMCSampler":
        return optuna.samplers.QMCSampler(seed=seed, scramble=True)
    return getattr(optuna.samplers, name)(seed=seed)


def make_studies(storage=None, *, direction="minimize", attrs=True, samplers=SAMPLERS,
                 seeds=SEEDS, objectives=tuple(OBJECTIVES), name_format="{a}-{b}-{s}"):
    sign = 1.0 if direction == "minimize" else -1.0
    studies = []
    for bench in objectives:
        for alg in samplers:
            for seed in seeds:
                study = optuna.create_study(
                    storage=storage, study_name=name_format.format(a=alg, b=bench, s=seed),
                    sampler=make_sampler(alg, seed), direction=direction,
                    pruner=optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=1),
                )
                if attrs:
                    study.set_user_attr("algorithm", alg)
                    study.set_user_attr("benchmark", bench)
                    study.set_user_attr("seed", seed)
                func = OBJECTIVES[bench]
                study.optimize(lambda t, f=func: f(t, sign), n_trials=N_TRIALS,
                               catch=(ValueError,))
                studies.append(study)
    return studies


@contextlib.contextmanager
def sqlite_folder(fallback):
    """A folder for SQLite files: on tmpfs where there is one, else ``fallback()``.

    Optuna commits every trial to SQLite, and each commit waits for the disk: on tmpfs
    (/dev/shm) the module's 360 trials take ~25 s instead of ~85 s.
    """
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield fallback()
        return
    folder = Path(tempfile.mkdtemp(prefix="benchverdict-optuna-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def storage(tmp_path_factory):
    with sqlite_folder(lambda: tmp_path_factory.mktemp("optuna")) as folder:
        path = folder / "studies.db"
        yield path, make_studies(f"sqlite:///{path}")


@pytest.fixture
def db_url(tmp_path):
    with sqlite_folder(lambda: tmp_path) as folder:
        yield f"sqlite:///{folder / 's.db'}"


def test_done_when_three_samplers_two_objectives_five_seeds_report(storage):
    path, studies = storage
    res = adapters.read_optuna(path)
    assert res.algorithms == sorted(SAMPLERS)
    assert res.benchmarks == ["rosenbrock", "sphere"]
    assert res.seeds == list(SEEDS)
    assert res.objective == "minimize" and res.kind == "runs"
    assert res.roles["budget"] == "trials" and res.roles["score"] == "value"
    # Every non-complete trial is an exclusion, with Optuna's state; nothing else is lost.
    states = pd.Series([t.state.name for s in studies for t in s.trials])
    assert (states == "PRUNED").sum() > 0 and (states == "FAIL").sum() > 0
    assert len(res) == (states == "COMPLETE").sum()
    assert len(res.exclusions) == (states != "COMPLETE").sum()
    reasons = res.exclusions["reason"]
    assert reasons.str.startswith("Optuna trial state PRUNED (stopped at step").sum() == (
        states == "PRUNED").sum()
    assert (reasons == "Optuna trial state FAIL").sum() == (states == "FAIL").sum()
    comp = bv.compare(res, progress=False)
    ran = {run.name: run.status for run in comp.runs}
    assert ran["ranks"] == "ok" and ran["lmem"] == "ok", ran
    assert set(comp.verdict_table["module"]) >= {"ranks", "lmem"}
    # The pruned and failed trials are listed in the report's exclusions.
    validation = comp.exclusions[comp.exclusions["analysis"] == "validation"]
    assert len(validation) == len(res.exclusions)


def test_done_when_report_end_to_end_from_the_cli(storage, tmp_path, capsys):
    """The issue's done-when: Optuna studies -> ``benchverdict report --adapter optuna``."""
    path, studies = storage
    out = tmp_path / "report"
    assert main(["report", str(path), "--adapter", "optuna", "--no-progress",
                 "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "ranks   ok" in printed and "lmem    ok" in printed
    doc = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert doc["objective"] == "minimize"
    ran = {a["name"]: a["status"] for a in doc["analyses"]}
    assert ran["ranks"] == "ok" and ran["lmem"] == "ok", ran
    # Every sampler is compared, and every pruned or failed trial is accounted for.
    named = {name for v in doc["verdicts"] for name in (v["a"], v["b"])}
    assert named == set(SAMPLERS)
    states = pd.Series([t.state.name for s in studies for t in s.trials])
    excluded = pd.read_csv(out / "exclusions.csv")
    validation = excluded[excluded["analysis"] == "validation"]
    assert len(validation) == (states != "COMPLETE").sum()
    # exclusions.csv gives each one's Optuna state as its reason.
    states_read = validation["reason"].str.extract(r"Optuna trial state (\w+)")[0]
    assert states_read.notna().all()
    assert states_read.value_counts().to_dict() == \
        states[states != "COMPLETE"].value_counts().to_dict()
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert all(sampler in markdown for sampler in SAMPLERS)


def test_done_when_leaderboard_end_to_end_from_the_cli(storage, tmp_path, capsys):
    """The issue's done-when: a leaderboard from two samplers' studies, then a third submitted.

    The submission is one sampler's studies in their own SQLite file (a single
    algorithm: ``--adapter optuna`` reads it for a leaderboard).
    """
    _, studies = storage
    first, last = SAMPLERS[:2], SAMPLERS[2]
    base_db, new_db = tmp_path / "base.db", tmp_path / "new.db"
    make_studies(f"sqlite:///{base_db}", samplers=first)
    make_studies(f"sqlite:///{new_db}", samplers=(last,))
    board_dir = tmp_path / "board"
    # --cost seconds: the adapter keeps Optuna's trial times, and the update reads the
    # submission's too (the board's cost is kept).
    assert main(["leaderboard", str(base_db), "--adapter", "optuna", "--no-progress",
                 "--cost", "seconds", "-o", str(board_dir)]) == 0
    assert "Pareto" in capsys.readouterr().out
    assert main(["leaderboard", "--update", str(board_dir), str(new_db), "--adapter", "optuna",
                 "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert f"{last} enters at position" in printed
    doc = json.loads((board_dir / "leaderboard.json").read_text(encoding="utf-8"))
    assert doc["version"] == 2 and doc["design"]["objective"] == "minimize"
    assert {e["algorithm"] for e in doc["entries"]} == set(SAMPLERS)
    assert (board_dir / "versions" / "v0001" / "leaderboard.json").exists()
    costs = {m["algorithm"]: m["mean"] for m in doc["metrics"] if m["role"] == "cost"}
    assert set(costs) == set(SAMPLERS) and all(v > 0 for v in costs.values())
    assert main(["validate", str(new_db), "--adapter", "smac", "--seconds"]) == 2
    assert "does not use --seconds" in capsys.readouterr().err
    # Pruned trials of the submission are accounted for in the leaderboard's notes.
    pruned = sum(t.state.name != "COMPLETE" for s in studies for t in s.trials
                 if s.user_attrs["algorithm"] == last)
    if pruned:
        assert any("excluded when read" in n for n in doc["notes"])


def test_incumbent_is_optunas_own_best_value(storage):
    path, studies = storage
    res = adapters.read_optuna(path)
    table = res.table
    for study in studies:
        alg, bench, seed = (study.user_attrs[k] for k in ("algorithm", "benchmark", "seed"))
        rows = table[(table["algorithm"] == alg) & (table["benchmark"] == bench)
                     & (table["seed"] == seed)].sort_values("budget")
        complete = [t for t in study.trials if t.state.name == "COMPLETE"]
        assert rows["budget"].tolist() == [t.number + 1 for t in complete]
        assert rows["score"].tolist() == list(np.minimum.accumulate([t.value for t in complete]))
        assert rows["score"].iloc[-1] == study.best_value  # Optuna's own record


def test_study_objects_name_the_algorithm_by_sampler():
    studies = make_studies(attrs=False, seeds=range(2), objectives=("sphere",),
                           name_format="{b}/{s}/{a}")
    for s in studies:
        s.set_user_attr("seed", int(s.study_name.split("/")[1]))
    res = adapters.read_optuna(studies)
    assert res.algorithms == sorted(SAMPLERS)
    # A user attribute wins over the sampler.
    studies[0].set_user_attr("algorithm", "my-random")
    assert "my-random" in adapters.read_optuna(studies).algorithms


def test_name_pattern_gives_roles(db_url):
    url = db_url
    make_studies(url, attrs=False, seeds=range(2), name_format="{a}__{b}__seed{s}")
    pattern = r"(?P<algorithm>\w+)__(?P<benchmark>\w+)__seed(?P<seed>\d+)"
    res = adapters.read_optuna(url, name_pattern=pattern)
    assert res.algorithms == sorted(SAMPLERS) and res.seeds == [0, 1]
    with pytest.raises(ValueError, match="do not match name_pattern"):
        adapters.read_optuna(url, name_pattern=r"(?P<algorithm>\w+)-(?P<seed>\d+)")
    with pytest.raises(ValueError, match=r"do not say their algorithm.*set_user_attr"):
        adapters.read_optuna(url)


def test_missing_seed_named_with_fix(db_url):
    url = db_url
    studies = make_studies(url, attrs=False, seeds=range(1), objectives=("sphere",))
    for s in studies:
        s.set_user_attr("algorithm", "x" + s.study_name)
    with pytest.raises(ValueError, match=r"3 Optuna run\(s\) do not say their seed.*'seed'"):
        adapters.read_optuna(url)


def test_negated_objective_with_flipped_direction_changes_nothing():
    kw = dict(seeds=range(3), objectives=("sphere",), samplers=("RandomSampler", "TPESampler"))
    low = adapters.read_optuna(make_studies(**kw))
    high = adapters.read_optuna(make_studies(direction="maximize", **kw))
    assert high.objective == "maximize"
    np.testing.assert_array_equal(high.table["score"], -low.table["score"])
    verdicts = [bv.compare(r, analyses=["ranks"], progress=False).verdict_table
                for r in (low, high)]
    cols = ["a", "b", "outcome", "method"]
    pd.testing.assert_frame_equal(verdicts[0][cols], verdicts[1][cols])


def test_order_of_studies_does_not_matter():
    studies = make_studies(seeds=range(2), objectives=("sphere",))
    a, b = adapters.read_optuna(studies), adapters.read_optuna(studies[::-1])
    key = ["algorithm", "benchmark", "seed", "budget"]
    pd.testing.assert_frame_equal(
        a.table.sort_values(key).reset_index(drop=True),
        b.table.sort_values(key).reset_index(drop=True))


def test_multi_objective_refused_or_read_by_index():
    studies = []
    for alg in ("RandomSampler", "TPESampler"):
        for seed in range(2):
            s = optuna.create_study(directions=["minimize", "maximize"],
                                    sampler=make_sampler(alg, seed))
            s.set_metric_names(["loss", "accuracy"])
            s.set_user_attr("seed", seed)
            s.optimize(lambda t: (t.suggest_float("x", 0, 1), 1 - t.suggest_float("y", 0, 1)),
                       n_trials=5)
            studies.append(s)
    with pytest.raises(ValueError, match=r"2 objectives \(0: minimize 'loss', 1: maximize "
                                         r"'accuracy'\).*objective_index"):
        adapters.read_optuna(studies)
    res = adapters.read_optuna(studies, objective_index=1)
    assert res.objective == "maximize" and res.roles["score"] == "accuracy"
    first = studies[0]
    rows = res.table[(res.table["algorithm"] == "RandomSampler") & (res.table["seed"] == 0)]
    assert rows["score"].tolist() == list(np.maximum.accumulate(
        [t.values[1] for t in first.trials]))
    with pytest.raises(ValueError, match="has 2 objective"):
        adapters.read_optuna(studies, objective_index=2)


def test_mixed_directions_and_duplicate_identities_refused():
    kw = dict(seeds=range(1), objectives=("sphere",), samplers=("RandomSampler",))
    low, high = make_studies(**kw), make_studies(direction="maximize", **kw)
    high[0].set_user_attr("seed", 1)
    with pytest.raises(ValueError, match="do not share a direction"):
        adapters.read_optuna(low + high)
    twin = make_studies(**kw)
    with pytest.raises(ValueError, match=r"one run per .algorithm, benchmark, seed."):
        adapters.read_optuna(low + twin)


def test_trial_values_for_random_search():
    studies = make_studies(seeds=range(2), objectives=("sphere",),
                           samplers=("RandomSampler", "QMCSampler"))
    res = adapters.read_optuna(studies, values="trial")
    assert res.kind == "trials"
    draws = res.draws("RandomSampler", "sphere")
    want = [t.value for s in studies[:2] for t in s.trials]
    assert sorted(draws) == sorted(want)
    assert "independent draw" in res.kind_reason


def test_study_names_and_bad_files(tmp_path, storage):
    path, studies = storage
    name = studies[0].study_name
    with pytest.raises(ValueError, match="no study named"):
        adapters.read_optuna(path, study_names=[name, "nope"])
    bad = tmp_path / "x.db"
    bad.write_text("not sqlite")
    with pytest.raises(ValueError, match="not an SQLite database"):
        adapters.read_optuna(bad)
    with pytest.raises(FileNotFoundError):
        adapters.read_optuna(tmp_path / "missing.db")


def test_cli_reads_an_optuna_storage(storage, tmp_path, capsys):
    path, _ = storage
    # validate exits 1 whenever rows are excluded, and lists them by Optuna state.
    assert main(["validate", str(path), "--adapter", "optuna"]) == 1
    out = capsys.readouterr().out
    assert "QMCSampler" in out and "Optuna trial state FAIL" in out
    assert "Optuna trial state PRUNED (stopped at step" in out
    assert main(["report", str(path), "--adapter", "optuna", "--analyses", "ranks",
                 "--no-progress", "-o", str(tmp_path / "rep")]) == 0
    assert (tmp_path / "rep").is_dir() and any((tmp_path / "rep").iterdir())
    # The storage URL the error messages recommend works on the command line too (review:
    # argparse's Path folded sqlite:/// into sqlite:/ and the file was "not found").
    assert main(["validate", f"sqlite:///{path}", "--adapter", "optuna"]) == 1
    assert "QMCSampler" in capsys.readouterr().out
    # A URL for any other reader is refused with the fix, not read as a missing file.
    assert main(["validate", f"sqlite:///{path}", "--algorithm", "a", "--seed", "s",
                 "--score", "v", "--objective", "minimize"]) == 2
    assert "only --adapter optuna reads a storage URL" in capsys.readouterr().err


def test_fail_value_nan_is_never_an_incumbent():
    # Optuna refuses NaN as a result (the trial becomes FAIL): the reader records it.
    s = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    s.set_user_attr("seed", 0)
    s.optimize(lambda t: math.nan if t.number == 1 else t.suggest_float("x", 0, 1), n_trials=4)
    t = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0))
    t.set_user_attr("seed", 0)
    t.optimize(lambda tr: tr.suggest_float("x", 0, 1), n_trials=4)
    res = adapters.read_optuna([s, t])
    assert len(res) == 7 and res.exclusions["reason"].tolist() == ["Optuna trial state FAIL"]
    assert np.isfinite(res.table["score"]).all()


def _timed_study(name, trials):
    """A study whose trials have the given (state, value, start, end) in seconds."""
    import datetime as dt

    t0 = dt.datetime(2026, 1, 1, 12, 0, 0)
    study = optuna.create_study(study_name=name)
    space = {"x": optuna.distributions.FloatDistribution(0, 1)}
    for state, value, start, end in trials:
        trial = optuna.trial.create_trial(state=getattr(optuna.trial.TrialState, state),
                                          value=value, params={"x": 0.5}, distributions=space)
        trial.datetime_start = t0 + dt.timedelta(seconds=start)
        trial.datetime_complete = t0 + dt.timedelta(seconds=end)
        study.add_trial(trial)
    return study


def test_seconds_are_what_the_study_spent_failed_and_pruned_trials_included():
    a = _timed_study("A-f-0", [("COMPLETE", 5.0, 0, 2), ("FAIL", None, 2, 5),
                               ("COMPLETE", 3.0, 5, 6), ("PRUNED", None, 6, 10),
                               ("COMPLETE", 4.0, 10, 11)])
    b = _timed_study("B-f-0", [("COMPLETE", 1.0, 0, 7)]
                     + [("COMPLETE", 2.0, 7 + i, 8 + i) for i in range(4)])
    pattern = r"(?P<algorithm>\w)-(?P<benchmark>\w)-(?P<seed>\d)"
    runs = adapters.read_optuna([a, b], name_pattern=pattern, seconds=True)
    assert runs.metafeatures == ("seconds",)
    # A: 2; 2 + 3 + 1; 6 + 4 + 1 (the failed and the pruned trial took time too).
    assert runs.table["seconds"].tolist() == [2.0, 6.0, 11.0, 7.0, 8.0, 9.0, 10.0, 11.0]
    trials = adapters.read_optuna([a, b], name_pattern=pattern, seconds=True, values="trial")
    assert trials.table["seconds"].tolist() == [2.0, 1.0, 1.0, 7.0, 1.0, 1.0, 1.0, 1.0]
    assert adapters.read_optuna([a, b], name_pattern=pattern).metafeatures == ()
    from benchverdict.leaderboard import build_leaderboard

    more = [_timed_study("A-g-0", [("COMPLETE", 2.0, i, i + 1) for i in range(5)]),
            _timed_study("B-g-0", [("COMPLETE", 9.0, 3 * i, 3 * i + 3) for i in range(5)])]
    both = adapters.read_optuna([a, b, *more], name_pattern=pattern, seconds=True)
    board = build_leaderboard(both, analyses=["ranks"], arena=False, cost="seconds")
    assert board.metrics.set_index("algorithm")["mean"].to_dict() == {"A": 8.0, "B": 13.0}
