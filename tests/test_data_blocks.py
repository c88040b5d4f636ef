"""Rank blocks use complete cases and say what they left out (issue 10)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchverdict import Results
from benchverdict.exclusions import EXCLUSION_COLUMNS
from benchverdict.results import BLOCK_DROPPED, NO_INCUMBENT, RUN_LEFT_OUT


def runs(rows) -> Results:
    df = pd.DataFrame(rows, columns=["alg", "task", "seed", "acc"])
    return Results.from_frame(df, algorithm="alg", benchmark="task", seed="seed", score="acc",
                              objective="maximize", kind="runs")


def amlb_like() -> Results:
    """A's bad seed 2 on task p is missing; averaging what is left makes A win p."""
    rows = [("A", "p", 0, 0.90), ("A", "p", 1, 0.90),
            ("B", "p", 0, 0.95), ("B", "p", 1, 0.95), ("B", "p", 2, 0.50),
            ("C", "p", 0, 0.70), ("C", "p", 1, 0.70), ("C", "p", 2, 0.70)]
    rows += [(a, "q", s, v) for a, v in (("A", 0.6), ("B", 0.7), ("C", 0.8)) for s in range(3)]
    return runs(rows)


def test_complete_cases_by_default():
    blocks = amlb_like().blocks()
    p = blocks.matrix.loc["p"]
    # On the seeds every algorithm has (0, 1) B is best; averaging whatever survives
    # would rank A first (0.90 vs B's 0.80).
    assert p["B"] > p["A"] > p["C"]
    np.testing.assert_allclose(p.to_numpy(), [0.90, 0.95, 0.70])
    ex = blocks.exclusions
    assert list(ex.columns) == list(EXCLUSION_COLUMNS)
    assert (ex["unit"] == "run").all() and (ex["step"] == "rank blocks").all()
    assert set(ex["benchmark"]) == {"p"}
    assert sorted(zip(ex["algorithm"], ex["seed"])) == [("B", 2), ("C", 2)]
    assert ex["reason"].str.contains(RUN_LEFT_OUT, regex=False).all()
    assert (ex["reason"].str.contains("no result for A")).all()
    unit = blocks.describe_unit()
    assert "complete cases" in unit and "2 run(s) left out" in unit
    assert "averaged (mean) before ranking, a choice" in unit
    assert blocks.seeds == "complete" and blocks.dropped_blocks == []


def test_available_seeds_is_a_choice_that_is_stated():
    blocks = amlb_like().blocks(seeds="available")
    assert blocks.matrix.loc["p", "A"] > blocks.matrix.loc["p", "B"]
    assert len(blocks.exclusions) == 0 and blocks.uneven_cells == 1
    assert "not complete cases" in blocks.describe_unit()


def test_block_without_a_complete_seed_is_dropped_and_recorded():
    rows = [("A", "p", 0, 0.1), ("B", "p", 1, 0.2), ("C", "p", 0, 0.3), ("C", "p", 1, 0.4)]
    rows += [(a, "q", 0, v) for a, v in (("A", 0.6), ("B", 0.7), ("C", 0.8))]
    res = runs(rows)
    with pytest.raises(ValueError, match="no seed that every algorithm ran"):
        res.blocks()
    blocks = res.blocks(missing="drop")
    assert list(blocks.matrix.index) == ["q"] and blocks.dropped_blocks == ["p"]
    assert set(blocks.exclusions["algorithm"]) == {"A", "B", "C"}
    assert blocks.exclusions["reason"].str.endswith(BLOCK_DROPPED).all()


def test_unpaired_draws_average_every_run():
    rows = [("A", "p", s, 0.1 * s) for s in range(3)] + [("B", "p", s, 0.2) for s in (5, 6)]
    rows += [("A", "q", 10, 0.3), ("B", "q", 11, 0.4)]
    blocks = runs(rows).blocks()
    assert blocks.seeds == "unpaired" and len(blocks.exclusions) == 0
    np.testing.assert_allclose(blocks.matrix.loc["p"].to_numpy(), [0.1, 0.2])


def test_runs_that_start_after_the_budget_are_recorded():
    rows = []
    for alg in ("A", "B"):
        for seed in range(3):
            start = 5 if (alg, seed) == ("B", 2) else 1
            for t in range(start, 7):
                rows.append((alg, "p", seed, t, 0.1 * t))
            rows.append((alg, "q", seed, 1, 0.5))
    df = pd.DataFrame(rows, columns=["alg", "task", "seed", "t", "acc"])
    res = Results.from_frame(df, algorithm="alg", benchmark="task", seed="seed", budget="t",
                             score="acc", objective="maximize", kind="runs")
    late = res.runs_without_incumbent(3)
    assert late.to_dict("records") == [
        {"algorithm": "B", "benchmark": "p", "seed": 2, "first_budget": 5.0}]
    view = res.at_budget(3).exclusions
    assert view[view["unit"] == "run"][["algorithm", "benchmark", "seed"]].values.tolist() == [
        ["B", "p", 2]]
    blocks = res.blocks(budget=3)
    ex = blocks.exclusions.set_index(["algorithm", "seed"])["reason"]
    assert ex[("B", 2)].startswith(f"{NO_INCUMBENT} 3 (the run starts at 5)")
    assert RUN_LEFT_OUT in ex[("A", 2)]  # A's seed 2 leaves the complete cases with it
    summary = blocks.exclusion_summary()
    assert "1 run(s) have no observation at or below budget 3" in summary
    assert "1 run(s) left out of the seed means" in summary
    assert res.runs_without_incumbent(6).empty


def test_describe_tells_what_rank_tests_do_with_missing_seeds():
    res = amlb_like()
    text = " ".join(res.describe().warnings)
    assert "complete cases" in text and "leave out 2 run(s)" in text
    assert "lose those cells" not in text
    # The statement matches what blocks() really does.
    assert len(res.blocks().exclusions) == 2


def test_rank_outputs_say_what_was_left_out():
    from benchverdict.ranks import autorank, friedman

    rows = [("A", "p", 0, 0.90), ("A", "p", 1, 0.90),
            ("B", "p", 0, 0.95), ("B", "p", 1, 0.95), ("B", "p", 2, 0.50),
            ("C", "p", 0, 0.70), ("C", "p", 1, 0.70), ("C", "p", 2, 0.70)]
    rng = np.random.default_rng(0)
    rows += [(a, f"t{k}", s, rng.uniform()) for k in range(5) for a in "ABC" for s in range(3)]
    res = runs(rows)
    notes = " ".join(friedman(res, n_resamples=0).notes)
    assert "2 run(s) left out of the seed means" in notes
    assert "their blocks were dropped" not in notes
    assert "complete cases" in friedman(res, n_resamples=0).summary()
    assert "2 run(s) left out" in " ".join(autorank(res).notes)
