"""The ``benchverdict`` command line.

``benchverdict validate FILE [role options]`` checks a results file and prints
its summary. Each analysis module adds its own sub-command through a
``_cli.py`` beside it with a ``register(subparsers, parents)`` function; the
handler it sets receives the parsed arguments and returns an exit code.

Errors print one clear message; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from benchverdict._validation import ValidationError
from benchverdict._version import __version__

#: Modules that may contribute sub-commands (skipped if they have no ``_cli``).
PLUGIN_MODULES = ("tuning", "ranks", "lmem", "dse", "report")


def role_options() -> argparse.ArgumentParser:
    """The input every sub-command shares: FILE or ``--example``, and the role options.

    The role options map a file's columns onto roles (they mirror
    ``Results.from_frame``). Module sub-commands get this parser as a parent,
    so they read their input the same way.
    """
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("file", nargs="?", type=Path, help="CSV, TSV, Parquet or JSON Lines")
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
        "--adapter",
        help="read a published format instead of mapping roles by hand: "
        "deberta, meanmax, priorband, hpob, autorank-wide (see benchverdict.io.adapters)",
    )
    return parser


def load_results(args: argparse.Namespace):
    """Build a :class:`~benchverdict.Results` from a parsed command line.

    ``args.file`` is the path; ``args.example`` (if set) loads the built-in
    example instead.
    """
    from benchverdict import io

    if getattr(args, "example", False):
        from benchverdict.examples import load_example

        return load_example()
    if getattr(args, "file", None) is None:
        raise UsageError("give a results FILE (or --example).")
    if args.adapter:
        from benchverdict.io import adapters

        return adapters.read_adapter(args.adapter, args.file, on_invalid=args.on_invalid)
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
    )


class UsageError(Exception):
    """A mistake on the command line (exit code 2)."""


def _cmd_validate(args: argparse.Namespace) -> int:
    try:
        results = load_results(args)
    except ValidationError as err:
        print(f"INVALID: {len(err.problems)} problem(s):")
        for p in err.problems:
            print(f"  - {p.message}")
        return 1
    description = results.describe()
    print(description)
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
    )
    parser.add_argument("--version", action="version", version=f"benchverdict {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    roles = role_options()
    validate = sub.add_parser(
        "validate", parents=[roles], help="check a results file and print its summary",
        description="Check a results file against the schema and print its summary. "
        "Exit code 0 when clean, 1 when there are problems.",
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``benchverdict`` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(args.handler(args))
    except UsageError as err:
        print(f"benchverdict {args.command}: {err}", file=sys.stderr)
        return 2
    except Exception as err:
        if args.debug:
            raise
        print(f"benchverdict {args.command}: error: {err}", file=sys.stderr)
        print("(run with --debug for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
