"""``benchverdict dse``: performance distributions, CVaR, dominance (Jordan et al. 2018)."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchverdict._cli_common import input_paths, load_results, progress_options
from benchverdict._output_dir import staged_directory
from benchverdict._safe_output import write_csv


def register(subparsers: argparse._SubParsersAction, parents: list) -> None:
    """Add the ``dse`` sub-command."""
    p = subparsers.add_parser(
        "dse", parents=[*parents, progress_options()],
        help="performance distributions: CDFs, CVaR, threshold areas, dominance",
        description=(
            "Jordan et al. (2018): each random-search draw is one sample of an algorithm's "
            "performance distribution. Prints per-benchmark statistics (mean, quartiles, "
            "CVaR with intervals), pairwise stochastic-dominance tests with CDF crossings, "
            "and the verdicts; -o writes CSV, JSON and figures."
        ),
    )
    p.add_argument("--cvar-level", type=float, default=0.5, metavar="L",
                   help="CVaR level L: CVaR is the mean of the best 1 - L share of the draws "
                        "(default 0.5)")
    p.add_argument("--lower-cvar-level", type=float, default=0.1, metavar="L",
                   help="lower-tail CVaR: the mean of the worst L share (default 0.1)")
    p.add_argument("--alpha", type=_significance, default=0.05,
                   help="significance level of the dominance tests (default 0.05); the CVaR "
                        "level is --cvar-level")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="interval level (default 0.95; the report's DSE intervals use its "
                        "--confidence, default 0.8)")
    p.add_argument("--band", default="dkw",
                   choices=["dkw", "ks", "ld_equal_tailed", "ld_highest_density"],
                   help="CDF band for band intervals and plots (default dkw)")
    p.add_argument("--interval", default="auto", choices=["auto", "band", "bootstrap"],
                   help="CVaR intervals: band (needs --low/--high) or bootstrap (auto)")
    p.add_argument("--low", type=float, help="lowest possible score (support bound)")
    p.add_argument("--high", type=float, help="highest possible score (support bound)")
    p.add_argument("--threshold", type=float,
                   help="also report the area above and the probability of exceeding it")
    p.add_argument("--pooled", action="store_true",
                   help="pool each algorithm's draws over benchmarks (use with --normalize)")
    p.add_argument("--normalize", choices=["minmax", "reference"],
                   help="per-benchmark normalisation")
    p.add_argument("--reference", help="reference algorithm for --normalize reference")
    p.add_argument("--aggregate", action="store_true",
                   help="also print IQM/mean/median/optimality gap with stratified-bootstrap "
                        "intervals (min-max normalised unless --normalize says otherwise)")
    p.add_argument("--n-resamples", type=_positive_int, default=10_000,
                   help="bootstrap replicates of the intervals and aggregates (default 10000)")
    p.add_argument("--n-permutations", type=_positive_int, default=1999,
                   help="most label permutations of each CVaR test (default 1999)")
    p.add_argument("--random-seed", type=int, default=0,
                   help="seed of the bootstrap and the permutations (default 0; --seed names "
                        "the seed column)")
    p.add_argument("-o", "--out", type=Path, help="directory for CSV, JSON and figures")
    p.set_defaults(handler=run)


def _positive_int(text: str) -> int:
    """A count that must be at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _significance(text: str) -> float:
    """``--alpha``: a significance level, refused with a pointer when it looks like a CVaR level."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 < value < 0.5:
        raise argparse.ArgumentTypeError(
            f"--alpha is the significance level of the dominance tests and must lie in "
            f"(0, 0.5), got {value:g}; the CVaR level is set with --cvar-level"
        )
    return value


def run(args: argparse.Namespace) -> int:
    """Handle ``benchverdict dse``."""
    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd

    from benchverdict.dse.aggregate import aggregate
    from benchverdict.dse.distribution import distribution
    from benchverdict.plotting import save_figure
    from benchverdict.verdict import verdicts_to_frame, verdicts_to_json

    results = load_results(args)
    res = distribution(
        results, pooled=args.pooled, normalize=args.normalize, reference=args.reference,
        cvar_level=args.cvar_level, lower_cvar_level=args.lower_cvar_level,
        threshold=args.threshold,
        confidence=args.confidence, band=args.band, interval=args.interval, low=args.low,
        high=args.high, n_resamples=args.n_resamples, seed=args.random_seed,
        n_permutations=args.n_permutations,
    )
    pd.set_option("display.width", 160)
    pd.set_option("display.max_columns", 30)
    scale = f"normalised ({args.normalize})" if args.normalize else f"score ({results.objective})"
    print(f"DSE performance distributions: {results!r}")
    print(f"values: {scale}; CVaR_{args.cvar_level:g} = mean of the best "
          f"{1 - args.cvar_level:.0%} of draws; intervals: {res.interval} at "
          f"{args.confidence:g}; significance level alpha = {args.alpha:g}")
    if len(results.exclusions):
        print(f"excluded rows: {len(results.exclusions)} (see `benchverdict validate`)")
    print()
    print(res.table.round(4).to_string(index=False))
    dom = res.dominance(alpha=args.alpha)
    if len(dom):
        print("\nfirst-order dominance (two one-sided KS tests, Bonferroni):")
        cols = ["benchmark", "a", "b", "outcome", "p_value_adjusted", "crossings"]
        print(dom[cols].to_string(index=False))
    verdicts = res.verdicts(alpha=args.alpha)
    print("\nverdicts:")
    for v in verdicts:
        print(f"  {v}")
    agg = None
    if args.aggregate:
        agg = aggregate(results, normalize=args.normalize or "minmax",
                        reference=args.reference, n_resamples=args.n_resamples,
                        seed=args.random_seed)
        print(f"\naggregates over {agg.n_benchmarks} benchmarks ({agg._scale()}, stratified "
              f"bootstrap, {agg.n_resamples} replicates):")
        print(agg.table.round(4).to_string(index=False))
    if args.out is not None:
        # Staged, then moved in: never a file this command did not write (_output_dir).
        with staged_directory(Path(args.out), input_paths(args)) as out:
            write_csv(res.table, out / "dse_table.csv")
            write_csv(dom, out / "dse_dominance.csv")
            write_csv(res.cvar_differences(), out / "dse_cvar_differences.csv")
            write_csv(verdicts_to_frame(verdicts), out / "dse_verdicts.csv")
            (out / "dse_verdicts.json").write_text(verdicts_to_json(verdicts))
            for kind in ("cdf", "quantile"):
                save_figure(res.plot(kind=kind).figure, out / f"dse_{kind}")
            if agg is not None:
                write_csv(agg.table, out / "dse_aggregate.csv")
                save_figure(agg.plot().figure, out / "dse_aggregate")
        print(f"\nwrote tables, verdicts and figures to {args.out}/")
    return 0
