"""Results can be pickled, copied and deep-copied and stays immutable (issue 10)."""

from __future__ import annotations

import copy
import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

from benchverdict import ValidationError
from benchverdict.examples import load_example
from benchverdict.results import _example_small


def _summary(results):
    return len(results), results.algorithms, results.blocks().matrix.round(12).to_dict()


@pytest.mark.parametrize("clone", [
    lambda r: pickle.loads(pickle.dumps(r)),
    lambda r: pickle.loads(pickle.dumps(r, protocol=2)),
    copy.copy,
    copy.deepcopy,
])
def test_round_trip_is_equal_and_immutable(clone):
    res = _example_small()
    res.blocks()  # fills the derived-array cache; it must not break copies
    twin = clone(res)
    assert twin is not res and twin.equals(res)
    assert twin.table.equals(res.table) and twin.exclusions.equals(res.exclusions)
    assert (twin.objective, twin.kind, twin.roles) == (res.objective, res.kind, res.roles)
    assert _summary(twin) == _summary(res)
    with pytest.raises(AttributeError, match="immutable"):
        twin.objective = "minimize"


def test_joblib_and_multiprocessing():
    joblib = pytest.importorskip("joblib")
    res = load_example()
    out = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(_summary)(res) for _ in range(2))
    assert out == [_summary(res)] * 2
    with ProcessPoolExecutor(max_workers=1) as pool:
        assert pool.submit(_summary, res).result() == _summary(res)


def test_validation_error_pickles():
    import pandas as pd

    from benchverdict import Results

    with pytest.raises(ValidationError) as err:
        Results.from_frame(pd.DataFrame({"a": ["x"], "s": [0], "y": [float("nan")]}),
                           algorithm="a", seed="s", score="y", objective="maximize", kind="trials")
    again = pickle.loads(pickle.dumps(err.value))
    assert str(again) == str(err.value) and len(again.problems) == len(err.value.problems)
