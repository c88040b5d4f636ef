"""Leaderboards: a ranked, versioned table that grows as submissions arrive.

:func:`build_leaderboard` ranks the algorithms of a :class:`~benchverdict.Results`
by the report's error-controlled partial order; :mod:`benchverdict.leaderboard.store`
keeps a leaderboard in a folder, adds submissions (:func:`update_leaderboard`)
and writes what moved and why; :mod:`benchverdict.leaderboard.arena` rates
entries with Bradley-Terry and Elo (:func:`arena_from_results`,
:func:`arena_from_outcomes`); :mod:`benchverdict.leaderboard.incomplete`
treats incomplete submissions by policy (:data:`INCOMPLETE_POLICIES`:
refuse, compare on the common subset, or impute);
:mod:`benchverdict.leaderboard.looks` says what the error control covers
across versions (:data:`LOOKS_POLICIES`: each version alone, or every
version ever published). ``benchverdict leaderboard`` is the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchverdict._lazy import load_on_first_use

if TYPE_CHECKING:  # the names for type checkers; at run time they load on first use
    from benchverdict.leaderboard.arena import (
        Arena,
        arena_from_outcomes,
        arena_from_results,
        bradley_terry,
        elo_ratings,
    )
    from benchverdict.leaderboard.board import (
        ENTRY_COLUMNS,
        SCHEMA,
        SCHEMA_VERSION,
        Leaderboard,
        build_leaderboard,
        mean_rank_interval,
    )
    from benchverdict.leaderboard.design import Design, SubmissionCheck, check_submission
    from benchverdict.leaderboard.incomplete import INCOMPLETE_POLICIES
    from benchverdict.leaderboard.looks import LOOKS_POLICIES, look_level
    from benchverdict.leaderboard.store import (
        Change,
        StoreError,
        changes_between,
        create_leaderboard,
        load_leaderboard,
        update_leaderboard,
    )

# Where each public name lives: the package imports a module when one of its names is first
# used, so `benchverdict <command> --help` does not load pandas, scipy and matplotlib.
_HOMES = {
    'Arena': 'benchverdict.leaderboard.arena',
    'arena_from_outcomes': 'benchverdict.leaderboard.arena',
    'arena_from_results': 'benchverdict.leaderboard.arena',
    'bradley_terry': 'benchverdict.leaderboard.arena',
    'elo_ratings': 'benchverdict.leaderboard.arena',
    'Change': 'benchverdict.leaderboard.store',
    'Design': 'benchverdict.leaderboard.design',
    'ENTRY_COLUMNS': 'benchverdict.leaderboard.board',
    'INCOMPLETE_POLICIES': 'benchverdict.leaderboard.incomplete',
    'LOOKS_POLICIES': 'benchverdict.leaderboard.looks',
    'Leaderboard': 'benchverdict.leaderboard.board',
    'SCHEMA': 'benchverdict.leaderboard.board',
    'SCHEMA_VERSION': 'benchverdict.leaderboard.board',
    'StoreError': 'benchverdict.leaderboard.store',
    'SubmissionCheck': 'benchverdict.leaderboard.design',
    'build_leaderboard': 'benchverdict.leaderboard.board',
    'changes_between': 'benchverdict.leaderboard.store',
    'check_submission': 'benchverdict.leaderboard.design',
    'create_leaderboard': 'benchverdict.leaderboard.store',
    'load_leaderboard': 'benchverdict.leaderboard.store',
    'look_level': 'benchverdict.leaderboard.looks',
    'mean_rank_interval': 'benchverdict.leaderboard.board',
    'update_leaderboard': 'benchverdict.leaderboard.store',
}

__all__ = [
    "ENTRY_COLUMNS",
    "INCOMPLETE_POLICIES",
    "LOOKS_POLICIES",
    "SCHEMA",
    "SCHEMA_VERSION",
    "Arena",
    "Change",
    "Design",
    "Leaderboard",
    "StoreError",
    "SubmissionCheck",
    "arena_from_outcomes",
    "arena_from_results",
    "bradley_terry",
    "build_leaderboard",
    "changes_between",
    "check_submission",
    "create_leaderboard",
    "elo_ratings",
    "load_leaderboard",
    "look_level",
    "mean_rank_interval",
    "update_leaderboard",
]

load_on_first_use(__name__)
