"""Incomplete entries by policy (issue #24 item 3): refuse, subset, impute.

One small constructed board with known answers: x > y > z complete on 7
benchmarks x 2 seeds (score = offset + benchmark + 0.1 seed, no noise), p
(the best) missing benchmark t6 and t2's seed 1, and s, whose runs stop at
budget 7 of 10. Few boards are built (about one second each): the file stays
within its CI time.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pandas as pd
import pytest

from benchverdict import Results
from benchverdict.cli import main
from benchverdict.leaderboard import (
    INCOMPLETE_POLICIES,
    Design,
    Leaderboard,
    build_leaderboard,
    load_leaderboard,
)
from benchverdict.leaderboard import _cli as leaderboard_cli
from benchverdict.leaderboard.design import SubmissionCheck
from benchverdict.leaderboard.incomplete import (
    check_policy,
    common_subset,
    impute_worst,
    missing_runs,
)

OFFSETS = {"x": 2.0, "y": 1.0, "z": 0.0, "p": 3.0, "s": 5.0}
P_MISSES = [("t6", 0), ("t6", 1), ("t2", 1)]


def frame() -> pd.DataFrame:
    rows = [(a, f"t{b}", s, off + b + 0.1 * s, 7 if a == "s" else 10)
            for a, off in OFFSETS.items() for b in range(7) for s in range(2)
            if (a != "p" or (f"t{b}", s) not in P_MISSES)]
    return pd.DataFrame(rows, columns=["algo", "task", "seed", "acc", "trial"])


def as_results(data: pd.DataFrame) -> Results:
    return Results.from_frame(data, algorithm="algo", benchmark="task", seed="seed",
                              score="acc", budget="trial", objective="maximize", kind="runs",
                              min_algorithms=1)


def build(data: pd.DataFrame, policy: str, **options) -> Leaderboard:
    return build_leaderboard(as_results(data), analyses=["ranks"], arena=False,
                             incomplete=policy, **options)


@pytest.fixture(scope="module")
def boards() -> dict[str, Leaderboard]:
    return {policy: build(frame(), policy) for policy in INCOMPLETE_POLICIES}


def mean_ranks(board: Leaderboard) -> dict[str, float]:
    return {r.algorithm: round(r.mean_rank, 6) for r in board.entries.itertuples()}


# ------------------------------------------------------------------ known answers
def test_refuse_is_the_default_and_lists_the_incomplete_apart(boards):
    assert inspect.signature(build_leaderboard).parameters["incomplete"].default == "refuse"
    board = boards["refuse"]
    assert board.entries["algorithm"].tolist() == ["x", "y", "z"]
    assert board.entries["position"].tolist() == ["1", "2", "3"]
    assert mean_ranks(board) == {"x": 1.0, "y": 2.0, "z": 3.0}
    assert board.compared is None and board.compared_design == board.design
    assert board.incomplete["algorithm"].tolist() == ["p", "s"]
    assert not board.incomplete["compared"].any()
    assert (board.entries["imputed_runs"] == 0).all() and len(board.imputed) == 0
    assert "Incomplete submissions (not compared)" in board.to_markdown()
    # Nothing in the refused board mentions a policy: the page reads as before.
    assert "policy" not in board.summary() and "imputed runs" not in board.to_markdown()


def test_subset_compares_everyone_on_the_common_benchmarks_and_seeds(boards):
    board = boards["subset"]
    assert board.compared_design.benchmarks == ("t0", "t1", "t2", "t3", "t4", "t5")
    assert board.compared_design.seeds == ("0",)  # p lacks t2's seed 1: seed 1 goes
    assert board.design.benchmarks[-1] == "t6"  # the board's own design is kept
    assert board.dropped.values.tolist() == [["benchmark", "t6", "p"], ["seed", "1", "p"]]
    # p is best on every kept benchmark; s (runs stop early) is still not compared.
    assert mean_ranks(board) == {"p": 1.0, "x": 2.0, "y": 3.0, "z": 4.0}
    assert (board.entries["n_benchmarks"] == 6).all() and (board.entries["n_seeds"] == 1).all()
    status = board.incomplete.set_index("algorithm")
    assert bool(status.loc["p", "compared"]) and not bool(status.loc["s", "compared"])
    assert "not compared: its runs stop at budget 7" in status.loc["s", "reasons"]
    for page in (board.summary(), board.to_markdown(), board.to_html()):
        assert "6 of 7 benchmarks" in page
        assert "benchmark t6 (missed by p); seed 1 (missed by p)" in page
        assert "hold on this subset only" in page


def test_impute_fills_with_the_benchmarks_worst_score_and_counts_it(boards):
    board = boards["impute"]
    # The worst incumbent any compared entry reached: z's seed 0 on t2 and t6.
    assert board.imputed.values.tolist() == [["p", "t2", "1", 2.0], ["p", "t6", "0", 6.0],
                                             ["p", "t6", "1", 6.0]]
    counts = dict(zip(board.entries["algorithm"], board.entries["imputed_runs"], strict=True))
    assert counts == {"p": 3, "x": 0, "y": 0, "z": 0}
    # Seeds averaged: p is 2nd on t2 (3.5 between x 4.05 and y 3.05), last on t6 (6.0 < z's
    # 6.05) and first on the other five: mean rank (5 + 2 + 4) / 7.
    assert mean_ranks(board) == {"p": round(11 / 7, 6), "x": round(12 / 7, 6),
                                 "y": round(20 / 7, 6), "z": round(27 / 7, 6)}
    assert board.compared is None
    md, html, text = board.to_markdown(), board.to_html(), board.summary()
    assert "| imputed runs |" in md and "| 3 |" in md
    assert "<th onclick=\"bvSort(this)\" title=\"sort\">imputed runs</th>" in html
    assert "[3 run(s) imputed]" in text
    for page in (md, html, text):
        assert "3 missing run(s) of 1 entry (p (3))" in page
        assert "worst score any compared entry reached on the same benchmark" in page
        assert "not error-controlled" in page


@pytest.mark.parametrize("policy", INCOMPLETE_POLICIES)
def test_every_policy_lists_the_runs_that_would_complete_the_entries(boards, policy):
    board = boards[policy]
    runs = board.missing_runs
    assert len(runs) == 3 + 14  # p's three cells; every run of s must reach budget 10
    assert runs.iloc[:3].values.tolist() == [["p", "t2", "1", 10.0, "missing"],
                                             ["p", "t6", "0", 10.0, "missing"],
                                             ["p", "t6", "1", 10.0, "missing"]]
    assert set(runs["issue"].iloc[3:]) == {"stops at budget 7"}
    for page in (board.summary(), board.to_markdown(), board.to_html()):
        assert "Runs that would complete the 2 incomplete entries (17)" in page
        assert "p on t6, seed 0, to budget 10 (missing)" in page
        assert "and 7 more" in page
    data = json.loads(board.to_json())
    assert data["incomplete_policy"] == policy and len(data["missing_runs"]) == 17


def test_json_round_trip_keeps_the_policy_and_what_it_did(boards):
    for board in boards.values():
        again = Leaderboard.from_dict(json.loads(board.to_json()))
        assert again.to_json() == board.to_json()
        assert again.incomplete_policy == board.incomplete_policy
        pd.testing.assert_frame_equal(again.imputed, board.imputed, check_dtype=False)
    # A board written before the policies reads as refused, nothing imputed.
    old = boards["refuse"].to_dict()
    for key in ("incomplete_policy", "compared_design", "dropped", "missing_runs", "imputed"):
        del old[key]
    for row in old["entries"]:
        del row["imputed_runs"]
    for row in old["incomplete"]:
        del row["compared"]
    again = Leaderboard.from_dict(old)
    assert again.incomplete_policy == "refuse" and (again.entries["imputed_runs"] == 0).all()
    assert not again.incomplete["compared"].any() and len(again.missing_runs) == 0


# ------------------------------------------------------------------ the subset, by hand
def test_subset_board_equals_a_board_built_by_hand_on_the_subset(boards):
    data = frame()
    by_hand = data[(data["algo"] != "s") & (data["task"] != "t6") & (data["seed"] == 0)]
    hand = build_leaderboard(as_results(by_hand), analyses=["ranks"], arena=False)
    board = boards["subset"]
    assert Design.from_results(as_results(by_hand)) == board.compared_design
    pd.testing.assert_frame_equal(board.entries, hand.entries)
    pd.testing.assert_frame_equal(board.relations, hand.relations)
    assert board.headline == hand.headline and board.groups == hand.groups


def test_common_subset_keeps_benchmarks_first_then_seeds():
    design = Design("maximize", "runs", ("a", "b", "c", "d"), ("0", "1", "2"), None)

    def check(name, *cells):
        return SubmissionCheck(name, not cells, missing_cells=list(cells))

    # An entry that ran fewer seeds drops a seed, not every benchmark.
    kept = common_subset(design, [check("u"), check("v", *[(b, "2") for b in "abcd"])])
    assert kept[:2] == (("a", "b", "c", "d"), ("0", "1"))
    # An entry that missed a benchmark drops it, with every seed kept.
    kept = common_subset(design, [check("u"), check("v", ("c", "0"), ("c", "1"), ("c", "2"))])
    assert kept[:2] == (("a", "b", "d"), ("0", "1", "2"))
    # One hole: keep the benchmarks (the unit of replication), lose a seed.
    kept = common_subset(design, [check("v", ("b", "1"))])
    assert kept[:2] == (("a", "b", "c", "d"), ("0", "2"))
    assert kept[2].values.tolist() == [["seed", "1", "v"]]
    # Names and order do not matter.
    swapped = common_subset(design, [check("w", ("b", "1")), check("a")])
    assert swapped[:2] == kept[:2]
    # Nothing in common.
    assert common_subset(design, [check("v", *[(b, s) for b in "abcd" for s in "012"])])[:2] \
        == ((), ())


def test_subset_too_small_is_refused_with_the_reason_and_fix():
    data = frame()
    data = data[~((data["algo"] == "p") & data["task"].isin(["t0", "t1", "t2"]))]
    # p now misses t0, t1, t2 and t6: 3 benchmarks left, below MIN_BENCHMARKS.
    with pytest.raises(ValueError, match=r"common subset .* has 3 of 7 benchmarks .* fewer "
                                         r"than the 5 a board needs.*p misses runs on 4 of 7 "
                                         r"benchmarks.*Fix: .*--incomplete refuse"):
        build(data, "subset")


def test_bad_policy_name_is_a_clear_error():
    with pytest.raises(ValueError, match=r"unknown policy 'drop'; choose refuse .*subset"
                                         r".*impute"):
        build_leaderboard(as_results(frame()), incomplete="drop")
    assert leaderboard_cli.POLICIES == INCOMPLETE_POLICIES
    assert check_policy("impute") == "impute"


# ------------------------------------------------------------------ invariance
@pytest.mark.parametrize("policy", INCOMPLETE_POLICIES)
def test_names_and_row_order_do_not_change_the_board(boards, policy):
    names = {"x": "zz", "y": "A", "z": "m", "p": "0", "s": "b"}
    data = frame().sample(frac=1.0, random_state=5)
    other = build(data.assign(algo=data["algo"].map(names)), policy)
    base = boards[policy]
    keep = ["position", "mean_rank", "better_than", "worse_than", "imputed_runs",
            "n_benchmarks", "n_seeds"]
    want = base.entries.assign(algorithm=base.entries["algorithm"].map(names))
    got = other.entries.set_index("algorithm")[keep].sort_index()
    pd.testing.assert_frame_equal(got, want.set_index("algorithm")[keep].sort_index())
    assert other.compared_design == base.compared_design
    assert sorted(map(tuple, other.imputed.values.tolist())) == sorted(
        (names[a], b, s, v) for a, b, s, v in base.imputed.values.tolist())
    assert sorted(other.missing_runs["algorithm"]) == sorted(
        base.missing_runs["algorithm"].map(names))
    assert other.dropped["missed_by"].tolist() == [names[a] for a in base.dropped["missed_by"]]


# ------------------------------------------------------------------ the pieces
def test_impute_replaces_runs_without_a_result_by_the_budget():
    design = Design("minimize", "trials", ("p", "q"), ("0",), 5.0)
    table = pd.DataFrame({
        "algorithm": ["a", "a", "a", "a", "b", "b", "b"],
        "benchmark": ["p", "p", "q", "q", "p", "q", "q"],
        "seed": [0] * 7, "budget": [1, 5, 1, 5, 9, 1, 5],
        "score": [3.0, 1.0, 4.0, 2.0, 0.0, 8.0, 0.5]})
    late = SubmissionCheck("b", False, short_runs=[("p", "0")])  # b's p run starts at 9
    rows, imputed = impute_worst(table, design, [late], kind="trials")
    # Minimised: the worst incumbent on p by budget 5 is a's 1.0 (b's 0.0 came too late).
    assert imputed.values.tolist() == [["b", "p", "0", 1.0]]
    assert len(rows) == 7 and not ((rows["algorithm"] == "b") & (rows["budget"] == 9)).any()


def test_missing_runs_name_every_run_to_rerun():
    design = Design("maximize", "runs", ("p", "q"), ("0", "1"), 20.0)
    checks = [SubmissionCheck("b", False, missing_cells=[("q", "1")], short_runs=[("p", "0")]),
              SubmissionCheck("a", True),
              SubmissionCheck("c", False, longest_budget=12.0)]
    runs = missing_runs(design, checks)
    assert runs[["algorithm", "benchmark", "seed", "issue"]].values.tolist() == [
        ["b", "p", "0", "no result by the final budget"], ["b", "q", "1", "missing"],
        ["c", "p", "0", "stops at budget 12"], ["c", "p", "1", "stops at budget 12"],
        ["c", "q", "0", "stops at budget 12"], ["c", "q", "1", "stops at budget 12"]]
    assert (runs["budget"] == 20.0).all()


# ------------------------------------------------------------------ command line
def test_cli_subset_round_trip_and_update_keeps_the_policy(tmp_path: Path, capsys):
    data = frame()
    base, full_p = tmp_path / "base.csv", tmp_path / "p.csv"
    data[data["algo"] != "s"].to_csv(base, index=False)
    complete_p = pd.DataFrame([("p", f"t{b}", s, 3.0 + b + 0.1 * s, 10)
                               for b in range(7) for s in range(2)], columns=data.columns)
    complete_p.to_csv(full_p, index=False)
    roles = ["--algorithm", "algo", "--benchmark", "task", "--seed", "seed", "--score", "acc",
             "--budget", "trial", "--objective", "maximize", "--kind", "runs",
             "--analyses", "ranks"]
    folder, listing = tmp_path / "board", tmp_path / "missing.csv"
    assert main(["leaderboard", str(base), *roles, "-o", str(folder), "--incomplete", "subset",
                 "--missing-runs", str(listing)]) == 0
    out = capsys.readouterr().out
    assert "6 of 7 benchmarks x 1 of 2 seeds, the common subset" in out
    assert "p on t2, seed 1, to budget 10 (missing)" in out
    assert pd.read_csv(listing)["benchmark"].tolist() == ["t2", "t6", "t6"]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["incomplete"] == "subset"
    board = load_leaderboard(folder)
    assert board.incomplete_policy == "subset"
    assert board.arena is not None and (board.arena.ratings["games"] == 6 * 3).all()
    # Another policy on update is refused: it would change what every version means.
    assert main(["leaderboard", "--update", str(folder), str(full_p), *roles, "--replace",
                 "--incomplete", "impute"]) == 1
    assert "treats incomplete submissions by the policy 'subset'" in capsys.readouterr().err
    # The update keeps the policy; p is now complete and the board uses the whole design.
    assert main(["leaderboard", "--update", str(folder), str(full_p), *roles,
                 "--replace"]) == 0
    out = capsys.readouterr().out
    assert "p is now complete" in out and "now compared on 7 benchmarks x 2 seeds" in out
    board = load_leaderboard(folder)
    assert board.version == 2 and board.incomplete_policy == "subset"
    assert board.compared is None and len(board.missing_runs) == 0
    v2 = json.loads((folder / "versions" / "v0002" / "leaderboard.json").read_text())
    assert v2["incomplete_policy"] == "subset"
    assert json.loads((folder / "manifest.json").read_text())["incomplete"] == "subset"


def test_cli_bad_policy_and_existing_listing_are_usage_errors(tmp_path: Path, capsys):
    base = tmp_path / "base.csv"
    frame().to_csv(base, index=False)
    with pytest.raises(SystemExit) as stop:
        main(["leaderboard", str(base), "-o", str(tmp_path / "b"), "--incomplete", "drop"])
    assert stop.value.code == 2
    assert "unknown policy 'drop'; choose refuse" in capsys.readouterr().err
    assert main(["leaderboard", str(base), "-o", str(tmp_path / "b"), "--missing-runs",
                 str(base)]) == 2
    assert "is never overwritten" in capsys.readouterr().err


def test_a_submission_that_changes_anothers_imputed_runs_says_so(tmp_path: Path):
    """Review of 2026-11-28: with incomplete="impute", a new entry that scores -500 on the
    benchmarks N misses changed N's imputed runs (the worst score there), and changes.md
    said only that the entries moved because of the new D."""
    import numpy as np

    from benchverdict.leaderboard import create_leaderboard, update_leaderboard

    rng = np.random.default_rng(3)

    def rows(name: str, offset: float, skip: tuple = ()) -> list[tuple]:
        return [(name, f"b{b}", s, offset + rng.normal() + b) for b in range(10)
                for s in range(2) if b not in skip]

    def results(data: list[tuple]) -> Results:
        return Results.from_frame(pd.DataFrame(data, columns=["a", "b", "s", "y"]),
                                  algorithm="a", benchmark="b", seed="s", score="y",
                                  objective="maximize", kind="runs", min_algorithms=1)

    folder = tmp_path / "board"
    first = create_leaderboard(folder, results(rows("A", 0.6) + rows("B", 0.3) + rows("C", 0.0)
                                               + rows("N", 0.45, skip=(3, 7))),
                               incomplete="impute")
    assert set(first.imputed["algorithm"]) == {"N"}
    crash = [(a, b, s, -500.0 if b in ("b3", "b7") else y) for a, b, s, y in rows("D", 0.0)]
    _, changes = update_leaderboard(folder, results(crash))
    imputed = [c for c in changes if c.kind == "imputed"]
    assert [c.algorithms for c in imputed] == [("N",)]
    assert "N's 4 imputed run(s) now hold other scores" in imputed[0].text
    assert "from the new D" in imputed[0].text
    assert "## Imputed (1)" in (folder / "changes.md").read_text(encoding="utf-8")
    # An update that leaves the filled values alone says nothing about them.
    _, quiet = update_leaderboard(folder, results(rows("E", 0.2)))
    assert not [c for c in quiet if c.kind == "imputed"]
