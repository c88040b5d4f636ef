"""Geburek et al. (2024) Fig. 5 (right): the budget as a random effect.

Instead of one analysis per budget, pool a window of budgets and let the
budget enter as a random intercept: ``score ~ algorithm + (1|benchmark) +
(1|budget)``. The algorithm effect is then an average over the window, and
the LMEM CD diagram summarises it. Done for the whole run (budgets 1-24) and
the windows 1-10, 5-15 and 10-24, for both priors together and each prior.
Writes analyses/out/lmem_fig5/.

Caveat printed with the result: rows of one run at different budgets are
not independent (incumbents); like the paper's model, this one has no run
random effect, so its p-values treat them as if they were.
Run: python analyses/lmem_fig5_budget.py
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from lmem_common import finding, out_dir, priorband

from benchverdict.lmem import fit
from benchverdict.plotting import save_figure, theme

WINDOWS = ((1, 24), (1, 10), (5, 15), (10, 24))
FORMULA = "score ~ algorithm + (1|benchmark) + (1|budget)"


def main() -> None:
    res = priorband()
    out = out_dir("lmem_fig5")
    table = res.table
    rows = []
    with theme():
        fig, axes = plt.subplots(len(WINDOWS), 3, figsize=(16, 2.4 * len(WINDOWS)))
    for i, (lo, hi) in enumerate(WINDOWS):
        for j, prior in enumerate((None, "at25", "bad")):
            sub = table[(table["budget"] >= lo) & (table["budget"] <= hi)]
            if prior is not None:
                sub = sub[sub["prior"] == prior]
            model = fit(sub, FORMULA)
            model.objective = res.objective
            model.plot(ax=axes[i, j])
            axes[i, j].set_title(f"budgets {lo}-{hi}, prior {prior or 'both'}", fontsize=9)
            emm = model.emmeans().set_index("algorithm")["emmean"]
            budget_var = float(model.varcomp.query("group == 'budget'")["value"].iloc[0])
            for r in model.pairwise().itertuples():
                rows.append({"budgets": f"{lo}-{hi}", "prior": prior or "both",
                             "pair": r.contrast, "estimate": r.estimate, "se": r.se,
                             "p_tukey": r.p_value_adjusted, "budget_variance": budget_var,
                             "best": emm.idxmin(), "n_rows": len(sub)})
    save_figure(fig, out / "lmem_budget_random_effect", formats=("pdf", "png"))
    frame = pd.DataFrame(rows)
    frame.to_csv(out / "lmem_budget_random_effect.csv", index=False)
    pd.set_option("display.width", 200)
    print(frame.to_string(index=False))
    both = frame[frame["prior"] == "both"]
    sig = both.groupby("budgets")["p_tukey"].apply(lambda p: int((p < 0.05).sum()))
    finding(
        "Fig. 5 (right) models the budget as a random effect to compare the algorithms over "
        "a whole range of budgets in one LMEM instead of one test per budget.",
        "best algorithm per window (both priors): "
        + ", ".join(f"{w}: {b}" for w, b in both.groupby("budgets")["best"].first().items())
        + "; significant pairs (of 3) per window: "
        + ", ".join(f"{w}: {n}" for w, n in sig.items())
        + ". Note: no run random effect (as in the paper), so repeated budgets of one run "
        f"count as independent rows. Figures and CSV in {out}/",
    )


if __name__ == "__main__":
    main()
