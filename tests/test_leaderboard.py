"""The leaderboard: design checks, positions from settled relations, versions, changes, CLI."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict import Results
from benchverdict.cli import main
from benchverdict.leaderboard import (
    SCHEMA_VERSION,
    Design,
    Leaderboard,
    build_leaderboard,
    check_submission,
    create_leaderboard,
    load_leaderboard,
    mean_rank_interval,
    update_leaderboard,
)


def scores(offsets: dict[str, float], n_benchmarks: int = 8, n_seeds: int = 5,
           seed: int = 0, sd: float = 1.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    bench_effect = rng.normal(0, 3, n_benchmarks)
    rows = [(a, f"task{b}", s, off + bench_effect[b] + rng.normal(0, sd))
            for a, off in offsets.items() for b in range(n_benchmarks) for s in range(n_seeds)]
    return pd.DataFrame(rows, columns=["algo", "task", "seed", "acc"])


def as_results(frame: pd.DataFrame, objective: str = "maximize") -> Results:
    return Results.from_frame(frame, algorithm="algo", benchmark="task", seed="seed",
                              score="acc", objective=objective, kind="runs", min_algorithms=1)


PLANTED = {"best": 2.0, "middle": 1.0, "worst": 0.0}


# ------------------------------------------------------------------ design checks
def test_submission_missing_cells_is_incomplete_and_not_compared():
    frame = scores({**PLANTED, "half": 3.0})
    frame = frame[~((frame["algo"] == "half") & (frame["task"] == "task3"))]
    board = build_leaderboard(as_results(frame), design=Design.from_results(
        as_results(frame[frame["algo"] != "half"])), analyses=["ranks"])
    assert "half" not in set(board.entries["algorithm"])
    row = board.incomplete.set_index("algorithm").loc["half"]
    assert row["missing_cells"] == 5
    assert "task3/seed 0" in row["reasons"]
    # It is not compared: no relation mentions it.
    assert not ({"half"} & (set(board.relations["a"]) | set(board.relations["b"])))


def test_rows_outside_the_design_are_counted_not_silently_dropped():
    base = scores(PLANTED)
    design = Design.from_results(as_results(base))
    extra = scores({"new": 1.0}, n_benchmarks=9)  # one benchmark more than the design
    checks, inside = check_submission(design, as_results(extra))
    assert checks[0].complete and checks[0].extra_rows == 5
    assert checks[0].extra == ["benchmark task8"]
    assert len(inside) == 40
    both = pd.concat([base, extra], ignore_index=True)
    board = build_leaderboard(as_results(both), design=design, analyses=["ranks"])
    assert any("5 row(s) outside the leaderboard's design" in n for n in board.notes)


def test_objective_mismatch_is_an_error_naming_the_fix():
    design = Design.from_results(as_results(scores(PLANTED)))
    with pytest.raises(ValueError, match=r"objective: .*'minimize'.*--objective maximize"):
        check_submission(design, as_results(scores({"x": 0.0}), objective="minimize"))


def test_runs_that_stop_early_make_an_entry_incomplete():
    frame = scores(PLANTED).assign(trial=10)
    early = scores({"early": 1.0}).assign(trial=7)  # every run stops at 7 of 10
    late = scores({"late": 1.0}).assign(trial=10)
    late.loc[late.index[:3], "trial"] = 12  # three runs have no result by budget 10
    carried = scores({"carried": 1.0}).assign(trial=10)
    carried.loc[carried.index[:3], "trial"] = 6  # incumbents found early still count
    data = pd.concat([frame, early, late, carried], ignore_index=True)
    res = Results.from_frame(data, algorithm="algo", benchmark="task", seed="seed",
                             score="acc", budget="trial", objective="maximize", kind="runs")
    design = Design.from_results(as_results(frame.drop(columns="trial")))
    design = Design(**{**design.__dict__, "final_budget": 10.0})
    checks = {c.algorithm: c for c in check_submission(design, res)[0]}
    assert not checks["early"].complete and checks["early"].longest_budget == 7.0
    assert "stop at budget 7" in checks["early"].reasons[0]
    assert not checks["late"].complete and len(checks["late"].short_runs) == 3
    assert "no result at or below" in checks["late"].reasons[0]
    assert checks["carried"].complete and checks["best"].complete


# ------------------------------------------------------------------ positions
def test_planted_order_is_settled_and_positions_are_exact():
    board = build_leaderboard(as_results(scores(PLANTED, n_benchmarks=12, sd=0.3)))
    assert board.entries["algorithm"].tolist() == ["best", "middle", "worst"]
    assert board.entries["position"].tolist() == ["1", "2", "3"]
    assert (board.entries["settled_by"] != "").all()
    # Review of 2026-11-28: "their effect" without an estimand; a pair settled by the rank
    # tests alone is about the pseudo-median, which skewed effects can order otherwise.
    assert ("the pseudo-median of the per-benchmark differences for the rank tests, their "
            "mean for the LMEM") in " ".join(board.summary().split())
    # "best" never loses a game: there is no Bradley-Terry MLE, and the terminal text said
    # "maximum likelihood" beside a zero-width interval set by the fallback ridge.
    assert board.arena is not None and board.arena.ridge > 0
    text = " ".join(board.summary().split())
    assert "penalised by a ridge of 0.01, since no maximum likelihood estimate exists" in text
    assert "(maximum likelihood;" not in text
    # A ridge the user chose, on games where the MLE exists, is not called forced.
    from benchverdict.leaderboard import arena_from_outcomes

    games = pd.DataFrame({"x": ["a", "a", "b", "b", "c", "c"], "y": ["b", "c", "c", "a", "a",
                                                                    "b"],
                          "winner": ["x", "x", "x", "x", "x", "x"]})
    chosen = arena_from_outcomes(games, n_resamples=50, ridge=0.01).describe()
    assert "penalised by a ridge of 0.01;" in chosen and "no maximum likelihood" not in chosen


def test_a_one_benchmark_board_states_its_guarantee_about_that_benchmark():
    """Review of 2026-11-28: with one benchmark the positions rest on that benchmark's
    relations (runs as replicates), while the text spoke of "a benchmark drawn from the
    population these 1 benchmarks are a random sample of"."""
    board = build_leaderboard(as_results(scores(PLANTED, n_benchmarks=1, n_seeds=10,
                                                sd=0.3)))
    text = " ".join(board.summary().split())
    assert "expected score on this one benchmark" in text
    assert "random sample of" not in text
    assert board.entries["position"].tolist() == ["1", "2", "3"]


def test_positions_are_ranges_consistent_with_the_relations():
    board = build_leaderboard(as_results(scores({"a": 0.0, "b": 0.1, "c": 3.0})))
    n = len(board.entries)
    decided = board.relations[board.relations["status"].isin(["settled", "implied"])]
    for r in board.entries.itertuples():
        assert r.best_position == 1 + int((decided["loser"] == r.algorithm).sum())
        assert r.worst_position == n - int((decided["winner"] == r.algorithm).sum())
        assert 1 <= r.best_position <= r.worst_position <= n


def test_null_data_rarely_separates_anyone():
    """Identical algorithms: P(some position is narrower than 1..n) <= alpha (FWER)."""
    n_sets, alpha = 40, 0.05
    separated = 0
    for seed in range(n_sets):
        frame = scores({"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0}, n_benchmarks=6, n_seeds=3,
                       seed=1000 + seed)
        # The positions alone: the arena's bootstrap does not decide them.
        board = build_leaderboard(as_results(frame), analyses=["ranks"], n_resamples=50,
                                  arena=False)
        separated += int((board.entries["better_than"] + board.entries["worse_than"]).sum() > 0)
    # One-sided binomial bound at level 0.001 around the nominal FWER.
    assert separated <= stats.binom.ppf(0.999, n_sets, alpha)


@pytest.mark.parametrize("transform", ["rename", "permute", "negate"])
def test_positions_do_not_depend_on_names_row_order_or_sign(transform):
    frame = scores({"a": 0.0, "b": 0.8, "c": 2.0, "d": 2.1})
    base = build_leaderboard(as_results(frame), analyses=["ranks"])
    expected = dict(zip(base.entries["algorithm"], base.entries["position"], strict=True))
    if transform == "rename":
        names = {"a": "zz", "b": "A", "c": "m", "d": "0"}
        other = build_leaderboard(as_results(frame.assign(algo=frame["algo"].map(names))),
                                  analyses=["ranks"])
        expected = {names[k]: v for k, v in expected.items()}
    elif transform == "permute":
        other = build_leaderboard(as_results(frame.sample(frac=1.0, random_state=3)),
                                  analyses=["ranks"])
    else:
        other = build_leaderboard(as_results(frame.assign(acc=-frame["acc"]), "minimize"),
                                  analyses=["ranks"])
    got = dict(zip(other.entries["algorithm"], other.entries["position"], strict=True))
    assert got == expected


# ------------------------------------------------------------------ mean ranks
def test_mean_rank_matches_a_direct_computation():
    frame = scores({"a": 0.0, "b": 0.5, "c": 1.0}, n_benchmarks=5, n_seeds=2, seed=4)
    table = frame.rename(columns={"algo": "algorithm", "task": "benchmark", "acc": "score"})
    got = mean_rank_interval(table, "maximize", n_resamples=200)
    means = table.groupby(["benchmark", "algorithm"])["score"].mean().unstack()
    direct = means.rank(axis=1, ascending=False).mean()
    np.testing.assert_allclose(got["mean_rank"], direct[got.index], rtol=0, atol=1e-12)
    assert (got["lower"] <= got["mean_rank"]).all() and (got["mean_rank"] <= got["upper"]).all()
    # Ranks over 3 algorithms average 2: the mean ranks sum to 6 exactly.
    assert got["mean_rank"].sum() == pytest.approx(6.0, abs=1e-12)


def test_mean_rank_interval_covers_in_simulation():
    """The board's interval (adjusted t over benchmarks): coverage of the population mean rank.

    Two algorithms, benchmark-level win probability p = 0.7: the mean rank
    of the weaker one is 1 + 0.7. 200 data sets of 40 benchmarks give a
    binomial standard error of about 0.015 at 0.95, so the bound is nominal
    minus 4 standard errors. (Smaller boards, ties and the simultaneous
    intervals: tests/test_rank_intervals.py.)
    """
    rng = np.random.default_rng(7)
    n_sets, n_bench, hits = 200, 40, 0
    for _ in range(n_sets):
        wins = rng.random(n_bench) < 0.7
        table = pd.DataFrame({
            "algorithm": ["strong", "weak"] * n_bench,
            "benchmark": np.repeat(np.arange(n_bench), 2).astype(str),
            "score": np.column_stack([wins.astype(float), (~wins).astype(float)]).ravel()})
        got = mean_rank_interval(table, "maximize", n_resamples=400,
                                 seed=int(rng.integers(1 << 31)))
        hits += int(got.loc["weak", "lower"] <= 1.7 <= got.loc["weak", "upper"])
    se = np.sqrt(0.95 * 0.05 / n_sets)
    assert hits / n_sets >= 0.95 - 4 * se


def test_board_with_too_few_benchmarks_shows_no_interval_and_says_why():
    board = build_leaderboard(as_results(scores(PLANTED, n_benchmarks=4, sd=0.3)),
                              analyses=["ranks"])
    assert board.entries["mean_rank"].notna().all()
    assert board.entries[["mean_rank_lower", "mean_rank_upper", "mean_rank_marginal_lower",
                          "mean_rank_marginal_upper"]].isna().all().all()
    assert any(n.startswith("Mean-rank intervals: no interval: 4 benchmark(s)")
               for n in board.notes)
    assert "[no interval: too few benchmarks]" in board.summary()
    assert "[no interval: too few benchmarks]" in board.to_markdown()
    again = Leaderboard.from_dict(json.loads(board.to_json()))
    assert again.entries["mean_rank_lower"].isna().all()
    assert board.plot() is not None


def test_board_shows_simultaneous_intervals_and_keeps_marginal_ones():
    board = build_leaderboard(as_results(scores(PLANTED, n_benchmarks=12, sd=0.3)),
                              analyses=["ranks"])
    e = board.entries
    assert (e["mean_rank_lower"] <= e["mean_rank_marginal_lower"]).all()
    assert (e["mean_rank_marginal_upper"] <= e["mean_rank_upper"]).all()
    assert ((e["mean_rank_marginal_lower"] <= e["mean_rank"])
            & (e["mean_rank"] <= e["mean_rank_marginal_upper"])).all()
    assert "95% simultaneous over all 3 entries" in board.to_markdown()
    assert "95% simultaneous over all 3 entries" in board.to_html()


# ------------------------------------------------------------------ folder, versions, changes
def test_create_update_keeps_versions_and_says_what_moved(tmp_path: Path):
    folder = tmp_path / "board"
    create_leaderboard(folder, as_results(scores(PLANTED, n_benchmarks=12, sd=0.3)),
                       sources=["base.csv"])
    v1 = (folder / "leaderboard.json").read_text()
    newcomer = scores({"newcomer": 5.0}, n_benchmarks=12, sd=0.3)
    board, changes = update_leaderboard(folder, as_results(newcomer), sources=["new.csv"])
    assert board.version == 2
    assert (folder / "versions" / "v0001" / "leaderboard.json").read_text() == v1
    assert json.loads((folder / "leaderboard.json").read_text())["version"] == 2
    entered = [c for c in changes if c.kind == "entered"]
    assert entered and entered[0].algorithms == ("newcomer",)
    assert "settled above" in entered[0].text and "best" in entered[0].text
    assert "newcomer" in (folder / "changes.md").read_text()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert [s["sources"] for s in manifest["submissions"]] == [["base.csv"], ["new.csv"]]
    assert load_leaderboard(folder, version=1).version == 1


def test_update_refuses_name_clash_unless_replace(tmp_path: Path):
    folder = tmp_path / "board"
    create_leaderboard(folder, as_results(scores(PLANTED)))
    again = scores({"best": -5.0})
    with pytest.raises(ValueError, match=r"algorithm: best already on the leaderboard.*--replace"):
        update_leaderboard(folder, as_results(again))
    board, changes = update_leaderboard(folder, as_results(again), replace=True)
    assert board.entries["algorithm"].iloc[-1] == "best"
    assert any("replaced" in n for n in board.notes)
    assert any(c.kind == "moved" and c.algorithms == ("best",) for c in changes)


def test_a_replacement_is_a_change_even_when_nothing_moves_and_a_reversal_says_so(tmp_path):
    """Review of 2026-11-28: replacing an entry's rows (same order) gave "Nothing moved.",
    and when the new rows reversed a relation, changes.md said "A > B is no longer settled
    (now settled: ...)", which reads as if A > B held."""
    rng = np.random.default_rng(0)

    def rows(name: str, offset: float) -> list[tuple]:
        return [(name, f"b{b}", s, offset + b * 0.1 + 0.05 * rng.normal())
                for b in range(12) for s in range(2)]

    def results(data: list[tuple]) -> Results:
        return Results.from_frame(pd.DataFrame(data, columns=["a", "b", "s", "y"]),
                                  algorithm="a", benchmark="b", seed="s", score="y",
                                  objective="maximize", kind="runs", min_algorithms=1)

    folder = tmp_path / "board"
    create_leaderboard(folder, results(rows("A", 2) + rows("B", 1) + rows("C", 0)),
                       analyses=["ranks"])
    _, same = update_leaderboard(folder, results(rows("B", 0.5)), replace=True)
    assert [c.kind for c in same] == ["replaced"]
    text = (folder / "changes.md").read_text(encoding="utf-8")
    assert "Nothing moved" not in text and "B's runs were replaced" in text
    _, reversed_ = update_leaderboard(folder, results(rows("B", 3)), replace=True)
    gone = [c.text for c in reversed_ if c.kind == "no longer settled"]
    assert gone == [next(t for t in gone if t.startswith("A > B is reversed: now B > A is "
                                                          "settled"))]
    moved = {c.algorithms[0]: c.text for c in reversed_ if c.kind == "moved"}
    assert moved["B"].endswith("its runs were replaced.")
    assert moved["A"].endswith("the runs of B were replaced.")


def test_create_refuses_an_existing_leaderboard_and_versions_are_never_overwritten(tmp_path):
    folder = tmp_path / "board"
    create_leaderboard(folder, as_results(scores(PLANTED)))
    with pytest.raises(FileExistsError, match="--update"):
        create_leaderboard(folder, as_results(scores(PLANTED)))
    v1 = (folder / "versions" / "v0001" / "leaderboard.json").read_bytes()
    # A v0002 the manifest does not record was never published (a stopped update, or
    # someone's folder): it does not block the update, and a file in it is kept aside.
    (folder / "versions" / "v0002").mkdir()
    (folder / "versions" / "v0002" / "notes.txt").write_text("mine")
    assert update_leaderboard(folder, as_results(scores({"x": 1.0})))[0].version == 2
    assert (folder / "versions" / "v0001" / "leaderboard.json").read_bytes() == v1
    [aside] = (folder / "versions").glob(".unpublished-v0002-*")
    assert (aside / "notes.txt").read_text() == "mine"


def test_json_round_trip_and_schema_guard():
    board = build_leaderboard(as_results(scores(PLANTED)), analyses=["ranks"])
    again = Leaderboard.from_dict(json.loads(board.to_json()))
    pd.testing.assert_frame_equal(again.entries, board.entries, check_dtype=False)
    assert again.headline == board.headline
    # Version 1 named the relations' adjusted p-value p_adjusted; it still reads.
    old = board.to_dict()
    assert SCHEMA_VERSION == 2 and "p_value_adjusted" in old["relations"][0]
    old["schema_version"] = 1
    old["relations"] = [{("p_adjusted" if k == "p_value_adjusted" else k): v
                         for k, v in r.items()} for r in old["relations"]]
    pd.testing.assert_frame_equal(Leaderboard.from_dict(old).relations, again.relations)
    newer = {**board.to_dict(), "schema_version": SCHEMA_VERSION + 1}
    with pytest.raises(ValueError, match="upgrade benchverdict"):
        Leaderboard.from_dict(newer)


def test_result_protocol_and_hostile_names_in_outputs():
    frame = scores({"<b>x</b>": 0.0, "a|b": 1.0, "$y$": 2.0})
    board = build_leaderboard(as_results(frame), analyses=["ranks"])
    html = board.to_html()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "a\\|b" in board.to_markdown()
    assert isinstance(board.table, pd.DataFrame) and board.verdicts()
    assert board.plot() is not None
    assert repr(board).startswith("<Leaderboard v1: 3 entries")
    assert "<table" in board._repr_html_()


# ------------------------------------------------------------------ command line
def test_cli_create_and_update(tmp_path: Path, capsys):
    base, new = tmp_path / "base.csv", tmp_path / "new.csv"
    scores(PLANTED).to_csv(base, index=False)
    scores({"solo": 1.5}).to_csv(new, index=False)  # a one-algorithm submission
    roles = ["--algorithm", "algo", "--benchmark", "task", "--seed", "seed", "--score", "acc",
             "--objective", "maximize", "--kind", "runs", "--analyses", "ranks"]
    folder = tmp_path / "board"
    assert main(["leaderboard", str(base), *roles, "-o", str(folder)]) == 0
    assert main(["leaderboard", "--update", str(folder), str(new), *roles]) == 0
    out = capsys.readouterr().out
    assert "Changes in version 2" in out and "solo enters" in out
    # The site is written and named: its index links the new entry's page.
    assert "site/ (open site/index.html)" in out
    assert 'href="entry/solo-' in (folder / "site" / "index.html").read_text(encoding="utf-8")
    assert main(["leaderboard", str(base), *roles]) == 2  # neither -o nor --update
    capsys.readouterr()
    assert main(["leaderboard", str(base), *roles, "-o", str(folder)]) == 2
    assert "already holds a leaderboard" in capsys.readouterr().err  # not "is a file"
    assert main(["leaderboard", "--update", str(tmp_path / "nowhere"), str(new), *roles]) == 1


def test_leaderboard_on_real_data(shared_data: Path):
    """HPO-B (86 search spaces' tasks): a leaderboard of the published optimizers."""
    from benchverdict.io.adapters import read_hpob

    path = shared_data / "hpob" / "hpob_results_long.parquet"
    if not path.exists():
        pytest.skip(f"{path} not found")
    results = read_hpob(path)
    board = build_leaderboard(results, analyses=["ranks"])
    # Every optimizer is ranked or listed as incomplete with what it misses.
    assert len(board.entries) + len(board.incomplete) == len(results.algorithms)
    assert all("missing" in r or "stop at budget" in r or "no result" in r
               for r in board.incomplete["reasons"])
    assert board.entries["best_position"].min() == 1
    assert (board.entries["better_than"] > 0).any()  # the data separate some optimizers
    assert board.headline.startswith("Across benchmarks like these")


def test_an_update_that_changes_the_differences_unit_says_so_first(tmp_path: Path):
    """PriorBand split into HB + RS, then PB: v1 printed 'HB over RS +0.049 (mean difference
    in score)', v2 'HB over RS +0.48 (SD of a benchmark's score)' and changes.md said
    nothing: the newcomer moved the scale check past its threshold."""
    folder = tmp_path / "board"
    base = scores(PLANTED, n_benchmarks=8, sd=0.3)
    base.loc[base["task"] == "task0", "acc"] *= 40  # spreads 29-fold apart: one scale
    create_leaderboard(folder, as_results(base), sources=["base.csv"])
    first = load_leaderboard(folder)
    assert set(first.relations["difference_unit"]) == {"score"}
    newcomer = scores({"wild": 1.0}, n_benchmarks=8, sd=0.3)
    wild = newcomer["task"] == "task0"
    newcomer.loc[wild, "acc"] = newcomer.loc[wild, "acc"] * 40 - 3000  # now 1,000-fold
    board, changes = update_leaderboard(folder, as_results(newcomer), sources=["wild.csv"])
    assert changes[0].kind == "unit"
    assert changes[0].text.startswith("Differences are now in SD of a benchmark's score (they "
                                      "were in score)")
    text = (folder / "changes.md").read_text()
    assert text.index("## Unit (1)") < text.index("## Entered (1)")
    # A board written before the column existed reads as having no unit: no change claimed.
    from benchverdict.leaderboard.store import changes_between

    older = dataclasses.replace(first, relations=first.relations.assign(difference_unit=""))
    assert not [c for c in changes_between(older, board) if c.kind == "unit"]
