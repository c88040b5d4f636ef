"""The paper kit: every script in ``analyses/`` runs to the end on the shared data.

Nothing ran them, and ``ranks_geburek_fig2_autorank.py`` had stopped at its own check
(it compared autorank's table with the wrapper's raw one, which is in power-of-two scaled
units since the wrapper scales scores for autorank's tests). Each script checks its own
numbers against the paper it reproduces; this test runs them (``dse_table1.py`` with a
few trials: its default takes 14 minutes) and fails when one stops.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p.name for p in (ROOT / "analyses").glob("*.py")
                 if not p.name.endswith("_common.py") and p.name != "make_example_data.py")
#: Arguments that keep a script to seconds (its defaults reproduce the paper's sizes).
SMALL = {"dse_table1.py": ["--n", "12", "--n-tuned", "4", "--n-tuning", "3"]}


def test_every_script_is_listed():
    assert "ranks_geburek_fig2_autorank.py" in SCRIPTS and len(SCRIPTS) >= 14


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_script_runs_to_the_end(script, shared_data, tmp_path):
    args = list(SMALL.get(script, []))
    if script.startswith("ranks_"):
        args += ["--data", str(shared_data / "priorband" / "priorband_data.parquet")]
    if script == "report_demos.py":
        args += ["--data", str(shared_data)]
    env = {**os.environ, "MPLBACKEND": "Agg", "BENCHVERDICT_SHARED_DATA": str(shared_data),
           "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, str(ROOT / "analyses" / script), *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
