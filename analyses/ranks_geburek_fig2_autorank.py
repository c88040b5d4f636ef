"""Geburek et al. (2024), Fig. 2 (left): Autorank on the PriorBand PB / HB / RS data.

Geburek et al. ("LMEMs for post-hoc analysis of HPO benchmarking", arXiv
2408.02533) run Autorank on the PriorBand experiment (3 algorithms x 12
benchmarks x 2 prior qualities x 50 seeds) as the baseline their LMEM
analysis is compared with. Their helper (lmem-significance's
``convert_to_autorank``) puts every (benchmark x prior, seed) run in its own
row, i.e. each run is a block: ``unit="benchmark_seed"`` here.

This script runs autorank's own decision path through the autorank package
(``benchverdict.ranks.autorank``) at budgets 5, 10 and 15 (multiples of the
maximum fidelity, as in the paper's budget slices) and at the final budget,
with both replication units, prints which test autorank chose and why, and
writes the CD diagrams and tables to analyses/out/ranks_geburek_fig2/.

The paper shows Autorank's result as a CD diagram (a figure; no table of
numbers is published), so the comparison with the paper is visual: the
diagrams written here are the ones to set beside its Fig. 2.

Run: ``python analyses/ranks_geburek_fig2_autorank.py [--data PATH]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from autorank import autorank as autorank_direct

from benchverdict import Results
from benchverdict.plotting import save_figure
from benchverdict.ranks import autorank, friedman

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "priorband" / "priorband_data.parquet"
OUT = ROOT / "analyses" / "out" / "ranks_geburek_fig2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    df = pd.read_parquet(args.data)
    results = Results.from_frame(
        df, algorithm="algorithm", benchmark="bench_prior", seed="seed",
        budget="used_fidelity", score="value", objective="minimize",
    )
    print(results)
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []
    for budget in (5.0, 10.0, 15.0, None):
        label = "final" if budget is None else f"{budget:g}x"
        for unit in ("benchmark_seed", "benchmark"):
            res = autorank(results, budget=budget, unit=unit)
            # the same numbers as calling autorank on the same matrix directly
            blocks = res.blocks.matrix.reset_index(drop=True)
            with contextlib.redirect_stdout(io.StringIO()):
                direct = autorank_direct(blocks, alpha=0.05, order="ascending")
            assert direct.pvalue == res.p_value and direct.rankdf.equals(res.rankdf)
            print(f"\n=== budget {label}, unit {unit} ===")
            print(res.summary())
            ax = res.plot()
            save_figure(ax.figure, OUT / f"autorank_{label}_{unit}", formats=("pdf", "png"))
            plt.close(ax.figure)
            ranks = res.raw.rankdf["meanrank"]
            decisions = {(v.a, v.b): v.winner or "n.s." for v in res.verdicts()}
            rows.append({
                "budget": label, "unit": unit, "blocks": res.blocks.matrix.shape[0],
                "test": f"{res.omnibus}+{res.posthoc}", "pvalue": res.p_value,
                "cd": res.critical_difference, **{f"rank_{a}": ranks[a] for a in ranks.index},
                **{f"{a}_vs_{b}": w for (a, b), w in decisions.items()},
            })
        # the paired alternative at the same budget: Wilcoxon signed-rank with Holm
        wil = friedman(results, budget=budget, unit="benchmark", posthoc="wilcoxon")
        print(f"\n--- budget {label}: Friedman + Wilcoxon-Holm on benchmarks (paired) ---")
        print(wil.summary())
        ax = wil.plot()
        save_figure(ax.figure, OUT / f"wilcoxon_holm_{label}", formats=("pdf", "png"))
        plt.close(ax.figure)
    table = pd.DataFrame(rows)
    table.to_csv(OUT / "autorank_summary.csv", index=False)
    print("\nSummary (ours; autorank's own numbers):")
    print(table.to_string(index=False))
    print(
        "\nPaper (Geburek et al. 2024, Fig. 2 left): Autorank's CD diagram of PB, HB and RS on "
        "these data (a figure, no numbers printed). Compare it with "
        f"{OUT}/autorank_*_benchmark_seed.png. With every run as a block (their setting) the "
        "number of blocks is 24 x 50 = 1200; with benchmarks as blocks it is 24, and the "
        "critical difference grows accordingly."
    )


if __name__ == "__main__":
    main()
