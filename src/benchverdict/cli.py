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
import os
import sys
from collections.abc import Sequence

from benchverdict._version import __version__

# The imports of the shared options, the validation messages and the module CLIs sit in
# the functions below, not here: ``benchverdict --version`` answers before any of them
# (they load pandas and the analysis modules), in a fraction of the start-up time.


def _cmd_validate(args: argparse.Namespace) -> int:
    from benchverdict._cli_common import EXIT_FAILURE, load_results
    from benchverdict._validation import ValidationError, to_cli

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
    copied = results.copied_runs()
    if copied:
        print(f"\nWarning: {copied}")
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
    from benchverdict import _cli_common
    from benchverdict.dse import _cli as dse_cli
    from benchverdict.effects import _cli as effects_cli
    from benchverdict.leaderboard import _cli as leaderboard_cli
    from benchverdict.lmem import _cli as lmem_cli
    from benchverdict.paper import _cli as paper_cli
    from benchverdict.ranks import _cli as ranks_cli
    from benchverdict.report import _cli as report_cli
    from benchverdict.tuning import _cli as tuning_cli

    EXIT_CODES_HELP = _cli_common.EXIT_CODES_HELP
    parser = argparse.ArgumentParser(
        prog="benchverdict",
        description="Which algorithm is better, by how much, at which budget, and how sure.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"benchverdict {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    roles = _cli_common.role_options()
    validate = sub.add_parser(
        "validate", parents=[roles, _cli_common.progress_options()],
        help="check a results file and print its summary",
        description="Check a results file against the schema and print its summary. "
        "Exit code 0 when clean, 1 when there are problems (invalid rows, rows dropped, an "
        "unbalanced design), 2 for a usage error.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    validate.set_defaults(handler=_cmd_validate)
    for module in (tuning_cli, ranks_cli, lmem_cli, dse_cli, report_cli, paper_cli,
                   leaderboard_cli, effects_cli):
        module.register(sub, [roles])
    for subparser in sub.choices.values():
        if subparser.epilog is None:  # one paragraph: their formatter re-wraps the text
            subparser.epilog = _cli_common.EXIT_CODES_SENTENCE
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``benchverdict`` command (see the module docstring for exit codes)."""
    args_given = list(sys.argv[1:] if argv is None else argv)
    top_level = [a for a in args_given[:2] if a.startswith("-")]
    if "--version" in top_level and len(top_level) == len(args_given):
        # Answered before the parser (and pandas, and the modules) is built.
        print(f"benchverdict {__version__}")
        return 0
    from benchverdict._cli_common import (
        EXIT_INTERRUPTED,
        EXIT_USAGE,
        UsageError,
        check_output_dir,
        check_output_target,
    )
    from benchverdict._output_dir import OutputError

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
        check_output_target(args)
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
    except OutputError as err:  # the -o folder changed while the analysis ran
        print(f"{prefix}: -o {getattr(args, 'out', '')}: {err} Nothing was written.",
              file=sys.stderr)
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
    from benchverdict._cli_common import EXIT_BROKEN_PIPE

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
    from benchverdict._cli_common import EXIT_FAILURE, EXIT_USAGE
    from benchverdict._validation import ValidationError, to_cli

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
    if isinstance(err, MemoryError) and not callable(getattr(err, "cli_message", None)):
        # A bare MemoryError says nothing of what to do (issue 25: 10^7 rows under 8 GB).
        detail = f" ({err})" if str(err) else ""
        return EXIT_FAILURE, (
            f"ran out of memory{detail}; nothing was written. Fix: run fewer analyses "
            f"(--analyses, e.g. ranks,lmem), compare at one budget (--at-budget B), give "
            f"the machine more memory, or read Parquet with --engine dask, which keeps the "
            f"rows out of this process."
        )
    message = str(err) or type(err).__name__
    custom = getattr(err, "cli_message", None)
    if callable(custom):
        message = custom()
    return EXIT_FAILURE, to_cli(message, options)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
