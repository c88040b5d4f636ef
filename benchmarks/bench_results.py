"""Speed and memory of ``Results.from_frame`` + ``describe`` at 10^6 and 10^7 rows.

Each size runs in a fresh subprocess. Peak memory is the peak of the
allocations made during ``from_frame`` + ``describe`` (tracemalloc, which
sees numpy and pandas buffers), divided by the input frame's own memory. The anchor, run in the same
process on the same frame, is what a careful user would do by hand with
pandas: ``df.duplicated(keys).any()``, ``df[score].isna().any()``, a
``groupby(...).size()`` for the design, and ``df.describe()``.

Targets (issue 2): at 10^7 rows <= 2 s and <= 3x the frame's memory.

Run: ``python benchmarks/bench_results.py [--sizes 1000000 10000000]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pandas as pd


def make_frame(n_rows: int, seed: int = 0) -> pd.DataFrame:
    """A synthetic HPO-runs table: 10 algorithms x 100 benchmarks x 50 seeds x budgets."""
    rng = np.random.default_rng(seed)
    n_alg, n_bench, n_seed = 10, 100, 50
    n_budget = max(1, n_rows // (n_alg * n_bench * n_seed))
    idx = np.arange(n_alg * n_bench * n_seed * n_budget)
    alg, rest = np.divmod(idx, n_bench * n_seed * n_budget)
    bench, rest = np.divmod(rest, n_seed * n_budget)
    seed_, budget = np.divmod(rest, n_budget)
    return pd.DataFrame(
        {
            # pandas 3 reads string columns from Parquet/CSV as the str dtype; use it here.
            "algorithm": pd.array(np.array([f"alg{i}" for i in range(n_alg)])[alg], dtype="str"),
            "benchmark": pd.array(np.array([f"task{i:03d}" for i in range(n_bench)])[bench],
                                  dtype="str"),
            "seed": seed_.astype(np.int64),
            "budget": (budget + 1).astype(np.float64),
            "score": rng.normal(size=len(idx)),
        }
    )


def run_one(n_rows: int) -> dict:
    from benchverdict import Results

    df = make_frame(n_rows)
    frame_bytes = int(df.memory_usage(deep=True).sum())
    t0 = time.perf_counter()
    res = Results.from_frame(df, algorithm="algorithm", benchmark="benchmark", seed="seed",
                             budget="budget", score="score", objective="maximize")
    t1 = time.perf_counter()
    desc = res.describe()
    t2 = time.perf_counter()
    str(desc)
    # Memory in a second, traced pass (tracing slows the code, so it is not timed).
    del res, desc
    tracemalloc.start()
    res = Results.from_frame(df, algorithm="algorithm", benchmark="benchmark", seed="seed",
                             budget="budget", score="score", objective="maximize")
    res.describe()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # The anchor: the checks a careful user writes with plain pandas.
    t3 = time.perf_counter()
    keys = ["algorithm", "benchmark", "seed", "budget"]
    _ = df.duplicated(keys).any()
    _ = (~np.isfinite(df["score"].to_numpy())).any()
    _ = df.groupby(["algorithm", "benchmark"]).size()
    _ = df.describe()
    t4 = time.perf_counter()
    return {
        "rows": len(df),
        "from_frame_s": t1 - t0,
        "describe_s": t2 - t1,
        "total_s": t2 - t0,
        "pandas_anchor_s": t4 - t3,
        "ratio_vs_anchor": (t2 - t0) / (t4 - t3),
        "frame_mb": frame_bytes / 2**20,
        "peak_alloc_mb": peak / 2**20,
        "peak_over_frame": peak / frame_bytes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000_000, 10_000_000])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child)))
        return
    rows = []
    for n in args.sizes:
        out = subprocess.run([sys.executable, __file__, "--child", str(n)], check=True,
                             capture_output=True, text=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    table = pd.DataFrame(rows).set_index("rows")
    with pd.option_context("display.float_format", "{:.2f}".format):
        print(table.to_string())


if __name__ == "__main__":
    main()
