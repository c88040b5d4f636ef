"""Build a :class:`DaskResults`: read partitioned Parquet, validate per partition.

Validation runs the in-memory checks (:func:`benchverdict.results.validation.validate_frame`)
on every partition, with the partition's rows labelled by their global
position (the row numbers ``pandas.read_parquet`` of the same directory
would give), so each problem and exclusion record reads as in memory; row
problems also name the file they are in. What a single partition cannot see
is settled on the client from per-run summaries:

* duplicated keys across partitions: a key can only repeat across two
  partitions if the run's budget ranges there overlap; the rows of such runs
  (usually none) are gathered and checked exactly, by the same code;
* the kind (``"trials"`` or ``"runs"``): steps between partitions are
  checked at the boundaries of each run's pieces (exact when pieces do not
  interleave; interleaved runs are gathered and checked row by row);
* the categories: the sorted union of the labels of the kept rows.
"""

from __future__ import annotations

import glob as _glob
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchverdict._dask import require_dask
from benchverdict._dask.codes import codes_in
from benchverdict._validation import (
    Problem,
    ReadError,
    ValidationError,
    format_rows,
    numeric_column,
)
from benchverdict.results.schema import ID_ROLES, SINGLE_BENCHMARK, Kind, empty_exclusions
from benchverdict.results.validation import (
    kind_needed_problem,
    metafeature_values,
    validate_frame,
)


# ---------------------------------------------------------------------- reading
def parquet_parts(path: str | Path) -> list[Path]:
    """The Parquet files of a file, a directory of parts (recursively) or a glob, sorted.

    Examples
    --------
    >>> parquet_parts("/no/such/dir/*.parquet")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no Parquet file matches '/no/such/dir/*.parquet'
    """
    text = str(path)
    p = Path(text)
    if p.is_dir():
        parts = sorted(p.rglob("*.parquet"))
        if not parts:
            raise ValueError(f"directory {text!r} holds no *.parquet parts.")
        return parts
    if p.is_file():
        return [p]
    parts = sorted(Path(m) for m in _glob.glob(text, recursive=True) if Path(m).is_file())
    if not parts:
        raise FileNotFoundError(f"no Parquet file matches {text!r}")
    return parts


def _read_part(path: Path, columns: list[str] | None) -> pd.DataFrame:

    try:
        return pd.read_parquet(path, columns=columns)
    except Exception as err:
        if type(err).__module__.startswith("pyarrow"):
            raise ReadError(path, (
                f"cannot read {str(path)!r}: it is not a valid Parquet file or lacks a "
                f"column ({err}). Fix: write it again (it may be truncated), or check its "
                f"columns.")) from err
        raise


class PartitionNames(list):
    """The files behind the partitions, and each file's row count from its Parquet footer.

    The row counts let validation label rows by their global position in
    the same pass that reads them (:func:`from_dask_frame`).
    """

    lengths: list[int] | None = None


def parquet_lengths(parts: Sequence[Path]) -> list[int] | None:
    """The row count of every Parquet file from its footer (no data read), or None.

    Examples
    --------
    >>> parquet_lengths([Path("/no/such/file.parquet")]) is None
    True
    """
    try:
        import pyarrow.parquet as pq

        return [int(pq.ParquetFile(p).metadata.num_rows) for p in parts]
    except Exception:  # unreadable footers: the reading pass reports them, naming the file
        return None


def _schema_frame(path: Path) -> pd.DataFrame:
    """An empty frame with the columns and dtypes of a Parquet file, from its footer alone."""
    try:
        import pyarrow.parquet as pq

        return pq.read_schema(path).empty_table().to_pandas()
    except Exception:  # not a readable footer: reading the file names the problem
        return _read_part(path, None).iloc[:0]


def read_dask(path: str | Path, *, columns: Sequence[str] | None = None,
              format: str | None = None) -> tuple[Any, PartitionNames]:
    """A Dask DataFrame with one partition per Parquet file, and the files' names.

    The names carry the files' row counts (``names.lengths``, from the footers).

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("dask.dataframe")  # the dask extra
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> pd.DataFrame({"a": [1, 2]}).to_parquet(os.path.join(d, "p0.parquet"))
    >>> ddf, names = read_dask(d)
    >>> ddf.npartitions, [os.path.basename(n) for n in names]
    (1, ['p0.parquet'])
    """
    require_dask()
    import dask.dataframe as dd

    if format not in (None, "parquet"):
        raise ValueError(
            f"engine='dask' reads Parquet (a file, a directory of parts or a glob), not "
            f"{format!r}. Fix: convert the file to Parquet, or use engine='pandas'.")
    parts = parquet_parts(path)
    cols = None if columns is None else list(dict.fromkeys(columns))
    head = _schema_frame(parts[0])
    if cols is not None:
        missing = [c for c in cols if c not in head.columns]
        if missing:
            cols = None  # validation names the missing column and lists those that exist
    meta = head.iloc[:0] if cols is None else head[cols].iloc[:0]
    ddf = dd.from_map(_read_part, parts, columns=cols, meta=meta, enforce_metadata=False,
                      divisions=None, label="read-benchverdict-parquet")
    names = PartitionNames(str(p) for p in parts)
    names.lengths = parquet_lengths(parts)
    return ddf, names


# ---------------------------------------------------------------------- partition tasks
def _length_and_labels(pdf: pd.DataFrame, columns: tuple[str, ...]) -> dict:
    """Pass 1: the partition's length, and per id column its labels and dtype."""
    out: dict[str, Any] = {"n": len(pdf), "labels": {}, "dtypes": {}}
    for c in columns:
        if c not in pdf.columns:
            continue
        values = pdf[c]
        out["dtypes"][c] = str(values.dtype)
        if isinstance(values.dtype, pd.CategoricalDtype):
            codes = values.cat.codes.to_numpy()
            used = np.bincount(codes[codes >= 0], minlength=len(values.cat.categories)) > 0
            distinct = values.cat.categories[used]
        else:
            distinct = pd.unique(values.dropna())  # native types: far faster than objects
        out["labels"][c] = np.asarray(list(distinct), dtype=object)
    out["columns"] = list(map(str, pdf.columns))
    return out


def _positions(pdf: pd.DataFrame, offset: int) -> pd.DataFrame:
    pdf = pdf.copy(deep=False)
    pdf.index = pd.RangeIndex(offset, offset + len(pdf))
    return pdf


_codes = codes_in


def run_keys(pdf: pd.DataFrame, roles: dict, categories: dict) -> np.ndarray:
    """Each row's run key ``(a * n_benchmarks + b) * n_seeds + s`` from global categories."""
    key = np.zeros(len(pdf), dtype=np.int64)
    for role in ID_ROLES:
        cats = categories[role]
        column = roles.get(role)
        codes = (np.zeros(len(pdf), dtype=np.int64) if column is None
                 else _codes(pdf[column], cats))
        key = key * max(len(cats), 1) + codes
    return key


def summarise_runs(run: np.ndarray, budget: np.ndarray | None, score: np.ndarray,
                   sign: float) -> pd.DataFrame:
    """Per run: rows, first and last budget, the scores there, and worsening steps.

    Examples
    --------
    >>> summarise_runs(np.array([0, 0, 1]), np.array([2.0, 1.0, 5.0]),
    ...                np.array([0.5, 0.7, 0.1]), 1.0).to_dict("list")["worse"]
    [1, 0]
    """
    if budget is None:
        runs, counts = np.unique(run, return_counts=True)
        return pd.DataFrame({"run": runs, "n": counts})
    order = np.lexsort((budget, run))
    r, b, s = run[order], budget[order], score[order] * sign
    if not len(r):
        return pd.DataFrame({c: np.array([], dtype=t) for c, t in (
            ("run", np.int64), ("n", np.int64), ("bmin", float), ("bmax", float),
            ("sfirst", float), ("slast", float), ("worse", np.int64))})
    start = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
    end = np.r_[start[1:], len(r)] - 1
    same = np.r_[r[1:] == r[:-1]]
    worse = np.r_[(s[1:] < s[:-1]) & same, False].astype(np.int64)
    return pd.DataFrame({
        "run": r[start], "n": end - start + 1, "bmin": b[start], "bmax": b[end],
        "sfirst": s[start] * sign, "slast": s[end] * sign,
        "worse": np.add.reduceat(worse, start) - worse[end],
    })


def _validate_partition(pdf: pd.DataFrame, offset: int, roles: dict, metafeatures: tuple,
                        on_invalid: str, categories: dict, sign: float) -> dict:
    """Pass 2: the in-memory checks on one partition, and its per-run summary."""
    pdf = _positions(pdf, offset)
    if not len(pdf):
        return {"problems": [], "exclusions": empty_exclusions(), "summary": None, "kept": 0}
    _, problems, exclusions, _ = validate_frame(
        pdf, algorithm=roles["algorithm"], benchmark=roles.get("benchmark"),
        seed=roles["seed"], budget=roles.get("budget"), score=roles["score"],
        metafeatures=metafeatures, on_invalid=on_invalid)
    # A partition may hold one algorithm: that is checked on the whole data, not here.
    problems = [p for p in problems if p.reason not in ("too_few_algorithms", "empty")]
    if any(not p.droppable for p in problems):
        return {"problems": problems, "exclusions": exclusions, "summary": None, "kept": 0}
    # Row problems (raise mode): summarise the other rows all the same, so that keys
    # duplicated across partitions are found and reported together with these.
    bad = np.array([r for p in problems for r in p.rows], dtype=np.int64)
    keep = ~pdf.index.isin(np.r_[exclusions["row"].to_numpy(dtype=np.int64), bad])
    kept = pdf[keep]
    budget = (numeric_column(kept, roles["budget"], "budget")[0]
              if roles.get("budget") else None)
    score = numeric_column(kept, roles["score"], "score")[0]
    summary = summarise_runs(run_keys(kept, roles, categories), budget, score, sign)
    return {"problems": problems, "exclusions": exclusions, "summary": summary,
            "kept": len(kept),
            "describe": _describe_partials(kept, roles, metafeatures, categories, budget)}


def _describe_partials(kept: pd.DataFrame, roles: dict, metafeatures: tuple,
                       categories: dict, budget: np.ndarray | None) -> dict:
    """What ``describe()`` reduces per partition, from the rows validation keeps.

    Computed in the validation pass so that ``describe()`` reads no partition
    again: the distinct (algorithm, budget) pairs and, per metafeature, the
    distinct (benchmark, value) pairs and missing count, with codes into the
    raw categories (remapped on the client, :func:`_remap_describe`).
    """

    def role_codes(role: str) -> np.ndarray:
        column = roles.get(role)
        return (np.zeros(len(kept), dtype=np.int64) if column is None
                else _codes(kept[column], categories[role]))

    out: dict[str, Any] = {}
    if budget is not None:
        a = role_codes("algorithm")
        out["budget_pairs"] = _budget_levels(pd.DataFrame({
            "algorithm": pd.Categorical.from_codes(a, categories=range(max(
                len(categories["algorithm"]), 1)), validate=False),
            "budget": budget}))
    if metafeatures:
        b = role_codes("benchmark")
        frame = pd.DataFrame({"benchmark": pd.Categorical.from_codes(
            b, categories=range(max(len(categories["benchmark"]), 1)), validate=False)})
        for m in metafeatures:
            frame[m] = metafeature_values(kept, m)[0]
        out["meta_levels"] = _meta_levels(frame, metafeatures)
    return out


def _remap_describe(partials: list[dict], metafeatures: tuple,
                    new_code: dict[str, np.ndarray]) -> dict:
    """The ``describe()`` caches of a DaskResults from per-partition partials.

    ``new_code[role][raw]`` is the code of raw category ``raw`` among the
    kept categories (every kept row's category is kept).
    """
    cache: dict[str, Any] = {}
    pairs = [p["budget_pairs"] for p in partials if "budget_pairs" in p]
    if pairs:
        merged = pd.concat(pairs, ignore_index=True)
        merged["a"] = new_code["algorithm"][merged["a"].to_numpy()]
        cache["budget_pairs"] = merged.drop_duplicates()
    levels = [p["meta_levels"] for p in partials if "meta_levels" in p]
    if metafeatures and levels:
        meta = {}
        for m in metafeatures:
            found = pd.concat([p[m][0] for p in levels], ignore_index=True)
            found["b"] = new_code["benchmark"][found["b"].to_numpy()]
            meta[m] = (found.drop_duplicates(), sum(p[m][1] for p in levels), levels[0][m][2])
        cache["meta_levels"] = meta
    return cache


def _validate_fused(pdf: pd.DataFrame, offset: int, expected: int, name: str, roles: dict,
                    metafeatures: tuple, on_invalid: str, id_columns: tuple,
                    sign: float) -> dict:
    """Passes 1 and 2 in one read, when the row counts are known beforehand.

    The run keys and describe() partials use the partition's own labels as
    categories; the client maps them to the global categories
    (:func:`_to_global_codes`).
    """
    info = _length_and_labels(pdf, id_columns)
    if info["n"] != expected:
        raise ValueError(
            f"{name!r} has {info['n']} rows, but its Parquet footer said {expected}: the file "
            f"changed while it was read. Fix: read the data again once it is written.")
    local = {role: (np.array([SINGLE_BENCHMARK], dtype=object) if roles.get(role) is None
                    else info["labels"].get(roles[role], np.array([], dtype=object)))
             for role in ID_ROLES}
    out = _validate_partition(pdf, offset, roles, metafeatures, on_invalid, local, sign)
    out["first"], out["local"] = info, local
    return out


def _to_global_codes(result: dict, raw_categories: dict) -> None:
    """Map a fused partition result's local category codes to the global ones (in place)."""
    local = result["local"]
    maps = [pd.Index(raw_categories[r]).get_indexer(pd.Index(local[r], dtype=object))
            .astype(np.int64) for r in ID_ROLES]
    local_sizes = [max(len(local[r]), 1) for r in ID_ROLES]
    global_sizes = [max(len(raw_categories[r]), 1) for r in ID_ROLES]
    summary = result["summary"]
    if summary is not None and len(summary):
        rest, s = np.divmod(summary["run"].to_numpy(), local_sizes[2])
        a, b = np.divmod(rest, local_sizes[1])
        summary["run"] = (maps[0][a] * global_sizes[1] + maps[1][b]) * global_sizes[2] + (
            maps[2][s])
    partials = result.get("describe", {})
    if "budget_pairs" in partials:
        partials["budget_pairs"]["a"] = maps[0][partials["budget_pairs"]["a"].to_numpy()]
    for pairs, _, _ in partials.get("meta_levels", {}).values():
        pairs["b"] = maps[1][pairs["b"].to_numpy()]


def _gather_runs(pdf: pd.DataFrame, offset: int, roles: dict, categories: dict,
                 runs: np.ndarray) -> pd.DataFrame:
    """The rows (every column) of the given runs, labelled by global position."""
    pdf = _positions(pdf, offset)
    key = run_keys(pdf, roles, categories)
    hit = np.isin(key, runs)
    out = pdf[hit].copy()
    out["__run__"] = key[hit]
    return out


def canonical_partition(pdf: pd.DataFrame, offset: int, roles: dict, metafeatures: tuple,
                        categories: dict, dropped: np.ndarray) -> pd.DataFrame:
    """One partition in the canonical schema (the rows a Results keeps)."""
    pdf = _positions(pdf, offset)
    if len(dropped):
        pdf = pdf[~pdf.index.isin(dropped)]
    out: dict[str, Any] = {}
    for role in ID_ROLES:
        column = roles.get(role)
        cats = pd.Index(categories[role]) if column is not None else pd.Index(
            [SINGLE_BENCHMARK])
        codes = (np.zeros(len(pdf), dtype=np.int64) if column is None
                 else _codes(pdf[column], cats))
        out[role] = pd.Categorical.from_codes(codes, categories=cats, validate=False)
    if roles.get("budget"):
        out["budget"] = numeric_column(pdf, roles["budget"], "budget")[0]
    out["score"] = numeric_column(pdf, roles["score"], "score")[0]
    frame = pd.DataFrame(out, index=pdf.index)
    for m in metafeatures:
        frame[m] = metafeature_values(pdf, m)[0]
    return frame


# ---------------------------------------------------------------------- client side
def _merge_problems(found: list[tuple[Problem, str]], names: list[str],
                    offsets: np.ndarray) -> list[Problem]:
    """One problem per (column, reason): rows united, the files they are in named."""
    by_key: dict[tuple[str, str], list[Problem]] = {}
    for p, _ in found:
        by_key.setdefault((p.column, p.reason), []).append(p)
    merged = []
    for (column, reason), group in by_key.items():
        rows = tuple(dict.fromkeys(r for p in group for r in p.rows))
        best = max(group, key=lambda p: len(p.rows))
        message = best.message
        if len(rows) > len(best.rows):
            message += f" In all, {len(rows)} rows have this problem: {format_rows(rows)}."
        if rows:
            message += " " + _files_of(rows, names, offsets)
        else:
            files = sorted({where for p, where in found if (p.column, p.reason) == (column,
                                                                                     reason)})
            message += f" (in {', '.join(files)})"
        merged.append(Problem(column=column, reason=reason, message=message, rows=rows,
                              droppable=best.droppable, cli=best.cli))
    return merged


def _files_of(rows: Sequence, names: list[str], offsets: np.ndarray) -> str:
    """'In file X (its rows i, j)' for global row positions."""
    pos = np.asarray(rows, dtype=np.int64)
    part = np.searchsorted(offsets, pos, side="right") - 1
    pieces = []
    for i in dict.fromkeys(part.tolist()):
        local = pos[part == i] - offsets[i]
        pieces.append(f"{names[i]!r} (its {format_rows(tuple(local.tolist()))})")
    return "In file " + "; in file ".join(pieces) + "."


def _mixed_label_types(labels: list[dict], names: list[str], roles: dict) -> list[Problem]:
    """Id columns whose labels have different types in different files."""
    problems = []
    for role in ID_ROLES:
        column = roles.get(role)
        if column is None:
            continue
        types: dict[str, list[str]] = {}
        for info, name in zip(labels, names):
            for v in info["labels"].get(column, ()):
                types.setdefault(type(v).__name__, [])
                if not types[type(v).__name__] or types[type(v).__name__][-1] != name:
                    types[type(v).__name__].append(name)
        kinds = {"float" if t in ("float", "float64", "int", "int64") else t for t in types}
        if len(kinds) > 1:
            where = "; ".join(f"{t} in {', '.join(map(repr, files[:3]))}"
                              for t, files in types.items())
            problems.append(Problem(
                column=column, reason="mixed_types",
                message=(f"column {column!r} ({role}) mixes value types across files ({where}). "
                         f"Identifiers like 1 and '1' would silently become different groups. "
                         f"Fix: write the column with one type in every file, e.g. "
                         f"df[{column!r}] = df[{column!r}].astype(str).")))
    return problems


def _sorted_union(arrays: list[np.ndarray]) -> np.ndarray:
    if not arrays:
        return np.array([], dtype=object)
    values = pd.unique(np.concatenate([np.asarray(a, dtype=object) for a in arrays]))
    return np.asarray(sorted(values), dtype=object)


def _combine_pieces(pieces: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """Per-run summary from per-partition pieces, and the runs whose pieces overlap.

    Two pieces of a run overlap when their budget ranges intersect; only then
    can a key repeat across partitions, and only then are the pieces not
    ordered, so such runs are settled on their gathered rows.
    """
    if "bmin" not in pieces:
        multi = pieces["run"].duplicated(keep=False).to_numpy()
        return pieces.groupby("run", sort=True)["n"].sum().reset_index(), np.unique(
            pieces["run"].to_numpy()[multi])
    p = pieces.sort_values(["run", "bmin"], kind="stable").reset_index(drop=True)
    same = np.r_[False, p["run"].to_numpy()[1:] == p["run"].to_numpy()[:-1]]
    prev_max = np.r_[np.nan, p["bmax"].to_numpy()[:-1]]
    overlap = same & (p["bmin"].to_numpy() <= prev_max)
    bad_runs = np.unique(p["run"].to_numpy()[overlap])
    return p, bad_runs


def _runs_summary(p: pd.DataFrame, sign: float) -> tuple[pd.DataFrame, int]:
    """Combine ordered, non-overlapping pieces: totals per run and worsening steps."""
    if "bmin" not in p:
        return p, 0
    run = p["run"].to_numpy()
    same = np.r_[False, run[1:] == run[:-1]]
    prev_last = np.r_[np.nan, p["slast"].to_numpy()[:-1]]
    boundary = same & (p["sfirst"].to_numpy() * sign < prev_last * sign)
    g = p.assign(boundary=boundary.astype(np.int64))
    out = g.groupby("run", sort=True).agg(
        n=("n", "sum"), bmin=("bmin", "min"), bmax=("bmax", "max"), worse=("worse", "sum"),
        boundary=("boundary", "sum"))
    worse = int(out["worse"].sum() + out["boundary"].sum())
    return out.drop(columns=["worse", "boundary"]).reset_index(), worse


def _kind_of(summary: pd.DataFrame, worse: int, has_budget: bool) -> tuple[Kind, str]:
    """The in-memory rule of :func:`~benchverdict.results.validation.infer_kind`, per run."""
    if not has_budget:
        raise ValidationError([kind_needed_problem()])
    if not (summary["n"] > 1).any():
        return "trials", "inferred: every run has a single row, so rows are taken as draws"
    if worse:
        return "trials", (
            f"inferred: scores get worse along the budget within {worse} step(s) "
            f"of some runs, so rows are independent trials, not incumbents"
        )
    return "runs", (
        "inferred: scores never get worse along the budget within any run, so rows are "
        "incumbents of HPO runs"
    )


def _budget_levels(canon: pd.DataFrame) -> pd.DataFrame:
    """Distinct (algorithm code, budget) pairs of a partition."""
    a = canon["algorithm"].cat.codes.to_numpy().astype(np.int64)
    b_codes, levels = pd.factorize(canon["budget"].to_numpy())
    pairs = np.unique(a * max(len(levels), 1) + b_codes)
    a, b = np.divmod(pairs, max(len(levels), 1))
    return pd.DataFrame({"a": a, "budget": np.asarray(levels, dtype=float)[b]})


def _meta_levels(canon: pd.DataFrame, metafeatures: Sequence[str]) -> dict:
    """Per metafeature: distinct (benchmark code, value) pairs and the missing count."""
    out = {}
    b_codes = canon["benchmark"].cat.codes.to_numpy().astype(np.int64)
    for m in metafeatures:
        col = canon[m]
        present = col.notna().to_numpy()
        # Distinct (benchmark, value) pairs through integer codes: hashing objects is slow.
        v_codes, levels = pd.factorize(col)
        key = b_codes[present] * max(len(levels), 1) + v_codes[present]
        pairs = np.unique(key)
        b, v = np.divmod(pairs, max(len(levels), 1))
        out[m] = (pd.DataFrame({"b": b, "v": np.asarray(levels, dtype=object)[v]}),
                  int((~present).sum()), str(col.dtype))
    return out



__all__ = ["PartitionNames", "canonical_partition", "parquet_lengths",
           "parquet_parts", "read_dask", "run_keys", "summarise_runs"]
