"""Write synthetic random-search trials as partitioned Parquet (issue 12's sketch-scale data).

Random search on a few benchmarks with very many trials: every row is one
IID draw of an algorithm's random search, so tuning curves and score
distributions apply (``kind="trials"``). Columns:

``algorithm``  A, B, C, D (category)
``benchmark``  ``task-00`` ... ``task-09`` (category)
``seed``       0..49: the search's repetition (int64)
``trial``      1..``TRIALS_PER_SEARCH``: the draw's position in its search, the budget
``accuracy``   larger is better, in (0, 1) (float64)

Model (seeded): ``accuracy = 1 / (1 + exp(-(benchmark + algorithm + 0.8 z)))``
with ``z`` standard normal per draw, benchmark offsets spread over
``[-1, 1]`` and algorithm effects ``ALGORITHM_EFFECT`` (so D > C > B > A
by small margins, and A and B differ by 0.01 on the logit scale).
File ``i`` holds benchmark ``i // 10`` and seeds ``5 (i % 10)`` to
``5 (i % 10) + 4`` of every algorithm (10^6 rows) and is drawn from
``numpy.random.default_rng([seed, i])``: any prefix of the files is a data
set, with fewer benchmarks. 10^8 rows make 40 cells of 2.5 million draws,
each too large to send to the client, which is what the ECDF sketches are for.

Usage::

    python benchmarks/make_trials_parquet.py OUT_DIR --rows 1e8 [--seed 0]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

ALGORITHMS = ("A", "B", "C", "D")
ALGORITHM_EFFECT = np.array([0.0, 0.01, 0.05, 0.1])
N_BENCHMARKS = 10
SEEDS_PER_FILE = 5
TRIALS_PER_SEARCH = 50_000
ROWS_PER_FILE = len(ALGORITHMS) * SEEDS_PER_FILE * TRIALS_PER_SEARCH


def make_file(index: int, seed: int) -> pd.DataFrame:
    """The rows of file ``index`` (see the module docstring).

    Examples
    --------
    >>> f = make_file(0, seed=0)
    >>> len(f), f["benchmark"].iloc[0], sorted(f["seed"].unique())
    (1000000, 'task-00', [0, 1, 2, 3, 4])
    """
    rng = np.random.default_rng([seed, index])
    bench = index // (50 // SEEDS_PER_FILE)
    offset = np.linspace(-1.0, 1.0, N_BENCHMARKS)[bench % N_BENCHMARKS]
    seeds = SEEDS_PER_FILE * (index % (50 // SEEDS_PER_FILE)) + np.arange(SEEDS_PER_FILE)
    n_alg = len(ALGORITHMS)
    alg = np.repeat(np.arange(n_alg), SEEDS_PER_FILE * TRIALS_PER_SEARCH)
    logit = offset + ALGORITHM_EFFECT[alg] + 0.8 * rng.standard_normal(ROWS_PER_FILE)
    return pd.DataFrame({
        "algorithm": pd.Categorical.from_codes(alg, categories=list(ALGORITHMS)),
        "benchmark": pd.Categorical([f"task-{bench:02d}"] * ROWS_PER_FILE),
        "seed": np.tile(np.repeat(seeds, TRIALS_PER_SEARCH), n_alg).astype(np.int64),
        "trial": np.tile(np.arange(1, TRIALS_PER_SEARCH + 1), n_alg * SEEDS_PER_FILE),
        "accuracy": 1.0 / (1.0 + np.exp(-logit)),
    })


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    files = max(1, round(args.rows / ROWS_PER_FILE))
    for i in tqdm(range(files), desc="files"):
        path = args.out / f"part-{i:05d}.parquet"
        if not path.exists():
            make_file(i, args.seed).to_parquet(path, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
