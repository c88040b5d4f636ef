"""The comparison report's demonstration cases on real data.

1. meanmax (Tang et al. 2020, hedwig data): tuning curves and DSE on the MLP
   and LSTM random searches. The MLP is better in the centre of the score
   distribution (median, median tuning curve at small k), the LSTM in the
   extreme upper tail (CVaR_0.99, large k); the report shows the conflict and
   explains it by the part of the distribution each method looks at.
2. PriorBand (Geburek et al. 2024): the LMEM against Friedman/Nemenyi,
   Wilcoxon-Holm, the sign test and Autorank, at the final budget (all agree:
   PB > HB > RS) and at budget 3 (the LMEM decides pairs the rank tests do not,
   and even reverses PB vs RS; the report says why: 3,600 runs against 24
   benchmarks as units, and raw loss differences against ranks).

Writes ``analyses/out/report_<case>/`` (HTML, Markdown, JSON, LaTeX) and
prints each case's agreement table and disagreements. Run from the
repository root::

    python analyses/report_demos.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path

import pandas as pd

from benchverdict.io.adapters import read_meanmax, read_priorband
from benchverdict.report.runner import compare

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).resolve().parent / "out"
DATA = Path(os.environ.get("BENCHVERDICT_SHARED_DATA", ROOT.parent / "shared" / "data"))


def show(title: str, comparison, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    comparison.to_html(out / "report.html")
    comparison.to_markdown(out / "report.md")
    comparison.to_json(out / "report.json")
    comparison.to_latex(out / "latex")
    print(f"\n=== {title}\n{comparison!r}")
    for run in comparison.runs:
        print(f"  {run.name:<7} {run.status:<15} {len(run.verdicts):>4} verdicts")
    agreement = comparison.agreement[["a", "b", "benchmark", "metafeature", "outcomes",
                                      "agreement", "consensus"]]
    with pd.option_context("display.width", 200, "display.max_colwidth", 90):
        print(agreement.to_string(index=False))
    for r in comparison.rankings:
        print("  " + r.message)
    conflicts = comparison.conflicts
    print(f"  {len(conflicts)} disagreement(s); the first few:")
    for row in conflicts.head(4).itertuples(index=False):
        scope = row.metafeature if isinstance(row.metafeature, str) else "all"
        print(f"  - {row.a} vs {row.b} [{scope}]: {row.method_1} "
              f"(budget {row.budget_1}) -> {row.outcome_1}; {row.method_2} (budget "
              f"{row.budget_2}) -> {row.outcome_2}\n    rules: {row.rules}\n    "
              f"{row.explanation}")
    print(f"  written to {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    hedwig = read_meanmax(args.data / "meanmax" / "hedwig.tsv")
    show("meanmax (hedwig): MLP vs LSTM, tuning curves and DSE",
         compare(hedwig, cvar_levels=(0.5, 0.99), progress=False), OUT / "report_meanmax")
    priorband = read_priorband(args.data / "priorband" / "priorband_data.parquet")
    show("PriorBand, final budget: LMEM vs rank tests",
         compare(priorband, progress=False), OUT / "report_priorband_final")
    show("PriorBand, budget 3: LMEM vs rank tests",
         compare(priorband, budget=3.0, progress=False), OUT / "report_priorband_budget3")


if __name__ == "__main__":
    main()
