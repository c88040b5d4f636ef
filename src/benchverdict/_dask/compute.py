"""Running per-partition tasks on whatever Dask scheduler is current, with progress.

With a ``dask.distributed`` client the tasks run on its workers and a tqdm
bar counts finished partitions; without one, Dask's local scheduler runs
them (threads) under the same bar. Partial results come back to the client,
where the caller adds them up: they are small by construction (counts,
per-run summaries, cross-products).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tqdm.auto import tqdm


def current_client() -> Any | None:
    """The current ``distributed.Client``, or None."""
    try:
        from distributed import get_client
    except ImportError:  # pragma: no cover - distributed is part of the extra
        return None
    try:
        return get_client()
    except ValueError:
        return None


def compute_all(tasks: Sequence[Any], *, desc: str, progress: bool = False) -> list:
    """Compute Dask delayed ``tasks`` (one per partition) and return their results in order.

    Examples
    --------
    >>> import pytest; dask = pytest.importorskip("dask")  # the dask extra
    >>> compute_all([dask.delayed(sum)([1, 2]), dask.delayed(len)("abc")], desc="demo")
    [3, 3]
    """
    import dask

    client = current_client()
    if client is None:
        if not progress:
            return list(dask.compute(*tasks, scheduler="threads"))
        from dask.callbacks import Callback

        bar = tqdm(total=None, desc=desc, unit="task")

        class _Bar(Callback):
            def _start_state(self, dsk, state):
                bar.total = len(state["ready"]) + len(state["waiting"]) + len(state["finished"])

            def _posttask(self, key, result, dsk, state, worker_id):
                bar.update(1)

        try:
            with _Bar():
                return list(dask.compute(*tasks, scheduler="threads"))
        finally:
            bar.close()
    from distributed import as_completed

    futures = client.compute(list(tasks))
    with tqdm(total=len(futures), desc=desc, unit="partition", disable=not progress) as bar:
        for _ in as_completed(futures):
            bar.update(1)
    return client.gather(futures)


__all__ = ["compute_all", "current_client"]
