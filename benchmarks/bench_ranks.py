"""Speed of benchverdict.ranks against autorank and scikit-posthocs, in the same process.

Workloads (random block x algorithm matrices with block effects):

* Friedman + Nemenyi: ours ``friedman(posthoc="nemenyi", n_resamples=0)`` vs
  ``autorank.autorank(force_mode="nonparametric")`` (which also computes its
  normality/homoscedasticity tests, effect sizes and intervals) vs scipy's
  ``friedmanchisquare`` + ``scikit_posthocs.posthoc_nemenyi_friedman``;
* Friedman + Wilcoxon-Holm: ours vs ``scikit_posthocs.posthoc_wilcoxon(p_adjust="holm")``;
* Friedman + Conover-Holm: ours vs ``scikit_posthocs.posthoc_conover_friedman``;
* Friedman + Nemenyi with effect intervals: ours ``friedman(n_resamples=1000)`` (the
  default: Cliff's delta and Akinshin's gamma with their intervals) vs the same autorank
  run (issue 25's goal: within 2x of autorank at 500 x 10);
* CD diagram: ours ``draw_cd_diagram`` vs ``scikit_posthocs.critical_difference_diagram``
  and ``autorank.plot_stats``.

Ours always returns more (verdicts, letters, effect sizes); with
``n_resamples=0`` it skips only the effect-size intervals. Each timing is the
best of ``--repeat`` runs; ratio = anchor time / our time (> 1: we are faster).

``--scale`` times the whole rank analysis of a report on 1000 algorithms x 10
benchmarks x 3 seeds (issue 10: it took minutes per test and ended in a
RecursionError): Friedman + Nemenyi and Friedman + Wilcoxon-Holm with their
verdicts, letters and groups, autorank (which refuses its ANOVA + Tukey path
here, see ``autorank(max_pairs=...)``), win/tie/loss with its verdicts, and the
critical-difference diagram saved to PDF, one line per step and the total.

Run: ``python benchmarks/bench_ranks.py [--repeat 3] [--scale [--algorithms 1000]]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from benchverdict.critical_difference import draw_cd_diagram
from benchverdict.ranks import friedman
from benchverdict.results import BlockMatrix


def block_matrix(x: np.ndarray) -> BlockMatrix:
    names = [f"alg{i:02d}" for i in range(x.shape[1])]
    return BlockMatrix(pd.DataFrame(x, columns=names), "benchmark", "mean", None, "maximize",
                       pd.DataFrame(columns=["block", "algorithm", "reason"]))


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
        times.append(time.perf_counter() - start)
        plt.close("all")
    return min(times)


def scale(k: int, n_benchmarks: int = 10, n_seeds: int = 3) -> None:
    """The rank analysis of a report on ``k`` algorithms, step by step (one run each)."""
    from benchverdict.ranks import autorank, win_tie_loss
    from benchverdict.results import Results

    rng = np.random.default_rng(0)
    names = [f"alg{i:04d}" for i in range(k)]
    effect = rng.normal(size=k) * 0.3
    frames = []
    for b in range(n_benchmarks):
        level = rng.normal()
        for s in range(n_seeds):
            frames.append(pd.DataFrame({"algorithm": names, "benchmark": f"b{b}", "seed": s,
                                        "score": level + effect + rng.normal(size=k)}))
    results = Results.from_frame(pd.concat(frames, ignore_index=True), algorithm="algorithm",
                                 benchmark="benchmark", seed="seed", score="score",
                                 objective="maximize", kind="trials")
    blocks = results.blocks(unit="benchmark", aggregate="mean", missing="drop")
    rows = []

    def step(name, fn):
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out, note = fn(), ""
            except ValueError as err:
                out, note = None, f"refused: {str(err)[:70]}..."
        rows.append({"step": name, "seconds": time.perf_counter() - start, "note": note})
        return out

    nemenyi = step("friedman + nemenyi", lambda: friedman(blocks, posthoc="nemenyi"))
    step("  nemenyi verdicts", nemenyi.verdicts)
    step("  table (letters) + summary (groups)", lambda: (nemenyi.table, nemenyi.summary()))
    step("  CD diagram to PDF", lambda: nemenyi.plot().figure.savefig(io.BytesIO(),
                                                                      format="pdf"))
    wilcoxon = step("friedman + wilcoxon-holm", lambda: friedman(blocks, posthoc="wilcoxon"))
    step("  wilcoxon verdicts", wilcoxon.verdicts)
    step("  wilcoxon table + summary", lambda: (wilcoxon.table, wilcoxon.summary()))
    ar = step("autorank", lambda: autorank(blocks))
    if ar is not None:
        step("  autorank verdicts", ar.verdicts)
    wtl = step("win/tie/loss", lambda: win_tie_loss(results))
    step("  win/tie/loss verdicts", wtl.verdicts)
    step("  win/tie/loss figure to PDF", lambda: wtl.plot().figure.savefig(io.BytesIO(),
                                                                          format="pdf"))
    plt.close("all")
    table = pd.DataFrame(rows)
    pd.set_option("display.width", 160)
    print(f"rank analysis of {k} algorithms x {n_benchmarks} benchmarks x {n_seeds} seeds "
          f"({k * (k - 1) // 2:,} pairs)")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print(f"total: {table['seconds'].sum():.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", action="store_true",
                        help="time the rank analysis of many algorithms instead")
    parser.add_argument("--algorithms", type=int, default=1000)
    args = parser.parse_args()
    if args.scale:
        scale(args.algorithms)
        return
    try:
        import scikit_posthocs as sp
    except ImportError:
        sp = None
    try:
        import autorank as ar
    except ImportError:
        ar = None
    rng = np.random.default_rng(0)
    rows = []
    for n, k in ((30, 5), (500, 10), (1376, 14)):
        x = rng.normal(size=(n, k)) + np.linspace(0, 0.5, k) + 3 * rng.normal(size=(n, 1))
        bm = block_matrix(x)
        frame = bm.matrix
        long = frame.reset_index(names="block").melt(id_vars="block", var_name="group",
                                                     value_name="y")

        def ours(posthoc, bm=bm):
            return lambda: friedman(bm, posthoc=posthoc, n_resamples=0)

        anchors = {"nemenyi": [], "wilcoxon": [], "conover": []}
        if ar is not None:
            anchors["nemenyi"].append(("autorank", lambda f=frame: ar.autorank(
                f, force_mode="nonparametric")))
        if sp is not None:
            anchors["nemenyi"].append(("scipy+scikit-posthocs", lambda x=x: (
                stats.friedmanchisquare(*x.T), sp.posthoc_nemenyi_friedman(x))))
            anchors["wilcoxon"].append(("scikit-posthocs", lambda lo=long: sp.posthoc_wilcoxon(
                lo, val_col="y", group_col="group", p_adjust="holm")))
            anchors["conover"].append(("scipy+scikit-posthocs", lambda x=x: (
                stats.friedmanchisquare(*x.T), sp.posthoc_conover_friedman(x, p_adjust="holm"))))
        for posthoc, competitors in anchors.items():
            t_ours = best_of(ours(posthoc), args.repeat)
            rows.append({"workload": f"friedman+{posthoc}", "n x k": f"{n} x {k}",
                         "implementation": "benchverdict", "seconds": t_ours, "ratio": 1.0})
            for name, fn in competitors:
                t = best_of(fn, args.repeat)
                rows.append({"workload": f"friedman+{posthoc}", "n x k": f"{n} x {k}",
                             "implementation": name, "seconds": t, "ratio": t / t_ours})
        # Friedman + effect intervals (the default: Cliff's delta's closed-form interval and
        # Akinshin's gamma's 1000-resample percentile bootstrap) against autorank, which
        # computes effect sizes and their intervals too (issue 25: within 2x of autorank)
        # timed alternately with autorank, so a busy machine slows both alike
        t_boot, t_autorank = float("inf"), float("inf")
        for _ in range(args.repeat):
            t_boot = min(t_boot, best_of(lambda bm=bm: friedman(bm, n_resamples=1000), 1))
            if ar is not None:
                t_autorank = min(t_autorank, best_of(lambda f=frame: ar.autorank(
                    f, force_mode="nonparametric"), 1))
        skipped = any("not computed" in note for note in friedman(bm, n_resamples=1000).notes)
        workload = ("friedman+nemenyi + effect intervals (1000 resamples)"
                    + (" [skipped: bootstrap_budget]" if skipped else ""))
        rows.append({"workload": workload, "n x k": f"{n} x {k}",
                     "implementation": "benchverdict", "seconds": t_boot, "ratio": 1.0})
        if ar is not None:
            rows.append({"workload": workload, "n x k": f"{n} x {k}",
                         "implementation": "autorank", "seconds": t_autorank,
                         "ratio": t_autorank / t_boot})
        res = friedman(bm, n_resamples=0)
        t_draw = best_of(lambda res=res, k=k: draw_cd_diagram(
            res.average_ranks, res.not_different(), critical_difference=res.critical_difference,
            limits=(1, k)).figure.savefig(io.BytesIO(), format="pdf"), args.repeat)
        rows.append({"workload": "CD diagram to PDF", "n x k": f"{n} x {k}",
                     "implementation": "benchverdict", "seconds": t_draw, "ratio": 1.0})
        if sp is not None:
            p = sp.posthoc_nemenyi_friedman(x)
            p.index = p.columns = res.p_values_adjusted.columns.sort_values()
            ranks = res.average_ranks

            def sp_draw(p=p, ranks=ranks):
                fig, ax = plt.subplots()
                sp.critical_difference_diagram(ranks, p, ax=ax)
                fig.savefig(io.BytesIO(), format="pdf")

            t = best_of(sp_draw, args.repeat)
            rows.append({"workload": "CD diagram to PDF", "n x k": f"{n} x {k}",
                         "implementation": "scikit-posthocs", "seconds": t, "ratio": t / t_draw})
    table = pd.DataFrame(rows)
    pd.set_option("display.width", 140)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print("\nratio = anchor seconds / benchverdict seconds (> 1: benchverdict is faster)")


if __name__ == "__main__":
    main()
