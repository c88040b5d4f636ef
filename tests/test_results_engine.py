"""The engine protocol of ``Results`` (issue 21, item 7): typed steps instead of string dispatch."""

from __future__ import annotations

import numpy as np
import pytest

from benchverdict.results import Engine, InMemoryEngine, Results, _example_small
from benchverdict.results.engine import IN_MEMORY


class _RecordingEngine:
    """An engine with steps of its own, recording what it was asked."""

    name = "recording"

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def lmem_fit(self, formula, *, reml=False, backend="native", start=None, exclusions=None):
        self.calls.append(("lmem_fit", formula, reml, backend))
        return "the engine's model"

    def draws_or_sketches(self):
        self.calls.append(("draws_or_sketches",))
        return {("a", "p"): np.array([0.1, 0.2, 0.3]), ("b", "p"): np.array([0.2, 0.4, 0.5])}


class _EngineResults(Results):
    """A Results whose engine runs its own steps (as DaskResults' does)."""

    __slots__ = ("_engine",)

    @property
    def engine(self):
        return self._engine


def _with_engine(engine) -> _EngineResults:
    res = _example_small()
    out = _EngineResults(res.table, objective=res.objective, kind=res.kind,
                         kind_reason=res.kind_reason, roles=res.roles,
                         metafeatures=res.metafeatures, exclusions=res.exclusions)
    object.__setattr__(out, "_engine", engine)
    return out


def test_both_engines_implement_the_protocol():
    assert isinstance(IN_MEMORY, Engine) and isinstance(_RecordingEngine(), Engine)
    assert isinstance(_example_small().engine, InMemoryEngine)
    assert not hasattr(Results, "_engine_step")  # the string dispatch is gone


def test_the_dask_engine_implements_the_protocol():
    pytest.importorskip("dask")
    from benchverdict._dask.results import DaskEngine

    assert isinstance(DaskEngine(_example_small()), Engine)


def test_in_memory_steps_answer_none():
    engine = _example_small().engine
    assert engine.lmem_fit("score ~ algorithm + (1|benchmark)") is None
    assert engine.draws_or_sketches() is None


def test_lmem_fit_uses_the_engines_fit():
    from benchverdict.lmem import fit

    engine = _RecordingEngine()
    assert fit(_with_engine(engine), "score ~ algorithm", reml=True) == "the engine's model"
    assert engine.calls == [("lmem_fit", "score ~ algorithm", True, "native")]


def test_tuning_curves_use_the_engines_draws():
    from benchverdict.tuning import from_results

    engine = _RecordingEngine()
    curves = from_results(_with_engine(engine), band="dkw")
    assert engine.calls == [("draws_or_sketches",)]
    assert sorted(curves.curves) == [("a", "p"), ("b", "p")]  # the engine's cells, not the rows
