"""End-to-end speed of the comparison report on the PriorBand data.

Workloads (goals from the report issue):

* ``priorband_data.parquet`` (86,400 rows): read, ``compare()`` (rank tests,
  Autorank, LMEM, per-prior scopes, reconciliation), then HTML, Markdown,
  JSON and LaTeX (PDF figures). Goal <= 30 s.
* ``priorband_anytime_full.parquet`` (3.3M rows): the same. Goal <= 120 s.

The anchor, run in the same process, is what a user runs today for the rank
part alone: ``autorank.autorank`` on the benchmark x algorithm matrix of
final incumbents (built with pandas from the same frame). The ratio says how
much more the full report costs than that single test.

Run from the repository root::

    python benchmarks/bench_report.py [--data ../shared/data] [--only small|full]

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--only", choices=sorted(WORKLOADS))
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
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
