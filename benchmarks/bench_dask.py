"""Dask scale-out timings (issue 12): describe + LMEM fit + GLRT + Tukey, the full report, memory.

Runs on a ``LocalCluster`` of 2 worker processes with 1 thread each (this
machine has 2 cores), or on ``--scheduler ADDRESS``. Data: the synthetic
anytime benchmark of ``benchmarks/make_anytime_parquet.py`` (made in
``--data`` when missing). Each size uses the first k files of the data
(1 file ~ 10^6 rows), so the sizes share one generated directory.

Measured per size, from partitioned Parquet:

* ``validate``: ``Results.from_frame`` on the Dask frame (two passes: labels, checks);
  the canonical partitions are then kept in the workers' memory unless ``--no-persist``;
* ``core``: ``describe()`` + LMEM ``score ~ algorithm + (1|benchmark)`` and its null
  model + GLRT + Tukey-adjusted pairwise contrasts, on all rows;
* ``report``: ``benchverdict.compare`` (every analysis that applies) and writing it;
* peak resident memory of the client and of each worker process (``ru_maxrss``).

Usage::

    python benchmarks/bench_dask.py --data /work/i12data/anytime-1e8 --rows 1e6 1e7 1e8 \\
        [--report-rows 1e8] [--out benchmarks/dask_scaling]

Writes ``OUT/timings.csv`` and ``OUT/dask_scaling.png`` (time against rows, log-log).
The committed ``benchmarks/dask_scaling/`` was measured at 04:24-04:29 UTC on
2026-11-24 on the shared 2-core machine (1-minute load average 0.7-2.0, in the
CSV), every size with ``--no-persist`` (10^8 persisted rows overflow two 4 GiB
workers)::

    python benchmarks/bench_dask.py --data /work/i12data/anytime-1e8 \
        --rows 1e6 3e6 1e7 3e7 1e8 --no-persist --out benchmarks/dask_scaling
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
FORMULA = "score ~ algorithm + (1|benchmark)"
NULL = "score ~ 1 + (1|benchmark)"


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB (Linux: ru_maxrss is in kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def files_for(data: Path, rows: float, tmp: Path) -> Path:
    """A directory of links to the first files holding about ``rows`` rows."""
    parts = sorted(data.glob("*.parquet"))
    k = max(1, round(rows / 1e6))
    if k > len(parts):
        raise SystemExit(f"{data} has {len(parts)} files (~{len(parts)}e6 rows); need {k}.")
    out = tmp / f"rows-{k}"
    out.mkdir(exist_ok=True)
    for p in parts[:k]:
        link = out / p.name
        if not link.exists():
            link.symlink_to(p)
    return out


def measure(path: Path, report: bool, out: Path, persist: bool) -> dict:
    import benchverdict as bv
    from benchverdict._dask.construct import from_dask_frame
    from benchverdict._dask.frame import read_dask
    from benchverdict.lmem import fit, glrt

    row: dict = {}
    t0 = time.perf_counter()
    ddf, names = read_dask(path, columns=["algorithm", "bench_prior", "seed", "used_fidelity",
                                          "value", "prior"])
    res = from_dask_frame(ddf, algorithm="algorithm", benchmark="bench_prior", seed="seed",
                          budget="used_fidelity", score="value", objective="minimize",
                          metafeatures=["prior"], kind=None, partition_names=names,
                          persist=persist)
    row["rows"] = len(res)
    row["persist"] = persist
    row["partitions"] = res.npartitions
    row["validate_s"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    desc = res.describe()
    row["describe_s"] = time.perf_counter() - t1
    t2 = time.perf_counter()
    m1 = fit(res, FORMULA)
    row["fit_s"] = time.perf_counter() - t2
    m0 = fit(res, NULL)
    test = glrt(m0, m1)
    pairs = m1.pairwise()
    row["core_s"] = time.perf_counter() - t1
    row["loglik"] = m1.loglik
    row["glrt_p"] = test.p_value
    row["kind"] = res.kind
    row["n_pairs_significant"] = int((pairs["p_value"] < 0.05).sum())
    assert desc.n_rows == len(res)
    if report:
        from benchverdict.report._cli import write_report

        t3 = time.perf_counter()
        comparison = bv.compare(res, progress=False)
        write_report(comparison, out / f"report-{len(res)}", progress=False)
        row["report_s"] = time.perf_counter() - t3
        row["report_errors"] = "; ".join(f"{r.name}: {r.reason}" for r in comparison.errors)
        row["report_failed_steps"] = failed_steps_text(comparison)
    return row


def failed_steps_text(comparison) -> str:
    """Every failed sub-step of a report as ``analysis: step: conclusion``, ``; ``-joined.

    The conclusion is the recorded ``"FAILED: <error type>: <message>"``
    (:meth:`benchverdict.report.runner.AnalysisRun.fail`): never empty.
    """
    return "; ".join(f"{r.name}: {c.get('name')}: {c.get('conclusion', '')}"[:300]
                     for r in comparison.runs for c in r.failed_steps)


def run_one(args: argparse.Namespace, rows: float, report: bool) -> dict:
    from distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory() as tmp:
        path = files_for(args.data, rows, Path(tmp))
        if args.scheduler:
            client = Client(args.scheduler)
            cluster = None
        else:
            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   memory_limit="4GiB", dashboard_address=None)
            client = Client(cluster)
        try:
            load_before = os.getloadavg()[0]
            row = measure(path, report, args.out, not args.no_persist)
            row["load_1min_before"] = load_before
            row["load_1min_after"] = os.getloadavg()[0]
            peaks = client.run(peak_rss_mb)
            row["worker_peak_mb"] = max(peaks.values())
            row["client_peak_mb"] = peak_rss_mb()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    return row


def figure(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    colours = sns.color_palette("colorblind")
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for (column, label), colour, marker in zip(
            [("validate_s", "read + validate"), ("core_s", "describe + LMEM + GLRT + Tukey"),
             ("report_s", "full report")], colours, "os^"):
        if column in table and table[column].notna().any():
            t = table.dropna(subset=[column])
            ax.plot(t["rows"], t[column], marker=marker, color=colour, label=label)
    lo, hi = table["rows"].min(), table["rows"].max()
    for column, colour in zip(("validate_s", "core_s", "report_s"), colours):
        if column in table and table[column].notna().any():
            ref = table.dropna(subset=[column]).set_index("rows")[column]
            # Through the geometric mean of the measured points: slope 1 on log-log axes.
            scale = float(np.exp(np.mean(np.log(ref.to_numpy()) - np.log(ref.index))))
            ax.plot([lo, hi], [scale * lo, scale * hi], ls=":", color=colour, alpha=0.6,
                    label="linear in rows (dotted, fitted level)" if column == "validate_s"
                    else None)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rows (partitioned Parquet, ~1e6 rows per file)")
    ax.set_ylabel("seconds")
    persist = ("persisted partitions" if table["persist"].all() else
               "not persisted (Parquet read in every pass)" if not table["persist"].any()
               else "mixed persistence")
    title = f"benchverdict on Dask: 2 workers x 1 thread\n{persist}"
    if "load_1min_before" in table:
        loads = table[["load_1min_before", "load_1min_after"]].to_numpy()
        title += f"\nshared 2-core machine, 1-min load average {loads.min():.1f}-{loads.max():.1f}"
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=150)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "bv-anytime")
    parser.add_argument("--rows", type=float, nargs="+", default=[1e6])
    parser.add_argument("--report-rows", type=float, nargs="*", default=None,
                        help="sizes at which the full report is also timed (default: all)")
    parser.add_argument("--scheduler", default=None)
    # Not dask_scaling/ by default: a plain run (as `nox -s bench` makes) overwrote the
    # committed 10^6-10^8 scaling table and figure with its one size.
    parser.add_argument("--out", type=Path, default=HERE / "out" / "dask",
                        help="where the timings (and reports) go; the README's scaling figure "
                             "is made with --out benchmarks/dask_scaling")
    parser.add_argument("--no-persist", action="store_true",
                        help="read the Parquet parts again in every pass instead of keeping "
                             "the canonical partitions in the workers' memory (~36 bytes a "
                             "row in all: 10^8 rows do not fit two 4 GiB workers)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.data.exists() or len(list(args.data.glob("*.parquet"))) < max(args.rows) / 1e6:
        subprocess.check_call([sys.executable, str(HERE / "make_anytime_parquet.py"),
                               str(args.data), "--rows", str(max(args.rows))])
    report_rows = args.rows if args.report_rows is None else args.report_rows
    if args.one:  # one size in this process, so that its peak memory is its own
        row = run_one(args, args.rows[0], bool(report_rows))
        print("ROW", pd.Series(row).to_json())
        return 0
    rows = []
    for n in args.rows:
        cmd = [sys.executable, __file__, "--one", "--data", str(args.data), "--rows", str(n),
               "--out", str(args.out)] + (["--scheduler", args.scheduler] if args.scheduler
                                          else [])
        cmd += ["--report-rows"] + ([str(n)] if n in report_rows else [])
        cmd += ["--no-persist"] if args.no_persist else []
        done = subprocess.run(cmd, capture_output=True, text=True,
                              env={**os.environ, "MPLBACKEND": "Agg"})
        line = [x for x in done.stdout.splitlines() if x.startswith("ROW ")]
        if done.returncode or not line:
            print(done.stdout[-3000:], done.stderr[-3000:])
            return 1
        row = json.loads(line[0][4:])
        print(row, flush=True)
        rows.append(row)
        table = pd.DataFrame(rows)
        table.to_csv(args.out / "timings.csv", index=False)  # after every size: kept if stopped
        figure(table, args.out / "dask_scaling.png")
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
