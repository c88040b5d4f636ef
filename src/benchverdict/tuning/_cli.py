"""``benchverdict tuning``: tuning curves with simultaneous bands, verdicts per budget range."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

from benchverdict._caveats import collecting
from benchverdict._cli_common import UsageError, input_paths, load_results, progress_options
from benchverdict._output_dir import staged_directory
from benchverdict._plain_text import file_stem
from benchverdict._safe_output import write_csv
from benchverdict.stats.band_names import METHODS


def register(subparsers: argparse._SubParsersAction, parents: list) -> None:
    """Add the ``tuning`` sub-command."""
    p = subparsers.add_parser(
        "tuning", parents=[*parents, progress_options()],
        help="tuning curves (best score after k random-search trials) with confidence bands",
        description=(
            "Tuning curves from random-search trials (Dodge et al. 2019; Tang et al. 2020; "
            "Lourie, Cho & He 2024): the median (or expected) best score after k trials, with "
            "exact simultaneous distribution-free bands, pairwise verdicts per budget range "
            "(weak / fair / strong evidence) and the largest budget each sample can vouch "
            "for. Needs IID draws (kind 'trials'). -o writes CSV, JSON and figures."
        ),
    )
    p.add_argument("--confidence", type=float, default=0.8,
                   help="simultaneous confidence of each band (default 0.8, as in Lourie et al. "
                        "2024 and the report; the other single-module commands use 0.95)")
    p.add_argument("--band", default="ld_highest_density", choices=[*METHODS, "none"],
                   help="CDF band the curve band is built from (default ld_highest_density)")
    p.add_argument("--curve", default="median", choices=["median", "mean"],
                   help="median best score (exact bands) or expected best score "
                        "(conservative bands, infinite without --low/--high)")
    p.add_argument("--estimator", default="v", choices=["v", "u", "w"],
                   help="point estimate of the expected best score for --curve mean")
    p.add_argument("--low", type=float, help="lowest possible score (support bound, e.g. 0)")
    p.add_argument("--high", type=float, help="highest possible score (support bound, e.g. 1)")
    p.add_argument("--budgets", help="budgets k to print, comma-separated "
                                     "(default 1,2,5,10,20,...)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="significance level: error rate of a decision between two curves "
                        "(per pair, over all budgets) and of the tests (default 0.05)")
    p.add_argument("-o", "--out", type=Path, help="directory for CSV, JSON and figures")
    p.set_defaults(handler=run)


def _budgets_to_print(n_max: int, text: str | None) -> list[float]:
    if text:
        return [float(v) for v in text.split(",") if v.strip()]
    out, base = [], 1
    while base <= n_max:
        out += [k for k in (base, 2 * base, 5 * base) if k <= n_max]
        base *= 10
    return out


def _cell(point: float, lower: float, upper: float) -> str:
    def f(x: float) -> str:
        return "-inf" if x == float("-inf") else "inf" if x == float("inf") else f"{x:.4g}"

    return f"{f(point)} [{f(lower)}, {f(upper)}]"


def run(args: argparse.Namespace) -> int:
    """Handle ``benchverdict tuning``."""
    import math

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from benchverdict.plotting import save_figure
    from benchverdict.tuning.collection import from_results
    from benchverdict.verdict import verdicts_to_frame, verdicts_to_json

    if not 0.0 < args.confidence < 1.0:
        raise UsageError(f"--confidence must lie strictly between 0 and 1, got {args.confidence}.")
    if not 0.0 < args.alpha < 1.0:
        raise UsageError(f"--alpha must lie strictly between 0 and 1, got {args.alpha}.")
    results = load_results(args)
    band = None if args.band == "none" else args.band
    low = -math.inf if args.low is None else args.low
    high = math.inf if args.high is None else args.high
    # The curves' and the verdicts' caveats together, each kind said once (with its count
    # and cells) as a note below.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with collecting():
            curves = from_results(
                results, kind=args.curve, band=band, confidence=args.confidence, low=low,
                high=high, estimator=args.estimator, alpha=args.alpha,
            )
            verdicts = curves.verdicts() if band is not None else []
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 40)
    what = "median" if args.curve == "median" else f"expected ({args.estimator.upper()})"
    best = "best" if results.objective == "maximize" else "lowest"
    print(f"Tuning curves: {results!r}")
    if len(results.exclusions):
        print(f"excluded rows: {len(results.exclusions)} (see `benchverdict validate`)")
    print(f"curve: {what} {best} score after k trials; cells: point [lower, upper]")
    if band is None:
        print("band: none")
    else:
        # The default band is calibrated at the integer budgets it is shown at, not at
        # every real k (between them it can cover less: 0.68 for 0.8 at n = 30).
        reached = [c.cdf.grid_coverage for c in curves.curves.values()
                   if c.cdf is not None and c.cdf.grid_coverage is not None]
        if args.curve == "median" and band != "dkw" and reached:
            low_cov, high_cov = min(reached), max(reached)
            cov = (f"{low_cov:.3f}" if high_cov - low_cov < 5e-4
                   else f"{low_cov:.3f}-{high_cov:.3f}")
            exactness = (f"simultaneous over the integer budgets k = 1, 2, ...: covers with "
                         f"probability {cov} for continuous scores, the first attainable "
                         f"at or above {args.confidence:g}")
        else:
            exactness = "conservative, simultaneous"
        print(f"band: {args.confidence:.0%} {band} ({exactness}); support [{low:g}, {high:g}]")
    for w in caught:
        print(f"note: {w.message}")
    for bench in curves.benchmarks:
        cells = {alg: c for (alg, b), c in curves.curves.items() if b == bench}
        n_max = max(c.n for c in cells.values())
        rows = []
        for k in _budgets_to_print(n_max, args.budgets):
            row = {"k": f"{k:g}"}
            for alg, c in cells.items():
                idx = [i for i, kk in enumerate(c.k) if kk == k]
                row[alg] = _cell(c.point[idx[0]], c.lower[idx[0]], c.upper[idx[0]]) if idx else ""
            rows.append(row)
        print(f"\n== {bench} ==")
        print(pd.DataFrame(rows).to_string(index=False))
    if band is not None:
        guide = curves.guidance()
        print("\nlargest budget each sample can bound (upper band below the support bound):")
        print(guide.round(2).to_string(index=False))
    if len(curves.excluded):
        print("\nexcluded cells:")
        print(curves.excluded.to_string(index=False))
    print(f"\nverdicts ({len(verdicts)}):")
    for v in verdicts:
        print(f"  {v}")
    if band is not None and not verdicts:
        print("  (need at least two algorithms on a benchmark)")
    if args.out is not None:
        # Staged, then moved in: never a file this command did not write (_output_dir).
        with staged_directory(Path(args.out), input_paths(args)) as out:
            write_csv(curves.table, out / "tuning_curves.csv")
            write_csv(verdicts_to_frame(verdicts), out / "tuning_verdicts.csv")
            (out / "tuning_verdicts.json").write_text(verdicts_to_json(verdicts))
            written = ["tuning_curves.csv", "tuning_verdicts.csv", "tuning_verdicts.json"]
            for bench in curves.benchmarks:
                ax = curves.plot(benchmark=bench)
                paths = save_figure(ax.figure, out / f"tuning_{file_stem(bench)}",
                                    formats=("pdf",))
                plt.close(ax.figure)
                written += [p.name for p in paths]
        print(f"\nwrote {len(written)} files to {args.out}: {', '.join(written[:6])}"
              + (" ..." if len(written) > 6 else ""))
    return 0
