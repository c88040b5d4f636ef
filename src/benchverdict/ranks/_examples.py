"""Tiny seeded HPO-run data sets for the ranks module's docstring examples."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchverdict.results import Results


def small_runs(n_benchmarks: int = 7, n_seeds: int = 3, seed: int = 1) -> Results:
    """Three algorithms (PB, HB, RS) x benchmarks x seeds x budgets 1..3; loss, minimise.

    PB is clearly best; HB is a little better than RS. Scores are incumbents
    (non-increasing along the budget within a run), so ``kind == "runs"``.
    """
    rng = np.random.default_rng(seed)
    rows = []
    offsets = {"PB": 0.0, "HB": 0.25, "RS": 0.35}
    for b in range(n_benchmarks):
        difficulty = rng.uniform(0.5, 2.0)
        for alg, offset in offsets.items():
            for s in range(n_seeds):
                loss = difficulty + offset + rng.normal(0, 0.15)
                for budget in (1, 2, 3):
                    loss -= abs(rng.normal(0, 0.05))
                    rows.append((alg, f"bench{b}", s, budget, loss))
    df = pd.DataFrame(rows, columns=["algorithm", "benchmark", "seed", "budget", "loss"])
    return Results.from_frame(
        df, algorithm="algorithm", benchmark="benchmark", seed="seed", budget="budget",
        score="loss", objective="minimize", kind="runs",
    )
