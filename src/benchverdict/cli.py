"""The ``benchverdict`` command line.

``benchverdict validate FILE [role options]`` checks a results file and prints
its summary. Each analysis module adds its own sub-command through a
``_cli.py`` beside it with a ``register(subparsers, parents)`` function; the
handler it sets receives the parsed arguments and returns an exit code.
Every handler's errors go through :func:`main`, which prints one clear line
per error (its fix written as command-line options, e.g. ``--on-invalid
drop``); ``--debug``, accepted before or after the sub-command, shows the
traceback instead.

Exit codes (the same for every sub-command):

===== ==================================================================
0     success: the data are valid / every analysis ran
1     the data are invalid or could not be read (empty, corrupt, not
      UTF-8), or an analysis failed
2     usage error: an unknown option or value, a missing role option, an
      unknown adapter, a FILE that does not exist, ``-o`` naming a file
      rather than a folder
130   interrupted (Ctrl-C)
141   the reader of the output went away (``benchverdict ... | head``): the
      output stops quietly, as for other Unix tools killed by SIGPIPE
===== ==================================================================
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from benchverdict._validation import ValidationError, to_cli
from benchverdict._version import __version__

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

#: Modules that may contribute sub-commands (skipped if they have no ``_cli``).
PLUGIN_MODULES = ("tuning", "ranks", "lmem", "dse", "report", "leaderboard")


def role_options(*, many_files: bool = False) -> argparse.ArgumentParser:
    """The input every sub-command shares: FILE or ``--example``, and the role options.

    The role options map a file's columns onto roles (they mirror
    ``Results.from_frame``). Module sub-commands get this parser as a parent,
    so they read their input the same way. With ``many_files`` the
    positional argument is ``files`` (any number, each read the same way).
    """
    parser = argparse.ArgumentParser(add_help=False)
    if many_files:
        parser.add_argument("files", nargs="*", type=Path, metavar="FILE",
                            help="CSV, TSV, Parquet or JSON Lines files (or adapter inputs)")
    else:
        parser.add_argument("file", nargs="?", type=Path,
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
    group.add_argument("--kind", choices=["trials", "runs"], help="override the inferred kind")
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
    return parser


def load_results(args: argparse.Namespace):
    """Build a :class:`~benchverdict.Results` from a parsed command line.

    ``args.file`` is the path; ``args.example`` (if set) loads the built-in
    example instead. A :class:`ValidationError` raised here has its fixes
    written as command-line options (``--on-invalid drop``), so a sub-command
    can print ``problem.message`` as it is.
    """
    try:
        return _load_results(args)
    except ValidationError as err:
        raise err.for_cli() from None


def _load_results(args: argparse.Namespace):
    from benchverdict import io

    if getattr(args, "example", False):
        from benchverdict.examples import load_example

        given = [f"--{name.replace('_', '-')}" for name in _INPUT_OPTIONS
                 if getattr(args, name, None) not in (None, [], "raise")]
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

        _check_exists(args.file)
        if args.adapter in adapters.NEEDS_OBJECTIVE and args.objective is None:
            raise UsageError(f"the {args.adapter} adapter needs --objective maximize|minimize "
                             f"(the format does not record it).")
        return adapters.read_adapter(args.adapter, args.file, on_invalid=args.on_invalid,
                                     objective=args.objective, score=args.score,
                                     name_pattern=args.name_pattern,
                                     min_algorithms=getattr(args, "min_algorithms", 2))
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


class UsageError(Exception):
    """A mistake on the command line (exit code 2)."""


#: The options that say how to read FILE (meaningless with --example).
_INPUT_OPTIONS = ("algorithm", "seed", "score", "objective", "benchmark", "budget", "metafeature",
                  "on_invalid", "kind", "format", "adapter", "name_pattern", "scheduler")


def _check_exists(path: Path) -> None:
    if not path.exists():
        raise UsageError(f"no such file or directory: {str(path)!r}. Fix: check the path.")


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


def _cmd_validate(args: argparse.Namespace) -> int:
    try:
        results = load_results(args)
    except ValidationError as err:  # already rendered for the command line by load_results
        print(f"INVALID: {len(err.problems)} problem(s):")
        for p in err.problems:
            print(f"  - {p.message}")
        return EXIT_FAILURE
    description = results.describe()
    # The kind's reason may suggest kind='runs': say --kind runs on the command line.
    print(to_cli(str(description), {"kind": "--kind"}, fix_only=False))
    problems = []
    if len(results.exclusions):
        problems.append(f"{len(results.exclusions)} row(s) were dropped (listed above)")
    if not description.balanced:
        problems.append(
            f"the design is unbalanced ({description.n_missing_cells} missing "
            f"algorithm x benchmark x seed cells)"
        )
    if problems:
        print("\nPROBLEMS: " + "; ".join(problems) + ".")
        return 1
    print("\nOK: no problems found.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, including module sub-commands."""
    parser = argparse.ArgumentParser(
        prog="benchverdict",
        description="Which algorithm is better, by how much, at which budget, and how sure.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"benchverdict {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    roles = role_options()
    validate = sub.add_parser(
        "validate", parents=[roles], help="check a results file and print its summary",
        description="Check a results file against the schema and print its summary. "
        "Exit code 0 when clean, 1 when there are problems (invalid rows, rows dropped, an "
        "unbalanced design), 2 for a usage error.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    validate.set_defaults(handler=_cmd_validate)
    for name in PLUGIN_MODULES:
        try:
            module = importlib.import_module(f"benchverdict.{name}._cli")
        except ModuleNotFoundError as err:
            if err.name not in (f"benchverdict.{name}", f"benchverdict.{name}._cli"):
                raise
            continue
        module.register(sub, [roles])
    for subparser in sub.choices.values():
        if subparser.epilog is None:  # one paragraph: their formatter re-wraps the text
            subparser.epilog = EXIT_CODES_SENTENCE
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``benchverdict`` command (see the module docstring for exit codes)."""
    parser = build_parser()
    args = parser.parse_args(argv)  # usage errors exit 2 here (argparse)
    command = args.command
    if command is None:
        parser.print_help()
        return EXIT_USAGE
    debug = bool(getattr(args, "debug", False))
    prefix = f"benchverdict {command}"
    try:
        check_output_dir(getattr(args, "out", None))
        code = int(args.handler(args))
        return _flush_or_quiet(code)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        print(f"\n{prefix}: interrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except UsageError as err:
        print(f"{prefix}: {err}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as err:
        if debug:
            raise
        code, message = _describe_error(err, args, _options_of(parser, command))
        print(f"{prefix}: error: {message}", file=sys.stderr)
        print("(run with --debug for the traceback)", file=sys.stderr)
        return code


def _flush_or_quiet(code: int) -> int:
    """Flush stdout now, so a closed pipe is noticed here and not at interpreter exit."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return _quiet_broken_pipe()
    return code


def _quiet_broken_pipe() -> int:
    # The reader is gone: point stdout at /dev/null so the interpreter's final flush
    # does not print "Exception ignored ... BrokenPipeError".
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (e.g. captured)
        pass
    return EXIT_BROKEN_PIPE


def _options_of(parser: argparse.ArgumentParser, command: str) -> dict[str, str]:
    """Python argument name -> the sub-command's long option (``on_invalid``: ``--on-invalid``)."""
    options: dict[str, str] = {}
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    subparser = sub.choices.get(command) if sub is not None else None
    for action in getattr(subparser, "_actions", []):
        longs = [o for o in action.option_strings if o.startswith("--")]
        if longs:
            options[action.dest] = longs[0]
            options[longs[0][2:].replace("-", "_")] = longs[0]
    options.setdefault("metafeatures", "--metafeature")
    return options


def _describe_error(
    err: Exception, args: argparse.Namespace, options: dict[str, str]
) -> tuple[int, str]:
    """The exit code and the one-line message for an error a handler raised."""
    if isinstance(err, ValidationError):
        return EXIT_FAILURE, err.cli_message()
    if isinstance(err, FileNotFoundError):
        name = err.filename or str(err)
        return EXIT_FAILURE, f"no such file or directory: {str(name)!r}. Fix: check the path."
    if isinstance(err, (FileExistsError, NotADirectoryError)):
        return EXIT_USAGE, (
            f"{str(err.filename)!r} is a file, not a folder ({err.strerror}). Fix: give a folder "
            f"path for the output (-o/--out), or move the file."
        )
    if isinstance(err, PermissionError):
        return EXIT_FAILURE, (
            f"permission denied: {str(err.filename)!r}. Fix: choose a path you can read or "
            f"write."
        )
    if isinstance(err, OSError) and err.strerror and err.filename:
        return EXIT_FAILURE, f"{err.strerror}: {str(err.filename)!r}"
    message = str(err) or type(err).__name__
    custom = getattr(err, "cli_message", None)
    if callable(custom):
        message = custom()
    return EXIT_FAILURE, to_cli(message, options)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
