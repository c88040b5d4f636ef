"""Validation of a long table into the canonical frame, shared by both engines.

:func:`validate_frame` checks a pandas frame and builds the canonical frame
(categorical ids, float scores and budgets, metafeatures) with one exclusion
record per dropped row; :func:`infer_kind` decides ``"trials"`` or
``"runs"``. The in-memory constructor (:meth:`Results.from_frame
<benchverdict.results.core.Results.from_frame>`) and the Dask engine
(:mod:`benchverdict._dask.frame`, which runs the same checks on every
partition) both call them, so a problem reads the same on either engine.
The column-level checks and the ``Problem``/``ValidationError`` types they
report with live one layer below, in :mod:`benchverdict._validation` (the
readers in :mod:`benchverdict.io` use them too).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchverdict._validation import (
    Problem,
    ValidationError,
    duplicated_keys,
    missing_columns,
    missing_ids,
    mixed_types,
    name_labels,
    numeric_column,
    to_cli,
)
from benchverdict.results.schema import (
    SINGLE_BENCHMARK,
    Kind,
    Objective,
    empty_exclusions,
    exclusions_table,
)


def validate_frame(
    df: pd.DataFrame,
    *,
    algorithm: str,
    benchmark: str | None,
    seed: str,
    budget: str | None,
    score: str,
    metafeatures: tuple[str, ...],
    on_invalid: str,
    min_algorithms: int = 2,
) -> tuple[pd.DataFrame, list[Problem], pd.DataFrame, tuple | None]:
    """Check ``df`` and build the canonical frame.

    Returns the frame, the problems that must raise, the exclusions, and the
    budget's (codes, levels) when there is a budget.
    """
    role_columns = {"algorithm": algorithm, "seed": seed, "score": score}
    if benchmark is not None:
        role_columns["benchmark"] = benchmark
    if budget is not None:
        role_columns["budget"] = budget
    used = list(role_columns.values())
    duplicates = sorted({c for c in used if used.count(c) > 1})
    if duplicates:
        raise ValueError(f"column(s) {duplicates} are mapped to more than one role.")
    for name in metafeatures:
        if name in role_columns.values():
            raise ValueError(f"metafeature {name!r} is already mapped to a role.")
        if name in ("algorithm", "benchmark", "seed", "budget", "score"):
            raise ValueError(
                f"metafeature {name!r} clashes with a canonical role name; rename the column."
            )
    all_columns = dict(role_columns)
    all_columns.update({f"metafeature {m}": m for m in metafeatures})
    problems = missing_columns(df, all_columns)
    if problems:
        return df, problems, empty_exclusions(), None
    if len(df) == 0:
        return df, [
            Problem(
                column="(table)",
                reason="empty",
                message="the table has no rows. Fix: check the file or the filter that made it.",
            )
        ], empty_exclusions(), None
    if not df.index.is_unique:
        raise ValueError(
            "the frame's index has duplicated labels, so rows could not be reported "
            "unambiguously. Fix: df = df.reset_index(drop=True)."
        )

    frame_problems: list[Problem] = []
    row_problems: list[Problem] = []
    id_columns = {"algorithm": algorithm, "seed": seed}
    if benchmark is not None:
        id_columns["benchmark"] = benchmark
    # Factorise each key column once: the codes serve the name checks, the duplicate check
    # and the categoricals of the canonical frame (hashing 10^7 strings twice would dominate).
    codes: dict[str, tuple[np.ndarray, pd.Index]] = {}
    for role, column in id_columns.items():
        row_problems += missing_ids(df, column, role)
        mixed = mixed_types(df, column, role)
        frame_problems += mixed
        if not mixed:
            role_codes, labels = _factorize(df[column])
            labels, problems = name_labels(labels, role_codes, df, column, role)
            frame_problems += problems
            codes[role] = (role_codes, labels)
    meta_values = {}
    for m in metafeatures:
        meta_values[m], problems = metafeature_values(df, m)
        frame_problems += problems
    score_values, score_problems = numeric_column(df, score, "score")
    row_problems += score_problems
    budget_values = None
    if budget is not None:
        budget_values, budget_problems = numeric_column(df, budget, "budget")
        row_problems += budget_problems
    for p in row_problems:
        if not p.droppable:
            frame_problems.append(p)
    row_problems = [p for p in row_problems if p.droppable]
    if frame_problems:
        return df, frame_problems + row_problems, empty_exclusions(), None

    bad = np.zeros(len(df), dtype=bool)
    position = pd.Series(np.arange(len(df)), index=df.index)
    for p in row_problems:
        bad[position.loc[list(p.rows)].to_numpy()] = True
    key_parts = [codes[r] for r in ("algorithm", "benchmark", "seed") if r in codes]
    if budget_values is not None:
        b_codes, b_levels = pd.factorize(budget_values, sort=True)
        key_parts.append((b_codes, b_levels))
    dup = _duplicated_rows(key_parts, ~bad)
    if dup.any():
        key_columns = {r: c for r, c in role_columns.items() if r != "score"}
        example, n_keys, separating = _duplicate_groups(dup, key_parts, df, role_columns)
        row_problems += duplicated_keys(dup, df, key_columns, example_rows=example,
                                        n_keys=n_keys, separating=separating)
    if row_problems and on_invalid == "raise":
        return df, row_problems, empty_exclusions(), None

    exclusions = _exclusion_records(row_problems, position, df.index)
    for p in row_problems:
        bad[position.loc[list(p.rows)].to_numpy()] = True
    keep = ~bad
    all_kept = bool(keep.all())

    out = {
        "algorithm": _kept_categorical(*codes["algorithm"], keep, all_kept),
        "benchmark": (
            _kept_categorical(*codes["benchmark"], keep, all_kept)
            if benchmark is not None
            else pd.Categorical.from_codes(
                np.zeros(int(keep.sum()), dtype=np.int8), categories=[SINGLE_BENCHMARK]
            )
        ),
        "seed": _kept_categorical(*codes["seed"], keep, all_kept),
    }
    if budget_values is not None:
        out["budget"] = budget_values if all_kept else budget_values[keep]
    out["score"] = score_values if all_kept else score_values[keep]
    index = df.index if all_kept else df.index[keep]
    frame = pd.DataFrame(out, index=index)
    for m in metafeatures:
        frame[m] = meta_values[m] if all_kept else meta_values[m][keep]
    n_alg = len(frame["algorithm"].cat.categories)
    if n_alg < min_algorithms:
        names = list(frame["algorithm"].cat.categories)
        return df, [
            Problem(
                column=algorithm,
                reason="too_few_algorithms",
                message=(
                    f"column {algorithm!r} (algorithm) has {n_alg} distinct value(s) {names}"
                    f"{' after dropping invalid rows' if len(exclusions) else ''}; a comparison "
                    f"needs at least {max(min_algorithms, 1)} "
                    f"{'algorithm' if min_algorithms <= 1 else 'algorithms'}. Fix: check that "
                    f"you mapped the right column "
                    f"and did not filter the others away."
                ),
            )
        ], exclusions, None
    budget_index = None
    if budget_values is not None:
        budget_index = (b_codes if all_kept else b_codes[keep], np.asarray(b_levels))
    return frame, [], exclusions, budget_index




def _short_reason(p: Problem) -> str:
    return {
        "missing_score": "missing score (NaN)",
        "non_finite_score": "infinite score",
        "non_numeric_score": "non-numeric score",
        "missing_budget": "missing budget (NaN)",
        "non_finite_budget": "infinite budget",
        "non_numeric_budget": "non-numeric budget",
        "duplicate_key": "duplicated key (every row of the key dropped)",
        "missing_algorithm": "missing algorithm",
        "missing_benchmark": "missing benchmark",
        "missing_seed": "missing seed",
    }.get(p.reason, p.reason)


def _exclusion_records(
    problems: list[Problem], position: pd.Series, index: pd.Index
) -> pd.DataFrame:
    """One record per dropped row, with every column and reason that row has.

    A row with a missing score and a missing budget is one excluded row with
    two reasons, so ``len(exclusions)`` is the number of rows dropped.
    """
    if not problems:
        return empty_exclusions()
    parts = [
        pd.DataFrame({"position": position.loc[list(p.rows)].to_numpy(),
                      "columns": p.column, "reason": _short_reason(p)})
        for p in problems
    ]
    long = pd.concat(parts, ignore_index=True)
    if long["position"].is_unique:
        per_row = long.sort_values("position", kind="stable")
    else:
        per_row = (
            long.groupby("position", sort=True)
            .agg({"columns": "; ".join, "reason": "; ".join})
            .reset_index()
        )
    return exclusions_table(pd.DataFrame({
        "row": index[per_row["position"].to_numpy()].to_numpy(dtype=object),
        "columns": per_row["columns"].to_numpy(dtype=object),
        "reason": per_row["reason"].to_numpy(dtype=object),
    }))


#: At most this many duplicated keys are inspected for a column that tells rows apart.
_DUPLICATE_KEYS_INSPECTED = 2000


def _duplicate_groups(
    dup: np.ndarray,
    key_parts: list[tuple[np.ndarray, pd.Index]],
    df: pd.DataFrame,
    role_columns: dict[str, str],
) -> tuple[np.ndarray, int, list[tuple[str, str]]]:
    """Describe the duplicated keys: one key's rows, the number of keys, and the fix.

    Returns the positions of every row of the first duplicated key, how many
    keys are duplicated, and the unmapped columns that differ within
    duplicated keys (as ``(column, how)``), best first. Float columns
    (measurements) and columns unique on every row (row ids) are not
    suggested: they tell rows apart without naming a design factor.
    """
    pos = np.flatnonzero(dup)
    group = (
        pd.DataFrame({i: codes[pos] for i, (codes, _) in enumerate(key_parts)})
        .groupby(list(range(len(key_parts))), sort=False)
        .ngroup()
        .to_numpy()
    )
    n_keys = int(group.max()) + 1
    example = pos[group == group[0]]
    inspected = group < _DUPLICATE_KEYS_INSPECTED
    g, p = group[inspected], pos[inspected]
    n_groups = min(n_keys, _DUPLICATE_KEYS_INSPECTED)
    sizes = np.bincount(g, minlength=n_groups)
    mapped = set(role_columns.values())
    candidates = []
    for column in df.columns:
        if column in mapped or pd.api.types.is_float_dtype(df[column].dtype):
            continue
        try:
            value_codes, levels = pd.factorize(df[column].iloc[p])
        except TypeError:  # unhashable values (lists, dicts): cannot name a design factor
            continue
        pair = pd.unique(g.astype(np.int64) * (len(levels) + 1) + (value_codes + 1))
        distinct = np.bincount(pair // (len(levels) + 1), minlength=n_groups)
        varies = int((distinct > 1).sum())
        if varies == 0:
            continue
        if df[column].is_unique:
            continue
        separates = int((distinct == sizes).sum())
        candidates.append((-separates, -varies, df[column].nunique(), str(column),
                           separates, varies))
    candidates.sort()
    checked = f" (of the first {n_groups:,} checked)" if n_keys > n_groups else ""
    out = []
    for _, _, _, column, separates, varies in candidates[:3]:
        if separates == n_groups:
            how = f"tells the rows apart in every duplicated key{checked}"
        else:
            how = f"differs within {varies:,} of {n_groups:,} duplicated key(s){checked}"
        out.append((column, how))
    return example, n_keys, out


def metafeature_values(df: pd.DataFrame, column: str) -> tuple[np.ndarray, list[Problem]]:
    """A metafeature's values; text labels are checked like names (they label groups)."""
    values = df[column]
    if isinstance(values.dtype, pd.CategoricalDtype):
        labels, problems = name_labels(values.cat.categories, values.cat.codes.to_numpy(),
                                       df, column, "metafeature")
        if not problems and not labels.equals(values.cat.categories):
            values = values.cat.rename_categories(list(labels))
        return values.to_numpy(), problems
    if not (pd.api.types.is_object_dtype(values.dtype)
            or pd.api.types.is_string_dtype(values.dtype)):
        return values.to_numpy(), []
    try:
        value_codes, uniques = pd.factorize(values)
    except TypeError:  # unhashable values: not labels
        return values.to_numpy(), []
    labels, problems = name_labels(pd.Index(uniques, dtype=object), value_codes, df, column,
                                   "metafeature")
    if problems or labels.equals(pd.Index(uniques, dtype=object)):
        return values.to_numpy(), problems
    decoded = np.asarray(list(labels), dtype=object)
    out = np.where(value_codes >= 0, decoded[np.maximum(value_codes, 0)], None)
    return out, []


def _factorize(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes (-1 for missing) and sorted categories of an id column."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        cat = values.array
        if not cat.ordered:
            cat = cat.reorder_categories(sorted(cat.categories))
        return np.asarray(cat.codes, dtype=np.int64), cat.categories
    codes, uniques = pd.factorize(values, sort=True)
    return codes.astype(np.int64, copy=False), pd.Index(uniques)


def _kept_categorical(
    codes: np.ndarray, categories: pd.Index, keep: np.ndarray, all_kept: bool
) -> pd.Categorical:
    """The categorical of the kept rows, without unused categories."""
    kept = codes if all_kept else codes[keep]
    used = np.bincount(kept, minlength=len(categories)) > 0
    if not used.all():
        remap = np.cumsum(used) - 1
        kept = remap[kept]
        categories = categories[used]
    small = np.int8 if len(categories) < 127 else np.int32
    return pd.Categorical.from_codes(kept.astype(small), categories=categories, validate=False)


def _duplicated_rows(parts: list[tuple[np.ndarray, pd.Index]], valid: np.ndarray) -> np.ndarray:
    """Mask of valid rows whose combined key occurs more than once among valid rows."""
    cards = [max(len(levels), 1) for _, levels in parts]
    total = 1
    for c in cards:
        total *= c
    dup = np.zeros(len(valid), dtype=bool)
    if total >= 2**62:  # too many combinations for one int64 key: let pandas hash tuples
        frame = pd.DataFrame({i: c for i, (c, _) in enumerate(parts)})[valid]
        dup[valid] = frame.duplicated(keep=False).to_numpy()
        return dup
    all_valid = bool(valid.all())
    key = np.zeros(len(valid) if all_valid else int(valid.sum()), dtype=np.int64)
    for (codes, _), card in zip(parts, cards):
        key *= card
        key += codes if all_valid else codes[valid]
    if total <= 4 * len(key) + 1_000_000:
        counts = np.bincount(key, minlength=total)
        found = counts[key] > 1
    else:
        found = pd.Series(key).duplicated(keep=False).to_numpy()
    if all_valid:
        return found
    dup[valid] = found
    return dup



#: ``Problem.reason`` of a table whose kind the caller must give.
KIND_NEEDED = "kind_needed"


def kind_needed_problem() -> Problem:
    """The problem raised when a table without a budget column comes without ``kind``.

    Without a budget column the two kinds of data have the same shape (one
    score per algorithm, benchmark and seed row) and no property of the
    scores tells them apart, so the kind is never guessed. There is no
    exception: even a table with one row per (algorithm, benchmark, seed)
    is either one draw per search or one final score per run.

    Examples
    --------
    >>> p = kind_needed_problem()
    >>> p.reason
    'kind_needed'
    >>> p.cli_message().endswith("--kind trials or --kind runs.")
    True
    """
    message = (
        "the table has no budget column, so a row can be one random-search draw "
        "(kind='trials': tuning curves and score distributions pool the draws of each "
        "algorithm and benchmark) or the final result of one run, e.g. one seed's final "
        "accuracy (kind='runs': rank tests and LMEMs compare the runs, one per seed). The "
        "data cannot tell which. Fix: pass kind='trials' or kind='runs'.")
    return Problem(column="kind", reason=KIND_NEEDED, message=message,
                   cli=to_cli(message, {"kind": "--kind"}, fix_only=False))


def infer_kind(frame: pd.DataFrame, objective: Objective) -> tuple[Kind, str]:
    """Decide whether rows are random-search draws or run incumbents.

    Only called with a budget column (without one the caller must give the
    kind, see :func:`kind_needed_problem`). Rows whose score never gets
    worse along the budget within every run are incumbent series ("runs").
    Scores that get worse somewhere, or runs of one row, are "trials".
    """
    if "budget" not in frame.columns:
        raise ValidationError([kind_needed_problem()])
    sign = 1.0 if objective == "maximize" else -1.0
    cats = [frame[c].cat for c in ("algorithm", "benchmark", "seed")]
    run = np.zeros(len(frame), dtype=np.int64)
    for cat in cats:
        run = run * len(cat.categories) + cat.codes.to_numpy()
    budget = frame["budget"].to_numpy()
    # Most files are already sorted by run and budget: check in O(n) before sorting.
    in_order = bool(
        np.all((run[1:] > run[:-1]) | ((run[1:] == run[:-1]) & (budget[1:] >= budget[:-1])))
    ) if len(run) > 1 else True
    order = np.arange(len(run)) if in_order else np.lexsort((budget, run))
    run_sorted = run[order]
    same_run = run_sorted[1:] == run_sorted[:-1]
    if not same_run.any():
        return "trials", "inferred: every run has a single row, so rows are taken as draws"
    oriented = frame["score"].to_numpy()[order] * sign
    worse = (oriented[1:] < oriented[:-1]) & same_run
    if worse.any():
        return "trials", (
            f"inferred: scores get worse along the budget within {int(worse.sum())} step(s) "
            f"of some runs, so rows are independent trials, not incumbents"
        )
    return "runs", (
        "inferred: scores never get worse along the budget within any run, so rows are "
        "incumbents of HPO runs"
    )




__all__ = ["KIND_NEEDED", "infer_kind", "kind_needed_problem", "metafeature_values",
           "validate_frame"]
