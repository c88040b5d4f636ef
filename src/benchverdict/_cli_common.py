"""Command-line parts every sub-command shares: the input options, loading, usage errors.

The module sub-commands (``tuning/_cli.py``, ``ranks/_cli.py``, ...) and the
top-level :mod:`benchverdict.cli` import from here; this module imports
none of them, so the command line is layered: shared parsing below, the
module sub-commands above it, ``cli.py`` on top.
"""

from __future__ import annotations

import argparse
from pathlib import Path

#: The adapters ``--adapter`` accepts (``benchverdict.io.adapters.ADAPTERS`` plus those
#: needing ``--objective``); listed here so the parser can check them without importing pandas.
ADAPTER_NAMES = ("deberta", "meanmax", "priorband", "hpob", "autorank-wide", "optuna",
                 "rliable", "amlb", "smac", "syne-tune", "ray-tune", "neps")

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 1, 2, 130, 141

EXIT_CODES_HELP = """exit codes:
  0    success (valid data; every analysis ran)
  1    invalid or unreadable data, or an analysis failed
  2    usage error (unknown option or adapter, missing role option, no such FILE,
       -o names a file)
  130  interrupted (Ctrl-C)
  141  output pipe closed by the reader (e.g. | head); output stops quietly"""
EXIT_CODES_SENTENCE = (
    "Exit codes: 0 success; 1 invalid or unreadable data, or an analysis failed; 2 usage "
    "error (unknown option or adapter, missing role option, no such FILE, -o names a file); "
    "130 interrupted; 141 output pipe closed by the reader (| head)."
)

def role_options(*, many_files: bool = False) -> argparse.ArgumentParser:
    """The input every sub-command shares: FILE or ``--example``, and the role options.

    The role options map a file's columns onto roles (they mirror
    ``Results.from_frame``). Module sub-commands get this parser as a parent,
    so they read their input the same way. With ``many_files`` the
    positional argument is ``files`` (any number, each read the same way).
    """
    parser = argparse.ArgumentParser(add_help=False)
    if many_files:
        parser.add_argument("files", nargs="*", type=input_path, metavar="FILE",
                            help="CSV, TSV, Parquet or JSON Lines files (or adapter inputs)")
    else:
        parser.add_argument("file", nargs="?", type=input_path,
                            help="CSV, TSV, Parquet or JSON Lines")
    # Also accepted after the sub-command; SUPPRESS keeps a top-level --debug from being
    # reset to False by the sub-command's default.
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show tracebacks on errors")
    parser.add_argument(
        "--example", action="store_true",
        help="use the built-in example (random-search trials after Jordan et al. 2018)",
    )
    group = parser.add_argument_group("role options (see Results.from_frame)")
    group.add_argument("--algorithm", help="column naming the algorithm")
    group.add_argument("--seed", help="column naming the seed / replicate")
    group.add_argument("--score", help="column holding the score")
    group.add_argument(
        "--objective", choices=["maximize", "minimize"], help="whether larger scores are better"
    )
    group.add_argument("--benchmark", help="column naming the benchmark (default: one benchmark)")
    group.add_argument("--budget", help="column holding the budget / trial number")
    group.add_argument(
        "--metafeature", action="append", default=[], metavar="COLUMN",
        help="a metafeature column to keep (repeatable)",
    )
    group.add_argument(
        "--on-invalid", choices=["raise", "drop"], default="raise",
        help="raise on invalid rows (default) or drop and record them",
    )
    group.add_argument(
        "--kind", choices=["trials", "runs"],
        help="trials: each row is one random-search draw; runs: each row is a run's result "
             "(its final score, or its incumbent at a budget). Required without --budget (the "
             "data cannot tell); with --budget it overrides the inferred kind",
    )
    group.add_argument(
        "--format", choices=["csv", "tsv", "parquet", "jsonl"], help="override the file suffix"
    )
    group.add_argument(
        "--engine", choices=["pandas", "dask"], default="pandas",
        help="pandas: rows in memory (default); dask: FILE is Parquet (a file, a directory "
             "of parts or a glob) and rows stay in Dask partitions (benchverdict[dask])",
    )
    group.add_argument(
        "--scheduler", metavar="ADDRESS", default=None,
        help="with --engine dask: the dask.distributed scheduler to run on (e.g. "
             "tcp://host:8786; default: Dask's local threads)",
    )
    group.add_argument(
        "--adapter", choices=ADAPTER_NAMES, metavar="NAME",
        help="read a published format instead of mapping roles by hand: "
        f"{', '.join(ADAPTER_NAMES)} (see benchverdict.io.adapters; autorank-wide and "
        "rliable also need --objective; amlb takes a metric column as --score)",
    )
    group.add_argument(
        "--name-pattern", metavar="REGEX",
        help="with an HPO-tool adapter (optuna, smac, ...): a regular expression matching each "
        "run's name (study name, run folder), whose groups (?P<algorithm>...), "
        "(?P<benchmark>...), (?P<seed>...) give those roles",
    )
    group.add_argument(
        "--trust-pickle", action="store_true",
        help="with --adapter ray-tune: unpickle tuner.pkl for the mode and search algorithm "
        "(without it, give --objective and name the algorithm with --name-pattern); with "
        "--adapter neps (required): NePS keeps its trials as pickles. Unpickling runs whatever "
        "code the file's author put in it: only for folders you trust",
    )
    group.add_argument(
        "--seconds", action="store_true",
        help="with --adapter optuna: keep each trial's wall-clock time as the column seconds "
        "(cumulative along a study), e.g. as a leaderboard's cost column",
    )
    return parser


def progress_options() -> argparse.ArgumentParser:
    """``--progress`` / ``--no-progress``, shared by every sub-command that can show bars.

    Progress bars go to stderr, and by default only when stderr is a terminal
    (:func:`show_progress`): a log file or a CI job gets no bar text.

    Examples
    --------
    >>> args = progress_options().parse_args(["--no-progress"])
    >>> show_progress(args)
    False
    """
    parser = argparse.ArgumentParser(add_help=False)
    shown = parser.add_argument_group("progress").add_mutually_exclusive_group()
    shown.add_argument("--progress", action="store_true",
                       help="show progress bars on stderr (default: only when stderr is a "
                            "terminal)")
    shown.add_argument("--no-progress", action="store_true", help="never show progress bars")
    return parser


def show_progress(args: argparse.Namespace) -> bool:
    """Whether to show progress bars: ``--progress``, else only on a terminal's stderr.

    ``--no-progress`` always wins; without either flag, bars are shown when
    stderr is a terminal (never in a log file, a pipe or CI).

    Examples
    --------
    >>> show_progress(argparse.Namespace(progress=True, no_progress=False))
    True
    """
    if getattr(args, "no_progress", False):
        return False
    if getattr(args, "progress", False):
        return True
    return stderr_is_terminal()


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal: where progress bars go by default (never a log file).

    Examples
    --------
    >>> isinstance(stderr_is_terminal(), bool)
    True
    """
    import sys

    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty is not None and isatty())


def load_results(args: argparse.Namespace):
    """Build a :class:`~benchverdict.Results` from a parsed command line.

    ``args.file`` is the path; ``args.example`` (if set) loads the built-in
    example instead. A :class:`ValidationError` raised here has its fixes
    written as command-line options (``--on-invalid drop``), so a sub-command
    can print ``problem.message`` as it is.
    """
    # Imported here, not at the top: building the parser (``--help``) must not load pandas.
    from benchverdict._validation import ValidationError

    try:
        return _load_results(args)
    except ValidationError as err:
        raise err.for_cli() from None


def _load_results(args: argparse.Namespace):
    from benchverdict import io
    from benchverdict._validation import to_cli

    if getattr(args, "example", False):
        from benchverdict.examples import load_example

        given = [f"--{name.replace('_', '-')}" for name in _INPUT_OPTIONS
                 if getattr(args, name, None) not in (None, [], "raise", False)]
        if getattr(args, "file", None) is not None:
            given.insert(0, "FILE")
        if given:
            raise UsageError(f"--example reads the built-in data; it cannot be combined with "
                             f"{', '.join(given)}. Fix: drop one of them.")
        return load_example()
    if getattr(args, "file", None) is None:
        raise UsageError("give a results FILE (or --example).")
    if args.adapter:
        from benchverdict.io import adapters

        _check_adapter_options(args, adapters.ADAPTER_OPTIONS.get(args.adapter))
        _check_exists(args.file, args.adapter)
        if args.adapter in adapters.NEEDS_OBJECTIVE and args.objective is None:
            raise UsageError(f"the {args.adapter} adapter needs --objective maximize|minimize "
                             f"(the format does not record it).")
        results = adapters.read_adapter(args.adapter, args.file, on_invalid=args.on_invalid,
                                     objective=args.objective, score=args.score,
                                     name_pattern=args.name_pattern,
                                     trust_pickle=getattr(args, "trust_pickle", False),
                                     seconds=getattr(args, "seconds", False),
                                     benchmark=args.benchmark if args.adapter == "autorank-wide"
                                     else None,
                                     min_algorithms=getattr(args, "min_algorithms", 2))
        if args.objective is not None and args.objective != results.objective:
            # Only adapters whose format records no direction take --objective; a format
            # that records one must not be contradicted silently (the answer would flip).
            raise UsageError(
                f"the {args.adapter} format records the objective {results.objective!r}; "
                f"--objective {args.objective} contradicts it. Fix: drop --objective (the "
                f"format's direction is used), or convert the file and read it without "
                f"--adapter.")
        return results
    if getattr(args, "name_pattern", None) is not None:
        raise UsageError("--name-pattern names the runs of an HPO-tool adapter; give --adapter "
                         "too (e.g. --adapter optuna).")
    missing = [
        f"--{name}" for name in ("algorithm", "seed", "score", "objective")
        if getattr(args, name) is None
    ]
    if missing:
        raise UsageError(
            f"missing {', '.join(missing)}: say which columns hold the roles, e.g. "
            f"--algorithm model --seed seed --score accuracy --objective maximize "
            f"(or use --adapter for a published format)."
        )
    _check_exists(args.file)
    if getattr(args, "engine", "pandas") == "dask":
        from benchverdict._dask.cli import load_dask

        return load_dask(args)
    if args.format is None:
        try:
            io.detect_format(args.file)
        except ValueError as err:
            raise UsageError(to_cli(str(err))) from None
    return io.read(
        args.file,
        algorithm=args.algorithm,
        seed=args.seed,
        score=args.score,
        objective=args.objective,
        benchmark=args.benchmark,
        budget=args.budget,
        metafeatures=args.metafeature,
        on_invalid=args.on_invalid,
        kind=args.kind,
        format=args.format,
        min_algorithms=getattr(args, "min_algorithms", 2),
    )


def _check_adapter_options(args: argparse.Namespace, used: frozenset[str] | None) -> None:
    """Refuse role options an adapter does not use: a given option is never ignored.

    ``used`` is the adapter's options (:data:`benchverdict.io.adapters.ADAPTER_OPTIONS`;
    ``None`` for an unknown adapter, which the reader refuses with the known names).
    ``--objective`` is checked against the format after reading instead.
    """
    if used is None:
        return
    given = [name for name in _INPUT_OPTIONS
             if name not in ("adapter", "on_invalid", "objective", *used)
             and getattr(args, name, None) not in (None, [], False)]
    if given:
        flags = ", ".join(f"--{name.replace('_', '-')}" for name in given)
        takes = ", ".join(f"--{n.replace('_', '-')}" for n in sorted(used))
        takes = f"it takes only {takes}" if takes else "it takes none of the role options"
        raise UsageError(
            f"--adapter {args.adapter} reads the roles from its format and does not use "
            f"{flags} ({takes}). Fix: drop {flags}, or read the file without --adapter and "
            f"name every role (--algorithm, --seed, --score, --objective, ...).")


class UsageError(Exception):
    """A mistake on the command line (exit code 2)."""


#: The options that say how to read FILE (meaningless with --example).
_INPUT_OPTIONS = ("algorithm", "seed", "score", "objective", "benchmark", "budget", "metafeature",
                  "on_invalid", "kind", "format", "adapter", "name_pattern", "scheduler",
                  "trust_pickle", "seconds")


def input_path(text: str) -> Path | str:
    """A FILE argument: a path, or a storage URL kept as written.

    ``Path`` would fold ``sqlite:///runs.db`` into ``sqlite:/runs.db``; a URL
    (``scheme://...``) stays text, for the adapters that read storages
    (:data:`URL_ADAPTERS`).

    Examples
    --------
    >>> input_path("runs.csv"), input_path("sqlite:///tmp/o.db")
    (PosixPath('runs.csv'), 'sqlite:///tmp/o.db')
    """
    return text if "://" in text else Path(text)


#: Adapters whose input may be a storage URL instead of a file (Optuna's RDB storages).
URL_ADAPTERS = frozenset({"optuna"})


def _check_exists(path: Path | str, adapter: str | None = None) -> None:
    import stat

    if isinstance(path, str):  # a URL (input_path)
        if adapter in URL_ADAPTERS:
            return  # the adapter checks the storage itself, read-only
        raise UsageError(
            f"{path!r} is a URL; only --adapter {', '.join(sorted(URL_ADAPTERS))} reads a "
            f"storage URL (sqlite:///FILE, postgresql://...). Fix: give a local file, or "
            f"add --adapter optuna for an Optuna storage.")
    if not path.exists():
        raise UsageError(f"no such file or directory: {str(path)!r}. Fix: check the path.")
    mode = path.stat().st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        # A FIFO, socket or device: reading it could wait forever (validate and report hung).
        kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket"
                if stat.S_ISSOCK(mode) else "a device")
        raise UsageError(f"{str(path)!r} is {kind}, not a regular file or folder; reading it "
                         f"could wait forever. Fix: save the data to a file and name that file.")


#: Commands whose ``-o`` folder is written by :func:`benchverdict._output_dir.staged_directory`
#: (the report checks its own; a leaderboard folder is a store of versions).
STAGED_OUTPUT_COMMANDS = ("tuning", "dse", "ranks", "lmem", "sanity", "plan")


def input_paths(args: object) -> list[Path]:
    """The data file a command reads (its output must never replace it), as a list.

    Examples
    --------
    >>> import argparse
    >>> input_paths(argparse.Namespace(file=Path("runs.csv"))), input_paths(argparse.Namespace())
    ([PosixPath('runs.csv')], [])
    """
    given = getattr(args, "file", None)
    return [] if given is None else [Path(given)]


def check_output_target(args: object) -> None:
    """Refuse an analysis command's ``-o`` before its work: a foreign folder, an input inside.

    An analysis command writes its folder as the report does (staged, then
    moved in; a manifest of its own files), so it never deletes or
    overwrites a file it did not write: a folder holding other files and no
    manifest is refused, with the fix, before the analysis runs.
    """
    if getattr(args, "command", None) not in STAGED_OUTPUT_COMMANDS:
        return
    out = getattr(args, "out", None)
    if out is None:
        return
    from benchverdict._output_dir import OutputError, check_target

    try:
        check_target(Path(out), input_paths(args))
    except OutputError as err:
        raise UsageError(f"-o {out}: {err}") from None


def check_output_dir(path: Path | None, option: str = "-o/--out") -> None:
    """Refuse an output folder that is an existing file, before any work is done."""
    if path is None:
        return
    path = Path(path)
    for candidate in (path, *path.parents):
        if candidate.exists():
            if not candidate.is_dir():
                raise UsageError(
                    f"{option} {str(path)!r}: {str(candidate)!r} is a file, not a folder. "
                    f"Fix: give a folder path (it is created if missing), or move the file."
                )
            return


def margin_type(text: str):
    """``argparse`` type of ``--margin``: a :class:`~benchverdict.effects.equivalence.Margin`.

    Examples
    --------
    >>> margin_type("0.2sd").standardized
    True
    """
    import argparse

    from benchverdict.effects.equivalence import Margin

    try:
        return Margin.parse(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err).replace("margin=", "--margin ")) from err
