"""Adapters for published benchmark-result formats.

Each adapter reads one format, maps it onto the schema's roles explicitly,
and returns a :class:`~benchverdict.results.Results`. Nothing is guessed: the
docstring of each adapter says which column becomes which role, what the
objective is, and whether rows are random-search draws (``kind="trials"``)
or HPO-run incumbents (``kind="runs"``).

========================= ================================ ======= ======
format                    source                           kind    objective
========================= ================================ ======= ======
:func:`read_deberta`      opda / Lourie et al. JSON Lines  trials  maximize
:func:`read_meanmax`      Tang et al. meanmax TSV          trials  maximize
:func:`read_priorband`    lmem-significance / PriorBand    runs    minimize
:func:`read_hpob`         HPO-B long table                 runs    maximize
:func:`from_autorank_wide` autorank's wide table           runs    given
:func:`read_optuna`       Optuna studies (storage or       runs    the study's
                          Study objects)                           direction
:func:`read_smac`         SMAC3 output folders             runs    minimize
                          (SMAC's incumbent trajectory)            (SMAC's cost)
:func:`read_syne_tune`    Syne Tune tuner folders          runs    the recorded
                          (best so far over wall clock)            metric_mode
:func:`read_ray_tune`     Ray Tune experiment folders      runs    TuneConfig's
                          (or ResultGrid objects)                  mode
:func:`read_neps`         NePS root directories            runs    minimize
                                                                   (NePS's
                                                                   objective_to_
                                                                   minimize)
:func:`read_rliable`      rliable score arrays             runs    given
                          ``{algorithm: runs x tasks}``
:func:`read_amlb`         AutoML-benchmark results.csv     runs    AMLB's metric
                                                                   definitions
========================= ================================ ======= ======

The HPO-tool readers (Optuna, ...) turn each run's trials into its
incumbents (best so far, ``kind="runs"``) and record every trial that has no
result (pruned, failed, still running) in ``results.exclusions`` with the
tool's state; see :mod:`benchverdict.io._hpo_runs`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from benchverdict._validation import Problem, ValidationError, format_rows
from benchverdict.exclusions import concat_exclusions
from benchverdict.io import check_regular, read_frame
from benchverdict.io._hpo_runs import with_exclusions
from benchverdict.io.neps_runs import read_neps
from benchverdict.io.optuna_studies import read_optuna
from benchverdict.io.ray_tune_runs import read_ray_tune
from benchverdict.io.score_tables import read_amlb, read_rliable
from benchverdict.io.smac_runs import read_smac
from benchverdict.io.syne_tune_runs import read_syne_tune
from benchverdict.results import Objective, Results, exclusions_table

OnInvalid = Literal["raise", "drop"]
HYPERPARAMETERS_DEBERTA = (
    "num_train_epochs",
    "train_batch_size",
    "learning_rate",
    "warmup_steps",
    "cls_drop_out",
)


def _json_lines(file: Path):
    """Yield ``(line number, object)`` for every non-blank line, with clear errors."""
    from benchverdict.io import ReadError

    check_regular(file, folder_ok=False)  # a FIFO would block the read forever
    with open(file, "rb") as fh:
        for line_no, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise ReadError(file, (
                    f"cannot read {str(file)!r}: line {line_no} is not UTF-8 text (byte "
                    f"0x{raw[err.start]:02x}). Fix: save the file as UTF-8."
                )) from None
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise ReadError(file, (
                    f"cannot read {str(file)!r}: line {line_no} is not valid JSON ({err.msg}, "
                    f"column {err.colno}). Fix: check that the file is complete (one JSON "
                    f"object per line)."
                )) from None
            if not isinstance(record, dict):
                raise ReadError(file, (
                    f"cannot read {str(file)!r}: line {line_no} is not a JSON object. Fix: "
                    f"check that this is a DeBERTa *.results.jsonl file."
                ))
            yield line_no, record


def _deberta_files(path: str | Path | Sequence[str | Path]) -> list[Path]:
    if isinstance(path, (str, Path)):
        path = Path(path)
        if path.is_dir():
            files = sorted(path.glob("*.results.jsonl"))
            if not files:
                raise ValueError(f"no *.results.jsonl files in {str(path)!r}.")
            return files
        return [path]
    return [Path(p) for p in path]


def read_deberta(
    path: str | Path | Sequence[str | Path],
    *,
    validation: Literal["matched", "mismatched"] = "matched",
    score: Literal["final", "best"] = "final",
    learning_curve: bool = False,
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
) -> Results:
    """Read opda's DeBERTa random-search results (Lourie, Cho & He).

    One file per model (``deberta-base.results.jsonl``,
    ``deberta-v3-base.results.jsonl``); each line is one random-search
    configuration with its learning curves on MultiNLI's matched and
    mismatched validation sets.

    Roles: ``algorithm`` = the file name before ``.results.jsonl``;
    ``benchmark`` = ``"MultiNLI-<validation>"``; ``seed`` = ``iteration``
    (the position in the random search); ``score`` = accuracy (maximize);
    the hyperparameters are kept as metafeatures.

    Parameters
    ----------
    path : path, directory or list of paths
        A ``*.results.jsonl`` file, several, or a directory holding them.
    validation : {"matched", "mismatched"}
        Which validation set's learning curve to score.
    score : {"final", "best"}
        ``"final"``: the last point of the learning curve (the trial's score,
        as in the paper). ``"best"``: the best point (early stopping with
        the validation set, which is optimistic).
    learning_curve : bool
        If true, every learning-curve point becomes a row with ``budget`` =
        training step. Rows are then a configuration's score at each step,
        not IID draws, so ``kind="runs"``: use :meth:`Results.at_budget` for
        the scores at one step (which are IID across configurations).
    on_invalid : {"raise", "drop"}
    min_algorithms : int
        Fewest algorithms the data may hold (``1`` for a leaderboard submission).

    Returns
    -------
    Results
        ``kind="trials"`` (``"runs"`` with ``learning_curve=True``).

    Examples
    --------
    >>> import json, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> for name, acc in [("m1", 0.8), ("m2", 0.9)]:
    ...     with open(os.path.join(d, f"{name}.results.jsonl"), "w") as fh:
    ...         for i in (1, 2):
    ...             curve = [[1000, acc - 0.1], [2000, acc + i / 100]]
    ...             row = {"iteration": i, "learning_curves": {"matched": curve}}
    ...             _ = fh.write(json.dumps(row) + "\\n")
    >>> read_deberta(d).draws("m2")
    array([0.91, 0.92])
    """
    if validation not in ("matched", "mismatched"):
        raise ValueError(f"validation must be 'matched' or 'mismatched', got {validation!r}.")
    if score not in ("final", "best"):
        raise ValueError(f"score must be 'final' or 'best', got {score!r}.")
    rows = []
    for file in _deberta_files(path):
        model = file.name.removesuffix(".jsonl").removesuffix(".results")
        for line_no, record in _json_lines(file):
            curves = record.get("learning_curves", {})
            if validation not in curves:
                raise ValueError(
                    f"{file.name}, line {line_no}: no {validation!r} learning curve "
                    f"(found {sorted(curves)}). Fix: pass validation=<one of these>."
                )
            if "iteration" not in record:
                raise ValueError(
                    f"{file.name}, line {line_no}: no 'iteration' field (found "
                    f"{sorted(record)}). Fix: check that this is a DeBERTa *.results.jsonl file."
                )
            curve = curves[validation]
            hyper = {h: record.get(h, np.nan) for h in HYPERPARAMETERS_DEBERTA}
            base = {
                "algorithm": model,
                "benchmark": f"MultiNLI-{validation}",
                "iteration": record["iteration"],
                **hyper,
            }
            if learning_curve:
                for step, acc in curve:
                    rows.append({**base, "step": float(step), "accuracy": acc})
            else:
                accs = [acc for _, acc in curve]
                value = (accs[-1] if score == "final" else max(accs)) if accs else np.nan
                rows.append({**base, "accuracy": value})
    if not rows:
        raise ValueError(
            f"no random-search records in {[str(f) for f in _deberta_files(path)]}. Fix: "
            f"check that the files are complete DeBERTa *.results.jsonl files."
        )
    frame = pd.DataFrame(rows)
    meta = [h for h in HYPERPARAMETERS_DEBERTA if frame[h].notna().any()]
    return Results.from_frame(
        frame,
        algorithm="algorithm",
        benchmark="benchmark",
        seed="iteration",
        score="accuracy",
        budget="step" if learning_curve else None,
        objective="maximize",
        metafeatures=meta,
        on_invalid=on_invalid,
        kind="runs" if learning_curve else "trials",
        min_algorithms=min_algorithms,
    )


def read_meanmax(
    path: str | Path, *, set_type: str = "dev", on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
) -> Results:
    """Read Tang et al.'s meanmax TSV (castorini/meanmax, e.g. ``hedwig.tsv``).

    Each row is one random-search draw. Roles: ``algorithm`` =
    ``model_name``, ``benchmark`` = ``dataset_name``, ``seed`` = ``--seed``,
    ``score`` = ``f1`` (maximize). Only rows of ``set_type`` are read; the
    count of the others is in the exclusions.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "h.tsv")
    >>> pd.DataFrame({"model_name": ["mlp", "lstm"], "dataset_name": ["R", "R"],
    ...               "--seed": [1, 2], "set_type": ["dev", "dev"], "f1": [0.5, 0.6]}
    ...              ).to_csv(p, sep="\\t", index=False)
    >>> read_meanmax(p).algorithms
    ['lstm', 'mlp']
    """
    frame = read_frame(path, format="tsv", text_columns=["model_name", "dataset_name", "--seed"])
    needed = ["model_name", "dataset_name", "--seed", "set_type", "f1"]
    absent = [c for c in needed if c not in frame.columns]
    if absent:
        raise ValueError(
            f"{str(path)!r} lacks the meanmax column(s) {absent}; found {list(frame.columns)}."
        )
    keep = frame["set_type"] == set_type
    if not keep.any():
        raise ValueError(
            f"no rows with set_type == {set_type!r}; found {sorted(frame['set_type'].unique())}."
        )
    results = Results.from_frame(
        frame[keep],
        algorithm="model_name",
        benchmark="dataset_name",
        seed="--seed",
        score="f1",
        objective="maximize",
        on_invalid=on_invalid,
        kind="trials",
        min_algorithms=min_algorithms,
    )
    return _with_filtered(results, frame.index[~keep], "set_type", f"set_type != {set_type!r}")


def read_priorband(
    path: str | Path,
    *,
    score: str = "value",
    benchmark: Literal["bench_prior", "benchmark"] = "bench_prior",
    priors: Sequence[str] | None = None,
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
) -> Results:
    """Read lmem-significance's PriorBand frames (Geburek et al.).

    Works for ``priorband_data.parquet`` (24 integer budget steps) and
    ``priorband_anytime_full.parquet`` (every incumbent change). Each row is
    the incumbent of one HPO run at ``used_fidelity``: ``kind="runs"``.

    Roles: ``algorithm``; ``seed`` (cast to int); ``budget`` =
    ``used_fidelity``; ``score`` = ``value`` (incumbent loss, minimize) or
    another loss column (``normalized_regret``, ``simple_regret``: minimize).
    The same benchmark is run under several prior qualities, so the default
    benchmark role is ``bench_prior`` (benchmark x prior); the metafeatures
    ``task`` (the benchmark) and ``prior`` keep both parts. With
    ``benchmark="benchmark"`` pass a single prior in ``priors``, or the keys
    would be duplicated.

    Examples
    --------
    >>> df = pd.DataFrame({"benchmark": ["LC"] * 4, "prior": ["bad"] * 4,
    ...     "algorithm": ["PB", "PB", "RS", "RS"], "used_fidelity": [1.0, 2.0] * 2,
    ...     "value": [0.5, 0.4, 0.6, 0.6], "seed": [0] * 4, "bench_prior": ["LC_bad"] * 4})
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "pb.parquet")
    >>> df.to_parquet(p)
    >>> read_priorband(p).kind
    'runs'
    """
    frame = read_frame(path, format="parquet")
    if score not in frame.columns:
        raise ValueError(f"score column {score!r} not in {list(frame.columns)}.")
    if score == "rel_rank":
        raise ValueError("rel_rank is a rank, not a score; use value or a regret column.")
    frame = frame.rename(columns={"benchmark": "task"})
    dropped_prior = pd.Index([])
    if priors is not None:
        keep = frame["prior"].isin(list(priors))
        dropped_prior = frame.index[~keep]
        frame = frame[keep]
    bench_col = "bench_prior" if benchmark == "bench_prior" else "task"
    if bench_col == "task" and frame["prior"].nunique() > 1:
        raise ValueError(
            "benchmark='benchmark' with several prior qualities would duplicate every key "
            f"(priors: {sorted(frame['prior'].unique())}). Fix: pass priors=[one prior], or use "
            "benchmark='bench_prior'."
        )
    frame = frame.assign(seed=_integral_seed(frame["seed"]))
    results = Results.from_frame(
        frame,
        algorithm="algorithm",
        benchmark=bench_col,
        seed="seed",
        budget="used_fidelity",
        score=score,
        objective="minimize",
        metafeatures=["task", "prior"] if bench_col == "bench_prior" else ["prior"],
        on_invalid=on_invalid,
        kind="runs",
        min_algorithms=min_algorithms,
    )
    if len(dropped_prior):
        results = _with_filtered(results, dropped_prior, "prior", f"prior not in {list(priors)}")
    return results


def read_hpob(
    path: str | Path,
    *,
    descriptors: str | Path | None = None,
    algorithms: Sequence[str] | None = None,
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
) -> Results:
    """Read the HPO-B long table of baseline results.

    Each row is the incumbent (best normalised accuracy so far) of one run
    after ``trial`` evaluations: ``kind="runs"``, objective maximize.
    Roles: ``algorithm``; ``benchmark`` = ``"<search_space>/<dataset>"``;
    ``seed``; ``budget`` = ``trial``; ``score`` = ``incumbent_accuracy``.
    Metafeatures: ``search_space`` and ``dataset``, plus
    ``n_hyperparameters`` (the search space's dimension) when the
    ``meta-dataset-descriptors.json`` file is given (or found beside
    ``path``).

    Examples
    --------
    >>> df = pd.DataFrame({"algorithm": ["GP", "GP", "RS", "RS"], "search_space": ["1"] * 4,
    ...     "dataset": ["9"] * 4, "seed": ["test0"] * 4, "trial": [0, 1, 0, 1],
    ...     "incumbent_accuracy": [0.5, 0.7, 0.4, 0.4]})
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "h.parquet")
    >>> df.to_parquet(p)
    >>> read_hpob(p).benchmarks
    ['1/9']
    """
    frame = read_frame(path, format=None,
                       text_columns=["algorithm", "search_space", "dataset", "seed"])
    dropped = pd.Index([])
    if algorithms is not None:
        keep = frame["algorithm"].isin(list(algorithms))
        dropped = frame.index[~keep]
        frame = frame[keep]
    frame = frame.assign(
        benchmark=frame["search_space"].astype(str) + "/" + frame["dataset"].astype(str),
        search_space=frame["search_space"].astype(str),
        dataset=frame["dataset"].astype(str),
    )
    meta = ["search_space", "dataset"]
    if descriptors is None:
        candidate = Path(path).with_name("meta-dataset-descriptors.json")
        descriptors = candidate if candidate.exists() else None
    if descriptors is not None:
        check_regular(descriptors, folder_ok=False)
        with open(descriptors, encoding="utf-8") as fh:
            spaces = json.load(fh)
        dims = {str(k): len(v.get("variables_order", v.get("variables", {})))
                for k, v in spaces.items()}
        frame["n_hyperparameters"] = frame["search_space"].map(dims).astype("Int64")
        meta.append("n_hyperparameters")
    results = Results.from_frame(
        frame,
        algorithm="algorithm",
        benchmark="benchmark",
        seed="seed",
        budget="trial",
        score="incumbent_accuracy",
        objective="maximize",
        metafeatures=meta,
        on_invalid=on_invalid,
        kind="runs",
        min_algorithms=min_algorithms,
    )
    if len(dropped):
        results = _with_filtered(results, dropped, "algorithm",
                                 f"algorithm not in {list(algorithms)}")
    return results


def from_autorank_wide(
    data: pd.DataFrame | str | Path,
    *,
    objective: Objective,
    benchmark_column: str | None = None,
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
) -> Results:
    """Read autorank's wide table: rows are blocks, columns are algorithms.

    Every cell is one algorithm's (final) score on one block, so
    ``kind="runs"`` with a single constant seed ``0``. Block labels come from
    ``benchmark_column`` if given (the CLI's ``--benchmark``); else from a
    first column of text (a paper table's data-set names, read as written:
    ``NA`` or ``null`` is a name there, not a missing value), which is then
    the only column that may be non-numeric; else from a first column
    without a header (a saved index: pandas reads it as ``Unnamed: 0``); else
    from the index (a file's row numbers, kept as integers so that they sort
    0, 1, 2, ..., 10).

    Without labels in the index, a first column that looks like ids is
    refused: distinct whole numbers beside fractional scores, named like ids
    (``task_id``, ``dataset``, ...) or mostly outside the other columns'
    range (OpenML task ids beside accuracies). It would otherwise be compared
    as one more algorithm; ``benchmark_column`` names it.

    Examples
    --------
    >>> wide = pd.DataFrame({"A": [0.9, 0.8], "B": [0.7, 0.85]}, index=["d1", "d2"])
    >>> from_autorank_wide(wide, objective="maximize").blocks().matrix
    algorithm     A     B
    benchmark
    d1         0.90  0.70
    d2         0.80  0.85
    >>> paper = pd.DataFrame({"dataset": ["iris", "wine"], "A": [0.9, 0.8], "B": [0.7, 0.85]})
    >>> from_autorank_wide(paper, objective="maximize").benchmarks
    ['iris', 'wine']
    """
    if isinstance(data, (str, Path)):
        if benchmark_column:
            frame = read_frame(data, text_columns=[benchmark_column])
        else:
            frame = _wide_first_column_read(data)
    else:
        frame = data.copy()
    if benchmark_column is None and len(frame.columns) > 1:
        first = frame.columns[0]
        rest_numeric = all(pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns[1:])
        if rest_numeric and (not pd.api.types.is_numeric_dtype(frame[first])
                             or _is_saved_index(first)):
            benchmark_column = first  # a paper table: data-set names, then one column each
        elif (rest_numeric and isinstance(frame.index, pd.RangeIndex)
              and _looks_like_ids(frame[first], first, frame[frame.columns[1:]])):
            shown = ", ".join(map(str, frame[first].head(4).tolist()))
            raise ValueError(
                f"autorank's wide table has one numeric column per algorithm, but its first "
                f"column {first!r} holds whole numbers ({shown}, ...) beside fractional "
                f"scores: ids, most likely, which would be compared as one more algorithm. "
                f"Fix: if it names the benchmarks (data sets, task ids), pass "
                f"benchmark_column={first!r} (command line: --benchmark {first}); if it is "
                f"an algorithm's scores, add a first column of benchmark names.")
    if benchmark_column is not None:
        if benchmark_column not in frame.columns:
            raise ValueError(f"benchmark_column {benchmark_column!r} not in {list(frame.columns)}.")
        frame = frame.set_index(benchmark_column)
    if not pd.api.types.is_integer_dtype(frame.index.dtype):
        frame.index = frame.index.astype(str)
    frame.index.name = "benchmark"
    non_numeric = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if non_numeric:
        raise ValueError(
            f"autorank's wide table has one numeric column per algorithm; columns {non_numeric} "
            f"are not numeric. Fix: name the column of benchmark (data set) names with "
            f"benchmark_column=<column> (command line: --benchmark COLUMN), or drop the others."
        )
    bad, problems = _wide_cell_problems(frame)
    if problems and (on_invalid != "drop" or not all(p.droppable for p in problems)):
        raise ValidationError(problems)
    long = frame.reset_index().melt(id_vars="benchmark", var_name="algorithm", value_name="score")
    long["seed"] = 0
    dropped = bad.to_numpy().ravel(order="F")  # melt stacks the columns one after another
    results = Results.from_frame(
        long[~dropped],
        algorithm="algorithm",
        benchmark="benchmark",
        seed="seed",
        score="score",
        objective=objective,
        on_invalid=on_invalid,
        kind="runs",
        min_algorithms=min_algorithms,
    )
    if not dropped.any():
        return results
    rows, cols = np.nonzero(bad.to_numpy())
    return with_exclusions(results, pd.DataFrame({
        "row": rows.tolist(), "columns": [str(frame.columns[c]) for c in cols],
        "algorithm": [str(frame.columns[c]) for c in cols],
        "benchmark": [str(frame.index[r]) for r in rows],
        "reason": ["missing score" if np.isnan(frame.iat[r, c]) else "infinite score"
                   for r, c in zip(rows, cols)]}))


def _wide_cell_problems(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[Problem]]:
    """The wide table's missing or infinite cells, and a problem per algorithm column.

    Each problem names the algorithm's column and the table's own rows
    (counted from 0, as the file's data rows are), not the rows of the long
    table the cells become.
    """
    problems = []
    flags = [c for c in frame.columns if pd.api.types.is_bool_dtype(frame[c])]
    for column in flags:
        problems.append(Problem(
            column=str(column), reason="non_numeric_score",
            message=(f"column {str(column)!r} holds booleans (True/False), not scores "
                     f"(booleans are never read as 1/0). Fix: give the algorithm's scores, "
                     f"or drop the column."), droppable=False))
    values = frame.to_numpy(dtype=float)
    bad = pd.DataFrame(~np.isfinite(values), index=frame.index, columns=frame.columns)
    for j, column in enumerate(frame.columns):
        if column in flags:
            continue
        for what, mask in (("missing value(s) (NaN)", np.isnan(values[:, j])),
                           ("infinite value(s)", np.isinf(values[:, j]))):
            rows = tuple(np.flatnonzero(mask).tolist())
            if rows:
                problems.append(Problem(
                    column=str(column), reason="missing_score" if "NaN" in what
                    else "non_finite_score",
                    message=(f"column {str(column)!r} (algorithm {str(column)!r}) has "
                             f"{len(rows)} {what} at {format_rows(rows)} of the table. Fix: "
                             f"fill in the algorithm's score on those benchmarks, or pass "
                             f"on_invalid='drop' to drop and record those cells."),
                    rows=rows, droppable=True))
    return bad, problems


def _wide_first_column_read(path: str | Path) -> pd.DataFrame:
    """A wide table read with its first column as written when that column names benchmarks.

    The first column is read as text (``NA``, ``None`` or ``null`` stay
    names); when every cell of it is a number or a missing-value word
    (an algorithm's scores, some missing) it is read again with those words
    missing, as every other column is.
    """
    from benchverdict.io import _NA_WORDS

    plain = read_frame(path)
    if not len(plain.columns) or pd.api.types.is_bool_dtype(plain[plain.columns[0]]):
        return plain  # booleans are refused as they are, not read as names "True"/"False"
    first = plain.columns[0]
    texts = read_frame(path, text_columns=[first])
    cells = texts[first]
    if pd.api.types.is_numeric_dtype(cells):
        return plain  # a Parquet file's own types
    missing = cells.isna() | cells.isin(_NA_WORDS)
    numbers = pd.to_numeric(cells.where(~missing), errors="coerce")
    if (numbers.notna() | missing).all() and numbers.notna().any():
        return plain  # scores with missing cells: the words mean missing there
    return texts


def _is_saved_index(column: object) -> bool:
    """Whether ``column`` is a headerless first column (pandas names it ``Unnamed: 0``)."""
    return isinstance(column, str) and (column == "" or column == "Unnamed: 0")


#: Column names that say "these are ids or names of benchmarks".
_ID_NAME = re.compile(r"(?i)(?:^|[^a-z])(?:id|ids|task|tasks|dataset|datasets|data|did|tid|"
                      r"openml|benchmark|benchmarks|problem|problems|instance|instances|"
                      r"name|names)(?:$|[^a-z])")


def _looks_like_ids(values: pd.Series, name: object, others: pd.DataFrame) -> bool:
    """Whether a wide table's first column is more likely ids than an algorithm's scores.

    Distinct whole numbers, beside some fractional scores, and either named
    like ids or mostly (half or more) outside the range of the other columns.
    Whole-number scores among fractional ones (percentages 85, 90, 70 beside
    85.5) are not ids.
    """
    if not _whole_numbers(values) or all(_whole_numbers(others[c]) for c in others.columns):
        return False
    present = values.dropna()
    if present.duplicated().any():
        return False
    if _ID_NAME.search(str(name)):
        return True
    rest = others.to_numpy(dtype=float)
    low, high = np.nanmin(rest), np.nanmax(rest)
    outside = (present.to_numpy(dtype=float) < low) | (present.to_numpy(dtype=float) > high)
    return bool(outside.mean() >= 0.5)


def _whole_numbers(values: pd.Series) -> bool:
    """Whether every present value of ``values`` is a whole number (integers, or 3.0)."""
    if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
        return False
    if pd.api.types.is_integer_dtype(values):
        return True
    present = values.dropna().to_numpy(dtype=float)
    whole = np.isfinite(present) & (present == np.round(present))
    return bool(present.size) and bool(np.all(whole))


ADAPTERS = {
    "deberta": read_deberta,
    "meanmax": read_meanmax,
    "priorband": read_priorband,
    "hpob": read_hpob,
    "optuna": read_optuna,
    "smac": read_smac,
    "syne-tune": read_syne_tune,
    "ray-tune": read_ray_tune,
    "neps": read_neps,
    "rliable": read_rliable,  # needs objective= (read_adapter passes it)
    "amlb": read_amlb,  # takes score= and objective= (read_adapter passes them)
}
#: Adapters of HPO tools whose runs are named by a pattern (``name_pattern=``).
NAMED_RUNS = frozenset({"optuna", "smac", "syne-tune", "ray-tune", "neps"})
#: Adapters whose format does not record the objective: they need ``objective=``.
NEEDS_OBJECTIVE = frozenset({"autorank-wide", "rliable"})
#: The command-line input options each adapter uses besides the file and ``--on-invalid``
#: (Python names); every other role option is refused with the adapter, not ignored.
ADAPTER_OPTIONS: dict[str, frozenset[str]] = {
    **{name: frozenset() for name in ADAPTERS},
    **{name: frozenset({"name_pattern"}) for name in NAMED_RUNS},
    "optuna": frozenset({"name_pattern", "seconds"}),
    "ray-tune": frozenset({"name_pattern", "objective", "score", "trust_pickle"}),
    "neps": frozenset({"name_pattern", "trust_pickle"}),
    "amlb": frozenset({"objective", "score"}),
    "rliable": frozenset({"objective"}),
    "autorank-wide": frozenset({"objective", "benchmark"}),
}


def read_adapter(name: str, path: str | Path, *, on_invalid: OnInvalid = "raise",
                 objective: Objective | None = None, score: str | None = None,
                 name_pattern: str | None = None, min_algorithms: int = 2,
                 trust_pickle: bool = False, benchmark: str | None = None,
                 seconds: bool = False) -> Results:
    """Read ``path`` with the adapter called ``name`` (used by the CLI's ``--adapter``).

    ``objective`` is used only by the adapters in :data:`NEEDS_OBJECTIVE`
    (the others take it from the format); ``score`` names the metric where a
    format holds several (the CLI's ``--score``); ``name_pattern`` names the
    runs of the HPO-tool adapters in :data:`NAMED_RUNS` (the CLI's
    ``--name-pattern``); ``min_algorithms=1`` lets every adapter read a single
    algorithm's runs (a leaderboard submission). ``trust_pickle`` (the CLI's
    ``--trust-pickle``) lets the ray-tune adapter unpickle ``tuner.pkl`` and the
    neps adapter NePS's trial and state pickles, which can run code; ray-tune
    also takes ``objective`` and ``score`` (the metric).
    ``benchmark`` (the CLI's ``--benchmark``) names autorank-wide's column of
    benchmark names. ``seconds`` (the CLI's ``--seconds``) keeps the optuna
    adapter's trial times as the metafeature ``seconds`` (a leaderboard's cost).

    Examples
    --------
    >>> sorted(ADAPTERS)
    ['amlb', 'deberta', 'hpob', 'meanmax', 'neps', 'optuna', 'priorband', 'ray-tune', 'rliable',
     'smac', 'syne-tune']
    """
    if name_pattern is not None and name not in NAMED_RUNS:
        raise ValueError(f"the {name} adapter takes no name pattern; only "
                         f"{sorted(NAMED_RUNS)} do.")
    if name == "autorank-wide":
        if objective is None:
            raise ValueError("the autorank-wide adapter needs --objective maximize|minimize.")
        return from_autorank_wide(path, objective=objective, on_invalid=on_invalid,
                                  benchmark_column=benchmark, min_algorithms=min_algorithms)
    if name == "rliable":
        if objective is None:
            raise ValueError("the rliable adapter needs --objective maximize|minimize.")
        return read_rliable(path, objective=objective, on_invalid=on_invalid,
                            min_algorithms=min_algorithms)
    if name == "amlb":
        return read_amlb(path, score=score, objective=objective, on_invalid=on_invalid,
                         min_algorithms=min_algorithms)
    if name not in ADAPTERS:
        known = sorted({*ADAPTERS, *NEEDS_OBJECTIVE})
        raise ValueError(f"unknown adapter {name!r}; known: {known}.")
    if seconds and name != "optuna":
        raise ValueError(f"the {name} adapter records no trial times benchverdict reads; "
                         f"seconds is for optuna.")
    if trust_pickle and name not in ("ray-tune", "neps"):
        raise ValueError(f"the {name} adapter reads no pickle; trust_pickle is for ray-tune "
                         f"and neps.")
    if name == "optuna":
        return ADAPTERS[name](path, on_invalid=on_invalid, name_pattern=name_pattern,
                              min_algorithms=min_algorithms, seconds=seconds)
    if name == "ray-tune":
        return read_ray_tune(path, on_invalid=on_invalid, name_pattern=name_pattern,
                             objective=objective, metric=score, trust_pickle=trust_pickle,
                             min_algorithms=min_algorithms)
    if name == "neps":
        return ADAPTERS[name](path, on_invalid=on_invalid, name_pattern=name_pattern,
                              min_algorithms=min_algorithms, trust_pickle=trust_pickle)
    if name in NAMED_RUNS:
        return ADAPTERS[name](path, on_invalid=on_invalid, name_pattern=name_pattern,
                              min_algorithms=min_algorithms)
    return ADAPTERS[name](path, on_invalid=on_invalid, min_algorithms=min_algorithms)


def _integral_seed(seed: pd.Series) -> pd.Series:
    """Cast float seeds (0.0, 1.0, ...) to int, refusing non-integral values."""
    if pd.api.types.is_float_dtype(seed.dtype):
        values = seed.to_numpy()
        finite = np.isfinite(values)
        if (values[finite] != np.round(values[finite])).any():
            bad = seed.index[finite & (values != np.round(values))]
            raise ValueError(
                f"column 'seed' has non-integral values at rows {list(bad[:5])}. Fix: check the "
                f"file; seeds identify runs."
            )
        if finite.all():
            return seed.astype(np.int64)
    return seed


def _with_filtered(results: Results, rows: pd.Index, column: str, reason: str) -> Results:
    """Record rows an adapter filtered out on purpose in ``results.exclusions``."""
    if len(rows) == 0:
        return results
    extra = pd.DataFrame({"row": list(rows), "columns": column,
                          "reason": f"filtered: {reason}"})
    exclusions = concat_exclusions([results.exclusions, exclusions_table(extra)])
    return Results(
        results._frame,
        objective=results.objective,
        kind=results.kind,
        kind_reason=results.kind_reason,
        roles=results.roles,
        metafeatures=results.metafeatures,
        exclusions=exclusions,
    )


__all__ = [
    "ADAPTERS",
    "NAMED_RUNS",
    "NEEDS_OBJECTIVE",
    "from_autorank_wide",
    "read_adapter",
    "read_amlb",
    "read_deberta",
    "read_hpob",
    "read_meanmax",
    "read_neps",
    "read_optuna",
    "read_priorband",
    "read_ray_tune",
    "read_rliable",
    "read_smac",
    "read_syne_tune",
]
