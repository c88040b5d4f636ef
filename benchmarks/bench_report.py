"""End-to-end speed of the comparison report on the PriorBand data.

Workloads (goals from the report issue):

* ``priorband_data.parquet`` (86,400 rows): read, ``compare()`` (rank tests,
  Autorank, LMEM, per-prior scopes, reconciliation), then HTML, Markdown,
  JSON and LaTeX (PDF figures). Goal <= 30 s.
* ``priorband_anytime_full.parquet`` (3.3M rows): the same. Goal <= 120 s.
* ``budgets`` (issue 10): the built-in example (random-search trials with a
  trial order) with its budget column as is, x1000, x1e-3 and shifted to
  negative values, and ``budget=1e9``. Budget values must not change the
  cost: sample-size guidance sizes by trials, never by budget values (before
  the fix x1000 took 228 s instead of 5 s and 1e9 was killed for memory).
* ``algorithms`` (issue 10): reconciliation and every document format for
  20, 50, 100 and 200 algorithms with a stand-in analysis (one verdict per
  pair from each of 3 methods), so that only the report's own cost is
  timed; it must grow like the number of pairs (before the fix rendering was
  quadratic in it: 40 algorithms took 40 s, 200 did not finish).
* ``big`` (issue 25): ``benchverdict report`` as a user runs it (a separate
  process, sanity checks included) on 200 algorithms x 10 benchmarks x 3
  seeds (19,900 pairs, 278,600 verdicts, a 600 MB report.json). Goal <= 60 s
  CPU and <= 2 GB peak resident memory, read from the child's ``getrusage``.

The anchor, run in the same process, is what a user runs today for the rank
part alone: ``autorank.autorank`` on the benchmark x algorithm matrix of
final incumbents (built with pandas from the same frame). The ratio says how
much more the full report costs than that single test.

Run from the repository root::

    python benchmarks/bench_report.py [--data ../shared/data]
        [--only small|full|budgets|algorithms|big]

Prints one table per workload; load average is printed too, because the
machines are shared and wall-clock times scale with it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
import time
import warnings
from pathlib import Path

import pandas as pd

from benchverdict.io.adapters import read_priorband
from benchverdict.report.runner import compare

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("BENCHVERDICT_SHARED_DATA", ROOT.parent / "shared" / "data"))
WORKLOADS = {
    "small": ("priorband_data.parquet", 30.0),
    "full": ("priorband_anytime_full.parquet", 120.0),
}
SYNTHETIC = ("budgets", "algorithms", "big")


def anchor_autorank(path: Path) -> float:
    """Seconds for autorank on the final incumbents (mean over seeds), read with pandas."""
    import autorank

    start = time.perf_counter()
    frame = pd.read_parquet(path, columns=["bench_prior", "algorithm", "seed",
                                           "used_fidelity", "value"])
    final = frame.sort_values("used_fidelity").groupby(
        ["bench_prior", "algorithm", "seed"], observed=True).tail(1)
    wide = final.pivot_table(index="bench_prior", columns="algorithm", values="value",
                             aggfunc="mean")
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        autorank.autorank(wide, alpha=0.05, verbose=False, order="ascending")
    return time.perf_counter() - start


def run(path: Path, goal: float) -> None:
    timings: dict[str, float] = {}
    start = time.perf_counter()
    results = read_priorband(path)
    timings["read + validate"] = time.perf_counter() - start
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = compare(results, progress=False)
    timings["compare() total"] = time.perf_counter() - t
    for r in comparison.runs:
        timings[f"  {r.name} ({r.status})"] = r.seconds
    with tempfile.TemporaryDirectory() as out:
        out = Path(out)
        for name, fn in (
            ("HTML", lambda: comparison.to_html(out / "r.html")),
            ("Markdown", lambda: comparison.to_markdown(out / "r.md")),
            ("JSON", lambda: comparison.to_json(out / "r.json")),
            ("LaTeX + PDF figures", lambda: comparison.to_latex(out / "tex")),
        ):
            t = time.perf_counter()
            fn()
            timings[name] = time.perf_counter() - t
    total = time.perf_counter() - start
    anchor = anchor_autorank(path)
    print(f"\n{path.name}: {len(results):,} rows; {comparison!r}")
    for name, seconds in timings.items():
        print(f"  {name:<28} {seconds:8.2f} s")
    print(f"  {'TOTAL (read to all formats)':<28} {total:8.2f} s   goal <= {goal:g} s: "
          f"{'met' if total <= goal else 'NOT met'}")
    print(f"  anchor: autorank alone       {anchor:8.2f} s   (report / anchor = "
          f"{total / anchor:.1f}x)")


def run_budgets() -> None:
    """compare() on the example with its budgets rescaled: the cost must not change."""
    from benchverdict.examples import load_example
    from benchverdict.results import Results

    base = load_example()
    frame = base.table.reset_index(drop=True)
    print(f"\nbudgets: the built-in example ({len(frame):,} rows), all analyses but the LMEM")
    variants = {"as is": (1.0, 0.0, None), "x1000": (1000.0, 0.0, None),
                "x1e-3": (1e-3, 0.0, None), "shifted to negative": (1.0, -1000.0, None),
                "budget=1e9": (1.0, 0.0, 1e9)}
    with warnings.catch_warnings():  # warm-up: imports and first-call caches
        warnings.simplefilter("ignore")
        compare(base, analyses=["tuning", "dse", "ranks"], progress=False)
    first = None
    for label, (scale, shift, at) in variants.items():
        scaled = frame.assign(budget=frame["budget"] * scale + shift)
        res = Results.from_frame(scaled, algorithm="algorithm", benchmark="benchmark",
                                 seed="seed", budget="budget", score="score",
                                 objective=base.objective, kind="trials")
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compare(res, analyses=["tuning", "dse", "ranks"], budget=at, progress=False)
        seconds = time.perf_counter() - t
        first = first or seconds
        print(f"  {label:<22} {seconds:8.2f} s   ({seconds / first:.2f}x the unscaled run)")


def run_algorithms(sizes: tuple[int, ...] = (20, 50, 100, 200)) -> None:
    """The report's own cost (reconcile + every format) against the number of pairs."""
    import itertools

    import numpy as np

    from benchverdict.methods import register_method
    from benchverdict.report.runner import AnalysisRun
    from benchverdict.results import Results
    from benchverdict.verdict import Evidence, Scope, Verdict

    # The report refuses verdicts of a method nobody declared: the stand-in's three
    # methods are declared as a rank-test module declares its own (the first one votes).
    for m in range(3):
        register_method(f"ranks.m{m}", "ranks", f"stand-in method {m}", paired=True,
                        unit="benchmark", aspect="ranks", assumptions="none (a stand-in)",
                        error_control="per comparison", votes=m == 0, primary=m == 0,
                        scale="ranks")

    def stand_in(results, options):
        run = AnalysisRun("ranks", "ok")
        for m, (a, b) in itertools.product(range(3), itertools.combinations(
                results.algorithms, 2)):
            run.verdicts.append(Verdict(a, b, ("a", "b", "inconclusive")[m], f"ranks.m{m}",
                                        Scope(), Evidence("p_value", 0.01, 0.05), "maximize",
                                        "stand-in", unit="benchmark", n=5))
        return run

    print("\nalgorithms: stand-in analysis, 3 methods x every pair")
    rng = np.random.default_rng(0)
    for n in sizes:
        frame = pd.DataFrame([(f"alg{i:03d}", f"b{j}", s, rng.normal()) for i in range(n)
                              for j in range(5) for s in range(2)],
                             columns=["alg", "task", "seed", "acc"])
        res = Results.from_frame(frame, algorithm="alg", benchmark="task", seed="seed",
                                 score="acc", objective="maximize", kind="runs")
        t = time.perf_counter()
        comparison = compare(res, analyses=["ranks"], runners={"ranks": stand_in},
                             progress=False)
        reconciled = time.perf_counter() - t
        with tempfile.TemporaryDirectory() as out:
            t = time.perf_counter()
            comparison.to_html(Path(out) / "r.html")
            comparison.to_markdown(Path(out) / "r.md")
            comparison.to_json(Path(out) / "r.json")
            comparison.to_latex(Path(out) / "tex")
            rendered = time.perf_counter() - t
        pairs = n * (n - 1) // 2
        print(f"  {n:>4} algorithms ({pairs:>6,} pairs): compare {reconciled:7.2f} s, "
              f"all formats {rendered:7.2f} s  ({1e3 * (reconciled + rendered) / pairs:.2f} "
              f"ms per pair)")


def run_big(n_algorithms: int = 200, n_benchmarks: int = 10, n_seeds: int = 3) -> None:
    """The whole ``benchverdict report`` command on 200 x 10 x 3 runs: CPU and peak memory."""
    import resource
    import subprocess
    import sys

    import numpy as np

    rng = np.random.default_rng(25)
    effect = rng.normal(0, 0.4, n_algorithms)
    rows = [(f"alg{i:03d}", f"bench{j}", s, effect[i] + inter + rng.normal(0, 0.6))
            for i in range(n_algorithms) for j in range(n_benchmarks)
            for inter in [rng.normal()] for s in range(n_seeds)]
    print(f"\nbig: benchverdict report, {n_algorithms} algorithms x {n_benchmarks} benchmarks "
          f"x {n_seeds} seeds (every analysis that applies, sanity checks included)")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "big.csv"
        pd.DataFrame(rows, columns=["algorithm", "benchmark", "seed", "score"]).to_csv(
            data, index=False)
        # The child's CPU and peak RSS: getrusage(RUSAGE_CHILDREN) after it is reaped
        # (this process has no other children).
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "benchverdict.cli", "report", str(data),
             "--algorithm", "algorithm", "--benchmark", "benchmark", "--seed", "seed",
             "--score", "score", "--objective", "maximize", "--kind", "runs",
             "-o", str(Path(tmp) / "out"), "--no-progress"],
            capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        size = (Path(tmp) / "out" / "report.json").stat().st_size if done.returncode == 0 else 0
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"  exit {done.returncode}; CPU {cpu:.1f} s (goal 60 s), peak RSS "
          f"{after.ru_maxrss / 2**20:.2f} GB (goal 2 GB), wall {wall:.1f} s, "
          f"report.json {size / 1e6:.0f} MB")
    if done.returncode:
        print(done.stderr[-2000:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--only", choices=sorted([*WORKLOADS, *SYNTHETIC]))
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if args.only in (None, "budgets"):
        run_budgets()
    if args.only in (None, "algorithms"):
        run_algorithms()
    if args.only in (None, "big"):
        run_big()
    for key, (name, goal) in WORKLOADS.items():
        if args.only and key != args.only:
            continue
        path = args.data / "priorband" / name
        if not path.exists():
            print(f"skipping {name}: not found under {args.data}")
            continue
        run(path, goal)


if __name__ == "__main__":
    main()
