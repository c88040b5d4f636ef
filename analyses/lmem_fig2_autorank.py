"""Geburek et al. (2024) Fig. 2 (right): an LMEM as a drop-in replacement for Autorank.

On the PriorBand study (RS, HB, PB; 12 benchmarks x 2 prior qualities x 50
seeds), at budgets 5, 10 and 15 (multiples of the maximum fidelity), compare

* Autorank's decision on the block x algorithm matrix (each benchmark x seed
  run a block; ranks, Friedman + Nemenyi or the parametric path it chooses),
* the LMEM ``score ~ algorithm + (1|benchmark)`` with Tukey-adjusted
  contrasts of marginal means and its CD diagram.

Writes analyses/out/lmem_fig2/ (CSV of both decisions, the LMEM CD diagrams).
Run: python analyses/lmem_fig2_autorank.py
"""

from __future__ import annotations

import contextlib
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from autorank import autorank
from lmem_common import finding, out_dir, priorband

from benchverdict.lmem import fit
from benchverdict.plotting import save_figure, theme

BUDGETS = (5.0, 10.0, 15.0)


def main() -> None:
    res = priorband()
    out = out_dir("lmem_fig2")
    rows = []
    with theme():
        fig, axes = plt.subplots(len(BUDGETS), 1, figsize=(7, 2.2 * len(BUDGETS)))
    for ax, budget in zip(axes, BUDGETS):
        at = res.at_budget(budget)
        model = fit(at, "score ~ algorithm + (1|benchmark)")
        model.objective = res.objective
        pairs = model.pairwise()
        model.plot(ax=ax)
        ax.set_title(f"LMEM, budget {budget:g}: score ~ algorithm + (1|benchmark)")
        blocks = res.blocks(unit="benchmark_seed", budget=budget).matrix
        with contextlib.redirect_stdout(io.StringIO()):  # autorank prints its tables
            ar = autorank(blocks, alpha=0.05, order="ascending")
        ranks = ar.rankdf["meanrank"]
        for r in pairs.itertuples():
            lmem_sig = r.p_value_adjusted < 0.05
            if ar.cd is not None:  # Nemenyi: ranks further apart than the CD
                ar_sig = abs(ranks[r.a] - ranks[r.b]) > ar.cd
            else:  # Autorank's parametric path: Tukey HSD intervals that do not overlap
                lo, hi = ar.rankdf["ci_lower"], ar.rankdf["ci_upper"]
                ar_sig = bool(lo[r.a] > hi[r.b] or lo[r.b] > hi[r.a])
            rows.append({"budget": budget, "pair": r.contrast, "lmem_estimate": r.estimate,
                         "lmem_p_tukey": r.p_value_adjusted, "lmem_significant": lmem_sig,
                         "autorank_test": ar.omnibus, "autorank_posthoc": ar.posthoc,
                         "autorank_meanrank_a": ranks[r.a], "autorank_meanrank_b": ranks[r.b],
                         "autorank_cd": ar.cd, "autorank_significant": ar_sig})
    save_figure(fig, out / "lmem_cd_by_budget", formats=("pdf", "png"))
    table = pd.DataFrame(rows)
    table.to_csv(out / "lmem_vs_autorank.csv", index=False)
    pd.set_option("display.width", 200)
    print(table.to_string(index=False))
    n_lmem = int(table["lmem_significant"].sum())
    n_ar = int(table["autorank_significant"].sum())
    finding(
        "Fig. 2 proposes the LMEM CD diagram (marginal means of score ~ algorithm + "
        "(1|benchmark), Tukey-adjusted contrasts) as a drop-in for Autorank's rank-based "
        "diagram on RS/HB/PB (qualitative; the figure's numbers are not reproduced here).",
        f"{n_lmem} of {len(table)} (budget, pair) comparisons significant with the LMEM "
        f"(Tukey), {n_ar} with Autorank's rank-based path; "
        f"orders by marginal mean: "
        + "; ".join(f"b={b:g}: " + " < ".join(
            fit(res.at_budget(b), "score ~ algorithm + (1|benchmark)").emmeans()
            .sort_values("emmean")["algorithm"]) for b in BUDGETS)
        + f". Figures and CSV in {out}/",
    )


if __name__ == "__main__":
    main()
