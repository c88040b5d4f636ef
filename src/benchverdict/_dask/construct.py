"""The Dask engine's constructor: validate a Dask DataFrame into a DaskResults.

Above both the partition-level checks (:mod:`benchverdict._dask.frame`) and
the result type (:mod:`benchverdict._dask.results`), so neither imports the
other; :func:`benchverdict.io.from_dask_frame` and ``read(..., engine="dask")``
call it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from benchverdict._dask import require_dask
from benchverdict._dask.compute import compute_all
from benchverdict._dask.frame import (
    _combine_pieces,
    _gather_runs,
    _kind_of,
    _length_and_labels,
    _merge_problems,
    _mixed_label_types,
    _remap_describe,
    _runs_summary,
    _sorted_union,
    _to_global_codes,
    _validate_fused,
    _validate_partition,
    summarise_runs,
)
from benchverdict._dask.results import DaskResults
from benchverdict._validation import (
    Problem,
    ValidationError,
    lookalike_key,
    numeric_column,
)
from benchverdict.results.schema import (
    ID_ROLES,
    SINGLE_BENCHMARK,
    Kind,
    Objective,
    check_objective,
    empty_exclusions,
)
from benchverdict.results.validation import kind_needed_problem, validate_frame


def from_dask_frame(
    ddf: Any, *, algorithm: str, seed: str, score: str, objective: Objective,
    benchmark: str | None = None, budget: str | None = None,
    metafeatures: Sequence[str] = (), on_invalid: Literal["raise", "drop"] = "raise",
    kind: Kind | None = None, partition_names: Sequence[str] | None = None,
    persist: bool = False, progress: bool = False,
):
    """Validate a Dask DataFrame into a :class:`~benchverdict._dask.results.DaskResults`.

    The arguments are those of :meth:`Results.from_frame`; see the module
    docstring for how the checks are split between partitions and client.
    ``partition_names`` names each partition in messages (the reader passes
    the file names); ``persist`` keeps the canonical partitions in the
    workers' memory for the analyses that follow.

    Examples
    --------
    >>> import pytest; dd = pytest.importorskip("dask.dataframe")  # the dask extra
    >>> df = pd.DataFrame({"alg": list("aabb"), "seed": [0, 1, 0, 1],
    ...                    "acc": [0.5, 0.6, 0.7, 0.8]})
    >>> res = from_dask_frame(dd.from_pandas(df, npartitions=2), algorithm="alg", seed="seed",
    ...                       score="acc", objective="maximize", kind="runs")
    >>> len(res), res.algorithms
    (4, ['a', 'b'])
    """
    require_dask()
    import dask

    check_objective(objective)
    if on_invalid not in ("raise", "drop"):
        raise ValueError(f"on_invalid must be 'raise' or 'drop', got {on_invalid!r}.")
    if kind is not None and kind not in ("trials", "runs"):
        raise ValueError(f"kind must be 'trials', 'runs' or None, got {kind!r}.")
    if kind is None and budget is None:
        raise ValidationError([kind_needed_problem()])
    metafeatures = tuple(metafeatures)
    roles = {"algorithm": algorithm, "seed": seed, "score": score}
    if benchmark is not None:
        roles["benchmark"] = benchmark
    if budget is not None:
        roles["budget"] = budget
    sign = 1.0 if objective == "maximize" else -1.0
    parts = ddf.to_delayed()
    names = (list(partition_names) if partition_names is not None
             else [f"partition {i}" for i in range(len(parts))])
    id_columns = tuple(roles[r] for r in ID_ROLES if r in roles)

    known = getattr(partition_names, "lengths", None)
    fused = (known is not None and len(known) == len(parts) and sum(known) > 0
             and all(c in ddf.columns for c in [*roles.values(), *metafeatures]))
    if fused:
        # One read: the row counts (Parquet footers) give the global row positions, so
        # the labels and the checks come from the same pass.
        lengths = np.asarray(known, dtype=np.int64)
        offsets = np.r_[0, np.cumsum(lengths)[:-1]].astype(np.int64)
        second = compute_all([dask.delayed(_validate_fused)(
            p, int(o), int(n), names[i], roles, metafeatures, on_invalid, id_columns, sign)
            for i, (p, o, n) in enumerate(zip(parts, offsets, lengths))],
            desc="reading and validating", progress=progress)
        first = [s["first"] for s in second]
    else:
        # Pass 1: lengths (for global row positions) and labels (for global categories).
        first = compute_all([dask.delayed(_length_and_labels)(p, id_columns) for p in parts],
                            desc="reading labels", progress=progress)
        lengths = np.array([f["n"] for f in first], dtype=np.int64)
        offsets = np.r_[0, np.cumsum(lengths)[:-1]].astype(np.int64)
    if lengths.sum() == 0 or any(c not in first[0]["columns"]
                                 for c in [*roles.values(), *metafeatures]):
        # Missing columns and the empty table: the in-memory checks on the (empty) frame
        # give the same error as in memory.
        head = ddf.head(0, npartitions=1) if lengths.sum() == 0 else parts[0].compute()
        from benchverdict.results import Results

        Results.from_frame(head.iloc[:0] if lengths.sum() == 0 else head, **{
            **{k: v for k, v in roles.items()}, "objective": objective,
            "metafeatures": metafeatures, "on_invalid": on_invalid, "kind": kind})
    mixed = _mixed_label_types(first, names, roles)
    if mixed:
        raise ValidationError(mixed)
    # Each partition checks its own names; two that look alike in different partitions
    # would become separate entries unless the union of the labels is checked as well.
    apart = lookalikes_across_partitions(first, names, roles)
    if apart:
        raise ValidationError(apart)
    raw_categories = {}
    for role in ID_ROLES:
        column = roles.get(role)
        raw_categories[role] = (np.array([SINGLE_BENCHMARK], dtype=object) if column is None
                                else _sorted_union([f["labels"].get(column, np.array([]))
                                                    for f in first]))

    if fused:
        for result in second:
            _to_global_codes(result, raw_categories)
    else:
        # Pass 2: the in-memory checks per partition, and per-run summaries.
        second = compute_all([dask.delayed(_validate_partition)(
            p, int(o), roles, metafeatures, on_invalid, raw_categories, sign)
            for p, o in zip(parts, offsets)], desc="validating", progress=progress)
    found = [(p, names[i]) for i, s in enumerate(second) for p in s["problems"]]
    if any(not p.droppable for p, _ in found):
        raise ValidationError(_merge_problems(found, names, offsets))
    exclusions = [s["exclusions"] for s in second if len(s["exclusions"])]
    pieces = pd.concat([s["summary"] for s in second if s["summary"] is not None],
                       ignore_index=True)
    ordered, suspect = _combine_pieces(pieces)

    # Runs whose pieces overlap across partitions: gather their rows and check them whole.
    extra_dropped = np.array([], dtype=np.int64)
    suspect_summary = None
    if len(suspect):
        rows = compute_all([dask.delayed(_gather_runs)(p, int(o), roles, raw_categories,
                                                      suspect)
                            for p, o in zip(parts, offsets)], desc="checking split runs",
                           progress=progress)
        gathered = pd.concat(rows).sort_index()
        run_of = gathered.pop("__run__")
        _, problems, ex, _ = validate_frame(
            gathered, algorithm=algorithm, benchmark=benchmark, seed=seed, budget=budget,
            score=score, metafeatures=metafeatures, on_invalid=on_invalid)
        problems = [p for p in problems if p.reason not in ("too_few_algorithms", "empty")]
        if problems or found:
            raise ValidationError(_merge_problems(found + [(p, "") for p in problems], names,
                                                  offsets))
        already = set()
        for e in exclusions:
            already.update(e["row"].tolist())
        new = ex[~ex["row"].isin(already)] if len(ex) else ex
        if len(new):
            exclusions.append(new)
            extra_dropped = new["row"].to_numpy(dtype=np.int64)
        keep = ~gathered.index.isin(ex["row"].to_numpy(dtype=np.int64)) if len(ex) else (
            np.ones(len(gathered), dtype=bool))
        kept = gathered[keep]
        b = numeric_column(kept, budget, "budget")[0] if budget else None
        s = numeric_column(kept, score, "score")[0]
        suspect_summary = summarise_runs(run_of.to_numpy()[keep], b, s, sign)
        ordered = ordered[~ordered["run"].isin(suspect)]
        if len(suspect_summary):
            ordered = pd.concat([ordered, suspect_summary], ignore_index=True).sort_values(
                ["run", "bmin"] if budget else ["run"], kind="stable").reset_index(drop=True)
    if found:
        raise ValidationError(_merge_problems(found, names, offsets))
    summary, worse = _runs_summary(ordered, sign)
    exclusions_frame = (pd.concat(exclusions, ignore_index=True).sort_values(
        "row", kind="stable").reset_index(drop=True) if exclusions else empty_exclusions())

    # Categories of the kept rows, and the run keys remapped to them.
    sizes = [max(len(raw_categories[r]), 1) for r in ID_ROLES]
    run = summary["run"].to_numpy()
    rest, s_codes = np.divmod(run, sizes[2])
    a_codes, b_codes = np.divmod(rest, sizes[1])
    categories = {}
    new_codes = []
    new_code = {}
    for role, codes, size in zip(ID_ROLES, (a_codes, b_codes, s_codes), sizes):
        used = np.bincount(codes, minlength=size) > 0
        # Inferred as pandas would for the column (int64, float64, str): the dtype of the
        # categories is part of the categorical dtype the analyses compare.
        categories[role] = pd.Index(list(raw_categories[role][used]))
        new_code[role] = np.cumsum(used) - 1
        new_codes.append(new_code[role][codes])
    n_alg = len(categories["algorithm"])
    if n_alg < 2:
        raise ValidationError([Problem(
            column=algorithm, reason="too_few_algorithms",
            message=(f"column {algorithm!r} (algorithm) has {n_alg} distinct value(s) "
                     f"{list(categories['algorithm'])}"
                     f"{' after dropping invalid rows' if len(exclusions_frame) else ''}; a "
                     f"comparison needs at least 2 algorithms. Fix: check that you mapped the "
                     f"right column and did not filter the others away."))])
    nb, ns = len(categories["benchmark"]), len(categories["seed"])
    summary["run"] = (new_codes[0] * nb + new_codes[1]) * ns + new_codes[2]
    if kind is None:
        kind, kind_reason = _kind_of(summary, worse, budget is not None)
    else:
        kind_reason = "given by the caller"
    dropped = exclusions_frame["row"].to_numpy(dtype=np.int64) if len(exclusions_frame) else (
        np.array([], dtype=np.int64))
    # describe()'s reductions came with the validation pass, unless rows of runs split
    # across partitions were dropped after it (then describe() makes its own pass).
    describe_cache = ({} if len(extra_dropped) else _remap_describe(
        [s["describe"] for s in second if "describe" in s], metafeatures, new_code))
    return DaskResults.build(
        parts=parts, offsets=offsets, names=names, roles=roles, metafeatures=metafeatures,
        categories=categories, dropped=dropped, objective=objective, kind=kind,
        kind_reason=kind_reason, exclusions=exclusions_frame, summary=summary,
        n_rows=int(summary["n"].sum()), persist=persist, meta=ddf._meta, progress=progress,
        cache=describe_cache)


__all__ = ["from_dask_frame"]


def lookalikes_across_partitions(first: Sequence[dict], names: Sequence[str],
                                 roles: dict[str, str | None]) -> list[Problem]:
    """Look-alike names of one role that never share a partition, as validation problems.

    Names look alike when their :func:`~benchverdict._validation.lookalike_key`
    is the same; each partition's own check sees only its names. ``first``
    holds each partition's distinct labels per column (``"labels"``); a
    group whose names do share some partition is left to that partition's
    check, which names the rows.

    Examples
    --------
    >>> import numpy as np
    >>> first = [{"labels": {"alg": np.array(["TPE", "RS"], dtype=object)}},
    ...          {"labels": {"alg": np.array(["TPE\u200b"], dtype=object)}}]
    >>> found = lookalikes_across_partitions(first, ["a", "b"], {"algorithm": "alg"})
    >>> [p.reason for p in found]
    ['lookalike_algorithm']
    """
    problems = []
    for role in ID_ROLES:
        column = roles.get(role)
        if column is None:
            continue
        where: dict[str, set[str]] = {}
        for f, name in zip(first, names):
            for v in f["labels"].get(column, ()):
                if isinstance(v, str):
                    where.setdefault(v, set()).add(name)
        groups: dict[str, list[str]] = {}
        for v in where:
            groups.setdefault(lookalike_key(v), []).append(v)
        apart = [sorted(g) for g in groups.values()
                 if len(g) > 1 and not set.intersection(*(where[v] for v in g))]
        if not apart:
            continue
        shown = "; ".join(" and ".join(f"{v!r} (in {', '.join(sorted(where[v])[:2])})"
                                       for v in g[:4]) for g in apart[:3])
        more = f" and {len(apart) - 3} more group(s)" if len(apart) > 3 else ""
        problems.append(Problem(
            column=column, reason=f"lookalike_{role}",
            message=(f"column {column!r} ({role}) has {len(apart)} group(s) of different "
                     f"names in different partitions that look the same: {shown}{more}. They "
                     f"differ only by surrounding whitespace, invisible format characters, "
                     f"Unicode normalisation or look-alike letters of another script, and "
                     f"would become separate entries. Fix: write each name one way in every "
                     f"file (if they are truly different, rename one so the difference is "
                     f"visible).")))
    return problems
