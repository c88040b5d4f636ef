"""Lourie, Cho & He (2024), Fig. 1: point estimates from small samples contradict each other.

Two disjoint subsamples of 25 random-search trials per model from the hedwig
data (Reuters; MLP vs LSTM, ../shared/data/meanmax). Point estimates of the
tuning curves (V and U expected maximum, median) can rank the models
differently in the two subsamples; the 80% simultaneous median bands show why:
they overlap, so neither subsample supports a conclusion on its own.

We search seeded random splits for the first pair of subsamples whose U point
estimates disagree at budget k = 10, then report both subsamples' point
estimates and verdicts. Paper: two subsamples of 25 give contradictory
conclusions, and confidence bands reveal the uncertainty.
Writes analyses/out/tuning_lourie_fig1/{curves.csv, subsamples.pdf/png}.
Run: python analyses/tuning_lourie_fig1_subsamples.py
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from tuning_common import hedwig, out_dir

from benchverdict.plotting import algorithm_colors, new_axes, save_figure, theme
from benchverdict.tuning import compare_curves, expected_max, tuning_curve

SIZE = 25
K = 10


def main() -> None:
    out = out_dir("tuning_lourie_fig1")
    data = hedwig()
    draws = {m: data.draws(m) for m in ("mlp", "reg_lstm")}
    rng = np.random.default_rng(1)
    ks = np.arange(1, SIZE + 1)
    attempt = 0
    while attempt < 1000:
        attempt += 1
        halves = {}
        for model, ys in draws.items():
            perm = rng.permutation(ys.size)
            halves[model] = (ys[perm[:SIZE]], ys[perm[SIZE:2 * SIZE]])
        u = {(m, h): expected_max(halves[m][h], [K], "u")[0] for m in draws for h in (0, 1)}
        first = u[("mlp", 0)] > u[("reg_lstm", 0)]
        second = u[("mlp", 1)] > u[("reg_lstm", 1)]
        if first != second:
            break
    rows, curves, verdicts = [], {}, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mlp scores have ties; bands are then conservative
        for h in (0, 1):
            for model in draws:
                ys = halves[model][h]
                curve = tuning_curve(ys, ks, confidence=0.8, low=0, high=1, name=model)
                curves[(model, h)] = curve
                v = expected_max(ys, ks, "v")
                uu = expected_max(ys, ks, "u")
                for j, k in enumerate(ks):
                    rows.append({"subsample": h + 1, "model": model, "k": int(k),
                                 "v": v[j], "u": uu[j], "median": curve.point[j],
                                 "median_lower": curve.lower[j], "median_upper": curve.upper[j]})
            verdicts[h] = list(compare_curves(curves[("mlp", h)], curves[("reg_lstm", h)]))
    table = pd.DataFrame(rows)
    table.to_csv(out / "curves.csv", index=False)

    colors = algorithm_colors(list(draws))
    with theme():
        ax = new_axes(width=7.0, height=2.6)
        fig = ax.figure
        fig.clf()
        axes = fig.subplots(1, 2, sharey=True)
        for h, ax in enumerate(axes):
            for model in draws:
                curves[(model, h)].plot(ax, color=colors[model], label=model)
                sub = table[(table.subsample == h + 1) & (table.model == model)]
                ax.plot(sub.k, sub.u, linestyle="--", color=colors[model], linewidth=1,
                        label=f"{model} U estimate")
            ax.set_title(f"subsample {h + 1} ({SIZE} trials per model)")
            ax.legend(fontsize=6, loc="lower right")
    save_figure(fig, out / "subsamples", formats=("pdf", "png"))

    print("Lourie et al. Fig. 1 -- contradictory point estimates from subsamples of 25 (hedwig)")
    print(f"found a contradicting split after {attempt} seeded random split(s)")
    for h in (0, 1):
        a, b = u[("mlp", h)], u[("reg_lstm", h)]
        better = "mlp" if a > b else "reg_lstm"
        print(f"subsample {h + 1}: U estimate at k={K}: mlp {a:.4f}, reg_lstm {b:.4f} "
              f"-> point estimates say {better} is better")
        for v in verdicts[h]:
            lo, hi = v.scope.trials_low, v.scope.trials_high
            span = f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}"
            print(f"   band verdict: {v.winner or 'inconclusive':>12} at k={span} "
                  f"({v.evidence.strength or 'no'} evidence)")
    at_k = [v for h in (0, 1) for v in verdicts[h]
            if v.scope.trials_low <= K <= v.scope.trials_high]
    print(f"at k={K}: band verdicts {[v.outcome + '/' + str(v.evidence.strength) for v in at_k]}")
    print("paper: the two subsamples' point estimates disagree; the bands overlap, so neither "
          "subsample alone supports a conclusion.")
    print(f"wrote {out}/curves.csv and subsamples.pdf/.png")


if __name__ == "__main__":
    main()
