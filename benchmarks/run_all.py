"""Run every ``benchmarks/bench_*.py`` script in turn (``nox -s bench``).

Each script compares benchverdict with its anchor implementation in one
process and prints a table of timings and ratios. Pass script names to run a
subset: ``nox -s bench -- bench_results.py``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    scripts = [HERE / a for a in argv] if argv else sorted(HERE.glob("bench_*.py"))
    failed = []
    for script in scripts:
        print(f"\n=== {script.name} ===", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(script)])
        print(f"--- {script.name}: exit {code} in {time.perf_counter() - start:.1f} s", flush=True)
        if code:
            failed.append(script.name)
    if failed:
        print(f"\nfailed: {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
