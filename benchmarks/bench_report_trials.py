"""Speed of ``benchverdict report`` on 10^6 random-search trials (issue 25 goal: 30 s CPU).

The data (made here, seeded; the same design as the runs quoted in the
README since 2026-11-27): 10 algorithms x 10 benchmarks x 10 seeds x 1000
random-search draws, one row per draw, ``kind="trials"`` with the draw's
position as its budget. Accuracy is ``1 / (1 + exp(-(b + a + 0.8 z)))``
with benchmark offsets ``b`` evenly spread over [-1, 1], algorithm effects
``a`` evenly spread over [0, 0.1] (neighbours 0.011 apart on the logit
scale: some pairs are decided, many are not) and ``z`` standard normal per
draw, so every score is distinct.

Measured:

* the command as a user runs it, in a fresh process: CPU seconds (user and
  system, from ``getrusage``), wall-clock seconds and peak memory, over
  ``--repeat`` runs;
* the anchor in this process: autorank on the same file, as its users run
  it: read the Parquet file, each run's final incumbent (best accuracy),
  their mean per benchmark and algorithm, ``autorank`` on that table.

Run from the repository root::

    python benchmarks/bench_report_trials.py [--repeat 2] [--keep DIR]

Load average and CPU count are printed first: the machines are shared. The
report does much more than autorank (four analyses over every draw, 495
distribution comparisons with run permutation tests, 900 tuning-curve
comparisons, figures and five output formats), so the ratio says what the
extra answers cost, not that one is slower at the same job.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

GOAL_CPU_SECONDS = 30.0
N_ALGORITHMS = 10
N_BENCHMARKS = 10
N_SEEDS = 10
DRAWS_PER_SEED = 1000


def make_trials(path: Path, seed: int = 0) -> int:
    """Write the 10^6 draws (see the module docstring) as Parquet; return the row count."""
    rng = np.random.default_rng(seed)
    alg, bench, run, trial = np.meshgrid(np.arange(N_ALGORITHMS), np.arange(N_BENCHMARKS),
                                         np.arange(N_SEEDS), np.arange(1, DRAWS_PER_SEED + 1),
                                         indexing="ij")
    logit = (np.linspace(-1.0, 1.0, N_BENCHMARKS)[bench.ravel()]
             + np.linspace(0.0, 0.1, N_ALGORITHMS)[alg.ravel()]
             + 0.8 * rng.standard_normal(alg.size))
    frame = pd.DataFrame({
        "algorithm": pd.Categorical.from_codes(alg.ravel(),
                                               [f"alg{i}" for i in range(N_ALGORITHMS)]),
        "benchmark": pd.Categorical.from_codes(bench.ravel(),
                                               [f"task{i}" for i in range(N_BENCHMARKS)]),
        "seed": run.ravel().astype(np.int64),
        "trial": trial.ravel().astype(np.int64),
        "accuracy": 1.0 / (1.0 + np.exp(-logit)),
    })
    frame.to_parquet(path, index=False)
    return len(frame)


def time_report(path: Path, out: Path) -> tuple[float, float, int]:
    """CPU (user + system) and wall-clock seconds, and peak KB, of one report command."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "benchverdict.cli", "report", str(path),
                    "--algorithm", "algorithm", "--benchmark", "benchmark", "--seed", "seed",
                    "--budget", "trial", "--score", "accuracy", "--objective", "maximize",
                    "--kind", "trials", "-o", str(out), "--no-progress"],
                   check=True, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, wall, int(after.ru_maxrss)  # the largest child so far (KB on Linux)


def time_autorank(path: Path) -> float:
    """CPU seconds of autorank on the same file, from reading it to its result."""
    from autorank import autorank

    start = time.process_time()
    frame = pd.read_parquet(path, columns=["algorithm", "benchmark", "seed", "accuracy"])
    final = frame.groupby(["algorithm", "benchmark", "seed"], observed=True)["accuracy"].max()
    wide = final.groupby(level=["benchmark", "algorithm"], observed=True).mean().unstack()
    wide.columns = wide.columns.astype(str)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")  # autorank's own notes on its choice of test
        autorank(wide.reset_index(drop=True), alpha=0.05, verbose=False)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2, help="report runs (default 2)")
    parser.add_argument("--keep", type=Path, help="write the data and reports here")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} CPUs, 1-min load {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        where = args.keep or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        data = where / "trials_1e6.parquet"
        start = time.perf_counter()
        rows = make_trials(data)
        print(f"data: {rows:,} rows in {time.perf_counter() - start:.1f} s ({data})", flush=True)
        runs = []
        for i in range(args.repeat):
            cpu, wall, peak = time_report(data, where / f"report-{i}")
            runs.append(cpu)
            print(f"benchverdict report: {cpu:.1f} s CPU (user + system), {wall:.1f} s wall, "
                  f"peak {peak / 2**20:.2f} GB (largest run so far); 1-min load "
                  f"{os.getloadavg()[0]:.2f}", flush=True)
        anchor = min(time_autorank(data) for _ in range(3))
        best = min(runs)
        print(f"autorank on the same file (read, final incumbents, means, test; best of 3): "
              f"{anchor:.2f} s CPU")
        verdict = "met" if best <= GOAL_CPU_SECONDS else "not met"
        print(f"report / autorank: {best / anchor:.0f}x the anchor's time "
              f"(goal {GOAL_CPU_SECONDS:.0f} s CPU: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
