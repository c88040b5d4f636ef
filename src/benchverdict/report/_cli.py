"""``benchverdict report``: run every analysis that applies and write the comparison report.

Exit codes: 0 when every analysis that ran succeeded; 1 when an analysis
raised (or one asked for by name is unavailable), or the data are invalid;
2 for a usage error (including ``-o`` naming a file, or a directory that
holds other files); 130 when interrupted (Ctrl-C).

The output directory is written all at once (:mod:`benchverdict._output_dir`):
the files are built in a directory beside it and moved in when complete, so
an interrupted run leaves the previous report intact and a re-run leaves no
stale files. Only files the report wrote (listed with their digests in its
manifest) are ever replaced; other files in the directory are left as they are.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from benchverdict._cli_common import (
    input_paths,
    load_results,
    margin_type,
    progress_options,
    show_progress,
)
from benchverdict.families import family_names


def _analyses(text: str) -> list[str]:
    names = [t.strip().lower() for t in text.split(",") if t.strip()]
    known = family_names()
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown analysis {unknown or text!r}; choose from {','.join(known)}."
        )
    return names


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from err
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, got {value:g}")
    return value


def _levels(text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(t) for t in text.split(",") if t.strip())
    except ValueError as err:
        raise argparse.ArgumentTypeError(
            f"not a comma-separated list of numbers: {text!r}") from err
    if not values or not all(0 <= v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"CVaR levels must lie in [0, 1), got {text!r}")
    return values


def _budget(text: str) -> float:
    try:
        value = float(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from err
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def register(subparsers, parents) -> None:
    """Add the ``report`` sub-command."""
    parser = subparsers.add_parser(
        "report",
        parents=[*parents, progress_options()],
        help="run every analysis that applies and reconcile their verdicts",
        description=(
            "Run the tuning-curve, DSE, rank and LMEM analyses that apply to the data, "
            "reconcile their verdicts (agreement, explained disagreements, consensus ranking) "
            "and write report.html, report.md, report.json and a LaTeX folder. Exit code 0: "
            "all analyses ran; 1: an analysis failed or the data are invalid; 2: usage error."
        ),
    )
    parser.add_argument("--analyses", type=_analyses, default=None, metavar="LIST",
                        help=f"comma-separated subset of {','.join(family_names())} "
                             f"(default: every analysis that applies)")
    parser.add_argument("--confidence", type=_probability, default=0.8,
                        help="level of the descriptive bands and intervals: tuning-curve "
                             "bands and DSE intervals (default 0.8, the tuning-curve "
                             "literature's level, Lourie et al. 2024; the single-module "
                             "commands default to 0.95). Decisions and effect intervals "
                             "use --alpha")
    parser.add_argument("--alpha", type=_probability, default=0.05,
                        help="significance level of tests (default 0.05)")
    parser.add_argument("--at-budget", dest="at_budget", type=_budget, default=None,
                        metavar="B",
                        help="compare incumbents at this budget, in the budget column's units "
                             "(default: each run's final). The role option --budget names the "
                             "budget COLUMN.")
    parser.add_argument("--formula", default=None,
                        help="LMEM formula over role names, e.g. "
                             "'score ~ algorithm + (1|benchmark)'")
    parser.add_argument("--estimand", choices=("benchmarks", "these"), default="benchmarks",
                        help="what a claim across benchmarks is about: 'benchmarks' (default) "
                             "generalises to benchmarks like these, 'these' covers exactly the "
                             "observed benchmarks and says so")
    parser.add_argument("--replicate-by", dest="replicate_by", default=None, metavar="COLUMN",
                        help="a benchmark metafeature whose levels are the independent units "
                             "across benchmarks, e.g. 'task' when each task runs under several "
                             "variants (PriorBand's priors): the tests that settle pairs "
                             "across benchmarks count each level once. Runs copied between "
                             "benchmarks count once either way")
    parser.add_argument("--margin", type=margin_type, default=None, metavar="M",
                        help="margin of practical equivalence: a pair no family separates "
                             "whose difference is shown to lie within +-M is 'equivalent' "
                             "(two one-sided tests, family-wise with the other claims). M in "
                             "score units (0.01) or in run-to-run SDs of a benchmark (0.2sd: a "
                             "fifth of the seeds' spread, Cohen's d). No default: "
                             "what difference is negligible is your call")
    parser.add_argument("--draws", choices=("auto", "iid", "clustered"), default="auto",
                        help="whether random-search draws of one run (seed) are independent: "
                             "'auto' (default) lets the data decide (IID only where each run "
                             "holds one draw), 'iid' states it, 'clustered' denies it")
    parser.add_argument("--cvar-levels", type=_levels, default=(0.5, 0.95), metavar="A,B",
                        help="CVaR levels of the DSE comparison (default 0.5,0.95; CVaR_a is "
                             "the mean of the best 1-a of draws)")
    parser.add_argument("-o", "--out", type=Path, default=Path("benchverdict-report"),
                        help="output directory (default ./benchverdict-report): new, empty or "
                             "an earlier report's. A re-run replaces only the files the "
                             "earlier report wrote; other files there are left untouched")
    parser.add_argument("--json", action="store_true",
                        help="print the JSON document to stdout (files are still written)")
    parser.set_defaults(handler=_cmd_report)


def _cmd_report(args: argparse.Namespace) -> int:
    from benchverdict._output_dir import OutputError, check_target

    out: Path = args.out
    try:
        # Before the analyses: a bad -o fails in a second, not after them.
        check_target(out, input_paths(args))
    except OutputError as err:
        print(f"benchverdict report: -o {out}: {err}", file=sys.stderr)
        return 2
    try:
        return _report(args, out)
    except OutputError as err:  # the folder changed while the analyses ran
        print(f"benchverdict report: -o {out}: {err} Nothing was written.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"benchverdict report: interrupted; {out} was left as it was.", file=sys.stderr)
        return 130


def _report(args: argparse.Namespace, out: Path) -> int:
    from benchverdict._validation import ValidationError
    from benchverdict.report.runner import compare

    try:
        results = load_results(args)
    except ValidationError as err:
        print(f"INVALID: {len(err.problems)} problem(s):", file=sys.stderr)
        for p in err.problems:
            print(f"  - {p.message}", file=sys.stderr)
        return 1
    progress = show_progress(args)
    comparison = compare(
        results,
        analyses=args.analyses,
        confidence=args.confidence,
        alpha=args.alpha,
        budget=args.at_budget,
        formula=args.formula,
        progress=progress,
        cvar_levels=args.cvar_levels,
        estimand=args.estimand,
        margin=args.margin,
        draws=args.draws,
        replicate_by=args.replicate_by,
    )
    json_path = write_report(comparison, out, progress=progress, inputs=input_paths(args))
    if args.json:
        # What print(text) wrote, a megabyte at a time (the file can be 600 MB).
        with json_path.open(encoding="utf-8") as f:
            for chunk in iter(lambda: f.read(1 << 20), ""):
                sys.stdout.write(chunk)
        sys.stdout.write("\n")
    else:
        _print_summary(comparison, out)
    _print_warnings(comparison.warnings)
    errors = comparison.errors
    for run in errors:
        print(f"error: analysis {run.name} {run.status}: {run.reason}", file=sys.stderr)
    return 1 if errors else 0


#: The files of a report directory, in the order they are written, and what each holds.
REPORT_FILES = {
    "report.html": "the report as one self-contained page: summary first (headline sentences, "
                   "pairwise matrix, partial-ranking diagram), details collapsed; figures "
                   "inline SVG; no scripts, works offline",
    "report.md": "the summary, the results table and the sections a paper cites "
                 "(contradictions, power gaps, analyses, data), about 280 lines for the "
                 "example; links the files below",
    "report_figures/": "every figure as SVG (embedded by report.md)",
    "report_tables/": "the full tables as CSV: relations.csv (every pair in every scope: "
                      "status, winner, families, adjusted p, reason), power_gaps.csv, "
                      "contradictions.csv, method_disagreements.csv and each analysis's tables "
                      "(<analysis>-<table>.csv)",
    "results_table.tex": "the results table a paper prints (algorithms x benchmarks, mean +- SD, "
                         "the best per benchmark in bold by the relations, a dagger where "
                         "worse than every bold one, average ranks) as a booktabs table float "
                         "to \\input (needs booktabs); benchverdict table has its options",
    "results_table.csv": "the results table's every cell, one row per benchmark and algorithm "
                         "(statistic, interval, rank, bold, markers)",
    "methods.md": "the methods and results paragraphs a paper quotes (Pandoc citations, "
                  "and the same text with \\citep keys for LaTeX)",
    "references.bib": "the BibTeX of exactly the works the methods paragraph cites",
    "report.json": "the whole report as versioned JSON (schema benchverdict.report) for "
                   "leaderboards and scripts",
    "latex/": "report.tex (standalone: summary, matrix, diagrams, contradictions, power gaps, "
              "analyses, data), tables/*.tex (booktabs, one table each) and figures/*.pdf",
    "verdicts.csv": "every verdict of every method, one row each",
    "agreement.csv": "per pair and scope: each method's outcome, agreement, consensus",
    "conflicts.csv": "every disagreement between two methods, with its explanation",
    "exclusions.csv": "every row, run, seed or cell validation or an analysis left out, and why",
    ".benchverdict-report": "the manifest: every file above with its SHA-256 (a re-run replaces "
                            "only these, and only when unchanged)",
}


def write_report(comparison, out: Path, *, progress: bool = False,
                 inputs: list[Path] | tuple[Path, ...] = ()) -> Path:
    """Write every report file into ``out`` at once (see the module docstring).

    ``inputs`` are the files the report was computed from: a report that
    would replace one of them is refused.

    Returns the path of ``report.json`` (its text can be 600 MB: it is
    streamed to disk, never held).
    """
    from tqdm.auto import tqdm

    from benchverdict._gc import fewer_collections
    from benchverdict._output_dir import staged_directory
    from benchverdict._safe_output import CSV_CHUNK_ROWS, write_csv, write_csv_parts
    from benchverdict._threads import one_blas_thread
    from benchverdict.report.json_format import write_json
    from benchverdict.verdict import verdict_frames

    def csv(frame, path: Path) -> None:
        # Formula-like names neutralised, lone surrogates escaped (see write_csv).
        write_csv(frame, path)

    def results_table_files(stage: Path) -> None:
        section = comparison.document().results_table.get()
        if section is not None and section.frame is not None:  # else no table to write
            (stage / "results_table.tex").write_text(section.latex, encoding="utf-8")
            csv(section.frame, stage / "results_table.csv")

    def steps(stage: Path) -> list:
        return [
            ("report.html", lambda: comparison.to_html(stage / "report.html")),
            # Also writes report_figures/ and report_tables/.
            ("report.md", lambda: comparison.to_markdown(stage / "report.md")),
            # Streamed to disk (600 MB for 200 algorithms): never the whole text in memory.
            ("report.json", lambda: write_json(comparison.document(), stage / "report.json")),
            ("latex/", lambda: comparison.to_latex(stage / "latex")),
            ("results_table.tex", lambda: results_table_files(stage)),
            # comparison.verdict_table in parts: never the text of every verdict at once.
            ("verdicts.csv", lambda: write_csv_parts(
                verdict_frames(comparison.reconciliation.verdicts, CSV_CHUNK_ROWS),
                stage / "verdicts.csv")),
            ("agreement.csv", lambda: csv(comparison.agreement, stage / "agreement.csv")),
            ("conflicts.csv", lambda: csv(comparison.conflicts, stage / "conflicts.csv")),
            ("exclusions.csv", lambda: csv(comparison.exclusions, stage / "exclusions.csv")),
        ]

    # Writing walks the report's millions of long-lived objects: full garbage collections
    # in between freed nothing (see fewer_collections). What it computes on the way (lazy
    # tables, figures) is small linear algebra, on one BLAS thread as compare's (_threads).
    with staged_directory(out, inputs) as stage, fewer_collections(), \
            one_blas_thread(refresh=True):
        todo = steps(stage)
        with tqdm(total=len(todo), desc="writing the report", unit="file", leave=False,
                  disable=not progress, file=sys.stderr) as bar:
            for name, write in todo:
                bar.set_postfix_str(name)
                write()
                bar.update()
    return out / "report.json"


#: At most this many warnings are printed; the report lists them all.
MAX_PRINTED_WARNINGS = 5


def _print_warnings(warnings: list[str]) -> None:
    for w in warnings[:MAX_PRINTED_WARNINGS]:
        print(f"warning: {w}", file=sys.stderr)
    if len(warnings) > MAX_PRINTED_WARNINGS:
        print(f"warning: ... and {len(warnings) - MAX_PRINTED_WARNINGS} more (all of them are "
              f"in the report's Warnings section and in report.json).", file=sys.stderr)


def _print_summary(comparison, out: Path) -> None:
    print(comparison.summary())
    print(f"\nWrote {out / 'report.html'} (open it in a browser), report.md, report.json, "
          f"CSV tables and {out / 'latex'}/.")


