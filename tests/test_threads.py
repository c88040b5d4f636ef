"""BLAS threads: resampling's small products run on one thread, the caller's setting survives."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from benchverdict._threads import one_blas_thread
from benchverdict.dse.clusters import in_blocks
from benchverdict.lmem._threads import small_problem_threads


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


pytestmark = pytest.mark.skipif(not _blas_threads(),
                                reason="no BLAS library that threadpoolctl controls")


@pytest.mark.parametrize("rows", [5, 5000])  # one block, and several sub-blocks
def test_in_blocks_runs_its_function_on_one_blas_thread(rows):
    seen = []

    def f(batch):
        seen.append(_blas_threads())
        return batch @ np.ones(batch.shape[1])

    with threadpool_limits(limits=2, user_api="blas"):
        out = in_blocks(f, np.ones((rows, 40)), 40)
        after = _blas_threads()
    assert seen and all(s == {1} for s in seen)
    assert after == {2}  # the caller's setting is back
    np.testing.assert_array_equal(out, np.full(rows, 40.0))


def test_one_blas_thread_restores_on_an_exception_and_nests():
    with threadpool_limits(limits=2, user_api="blas"):
        with pytest.raises(RuntimeError), one_blas_thread():
            with one_blas_thread():
                assert _blas_threads() == {1}
            assert _blas_threads() == {1}
            raise RuntimeError
        assert _blas_threads() == {2}


def test_small_problem_threads_pins_only_small_problems():
    with threadpool_limits(limits=2, user_api="blas"):
        with small_problem_threads(10):
            assert _blas_threads() == {1}
        with small_problem_threads(10_000):
            assert _blas_threads() == {2}


def test_a_large_problem_gets_the_callers_threads_inside_a_pinned_block():
    with threadpool_limits(limits=2, user_api="blas"):
        with one_blas_thread():
            with small_problem_threads(10_000):
                assert _blas_threads() == {2}
            assert _blas_threads() == {1}  # pinned again after the large problem
            with small_problem_threads(10):
                assert _blas_threads() == {1}
        assert _blas_threads() == {2}


def test_a_block_in_another_thread_neither_unpins_nor_wedges_this_one():
    """Each thread restores what it set (OpenBLAS ignores a restore from another thread)."""
    import threading

    seen = []

    def worker():
        with one_blas_thread():
            with one_blas_thread():
                seen.append(_blas_threads())
        seen.append(_blas_threads())  # the main thread's block is still open

    with threadpool_limits(limits=2, user_api="blas"):
        with one_blas_thread():
            t = threading.Thread(target=worker)
            t.start()
            t.join(10)
            inside = _blas_threads()
        after = _blas_threads()
    assert seen == [{1}, {1}]
    assert inside == {1}
    assert after == {2}


def test_compare_runs_on_one_blas_thread_and_restores_the_callers():
    """The whole report's small linear algebra runs pinned (10% less CPU; see _threads)."""
    import benchverdict as bv
    from benchverdict.analysis import AnalysisRun
    from benchverdict.results import _example_small

    seen = []

    def runner(results, options):
        seen.append(_blas_threads())
        return AnalysisRun("ranks", "ok")

    with threadpool_limits(limits=2, user_api="blas"):
        bv.compare(_example_small(), analyses=["ranks"], runners={"ranks": runner},
                   progress=False, figures=False)
        after = _blas_threads()
    assert seen == [{1}]
    assert after == {2}
