"""Hostile input at the readers (issue 25): names pandas calls missing, non-regular files,
catastrophic name patterns, foreign SQLite files given as Optuna storages, pickles in Ray
Tune folders, look-alike names."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sqlite3
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from benchverdict import Results, io
from benchverdict._validation import ReadError, ValidationError
from benchverdict.cli import main
from benchverdict.io import adapters
from benchverdict.io._hpo_runs import compile_name_pattern, run_identities

ROLES = dict(algorithm="alg", seed="seed", score="acc", objective="maximize", kind="runs")


def _csv(tmp_path: Path, text: str, name: str = "r.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ 1. NA words are names
@pytest.mark.parametrize("word", ["NA", "N/A", "None", "null", "NaN", "nan", "NULL", "n/a"])
@pytest.mark.parametrize("sep", [",", "\t"])
def test_na_words_are_names_in_name_columns(tmp_path, word, sep):
    rows = [("alg", "task", "seed", "acc")] + [
        (a, b, str(s), str(0.1 * i + s / 10)) for i, a in enumerate([word, "TPE"])
        for b in (word, "p") for s in (0, 1)]
    path = _csv(tmp_path, "\n".join(sep.join(r) for r in rows) + "\n",
                "r.csv" if sep == "," else "r.tsv")
    res = io.read(path, benchmark="task", **ROLES)
    assert sorted(res.algorithms) == sorted([word, "TPE"])
    assert sorted(res.benchmarks) == sorted([word, "p"])
    assert len(res) == 8 and res.exclusions.empty


def test_na_word_as_seed_and_missing_score_still_missing(tmp_path):
    path = _csv(tmp_path, "alg,seed,acc\nA,NA,0.5\nA,1,NA\nB,NA,0.6\nB,1,0.7\n")
    with pytest.raises(ValidationError) as err:
        io.read(path, **ROLES)
    [problem] = err.value.problems
    assert problem.reason == "missing_score" and problem.rows == (1,)
    res = io.read(path, on_invalid="drop", **ROLES)
    assert res.seeds == ["1", "NA"] or set(map(str, res.seeds)) == {"1", "NA"}
    assert list(res.exclusions["row"]) == [1]


def test_empty_name_cell_is_missing_and_named(tmp_path):
    path = _csv(tmp_path, "alg,seed,acc\nNA,0,0.5\n,1,0.6\nTPE,0,0.7\nTPE,1,0.8\n")
    with pytest.raises(ValidationError) as err:
        io.read(path, **ROLES)
    [problem] = err.value.problems
    assert problem.reason == "missing_algorithm" and problem.rows == (1,)
    res = io.read(path, on_invalid="drop", min_algorithms=2, **ROLES)
    assert res.algorithms == ["NA", "TPE"] and list(res.exclusions["row"]) == [1]


# ------------------------------------------------------------------ 2. NUL in names
@pytest.mark.parametrize("cell", ["a\0b", '"a\0b"', "a\0", "\0a"])
def test_nul_in_a_csv_name_is_refused_not_truncated(tmp_path, cell):
    path = tmp_path / "nul.csv"
    path.write_bytes(f"alg,seed,acc\n{cell},0,0.5\n{cell},1,0.6\nTPE,0,0.7\nTPE,1,0.8\n"
                     .encode())
    with pytest.raises(ValidationError) as err:
        io.read(path, **ROLES)
    [problem] = err.value.problems
    assert problem.reason == "control_characters_algorithm" and problem.rows == (0, 1)
    assert "NUL" in problem.message and "'alg'" in problem.message


def test_nul_in_a_wide_table_header_is_refused(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_bytes(b"dataset,a\0b,TPE\nd1,0.5,0.6\nd2,0.7,0.1\n")
    with pytest.raises(ValidationError, match="NUL"):
        adapters.from_autorank_wide(path, objective="maximize", benchmark_column="dataset")


# ------------------------------------------------------------------ 4. non-regular files
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("args", [
    ["--algorithm", "alg", "--seed", "seed", "--score", "acc", "--objective", "maximize",
     "--kind", "runs"],
    ["--adapter", "optuna"],
    ["--adapter", "autorank-wide", "--objective", "maximize"],
])
def test_fifo_is_refused_at_once_by_the_cli(tmp_path, capsys, args):
    fifo = tmp_path / "runs.csv"
    os.mkfifo(fifo)
    start = time.monotonic()
    code = main(["validate", str(fifo), *args])
    assert time.monotonic() - start < 10
    assert code == 2
    assert "named pipe (FIFO)" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_refused_by_the_api(tmp_path):
    fifo = tmp_path / "runs.csv"
    os.mkfifo(fifo)
    with pytest.raises(ReadError, match="named pipe"):
        io.read(fifo, **ROLES)
    with pytest.raises(ReadError, match="named pipe"):
        adapters.read_optuna(fifo)
    with pytest.raises(ReadError, match="named pipe"):
        adapters.read_meanmax(fifo)


def test_folder_where_a_csv_is_expected(tmp_path):
    with pytest.raises(ReadError, match="is a folder"):
        io.read(tmp_path, format="csv", **ROLES)


def test_device_is_refused(tmp_path):
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    with pytest.raises(ReadError, match="a device"):
        io.read("/dev/zero", format="csv", **ROLES)


# ------------------------------------------------------------------ 5. name patterns
@pytest.mark.parametrize("pattern", [r"(?P<algorithm>(a|a)+)$", r"(?P<algorithm>(a|aa)+)$",
                                     r"(?P<algorithm>(a+)+)$", r"(?P<algorithm>(\w|\w)*)!x"])
def test_catastrophic_name_pattern_returns_promptly(pattern):
    start = time.monotonic()
    with pytest.raises(ValueError, match="name_pattern") as err:
        run_identities([("a" * 50 + "!", {})] * 3, tool="Optuna",
                       pattern=compile_name_pattern(pattern), fixes={})
    assert time.monotonic() - start < 8
    assert "backtracks" in str(err.value) or "do not match" in str(err.value)


def test_name_pattern_still_reads_names():
    ids = run_identities([("tpe-3", {})], tool="SMAC", fixes={},
                         pattern=compile_name_pattern(r"(?P<algorithm>\w+)-(?P<seed>\d+)"))
    assert ids[["algorithm", "seed"]].to_dict("records") == [{"algorithm": "tpe", "seed": 3}]


def test_invalid_name_pattern_is_a_clear_error():
    with pytest.raises(ValueError, match="not a valid regular expression"):
        compile_name_pattern(r"(?P<algorithm>[a-")


# ------------------------------------------------------------------ 6. Optuna storages
def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("kind", ["unrelated", "empty", "junk"])
@pytest.mark.parametrize("as_url", [False, True])
def test_optuna_adapter_never_writes_into_a_foreign_file(tmp_path, kind, as_url, capsys):
    path = tmp_path / "data.db"
    if kind == "unrelated":
        connection = sqlite3.connect(path)
        connection.execute("CREATE TABLE thesis (chapter TEXT)")
        connection.execute("INSERT INTO thesis VALUES ('intro')")
        connection.commit()
        connection.close()
    elif kind == "empty":
        path.touch()
    else:
        path.write_bytes(b"not a database at all")
    before = _digest(path)
    source = f"sqlite:///{path}" if as_url else path
    with pytest.raises(ValueError, match="left unchanged"):
        adapters.read_optuna(source)
    assert _digest(path) == before
    if not as_url:
        assert main(["validate", str(path), "--adapter", "optuna"]) == 1
        err = capsys.readouterr().err
        assert "Optuna" in err and "Traceback" not in err
        assert _digest(path) == before


def test_optuna_url_to_a_missing_file_is_not_created(tmp_path):
    path = tmp_path / "absent.db"
    with pytest.raises(FileNotFoundError):
        adapters.read_optuna(f"sqlite:///{path}")
    assert not path.exists()


# ------------------------------------------------------------------ 7. Ray Tune pickles
class _Marker:
    """Unpickling this creates the marker file (any code could run instead)."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _ray_experiment(root: Path, name: str, marker: Path) -> Path:
    """A Ray Tune experiment folder whose pickles would write ``marker`` when loaded."""
    folder = root / name
    folder.mkdir(parents=True)
    payload = pickle.dumps(_Marker(str(marker)))
    (folder / "tuner.pkl").write_bytes(payload)
    (folder / "basic-variant-state-2026-01-01_00-00-00.json").write_bytes(payload)
    trials = []
    for i, loss in enumerate([3.0, 1.0, 2.0]):
        trial_id = f"abc_{i:05d}"
        state = {"trial_id": trial_id, "status": "TERMINATED" if i != 2 else "ERROR",
                 "experiment_tag": f"{i}_x={loss}",
                 # Ray's TuneFunctionDecoder would unpickle this hex on reading.
                 "storage": {"_type": "CLOUDPICKLE_FALLBACK", "value": payload.hex()}}
        meta = {"last_result": {"loss": loss, "training_iteration": 1} if i != 2 else {}}
        trials.append([json.dumps(state), json.dumps(meta)])
        trial_dir = folder / f"train_{trial_id}"
        trial_dir.mkdir()
        (trial_dir / "params.pkl").write_bytes(payload)
    (folder / "experiment_state-2026-01-01_00-00-00.json").write_text(json.dumps(
        {"trial_data": trials, "runner_data": {"_metric": "loss"}, "stats": {}}))
    return folder


def test_ray_tune_reads_without_unpickling(tmp_path, capsys):
    marker = tmp_path / "marker"
    for name in ("sphere-rs-0", "sphere-tpe-0"):
        _ray_experiment(tmp_path / "runs", name, marker)
    pattern = r"(?P<benchmark>[a-z]+)-(?P<algorithm>\w+)-(?P<seed>\d+)"
    res = adapters.read_ray_tune(tmp_path / "runs", name_pattern=pattern, objective="minimize")
    assert not marker.exists()
    assert res.algorithms == ["rs", "tpe"] and res.objective == "minimize"
    assert res.roles["score"] == "loss"
    assert res.table["score"].tolist() == [3.0, 1.0, 3.0, 1.0]
    assert len(res.exclusions) == 2 and "ERROR" in res.exclusions["reason"].iloc[0]
    # Without an objective or an algorithm group, the error asks for them and states the risk.
    with pytest.raises(ValueError, match="runs whatever code") as err:
        adapters.read_ray_tune(tmp_path / "runs", name_pattern=pattern)
    assert "trust_pickle=True" in str(err.value) and "objective=" in str(err.value)
    with pytest.raises(ValueError, match="runs whatever code"):
        adapters.read_ray_tune(tmp_path / "runs", objective="minimize",
                               name_pattern=r"(?P<benchmark>[a-z]+)-\w+-(?P<seed>\d+)")
    assert not marker.exists()
    code = main(["validate", str(tmp_path / "runs"), "--adapter", "ray-tune",
                 "--name-pattern", pattern, "--objective", "minimize"])
    out = capsys.readouterr().out
    # Exit 1 only because the ERROR trials are excluded rows (validate reports them).
    assert code == 1 and "Ray Tune trial state ERROR" in out and "tpe" in out
    assert not marker.exists()


def test_ray_tune_unpickles_only_on_opt_in(tmp_path):
    pytest.importorskip("ray")
    marker = tmp_path / "marker"
    _ray_experiment(tmp_path / "runs", "sphere-rs-0", marker)
    with pytest.raises(ValueError):  # the crafted pickle holds no TuneConfig
        adapters.read_ray_tune(tmp_path / "runs", trust_pickle=True, min_algorithms=1,
                               name_pattern=r"(?P<benchmark>[a-z]+)-\w+-(?P<seed>\d+)")
    assert marker.exists()  # the opt-in really unpickles: the test above can fail


def test_trust_pickle_is_refused_by_other_adapters(tmp_path):
    with pytest.raises(ValueError, match="ray-tune"):
        adapters.read_adapter("optuna", tmp_path, trust_pickle=True)


# ------------------------------------------------------------------ 3. look-alike names
LOOKALIKES = {
    "trailing-space": ("TPE", "TPE "),
    "leading-space": ("TPE", " TPE"),
    "zero-width-space": ("TPE", "TP\u200bE"),
    "zero-width-joiner": ("TPE", "T\u200dPE"),
    "soft-hyphen": ("TPE", "TP\u00adE"),
    "bom": ("TPE", "\ufeffTPE"),
    "nfc-nfd": ("caf\u00e9", "cafe\u0301"),
    "fullwidth": ("TPE", "\uff34\uff30\uff25"),
    "cyrillic": ("TPE", "TP\u0415"),
    "cyrillic-lower": ("random", "r\u0430ndom"),
    "greek": ("TPE", "\u03a4PE"),
    "no-break-space": ("a b", "a\u00a0b"),
}


def _two_algorithms(first: str, second: str) -> pd.DataFrame:
    return pd.DataFrame({"alg": [first] * 2 + [second] * 2, "seed": [0, 1] * 2,
                         "acc": [0.1, 0.2, 0.3, 0.4]})


@pytest.mark.parametrize("label", list(LOOKALIKES))
def test_lookalike_names_are_refused_naming_both(label, tmp_path):
    first, second = LOOKALIKES[label]
    frame = _two_algorithms(first, second)
    for path in (tmp_path / "r.csv", tmp_path / "r.parquet"):
        frame.to_csv(path, index=False) if path.suffix == ".csv" else frame.to_parquet(path)
        with pytest.raises(ValidationError) as err:
            io.read(path, **ROLES)
        [problem] = err.value.problems
        assert problem.reason == "lookalike_algorithm", problem.message
        assert repr(first) in problem.message and repr(second) in problem.message
        assert "rows 0 and 1" in problem.message and "rows 2 and 3" in problem.message
        assert problem.rows == (0, 1, 2, 3) and "Fix:" in problem.message


def test_lone_padded_name_is_refused_not_stripped():
    with pytest.raises(ValidationError) as err:
        Results.from_frame(_two_algorithms("TPE ", "BO"), **ROLES)
    [problem] = err.value.problems
    assert problem.reason == "whitespace_algorithm" and problem.rows == (0, 1)
    assert ".str.strip()" in problem.message


def test_mixed_latin_cyrillic_name_is_refused():
    with pytest.raises(ValidationError, match="mixing Latin and Cyrillic"):
        Results.from_frame(_two_algorithms("r\u0430ndom", "BO"), **ROLES)


@pytest.mark.parametrize("pair", [("rf", "RF"), ("\u03b2-VAE", "VAE"), ("BERT", "\u65e5\u672c"),
                                  ("\u0431\u0443\u043a\u0432\u0430", "word"),
                                  ("e\u0301", "x"), ("a b", "a  b")])
def test_distinct_names_stay_distinct(pair):
    res = Results.from_frame(_two_algorithms(*pair), **ROLES)
    assert sorted(res.algorithms) == sorted(pair)


# ------------------------------------------------------------------ 8. AMLB seeds
def test_amlb_seeds_are_integers_in_exclusions(tmp_path):
    """A failed run with a blank fold made the folds floats: "seed 6.0" in the exclusions."""
    rows = []
    for framework in ("A", "B"):
        for fold in range(10):
            for task in ("t1", "t2"):
                failed = framework == "B" and fold == 6 and task == "t1"
                rows.append(dict(id="x", task=task, framework=framework, constraint="1h",
                                 fold=None if failed else fold, metric="auc", mode="local",
                                 result=None if failed else 0.5 + fold / 100,
                                 info="Error: crashed" if failed else None))
    path = tmp_path / "results.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    res = adapters.read_amlb(path)
    assert res.seeds == list(range(10))
    text = " ".join(res.blocks().exclusions["reason"].astype(str))
    assert "seed 6 " in text and "6.0" not in text and "nan" not in text


def test_amlb_failures_are_named_and_each_reason_is_summarised(tmp_path):
    # Review: failed AMLB runs were recorded by row number only (no framework, task or
    # fold), and the report's summary showed the first failure's reason for all of them
    # (a Timeout and a Killed run shown as MemoryError).
    from benchverdict.exclusions import summarise_steps

    infos = {("B", 1, "t1"): "MemoryError: out of memory", ("B", 2, "t2"): "Timeout",
             ("C", 3, "t1"): "Killed"}
    rows = [dict(task=task, framework=framework, constraint="1h", fold=fold, metric="auc",
                 result=None if (framework, fold, task) in infos else 0.5 + fold / 100,
                 info=infos.get((framework, fold, task)))
            for framework in ("A", "B", "C") for fold in range(5) for task in ("t1", "t2")]
    path = tmp_path / "results.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    res = adapters.read_amlb(path)
    failed = res.exclusions.sort_values("row")
    named = set(zip(failed["algorithm"], failed["benchmark"], failed["seed"].astype(int)))
    assert named == {(f, t, s) for f, s, t in infos}
    summary = summarise_steps(res.exclusions)
    (reason,) = summary["reason"]
    assert all(f"AMLB run failed: {m}" in reason for m in infos.values())
    assert "B / t1 / seed 1" in summary["examples"].iloc[0]


# ------------------------------------------------------------------ 9. autorank's wide table
def _wide(n: int = 12) -> pd.DataFrame:
    import numpy as np

    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.normal(size=(n, 3)), columns=["A", "B", "C"])


def test_wide_table_text_first_column_names_the_benchmarks(tmp_path, capsys):
    paper = _wide()
    paper.insert(0, "data set", [f"ds-{i}" for i in range(12)])
    path = tmp_path / "paper.csv"
    paper.to_csv(path, index=False)
    res = adapters.from_autorank_wide(path, objective="maximize")
    assert sorted(res.benchmarks) == sorted(paper["data set"])
    assert res.algorithms == ["A", "B", "C"]
    assert main(["validate", str(path), "--adapter", "autorank-wide",
                 "--objective", "maximize"]) == 0


def test_wide_table_benchmark_option_and_message(tmp_path, capsys):
    table = _wide().assign(task_id=range(100, 112), note="x")
    path = tmp_path / "ids.csv"
    table.to_csv(path, index=False)
    assert main(["validate", str(path), "--adapter", "autorank-wide",
                 "--objective", "maximize"]) == 1
    assert "--benchmark COLUMN" in capsys.readouterr().err
    table.drop(columns="note").to_csv(path, index=False)
    assert main(["validate", str(path), "--adapter", "autorank-wide", "--objective",
                 "maximize", "--benchmark", "task_id"]) == 0
    res = adapters.read_adapter("autorank-wide", path, objective="maximize",
                                benchmark="task_id")
    assert [int(b) for b in res.benchmarks] == list(range(100, 112))


def test_wide_table_first_column_of_ids_is_refused_not_compared(tmp_path, capsys):
    # Review: a first column of OpenML task ids beside fractional scores was compared as one
    # more algorithm ("task_id is best, settled by LMEM"); a headerless saved index became
    # algorithm "Unnamed: 0".
    ids = _wide().assign(task_id=[3, 12, 31, 53, 3917, 9952, 7, 8, 9, 10, 11, 14])
    ids = ids[["task_id", "A", "B", "C"]]
    path = tmp_path / "ids.csv"
    ids.to_csv(path, index=False)
    with pytest.raises(ValueError, match="--benchmark task_id"):
        adapters.from_autorank_wide(path, objective="maximize")
    with pytest.raises(ValueError, match="whole numbers"):
        adapters.from_autorank_wide(ids, objective="maximize")
    assert main(["validate", str(path), "--adapter", "autorank-wide",
                 "--objective", "maximize"]) != 0
    assert "--benchmark task_id" in capsys.readouterr().err
    res = adapters.from_autorank_wide(path, objective="maximize", benchmark_column="task_id")
    assert res.algorithms == ["A", "B", "C"] and len(res.benchmarks) == 12
    # Ids beside accuracies, the column not named like ids: mostly outside their range.
    unnamed = ids.rename(columns={"task_id": "X"})
    with pytest.raises(ValueError, match="whole numbers"):
        adapters.from_autorank_wide(unnamed, objective="maximize")
    # Whole numbers everywhere (integer scores): the first column is an algorithm.
    counts = pd.DataFrame({"A": [3, 4, 5], "B": [2, 6, 1]})
    assert adapters.from_autorank_wide(counts, objective="maximize").algorithms == ["A", "B"]
    # Review: whole percentages beside fractional ones are scores, and an index that names
    # the benchmarks leaves every column an algorithm's.
    percent = pd.DataFrame({"A": [85, 90, 70], "B": [85.5, 91.25, 69.0]})
    assert adapters.from_autorank_wide(percent, objective="maximize").algorithms == ["A", "B"]
    named = pd.DataFrame({"A": [90, 80, 85], "B": [70.5, 85.25, 80.0]}, index=["d1", "d2", "d3"])
    res = adapters.from_autorank_wide(named, objective="maximize")
    assert res.algorithms == ["A", "B"] and res.benchmarks == ["d1", "d2", "d3"]
    # A boolean first column is refused in every format, never read as names "True"/"False".
    flags = pd.DataFrame({"flag": [True, False, True], "A": [0.9, 0.8, 0.7],
                          "B": [0.5, 0.6, 0.4]})
    flags.to_csv(tmp_path / "flags.csv", index=False)
    for given in (flags, tmp_path / "flags.csv"):
        with pytest.raises(ValueError, match="holds booleans"):
            adapters.from_autorank_wide(given, objective="maximize")
    # A saved index (empty header): the benchmarks.
    saved = tmp_path / "saved.csv"
    _wide().set_axis([f"ds{i}" for i in range(12)]).to_csv(saved)
    res = adapters.from_autorank_wide(saved, objective="maximize")
    assert res.algorithms == ["A", "B", "C"]
    assert sorted(res.benchmarks) == sorted(f"ds{i}" for i in range(12))


@pytest.mark.parametrize("names", [["NA", "wine", "digits", "moons"],
                                   ["NA", "null", "N/A", "nan"], ["None", "x", "y", "z"]])
def test_wide_table_names_like_missing_values_are_names(tmp_path, names):
    # Review: the adapter read data-set names NA / null / N/A / nan as missing (its first
    # column was not read as text), and --on-invalid drop then removed those benchmarks.
    table = pd.DataFrame({"dataset": names, "NA": [0.95, 0.97, 0.97, 0.9],
                          "None": [0.96, 0.98, 0.98, 0.91], "kNN": [0.94, 0.93, 0.97, 0.92]})
    path = tmp_path / "w.csv"
    table.to_csv(path, index=False)
    res = adapters.from_autorank_wide(path, objective="maximize")
    assert sorted(res.benchmarks) == sorted(names)
    assert res.algorithms == sorted(["NA", "None", "kNN"]) and len(res) == 12
    assert not res.exclusions.shape[0]


def test_wide_table_missing_scores_in_the_first_column_stay_missing(tmp_path):
    # The first column read as text must not turn an algorithm with missing cells ("NA")
    # into a column of benchmark names.
    path = tmp_path / "m.csv"
    path.write_text("RF,SVM\n0.9,NA\nNA,0.8\n0.7,0.6\n", encoding="utf-8")
    res = adapters.from_autorank_wide(path, objective="maximize", on_invalid="drop")
    assert res.algorithms == ["RF", "SVM"] and len(res) == 4


def test_wide_table_bad_cells_are_named_by_the_tables_own_column_and_row(tmp_path, capsys):
    # Review: a missing cell was reported as "column 'score' ... at rows 1 and 3", a column
    # the file does not have and rows of the long table the adapter made.
    from benchverdict._validation import ValidationError

    path = tmp_path / "w.csv"
    path.write_text("data,RF,SVM,kNN\nd0,0.9,NA,0.5\nd1,0.8,0.7,inf\nd2,0.7,0.6,0.4\n",
                    encoding="utf-8")
    with pytest.raises(ValidationError) as err:
        adapters.from_autorank_wide(path, objective="maximize")
    messages = [p.message for p in err.value.problems]
    assert any("column 'SVM'" in m and "at row 0 of the table" in m for m in messages)
    assert any("column 'kNN'" in m and "infinite" in m and "row 1 of" in m for m in messages)
    assert not any("'score'" in m for m in messages)
    assert main(["validate", str(path), "--adapter", "autorank-wide", "--objective",
                 "maximize"]) == 1
    assert "--on-invalid drop" in capsys.readouterr().out
    res = adapters.from_autorank_wide(path, objective="maximize", on_invalid="drop")
    assert len(res) == 7
    dropped = res.exclusions.sort_values("row")
    assert list(zip(dropped["algorithm"], dropped["benchmark"], dropped["row"])) == [
        ("SVM", "d0", 0), ("kNN", "d1", 1)]
    # Booleans are refused by their column, with or without drop.
    flags = pd.DataFrame({"A": [0.9, 0.8], "B": [True, False]})
    for on_invalid in ("raise", "drop"):
        with pytest.raises(ValidationError, match="column 'B' holds booleans"):
            adapters.from_autorank_wide(flags, objective="maximize", on_invalid=on_invalid)


def test_wide_table_row_numbers_sort_naturally(tmp_path):
    path = tmp_path / "plain.csv"
    _wide().to_csv(path, index=False)
    res = adapters.from_autorank_wide(path, objective="maximize")
    assert [str(b) for b in res.benchmarks] == [str(i) for i in range(12)]
    assert [str(b) for b in res.blocks().matrix.index] == [str(i) for i in range(12)]


# ------------------------------------------------------------------ 10. generated corpus
sys.path.insert(0, str(Path(__file__).parent))
import hostile  # noqa: E402

READER_CASES = hostile.reader_cases()
CORPUS_ROLES = dict(algorithm="alg", benchmark="task", seed="seed", budget="trial",
                    score="acc", objective="maximize")


def test_reader_corpus_is_large():
    assert len(READER_CASES) >= 300, len(READER_CASES)
    assert len({c.id for c in READER_CASES}) == len(READER_CASES)


@pytest.mark.parametrize("case", READER_CASES, ids=[c.id for c in READER_CASES])
def test_reader_corpus(case, tmp_path):
    """Every file reads with the same names or fails with the project's own error."""
    path = case.make(tmp_path)
    start = time.monotonic()
    try:
        res = io.read(path, **CORPUS_ROLES)
    except ValidationError as err:
        assert case.reason is not None, f"{case.id}: unexpected {err}"
        assert case.reason in [p.reason for p in err.problems], str(err)
        for p in err.problems:
            assert "Fix:" in p.message and (p.rows or p.reason == "empty"), p.message
    except ReadError as err:
        assert case.reason == "read", f"{case.id}: unexpected {err}"
        assert "Fix:" in str(err)
    else:
        assert case.names is not None, f"{case.id}: read although it must fail"
        assert set(res.algorithms) == case.names["alg"]
        assert set(res.benchmarks) == case.names["task"]
        assert len(res) == len(hostile.base_frame()) and res.exclusions.empty
    assert time.monotonic() - start < 10, f"{case.id}: slow read"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
