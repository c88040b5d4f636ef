"""Reproduce Jordan, Cohen & Thomas (2018), Table 1: CVaR_0.5 sampled vs tuned.

The paper runs its DSE protocol (Algorithm 1) for five classifiers (kNN,
random forest, SVM, logistic regression, neural network) on scikit-learn's
moons, circles and linear toy problems and on LFW faces, once with
hyperparameters *sampled* from fixed distributions (DSE) and once *tuned* by
an inner random search with 3-fold cross-validation (DSE-Tuning), and
reports CVaR_0.5, the mean test accuracy of the better half of the draws.

Here: the same protocol with :func:`benchverdict.dse.run_protocol`, the
models and hyperparameter distributions of
:mod:`benchverdict.examples.jordan2018`, and scikit-learn's digits in place
of LFW (which would need a download). Every trial draws a fresh data set
(moons, circles, linear) or a fresh stratified 2/3-1/3 split (digits).

What we can and cannot compare. The paper's numeric Table 1 and its
hyperparameter ranges were not retrievable while this script was written
(no network access to the paper), so the ranges are the example module's
own (documented there) and this script does not print invented "paper"
numbers. It prints our table side by side for sampled and tuned, and checks
the paper's stated qualitative findings, each as a yes/no with its
evidence:

1. the SVM is the best classifier when tuned;
2. the SVM drops when its hyperparameters are sampled (it is sensitive);
3. kNN and RF are robust: they lose little when sampled.

Intervals: distribution-free 95% band intervals (Learned-Miller-DeStefano
highest-density band, accuracy bounded in [0, 1]).

Run: ``python analyses/dse_table1.py [--n 50 --n-tuned 10 --n-tuning 8]`` (about 40 minutes
on one shared core; ``--from-csv`` re-prints the last run's table and findings).
Writes ``analyses/out/dse_table1.csv`` and CDF / inverse-CDF figures.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchverdict.dse import distribution, run_protocol
from benchverdict.examples.jordan2018 import ALGORITHMS, DATASETS
from benchverdict.plotting import save_figure

OUT = Path(__file__).resolve().parent / "out"
TASKS = ("moons", "circles", "linear", "digits")
#: The paper's name for each of our algorithms.
PAPER_NAMES = {"kNN": "kNN", "RF": "RF", "SVM": "SVM", "LR": "LR", "MLP": "NN"}


def data_sampler(task: str):
    """psi: a fresh draw of the task's data and a stratified train/test split."""

    def sample(rng: np.random.Generator):
        from sklearn.model_selection import train_test_split

        seed = int(rng.integers(2**31 - 1))
        X, y = DATASETS[task](seed)
        x_tr, x_te, y_tr, y_te = train_test_split(X, y, test_size=1 / 3, stratify=y,
                                                  random_state=seed)
        return x_tr, y_tr, x_te, y_te

    return sample


def train_eval(name: str):
    """f: fit the configured model on the training part, return test accuracy."""

    def f(params, data, rng):
        x_tr, y_tr, x_te, y_te = data
        model = ALGORITHMS[name].build(params, int(rng.integers(2**31 - 1)))
        with warnings.catch_warnings():
            # Non-converged fits (few MLP epochs, extreme C) are part of the distribution.
            warnings.simplefilter("ignore")
            model.fit(x_tr, y_tr)
        return float(model.score(x_te, y_te))

    return f


def run(n: int, n_tuned: int, n_tuning: int, n_jobs: int, seed: int):
    fs = {name: train_eval(name) for name in ALGORITHMS}
    phis = {name: ALGORITHMS[name].sample for name in ALGORITHMS}
    psis = {task: data_sampler(task) for task in TASKS}
    start = time.perf_counter()
    sampled = run_protocol(fs, phis, psis, n, seed=seed, n_jobs=n_jobs)
    t_sampled = time.perf_counter() - start
    start = time.perf_counter()
    tuned = run_protocol(fs, phis, psis, n_tuned, tuning="random_search_cv3",
                         n_tuning=n_tuning, seed=seed + 1, n_jobs=n_jobs)
    t_tuned = time.perf_counter() - start
    return sampled, tuned, t_sampled, t_tuned


def table(sampled, tuned) -> pd.DataFrame:
    kw = dict(cvar_level=0.5, low=0.0, high=1.0, band="ld_highest_density", confidence=0.95)
    ds, dt = distribution(sampled, **kw), distribution(tuned, **kw)
    cols = ["benchmark", "algorithm", "n", "cvar", "cvar_lower", "cvar_upper"]
    t = ds.table[cols].merge(dt.table[cols], on=["benchmark", "algorithm"],
                             suffixes=("_sampled", "_tuned"))
    t["drop"] = t["cvar_tuned"] - t["cvar_sampled"]
    t["paper_name"] = t["algorithm"].map(PAPER_NAMES)
    return t, ds, dt


def findings(t: pd.DataFrame) -> list[tuple[str, str, str]]:
    """Each claim with HOLDS / PARTLY / DOES NOT HOLD and its evidence."""
    out = []
    best_tuned = t.loc[t.groupby("benchmark")["cvar_tuned"].idxmax()].set_index("benchmark")
    svm_best = [b for b in TASKS if best_tuned.loc[b, "algorithm"] == "SVM"]
    # "Best" up to sampling error: SVM's interval reaches the best estimate.
    svm = t[t.algorithm == "SVM"].set_index("benchmark")
    svm_tied = [b for b in TASKS
                if svm.loc[b, "cvar_upper_tuned"] >= best_tuned.loc[b, "cvar_tuned"]]
    holds = ("HOLDS" if len(svm_best) >= 3 else
             "PARTLY" if svm_best or len(svm_tied) == len(TASKS) else "DOES NOT HOLD")
    out.append((
        "1. SVM is the best classifier when tuned", holds,
        f"SVM has the highest tuned CVaR_0.5 on {svm_best or 'no task'}; its interval reaches "
        f"the best estimate on {svm_tied}.",
    ))
    drops = t.pivot(index="benchmark", columns="algorithm", values="drop").loc[list(TASKS)]
    svm_rank = drops.rank(axis=1, ascending=False)["SVM"]
    largest = int((svm_rank == 1).sum())
    # Does the sampled interval lie wholly below the tuned estimate? (a clear drop)
    clear = [b for b in TASKS if svm.loc[b, "cvar_upper_sampled"] < svm.loc[b, "cvar_tuned"]]
    holds = "HOLDS" if largest >= 3 and clear else "PARTLY" if largest >= 2 else "DOES NOT HOLD"
    out.append((
        "2. SVM drops when hyperparameters are sampled", holds,
        f"SVM loses the most of the five on {largest} of {len(TASKS)} tasks; tuned - sampled "
        "CVaR_0.5: " + ", ".join(f"{b} {drops.loc[b, 'SVM']:.3f}" for b in TASKS)
        + f"; the sampled interval lies below the tuned estimate on {clear or 'no task'}.",
    ))
    median_drop = drops.median(axis=1)
    robust = {a: [b for b in TASKS if drops.loc[b, a] <= median_drop[b]] for a in ("kNN", "RF")}
    out.append((
        "3. kNN and RF are robust (small drop when sampled)",
        "HOLDS" if all(len(v) >= 3 for v in robust.values()) else "DOES NOT HOLD",
        "drop at or below the task's median drop: "
        + "; ".join(f"{a} on {v}" for a, v in robust.items())
        + ". Mean drops: " + ", ".join(f"{a} {drops[a].mean():.3f}" for a in drops.columns),
    ))
    return out


def report(t: pd.DataFrame) -> None:
    """Print the side-by-side table and the checked findings."""
    print("CVaR_0.5 (mean test accuracy of the best half of draws), 95% LD-band intervals:\n")
    for bench in TASKS:
        sub = t[t.benchmark == bench]
        print(f"{bench}{' (in place of LFW)' if bench == 'digits' else ''}")
        print(f"  {'paper':5s} {'sampled':>24s} {'tuned':>24s} {'drop':>7s}")
        for r in sub.itertuples():
            print(f"  {r.paper_name:5s} {r.cvar_sampled:8.3f} [{r.cvar_lower_sampled:.3f}, "
                  f"{r.cvar_upper_sampled:.3f}] {r.cvar_tuned:8.3f} [{r.cvar_lower_tuned:.3f}, "
                  f"{r.cvar_upper_tuned:.3f}] {r.drop:7.3f}")
    print("\nThe paper's qualitative findings, checked on our runs:")
    for claim, holds, evidence in findings(t):
        print(f"  {claim}: {holds}. {evidence}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50, help="DSE trials per cell")
    parser.add_argument("--n-tuned", type=int, default=10, help="DSE-Tuning trials per cell")
    parser.add_argument("--n-tuning", type=int, default=8,
                        help="configurations of each inner random search")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=2018)
    parser.add_argument("--from-csv", action="store_true",
                        help="re-print the table and findings from analyses/out/dse_table1.csv")
    args = parser.parse_args()
    pd.set_option("display.width", 160)
    if args.from_csv:
        report(pd.read_csv(OUT / "dse_table1.csv"))
        return
    sampled, tuned, t_s, t_t = run(args.n, args.n_tuned, args.n_tuning, args.n_jobs, args.seed)
    t, ds, dt = table(sampled, tuned)
    OUT.mkdir(parents=True, exist_ok=True)
    t.to_csv(OUT / "dse_table1.csv", index=False)
    for label, d in (("sampled", ds), ("tuned", dt)):
        for kind in ("cdf", "quantile"):
            save_figure(d.plot(kind=kind).figure, OUT / f"dse_table1_{label}_{kind}",
                        formats=("pdf", "png"))
    print(f"DSE ({args.n} trials/cell, {t_s:.0f} s) and DSE-Tuning ({args.n_tuned} trials/cell,"
          f" inner random search of {args.n_tuning} configurations x 3-fold CV, {t_t:.0f} s);"
          f" excluded failed trials: {len(sampled.exclusions)} sampled, "
          f"{len(tuned.exclusions)} tuned.")
    report(t)
    print(f"\nwrote {OUT / 'dse_table1.csv'} and figures dse_table1_*.pdf/png")


if __name__ == "__main__":
    main()
