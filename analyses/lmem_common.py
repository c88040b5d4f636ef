"""Shared bits of the LMEM analysis scripts: where the data and outputs live."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: ../shared/data from the repository (override with BENCHVERDICT_SHARED_DATA).
SHARED = Path(os.environ.get("BENCHVERDICT_SHARED_DATA", ROOT.parent / "shared" / "data"))
OUT = ROOT / "analyses" / "out"


def priorband(full: bool = False):
    """The PriorBand study as Results (benchmark = benchmark x prior; metafeatures task, prior)."""
    from benchverdict.io.adapters import read_adapter

    name = "priorband_anytime_full.parquet" if full else "priorband_data.parquet"
    path = SHARED / "priorband" / name
    if not path.exists():
        raise SystemExit(f"PriorBand data not found at {path}; set BENCHVERDICT_SHARED_DATA.")
    return read_adapter("priorband", path)


def out_dir(name: str) -> Path:
    """A fresh output folder under analyses/out/."""
    path = OUT / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def finding(paper: str, ours: str) -> None:
    """Print the paper's finding next to ours."""
    print(f"\n  paper: {paper}\n  ours:  {ours}")
