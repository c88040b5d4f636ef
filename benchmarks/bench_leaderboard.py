"""Speed of a leaderboard update: 100 algorithms x 100 benchmarks x 10 seeds.

Workload (goal from the leaderboard issue: an update in under 10 s on a
2-core machine): a leaderboard of 99 algorithms is created from synthetic
final scores (each algorithm a fixed offset plus a benchmark effect plus
noise, seeded), then one submission of a 100th algorithm is added with
:func:`benchverdict.leaderboard.update_leaderboard` (design check, rank tests
and LMEM on all 100,000 rows, Holm over all 4,950 pairs, the diff, four
files, the site (:mod:`benchverdict.leaderboard.site`: 100 entry pages) and
a version folder written).

The site's share is timed apart: :func:`~benchverdict.leaderboard.site.render_site`
of the updated board, once with its real two-version history and once with a
history of 100 versions (the board's entries in each), the size a board
reaches after 100 updates; and the bytes a version's site adds.

The anchor, run in the same process, is ``autorank.autorank`` on the
benchmark x algorithm matrix of seed means: the one test a leaderboard
maintainer would otherwise run by hand. The ratio says how much more the
whole update costs than that single test.

Run from the repository root::

    python benchmarks/bench_leaderboard.py [--algorithms 100] [--benchmarks 100] [--seeds 10]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchverdict import Results
from benchverdict.leaderboard import create_leaderboard, update_leaderboard
from benchverdict.leaderboard.site import render_site


def synthetic(n_algorithms: int, n_benchmarks: int, n_seeds: int, seed: int = 0
              ) -> pd.DataFrame:
    """Final scores: algorithm offset (spread 0..1) + benchmark effect + N(0, 1) noise."""
    rng = np.random.default_rng(seed)
    alg = np.repeat(np.arange(n_algorithms), n_benchmarks * n_seeds)
    bench = np.tile(np.repeat(np.arange(n_benchmarks), n_seeds), n_algorithms)
    seeds = np.tile(np.arange(n_seeds), n_algorithms * n_benchmarks)
    offsets = np.linspace(0.0, 1.0, n_algorithms)
    bench_effect = rng.normal(0.0, 2.0, n_benchmarks)
    score = offsets[alg] + bench_effect[bench] + rng.normal(size=alg.size)
    return pd.DataFrame({"algorithm": [f"alg{a:03d}" for a in alg],
                         "benchmark": [f"task{b:03d}" for b in bench],
                         "seed": seeds, "score": score})


def as_results(frame: pd.DataFrame) -> Results:
    return Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark", seed="seed",
                              score="score", objective="maximize", kind="runs",
                              min_algorithms=1)


def anchor_autorank(frame: pd.DataFrame) -> float:
    import autorank

    start = time.perf_counter()
    wide = frame.groupby(["benchmark", "algorithm"])["score"].mean().unstack()
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        autorank.autorank(wide, alpha=0.05, verbose=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", type=int, default=100)
    parser.add_argument("--benchmarks", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    frame = synthetic(args.algorithms, args.benchmarks, args.seeds)
    last = f"alg{args.algorithms - 1:03d}"
    base = as_results(frame[frame["algorithm"] != last])
    submission = as_results(frame[frame["algorithm"] == last])
    print(f"load average {os.getloadavg()[0]:.2f}; {len(frame):,} rows, "
          f"{args.algorithms} algorithms x {args.benchmarks} benchmarks x {args.seeds} seeds")
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        create_leaderboard(folder, base)
        created = time.perf_counter() - start
        start = time.perf_counter()
        board, changes = update_leaderboard(folder, submission)
        updated = time.perf_counter() - start
        rows = pd.read_parquet(os.path.join(folder, "data.parquet"))
        history = json.loads(Path(folder, "site", "history.json").read_text())
        start = time.perf_counter()
        site = render_site(board, rows, changes, history)
        site_now = time.perf_counter() - start
        long = {**history, "versions": [{**history["versions"][-1], "version": v}
                                         for v in range(1, 100)]}
        start = time.perf_counter()
        site_long = render_site(board, rows, changes, long)
        site_100 = time.perf_counter() - start
    anchor = anchor_autorank(frame)
    print(f"{'step':<28}{'seconds':>10}{'x autorank':>12}")
    print(f"{'create (99 algorithms)':<28}{created:>10.1f}{created / anchor:>12.1f}")
    print(f"{'update (+1 algorithm)':<28}{updated:>10.1f}{updated / anchor:>12.1f}"
          f"   goal < 10 s: {'met' if updated < 10 else 'MISSED'}")
    print(f"{'  site render (2 versions)':<28}{site_now:>10.2f}{site_now / anchor:>12.2f}"
          f"   {len(site)} files, {sum(map(len, site.values())) / 1e6:.1f} MB")
    print(f"{'  site at version 100':<28}{site_100:>10.2f}{site_100 / anchor:>12.2f}"
          f"   {sum(map(len, site_long.values())) / 1e6:.1f} MB")
    print(f"{'anchor: autorank':<28}{anchor:>10.1f}{1.0:>12.1f}")
    print(f"{len(board.entries)} entries, {len(changes)} change(s); "
          f"{int((board.relations['status'] == 'settled').sum())} settled relations")


if __name__ == "__main__":
    main()
