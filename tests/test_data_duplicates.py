"""The duplicated-key message names one key's rows exactly and the column that separates them."""

from __future__ import annotations

import pandas as pd
import pytest

import benchverdict as bv
from benchverdict import Results, ValidationError


def two_priors(n_seeds=300) -> pd.DataFrame:
    rows = []
    for prior in ("good", "bad"):
        for alg in ("PB", "RS"):
            for seed in range(n_seeds):
                rows.append((alg, "LC", seed, prior, 1.0 if prior == "good" else 2.0))
    return pd.DataFrame(rows, columns=["algorithm", "benchmark", "seed", "prior", "value"])


def test_rows_of_one_key_are_named_exactly_and_the_separating_column_is_suggested():
    df = two_priors()
    with pytest.raises(ValidationError) as err:
        Results.from_frame(df, algorithm="algorithm", benchmark="benchmark", seed="seed",
                           score="value", objective="minimize", kind="trials")
    problem = err.value.problems[0]
    assert problem.reason == "duplicate_key" and len(problem.rows) == len(df)
    # The key (PB, LC, 0) is at rows 0 and 600 (first and second prior), nowhere else.
    assert "algorithm='PB', seed=0, benchmark='LC' is at rows 0 and 600." in problem.message
    assert "1200 rows in 600 duplicated key(s)" in problem.message
    assert "'prior' tells the rows apart in every duplicated key" in problem.message
    assert "'value'" not in problem.message.split("Fix:")[0].split("Unmapped")[1]
    assert "--on-invalid drop" in problem.cli_message()
    assert "on_invalid='drop'" not in problem.cli_message()


def test_float_measurements_and_row_ids_are_not_suggested():
    df = two_priors(5).drop(columns="prior")
    df["row_id"] = range(len(df))
    df["noise"] = [0.1 * i for i in range(len(df))]
    with pytest.raises(ValidationError) as err:
        Results.from_frame(df, algorithm="algorithm", benchmark="benchmark", seed="seed",
                           score="value", objective="minimize", kind="trials")
    assert "look like repeated rows" in err.value.problems[0].message


def test_priorband_mapped_without_prior(shared_data):
    path = shared_data / "priorband" / "priorband_data.parquet"
    with pytest.raises(ValidationError) as err:
        bv.read(path, algorithm="algorithm", benchmark="benchmark", seed="seed",
                budget="used_fidelity", score="value", objective="minimize")
    message = err.value.problems[0].message
    frame = pd.read_parquet(path)
    key = frame.iloc[0][["algorithm", "benchmark", "seed", "used_fidelity"]]
    same = frame.index[(frame[key.index] == key.to_numpy()).all(axis=1)].tolist()
    assert same == [0, 900]
    assert "is at rows 0 and 900." in message
    assert "'prior' tells the rows apart" in message


def test_a_numeric_column_apart_within_runs_is_suggested_as_the_budget():
    # Review: draws with a trial column left unmapped were told to combine 'trial' into the
    # benchmark (20 benchmarks would become 400 fake ones); the fix is --budget trial.
    df = pd.DataFrame([(a, "LC", s, t, 0.1 * t) for a in ("PB", "RS") for s in range(3)
                       for t in range(1, 6)],
                      columns=["algorithm", "benchmark", "seed", "trial", "value"])
    with pytest.raises(ValidationError) as err:
        Results.from_frame(df, algorithm="algorithm", benchmark="benchmark", seed="seed",
                           score="value", objective="minimize", kind="trials")
    problem = err.value.problems[0]
    assert "map it as the budget (--budget trial)" in problem.cli_message()
    assert "map it as the budget (budget='trial')" in problem.message
    # A text column apart (a prior's name) is no budget: the benchmark fix stays first.
    with pytest.raises(ValidationError) as err:
        Results.from_frame(two_priors(5), algorithm="algorithm", benchmark="benchmark",
                           seed="seed", score="value", objective="minimize", kind="trials")
    assert "as the budget" not in err.value.problems[0].message
