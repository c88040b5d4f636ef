"""``benchverdict ranks``: Friedman with post-hoc tests, autorank's path, win/tie/loss, anytime."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchverdict._cli_common import input_paths, load_results, progress_options, show_progress
from benchverdict._output_dir import staged_directory
from benchverdict._safe_output import write_csv


def register(subparsers: argparse._SubParsersAction, parents: list) -> None:
    """Add the ``ranks`` sub-command."""
    p = subparsers.add_parser(
        "ranks", parents=[*parents, progress_options()],
        help="rank tests: Friedman + Nemenyi / Wilcoxon-Holm / Conover, autorank, win/tie/loss",
        description=(
            "Demšar (2006)-style comparison over benchmarks: rank the algorithms in every "
            "block, Friedman's test (Kendall's W, Iman-Davenport), a post-hoc family, a "
            "critical-difference diagram, compact letters and a verdict per pair. The "
            "replication unit is printed with every output. Optional: autorank's own decision "
            "path, win/tie/loss counts with sign tests, anytime ranks over the budget. "
            "-o writes CSV tables, verdicts (JSON) and PDF figures."
        ),
    )
    p.add_argument("--at-budget", type=float, metavar="B",
                   help="compare incumbents at budget B (default: each run's final one); "
                        "--budget names the budget column")
    p.add_argument("--unit", choices=["benchmark", "benchmark_seed"], default="benchmark",
                   help="replication unit: benchmarks with seeds aggregated (default), or "
                        "every benchmark x seed run as a block (pseudo-replication)")
    p.add_argument("--aggregate", choices=["mean", "median"], default="mean",
                   help="how seeds are combined within a benchmark (default mean)")
    p.add_argument("--missing", choices=["raise", "drop"], default="raise",
                   help="blocks with a missing algorithm: refuse (default) or drop and record")
    p.add_argument("--posthoc", choices=["nemenyi", "wilcoxon", "conover"], default="nemenyi",
                   help="post-hoc test (default nemenyi)")
    p.add_argument("--adjust", choices=["holm", "bonferroni"], default="holm",
                   help="multiplicity adjustment for wilcoxon/conover (default holm)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    p.add_argument("--replicate-by", dest="replicate_by", default=None, metavar="COLUMN",
                   help="a benchmark metafeature whose levels are the independent units "
                        "(e.g. 'task' for a task under several variants): Wilcoxon's test "
                        "counts each level once; copied runs count once either way")
    p.add_argument("--autorank", action="store_true",
                   help="also run autorank's decision path and explain it")
    p.add_argument("--win-tie-loss", action="store_true",
                   help="also count per-benchmark wins/ties/losses over seeds, with sign tests")
    p.add_argument("--anytime", action="store_true",
                   help="also compute average ranks over the budget (needs a budget column)")
    p.add_argument("--n-resamples", type=int, default=1000, metavar="N",
                   help="bootstrap resamples for effect-size intervals and bands (1000; the "
                        "anytime bands use at most 500)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="level of the effect-size intervals and bands (default 0.95, as the "
                        "report's effect intervals at --alpha 0.05)")
    p.add_argument("--random-seed", type=int, default=0, metavar="S",
                   help="seed of the bootstraps and permutation tests (0); --seed names the "
                        "seed column")
    p.add_argument("-o", "--out", type=Path, help="directory for CSV, JSON and PDF figures")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handle ``benchverdict ranks``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from benchverdict.plotting import save_figure
    from benchverdict.ranks import anytime_ranks, autorank, friedman, win_tie_loss
    from benchverdict.replicates import pair_replicates
    from benchverdict.verdict import verdicts_to_frame, verdicts_to_json

    results = load_results(args)
    pd.set_option("display.width", 160)
    pd.set_option("display.max_columns", 30)
    print(f"data: {results!r}")
    if len(results.exclusions):
        print(f"excluded rows: {len(results.exclusions)} (see `benchverdict validate`)")
    copies = pair_replicates(results, args.replicate_by)
    res = friedman(
        results, budget=args.at_budget, unit=args.unit, aggregate=args.aggregate,
        missing=args.missing, alpha=args.alpha, posthoc=args.posthoc, adjust=args.adjust,
        n_resamples=args.n_resamples, confidence=args.confidence, seed=args.random_seed,
        copies=copies,
    )
    print()
    print(res.summary())
    print()
    print(res.table.round(4).to_string(index=False))
    print()
    columns = ["a", "b", "rank_a", "rank_b", "p_value", "p_value_adjusted", "significant",
               "better", "cliffs_delta", "cliffs_delta_lower", "cliffs_delta_upper"]
    print(res.pairwise[columns].round(4).to_string(index=False))
    if len(res.blocks.exclusions):
        print(f"\nleft out: {res.blocks.exclusion_summary()}:")
        print(res.blocks.exclusions.to_string(index=False))
    verdicts = res.verdicts()
    figures = {"cd_diagram": res.plot().figure}
    tables = {"ranks": res.table, "pairwise": res.pairwise}

    if args.autorank:
        ar = autorank(results, budget=args.at_budget, unit=args.unit, aggregate=args.aggregate,
                      missing=args.missing, alpha=args.alpha)
        print()
        print(ar.summary())
        verdicts += ar.verdicts()
        figures["autorank"] = ar.plot().figure
        tables["autorank"] = ar.table
    if args.win_tie_loss:
        wtl = win_tie_loss(results, budget=args.at_budget, alpha=args.alpha,
                           confidence=args.confidence, seed=args.random_seed, copies=copies)
        print()
        print(wtl.summary())
        verdicts += wtl.verdicts()
        figures["win_tie_loss"] = wtl.plot().figure
        tables["win_tie_loss"] = wtl.table
        tables["win_tie_loss_per_benchmark"] = wtl.per_benchmark
    if args.anytime:
        any_ranks = anytime_ranks(results, n_resamples=min(args.n_resamples, 500),
                                  confidence=args.confidence, seed=args.random_seed,
                                  aggregate=args.aggregate, progress=show_progress(args))
        print()
        print(f"anytime ranks ({any_ranks.unit}); last budget:")
        last = any_ranks.table["budget"].max()
        print(any_ranks.table[any_ranks.table["budget"] == last].round(3).to_string(index=False))
        if len(any_ranks.exclusions):
            print(f"left out: {len(any_ranks.exclusions)} benchmark(s) x budget(s) without an "
                  f"incumbent for some algorithm")
        figures["anytime_ranks"] = any_ranks.plot().figure
        tables["anytime_ranks"] = any_ranks.table

    print("\nverdicts:")
    for v in verdicts:
        print(f"  {v}")
    if args.out is not None:
        # Staged, then moved in: never a file this command did not write (_output_dir).
        with staged_directory(Path(args.out), input_paths(args)) as out:
            for name, table in tables.items():
                write_csv(table, out / f"{name}.csv")
            write_csv(verdicts_to_frame(verdicts), out / "verdicts.csv")
            (out / "verdicts.json").write_text(verdicts_to_json(verdicts))
            for name, fig in figures.items():
                save_figure(fig, out / name, formats=("pdf",))
        print(f"\nwrote {len(tables) + 2} tables and {len(figures)} figures to {args.out}")
    for fig in figures.values():
        plt.close(fig)
    return 0
