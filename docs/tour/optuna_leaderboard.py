"""The README tour's Optuna and leaderboard example, end to end (needs ``optuna``).

Runs Optuna's RandomSampler, TPESampler and QMCSampler (5 seeds, 30 trials
each) on six classic 2-d test functions into one SQLite file, reads the
studies with :func:`benchverdict.io.adapters.read_optuna` (with each
trial's wall-clock time, ``seconds=True``), starts a leaderboard with them
that shows the seconds per study as a cost, then submits NSGAIISampler's
studies as an update and draws the score-versus-cost Pareto view.

Run from an empty folder: ``python docs/tour/optuna_leaderboard.py``.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import optuna

from benchverdict.io.adapters import read_optuna
from benchverdict.leaderboard import create_leaderboard, update_leaderboard

FUNCTIONS = {
    "sphere": lambda x, y: x * x + y * y,
    "rosenbrock": lambda x, y: (1 - x) ** 2 + 100 * (y - x * x) ** 2,
    "rastrigin": lambda x, y: 20 + sum(v * v - 10 * math.cos(2 * math.pi * v) for v in (x, y)),
    "ackley": lambda x, y: (-20 * math.exp(-0.2 * math.sqrt(0.5 * (x * x + y * y)))
                            - math.exp(0.5 * (math.cos(2 * math.pi * x)
                                              + math.cos(2 * math.pi * y))) + math.e + 20),
    "booth": lambda x, y: (x + 2 * y - 7) ** 2 + (2 * x + y - 5) ** 2,
    "himmelblau": lambda x, y: (x * x + y - 11) ** 2 + (x + y * y - 7) ** 2,
}


def run(storage: str, sampler_name: str, seeds: range = range(5), n_trials: int = 30) -> None:
    """One study per (test function, seed) for ``sampler_name``, tagged with its roles."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    for bench, f in FUNCTIONS.items():
        for seed in seeds:
            study = optuna.create_study(storage=storage,
                                        study_name=f"{sampler_name}-{bench}-{seed}",
                                        sampler=getattr(optuna.samplers, sampler_name)(seed=seed))
            study.set_user_attr("algorithm", sampler_name)
            study.set_user_attr("benchmark", bench)
            study.set_user_attr("seed", seed)
            study.optimize(lambda t, f=f: f(t.suggest_float("x", -5, 5),
                                             t.suggest_float("y", -5, 5)), n_trials=n_trials)


def main() -> None:
    """Make the studies, start the leaderboard, submit NSGA-II, print what moved."""
    here = Path(tempfile.mkdtemp())
    for name in ("RandomSampler", "TPESampler", "QMCSampler"):
        run(f"sqlite:///{here / 'studies.db'}", name)
    run(f"sqlite:///{here / 'nsga2.db'}", "NSGAIISampler")
    res = read_optuna(here / "studies.db", seconds=True)
    print(res)
    create_leaderboard(here / "board", res, sources=["studies.db"], cost="seconds")
    submission = read_optuna(here / "nsga2.db", min_algorithms=1, seconds=True)  # one sampler
    board, changes = update_leaderboard(here / "board", submission, sources=["nsga2.db"])
    print(board.summary())
    for change in changes:
        print("-", change.text)
    print(board.pareto.to_string(index=False))
    ax = board.plot_pareto()
    ax.figure.savefig(here / "pareto.svg", bbox_inches="tight")
    print(f"(files in {here})")


if __name__ == "__main__":
    main()
