"""The informativeness ranking model on many benchmarks (issue 10, section 3).

``score ~ benchmark + (0 + benchmark || algorithm)`` has one variance per
benchmark (86 on HPO-B). The native engine solves it block by block with an
exact gradient; these tests hold it to lme4 (which cannot split a factor with
``||``, so it gets one indicator column per benchmark) and run the sanity
checks on the real HPO-B data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchverdict.lmem import fit, sanity_checks
from benchverdict.lmem.rbackend import available
from benchverdict.lmem.simulate import simulate_results

RANK = "score ~ benchmark + (0 + benchmark || algorithm)"
needs_r = pytest.mark.skipif(not available(), reason="R, rpy2 or lme4 not installed")


def _with_indicators(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The frame with one 0/1 column per benchmark, and the ranking model written with them."""
    benches = sorted(frame["benchmark"].astype(str).unique())
    cols = {f"d{i:03d}": (frame["benchmark"].astype(str) == b).astype(float).to_numpy()
            for i, b in enumerate(benches)}
    out = frame.assign(**cols)
    return out, f"score ~ benchmark + (0 + {' + '.join(cols)} || algorithm)"


def _assert_same_fit(ours, theirs, frame) -> None:
    assert ours.loglik == pytest.approx(theirs.loglik, rel=1e-7)
    np.testing.assert_allclose(ours.fixef.to_numpy(), theirs.fixef.to_numpy(), rtol=1e-5,
                               atol=1e-6)
    benches = sorted(frame["benchmark"].astype(str).unique())
    ours_var = ours.varcomp[ours.varcomp["group"] == "algorithm"]["value"].to_numpy()
    by_term = theirs.varcomp[theirs.varcomp["group"] == "algorithm"].set_index("term1")["value"]
    theirs_var = by_term[[f"d{i:03d}" for i in range(len(benches))]].to_numpy()
    np.testing.assert_allclose(ours_var, theirs_var, rtol=1e-4, atol=1e-6)


@needs_r
def test_ranking_fit_matches_lme4_with_indicator_columns():
    res = simulate_results(algorithms=tuple("ABCDEF"), n_benchmarks=8, n_seeds=3,
                           algorithm_effect={"A": 1.0, "B": 0.5}, uninformative=[2, 5], seed=3)
    frame, indicators = _with_indicators(res.final().table)
    ours = fit(frame, RANK)
    assert ours.converged, ours.message
    # The same model in the native engine, spelled with indicator columns.
    _assert_same_fit(ours, fit(frame, indicators), frame)
    _assert_same_fit(ours, fit(frame, indicators, backend="lme4"), frame)


def _hpob(shared_data):
    from benchverdict.io.adapters import read_adapter

    return read_adapter("hpob", shared_data / "hpob" / "hpob_results_long.parquet")


@needs_r
def test_hpob_ranking_fit_matches_lme4_on_ten_benchmarks(shared_data):
    res = _hpob(shared_data)
    final = res.final().table
    keep = sorted(final["benchmark"].astype(str).unique())[:10]
    sub = final[final["benchmark"].astype(str).isin(keep)].copy()
    sub["benchmark"] = sub["benchmark"].astype(str)
    sd = sub.groupby("benchmark")["score"].transform("std")
    sub["score"] = sub["score"] / sd
    frame, indicators = _with_indicators(sub)
    ours = fit(frame, RANK)
    assert ours.converged, ours.message
    _assert_same_fit(ours, fit(frame, indicators, backend="lme4"), frame)


def test_hpob_sanity_checks_run_every_check(shared_data):
    report = sanity_checks(_hpob(shared_data))
    assert [c.name for c in report.checks] == ["seed_dependency", "benchmark_informativeness",
                                               "budget_relevance"]
    assert not any(c.failed for c in report.checks), report.table
    info = report["benchmark_informativeness"]
    assert len(info.table) == 86
    assert info.table["algorithm_variance"].notna().all()
    assert (info.table["algorithm_variance"] >= 0).all()
