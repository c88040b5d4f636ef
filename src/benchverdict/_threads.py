"""One BLAS thread for many small matrix products.

A threaded OpenBLAS wakes its worker threads for every product and lets
them spin while it waits for the next one. For the small products that
resampling makes by the thousand (a block of permuted splits times a few
dozen runs) the threads save no time and double the CPU: on a 2-core
machine the DSE comparisons of 10^6 random-search trials took 61.8 s CPU
for 34.0 s wall with the default threads and 32.8 s CPU for 32.8 s wall on
one. :func:`one_blas_thread` pins BLAS to one thread inside its block and
restores the caller's setting on the way out (threadpoolctl).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

_CONTROLLER = None


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with BLAS on one thread; the caller's threads are restored after.

    Examples
    --------
    >>> import numpy as np
    >>> with one_blas_thread():
    ...     float((np.ones((2, 3)) @ np.ones(3))[0])
    3.0
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        from threadpoolctl import ThreadpoolController

        # Finding the loaded BLAS libraries costs milliseconds: once per process.
        _CONTROLLER = ThreadpoolController()
    with _CONTROLLER.limit(limits=1, user_api="blas"):
        yield
