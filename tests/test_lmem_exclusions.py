"""What an LMEM fit's input left out is counted and shown (issue 10, sections 3 and 4),
and the LMEM commands speak in command-line options."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchverdict import Results
from benchverdict.cli import main
from benchverdict.lmem import fit, lmem_verdicts
from benchverdict.lmem.exclusions import counts, exclusions_of
from benchverdict.lmem.sanity import seed_dependency
from benchverdict.lmem.simulate import simulate_results

ROLES = dict(algorithm="algorithm", benchmark="benchmark", seed="seed", budget="budget",
             score="score", objective="minimize")


@pytest.fixture
def runs() -> pd.DataFrame:
    return simulate_results(n_seeds=4, budgets=(1, 2, 3), algorithm_effect={"A": -2.0},
                            seed=0).table.copy()


def test_invalid_rows_dropped_at_validation_are_counted_in_the_model_and_verdicts(runs):
    runs["score"] = runs["score"].astype(float)
    runs.loc[[3, 10, 11], "score"] = np.nan
    res = Results.from_frame(runs, **ROLES, on_invalid="drop")
    m = fit(res, "score ~ algorithm + (1|benchmark)")
    assert m.n_excluded == {"excluded_rows": 3, "excluded_runs": 0}
    assert list(m.exclusions["row"]) == [3, 10, 11]
    assert "Left out of this fit: 3 input rows (missing score" in m.summary()
    assert all(v.details["excluded_rows"] == 3 for v in m.verdicts())
    # lmem_verdicts fits the final incumbents (a plain frame) and still counts them.
    assert {v.details["excluded_rows"] for v in lmem_verdicts(res)} == {3}


def test_runs_without_an_incumbent_at_the_budget_are_counted(runs):
    late = runs[~((runs["algorithm"] == "A") & (runs["seed"] == 0) & (runs["budget"] < 3))]
    res = Results.from_frame(late, **ROLES)
    frame = res.at_budget(2.0)
    m = fit(frame, "score ~ algorithm + (1|benchmark)")
    assert m.n_excluded == {"excluded_rows": 0, "excluded_runs": 6}
    assert set(m.exclusions["reason"]) == {"no observation at or below budget 2"}
    assert "Left out of this fit: 6 runs" in m.summary()
    check = seed_dependency(res, budget=2.0)
    assert check.details["excluded_runs"] == 6
    assert "6 run(s) left out (no observation at or below budget 2)" in check.data


def test_nothing_left_out_says_nothing(runs):
    res = Results.from_frame(runs, **ROLES)
    m = fit(res, "score ~ algorithm + (1|benchmark)")
    assert counts(m.exclusions) == {"excluded_rows": 0, "excluded_runs": 0}
    assert "Left out" not in m.summary()
    assert exclusions_of(None).empty


def _csv(tmp_path, frame):
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    return str(path)


CLI_ROLES = ["--algorithm", "algorithm", "--benchmark", "benchmark", "--seed", "seed",
             "--score", "score", "--budget", "budget", "--objective", "minimize", "--kind", "runs"]


def test_lmem_command_reports_runs_left_out_at_a_budget(tmp_path, capsys, runs):
    late = runs[~((runs["algorithm"] == "A") & (runs["seed"] == 0) & (runs["budget"] < 3))]
    assert main(["lmem", _csv(tmp_path, late), *CLI_ROLES, "--at-budget", "2"]) == 0
    assert "Left out of this fit: 6 runs (no observation at or below budget 2)" in (
        capsys.readouterr().out)


@pytest.mark.parametrize(("args", "needle"), [
    (["--null", "score ~ seed + (1|benchmark)"], "the --null model"),
])
def test_lmem_command_errors_name_command_line_options(tmp_path, capsys, runs, args, needle):
    code = main(["lmem", _csv(tmp_path, runs), *CLI_ROLES, *args])
    err = capsys.readouterr().err
    assert code == 2
    assert needle in err
    assert "check_nesting" not in err and "=False" not in err


@pytest.mark.parametrize("command", ["lmem", "sanity"])
@pytest.mark.parametrize(("args", "needle"), [
    (["--at-budget", "last"], "argument --at-budget: not a number: 'last'"),
    (["--at-budget", "inf"], "the budget must be a finite number"),
    (["--at-budget", "2", "--all-rows"], "not allowed with argument --at-budget"),
])
def test_budget_options_are_checked_when_parsed(tmp_path, capsys, runs, command, args, needle):
    with pytest.raises(SystemExit) as stop:
        main([command, _csv(tmp_path, runs), *CLI_ROLES, *args])
    assert stop.value.code == 2
    assert needle in capsys.readouterr().err


def test_sanity_command_rejects_a_significance_level_outside_0_1(tmp_path, capsys, runs):
    with pytest.raises(SystemExit) as stop:
        main(["sanity", _csv(tmp_path, runs), *CLI_ROLES, "--alpha", "5"])
    assert stop.value.code == 2
    assert "significance level must be between 0 and 1" in capsys.readouterr().err


@pytest.mark.parametrize("alpha", [0.0, 1.0, 5.0, -0.1])
def test_alpha_is_a_significance_level_everywhere(runs, alpha):
    from benchverdict.lmem import glrt, sanity_checks

    res = Results.from_frame(runs, **ROLES)
    m1 = fit(res, "score ~ algorithm + (1|benchmark)")
    with pytest.raises(ValueError, match="alpha is a significance level"):
        m1.verdicts(alpha=alpha)
    with pytest.raises(ValueError, match="alpha is a significance level"):
        glrt(fit(res, "score ~ 1 + (1|benchmark)"), m1, alpha=alpha)
    with pytest.raises(ValueError, match="alpha is a significance level"):
        sanity_checks(res, alpha=alpha)
