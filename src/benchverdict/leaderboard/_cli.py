"""``benchverdict leaderboard``: start a leaderboard from files, or add a submission.

``benchverdict leaderboard FILES... -o DIR`` starts one (the first files set
the design); ``benchverdict leaderboard --update DIR FILES...`` adds a
submission, writes a new version and prints what moved. Every board shows
Bradley-Terry ratings beside the positions (always: they cost a fraction of
the update, readers of living leaderboards expect them, and the page says
how they differ from the positions). ``benchverdict leaderboard --outcomes
GAMES`` rates a pairwise-outcome table (``x, y, winner[, weight][,
benchmark]``) with Bradley-Terry and Elo: such a table has no scores, so it
has ratings but no positions. ``--incomplete refuse|subset|impute`` chooses
what a board does with an incomplete submission (kept for every later
version); ``--missing-runs FILE`` writes the runs that would complete the
incomplete entries as CSV. ``--looks per-version|all-versions`` chooses what
the error control covers (each version alone, or every version ever
published; kept for every later version).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchverdict._cli_common import (
    EXIT_CODES_SENTENCE,
    UsageError,
    load_results,
    margin_type,
    progress_options,
    role_options,
    show_progress,
)
from benchverdict.families import leaderboard_families


def _analyses(text: str) -> list[str]:
    names = [t.strip().lower() for t in text.split(",") if t.strip()]
    known = leaderboard_families()
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown analysis {unknown or text!r}; a leaderboard runs "
            f"{','.join(known)} (or a subset).")
    return names


#: benchverdict.leaderboard.incomplete.INCOMPLETE_POLICIES, spelled here so that
#: `--help` does not import pandas (a test checks they agree).
POLICIES = ("refuse", "subset", "impute")


def _policy(text: str) -> str:
    if text not in POLICIES:
        raise argparse.ArgumentTypeError(
            f"unknown policy {text!r}; choose refuse (list an incomplete entry apart, not "
            f"compared), subset (compare every entry on the benchmarks all completed) or "
            f"impute (fill each missing run with its benchmark's worst observed score)")
    return text


#: benchverdict.leaderboard.looks.LOOKS_POLICIES, spelled here for the same reason.
LOOKS = ("per-version", "all-versions")


def _looks(text: str) -> str:
    if text not in LOOKS:
        raise argparse.ArgumentTypeError(
            f"unknown policy {text!r}; choose per-version (error control within each version) "
            f"or all-versions (error control over every version ever published)")
    return text


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be strictly between 0 and 1")
    return value


def register(subparsers, parents) -> None:
    """Add the ``leaderboard`` sub-command (it reads several files, so it has its own roles)."""
    parser = subparsers.add_parser(
        "leaderboard", parents=[role_options(many_files=True), progress_options()],
        help="start a leaderboard, or add a submission to one",
        description=(
            "Start a leaderboard from FILES (-o DIR), or add the submission in FILES to the "
            "leaderboard in DIR (--update DIR). Writes leaderboard.html (sortable), "
            "leaderboard.md, leaderboard.json (versioned schema), changes.md, site/ (an "
            "offline web site: open site/index.html for the table sortable and filterable "
            "by benchmark or metafeature, a page per entry with its results, relations and "
            "history, and the changes) and versions/vNNNN/; earlier versions are kept. "
            + EXIT_CODES_SENTENCE),
    )
    target = parser.add_mutually_exclusive_group()
    target.add_argument("-o", "--out", type=Path, default=None, metavar="DIR",
                        help="folder of the new leaderboard (must not hold one)")
    target.add_argument("--update", type=Path, default=None, metavar="DIR",
                        help="add the submission in FILES to the leaderboard in DIR")
    target.add_argument("--outcomes", type=Path, default=None, metavar="GAMES",
                        help="rate the games in GAMES (columns x, y, winner = x|y|tie or the "
                             "winner's name, optional weight and benchmark) with "
                             "Bradley-Terry and Elo, and print the ratings")
    parser.add_argument("--outcome-columns", default="x,y,winner", metavar="X,Y,WINNER[,W]",
                        help="with --outcomes: the players', winner's (and weight) columns "
                             "(default x,y,winner; a column named weight or benchmark is "
                             "used if present; --benchmark names another)")
    parser.add_argument("--arena-out", type=Path, default=None, metavar="DIR",
                        help="with --outcomes: also write arena.csv (tidy), arena.json and "
                             "arena.svg into DIR (a new or empty folder)")
    parser.add_argument("--k-factor", type=float, default=4.0, metavar="K",
                        help="with --outcomes: Elo's K factor (default 4, as Chatbot Arena)")
    parser.add_argument("--ridge", type=float, default=0.0, metavar="L",
                        help="with --outcomes: Bradley-Terry ridge (default 0, the maximum "
                             "likelihood; needed when some player never lost or never won)")
    parser.add_argument("--replace", action="store_true",
                        help="with --update: replace the rows of algorithms already on the "
                             "board (otherwise a name clash is an error)")
    parser.add_argument("--analyses", type=_analyses, default=list(leaderboard_families()),
                        metavar="LIST",
                        help=f"{','.join(leaderboard_families())} or a subset (default all)")
    parser.add_argument("--alpha", type=_probability, default=0.05,
                        help="family-wise error of settled positions (default 0.05)")
    parser.add_argument("--confidence", type=_probability, default=0.95,
                        help="level of the mean-rank intervals (default 0.95)")
    parser.add_argument("--margin", type=margin_type, default=None, metavar="M",
                        help="margin of practical equivalence (score units, or 0.2sd): pairs "
                             "shown to differ by less are 'equivalent' (kept for later "
                             "versions)")
    parser.add_argument("--incomplete", type=_policy, default=None, metavar="POLICY",
                        help="what to do with an incomplete submission: refuse (default: "
                             "list it with what it misses, not compared), subset (compare "
                             "every entry on the benchmarks and seeds all completed) or impute "
                             "(fill each missing run with the worst score observed on its "
                             "benchmark; counted and flagged). Set when the board is created "
                             "and kept by every update")
    parser.add_argument("--looks", type=_looks, default=None, metavar="POLICY",
                        help="what the error control covers: per-version (default: each "
                             "version alone; some version of a long history may show a false "
                             "relation) or all-versions (every version ever published: "
                             "version v tests at alpha/(v(v+1)) and keeps the relations "
                             "earlier versions showed). Set when the board is created and "
                             "kept by every update")
    parser.add_argument("--missing-runs", type=Path, default=None, metavar="FILE",
                        help="also write the runs (algorithm, benchmark, seed, budget) that "
                             "would complete the incomplete entries to FILE as CSV (a new "
                             "file)")
    parser.add_argument("--metric", action="append", default=[], metavar="COLUMN:DIR",
                        help="another metric to show beside the score (repeatable): a column "
                             "and its direction, e.g. accuracy:max; read at each run's "
                             "incumbent, descriptive (not tested). Set when the board is "
                             "created; every later submission must hold it")
    parser.add_argument("--cost", default=None, metavar="COLUMN",
                        help="a cost column (seconds, trials, money; cumulative along a run, "
                             "or per trial for random-search draws) shown per entry with the "
                             "Pareto front of mean rank versus mean cost per run (descriptive). "
                             "Set when the board is created")
    parser.add_argument("--sanity-checks", action="store_true",
                        help="also run the LMEM sanity checks (slow with many algorithms)")
    # A submission may hold a single algorithm.
    parser.set_defaults(handler=_cmd_leaderboard, min_algorithms=1)


def _metric_specs(args: argparse.Namespace) -> list:
    """``--metric``/``--cost`` as specs; with ``--update``, the board's own (given must match)."""
    from benchverdict.leaderboard.metrics import MetricSpec, metric_specs

    try:
        given = metric_specs(args.metric, args.cost)
    except ValueError as err:
        raise UsageError(str(err)) from err
    if args.update is None:
        return given
    from benchverdict.leaderboard.store import _read_manifest

    manifest = _read_manifest(args.update)
    fixed = [MetricSpec.from_dict(m) for m in manifest.get("metrics") or []]
    if given and given != fixed:
        shown = ", ".join(f"{m.name} ({m.role}, {m.objective})" for m in fixed) or "none"
        raise UsageError(
            f"--metric/--cost: this leaderboard shows {shown} beside the score, set when it "
            f"was created. Fix: drop --metric and --cost (the board keeps its own), or start a "
            f"new leaderboard.")
    return fixed


def _read_all(args: argparse.Namespace):
    from benchverdict.leaderboard.store import combine_results

    if getattr(args, "example", False):
        if args.files:
            raise UsageError("--example reads the built-in data; it cannot be combined with "
                             "FILE. Fix: drop one of them.")
        return load_results(argparse.Namespace(**{**vars(args), "file": None}))
    if not args.files:
        raise UsageError("give one or more results FILEs (or --example).")
    if getattr(args, "engine", "pandas") != "pandas":
        raise UsageError("a leaderboard reads its submissions in memory (its data are final "
                         "scores, small by nature). Fix: drop --engine, or reduce a large run "
                         "to its final incumbents first.")
    parts = [load_results(argparse.Namespace(**{**vars(args), "file": f})) for f in args.files]
    return combine_results(parts, [str(f) for f in args.files])


def _cmd_outcomes(args: argparse.Namespace) -> int:
    """``--outcomes GAMES``: Bradley-Terry and Elo ratings of a pairwise-outcome table."""
    from benchverdict.io.pairwise_outcomes import read_pairwise_outcomes
    from benchverdict.leaderboard.arena import arena_from_outcomes

    if args.files:
        raise UsageError("--outcomes reads one table of games; results FILEs cannot be "
                         "added to it. Fix: drop the FILEs, or build a board with -o DIR.")
    names = [c.strip() for c in args.outcome_columns.split(",")]
    if len(names) not in (3, 4) or not all(names):
        raise UsageError(f"--outcome-columns {args.outcome_columns!r}: give X,Y,WINNER or "
                         f"X,Y,WINNER,WEIGHT (column names).")
    out = args.arena_out
    if out is not None and out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"--arena-out {str(out)!r} exists and is not an empty folder. Fix: "
                         f"choose a new folder.")
    table = read_pairwise_outcomes(args.outcomes, x=names[0], y=names[1], winner=names[2],
                                   weight=names[3] if len(names) == 4 else None,
                                   benchmark=getattr(args, "benchmark", None))
    arena = arena_from_outcomes(table, k_factor=args.k_factor, ridge=args.ridge)
    print(arena.summary())
    if out is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out.mkdir(parents=True, exist_ok=True)
        from benchverdict._safe_output import write_csv

        write_csv(arena.to_frame(), out / "arena.csv")  # no cell can run as a formula
        (out / "arena.json").write_text(json.dumps(arena.to_dict(), indent=2,
                                                   ensure_ascii=False) + "\n")
        ax = arena.plot()
        ax.figure.savefig(out / "arena.svg", format="svg", bbox_inches="tight")
        plt.close(ax.figure)
        print(f"\nWrote {out}/arena.csv, arena.json and arena.svg.")
    return 0


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    from benchverdict._validation import ValidationError
    from benchverdict.leaderboard.store import create_leaderboard, update_leaderboard

    if args.outcomes is not None:
        return _cmd_outcomes(args)
    if args.arena_out is not None:
        raise UsageError("--arena-out only applies with --outcomes GAMES (a board writes its "
                         "ratings into its own pages).")
    if args.out is None and args.update is None:
        raise UsageError("say where the leaderboard lives: -o DIR to start one, "
                         "--update DIR to add a submission, or --outcomes GAMES to rate "
                         "a table of games.")
    if args.replace and args.update is None:
        raise UsageError("--replace only applies with --update DIR.")
    listing = args.missing_runs
    if listing is not None and (listing.exists() or listing.is_symlink()):
        raise UsageError(f"--missing-runs {str(listing)!r} exists; it is never overwritten. "
                         f"Fix: choose a new file, or remove it.")
    if args.out is not None:
        from benchverdict.leaderboard.store import _check_new_folder

        # Before reading anything: a folder that holds other files (an input among them,
        # with `-o .`) is refused, never written into.
        try:
            _check_new_folder(args.out)
        except FileExistsError as err:  # holds a leaderboard: say so, not "is a file"
            raise UsageError(str(err)) from err
        out = args.out.resolve()
        for given in args.files:
            folder = Path(given).resolve()
            if folder.is_dir() and (out == folder or folder in out.parents):
                raise UsageError(
                    f"-o {str(args.out)!r} is inside the input folder {str(given)!r}: the "
                    f"leaderboard's files would become part of that input. Fix: choose a "
                    f"folder outside it.")
    specs = _metric_specs(args)
    # The metric and cost columns are read beside the score (an update takes the board's own):
    # named columns of a file, or an adapter's own (optuna's trial times as "seconds").
    if getattr(args, "adapter", None):
        if args.adapter == "optuna" and any(m.name == "seconds" for m in specs):
            args = argparse.Namespace(**{**vars(args), "seconds": True})
    else:
        names = [m.name for m in specs] + [m for m in args.metafeature
                                           if m not in {s.name for s in specs}]
        args = argparse.Namespace(**{**vars(args), "metafeature": names})
    try:
        results = _read_all(args)
    except ValidationError as err:
        print(f"INVALID: {len(err.problems)} problem(s):", file=sys.stderr)
        for p in err.problems:
            print(f"  - {p.message}", file=sys.stderr)
        return 1
    progress = show_progress(args)
    sources = [str(f) for f in args.files] or ["built-in example"]
    if args.update is not None:
        board, changes = update_leaderboard(args.update, results, replace=args.replace,
                                            progress=progress, sources=sources,
                                            incomplete=args.incomplete, looks=args.looks)
        folder = args.update
    else:
        board = create_leaderboard(args.out, results, analyses=args.analyses,
                                   alpha=args.alpha, confidence=args.confidence,
                                   sanity_checks=args.sanity_checks, progress=progress,
                                   sources=sources, margin=args.margin,
                                   incomplete=args.incomplete or "refuse",
                                   looks=args.looks or "per-version", metrics=specs)
        changes = []
        folder = args.out
    print(board.summary())
    if changes:
        print(f"\nChanges in version {board.version}:")
        for change in changes:
            print(f"  - {change.text}")
    print(f"\nWrote {folder}/leaderboard.html, leaderboard.md, leaderboard.json, changes.md, "
          f"site/ (open site/index.html) and versions/v{board.version:04d}/.")
    if listing is not None:
        from benchverdict._safe_output import write_csv

        write_csv(board.missing_runs, listing)  # no cell can run as a formula
        print(f"Wrote {len(board.missing_runs)} missing run(s) to {listing}.")
    return 0
