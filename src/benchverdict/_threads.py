"""One BLAS thread for many small matrix products.

A threaded OpenBLAS wakes its worker threads for every product and lets
them spin while it waits for the next one. For the small products that
resampling makes by the thousand (a block of permuted splits times a few
dozen runs) the threads save no time and double the CPU: on a 2-core
machine the DSE comparisons of 10^6 random-search trials took 61.8 s CPU
for 34.0 s wall with the default threads and 32.8 s CPU for 32.8 s wall on
one. :func:`one_blas_thread` pins BLAS to one thread inside its block and
restores the caller's setting on the way out (threadpoolctl).

The whole report runs inside one such block (:func:`benchverdict.compare`
and the writing of its files, ``report._cli.write_report``): its linear
algebra is small products and solves throughout (tuning curves, rank-test
bootstraps, effect sizes, mixed models of cell sums), and spinning workers
cost CPU even between them. On 2 cores with BLAS pinned to one thread,
``report --example`` took 13.8-14.0 s CPU (user + system) instead of
15.1-16.8 s, and the report on 10^6 trials 42.3-45.9 s instead of
47.3-50.3 s, in the same wall-clock time. Blocks nest at no
cost (only a thread's outermost one talks to threadpoolctl), and
:func:`caller_blas_threads` hands a large dense problem the caller's
threads back inside a pinned block.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Iterator
from typing import Any

_CONTROLLER: Any = None
#: Per thread: how many :func:`one_blas_thread` blocks are open, and the limiter of the
#: outermost one. A thread restores only what it set: OpenBLAS ignored a restore called
#: from another thread than the one that pinned (the count stayed at 1).
_STATE = threading.local()


def _controller(refresh: bool) -> Any:
    """Threadpoolctl's view of the loaded BLAS libraries (made once; anew on ``refresh``)."""
    global _CONTROLLER
    if _CONTROLLER is None or refresh:
        from threadpoolctl import ThreadpoolController

        # Finding the loaded BLAS libraries costs milliseconds: once per process, or once
        # per outermost block that asks (a library loaded since then is found too).
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


@contextlib.contextmanager
def one_blas_thread(*, refresh: bool = False) -> Iterator[None]:
    """Run the block with BLAS on one thread; the caller's threads are restored after.

    Blocks nest: inside another of the same thread a block costs nothing,
    and the caller's setting comes back when the outermost one closes.
    ``refresh`` looks for BLAS libraries loaded since the first block (for
    a long block, such as a whole report).

    Examples
    --------
    >>> import numpy as np
    >>> with one_blas_thread():
    ...     with one_blas_thread():  # nested: free
    ...         float((np.ones((2, 3)) @ np.ones(3))[0])
    3.0
    """
    depth = getattr(_STATE, "depth", 0)
    if depth == 0:
        _STATE.limiter = _controller(refresh).limit(limits=1, user_api="blas")
    _STATE.depth = depth + 1
    try:
        yield
    finally:
        _STATE.depth -= 1
        if _STATE.depth == 0:
            limiter, _STATE.limiter = _STATE.limiter, None
            limiter.restore_original_limits()


@contextlib.contextmanager
def caller_blas_threads() -> Iterator[None]:
    """Inside :func:`one_blas_thread`, run the block on the caller's BLAS threads again.

    For a large dense problem (a Cholesky factor of hundreds of rows) that
    threads do speed up. Outside a pinned block it changes nothing.

    Examples
    --------
    >>> with one_blas_thread():
    ...     with caller_blas_threads():
    ...         pass
    """
    limiter = getattr(_STATE, "limiter", None)
    if limiter is None:
        yield
        return
    with warnings.catch_warnings():  # libraries with different counts: the smallest
        warnings.simplefilter("ignore")
        original = limiter.get_original_num_threads().get("blas")
    if not original or original <= 1:
        yield
        return
    # The thread counts the outermost block found, for the libraries it pinned.
    with _controller(False).limit(limits=original, user_api="blas"):
        yield
