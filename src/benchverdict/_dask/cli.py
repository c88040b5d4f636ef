"""The command line's ``--engine dask [--scheduler ADDRESS]``: read FILE into a DaskResults."""

from __future__ import annotations

import argparse
import sys
from typing import Any

#: The distributed client of this process (kept alive while the command runs).
_CLIENT: list[Any] = []


def connect(address: str | None) -> Any | None:
    """Connect to a ``dask.distributed`` scheduler (None: Dask's local threads)."""
    if not address:
        return None
    from distributed import Client

    client = Client(address)
    _CLIENT.append(client)
    return client


def load_dask(args: argparse.Namespace):
    """The DaskResults of a parsed command line (``--engine dask``)."""
    from benchverdict._dask import require_dask
    from benchverdict._dask.construct import from_dask_frame
    from benchverdict._dask.frame import read_dask

    require_dask()
    connect(getattr(args, "scheduler", None))
    progress = not getattr(args, "no_progress", False) and bool(
        getattr(args, "progress", False) or sys.stderr.isatty())
    columns = [c for c in (args.algorithm, args.benchmark, args.seed, args.budget, args.score)
               if c is not None] + list(args.metafeature)
    ddf, names = read_dask(args.file, columns=columns, format=args.format)
    return from_dask_frame(
        ddf, algorithm=args.algorithm, seed=args.seed, score=args.score,
        objective=args.objective, benchmark=args.benchmark, budget=args.budget,
        metafeatures=args.metafeature, on_invalid=args.on_invalid, kind=args.kind,
        partition_names=names, progress=progress)


__all__ = ["connect", "load_dask"]
