"""Speed of benchverdict's studentized range sf against scipy's, in the same process.

Workloads, all ``P(Q > q)`` for the same inputs in both:

* ``lmem``: 6 q values (Tukey-adjusted p-values of 4 algorithms), k = 4, df = 37.4;
* ``lmem-1000``: 1000 q values from 0.5 to 12, k = 4, df = 37.4;
* ``lmem-k20``: 190 q values (the pairs of 20 algorithms), k = 20, distinct
  Satterthwaite df around 120;
* ``nemenyi``: 1000 q values, k = 10, df = inf;
* ``lmem-k200``: 19,900 q values (the pairs of 200 algorithms, issue #25) from
  0.5 to 14 (p-values from 1 down to ~1e-17), k = 200, df = 570. scipy takes
  about 50 ms a value here, so it is timed on an evenly spaced subsample of 199
  values and its time scaled by 100 (marked ``*``); the differences are over
  that subsample.

Each timing is the best of ``--repeat`` runs; ratio = scipy's time / ours
(> 1: we are faster). ``direct s`` is ours with the inner integral computed
at every point, as before issue #25 (values identical to that version, bit
for bit); from 32 finite-df values in one call ours now interpolates it from
a table per ``k`` (timed here with the table built, i.e. after the first
call for that ``k``; building it takes 0.02-0.1 s). The direct path of
``lmem-k200`` takes ~25 s and is timed once. The largest absolute and
relative differences to scipy are printed too (scipy's sf is ``1 - cdf``
with an absolute error of ~1e-11, so its relative error grows in the tail),
and the largest relative difference of ours to the direct path.

Run: ``python benchmarks/bench_studentized_range.py [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from scipy import stats

from benchverdict.stats import studentized_range as sr
from benchverdict.stats.studentized_range import studentized_range_sf


def _best(fn, repeat: int) -> tuple[float, np.ndarray]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, np.asarray(out, dtype=float)


def _direct(q, k, df) -> np.ndarray:
    """Ours with the inner integral at every point (the path before issue #25)."""
    saved = sr._TABLE_MIN
    sr._TABLE_MIN = sys.maxsize
    try:
        return studentized_range_sf(q, k, df)
    finally:
        sr._TABLE_MIN = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    workloads = {
        "lmem (6 q, k=4, df=37.4)": (np.array([0.3, 1.2, 2.5, 3.7, 5.1, 8.4]), 4, 37.4),
        "lmem-1000 (1000 q, k=4, df=37.4)": (np.linspace(0.5, 12.0, 1000), 4, 37.4),
        "lmem-k20 (190 q, k=20, df~120)": (rng.uniform(0.5, 9.0, 190), 20,
                                           120.0 + rng.uniform(-0.5, 0.5, 190)),
        "nemenyi (1000 q, k=10, df=inf)": (np.linspace(0.1, 10.0, 1000), 10, np.inf),
        "lmem-k200 (19,900 q, k=200, df=570)": (rng.uniform(0.5, 14.0, 19_900), 200, 570.0),
    }
    print(f"{'workload':36s} {'ours s':>9s} {'direct s':>9s} {'scipy s':>10s} {'ratio':>7s} "
          f"{'max abs diff':>13s} {'max rel diff':>13s} {'rel to direct':>13s}")
    for name, (q, k, df) in workloads.items():
        studentized_range_sf(q, k, df)  # builds the table for k, if this size uses one
        ours_t, ours = _best(lambda q=q, k=k, df=df: studentized_range_sf(q, k, df), args.repeat)
        big = q.size > 10_000
        direct_t, direct = _best(lambda q=q, k=k, df=df: _direct(q, k, df),
                                 1 if big else args.repeat)
        pick = np.arange(0, q.size, 100) if big else np.arange(q.size)
        df_pick = df[pick] if np.ndim(df) else df
        scipy_t, theirs = _best(
            lambda q=q[pick], k=k, df=df_pick: stats.studentized_range.sf(q, k, df), 1)
        scipy_t *= q.size / pick.size
        rel = np.abs(ours[pick] / theirs - 1)[theirs > 1e-6]
        live = direct > 0
        print(f"{name:36s} {ours_t:9.4f} {direct_t:9.4f} {scipy_t:9.4f}{'*' if big else ' '} "
              f"{scipy_t / ours_t:7.1f} {np.max(np.abs(ours[pick] - theirs)):13.1e} "
              f"{np.max(rel):13.1e} {np.max(np.abs(ours[live] / direct[live] - 1)):13.1e}")


if __name__ == "__main__":
    main()
