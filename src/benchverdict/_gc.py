"""Fewer cyclic garbage collections while a report builds millions of long-lived objects.

CPython's cyclic collector runs a *full* collection, which visits every
tracked container, whenever the objects that survived since the last one
grow by a quarter. A 200-algorithm report keeps about five million
containers (280,000 verdicts with their scopes, evidence and details,
220,000 relations, their tables): it made 18 full collections and 20,000
young ones, 11.5 of its 60 s of CPU, and freed almost nothing (its objects
are alive until the report is written). Inside :func:`fewer_collections`
young collections still run, less often, and full ones wait until the
block ends; the thresholds are restored on the way out.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: Allocations between two young collections inside the block (CPython's default: 700).
YOUNG_THRESHOLD = 10_000
#: Young collections between two middle-generation ones inside the block (default: 10).
MIDDLE_THRESHOLD = 50
#: Middle-generation collections before a full one may run (default: 10): a block of
#: the report never reaches it.
FULL_THRESHOLD = 1_000


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Inside the block, collect young objects less often and leave full collections out.

    Nothing is left uncollected for good: objects in reference cycles that
    outlive the young generations wait for the first full collection after
    the block. Blocks nest (each restores the thresholds it found).

    Examples
    --------
    >>> before = gc.get_threshold()
    >>> with fewer_collections():
    ...     gc.get_threshold()[2] >= FULL_THRESHOLD
    True
    >>> gc.get_threshold() == before
    True
    """
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], YOUNG_THRESHOLD), max(before[1], MIDDLE_THRESHOLD),
                     max(before[2], FULL_THRESHOLD))
    try:
        yield
    finally:
        gc.set_threshold(*before)


__all__ = ["fewer_collections"]
