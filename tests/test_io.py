"""Readers: every supported format, and clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import benchverdict as bv
from benchverdict.io import detect_format, read_frame

ROLES = dict(algorithm="alg", seed="s", score="y", objective="minimize", benchmark="b",
             kind="trials")


@pytest.fixture()
def frame():
    rng = np.random.default_rng(1)
    return pd.DataFrame({
        "alg": np.repeat(["x", "y"], 6), "b": np.tile(np.repeat(["p", "q"], 3), 2),
        "s": np.tile([0, 1, 2], 4), "y": rng.normal(size=12), "extra": "z",
    })


@pytest.mark.parametrize("suffix", ["csv", "csv.gz", "tsv", "parquet", "jsonl"])
def test_round_trip_each_format(tmp_path, frame, suffix):
    path = tmp_path / f"r.{suffix}"
    if suffix.startswith("csv"):
        frame.to_csv(path, index=False)
    elif suffix == "tsv":
        frame.to_csv(path, sep="\t", index=False)
    elif suffix == "parquet":
        frame.to_parquet(path)
    else:
        frame.to_json(path, orient="records", lines=True)
    res = bv.read(path, **ROLES)
    np.testing.assert_allclose(np.sort(res.table["score"]), np.sort(frame["y"]))
    assert res.algorithms == ["x", "y"] and res.benchmarks == ["p", "q"]


def test_directory_of_parquet_parts(tmp_path, frame):
    parts = tmp_path / "parts"
    parts.mkdir()
    frame.iloc[:5].to_parquet(parts / "part-0.parquet")
    frame.iloc[5:].to_parquet(parts / "part-1.parquet")
    res = bv.read(parts, **ROLES)
    assert len(res) == 12
    assert detect_format(parts) == "parquet"


def test_missing_parquet_column_is_named(tmp_path, frame):
    path = tmp_path / "r.parquet"
    frame.to_parquet(path)
    with pytest.raises(bv.ValidationError, match="'loss'"):
        bv.read(path, **{**ROLES, "score": "loss"})


def test_unknown_suffix_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match="format="):
        detect_format(tmp_path / "r.xlsx")
    with pytest.raises(FileNotFoundError):
        read_frame(tmp_path / "nope.csv")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"no \*\.parquet"):
        read_frame(tmp_path / "empty")
