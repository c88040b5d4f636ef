"""Shared fixtures: the real benchmark data in ../shared/data, skipped when absent."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

try:
    import matplotlib
except ModuleNotFoundError as err:  # pytest run by an interpreter without the package's deps
    raise pytest.UsageError(
        f"the tests need benchverdict's dependencies, but this Python "
        f"({sys.executable}) lacks {err.name!r}. Fix: run the suite as the README says "
        f"(`pip install nox && nox -s tests`), or install them into this interpreter with "
        f"`pip install -e '.[test]'` and run pytest again.") from None

matplotlib.use("Agg")

#: Where the shared reference data live (override with BENCHVERDICT_SHARED_DATA).
SHARED_DATA = Path(
    os.environ.get(
        "BENCHVERDICT_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data"
    )
)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The ../shared/data folder; skips the test when it is absent (a user's fresh clone)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared reference data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def example_comparison():
    """The built-in example's full report (figures drawn), computed once per test worker.

    Several files read the same report (presentation, figure sizes); it takes about 25 s,
    so it is shared. Tests must only read it.
    """
    import warnings

    from benchverdict.examples import load_example
    from benchverdict.report import compare

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare(load_example(), progress=False)


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every matplotlib figure a test opened."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


# CI runs hypothesis derandomized: a run on a clean clone must give the same answer every
# time (a developer's run keeps hypothesis' random search, which may find new cases).
if os.environ.get("BENCHVERDICT_CI"):
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("ci", derandomize=True)
    _hypothesis_settings.load_profile("ci")


#: Test files that take minutes (their seeded simulations, real HPO tools, Dask clusters), in
#: about decreasing order. pytest-xdist's --dist loadfile hands files to idle workers in
#: collection order, so running these first keeps one worker from starting a long file while
#: the other has finished (longest first; the list only orders, it never skips).
LONG_FILES = (
    "test_fuzz.py", "test_report_error_control.py", "test_dask_scaleout.py",
    "test_invariants.py", "test_report_estimand.py", "test_lmem_sanity.py",
    "test_io_tools_ray_tune.py", "test_io_tools_optuna.py", "test_leaderboard.py",
    "test_leaderboard_durability.py", "test_lmem_engine.py", "test_dse_sample.py",
    "test_input_hostile.py", "test_output_safety.py", "test_lmem_paired.py",
    "test_leaderboard_coverage.py", "test_figure_readability.py", "test_report_prose.py",
    "test_paper_table.py", "test_report_presentation.py", "test_report_example_semantics.py",
)


def pytest_collection_modifyitems(config, items):
    """Long files first (see LONG_FILES); the order within a file is kept."""
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(Path(str(item.fspath)).name, len(rank)))
