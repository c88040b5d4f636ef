"""``benchverdict lmem`` and ``benchverdict sanity``: mixed models and Geburek's sanity checks."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from benchverdict._cli_common import (
    UsageError,
    input_paths,
    load_results,
    progress_options,
    show_progress,
)
from benchverdict._output_dir import staged_directory
from benchverdict._safe_output import write_csv


def register(subparsers: argparse._SubParsersAction, parents: list) -> None:
    """Add the ``lmem`` and ``sanity`` sub-commands."""
    p = subparsers.add_parser(
        "lmem", parents=[*parents, progress_options()],
        help="linear mixed model: GLRT, marginal means, Tukey HSD, CD diagram (Geburek 2024)",
        description=(
            "Fit an lme4-style mixed model over the role names (score, algorithm, benchmark, "
            "seed, budget) and metafeature columns, test the algorithm effect with a GLRT "
            "against the model without it, and print marginal means, Tukey-adjusted pairwise "
            "contrasts, a compact letter display and the verdicts; -o writes CSV, JSON and the "
            "LMEM critical-difference diagram. A pair is settled only when its own test "
            "agrees with the model, as in `benchverdict report`: with the default estimand "
            "(benchmarks like these) its paired t test across benchmarks, with 'these' its "
            "Welch t test over the runs of these benchmarks (copied runs counted once)."
        ),
    )
    _common(p, all_rows_help="use every row (e.g. to model the budget in --formula)")
    p.add_argument("--estimand", choices=["benchmarks", "these"], default="benchmarks",
                   help="what the algorithm contrasts claim (sets the default --formula): "
                        "'benchmarks' (default) a difference on benchmarks like these, "
                        "score ~ algorithm + (1|benchmark) + (1|benchmark:algorithm) fitted "
                        "by REML; 'these' a difference on exactly these benchmarks, "
                        "score ~ algorithm + (1|benchmark) fitted by ML")
    p.add_argument("--formula", help="model formula (default: from --estimand; with one "
                                     "benchmark score ~ algorithm + (1|seed))")
    p.add_argument("--null", help="null-model formula for the GLRT (default: the formula "
                                  "without its algorithm terms)")
    p.add_argument("--reml", action="store_true", help="fit by REML (default ML)")
    p.add_argument("--backend", choices=["native", "lme4"], default="native",
                   help="native engine (default) or R's lme4/emmeans through rpy2")
    p.add_argument("--df", choices=["auto", "asymptotic", "satterthwaite"], default="auto",
                   help="degrees of freedom for contrasts (auto: Satterthwaite unless there are "
                        "over 3000 rows and every random grouping factor has at least 200 "
                        "levels and is not crossed with a fixed factor; then asymptotic)")
    p.add_argument("--by", help="also compare within each level of this fixed factor")
    p.add_argument("--replicate-by", metavar="COLUMN",
                   help="a benchmark metafeature whose levels are the independent units "
                        "(e.g. the task of benchmarks that are variants of one task): its "
                        "benchmarks count once in each pair's paired test across benchmarks, "
                        "as benchmarks with copied runs do")
    p.add_argument("--confidence", type=_confidence, default=0.95,
                   help="level of the marginal means' intervals (default 0.95)")
    p.set_defaults(handler=run_lmem)

    s = subparsers.add_parser(
        "sanity", parents=[*parents, progress_options()],
        help="sanity checks: seed dependency, benchmark informativeness, budget relevance",
        description=("Geburek et al.'s (2024) sanity checks of a benchmark study, each a "
                     "likelihood-ratio (or F) test of nested models; -o writes CSV and a figure."),
    )
    _common(s, all_rows_help="use every row (every trial or budget step, not one row per run)")
    s.set_defaults(handler=run_sanity)


def _alpha(text: str) -> float:
    """``--alpha``: a significance level strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"the significance level must be between 0 and 1, "
                                         f"got {text}")
    return value


class _AtBudget(argparse.Action):
    """``--at-budget B``: a finite number, kept as text in ``rows`` for the row choice.

    (An action, not a ``type``: argparse would pass the default "final" through a type.)
    """

    def __call__(self, parser, namespace, values, option_string=None):
        try:
            value = float(values)
        except ValueError:
            raise argparse.ArgumentError(self, f"not a number: {values!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentError(self, f"the budget must be a finite number, got "
                                               f"{values}")
        setattr(namespace, self.dest, values)


def _confidence(text: str) -> float:
    """``--confidence``: an interval level strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"the confidence level must be between 0 and 1, "
                                         f"got {text}")
    return value


def _common(p: argparse.ArgumentParser, *, all_rows_help: str) -> None:
    p.add_argument("--alpha", type=_alpha, default=0.05,
                   help="significance level of every test (default 0.05)")
    # One budget option across the CLI (as ``ranks --at-budget``): the default is each run's
    # final incumbent; --budget names the budget column. Both fill ``rows`` for the row choice.
    which = p.add_mutually_exclusive_group()
    which.add_argument("--at-budget", dest="rows", action=_AtBudget, default="final",
                       metavar="B", help="for HPO runs with a budget: use the incumbents at "
                                         "budget B (default: each run's final incumbent)")
    which.add_argument("--all-rows", dest="rows", action="store_const", const="all",
                       help=all_rows_help)
    p.add_argument("-o", "--out", type=Path, help="directory for CSV, JSON and figures")


def _rows_option(rows: str) -> str | float:
    """``--rows`` as "final", "all" or a budget; a clear usage error otherwise."""
    if rows in ("final", "all"):
        return rows
    try:
        value = float(rows)
    except ValueError:
        raise UsageError(f"--rows must be 'final', 'all' or a budget value, got {rows!r}."
                         ) from None
    if not math.isfinite(value):
        raise UsageError(f"--rows must be a finite budget value, got {rows!r}.")
    return value


def run_lmem(args: argparse.Namespace) -> int:
    """Handle ``benchverdict lmem``."""
    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd

    from benchverdict.lmem import fit, glrt
    from benchverdict.lmem.estimand import ESTIMAND_REML, formula_for
    from benchverdict.lmem.exclusions import exclusions_of
    from benchverdict.lmem.formula import drop_fixed, parse_formula
    from benchverdict.lmem.glrt import NestingError
    from benchverdict.lmem.model import DegenerateFitError
    from benchverdict.plotting import save_figure
    from benchverdict.verdict import verdicts_to_frame, verdicts_to_json

    rows = _rows_option(args.rows)
    results = original = load_results(args)
    # Random-search trials compare as runs too: a run's incumbent is its best trial so far
    # (as the report's LMEM vote reads them), not every draw as a replicate.
    if rows != "all" and results.has_budget:
        results = results.incumbents(None if rows == "final" else rows)
    what, left_out = results.rows_used(), exclusions_of(results)
    results, scale_note = _on_one_scale(results)
    standardised = scale_note is not None
    reml = args.reml
    if args.formula:
        formula = args.formula
    elif len(results.benchmarks) > 1:
        formula = formula_for(results.table, args.estimand)
        reml = reml or ESTIMAND_REML[args.estimand]
    else:
        formula = "score ~ algorithm + (1|seed)"
    pd.set_option("display.width", 160)
    print(f"LMEM analysis: {results!r}\nrows used: {what}; objective: {results.objective}")
    if scale_note is not None:
        print(f"note: {scale_note}")
    if not args.formula and len(results.benchmarks) > 1:
        print(f"estimand: {args.estimand} ("
              + ("a difference on benchmarks like these; the benchmark is the unit of "
                 "replication" if args.estimand == "benchmarks" else
                 "a difference on exactly these benchmarks; the run is the unit of "
                 "replication") + f"), so the model is {formula}"
              + (" fitted by REML" if reml else "") + ".")
    try:
        m1 = fit(results, formula, reml=reml, backend=args.backend,  # validates the names
                 exclusions=left_out)
    except DegenerateFitError as err:
        raise DegenerateFitError(f"{err} (choose the model with --formula)") from err
    null = args.null or str(drop_fixed(parse_formula(formula), "algorithm"))
    print("\n" + m1.summary())
    if not args.reml:
        import warnings

        m0 = fit(results, null, backend=args.backend, exclusions=left_out)
        # the GLRT compares ML fits; the contrasts below use m1 as fitted (REML by estimand)
        m1_ml = m1 if not reml else fit(results, formula, backend=args.backend,
                                        exclusions=left_out)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                test = glrt(m0, m1_ml, alpha=args.alpha)
            except NestingError as err:
                raise UsageError(f"the --null model {null!r} must be nested in the --formula "
                                 f"model {formula!r}: {err.reason}.") from err
        print("\n" + str(test))
        for w in caught:
            print(f"note: {w.message}")
    emm = m1.emmeans(df=args.df, confidence=args.confidence)
    pairs = m1.pairwise(df=args.df, by=args.by)
    print(f"\nestimated marginal means (equal weights over other factors; "
          f"{args.confidence:.0%} intervals):")
    print(emm.to_string(index=False))
    print("\npairwise contrasts (Tukey HSD):")
    print(pairs.to_string(index=False))
    letters = m1.letters(alpha=args.alpha, df=args.df)
    print("\ncompact letter display (shared letter = not significantly different by the "
          "model's Tukey tests alone):")
    print(letters.to_string())
    from benchverdict.analysis import budget_scope

    # At a budget the verdicts say so, as the report's do.
    verdicts = m1.verdicts(alpha=args.alpha, df=args.df, by=args.by,
                           scope=None if args.by else budget_scope(
                               rows if isinstance(rows, float) else None))
    verdicts, paired = _settled_across_benchmarks(verdicts, results, original, formula, args,
                                                  standardised=standardised)
    if paired is not None:
        own = ("paired t test across benchmarks" if "sd" in paired.columns else
               "Welch t test over the runs of these benchmarks, copied runs counted once")
        print(f"\npairwise contrasts (each pair's own {own}, Bonferroni):")
        print(paired.to_string(index=False))
    print("\nverdicts:")
    for v in verdicts:
        print(f"  {v}")
    if args.out is not None:
        # Staged, then moved in: never a file this command did not write (_output_dir).
        with staged_directory(Path(args.out), input_paths(args)) as out:
            write_csv(m1.table, out / "lmem_fixef.csv")
            write_csv(m1.varcomp, out / "lmem_varcomp.csv")
            write_csv(emm, out / "lmem_emmeans.csv")
            write_csv(pairs, out / "lmem_pairwise.csv")
            if paired is not None:
                name = "paired" if "sd" in paired.columns else "welch"
                write_csv(paired, out / f"lmem_pairwise_{name}.csv")
            write_csv(verdicts_to_frame(verdicts), out / "lmem_verdicts.csv")
            (out / "lmem_verdicts.json").write_text(verdicts_to_json(verdicts))
            save_figure(m1.plot(alpha=args.alpha, df=args.df).figure, out / "lmem_cd")
        print(f"\nwrote tables, verdicts and the CD diagram to {args.out}/")
    return 0


def _on_one_scale(results):
    """``(results, note)``: scores divided by each benchmark's SD where scales differ.

    As the report's LMEM does (:func:`benchverdict.lmem.runner.run_lmem`): pooled on
    the raw scale, the widest benchmarks would dominate the contrasts and the
    variance components. ``note`` says so (``None`` when the scores are left as
    they are).
    """
    from benchverdict.scales import scale_check, standardise_per_benchmark

    if len(results.benchmarks) < 2:
        return results, None
    scales = scale_check(results)
    if not scales.heterogeneous:
        return results, None
    note = (f"scores are on different scales across benchmarks ({scales.reason}): the model "
            f"fits each benchmark's scores divided by their standard deviation (not "
            f"centred), as the report's LMEM does, so differences are in standard deviations "
            f"of a benchmark's scores.")
    return standardise_per_benchmark(results, center=False), note


def _settled_across_benchmarks(verdicts: list, results, original, formula: str,
                               args: argparse.Namespace, *, standardised: bool = False):
    """The model's verdicts with the report's rule across benchmarks, and the pairs' table.

    As in the report's LMEM vote (:func:`benchverdict.lmem.runner.settle_pairs`): a
    model whose algorithm contrast generalises over benchmarks settles a pair
    only when the pair's own paired t test on its per-benchmark differences
    agrees (:mod:`benchverdict.lmem.paired`), counting benchmarks joined by
    copied runs or by ``--replicate-by`` once; one about these benchmarks only
    when the pair's Welch t test over their runs agrees, copied runs counted
    once (:mod:`benchverdict.lmem.these_gate`). Every verdict says what it
    claims and what its unit of replication is. ``None`` for the table where
    no such test applies (one benchmark, or ``--by`` a factor that varies
    within a benchmark, which is said).
    """
    from benchverdict.lmem.runner import (
        claim_and_unit,
        formula_estimand,
        settle_pairs,
        with_claim,
        with_level_claim,
        with_level_paired_tests,
    )
    from benchverdict.replicates import pair_replicates

    n_benchmarks = len(results.benchmarks)
    estimand = formula_estimand(formula) if args.formula else args.estimand
    claim, unit = claim_and_unit(estimand, n_benchmarks, formula)
    paired = None
    if args.replicate_by is not None and estimand != "benchmarks":
        print(f"\nnote: --replicate-by {args.replicate_by} is not used: the model speaks of "
              f"these benchmarks only (estimand 'these'), so its replicates are the runs; "
              f"groups of benchmarks count once in claims about benchmarks like these.")
    if n_benchmarks >= 2 and args.by != "benchmark":
        # Copies found on the data as given (the incumbents are read from it).
        copies = pair_replicates(original, args.replicate_by)
        if args.by is None:
            verdicts, paired = settle_pairs(verdicts, results, estimand=estimand,
                                            alpha=args.alpha, copies=copies)
        elif int(results.table.groupby("benchmark", observed=True)[args.by]
                 .nunique(dropna=False).max()) <= 1:
            verdicts = with_level_paired_tests(verdicts, results, args.by, alpha=args.alpha,
                                               copies=copies, estimand=estimand)
            # Each level's claim is about its own benchmarks (their replicates), as the
            # report's verdicts per level are.
            return [with_level_claim(v, estimand=estimand, standardised=standardised)
                    for v in verdicts], None
        else:
            own = ("paired test across benchmarks" if estimand == "benchmarks" else
                   "Welch test over the runs")
            print(f"\nnote: --by {args.by} varies within a benchmark, so its verdicts rest "
                  f"on the model alone: no pair's own {own} backs them (the model gives "
                  f"every algorithm the same variation).")
    if args.by == "benchmark":
        return verdicts, None
    return [with_claim(v, claim, unit, estimand=estimand, n_benchmarks=n_benchmarks,
                       standardised=standardised) for v in verdicts], paired


def run_sanity(args: argparse.Namespace) -> int:
    """Handle ``benchverdict sanity``."""
    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd

    from benchverdict.lmem.sanity import sanity_checks
    from benchverdict.plotting import save_figure

    rows = _rows_option(args.rows)
    results = load_results(args)
    pd.set_option("display.width", 160)
    print(f"Sanity checks (Geburek et al. 2024): {results!r}\n")
    # --all-rows: every row as given; otherwise the final incumbents or those at --at-budget
    data = results.table if rows == "all" else results
    budget = None if rows in ("final", "all") else rows
    report = sanity_checks(data, alpha=args.alpha, budget=budget, progress=show_progress(args))
    print(report)
    print("\nsummary:")
    print(report.table.to_string(index=False))
    if args.out is not None:
        with staged_directory(Path(args.out), input_paths(args)) as out:
            write_csv(report.table, out / "sanity_summary.csv")
            for c in report.checks:
                write_csv(c.table, out / f"sanity_{c.name}.csv")
            save_figure(report.plot().figure, out / "sanity")
        print(f"\nwrote tables and the figure to {args.out}/")
    return 0
