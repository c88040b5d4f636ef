"""Tang et al. (2020) Fig. 4 / Lourie et al. (2024) Fig. 4: bootstrap bands fail as k grows.

Ground truth: Gaussian KDEs of the hedwig random-search F1 scores (Reuters; MLP
and LSTM, ../shared/data/meanmax). For each model we draw samples of B = 50
scores, build 80% percentile bootstrap bands around the V and U estimates of
the expected best score (1,000 resamples), and record, for every budget k,
whether the band contains the true expected maximum. For contrast, the same
samples get this library's exact simultaneous median band (its target is the
median curve) and the conservative mean band with support [0, 1].

The papers report pointwise bootstrap coverage well below nominal that
collapses as k approaches B. Writes analyses/out/tuning_tang_fig4/coverage.csv
and coverage.pdf/png. Run: python analyses/tuning_tang_fig4_bootstrap.py (~1 min)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from tuning_common import KDE, hedwig, out_dir

from benchverdict.plotting import new_axes, save_figure, theme
from benchverdict.tuning import bootstrap_band, tuning_curve

B = 50
REPS = 300
CONFIDENCE = 0.8


def main() -> None:
    out = out_dir("tuning_tang_fig4")
    data = hedwig()
    rng = np.random.default_rng(2020)
    ks = np.arange(1, B + 1)
    rows = []
    for model in ("mlp", "reg_lstm"):
        kde = KDE(data.draws(model), bounds=(0.0, 1.0))  # F1 lives in [0, 1]
        truth_mean = kde.expected_max(ks)
        truth_median = kde.median_curve(ks)
        hits = {key: np.zeros(B) for key in ("boot_v", "boot_u", "mean_band", "median_band")}
        joint = {key: 0 for key in hits}
        for _ in range(REPS):
            ys = kde.sample(B, rng)
            curves = {
                "boot_v": bootstrap_band(ys, ks, estimator="v", confidence=CONFIDENCE,
                                         n_resamples=1000, seed=rng),
                "boot_u": bootstrap_band(ys, ks, estimator="u", confidence=CONFIDENCE,
                                         n_resamples=1000, seed=rng),
                "mean_band": tuning_curve(ys, ks, kind="mean", confidence=CONFIDENCE,
                                          low=0, high=1),
                "median_band": tuning_curve(ys, ks, confidence=CONFIDENCE, low=0, high=1),
            }
            for key, curve in curves.items():
                truth = truth_median if key == "median_band" else truth_mean
                ok = (curve.lower <= truth) & (truth <= curve.upper)
                hits[key] += ok
                joint[key] += bool(ok.all())
        for key, count in hits.items():
            for k, c in zip(ks, count):
                rows.append({"model": model, "band": key, "k": int(k), "coverage": c / REPS,
                             "simultaneous_coverage": joint[key] / REPS})
    table = pd.DataFrame(rows)
    table.to_csv(out / "coverage.csv", index=False)

    labels = {"boot_v": "bootstrap V (pointwise)", "boot_u": "bootstrap U (pointwise)",
              "mean_band": "LD mean band (simultaneous)",
              "median_band": "LD median band (simultaneous)"}
    with theme():
        ax = new_axes(width=7.0, height=2.6)
        fig = ax.figure
        fig.clf()
        axes = fig.subplots(1, 2, sharey=True)
        for ax, model in zip(axes, ("mlp", "reg_lstm")):
            for key, label in labels.items():
                sub = table[(table.model == model) & (table.band == key)]
                ax.plot(sub.k, sub.coverage, label=label)
            ax.axhline(CONFIDENCE, color="0.5", linestyle=":", linewidth=0.8)
            ax.set_title(f"hedwig {model} (KDE), B = {B}")
            ax.set_xlabel("budget k")
        axes[0].set_ylabel("coverage at k")
        axes[-1].legend(loc="lower left", fontsize=7)
    save_figure(fig, out / "coverage", formats=("pdf", "png"))

    print("Tang et al. Fig. 4 / Lourie et al. Fig. 4 -- bootstrap band coverage vs budget")
    print(f"B = {B} draws per sample, {REPS} samples per model, nominal {CONFIDENCE:.0%}")
    print("papers: percentile bootstrap coverage falls far below nominal as k -> B.")
    pick = table[table.k.isin([1, 5, 10, 25, 50])]
    print(pick.pivot_table(index=["model", "k"], columns="band", values="coverage")
          .round(2).to_string())
    sim = table.groupby(["model", "band"]).simultaneous_coverage.first().unstack()
    print("\ncoverage of the whole curve (all k at once):")
    print(sim.round(2).to_string())
    print(f"wrote {out}/coverage.csv and coverage.pdf/.png")


if __name__ == "__main__":
    main()
