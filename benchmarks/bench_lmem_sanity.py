"""Speed of the LMEM sanity checks on the HPO-B baselines (issue 10, section 3).

Workload: ``benchverdict.lmem.sanity_checks`` on the HPO-B long table
(14 algorithms, 86 search-space/dataset benchmarks, 5 seeds, 101 trials:
567,170 rows), as the report runs it. Each check is timed on its own, and
the informativeness ranking fit ``score ~ benchmark + (0 + benchmark ||
algorithm)`` (86 variance components, 1,204 random effects) separately,
with its log-likelihood, so that a before/after comparison also shows that
the answer did not change. Loading the data is not timed.

Run:  python benchmarks/bench_lmem_sanity.py [--only rank] [--lme4]

``--lme4`` also fits the ranking model with R's lme4 (through rpy2; lme4
cannot split a factor with ``||``, so the model is written out with one
indicator column per benchmark) and prints both log-likelihoods.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("BENCHVERDICT_SHARED_DATA", ROOT.parent / "shared" / "data"))
RANK = "score ~ benchmark + (0 + benchmark || algorithm)"


def timed(label: str, fn):
    t0 = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t0
    print(f"{label:<52s} {seconds:8.2f} s", flush=True)
    return seconds, out


def rank_frame(results) -> pd.DataFrame:
    """The frame the informativeness ranking is fitted on (standardised per benchmark)."""
    frame = results.final().table
    sd = frame.groupby("benchmark", observed=True)["score"].transform("std")
    return frame.assign(score=frame["score"] / sd.where(sd > 0, 1.0))


def lme4_rank_loglik(frame: pd.DataFrame) -> float:
    """The ranking model in lme4, one dummy column per benchmark under ``||``."""
    import rpy2.robjects as ro
    from rpy2.robjects import pandas2ri
    from rpy2.robjects.conversion import localconverter

    from benchverdict.lmem import rbackend

    rbackend._r()
    codes = frame["benchmark"].astype("category").cat.codes.to_numpy()
    k = codes.max() + 1
    data = pd.DataFrame({"y": frame["score"].to_numpy(),
                         "alg": frame["algorithm"].astype(str).to_numpy(),
                         "b": [f"b{c:03d}" for c in codes]})
    for j in range(k):
        data[f"d{j:03d}"] = (codes == j).astype(float)
    dummies = " + ".join(f"d{j:03d}" for j in range(k))
    with localconverter(ro.default_converter + pandas2ri.converter):
        rdata = ro.conversion.py2rpy(data)
    fit = ro.r(f"""function(d) {{
        m <- lme4::lmer(y ~ b + (0 + {dummies} || alg), data = d, REML = FALSE,
                        control = lme4::lmerControl(calc.derivs = FALSE))
        as.numeric(logLik(m)) }}""")
    return float(fit(rdata)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=["rank", "all"], default="all")
    parser.add_argument("--lme4", action="store_true", help="also fit the ranking model in lme4")
    args = parser.parse_args()

    from benchverdict.io.adapters import read_adapter
    from benchverdict.lmem import fit
    from benchverdict.lmem import sanity as s

    results = read_adapter("hpob", SHARED / "hpob" / "hpob_results_long.parquet")
    print(f"data: {results!r}")
    frame = rank_frame(results)
    t_rank, model = timed(f"ranking fit {RANK}", lambda: fit(frame, RANK))
    print(f"  logLik {model.loglik:.6f}, converged {model.converged}; {model.message}")
    if args.lme4:
        t0 = time.perf_counter()
        ll = lme4_rank_loglik(frame)
        print(f"  lme4 logLik {ll:.6f} ({time.perf_counter() - t0:.1f} s); native - lme4 = "
              f"{model.loglik - ll:+.2e}")
    if args.only == "rank":
        return
    rows = [{"step": "ranking fit", "seconds": t_rank}]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, fn in [
            ("seed_dependency", lambda: s.seed_dependency(results)),
            ("benchmark_informativeness", lambda: s.benchmark_informativeness(results)),
            ("budget_relevance", lambda: s.budget_relevance(results)),
            ("sanity_checks (all)", lambda: s.sanity_checks(results)),
        ]:
            seconds, out = timed(name, fn)
            rows.append({"step": name, "seconds": seconds})
            verdicts = [c.verdict for c in out.checks] if hasattr(out, "checks") else [out.verdict]
            print(f"  verdict(s): {verdicts}")
    print()
    print(pd.DataFrame(rows).to_string(index=False))
    print(f"\ntotal {np.sum([r['seconds'] for r in rows[:-1]]):.1f} s (sum of the separate steps)")


if __name__ == "__main__":
    main()
