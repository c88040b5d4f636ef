"""``benchverdict table``: the results table a paper prints, decided by the report's relations.

Reads the data as ``benchverdict report`` does (FILE or ``--example`` and the
role options), runs the comparison and prints the table (LaTeX, Markdown,
HTML or CSV) to stdout or writes it to ``-o FILE``. Exit codes: 0 when
every analysis that ran succeeded; 1 when an analysis raised or the data are
invalid; 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchverdict._cli_common import progress_options, show_progress
from benchverdict.report._cli import _analyses, _budget, _probability

#: Output formats, and the file suffixes that select them when --table-format is not given.
FORMATS = ("latex", "markdown", "html", "csv")
_SUFFIXES = {".tex": "latex", ".md": "markdown", ".markdown": "markdown", ".html": "html",
             ".htm": "html", ".csv": "csv"}


def register(subparsers, parents) -> None:
    """Add the ``table`` sub-command."""
    parser = subparsers.add_parser(
        "table",
        parents=[*parents, progress_options()],
        help="the results table a paper prints (best in bold by the report's relations)",
        description=(
            "Run the comparison (as 'benchverdict report' does) and print the results table a "
            "paper prints: algorithms x benchmarks, a cell statistic at a budget, the best per "
            "benchmark in bold (ties bold together), a dagger where an algorithm is worse than "
            "every bold one, or +/- against a --baseline, compact letters on request, and an "
            "average-rank row. Every bold cell and marker is read from the report's "
            "per-benchmark relations (Holm family-wise error), never from a test of its own. "
            "Exit code 0: all analyses ran; 1: an analysis failed or the data are invalid; "
            "2: usage error."
        ),
    )
    parser.add_argument("--statistic", choices=("mean_sd", "median_iqr", "mean_ci"),
                        default="mean_sd",
                        help="cell statistic over the runs (seeds): mean +- SD (default), "
                             "median [quartiles] or mean [t confidence interval]")
    parser.add_argument("--at-budget", dest="at_budget", type=_budget, default=None,
                        metavar="B",
                        help="compare incumbents at this budget, in the budget column's units "
                             "(default: each run's final). The role option --budget names the "
                             "budget COLUMN.")
    parser.add_argument("--baseline", default=None, metavar="NAME",
                        help="mark every cell + / - where the algorithm is settled better / "
                             "worse than this algorithm (instead of the dagger)")
    parser.add_argument("--letters", action="store_true",
                        help="add compact letters (algorithms sharing a letter are not "
                             "separated on that benchmark)")
    parser.add_argument("--transpose", action="store_true",
                        help="one row per algorithm (default: one row per benchmark)")
    parser.add_argument("--table-format", dest="table_format", choices=FORMATS, default=None,
                        help="output format (default: from the -o suffix .tex/.md/.html/.csv, "
                             "else markdown). The role option --format is the INPUT's format")
    parser.add_argument("-o", "--output", dest="output", type=Path, default=None,
                        metavar="FILE", help="write the table to FILE (default: stdout)")
    parser.add_argument("--standalone", action="store_true",
                        help="LaTeX: a complete document (default: a table float to \\input, "
                             "needs booktabs)")
    parser.add_argument("--caption", default=None, help="LaTeX: the table's caption")
    parser.add_argument("--confidence", type=_probability, default=0.95,
                        help="level of the mean_ci intervals (default 0.95)")
    parser.add_argument("--analyses", type=_analyses, default=None, metavar="LIST",
                        help="comma-separated analyses whose relations decide (default: every "
                             "analysis that applies, as the report)")
    parser.add_argument("--alpha", type=_probability, default=0.05,
                        help="family-wise error rate of the relations (default 0.05)")
    parser.set_defaults(handler=_cmd_table)


def _format_of(args: argparse.Namespace) -> str:
    if args.table_format is not None:
        return args.table_format
    if args.output is not None:
        return _SUFFIXES.get(args.output.suffix.lower(), "markdown")
    return "markdown"


#: How the first line of each format's table, as ``table`` writes it, begins.
_TABLE_STARTS = {
    "latex": ("% benchverdict results table",),
    "html": ('<table class="bv-results-table"',),
    "markdown": ("| Benchmark |", "| Algorithm |"),
}
#: Columns every CSV results table has (its header names them all).
_TABLE_CSV_COLUMNS = frozenset({"statistic", "centre", "lower", "upper", "text", "bold"})


def table_output_problem(out: Path, fmt: str, inputs: list[Path]) -> str | None:
    """Why ``table -o out`` must not write ``out``, or ``None`` when it may.

    The command never writes into its input, through a symbolic link, or
    over a file it did not write: an existing ``out`` may be replaced only
    when it is empty or holds a results table of the same format (a re-run).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> table_output_problem(folder / "t.tex", "latex", []) is None
    True
    >>> _ = (folder / "thesis.tex").write_text("\\documentclass{book}")
    >>> print(table_output_problem(folder / "thesis.tex", "latex", []))  # doctest: +ELLIPSIS
    -o .../thesis.tex exists and is not a results table benchverdict wrote; ...
    """
    import os
    import stat

    shown = str(out)
    if _is_stream(out):
        return None  # /dev/stdout, /dev/null, a pipe: written as a stream, nothing replaced
    if not out.parent.is_dir():
        return (f"-o {shown}: the folder {str(out.parent)!r} does not exist. Fix: create it "
                f"first, or give a file in an existing folder.")
    if out.is_symlink():
        return (f"-o {shown} is a symbolic link; the table would replace what it points to. "
                f"Fix: give the file itself, or a new file name.")
    if out.is_dir():
        return f"-o {shown!r} is a folder; give a file name."
    for given in inputs:
        source = Path(given)
        if not source.exists():
            continue
        if out.exists() and os.path.samefile(out, source):
            return (f"-o {shown} is the input file {given} (or a link to it); the table "
                    f"would replace the data. Fix: give another -o.")
        if source.is_dir() and source.resolve() in out.resolve().parents:
            return (f"-o {shown} lies inside the input folder {given}; the table is never "
                    f"written into its input. Fix: give a file outside it.")
    if not out.exists():
        return None
    if not stat.S_ISREG(out.stat().st_mode):
        return f"-o {shown} exists and is not a regular file; give a new file name."
    try:
        with out.open("rb") as f:
            head = f.read(4096)
    except OSError as err:
        return f"-o {shown} cannot be read ({err.strerror}); give a new file name."
    if not head:
        return None  # an empty file (made by touch or mktemp): nothing to lose
    first = head.decode("utf-8", errors="replace").lstrip("\ufeff").splitlines()[0]
    if fmt == "csv":
        ours = _TABLE_CSV_COLUMNS <= set(first.split(","))
    else:
        ours = first.startswith(_TABLE_STARTS[fmt])
    if ours:
        return None
    return (f"-o {shown} exists and is not a results table benchverdict wrote; the table "
            f"would replace it. Fix: give a new file name, or move that file away first.")


def _is_stream(out: Path) -> bool:
    """Whether ``out`` is a character device or a pipe, not a file.

    Links are followed only under ``/dev`` (``/dev/stdout``, ``/dev/fd/1``): a link
    elsewhere is refused as a link, whatever it points to.
    """
    import os
    import stat

    if out.is_symlink() and not str(out).startswith("/dev/"):
        return False
    try:
        mode = os.stat(out).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def write_table_file(out: Path, data: bytes) -> None:
    """Write ``data`` to ``out``: a stream as it is, a file replaced whole by a rename.

    A replaced file keeps its permission bits; a hard link to the old file
    keeps the old content (see :func:`table_output_problem` for what is
    refused before).
    """
    import os
    import stat

    from benchverdict._safe_output import replace_atomic

    if _is_stream(out):
        with open(out, "wb") as f:
            f.write(data)
        return
    # The old file's permission bits (os.fchmod, which sets them, is POSIX-only before 3.13).
    mode = (stat.S_IMODE(out.stat().st_mode) if out.exists() and hasattr(os, "fchmod")
            else None)
    # Not fsynced: a paper table is re-made by re-running the command (and fsyncing a
    # folder fails on Windows).
    replace_atomic(out, data, mode=mode, durable=False)


def _cmd_table(args: argparse.Namespace) -> int:
    from benchverdict._cli_common import UsageError, input_paths, load_results
    from benchverdict._validation import ValidationError
    from benchverdict.paper.table import results_table
    from benchverdict.report.runner import compare

    fmt = _format_of(args)
    if args.standalone and fmt != "latex":
        raise UsageError(f"--standalone is for LaTeX output, not {fmt}.")
    if args.output is not None:
        problem = table_output_problem(args.output, fmt, input_paths(args))
        if problem:
            raise UsageError(problem)
    try:
        results = load_results(args)
    except ValidationError as err:
        print(f"INVALID: {len(err.problems)} problem(s):", file=sys.stderr)
        for p in err.problems:
            print(f"  - {p.message}", file=sys.stderr)
        return 1
    if args.baseline is not None and args.baseline not in results.algorithms:
        raise UsageError(f"--baseline {args.baseline!r} is not an algorithm of the data; "
                         f"choose one of {', '.join(results.algorithms)}.")
    progress = show_progress(args)
    comparison = compare(results, analyses=args.analyses, alpha=args.alpha,
                         budget=args.at_budget, progress=progress, figures=False)
    table = results_table(results, comparison, statistic=args.statistic,
                          budget=args.at_budget,
                          orientation="algorithms" if args.transpose else "benchmarks",
                          baseline=args.baseline, letters=args.letters,
                          confidence=args.confidence)
    if fmt == "csv":  # through write_csv (formula-like names neutralised)
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            data = table.to_csv(Path(folder) / "table.csv").read_bytes()
    else:
        data = {"latex": lambda: table.to_latex(standalone=args.standalone,
                                                caption=args.caption),
                "markdown": table.to_markdown, "html": table.to_html}[fmt]().encode("utf-8")
    if args.output is not None:
        # Checked again (the file may have appeared meanwhile), then replaced by a rename:
        # a hard link to the old file keeps its content, a link planted there is not followed.
        problem = table_output_problem(args.output, fmt, input_paths(args))
        if problem:
            raise UsageError(problem)
        write_table_file(args.output, data)
    else:
        sys.stdout.write(data.decode("utf-8"))
    if args.output is not None:
        print(f"Wrote {args.output} ({fmt}).", file=sys.stderr)
    for run in comparison.errors:
        print(f"error: analysis {run.name} {run.status}: {run.reason}", file=sys.stderr)
    return 1 if comparison.errors else 0
