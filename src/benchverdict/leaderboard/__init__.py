"""Leaderboards: a ranked, versioned table that grows as submissions arrive.

:func:`build_leaderboard` ranks the algorithms of a :class:`~benchverdict.Results`
by the report's error-controlled partial order; :mod:`benchverdict.leaderboard.store`
keeps a leaderboard in a folder, adds submissions (:func:`update_leaderboard`)
and writes what moved and why. ``benchverdict leaderboard`` is the command line.
"""

from benchverdict.leaderboard.board import (
    ENTRY_COLUMNS,
    SCHEMA,
    SCHEMA_VERSION,
    Leaderboard,
    build_leaderboard,
    mean_rank_interval,
)
from benchverdict.leaderboard.design import Design, SubmissionCheck, check_submission
from benchverdict.leaderboard.store import (
    Change,
    StoreError,
    changes_between,
    create_leaderboard,
    load_leaderboard,
    update_leaderboard,
)

__all__ = [
    "ENTRY_COLUMNS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "Change",
    "Design",
    "Leaderboard",
    "StoreError",
    "SubmissionCheck",
    "build_leaderboard",
    "changes_between",
    "check_submission",
    "create_leaderboard",
    "load_leaderboard",
    "mean_rank_interval",
    "update_leaderboard",
]
