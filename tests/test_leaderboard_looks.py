"""Repeated looks (issue #24 item 4): error control over every version of a board.

**The simulation.** A history is 50 versions of a board whose entries are
all equal in truth (the null): 5 entries on 10 benchmarks x 2 seeds,
``score = beta[b] + gamma[a, b] + eps``, ``beta ~ N(0, 2^2)``, ``gamma ~
N(0, 1)``, ``eps ~ N(0, 1)`` (as tests/test_leaderboard_coverage.py), and
each update is one of three kinds, one scenario each:

* ``"reruns"``: an entry is re-run and its rows replaced (``--replace``),
  in turn;
* ``"benchmarks"``: a benchmark is added to every entry (a board rebuilt as
  benchmarks arrive: the looks at accumulating data of the sequential-test
  textbooks);
* ``"entries"``: a new entry, equal to the others, is submitted.

A history errs when *some* version shows a relation: with every entry
equal, any separation is false. Its family-wise error over the history is
the share of histories that err, for each looks policy.

A board build costs about a second (the report's machinery), and 50
versions x dozens of histories would take the CI's whole budget, so the
simulation runs what the board decides with the rank family alone, and
only that: per version, the exact Wilcoxon signed-rank p-value of every
pair on the seed-averaged benchmark scores (``ranks._stats``, the rank
family's vote), Holm over the pairs, settled when the adjusted p is at most
the version's level (:func:`benchverdict.leaderboard.look_level`, the
library's own schedule). ``test_simulated_decision_is_the_boards`` checks
that this is the board's decision on a built board (same adjusted p-values,
same settled pairs at the all-versions level). A history errs in
all-versions mode exactly when some version's fresh analysis settles a
pair: kept relations only repeat what an earlier version showed.

The CI size (``BENCHVERDICT_SIM_SCALE=1``): 60 histories of re-runs and 40
of added benchmarks, about 4 s of CPU; ``nox -s simulations`` multiplies
them, and the numbers in the README and in
:mod:`benchverdict.leaderboard.looks` come from
``BENCHVERDICT_SIM_SCALE=40`` (2,000 histories per scenario, the third
scenario included: :func:`history_error`).

Checks, as the other simulations: the all-versions rate must not reject
"rate <= alpha" in a one-sided exact binomial test at 0.001; the
per-version rate must reject it (the simulation sees the failure).
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from benchverdict import Results
from benchverdict.cli import main
from benchverdict.leaderboard import (
    LOOKS_POLICIES,
    build_leaderboard,
    create_leaderboard,
    load_leaderboard,
    look_level,
    update_leaderboard,
)
from benchverdict.leaderboard import _cli as leaderboard_cli
from benchverdict.leaderboard.looks import check_looks, keep_shown, spent
from benchverdict.ranks._stats import wilcoxon_p_values
from benchverdict.stats.multiple_testing import holm

ALPHA = 0.05
#: ``nox -s simulations`` multiplies the replications (BENCHVERDICT_SIM_SCALE).
SCALE = float(os.environ.get("BENCHVERDICT_SIM_SCALE", "1"))
N_VERSIONS, N_ENTRIES, N_BENCHMARKS, N_SEEDS = 50, 5, 10, 2
#: Histories per scenario at SCALE 1 (about 35 ms of CPU per re-run history).
HISTORIES = {"reruns": 60, "benchmarks": 40, "entries": 0}
#: Histories per scenario and SCALE unit beyond 1 (the README's run: SCALE 40, 2,000 each).
PER_SCALE = 50


def history(seed: int, scenario: str) -> np.ndarray:
    """The smallest Holm-adjusted p-value of each of a null history's 50 versions."""
    rng = np.random.default_rng([24, 4, seed])
    n_bench = N_BENCHMARKS + (N_VERSIONS - 1 if scenario == "benchmarks" else 0)
    beta = rng.normal(0.0, 2.0, n_bench)

    def run() -> np.ndarray:  # one entry's seed-averaged score on every benchmark
        return (beta + rng.normal(0.0, 1.0, n_bench)
                + rng.normal(0.0, 1.0, (N_SEEDS, n_bench)).mean(axis=0))

    cells = [run() for _ in range(N_ENTRIES)]
    smallest = np.empty(N_VERSIONS)
    for v in range(1, N_VERSIONS + 1):
        if v > 1 and scenario == "entries":
            cells.append(run())
        elif v > 1 and scenario == "reruns":
            cells[(v - 2) % N_ENTRIES] = run()
        shown = N_BENCHMARKS + (v - 1 if scenario == "benchmarks" else 0)
        smallest[v - 1] = min_adjusted(np.column_stack(cells)[:shown])
    return smallest


def min_adjusted(blocks: np.ndarray) -> float:
    """The smallest Holm-adjusted Wilcoxon p over the pairs of a (benchmarks x entries) table."""
    p, _, _ = wilcoxon_p_values(blocks)
    first, second = np.triu_indices(blocks.shape[1], 1)
    return float(holm(p[first, second]).min())


def history_error(scenario: str, n: int) -> dict[str, int]:
    """Histories (of ``n``) in which some version shows a relation, per looks policy."""
    smallest = np.array([history(seed, scenario) for seed in range(n)])
    versions = np.arange(1, N_VERSIONS + 1)
    out = {}
    for looks in LOOKS_POLICIES:
        levels = np.array([look_level(ALPHA, v, looks) for v in versions])
        out[looks] = int((smallest <= levels).any(axis=1).sum())
    out["version 1"] = int((smallest[:, 0] <= ALPHA).sum())
    return out


def n_histories(scenario: str) -> int:
    base = HISTORIES[scenario]
    return base if SCALE <= 1 else int(PER_SCALE * SCALE)


def at_most_alpha(hits: int, n: int) -> bool:
    """Whether ``hits`` in ``n`` is consistent with a rate <= alpha (one-sided, 0.001)."""
    return stats.binomtest(hits, n, ALPHA, alternative="greater").pvalue > 0.001


@pytest.fixture(scope="module")
def errors() -> dict[str, tuple[dict[str, int], int]]:
    out = {}
    for scenario in HISTORIES:
        n = n_histories(scenario)
        if n:
            out[scenario] = (history_error(scenario, n), n)
    return out


# ------------------------------------------------------------------ the schedule
def test_spending_schedule_known_answers():
    assert look_level(ALPHA, 1, "all-versions") == pytest.approx(ALPHA / 2)
    assert look_level(ALPHA, 2, "all-versions") == pytest.approx(ALPHA / 6)
    assert look_level(ALPHA, 10, "all-versions") == pytest.approx(ALPHA / 110)
    assert all(look_level(ALPHA, v, "per-version") == ALPHA for v in (1, 2, 50, 10_000))
    # The levels telescope: sum_{u <= v} 1 / (u (u + 1)) = v / (v + 1), exactly.
    for v in (1, 2, 7, 50, 1000):
        total = sum(Fraction(1, u * (u + 1)) for u in range(1, v + 1))
        assert total == Fraction(v, v + 1)
        assert spent(ALPHA, v) == pytest.approx(ALPHA * v / (v + 1))
    levels = np.array([look_level(ALPHA, v, "all-versions") for v in range(1, 100_001)])
    assert levels.sum() < ALPHA and np.all(np.diff(levels) < 0)
    assert spent(ALPHA, 10**9) < ALPHA


def test_bad_looks_and_versions_are_clear_errors():
    with pytest.raises(ValueError, match=r"looks: unknown policy 'all'; choose per-version"):
        check_looks("all")
    with pytest.raises(ValueError, match=r"version must be a whole number >= 1"):
        look_level(ALPHA, 0, "all-versions")
    assert leaderboard_cli.LOOKS == LOOKS_POLICIES


# ------------------------------------------------------------------ the simulation
def test_all_versions_controls_the_error_over_the_whole_history(errors):
    for scenario, (counts, n) in errors.items():
        assert at_most_alpha(counts["all-versions"], n), (scenario, counts, n)
    hits = sum(c["all-versions"] for c, _ in errors.values())
    assert at_most_alpha(hits, sum(n for _, n in errors.values())), errors


def test_per_version_loses_control_of_the_history(errors):
    for scenario, (counts, n) in errors.items():
        if scenario == "entries":  # Holm over ever more pairs: little to see (README)
            continue
        # The simulation sees the failure: "rate <= alpha" is rejected at 0.001.
        assert not at_most_alpha(counts["per-version"], n), (scenario, counts, n)
        # ... while each version alone holds its level (here version 1).
        assert at_most_alpha(counts["version 1"], n), (scenario, counts, n)


def null_results(seed: int, gap: float = 0.0, names: dict[str, str] | None = None,
                 n_bench: int = 12) -> Results:
    """5 entries on ``n_bench`` benchmarks x 2 seeds; entry e0 better by ``gap``."""
    rng = np.random.default_rng([24, 44, seed])
    beta = rng.normal(0.0, 2.0, n_bench)
    rows = [(f"e{a}", f"b{b:02d}", s, beta[b] + (gap if a == 0 else 0.0)
             + gamma + rng.normal(0.0, 1.0))
            for a in range(N_ENTRIES) for b, gamma in
            zip(range(n_bench), rng.normal(0.0, 1.0, n_bench), strict=True)
            for s in range(N_SEEDS)]
    frame = pd.DataFrame(rows, columns=["algorithm", "benchmark", "seed", "score"])
    if names:
        frame["algorithm"] = frame["algorithm"].map(names)
    return Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
                              seed="seed", score="score", objective="maximize", kind="runs")


@pytest.fixture(scope="module")
def gap_board():
    """Version 2 of an all-versions board where e0 is better by 1.6 (about a second)."""
    return build_leaderboard(null_results(3, gap=1.6), analyses=["ranks"], arena=False,
                             looks="all-versions", version=2)


def test_simulated_decision_is_the_boards(gap_board):
    """The simulation's adjusted p-values and settled pairs are those of a built board."""
    results, board = null_results(3, gap=1.6), gap_board
    blocks = results.table.groupby(["benchmark", "algorithm"])["score"].mean().unstack()
    p, _, _ = wilcoxon_p_values(blocks.to_numpy())
    first, second = np.triu_indices(blocks.shape[1], 1)
    names = blocks.columns.to_numpy()
    adjusted = dict(zip(zip(names[first], names[second], strict=True),
                        holm(p[first, second]), strict=True))
    rel = board.relations
    assert len(rel) == len(adjusted)
    simulated = np.array([adjusted[(a, b)] for a, b in zip(rel["a"], rel["b"], strict=True)])
    given = rel["p_value_adjusted"].notna()  # the board states it for decided pairs and gaps
    assert given.any()
    np.testing.assert_allclose(rel.loc[given, "p_value_adjusted"], simulated[given], rtol=1e-12)
    settled = rel["status"] == "settled"
    assert settled.any() and not settled.all()  # the check sees both outcomes
    level = look_level(ALPHA, 2, "all-versions")
    assert settled.tolist() == (simulated <= level).tolist()
    assert set(rel.loc[settled, "shown_in"]) == {2}


def test_renaming_entries_does_not_change_the_decision(gap_board):
    names = {"e0": "zeta", "e1": "Alpha", "e2": "m", "e3": "0", "e4": "e0"}
    base = gap_board
    other = build_leaderboard(null_results(3, gap=1.6, names=names), analyses=["ranks"],
                              arena=False, looks="all-versions", version=2)
    keep = ["position", "better_than", "worse_than"]
    want = base.entries.assign(algorithm=base.entries["algorithm"].map(names))
    pd.testing.assert_frame_equal(other.entries.set_index("algorithm")[keep].sort_index(),
                                  want.set_index("algorithm")[keep].sort_index())

    def decided(board, rename=lambda x: x):
        rel = board.relations[board.relations["status"] == "settled"]
        return sorted((rename(w), rename(lo)) for w, lo in zip(rel["winner"], rel["loser"],
                                                               strict=True))

    assert decided(other) == decided(base, names.__getitem__) != []
    # Keeping earlier relations does not depend on the names either.
    earlier = base.relations.assign(
        status="settled", winner=base.relations["a"], loser=base.relations["b"], shown_in=1)
    plain = base.relations.assign(status="unsettled", winner=None, loser=None)
    kept, n, _ = keep_shown(plain, earlier, version=5, entries=list(names))
    renamed = {c: earlier[c].map(names) for c in ("a", "b", "winner", "loser")}
    kept2, n2, _ = keep_shown(plain.assign(a=plain["a"].map(names), b=plain["b"].map(names)),
                              earlier.assign(**renamed), version=5, entries=list(names.values()))
    assert n == n2 == len(plain)
    assert kept2["winner"].tolist() == kept["winner"].map(names).tolist()


def test_keep_shown_contradiction_and_replacement():
    cols = ["a", "b", "status", "winner", "loser", "families", "p_value_adjusted", "reason",
            "shown_in"]
    old = pd.DataFrame([["x", "y", "settled", "x", "y", "ranks", 1e-4, "", 3],
                        ["x", "z", "implied", "x", "z", "", np.nan, "", 4]], columns=cols)
    new = pd.DataFrame([["x", "y", "settled", "y", "x", "ranks", 1e-5, "", None],
                        ["x", "z", "settled", "x", "z", "ranks", 1e-5, "", None],
                        ["y", "z", "unsettled", None, None, "", 0.3, "", None]], columns=cols)
    rel, kept, clashes = keep_shown(new, old, version=6, entries=["x", "y", "z"])
    assert clashes == ["x > y"] and kept == 0
    assert rel["status"].tolist() == ["contradicted", "settled", "unsettled"]
    assert rel["shown_in"].tolist()[1:] == [4, None]  # the same way: shown since version 4
    # A replaced entry starts afresh: nothing about it is kept.
    rel, kept, clashes = keep_shown(new.assign(status="unsettled", winner=None, loser=None),
                                    old, version=6, entries=["x", "y", "z"], replaced=["x"])
    assert kept == 0 and clashes == [] and (rel["status"] == "unsettled").all()


# ------------------------------------------------------------------ store and command line
def test_store_keeps_the_policy_and_the_relations_shown(tmp_path: Path):
    results = null_results(5, gap=3.0)
    first = results.subset(algorithms=["e0", "e1", "e2"])
    folder = tmp_path / "board"
    board = create_leaderboard(folder, first, analyses=["ranks"], looks="all-versions")
    assert board.looks == "all-versions" and board.level == pytest.approx(ALPHA / 2)
    shown = board.relations[board.relations["status"] == "settled"]
    assert set(shown["winner"]) == {"e0"} and set(shown["shown_in"]) == {1}
    with pytest.raises(ValueError, match=r"looks: this leaderboard's error control is "
                                         r"'all-versions'.*Fix: drop --looks"):
        update_leaderboard(folder, results.subset(algorithms=["e3"]), looks="per-version")
    board, _ = update_leaderboard(folder, results.subset(algorithms=["e3", "e4"]))
    assert board.version == 2 and board.looks == "all-versions"
    rel = board.relations.set_index(["winner", "loser"])
    for pair in zip(shown["winner"], shown["loser"], strict=True):
        assert rel.loc[pair, "status"] == "settled" and rel.loc[pair, "shown_in"] == 1
    again = load_leaderboard(folder)
    assert again.looks == "all-versions" and again.level == pytest.approx(ALPHA / 6)
    assert again.relations["shown_in"].dropna().astype(int).min() == 1
    assert "Error control over every version: version 2 tested at level 0.00833" in (
        folder / "leaderboard.md").read_text()
    assert json.loads((folder / "manifest.json").read_text())["looks"] == "all-versions"


def test_cli_round_trip_keeps_looks_and_refuses_another(tmp_path: Path, capsys):
    frame = null_results(5, gap=3.0).table[["algorithm", "benchmark", "seed", "score"]]
    base, more = tmp_path / "base.csv", tmp_path / "more.csv"
    frame[frame["algorithm"].isin(["e0", "e1"])].to_csv(base, index=False)
    frame[frame["algorithm"] == "e2"].to_csv(more, index=False)
    roles = ["--algorithm", "algorithm", "--benchmark", "benchmark", "--seed", "seed",
             "--score", "score", "--objective", "maximize", "--kind", "runs",
             "--analyses", "ranks"]
    folder = tmp_path / "board"
    assert main(["leaderboard", str(base), *roles, "-o", str(folder),
                 "--looks", "all-versions"]) == 0
    assert "Error control over every version: version 1 tested at level 0.025" in (
        capsys.readouterr().out)
    assert json.loads((folder / "manifest.json").read_text())["looks"] == "all-versions"
    # Another policy on update is refused: the levels spent so far assume this one.
    assert main(["leaderboard", "--update", str(folder), str(more), *roles,
                 "--looks", "per-version"]) == 1
    err = capsys.readouterr().err
    assert "this leaderboard's error control is 'all-versions'" in err and "Fix:" in err
    assert load_leaderboard(folder).version == 1
    assert main(["leaderboard", "--update", str(folder), str(more), *roles]) == 0
    assert "version 2 tested at level 0.00833" in capsys.readouterr().out
    v2 = json.loads((folder / "versions" / "v0002" / "leaderboard.json").read_text())
    assert v2["looks"] == "all-versions" and v2["level"] == pytest.approx(ALPHA / 6)
    with pytest.raises(SystemExit) as stop:
        main(["leaderboard", str(base), "-o", str(tmp_path / "b"), "--looks", "every"])
    assert stop.value.code == 2
    assert "unknown policy 'every'; choose per-version" in capsys.readouterr().err


def test_per_version_page_states_what_it_does_not_cover():
    board = build_leaderboard(null_results(3, n_bench=6), analyses=["ranks"], arena=False)
    assert board.looks == "per-version" and board.level == ALPHA
    for text in (board.summary(), board.to_markdown(), board.to_html()):
        assert "holds for version 1 alone" in text
        assert "--looks all-versions controls the whole history" in text
    data = board.to_dict()
    assert data["looks"] == "per-version" and data["level"] == ALPHA
    del data["looks"]  # a board written before the looks policies reads as per-version
    from benchverdict.leaderboard import Leaderboard

    assert Leaderboard.from_dict(data).looks == "per-version"
