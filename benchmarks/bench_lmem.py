"""Speed and memory of the LMEM workload: native engine vs R lme4 (rpy2) vs mixedlm.

Workload (Geburek et al.'s basic analysis) on the PriorBand anytime data
(3.3M rows: 3 algorithms, 40 benchmark x prior settings, 50 seeds, 645
budgets): the ML fit of ``score ~ algorithm + (1|benchmark)``, the GLRT
against ``score ~ 1 + (1|benchmark)``, and the Tukey-adjusted pairwise
contrasts of the algorithms' marginal means. Everything runs in this one
process; loading the data is not timed. Peak memory of the native workload
is measured with tracemalloc (Python and numpy allocations) and compared
with the size of the data frame.

Run:  python benchmarks/bench_lmem.py [--rows N] [--skip-r] [--skip-mixedlm] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("BENCHVERDICT_SHARED_DATA", ROOT.parent / "shared" / "data"))
M1 = "score ~ algorithm + (1|benchmark)"
M0 = "score ~ 1 + (1|benchmark)"


def native(table: pd.DataFrame) -> dict:
    from benchverdict.lmem import fit, glrt

    m1 = fit(table, M1)
    m0 = fit(table, M0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test = glrt(m0, m1)
    pairs = m1.pairwise(df="asymptotic")
    return {"loglik": m1.loglik, "chi2": test.chi2, "pairs": pairs}


def lme4(table: pd.DataFrame) -> dict:
    """R's lme4 with its default optimiser settings, emmeans for the contrasts."""
    import rpy2.robjects as ro

    from benchverdict.lmem import rbackend
    from benchverdict.lmem.design import build_design
    from benchverdict.lmem.formula import parse_formula

    design = build_design(table, parse_formula(M1))
    safe = rbackend._safe_names(design)
    t0 = time.perf_counter()
    data = rbackend._data_frame(design, safe)
    transfer = time.perf_counter() - t0
    run = ro.r(f"""function(d) {{
        m1 <- lme4::lmer({safe['score']} ~ {safe['algorithm']} + (1|{safe['benchmark']}),
                         data = d, REML = FALSE)
        m0 <- lme4::lmer({safe['score']} ~ 1 + (1|{safe['benchmark']}), data = d, REML = FALSE)
        a <- anova(m0, m1)
        e <- emmeans::emmeans(m1, specs = "{safe['algorithm']}", lmer.df = "asymptotic")
        p <- as.data.frame(pairs(e, adjust = "tukey"))
        list(as.numeric(logLik(m1)), a$Chisq[2], p$p.value)
    }}""")
    t0 = time.perf_counter()
    out = run(data)
    fit_time = time.perf_counter() - t0
    return {"loglik": float(out[0][0]), "chi2": float(out[1][0]),
            "p": np.array(out[2]), "transfer": transfer, "fit": fit_time}


def mixedlm_pkg(table: pd.DataFrame) -> dict:
    import mixedlm

    frame = pd.DataFrame({"score": table["score"].to_numpy(),
                          "algorithm": table["algorithm"].astype(str).to_numpy(),
                          "benchmark": table["benchmark"].astype(str).to_numpy()})
    m1 = mixedlm.lmer(M1, frame, REML=False)
    m0 = mixedlm.lmer(M0, frame, REML=False)
    a = mixedlm.anova(m0, m1)
    e = mixedlm.emmeans(m1, "algorithm")
    pairs = e.contrasts() if hasattr(e, "contrasts") else e.pairs() if hasattr(e, "pairs") else e
    ll = m1.logLik() if callable(getattr(m1, "logLik", None)) else m1.logLik
    return {"loglik": float(getattr(ll, "value", ll)), "anova": a, "pairs": pairs}


def timed(fn, table, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(table)
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, help="use the first N rows (default: all)")
    parser.add_argument("--repeat", type=int, default=3, help="native repetitions (best of)")
    parser.add_argument("--skip-r", action="store_true")
    parser.add_argument("--skip-mixedlm", action="store_true")
    args = parser.parse_args()

    from benchverdict.io.adapters import read_adapter

    path = SHARED / "priorband" / "priorband_anytime_full.parquet"
    results = read_adapter("priorband", path)
    table = results.table
    if args.rows:
        table = table.iloc[: args.rows]
    data_bytes = int(table.memory_usage(deep=True).sum())
    print(f"data: {len(table):,} rows, {data_bytes / 2**20:.1f} MiB in memory; workload: "
          f"ML fit of {M1}, GLRT vs {M0}, Tukey pairs")

    native(table.iloc[:1000])  # warm imports and caches
    t_native, out = timed(native, table, args.repeat)
    tracemalloc.start()
    native(table)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"\nnative : {t_native:8.2f} s   (best of {args.repeat}); peak extra memory "
          f"{peak / 2**20:.1f} MiB = {peak / data_bytes:.2f} x the data; logLik "
          f"{out['loglik']:.6f}, GLRT chi2 {out['chi2']:.4f}")
    rows = [{"engine": "benchverdict native", "seconds": t_native, "ratio": 1.0,
             "loglik": out["loglik"]}]
    if not args.skip_r:
        try:
            from benchverdict.lmem import rbackend

            rbackend._r()  # start R and load lme4/emmeans outside the timer
            t0 = time.perf_counter()
            r = lme4(table)
            t_r = time.perf_counter() - t0
            print(f"lme4   : {t_r:8.2f} s   (data transfer {r['transfer']:.2f} s, lmer x2 + "
                  f"anova + emmeans {r['fit']:.2f} s) = {t_r / t_native:.1f} x native; "
                  f"logLik {r['loglik']:.6f} (diff {out['loglik'] - r['loglik']:+.2e}), "
                  f"chi2 {r['chi2']:.4f}")
            rows.append({"engine": "R lme4 + emmeans (rpy2)", "seconds": t_r,
                         "ratio": t_r / t_native, "loglik": r["loglik"]})
        except Exception as err:
            print(f"lme4   : not run ({err})")
    if not args.skip_mixedlm:
        try:
            t0 = time.perf_counter()
            mx = mixedlm_pkg(table)
            t_m = time.perf_counter() - t0
            print(f"mixedlm: {t_m:8.2f} s = {t_m / t_native:.1f} x native; logLik "
                  f"{mx['loglik']:.6f} (diff {out['loglik'] - mx['loglik']:+.2e})")
            rows.append({"engine": "mixedlm (PyPI)", "seconds": t_m, "ratio": t_m / t_native,
                         "loglik": mx["loglik"]})
        except Exception as err:
            print(f"mixedlm: not run ({type(err).__name__}: {err})")
    print()
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
