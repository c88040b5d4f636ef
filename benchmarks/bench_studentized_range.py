"""Speed of benchverdict's studentized range sf against scipy's, in the same process.

Workloads, all ``P(Q > q)`` for the same inputs in both:

* ``lmem``: 6 q values (Tukey-adjusted p-values of 4 algorithms), k = 4, df = 37.4;
* ``lmem-1000``: 1000 q values from 0.5 to 12, k = 4, df = 37.4;
* ``lmem-k20``: 190 q values (the pairs of 20 algorithms), k = 20, distinct
  Satterthwaite df around 120;
* ``nemenyi``: 1000 q values, k = 10, df = inf.

Each timing is the best of ``--repeat`` runs; ratio = scipy's time / ours
(> 1: we are faster). The largest absolute and relative differences are
printed too (scipy's sf is ``1 - cdf`` with an absolute error of ~1e-11, so
its relative error grows in the tail).

Run: ``python benchmarks/bench_studentized_range.py [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from benchverdict.stats.studentized_range import studentized_range_sf


def _best(fn, repeat: int) -> tuple[float, np.ndarray]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, np.asarray(out, dtype=float)


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
    }
    print(f"{'workload':36s} {'ours s':>9s} {'scipy s':>9s} {'ratio':>7s} "
          f"{'max abs diff':>13s} {'max rel diff':>13s}")
    for name, (q, k, df) in workloads.items():
        ours_t, ours = _best(lambda q=q, k=k, df=df: studentized_range_sf(q, k, df), args.repeat)
        scipy_t, theirs = _best(lambda q=q, k=k, df=df: stats.studentized_range.sf(q, k, df),
                                1)
        rel = np.abs(ours / theirs - 1)[theirs > 1e-6]
        print(f"{name:36s} {ours_t:9.4f} {scipy_t:9.4f} {scipy_t / ours_t:7.1f} "
              f"{np.max(np.abs(ours - theirs)):13.1e} {np.max(rel):13.1e}")


if __name__ == "__main__":
    main()
