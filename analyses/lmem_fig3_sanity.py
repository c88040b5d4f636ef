"""Geburek et al. (2024) Fig. 3: the sanity checks on the PriorBand study.

Seed dependency, benchmark informativeness (per benchmark x prior, with the
variance ranking) and budget relevance, each a test of nested models
(benchverdict.lmem.sanity). Writes analyses/out/lmem_fig3/.
Run: python analyses/lmem_fig3_sanity.py
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import pandas as pd
from lmem_common import finding, out_dir, priorband

from benchverdict.lmem import sanity_checks
from benchverdict.plotting import save_figure


def main() -> None:
    res = priorband()
    out = out_dir("lmem_fig3")
    report = sanity_checks(res)
    pd.set_option("display.width", 200)
    print(report)
    print()
    print(report.table.to_string(index=False))
    report.table.to_csv(out / "sanity_summary.csv", index=False)
    for check in report.checks:
        check.table.to_csv(out / f"sanity_{check.name}.csv", index=False)
    save_figure(report.plot().figure, out / "sanity", formats=("pdf", "png"))
    info = report["benchmark_informativeness"]
    glrt_flags = list(info.table.loc[info.table["p_value_glrt"] >= 0.05, "benchmark"])
    finding(
        "Fig. 3 applies the seed, benchmark and budget checks to this data with "
        "lmem-significance (its outcomes are in the paper; not transcribed here).",
        f"seed: {report['seed_dependency'].verdict} (affected: "
        f"{', '.join(report['seed_dependency'].flagged) or 'none'}); uninformative by the "
        f"exact F test: {', '.join(info.flagged) or 'none'} (by the paper's GLRT: "
        f"{', '.join(glrt_flags) or 'none'}); budget: "
        f"{report['budget_relevance'].verdict}. Figures and CSV in {out}/",
    )


if __name__ == "__main__":
    main()
