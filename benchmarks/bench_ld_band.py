"""Speed of the exact LD highest-density CDF band at n = 10^4 to 10^6 (issue 25), with opda.

Run:  python benchmarks/bench_ld_band.py [--skip-opda-1024] [--check-1e6] [--sizes 48,1024,...]

For each n: ``cdf_band(ys, 0.8)`` (and 95% up to n = 10^5), first call,
caches cleared, CPU time (``time.process_time``) and wall time, and how
many exact probability evaluations the critical-value solve made. The band
is then checked against the corner-by-corner reference path (no blocks):
its exact coverage there must equal the confidence to 1e-9 (for n = 10^6
only with ``--check-1e6``: the reference takes about half a minute per
evaluation there).

opda 0.8.0 (the anchor) runs in the same process at n = 48 (80% and 95%)
and n = 1,024 (80%; several minutes, skip with ``--skip-opda-1024``); it
cannot run at n >= 10^4 (its Monte Carlo would take hours and tens of GB).
opda works in a
process pool (one worker per core), so its CPU time includes the workers';
ratios are given for CPU and for wall time.

Prints a table; writes nothing.
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings

import numpy as np

from benchverdict.stats import cdf_bands
from benchverdict.stats import order_statistics as os_
from benchverdict.stats.cdf_bands import cdf_band


def clear_caches() -> None:
    cdf_bands._ld_solve.cache_clear()
    cdf_bands._ld_solve_levels.cache_clear()


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (opda's worker pool)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(fn):
    cpu, wall = cpu_seconds(), time.perf_counter()
    out = fn()
    return cpu_seconds() - cpu, time.perf_counter() - wall, out


def opda_band(ys, confidence):
    from opda.nonparametric import EmpiricalDistribution

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return EmpiricalDistribution.confidence_bands(
            ys, confidence, method="ld_highest_density", generator=np.random.default_rng(0)
        )


def ours(ys, confidence):
    """The band, its CPU and wall seconds, and the number of probability evaluations."""
    calls = []
    probability = cdf_bands.order_statistics_band_probability

    def counted(lower, upper):
        calls.append(None)
        return probability(lower, upper)

    clear_caches()
    cdf_bands.order_statistics_band_probability = counted
    try:
        cpu, wall, band = timed(lambda: cdf_band(ys, confidence))
    finally:
        cdf_bands.order_statistics_band_probability = probability
    return band, cpu, wall, len(calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-opda-1024", action="store_true",
                        help="do not run opda at n = 1,024 (it takes minutes)")
    parser.add_argument("--check-1e6", action="store_true",
                        help="check the n = 10^6 band's coverage on the reference path too")
    parser.add_argument("--sizes", default="48,1024,10000,100000,1000000",
                        help="comma-separated sample sizes")
    args = parser.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    rng = np.random.default_rng(0)
    print(f"{'task':<40} {'CPU':>9} {'wall':>9} {'evals':>5} {'|P_ref - conf|':>14} "
          f"{'opda CPU':>9} {'opda wall':>9} {'CPU ratio':>9} {'wall ratio':>10}", flush=True)
    for n in sizes:
        ys = rng.normal(size=n)
        for confidence in (0.8, 0.95):
            if n > 100_000 and confidence != 0.8:
                continue
            band, cpu, wall, evals = ours(ys, confidence)
            check = "-"
            if n < 1_000_000 or args.check_1e6:
                p = os_._band_probability(band.lower, band.upper, blocks=False)
                check = f"{abs(p - confidence):.1e}"
            opda_text = f"{'-':>9} {'-':>9} {'-':>9} {'-':>10}"
            if n == 48 or (n == 1024 and confidence == 0.8 and not args.skip_opda_1024):
                their_cpu, their_wall, _ = timed(lambda ys=ys, c=confidence: opda_band(ys, c))
                opda_text = (f"{their_cpu:8.2f}s {their_wall:8.2f}s {their_cpu / cpu:8.0f}x "
                             f"{their_wall / wall:9.0f}x")
            print(f"{f'LD-HD CDF band, n={n:,}, {confidence:.0%}':<40} {cpu:8.3f}s {wall:8.3f}s "
                  f"{evals:>5} {check:>14} {opda_text}", flush=True)


if __name__ == "__main__":
    main()
