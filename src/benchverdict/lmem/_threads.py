"""BLAS threading for the many small dense operations of a mixed-model fit."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from benchverdict._threads import caller_blas_threads, one_blas_thread


@contextlib.contextmanager
def small_problem_threads(size: int) -> Iterator[None]:
    """Run small dense linear algebra on one BLAS thread.

    OpenBLAS's threaded triangular solves cost milliseconds per call on tiny
    matrices on a loaded machine (100x slower than one thread), and the
    optimiser makes thousands of them. Large problems get the caller's threads,
    also inside a block that pins one (a report runs in one).
    """
    if size > 400:
        with caller_blas_threads():
            yield
        return
    with one_blas_thread():
        yield
