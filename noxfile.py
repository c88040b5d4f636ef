"""Developer sessions: ``nox -s tests``, ``nox -s lint``, ``nox -s bench``."""

from __future__ import annotations

import os
import shutil

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests", "lint"]

PYTHON = None  # the interpreter nox runs on; CI pins it through the machine


def _install(session: nox.Session, extras: str) -> None:
    session.install("-e", f".[{extras}]")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Run the whole test suite (doctests included).

    Installs the R backend's rpy2 when R is on the PATH, so that the tests
    comparing the native LMM with lme4 run; they skip cleanly otherwise.
    Exit code 5 (no tests collected) passes a developer's filtered run
    (``nox -s tests -- -k name``) but fails CI: ``.ci/run`` sets
    ``BENCHVERDICT_CI=1``, and then only exit code 0 passes.
    """
    # tools: the HPO-tool readers are tested on the real tools' output.
    # dask: the scale-out tests (tests/test_dask_*.py) run on a LocalCluster.
    extras = "test,example,tools,dask"
    if shutil.which("R"):
        extras += ",lme4"
    _install(session, extras)
    # One worker per core; --dist loadfile keeps a file's tests on one worker, so its
    # module-scoped simulation fixtures are built once.
    session.run(
        "pytest",
        "--doctest-modules",
        "src/benchverdict",
        "tests",
        "-n",
        "auto",
        "--dist",
        "loadfile",
        "--durations=25",
        *session.posargs,
        # CI must not pass a run that collected no test (a broken import, a bad filter).
        success_codes=[0] if os.environ.get("BENCHVERDICT_CI") else [0, 5],
    )


@nox.session(python=PYTHON)
def simulations(session: nox.Session) -> None:
    """The seeded simulations of error control, coverage and power, 5x larger than in CI.

    ``tests`` runs them at a size that keeps the suite under 20 minutes; this
    session multiplies their replications (BENCHVERDICT_SIM_SCALE) to narrow
    the binomial tolerances. Pass another factor as ``-- 10``.
    """
    extras = "test,example"
    if shutil.which("R"):
        extras += ",lme4"
    _install(session, extras)
    scale = session.posargs[0] if session.posargs else "5"
    session.run("pytest", "-m", "slow", "tests", "-p", "no:cacheprovider",
                env={"BENCHVERDICT_SIM_SCALE": scale}, success_codes=[0, 5])


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Ruff: lint and format check."""
    session.install("ruff>=0.5")
    session.run("ruff", "check", "src", "tests", "benchmarks", "analyses", "noxfile.py")


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Speed and memory benchmarks against the anchors, in one process each."""
    # dask: bench_dask.py and bench_dask_trials.py time the Dask engine.
    extras = "test,example,bench,dask"
    if shutil.which("R"):
        extras += ",lme4"
    _install(session, extras)
    session.run("python", "benchmarks/run_all.py", *session.posargs)
