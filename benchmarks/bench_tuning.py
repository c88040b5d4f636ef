"""Speed of benchverdict.tuning / benchverdict.stats against opda 0.8.0, in one process.

Run:  python benchmarks/bench_tuning.py [--quick] [--skip-opda-1024]

Times (wall clock, first call, caches cleared):
* LD highest-density CDF bands at 80% and 95% for n = 48, 1,024, 10,000
  (and 100,000 for benchverdict only), against opda's Monte Carlo bands
  (opda at n = 1,024 runs once, at 80%; at n = 10,000 it is not run: it
  would take hours and tens of GB);
* the curve-calibrated median tuning-curve band (benchverdict only);
* V and U point estimates at n = 10^4 and 10^6 (opda's dense n x k arrays
  limit it to a few budgets at n = 10^6, and its U is nan above n ~ 1,030);
* sample-size guidance (``tuning.sample_size``) for budgets k = 10 to 10^12,
  with its peak traced memory: before issue 10 it built CDF bands for about
  6 k draws, so k = 10^6 and beyond ran out of memory or time (``--at-budget
  1e9`` was killed); now it is O(log k) evaluations of O(1) each.

Prints a table with the ratios; writes nothing.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from benchverdict.stats import cdf_bands
from benchverdict.stats.cdf_bands import cdf_band
from benchverdict.tuning import expected_max, sample_size, tuning_curve


def clear_caches() -> None:
    cdf_bands._ld_solve.cache_clear()
    cdf_bands._ld_solve_levels.cache_clear()
    cdf_bands.ks_critical_value.cache_clear()
    cdf_bands._ks_solve_levels.cache_clear()


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def opda_band(ys, confidence):
    from opda.nonparametric import EmpiricalDistribution

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return EmpiricalDistribution.confidence_bands(
            ys, confidence, method="ld_highest_density", generator=np.random.default_rng(0)
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip n = 100,000 and opda at 1,024")
    parser.add_argument("--skip-opda-1024", action="store_true",
                        help="do not run opda at n = 1,024 (it takes minutes)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []

    def report(task, ours, theirs=None):
        if theirs is None:
            ratio = "       -"
        else:
            r = theirs / ours
            ratio = f"{r:8.1f}x" if r < 10 else f"{r:8.0f}x"
        theirs_text = f"{theirs:9.2f}s" if theirs is not None else "        -"
        rows.append((task, ours, theirs))
        print(f"{task:<48} {ours:9.3f}s {theirs_text} {ratio}", flush=True)

    print(f"{'task':<48} {'ours':>10} {'opda':>10} {'speed-up':>9}")
    sizes = [48, 1024, 10_000] + ([] if args.quick else [100_000])
    for n in sizes:
        ys = rng.normal(size=n)
        for confidence in (0.8, 0.95):
            if n == 100_000 and confidence == 0.95:
                continue
            clear_caches()
            ours, _ = timed(lambda ys=ys, c=confidence: cdf_band(ys, c))
            theirs = None
            run_opda = n == 48 or (
                n == 1024 and confidence == 0.8 and not (args.quick or args.skip_opda_1024)
            )
            if run_opda:
                theirs, _ = timed(lambda ys=ys, c=confidence: opda_band(ys, c))
            report(f"LD-HD CDF band, n={n:,}, {confidence:.0%}", ours, theirs)
        if n <= 10_000:
            clear_caches()
            ours, _ = timed(lambda ys=ys: tuning_curve(ys, confidence=0.8))
            report(f"median tuning curve + exact band, n={n:,}, 80%", ours)

    for n in (10_000, 1_000_000):
        ys = np.round(rng.normal(size=n), 3)  # with ties
        ks_ours = np.unique(np.geomspace(1, n, 100).astype(int))
        for est in ("v", "u"):
            ours, _ = timed(lambda ys=ys, e=est, ks=ks_ours: expected_max(ys, ks, e))
            report(f"{est.upper()} estimate, n={n:,}, {ks_ours.size} budgets", ours)
        # opda: dense (n x K) arrays; compare on a budget set it can hold in memory.
        from opda.nonparametric import EmpiricalDistribution

        dist = EmpiricalDistribution(ys)
        ks_small = np.arange(1, 11) if n > 10_000 else ks_ours
        for est, fn in (("v", dist.v_tuning_curve), ("u", dist.u_tuning_curve)):
            ours, mine = timed(lambda ys=ys, e=est, ks=ks_small: expected_max(ys, ks, e))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs, ref = timed(lambda f=fn, ks=ks_small: f(ks))
            nan = int(np.isnan(ref).sum())
            ok = ~np.isnan(ref)
            diff = float(np.max(np.abs(mine[ok] - ref[ok]))) if ok.any() else float("nan")
            report(
                f"{est.upper()} estimate, n={n:,}, {ks_small.size} budgets"
                + (f" (opda nan: {nan})" if nan else f" (max diff {diff:.1e})"),
                ours, theirs,
            )
    guidance_rows(report)


def guidance_rows(report) -> None:
    """sample_size(k) for budgets far beyond any sample, with peak memory."""
    import tracemalloc

    from benchverdict.tuning import guidance

    guidance._exact_top.cache_clear()
    for k in (10, 1e3, 1e6, 1e9, 1e12):
        tracemalloc.start()
        seconds, n = timed(lambda k=k: sample_size(k))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        report(f"sample_size(k={k:g}) = {n:,} (peak {peak / 1e6:.1f} MB)", seconds)


if __name__ == "__main__":
    main()
