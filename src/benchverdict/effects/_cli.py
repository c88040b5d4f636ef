"""``benchverdict plan``: the power of every pairwise comparison, and the runs to settle it."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchverdict._cli_common import UsageError, input_paths, load_results, progress_options
from benchverdict._output_dir import staged_directory
from benchverdict._safe_output import write_csv


def register(subparsers: argparse._SubParsersAction, parents: list) -> None:
    """Add the ``plan`` sub-command."""
    p = subparsers.add_parser(
        "plan", parents=[*parents, progress_options()],
        help="power of the pairwise comparisons, and the benchmarks or seeds they need",
        description=(
            "How many more runs would settle it: for every pair of algorithms, the power of the "
            "paired t on per-benchmark means (Bonferroni over the pairs) to detect a "
            "difference, the benchmarks needed at the current seeds, the seeds per benchmark "
            "needed at the current benchmarks (or why more seeds cannot reach the target), "
            "and which lever needs fewer runs. From a pilot FILE (role options as in "
            "validate), or without a file from stated values: --difference, --sd-benchmark, "
            "--sd-seed and --benchmarks and/or --seeds. -o writes the table as CSV and the "
            "power plot as PDF."
        ),
    )
    p.add_argument("--at-budget", type=float, metavar="B",
                   help="plan on the incumbents at budget B (default: each run's final one)")
    p.add_argument("--power", type=float, default=0.8, help="target power (0.8)")
    p.add_argument("--replicate-by", dest="replicate_by", default=None, metavar="COLUMN",
                   help="with a pilot: a benchmark metafeature whose levels are the "
                        "independent units (e.g. 'task'); the plan counts each level once, "
                        "as the report's tests do. Copied runs count once either way")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="family-wise significance level (0.05), Bonferroni over the pairs")
    p.add_argument("--difference", metavar="D",
                   help="difference to detect, in score units (0.02) or in SDs of a "
                        "benchmark's score (0.2sd; a FILE whose scales differ across "
                        "benchmarks is planned in SDs and needs this form) (default: each "
                        "pair's observed difference; required without FILE)")
    p.add_argument("--sd-benchmark", metavar="T",
                   help="SD over benchmarks of a pair's per-benchmark difference, in the "
                        "unit of --difference (required without FILE; with FILE it replaces "
                        "the pilot's estimate)")
    p.add_argument("--sd-seed", metavar="S",
                   help="SD of one run's score within a benchmark, in the unit of "
                        "--difference (required without FILE)")
    p.add_argument("--benchmarks", type=int, metavar="N",
                   help="current number of benchmarks (without FILE: for the seeds lever)")
    p.add_argument("--seeds", type=float, metavar="R",
                   help="current seeds per benchmark and algorithm (without FILE: for the "
                        "benchmarks lever); --seed names the seed column")
    p.add_argument("--pairs", type=int, metavar="K",
                   help="pairs compared at once (default: all pairs of FILE's algorithms; 1 "
                        "without FILE)")
    p.add_argument("--test", choices=["t", "wilcoxon"], default="t",
                   help="plan for the paired t (default) or the Wilcoxon signed-rank test "
                        "(simulated)")
    p.add_argument("--random-seed", type=int, default=0, metavar="S",
                   help="seed of the Wilcoxon simulation (0); --seed names the seed column")
    p.add_argument("-o", "--out", type=Path, help="directory for plan.csv and plan.pdf")
    p.set_defaults(handler=run)


def _check(args: argparse.Namespace) -> None:
    """Refuse impossible values before any work, naming the option."""
    if not 0 < args.power < 1:
        raise UsageError(f"--power {args.power:g} must lie strictly between 0 and 1. "
                         f"Fix: e.g. --power 0.8.")
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha {args.alpha:g} must lie strictly between 0 and 1. "
                         f"Fix: e.g. --alpha 0.05.")
    from benchverdict.effects.planning import stated_amount

    for option, text in (("--difference", args.difference),
                         ("--sd-benchmark", args.sd_benchmark), ("--sd-seed", args.sd_seed)):
        try:
            value, _ = stated_amount(text, option)
        except ValueError as err:
            raise UsageError(str(err)) from None
        if option != "--difference" and value is not None and not value >= 0:
            raise UsageError(f"{option} {text}: a standard deviation must be finite and "
                             f">= 0. Fix: give {option} a non-negative number.")
    if args.benchmarks is not None and args.benchmarks < 2:
        raise UsageError(f"--benchmarks {args.benchmarks} must be at least 2 (the paired t "
                         f"needs 2 benchmarks).")
    if args.seeds is not None and not args.seeds >= 1:
        raise UsageError(f"--seeds {args.seeds:g} must be at least 1.")
    if args.pairs is not None and args.pairs < 1:
        raise UsageError(f"--pairs {args.pairs} must be at least 1.")


def run(args: argparse.Namespace) -> int:
    """Handle ``benchverdict plan``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from benchverdict.effects.planning import plan
    from benchverdict.plotting import save_figure

    _check(args)
    stated = {"difference": args.difference, "sd_benchmark": args.sd_benchmark,
              "sd_seed": args.sd_seed, "n_benchmarks": args.benchmarks, "seeds": args.seeds}
    common = {"power": args.power, "alpha": args.alpha, "pairs": args.pairs, "test": args.test,
              "seed": args.random_seed}
    if args.file is None and not args.example:
        missing = [option for option, value in (("--difference", args.difference),
                                                ("--sd-benchmark", args.sd_benchmark),
                                                ("--sd-seed", args.sd_seed)) if value is None]
        if missing:
            raise UsageError(f"give a results FILE (a pilot), or state {', '.join(missing)} "
                             f"(and --benchmarks and/or --seeds) to plan before any run.")
        if args.benchmarks is None and args.seeds is None:
            raise UsageError("without FILE, give the current design: --benchmarks N (for the "
                             "seeds lever), --seeds R (for the benchmarks lever), or both.")
        if args.at_budget is not None:
            raise UsageError("--at-budget chooses a pilot's incumbents; give FILE or drop it.")
        if args.replicate_by is not None:
            raise UsageError("--replicate-by names a column of a pilot; give FILE or drop it.")
        result = plan(**stated, **common)
    else:
        from benchverdict.replicates import pair_replicates

        results = load_results(args)
        print(f"data: {results!r}")
        result = plan(results, budget=args.at_budget, **stated, **common,
                      replicates=pair_replicates(results, args.replicate_by))
    pd.set_option("display.width", 160)
    pd.set_option("display.max_columns", 30)
    z_scored = (" (stated in SDs)" if result.source == "stated" else
                " (the scores were z-scored per benchmark: their scales differ across "
                "benchmarks, or the values were stated in SDs)")
    print(f"differences and SDs in {result.unit}"
          + (z_scored if result.unit != "score units" else ""))
    print()
    for sentence in result.sentences():
        print(sentence)
    print()
    columns = ["a", "b", "difference", "sd_benchmark", "sd_seed", "n_benchmarks", "seeds",
               "power_now", "benchmarks_needed", "seeds_needed", "power_ceiling_more_seeds",
               "lever"]
    print(result.table[columns].round(4).to_string(index=False))
    if args.out is not None:
        # Staged, then moved in: never a file this command did not write (_output_dir).
        with staged_directory(Path(args.out), input_paths(args)) as out:
            write_csv(result.table, out / "plan.csv")
            ax = result.plot()
            save_figure(ax.figure, out / "plan", formats=("pdf",))
            plt.close(ax.figure)
        print(f"\nwrote plan.csv and plan.pdf to {args.out}")
    return 0
