"""Speed of ``benchverdict report --example`` (issue 11 goal: under 20 s on 2 cores).

Two measurements:

* the command itself, as a user runs it (a fresh process: imports, the four
  analyses, every file of the report directory), wall-clock over ``--repeat`` runs;
* the same work in one process, split by phase: each analysis (as ``compare``
  times it), reconciliation, and each output format (HTML, Markdown with its
  SVG figures and CSV tables, JSON, LaTeX with PDF figures, the CSV files).

Run from the repository root::

    python benchmarks/bench_report_example.py [--repeat 3]

Load average and CPU count are printed first: the machines are shared, and
wall-clock times scale with the load.

Writing the report is mostly drawing figures with matplotlib: each figure is laid
out once (a dry-run draw, then its SVG for HTML and Markdown) and its PDF (LaTeX)
reuses that layout and tight box (one more draw); PDF fonts are subset once per
process (``plotting.shared_font_subsets``). Measured on 2026-11-27 (2 cores, load
2-4), CPU seconds, runs alternating with the code before these changes:

    ==================================  ==================  ==================
    what                                before              after
    ==================================  ==================  ==================
    ``report --example`` (user + sys)   20.8, 21.0, 20.3    17.7, 17.6, 18.8
    ``write_report`` alone              9.38, 8.79          5.90, 5.93
    ==================================  ==================  ==================

What is left of ``write_report`` (~6 s): 18 SVGs at ~3.2 s (constrained layout, the
dry-run draw, the tight box, the draw; the DSE CDF grid alone 1.1 s), 17 PDFs at
~1.7 s, the report's own figures ~0.6 s, HTML/JSON/Markdown/CSV ~1 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

GOAL_SECONDS = 20.0


def time_command(repeat: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU (user + system) seconds of ``benchverdict report --example``.

    CPU time hardly depends on the load of a shared machine; on an idle machine the
    wall-clock time is close to it (the report runs on one core).
    """
    wall, cpu = [], []
    env = {**os.environ, "MPLBACKEND": "Agg"}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "benchverdict.cli", "report", "--example",
                            "-o", str(Path(tmp) / "report"), "--no-progress"],
                           check=True, capture_output=True, env=env)
            wall.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall, cpu


def time_phases() -> dict[str, float]:
    """Seconds per phase of the same report, in one process."""
    from benchverdict.examples import load_example
    from benchverdict.report._cli import write_report
    from benchverdict.report.runner import compare

    phases: dict[str, float] = {}
    start = time.perf_counter()
    results = load_example()
    phases["load the example"] = time.perf_counter() - start
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparison = compare(results, progress=False)
    phases["compare() total"] = time.perf_counter() - t
    for r in comparison.runs:
        phases[f"  {r.name}"] = r.seconds
    t = time.perf_counter()
    _ = comparison.figures
    phases["report figures (ranking, agreement)"] = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        write_report(comparison, Path(tmp) / "report")
        phases["write every file"] = time.perf_counter() - t
        sizes = {p.name: p.stat().st_size for p in (Path(tmp) / "report").iterdir()
                 if p.is_file()}
        md_lines = (Path(tmp) / "report" / "report.md").read_text(encoding="utf-8").count("\n")
    with tempfile.TemporaryDirectory() as tmp:
        for name, fn in (("  HTML", lambda: comparison.to_html(Path(tmp) / "r.html")),
                         ("  Markdown (+ SVG, CSV)",
                          lambda: comparison.to_markdown(Path(tmp) / "r.md")),
                         ("  JSON", lambda: comparison.to_json(Path(tmp) / "r.json")),
                         ("  LaTeX (+ PDF)", lambda: comparison.to_latex(Path(tmp) / "tex"))):
            t = time.perf_counter()
            fn()
            phases[name + " (again, SVG cached)"] = time.perf_counter() - t
    phases["TOTAL in process"] = time.perf_counter() - start
    print(f"  report.html {sizes.get('report.html', 0) / 1e6:.2f} MB, report.md "
          f"{md_lines} lines, report.json {sizes.get('report.json', 0) / 1e6:.2f} MB")
    return phases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    runs, cpu = time_command(args.repeat)
    median = statistics.median(runs)
    print(f"benchverdict report --example: median {median:.1f} s wall-clock over {len(runs)} "
          f"runs ({', '.join(f'{x:.1f}' for x in runs)}); goal < {GOAL_SECONDS:g} s: "
          f"{'met' if median < GOAL_SECONDS else 'NOT met'}")
    print(f"  CPU time (user + system): median {statistics.median(cpu):.1f} s "
          f"({', '.join(f'{x:.1f}' for x in cpu)})")
    print("phases (one process):")
    for name, seconds in time_phases().items():
        print(f"  {name:<40} {seconds:7.2f} s")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
