"""BLAS threading for the many small dense operations of a mixed-model fit."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def small_problem_threads(size: int) -> Iterator[None]:
    """Run small dense linear algebra on one BLAS thread.

    OpenBLAS's threaded triangular solves cost milliseconds per call on tiny
    matrices on a loaded machine (100x slower than one thread), and the
    optimiser makes thousands of them. Large problems keep all threads.
    """
    if size > 400:
        yield
        return
    try:
        import threadpoolctl  # noqa: F401
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn/scipy stacks
        yield
        return
    global _CONTROLLER
    if _CONTROLLER is None:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER = ThreadpoolController()
    with _CONTROLLER.limit(limits=1, user_api="blas"):
        yield


_CONTROLLER = None
