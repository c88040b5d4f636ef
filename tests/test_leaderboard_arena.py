"""Arena ratings: Bradley-Terry against statsmodels, Elo against closed forms, the bootstrap,
the board's arena section and the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import stats

from benchverdict import Results
from benchverdict.cli import main
from benchverdict.leaderboard import Leaderboard, build_leaderboard
from benchverdict.leaderboard.arena import (
    ARENA_COLUMNS,
    ARENA_FRAME_COLUMNS,
    Arena,
    NoMaximumLikelihood,
    arena_from_outcomes,
    arena_from_results,
    bradley_terry,
    elo_ratings,
    to_elo_scale,
)

LN10 = math.log(10.0)


def glm_strengths(wins: np.ndarray) -> np.ndarray:
    """The BT MLE by statsmodels: a binomial GLM on the +1/-1 design, no intercept.

    One row per unordered pair with games: +1 for i, -1 for j, successes
    W[i, j] and failures W[j, i]. The last entry's column is dropped (its
    strength is 0: the model only identifies differences); the result is
    centred to sum 0 as :func:`bradley_terry`'s.
    """
    k = wins.shape[0]
    design, response = [], []
    for i in range(k):
        for j in range(i + 1, k):
            if wins[i, j] + wins[j, i] > 0:
                row = np.zeros(k)
                row[i], row[j] = 1.0, -1.0
                design.append(row[:-1])
                response.append([wins[i, j], wins[j, i]])
    fit = sm.GLM(np.array(response), np.array(design), family=sm.families.Binomial()).fit(
        tol=1e-13, maxiter=200)
    theta = np.append(fit.params, 0.0)
    return theta - theta.mean()


def random_wins(k: int, seed: int, games: int = 12) -> np.ndarray:
    """Win counts of k players (strength sd 0.5) with 4..games games per pair."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 0.5, k)
    n = rng.integers(4, games + 1, (k, k))
    n = np.triu(n, 1)
    won = rng.binomial(n, 1 / (1 + np.exp(-(strength[:, None] - strength[None, :]))))
    return (won + (n - won).T).astype(float)  # wins[i, j] for i < j, and losses below


# ------------------------------------------------------------------ Bradley-Terry
@pytest.mark.parametrize("k,seed", [(3, 0), (6, 1), (12, 2)])
def test_bradley_terry_equals_statsmodels_glm(k, seed):
    wins = random_wins(k, seed)
    np.testing.assert_allclose(bradley_terry(wins), glm_strengths(wins), rtol=0, atol=1e-8)


def test_bradley_terry_with_half_wins_equals_statsmodels():
    wins = random_wins(5, 3) + 0.5 * (1 - np.eye(5))  # one tie in every pair
    np.testing.assert_allclose(bradley_terry(wins), glm_strengths(wins), rtol=0, atol=1e-8)


def test_batched_fit_equals_one_at_a_time():
    stack = np.stack([random_wins(7, s) for s in range(5)])
    together = bradley_terry(stack)
    for i in range(5):
        np.testing.assert_allclose(together[i], bradley_terry(stack[i]), atol=1e-10)


def test_two_players_closed_form():
    # P(a beats b) = 3/4 at the MLE: theta_a - theta_b = log 3, centred.
    got = bradley_terry(np.array([[0.0, 3.0], [1.0, 0.0]]))
    np.testing.assert_allclose(got, [math.log(3) / 2, -math.log(3) / 2], atol=1e-12)
    np.testing.assert_allclose(to_elo_scale(got[0]) - to_elo_scale(got[1]),
                               400 * math.log10(3), atol=1e-9)


def test_no_mle_is_an_error_naming_who_and_the_fix_and_ridge_fits():
    wins = np.array([[0, 2, 1], [0, 0, 1], [0, 1, 0]], dtype=float)  # a never loses
    with pytest.raises(NoMaximumLikelihood, match=r"a never lost.*b, c never won.*ridge=0.01"):
        bradley_terry(wins, names=["a", "b", "c"])
    fit = bradley_terry(wins, ridge=0.01)
    assert np.isfinite(fit).all() and fit[0] == fit.max()
    # A disconnected pair of groups has no MLE either.
    two_groups = np.zeros((4, 4))
    two_groups[0, 1] = two_groups[1, 0] = two_groups[2, 3] = two_groups[3, 2] = 1.0
    with pytest.raises(NoMaximumLikelihood):
        bradley_terry(two_groups)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="non-negative"):
        bradley_terry(np.array([[0.0, -1.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match=r"\(\.\.\., k, k\)"):
        bradley_terry(np.ones((2, 3)))


# ------------------------------------------------------------------ Elo
def test_elo_matches_a_closed_form_sequence():
    k_factor = 32.0
    # Game 1: a beats b at 1000/1000. Game 2: b beats a. Game 3: a and b tie.
    ra, rb = 1000.0, 1000.0
    expected_ratings = []
    for s in (1.0, 0.0, 0.5):
        ea = 1 / (1 + 10 ** ((rb - ra) / 400))
        ra, rb = ra + k_factor * (s - ea), rb - k_factor * (s - ea)
        expected_ratings.append((ra, rb))
    assert expected_ratings[0] == (1016.0, 984.0)
    # Closed form of game 2: b at 984 against 1016 gains 32 * (1 - 1/(1 + 10^(32/400))).
    gain = 32 * (1 - 1 / (1 + 10 ** (32 / 400)))
    assert expected_ratings[1][1] == pytest.approx(984 + gain, abs=1e-12)
    got = elo_ratings(np.array([0, 0, 1]), np.array([1, 1, 0]), np.array([1.0, 0.0, 0.5]),
                      2, k_factor=k_factor)
    # The third game is written (b, a) with b's score 0.5: the same tie.
    np.testing.assert_allclose(got, expected_ratings[2], atol=1e-9)


def test_elo_weight_scales_the_update_and_rows_are_independent():
    one = elo_ratings(np.array([0]), np.array([1]), np.array([1.0]), 2, weight=np.array([2.0]))
    np.testing.assert_allclose(one, [1000 + 4.0, 1000 - 4.0])  # K = 4, twice the update
    two = elo_ratings(np.array([[0, 1], [1, 0]]), np.array([[1, 0], [0, 1]]),
                      np.array([[1.0, 1.0], [1.0, 1.0]]), 2)
    np.testing.assert_allclose(two[0], two[1][::-1])


# ------------------------------------------------------------------ from results
def study(offsets: dict[str, float], n_benchmarks: int = 12, n_seeds: int = 3,
          seed: int = 0, interaction: float = 1.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    bench = rng.normal(0, 2, n_benchmarks)
    for a, off in offsets.items():
        inter = rng.normal(0, interaction, n_benchmarks)
        for b in range(n_benchmarks):
            for s in range(n_seeds):
                rows.append((a, f"t{b:02d}", s, off + bench[b] + inter[b] + rng.normal()))
    return pd.DataFrame(rows, columns=["algorithm", "benchmark", "seed", "score"])


def as_results(frame: pd.DataFrame, objective: str = "maximize") -> Results:
    return Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
                              seed="seed", score="score", objective=objective, kind="runs")


def test_arena_from_results_equals_statsmodels_on_its_games():
    frame = study({"a": 0.6, "b": 0.3, "c": 0.0, "d": 0.0})
    arena = arena_from_results(as_results(frame), n_resamples=50)
    # Independent construction of the games: per (benchmark, seed), each pair once.
    names = sorted(frame["algorithm"].unique())
    wins = np.zeros((4, 4))
    for _, cell in frame.groupby(["benchmark", "seed"]):
        score = cell.set_index("algorithm")["score"]
        for i, x in enumerate(names):
            for j, y in enumerate(names):
                if i != j:
                    wins[i, j] += float(score[x] > score[y]) + 0.5 * float(score[x] == score[y])
    expected = to_elo_scale(glm_strengths(wins))
    got = arena.ratings.set_index("algorithm").loc[names]
    np.testing.assert_allclose(got["bt_rating"], expected, rtol=0, atol=1e-6)
    assert (got["games"] == 3 * 12 * 3).all()
    np.testing.assert_allclose(got["wins"] + got["losses"] + got["ties"], got["games"])
    assert list(arena.ratings.columns) == ARENA_COLUMNS
    assert arena.cluster == "benchmark" and arena.n_clusters == 12


def test_minimize_flips_the_winner_and_ties_are_half_wins():
    frame = study({"a": 1.0, "b": 0.0}, n_benchmarks=10)
    up = arena_from_results(as_results(frame), n_resamples=20)
    down = arena_from_results(as_results(frame.assign(score=-frame["score"]), "minimize"),
                              n_resamples=20)
    pd.testing.assert_frame_equal(up.ratings, down.ratings)
    tied = frame.assign(score=frame["score"].round(0) * 0)  # every game a tie
    flat = arena_from_results(as_results(tied), n_resamples=20)
    np.testing.assert_allclose(flat.ratings["bt_rating"], 1000.0, atol=1e-9)
    assert (flat.ratings["ties"] == flat.ratings["games"]).all()


def test_bootstrap_is_over_benchmarks_and_reproducible():
    frame = study({"a": 0.5, "b": 0.0, "c": -0.5}, n_benchmarks=8)
    one = arena_from_results(as_results(frame), n_resamples=100, seed=3)
    again = arena_from_results(as_results(frame), n_resamples=100, seed=3)
    pd.testing.assert_frame_equal(one.ratings, again.ratings)
    r = one.ratings
    assert ((r["bt_lower"] <= r["bt_rating"]) & (r["bt_rating"] <= r["bt_upper"])).all()
    # Seeds travel with their benchmark: tripling the seeds of the same benchmark outcome
    # (an exact copy) changes no interval, while more benchmarks narrow them.
    copied = pd.concat([frame.assign(seed=frame["seed"] + 10 * i) for i in range(3)],
                       ignore_index=True)
    same = arena_from_results(as_results(copied), n_resamples=100, seed=3)
    np.testing.assert_allclose(same.ratings["bt_lower"], r["bt_lower"], atol=1e-6)
    np.testing.assert_allclose(same.ratings["bt_upper"], r["bt_upper"], atol=1e-6)


def test_bt_interval_covers_in_simulation():
    """Games from a true Bradley-Terry model, clustered in benchmarks: marginal coverage.

    4 players with strengths (0.6, 0.2, -0.2, -0.6) log-odds; 30 benchmarks
    of 4 games per pair; 95% percentile intervals from 200 resamples. The
    percentile bootstrap is slightly liberal here: over 300 data sets it
    covered 0.950, 0.947, 0.907 and 0.937 (the module docstring says so).
    The test checks the stated floor, 0.90, for every player: on 100 data
    sets the exact one-sided binomial test at 0.001 must not reject
    "coverage >= 0.90" (at most 20 misses each).
    """
    strength = np.array([0.6, 0.2, -0.2, -0.6])
    rng = np.random.default_rng(2024)
    n_sets = 100
    truth = to_elo_scale(strength - strength.mean())
    i, j = np.triu_indices(4, 1)
    n_bench, per_pair = 30, 4
    x = np.tile(np.repeat(i, per_pair), n_bench)
    y = np.tile(np.repeat(j, per_pair), n_bench)
    bench = np.repeat(np.arange(n_bench), len(i) * per_pair)
    p = 1 / (1 + np.exp(-(strength[x] - strength[y])))
    names = np.array(["p0", "p1", "p2", "p3"])
    hits = np.zeros(4)
    for _ in range(n_sets):
        won = rng.random(len(x)) < p
        games = pd.DataFrame({"x": names[x], "y": names[y],
                              "winner": np.where(won, "x", "y"), "benchmark": bench})
        arena = arena_from_outcomes(games, n_resamples=200, seed=int(rng.integers(1 << 30)),
                                    elo=False)
        r = arena.ratings.set_index("algorithm").loc[list(names)]
        hits += (r["bt_lower"].to_numpy() <= truth) & (truth <= r["bt_upper"].to_numpy())
    misses = n_sets - hits
    assert (misses <= stats.binom.ppf(0.999, n_sets, 0.10)).all(), hits / n_sets


def test_arena_from_outcomes_uses_file_order_for_elo_and_weights():
    games = pd.DataFrame({"x": ["a", "b", "a"], "y": ["b", "c", "c"],
                          "winner": ["a", "tie", "y"], "weight": [2.0, 1.0, 1.0]})
    arena = arena_from_outcomes(games, n_resamples=30, ridge=0.01, k_factor=32)
    expected = elo_ratings(np.array([0, 1, 0]), np.array([1, 2, 2]),
                           np.array([1.0, 0.5, 0.0]), 3, weight=np.array([2.0, 1.0, 1.0]),
                           k_factor=32)
    got = arena.ratings.set_index("algorithm").loc[["a", "b", "c"], "elo"].to_numpy()
    np.testing.assert_allclose(got, expected)
    row = arena.ratings.set_index("algorithm").loc["a"]
    assert (row["wins"], row["losses"], row["ties"]) == (2.0, 1.0, 0.0)
    assert arena.cluster == "game" and any("penalised" in n for n in arena.notes)
    with pytest.raises(NoMaximumLikelihood, match="never"):
        arena_from_outcomes(games.iloc[:1], n_resamples=10)


def test_result_protocol_frame_plot_and_json():
    arena = arena_from_results(as_results(study({"a": 0.5, "b": 0.0, "c": 0.0})),
                               n_resamples=40)
    tidy = arena.to_frame()
    assert list(tidy.columns) == ARENA_FRAME_COLUMNS
    assert len(tidy) == 6 and set(tidy["rating"]) == {"bradley_terry", "elo"}
    again = Arena.from_dict(json.loads(json.dumps(arena.to_dict())))
    pd.testing.assert_frame_equal(again.ratings, arena.ratings)
    assert "Bradley-Terry" in arena.summary() and repr(arena).startswith("<Arena: 3 entries")
    ax = arena.plot()
    assert ax.get_legend() is not None
    import matplotlib.pyplot as plt

    plt.close("all")


def test_elo_is_skipped_above_its_limit_with_a_note(monkeypatch):
    import benchverdict.leaderboard.arena as arena_module

    monkeypatch.setattr(arena_module, "ELO_MAX_GAMES", 10)
    arena = arena_from_results(as_results(study({"a": 0.5, "b": 0.0})), n_resamples=20)
    assert arena.ratings["elo"].isna().all()
    assert any("Elo not computed" in n for n in arena.notes)
    assert "Elo -" in arena.summary()


# ------------------------------------------------------------------ on the board
def test_board_shows_ratings_beside_positions_and_says_what_each_means():
    frame = study({"best": 1.5, "mid": 0.5, "low": 0.0}, n_benchmarks=12)
    board = build_leaderboard(as_results(frame), analyses=["ranks"], arena_resamples=100)
    assert board.arena is not None
    md, page, text = board.to_markdown(), board.to_html(), board.summary()
    assert "| position | algorithm | Bradley-Terry [interval]" in md and "## Arena ratings" in md
    assert "BT rating" in page  # the HTML table has the rating column beside the positions
    assert "simultaneous confidence set for the ranks" in md
    assert "simultaneous confidence set for the ranks" in page and "bv-arena" in page
    assert "counts wins, not margins" in md and "transitive" in md
    assert "BT " in text
    again = Leaderboard.from_dict(json.loads(board.to_json()))
    pd.testing.assert_frame_equal(again.arena.ratings, board.arena.ratings)
    no_arena = build_leaderboard(as_results(frame), analyses=["ranks"], arena=False)
    assert no_arena.arena is None and "## Arena ratings" not in no_arena.to_markdown()


def test_board_where_one_entry_never_loses_fits_with_a_ridge_and_says_so():
    frame = study({"best": 20.0, "a": 0.0, "b": 0.0}, n_benchmarks=6)
    board = build_leaderboard(as_results(frame), analyses=["ranks"], arena_resamples=50)
    assert board.arena.ridge == 0.01
    assert board.arena.notes[0].startswith("no Bradley-Terry maximum likelihood: best")
    assert board.arena.ratings["algorithm"].iloc[0] == "best"


def test_cli_rates_a_pairwise_outcome_file(tmp_path: Path, capsys):
    path = tmp_path / "games.csv"
    pd.DataFrame({"x": ["a", "a", "b", "c"], "y": ["b", "c", "c", "a"],
                  "winner": ["x", "tie", "b", "x"]}).to_csv(path, index=False)
    out = tmp_path / "arena"
    assert main(["leaderboard", "--outcomes", str(path), "--arena-out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Bradley-Terry" in printed and "W-L-T" in printed
    table = pd.read_csv(out / "arena.csv")
    assert list(table.columns) == ARENA_FRAME_COLUMNS
    assert (out / "arena.svg").read_text().lstrip().startswith("<?xml")
    hostile = tmp_path / "hostile.csv"
    pd.DataFrame({"x": ["=SUM(A1)", "b"], "y": ["b", "=SUM(A1)"],
                  "winner": ["x", "x"]}).to_csv(hostile, index=False)
    assert main(["leaderboard", "--outcomes", str(hostile), "--arena-out",
                 str(tmp_path / "h")]) == 0
    assert "'=SUM(A1)" in (tmp_path / "h" / "arena.csv").read_text()  # not a formula
    assert main(["leaderboard", "--outcomes", str(hostile), "--arena-out", str(out)]) == 2
    capsys.readouterr()
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"x": ["a"], "y": ["a"], "winner": ["x"]}).to_csv(bad, index=False)
    assert main(["leaderboard", "--outcomes", str(bad)]) != 0
    assert "plays itself" in capsys.readouterr().err


def test_arena_on_real_data(shared_data: Path):
    """PriorBand (3 HPO algorithms, 24 benchmark x prior, 50 seeds): BT agrees with statsmodels
    on the real games, and the ratings order matches the mean ranks' order."""
    from benchverdict.io.adapters import read_priorband
    from benchverdict.leaderboard import mean_rank_interval

    path = shared_data / "priorband" / "priorband_data.parquet"
    if not path.exists():
        pytest.skip(f"{path} not found")
    results = read_priorband(path)
    arena = arena_from_results(results, n_resamples=200)
    runs = results.final().table
    cells = runs.pivot_table(index=["benchmark", "seed"], columns="algorithm", values="score")
    names = sorted(cells.columns)
    x = -cells[names].to_numpy()  # minimize: lower loss wins
    wins = ((x[:, :, None] > x[:, None, :]) + 0.5 * (x[:, :, None] == x[:, None, :])).sum(0)
    np.fill_diagonal(wins, 0.0)
    got = arena.ratings.set_index("algorithm").loc[names, "bt_rating"].to_numpy()
    np.testing.assert_allclose(got, to_elo_scale(glm_strengths(wins)), atol=1e-6)
    ranks = mean_rank_interval(runs, "minimize")
    assert arena.ratings["algorithm"].iloc[0] == ranks["mean_rank"].idxmin()
    assert arena.n_clusters == 24 and arena.ratings["elo"].notna().all()


def test_vectorised_existence_check_equals_strong_components():
    from benchverdict.leaderboard.arena import _no_mle, _strongly_connected

    rng = np.random.default_rng(1)
    wins = (rng.random((600, 6, 6)) < 0.25) * (1.0 - np.eye(6))
    fast = _strongly_connected(wins)
    slow = np.array([_no_mle(w) is None for w in wins])
    assert 0 < fast.sum() < len(fast)  # both kinds occur
    np.testing.assert_array_equal(fast, slow)
