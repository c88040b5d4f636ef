"""Building many small result objects quickly.

A rank analysis of 1000 algorithms makes half a million verdicts per test.
Python's cyclic garbage collector runs again and again while they are being
created (they are container objects), which doubles the time; none of them
form reference cycles, so pausing the collector while building them is safe.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["paused_gc"]


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector inside the block (restored after, also on error).

    Examples
    --------
    >>> with paused_gc():
    ...     items = [{"i": i} for i in range(10)]
    >>> gc.isenabled()
    True
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
