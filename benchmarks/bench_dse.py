"""Speed of the DSE stratified bootstrap against rliable, in the same process.

Workload (rliable's Atari-100k shape): 5 algorithms x 26 tasks x 10 runs,
50,000 bootstrap replicates, 95% percentile intervals.

* anchor: ``rliable.library.get_interval_estimates`` (arch's IIDBootstrap
  subclass, one call of the aggregate per replicate);
* ours: ``benchverdict.dse.aggregate.stratified_bootstrap`` (one gather and
  one sort per block of replicates).

Both compute the same interval definitions (checked exactly in
tests/test_dse_aggregate.py); their random streams differ, so the endpoints
agree only up to Monte Carlo error, which is printed.

rliable 1.2 pins arch < 8, and arch 7.2 fails to import under pandas 3
(``pandas.util._decorators.deprecate_kwarg`` gained a required first
argument). When that happens this script adapts that one decorator for the
import, in this process only. Without rliable the script times ours alone.

Run: ``python benchmarks/bench_dse.py [--reps 50000]``.

``--report-example`` and ``--report-trials FILE`` time instead the DSE
analysis of a report (``benchverdict.dse.runner.run_dse``: dominance, CVaR
and single-draw run-permutation tests, cluster bootstraps), CPU seconds, on
the built-in example or on a trials file (parquet or CSV with columns
algorithm, benchmark, seed, trial, accuracy). Measured in one session on a
shared 2-core machine (load 2.6-3.3, ``OMP_NUM_THREADS=1``), the code before
(dfb7dbb) and after (5c3a0a5) the per-run summaries of
``benchverdict.dse.clusters.RunCounts``, run alternately (after, before,
after), with every p-value, outcome and verdict text unchanged (numbers
differ by round-off only):

=====================================================  ==========  ==========
DSE of a report, CPU seconds                           before      after
=====================================================  ==========  ==========
10 algorithms x 10 benchmarks x 10 seeds x 1,000 draws      253.6  31.3, 30.4
built-in example (5 x 20 x 10 x 20 draws)                     5.2    2.9, 2.7
=====================================================  ==========  ==========
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchverdict.dse.aggregate import percentile_interval, stratified_bootstrap


def import_rliable():
    """rliable's library and metrics modules, or (None, None)."""
    try:
        from rliable import library, metrics
    except ImportError:
        return None, None
    except TypeError:
        # arch 7.x under pandas 3: adapt deprecate_kwarg's old signature for this import.
        import pandas.util._decorators as decorators

        original = decorators.deprecate_kwarg

        def compat(old, new, *args, **kwargs):
            return original(FutureWarning, old, new, *args, **kwargs)

        decorators.deprecate_kwarg = compat
        try:
            from rliable import library, metrics
        finally:
            decorators.deprecate_kwarg = original
    return library, metrics


def time_report_dse(results) -> float:
    """CPU seconds of the report's DSE analysis on ``results`` (figures off)."""
    from benchverdict.analysis import Options
    from benchverdict.dse.runner import run_dse

    start = time.process_time()
    run = run_dse(results, Options(figures=False))
    spent = time.process_time() - start
    print(f"DSE: {spent:.1f} s CPU; {len(run.verdicts)} verdicts; status {run.status}")
    return spent


def load_trials(path: str):
    """A trials file (parquet or CSV: algorithm, benchmark, seed, trial, accuracy) as Results."""
    import pandas as pd

    from benchverdict.results import Results

    frame = pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
    return Results.from_frame(frame, algorithm="algorithm", seed="seed", score="accuracy",
                              objective="maximize", benchmark="benchmark", budget="trial",
                              kind="trials")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=50_000)
    parser.add_argument("--report-example", action="store_true",
                        help="time the report's DSE on the built-in example")
    parser.add_argument("--report-trials", metavar="FILE",
                        help="time the report's DSE on a trials file")
    args = parser.parse_args()
    if args.report_example or args.report_trials:
        if args.report_example:
            from benchverdict.examples import load_example

            time_report_dse(load_example())
        if args.report_trials:
            time_report_dse(load_trials(args.report_trials))
        return
    rng = np.random.default_rng(0)
    scores = {f"alg{i}": rng.gamma(2.0, 0.5 + 0.1 * i, size=(10, 26)) for i in range(5)}
    library, metrics = import_rliable()
    print(f"workload: 5 algorithms x 26 tasks x 10 runs, {args.reps} replicates")
    rows = []
    for label, names in (("IQM", ["iqm"]), ("IQM+mean+median+gap",
                                             ["iqm", "mean", "median", "optimality_gap"])):
        start = time.perf_counter()
        ours = {}
        for k, (alg, m) in enumerate(scores.items()):
            reps = stratified_bootstrap([m[:, t] for t in range(26)], names, n_resamples=args.reps,
                                        seed=k)
            ours[alg] = {n: percentile_interval(reps[n], 0.95) for n in names}
        t_ours = time.perf_counter() - start
        t_rl, err = float("nan"), float("nan")
        if library is not None:
            funcs = {"iqm": metrics.aggregate_iqm, "mean": metrics.aggregate_mean,
                     "median": metrics.aggregate_median,
                     "optimality_gap": metrics.aggregate_optimality_gap}

            def func(x, names=names, funcs=funcs):
                return np.array([funcs[n](x) for n in names])

            np.random.seed(0)  # noqa: NPY002 - rliable draws from the global state
            start = time.perf_counter()
            _, intervals = library.get_interval_estimates(scores, func, reps=args.reps)
            t_rl = time.perf_counter() - start
            err = max(
                abs(intervals[alg][j, i] - ours[alg][n][j])
                for alg in scores for i, n in enumerate(names) for j in (0, 1)
            )
        rows.append((label, t_rl, t_ours, err))
    print(f"{'aggregates':24s} {'rliable s':>10s} {'ours s':>8s} {'speed-up':>9s} "
          f"{'max |endpoint diff|':>20s}")
    for label, t_rl, t_ours, err in rows:
        print(f"{label:24s} {t_rl:10.2f} {t_ours:8.2f} {t_rl / t_ours:8.1f}x {err:20.4f}")
    if library is None:
        print("rliable is not installed (pip install rliable): timed ours alone.")


if __name__ == "__main__":
    main()
