"""Dodge et al. (2021), Figs. 1-2: bias, variance and MSE of the U, V and W estimators.

Synthetic "bag" of hyperparameter trials: validation scores drawn from a
normal distribution truncated to [0, 1] (mean 0.75, sd 0.08), n = 50 trials
per sample, 20,000 samples. For every budget k = 1..50 we compare each
estimator of the expected best score with the exact value (numerical
integration of the truncated normal), and report bias, variance and MSE.

Incorrect conclusions (Fig. 2): two models whose true expected-maximum curves
cross (A: mean 0.70, sd 0.10; B: mean 0.73, sd 0.05 -- B is better at small
budgets, A at large ones); for each budget and estimator, the share of
samples (50 trials per model) that rank the two models the wrong way.

Paper: U (unbiased) has the highest variance; the smallest-variance
estimator has the largest bias; the smallest MSE balances the two; the two
biased estimators (V, W) lead to the fewest incorrect conclusions.
Writes analyses/out/tuning_dodge2021/{bias_variance,incorrect}.csv and figures.
Run: python analyses/tuning_dodge2021_bias_variance.py  (under a minute)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats
from tuning_common import out_dir

from benchverdict.plotting import new_axes, save_figure, theme
from benchverdict.tuning import estimator_weights, expected_max

N = 50
REPS = 20_000
KS = np.arange(1, N + 1)


def truncnorm(mean: float, sd: float):
    return stats.truncnorm((0 - mean) / sd, (1 - mean) / sd, loc=mean, scale=sd)


def true_expected_max(dist, ks) -> np.ndarray:
    grid = np.linspace(0, 1, 400_001)
    cdf = dist.cdf(grid)
    mid = 0.5 * (grid[1:] + grid[:-1])
    return np.array([np.sum(mid * np.diff(cdf**k)) for k in ks])


def estimates(samples: np.ndarray) -> dict[str, np.ndarray]:
    s = np.sort(samples, axis=1)
    out = {}
    for est in ("u", "v", "w"):
        w = estimator_weights(N, KS, est)
        out[est] = s @ w.T
    # The matrices reproduce the public function exactly.
    np.testing.assert_allclose(out["u"][0], expected_max(samples[0], KS, "u"), rtol=1e-12)
    return out


def main() -> None:
    out = out_dir("tuning_dodge2021")
    rng = np.random.default_rng(2021)
    dist = truncnorm(0.75, 0.08)
    truth = true_expected_max(dist, KS)
    est = estimates(dist.rvs(size=(REPS, N), random_state=rng))
    rows = []
    for name, values in est.items():
        bias = values.mean(axis=0) - truth
        var = values.var(axis=0, ddof=1)
        for k, b, v in zip(KS, bias, var):
            rows.append({"estimator": name.upper(), "k": int(k), "bias": b, "variance": v,
                         "mse": b * b + v})
    table = pd.DataFrame(rows)
    table.to_csv(out / "bias_variance.csv", index=False)

    a_dist, b_dist = truncnorm(0.70, 0.10), truncnorm(0.73, 0.05)
    diff_true = true_expected_max(a_dist, KS) - true_expected_max(b_dist, KS)
    est_a = estimates(a_dist.rvs(size=(REPS, N), random_state=rng))
    est_b = estimates(b_dist.rvs(size=(REPS, N), random_state=rng))
    wrong_rows = []
    for name in ("u", "v", "w"):
        wrong = np.sign(est_a[name] - est_b[name]) != np.sign(diff_true)
        for k, rate in zip(KS, wrong.mean(axis=0)):
            wrong_rows.append({"estimator": name.upper(), "k": int(k), "incorrect": rate,
                               "true_difference": diff_true[k - 1]})
    wrong_table = pd.DataFrame(wrong_rows)
    wrong_table.to_csv(out / "incorrect.csv", index=False)

    with theme():
        ax = new_axes(width=7.0, height=2.4)
        fig = ax.figure
        fig.clf()
        axes = fig.subplots(1, 4)
        for name in ("U", "V", "W"):
            sub = table[table.estimator == name]
            axes[0].plot(sub.k, sub.bias, label=name)
            axes[1].plot(sub.k, sub.variance, label=name)
            axes[2].plot(sub.k, sub.mse, label=name)
            wsub = wrong_table[wrong_table.estimator == name]
            axes[3].plot(wsub.k, wsub.incorrect, label=name)
        for ax, title in zip(axes, ("bias", "variance", "MSE", "incorrect conclusions")):
            ax.set_title(title)
            ax.set_xlabel("budget k")
        axes[0].legend()
    save_figure(fig, out / "bias_variance", formats=("pdf", "png"))

    print("Dodge et al. (2021) Figs. 1-2 -- U, V, W estimators of the expected best score")
    print(f"truncated normal(0.75, 0.08) on [0, 1]; n = {N}; {REPS} samples")
    summary = table.groupby("estimator")[["bias", "variance", "mse"]].mean()
    at = table[table.k.isin([5, 25, 50])].pivot_table(index="k", columns="estimator",
                                                       values=["bias", "variance", "mse"])
    print(at.to_string(float_format=lambda x: f"{x:.2e}"))
    print("\naveraged over k = 1..50:")
    print(summary.to_string(float_format=lambda x: f"{x:.2e}"))
    rate = wrong_table.groupby("estimator").incorrect.mean()
    print("\nincorrect-conclusion rate, averaged over k (A: N(0.70, 0.10), B: N(0.73, 0.05)):")
    print(rate.round(4).to_string())
    order_var = summary.variance.sort_values().index.tolist()
    order_bias = summary.bias.abs().sort_values().index.tolist()
    print(f"\nvariance, smallest first: {order_var}; |bias|, smallest first: {order_bias}; "
          f"MSE smallest: {summary.mse.idxmin()}")
    print("paper: unbiased U has the highest variance; the lowest-variance estimator has the "
          "largest bias; the lowest MSE balances both; V and W make fewer incorrect "
          "conclusions than U.")
    print(f"wrote {out}/bias_variance.csv, incorrect.csv and bias_variance.pdf/.png")


if __name__ == "__main__":
    main()
