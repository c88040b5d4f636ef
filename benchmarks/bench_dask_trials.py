"""Dask scale-out on random-search trials (issue 12): the full report when cells outgrow the client.

Data: ``benchmarks/make_trials_parquet.py`` (made in ``--data`` when missing):
every row an IID random-search draw, 10^6 rows per file; at 10^8 rows, 10
benchmarks x 4 algorithms = 40 cells of 2.5 million draws. Each cell is
beyond what the client takes exactly (``_dask.sketch.MAX_EXACT_CELL``), so
the tuning curves come from ECDF sketches, and DSE runs on a uniform random
sample (``dse.MAX_CELL_DRAWS`` per cell); the rank tests and the LMEM use
per-run reductions as for any data.

Measured on a ``LocalCluster`` of 2 worker processes x 1 thread, not
persisted: read + validate, then ``benchverdict.compare`` (every analysis
that applies) and writing the report, with peak resident memory of the
client and the workers.

Usage::

    python benchmarks/bench_dask_trials.py --data /work/i12data/trials-1e8 --rows 1e8 \\
        [--out benchmarks/dask_scaling]

Appends one row per size to ``OUT/trials.csv``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_dask import failed_steps_text, files_for, peak_rss_mb  # noqa: E402


def measure(path: Path, out: Path) -> dict:
    import benchverdict as bv
    from benchverdict._dask.construct import from_dask_frame
    from benchverdict._dask.frame import read_dask
    from benchverdict.report._cli import write_report

    row: dict = {}
    t0 = time.perf_counter()
    ddf, names = read_dask(path, columns=["algorithm", "benchmark", "seed", "trial",
                                          "accuracy"])
    res = from_dask_frame(ddf, algorithm="algorithm", benchmark="benchmark", seed="seed",
                          budget="trial", score="accuracy", objective="maximize", kind=None,
                          partition_names=names, persist=False)
    row.update(rows=len(res), kind=res.kind, partitions=res.npartitions,
               validate_s=time.perf_counter() - t0)
    t1 = time.perf_counter()
    comparison = bv.compare(res, progress=False)
    write_report(comparison, out / f"trials-report-{len(res)}", progress=False)
    row["report_s"] = time.perf_counter() - t1
    for run in comparison.runs:
        row[f"{run.name}_s"] = run.seconds
        row[f"{run.name}_status"] = run.status
    row["report_failed_steps"] = failed_steps_text(comparison)
    row["headline"] = str(comparison.summary()).splitlines()[-3:]
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "bv-trials")
    parser.add_argument("--rows", type=float, default=1e8)
    # Not dask_scaling/ by default: a plain run (as `nox -s bench` makes) overwrote the
    # committed 10^6-10^8 scaling table and figure with its one size.
    parser.add_argument("--out", type=Path, default=HERE / "out" / "dask",
                        help="where the timings (and reports) go; the README's scaling figure "
                             "is made with --out benchmarks/dask_scaling")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.data.exists() or len(list(args.data.glob("*.parquet"))) < args.rows / 1e6:
        subprocess.check_call([sys.executable, str(HERE / "make_trials_parquet.py"),
                               str(args.data), "--rows", str(args.rows)])
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           memory_limit="4GiB", dashboard_address=None)
    client = Client(cluster)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            load_before = os.getloadavg()[0]
            row = measure(files_for(args.data, args.rows, Path(tmp)), args.out)
            row["load_1min_before"] = load_before
            row["load_1min_after"] = os.getloadavg()[0]
            row["worker_peak_mb"] = max(client.run(peak_rss_mb).values())
            row["client_peak_mb"] = peak_rss_mb()
    finally:
        client.close()
        cluster.close()
    print(row)
    path = args.out / "trials.csv"
    table = pd.DataFrame([row])
    if path.exists():
        table = pd.concat([pd.read_csv(path), table], ignore_index=True)
    table.to_csv(path, index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
