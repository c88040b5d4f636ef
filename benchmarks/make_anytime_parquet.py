"""Write a synthetic anytime HPO benchmark as partitioned Parquet (issue 12's scale data).

The structure is that of the PriorBand anytime data
(``../shared/data/priorband/priorband_anytime_full.parquet``): one row per
incumbent change of an HPO run, with columns

``algorithm``   PB, BO, HB, RS (category)
``benchmark``   ``bench-0000``, ... (category)
``prior``       at25, bad, good, medium (category; a metafeature)
``bench_prior`` benchmark x prior, the benchmark role as in PriorBand (category)
``seed``        0..49 (int64)
``used_fidelity`` the budget: a grid of 921 levels 1, 1.025, ..., 24 (float64)
``value``       the incumbent loss, lower is better (float64)

Model (all seeded): every run draws ``ROWS_PER_RUN`` budget levels by
cumulative geometric steps (mean 3.3 levels; a run that reaches the largest
level stops there, so a few runs are shorter) and scores them as
``benchmark + prior + algorithm + algorithm x prior + run effect
+ 0.3 exp(-budget / 4) + noise``, then keeps the running minimum (an
incumbent never gets worse). Each file holds ``BENCHMARKS_PER_FILE``
benchmarks (1 million rows on average) and is drawn from its own generator
``numpy.random.default_rng([seed, file_index])``, so any prefix of the files
is itself a complete data set and files can be made in any order.

Usage::

    python benchmarks/make_anytime_parquet.py OUT_DIR --rows 1e8 [--seed 0]

writes ``OUT_DIR/part-00000.parquet`` ... (10^8 rows: 100 files, ~1.5 GB).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

ALGORITHMS = ("BO", "HB", "PB", "RS")
ALGORITHM_EFFECT = np.array([-0.015, 0.0, -0.02, 0.03])
PRIORS = ("at25", "bad", "good", "medium")
PRIOR_EFFECT = np.array([-0.01, 0.02, -0.02, 0.0])
N_SEEDS = 50
LEVELS = 1.0 + np.arange(921) / 40.0  # 1, 1.025, ..., 24
ROWS_PER_RUN = 250  # drawn per run; the few beyond the last level are cut
BENCHMARKS_PER_FILE = 5
ROWS_PER_BENCHMARK_EXPECTED = 200_000  # 4 algorithms x 4 priors x 50 seeds x <= 250 rows


def make_file(seed: int, index: int) -> pd.DataFrame:
    """The rows of file ``index`` (benchmarks ``index * BENCHMARKS_PER_FILE`` and on)."""
    rng = np.random.default_rng([seed, index])
    benches = np.arange(index * BENCHMARKS_PER_FILE, (index + 1) * BENCHMARKS_PER_FILE)
    nb, na, npr = len(benches), len(ALGORITHMS), len(PRIORS)
    # Runs in (benchmark, prior, algorithm, seed) order.
    b_idx, p_idx, a_idx, s_idx = (x.ravel() for x in np.meshgrid(
        np.arange(nb), np.arange(npr), np.arange(na), np.arange(N_SEEDS), indexing="ij"))
    n_runs = len(b_idx)
    bench_effect = rng.normal(0.3, 0.1, size=nb)
    run_effect = rng.normal(0.0, 0.01, size=n_runs)
    interaction = np.where((ALGORITHMS.index("PB") == a_idx) & (p_idx == PRIORS.index("bad")),
                           0.03, 0.0)
    base = (bench_effect[b_idx] + PRIOR_EFFECT[p_idx] + ALGORITHM_EFFECT[a_idx] + interaction
            + run_effect)
    steps = rng.geometric(0.3, size=(n_runs, ROWS_PER_RUN))
    steps[:, 0] = rng.integers(0, 4, size=n_runs) + 1  # runs start at different budgets
    level = np.cumsum(steps, axis=1) - 1
    keep = level < len(LEVELS)
    budget = LEVELS[np.minimum(level, len(LEVELS) - 1)]
    noisy = base[:, None] + 0.3 * np.exp(-budget / 4.0) + rng.normal(0, 0.02, budget.shape)
    value = np.minimum.accumulate(noisy, axis=1)
    rows = keep.sum(axis=1)
    run_of_row = np.repeat(np.arange(n_runs), rows)
    bench_labels = np.array([f"bench-{b:04d}" for b in benches])
    bench_prior = np.array([f"bench-{b:04d}-{p}" for b in benches for p in PRIORS])
    return pd.DataFrame({
        "algorithm": pd.Categorical.from_codes(a_idx[run_of_row], ALGORITHMS),
        "benchmark": pd.Categorical(bench_labels[b_idx[run_of_row]]),
        "prior": pd.Categorical.from_codes(p_idx[run_of_row], PRIORS),
        "bench_prior": pd.Categorical(bench_prior[b_idx[run_of_row] * npr + p_idx[run_of_row]]),
        "seed": s_idx[run_of_row].astype(np.int64),
        "used_fidelity": budget[keep],
        "value": value[keep],
    })


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--rows", type=float, default=1e6,
                        help="about how many rows (rounded to whole files of ~1e6 rows)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    per_file = BENCHMARKS_PER_FILE * ROWS_PER_BENCHMARK_EXPECTED
    n_files = max(1, round(args.rows / per_file))
    args.out.mkdir(parents=True, exist_ok=True)
    start, total = time.perf_counter(), 0
    for i in tqdm(range(n_files), desc="writing parts", unit="file"):
        path = args.out / f"part-{i:05d}.parquet"
        frame = make_file(args.seed, i)
        total += len(frame)
        frame.to_parquet(path, index=False)
    print(f"wrote {total:,} rows in {n_files} files to {args.out} in "
          f"{time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
