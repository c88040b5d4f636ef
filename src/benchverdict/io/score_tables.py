"""Final-score tables: rliable's score arrays and AutoML-benchmark (AMLB) results files.

Both hold one final score per (algorithm, task, run): ``kind="runs"``
without a budget (rliable's 3-D arrays add one: the evaluation point).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchverdict.io import read_frame
from benchverdict.io._hpo_runs import OnInvalid, with_exclusions
from benchverdict.results import Objective, Results, check_objective

# AMLB's metric definitions (amlb/results.py: @metric(higher_is_better=...)). Since AMLB
# renamed losses "neg_<metric>" and negated them, `result` is higher-is-better for every
# metric it knows; older files hold the loss itself under its plain name.
AMLB_HIGHER_IS_BETTER = frozenset({"acc", "auc", "auc_ovo", "auc_ovr", "balacc", "f05", "f1",
                                   "f2", "pr_auc", "r2"})
AMLB_LOWER_IS_BETTER = frozenset({"logloss", "max_pce", "mean_pce", "mae", "mse", "msle",
                                  "rmse", "rmsle", "mase", "smape", "mape", "nrmse", "wape",
                                  "sql"})


def read_rliable(
    scores: Mapping[str, np.ndarray] | str | Path,
    *,
    objective: Objective,
    tasks: Sequence[str] | None = None,
    budgets: Sequence[float] | None = None,
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
) -> Results:
    """Read rliable-style score arrays: ``{algorithm: array of runs x tasks}``.

    This is the ``score_dict`` rliable's interval estimates, performance
    profiles and probability of improvement take (Agarwal et al. 2021).
    Roles: ``algorithm`` = the key; ``benchmark`` = the task (``tasks[j]``,
    else ``"task <j>"``); ``seed`` = the run's row index (runs of different
    algorithms share a seed only if the arrays' rows were run with the same
    seeds); ``score`` = the entry. A 3-D array (runs x tasks x points, as for
    rliable's sample-efficiency curves) adds ``budget`` = ``budgets[k]``
    (else the point's index ``k``).

    The objective must be given: the arrays do not record it (rliable's own
    metrics assume higher is better, so scores made for rliable are
    ``objective="maximize"``).

    Parameters
    ----------
    scores : mapping or path
        The dict, or an ``.npz`` file of it (``numpy.savez(path, **scores)``).
    objective : {"maximize", "minimize"}
    tasks : sequence of str, optional
        Task names, one per column.
    budgets : sequence of float, optional
        For 3-D arrays: the budget of each point (frames, steps).
    on_invalid : {"raise", "drop"}
        As in :meth:`Results.from_frame` (NaN scores).
    min_algorithms : int
        Fewest algorithms the data may hold (``1`` for a leaderboard submission).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> scores = {"DQN": rng.normal(1.0, 0.1, (3, 2)), "C51": rng.normal(1.2, 0.1, (3, 2))}
    >>> res = read_rliable(scores, objective="maximize", tasks=["Pong", "Breakout"])
    >>> res.algorithms, res.benchmarks, res.seeds
    (['C51', 'DQN'], ['Breakout', 'Pong'], [0, 1, 2])
    """
    check_objective(objective)
    if isinstance(scores, (str, Path)):
        path = Path(scores)
        if not path.exists():
            raise FileNotFoundError(f"no such file or directory: {str(path)!r}")
        try:
            with np.load(path, allow_pickle=False) as npz:
                scores = {key: npz[key] for key in npz.files}
        except (ValueError, OSError) as err:
            raise ValueError(
                f"cannot read {str(path)!r} as rliable scores ({err}). Fix: save the score "
                f"dict with numpy.savez(path, **scores)."
            ) from None
    if not isinstance(scores, Mapping) or not scores:
        raise ValueError("scores must be a non-empty {algorithm: array of runs x tasks} dict.")
    arrays = {str(k): np.asarray(v, dtype=float) for k, v in scores.items()}
    dims = {k: a.ndim for k, a in arrays.items()}
    if set(dims.values()) - {2, 3} or len(set(dims.values())) > 1:
        raise ValueError(
            f"every array must be runs x tasks (2-D), or runs x tasks x points (3-D) for all; "
            f"got dimensions {dims}."
        )
    n_tasks = {k: a.shape[1] for k, a in arrays.items()}
    if len(set(n_tasks.values())) > 1:
        raise ValueError(f"the arrays have different numbers of tasks (columns): {n_tasks}. "
                         f"Fix: give every algorithm the same tasks in the same order.")
    n_task = next(iter(n_tasks.values()))
    if tasks is None:
        names = [f"task {j}" for j in range(n_task)]
    else:
        names = [str(t) for t in tasks]
        if len(names) != n_task or len(set(names)) != n_task:
            raise ValueError(f"tasks must be {n_task} distinct names (one per column), got "
                             f"{len(names)} ({len(set(names))} distinct).")
    three_d = next(iter(dims.values())) == 3
    if three_d:
        n_points = {k: a.shape[2] for k, a in arrays.items()}
        if len(set(n_points.values())) > 1:
            raise ValueError(f"the arrays have different numbers of points: {n_points}.")
        n_point = next(iter(n_points.values()))
        points = np.arange(n_point, dtype=float) if budgets is None else np.asarray(
            budgets, dtype=float)
        if points.shape != (n_point,):
            raise ValueError(f"budgets must have {n_point} values (one per point), got "
                             f"{points.size}.")
    elif budgets is not None:
        raise ValueError("budgets apply to 3-D arrays (runs x tasks x points) only.")
    parts = []
    for alg, array in arrays.items():
        runs, cols = np.meshgrid(np.arange(array.shape[0]), np.arange(n_task), indexing="ij")
        if three_d:
            runs = np.repeat(runs[..., None], array.shape[2], axis=2)
            cols = np.repeat(cols[..., None], array.shape[2], axis=2)
            budget = np.broadcast_to(points, array.shape)
        part = {"algorithm": alg, "task": np.asarray(names, dtype=object)[cols.ravel()],
                "run": runs.ravel(), "score": array.ravel()}
        if three_d:
            part["budget"] = budget.ravel()
        parts.append(pd.DataFrame(part))
    frame = pd.concat(parts, ignore_index=True)
    return Results.from_frame(
        frame, algorithm="algorithm", benchmark="task", seed="run", score="score",
        budget="budget" if three_d else None, objective=objective, on_invalid=on_invalid,
        kind="runs",
        min_algorithms=min_algorithms,
    )


def read_amlb(
    path: str | Path | Sequence[str | Path] | pd.DataFrame,
    *,
    score: str | None = None,
    objective: Objective | None = None,
    constraint: str | None = None,
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
) -> Results:
    """Read AutoML-benchmark (AMLB) ``results.csv`` files.

    One row per (framework, task, fold). Roles: ``algorithm`` =
    ``framework``; ``benchmark`` = ``task``; ``seed`` = ``fold`` (the
    replicate; AMLB's ``seed`` column is the framework's random state);
    metafeature ``type`` (binary, multiclass, regression) where recorded,
    and metafeature ``metric`` (AMLB's metric of each row) when the score is
    the ``result`` column: tasks compared on different metrics are on
    different scales (see :func:`benchverdict.scales.scale_check`).
    ``kind="runs"``.

    The score and its direction, from what AMLB recorded:

    * default, the ``result`` column, which needs the ``metric`` column
      saying which metric each row holds. AMLB names losses ``neg_<metric>``
      and negates them, so that ``result`` is higher-is-better; files written
      before that hold the loss under its plain name (``logloss``, ``rmse``),
      and those rows are negated here the same way (the score is named
      ``result (losses negated)``). Objective: maximize. A metric AMLB does
      not define has no recorded direction: pass ``score=`` and ``objective=``.
    * ``score=<a metric column>`` (``auc``, ``acc``, ``logloss``, ...): that
      column, with the direction AMLB defines for the metric; for a column
      AMLB does not define, pass ``objective=``.

    Failed runs (no score, the error in ``info``) are recorded in
    ``results.exclusions`` with AMLB's message, never silently dropped.

    Parameters
    ----------
    path : path, sequence of paths, or DataFrame
        ``results.csv`` files (concatenated), or the table itself.
    score : str, optional
        A metric column to compare on instead of ``result``.
    objective : {"maximize", "minimize"}, optional
        Only for a score whose direction AMLB does not record; a value that
        contradicts AMLB's definition is refused.
    constraint : str, optional
        Read only this ``constraint`` (``1h8c``, ...); required when the file
        holds several (the same run under two time budgets).
    on_invalid : {"raise", "drop"}
        As in :meth:`Results.from_frame` (rows with no score and no error).
    min_algorithms : int
        Fewest algorithms the data may hold (``1`` for a leaderboard submission).

    Examples
    --------
    >>> df = pd.DataFrame({"task": ["kc2"] * 4, "framework": ["RF", "RF", "GBM", "GBM"],
    ...     "fold": [0, 1, 0, 1], "metric": "neg_logloss", "info": None,
    ...     "result": [-0.35, -0.41, -0.30, -0.33]})
    >>> res = read_amlb(df)
    >>> res.objective, res.algorithms, res.seeds
    ('maximize', ['GBM', 'RF'], [0, 1])
    """
    frame = _amlb_frame(path)
    needed = ["framework", "task", "fold"]
    absent = [c for c in needed if c not in frame.columns]
    if absent:
        raise ValueError(f"the AMLB table lacks the column(s) {absent}; found "
                         f"{list(frame.columns)}. Fix: give AMLB's results.csv.")
    frame = frame.reset_index(drop=True)
    # Which framework, task and fold each input row is: an excluded row is named by them.
    where = pd.DataFrame({"algorithm": frame["framework"].astype(str),
                          "benchmark": frame["task"].astype(str),
                          "seed": _fold_labels(frame["fold"])}, index=frame.index)
    filtered = pd.Index([])
    if "constraint" in frame.columns:
        constraints = sorted(frame["constraint"].dropna().astype(str).unique())
        if constraint is not None:
            keep = frame["constraint"].astype(str) == constraint
            if not keep.any():
                raise ValueError(f"no rows with constraint {constraint!r}; found {constraints}.")
            filtered = frame.index[~keep]
            frame = frame[keep]
        elif len(constraints) > 1:
            raise ValueError(
                f"the table holds several constraints {constraints}: the same framework, task "
                f"and fold under different time budgets. Fix: pass constraint=<one of them>."
            )
    elif constraint is not None:
        raise ValueError("constraint= given, but the table has no 'constraint' column.")
    column, values, objective = _amlb_score(frame, score, objective)
    info = frame["info"] if "info" in frame.columns else pd.Series(None, index=frame.index)
    failed = values.isna() & info.notna() & (info.astype(str).str.strip() != "")
    table = pd.DataFrame({
        "framework": frame["framework"].astype(str), "task": frame["task"].astype(str),
        "fold": _fold_labels(frame["fold"]), column: values,
    }, index=frame.index)
    meta = []
    if "type" in frame.columns and frame["type"].notna().all():
        table["type"] = frame["type"].astype(str)
        meta = ["type"]
    if score is None and "metric" in frame.columns and frame["metric"].notna().all():
        # Which metric each row's result holds: benchverdict.scales.scale_check reads it.
        table["metric"] = frame["metric"].astype(str)
        meta = [*meta, "metric"]
    results = Results.from_frame(
        table[~failed], algorithm="framework", benchmark="task", seed="fold", score=column,
        objective=objective, metafeatures=meta, on_invalid=on_invalid, kind="runs",
        min_algorithms=min_algorithms,
    )
    records = pd.DataFrame({
        "row": list(frame.index[failed]), "columns": "info",
        **{k: where.loc[frame.index[failed], k].tolist() for k in where.columns},
        "reason": [f"AMLB run failed: {m}" for m in info[failed].astype(str)],
    })
    if len(filtered):
        records = pd.concat([records, pd.DataFrame({
            "row": list(filtered), "columns": "constraint",
            **{k: where.loc[filtered, k].tolist() for k in where.columns},
            "reason": f"filtered: constraint != {constraint!r}"})], ignore_index=True)
    return with_exclusions(results, records)


def _fold_labels(folds: pd.Series) -> pd.Series:
    """Folds as integers where they are integral (a blank fold made pandas read 6 as 6.0).

    A missing fold stays missing (validation names its rows, or the row is a
    failed run and excluded as such), so no seed is ever shown as ``6.0`` or
    ``nan``.

    Examples
    --------
    >>> _fold_labels(pd.Series([0.0, 6.0, float("nan")])).tolist()
    [0, 6, None]
    """
    if not pd.api.types.is_float_dtype(folds.dtype):
        return folds
    values = folds.to_numpy()
    present = ~np.isnan(values)
    if (values[present] != np.round(values[present])).any():
        return folds  # not integral: validation reports what it is
    out = [int(v) if ok else None for v, ok in zip(values, present)]
    return pd.Series(out, index=folds.index, dtype=object)


def _amlb_frame(path) -> pd.DataFrame:
    if isinstance(path, pd.DataFrame):
        return path.copy()
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    frames = [read_frame(p, format="csv", text_columns=["framework", "task"]) for p in paths]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _amlb_score(frame: pd.DataFrame, score: str | None,
                objective: Objective | None) -> tuple[str, pd.Series, Objective]:
    """(score name, values, objective) from AMLB's record of the metric."""
    if objective is not None:
        check_objective(objective)
    if score is not None:
        if score not in frame.columns:
            raise ValueError(f"score column {score!r} is not in the table; found "
                             f"{list(frame.columns)}.")
        recorded = ("maximize" if score in AMLB_HIGHER_IS_BETTER or score.startswith("neg_")
                    else "minimize" if score in AMLB_LOWER_IS_BETTER else None)
        if recorded is None and objective is None:
            raise ValueError(
                f"AMLB does not define the metric {score!r}, so its direction is not recorded. "
                f"Fix: pass objective='maximize' or 'minimize'."
            )
        if recorded is not None and objective is not None and objective != recorded:
            raise ValueError(f"objective={objective!r} contradicts AMLB's definition of "
                             f"{score!r} ({recorded}). Fix: drop objective=.")
        return score, pd.to_numeric(frame[score], errors="coerce"), recorded or objective
    if "result" not in frame.columns:
        raise ValueError("the AMLB table has no 'result' column. Fix: pass score=<a metric "
                         "column>.")
    if "metric" not in frame.columns:
        metrics = [c for c in frame.columns
                   if c in AMLB_HIGHER_IS_BETTER | AMLB_LOWER_IS_BETTER]
        raise ValueError(
            "this AMLB table has no 'metric' column (AMLB before 2.0): its 'result' holds "
            "the metric of each task's type (auc for binary, logloss for multiclass), whose "
            f"directions differ and are not recorded. Fix: pass score=<one of {metrics}> "
            "(its direction is AMLB's definition)."
        )
    metric = frame["metric"].astype(str)
    unknown = sorted(set(metric) - AMLB_HIGHER_IS_BETTER - AMLB_LOWER_IS_BETTER
                     - {m for m in set(metric) if m.startswith("neg_")})
    if unknown:
        raise ValueError(
            f"AMLB does not define the metric(s) {unknown}, so the direction of 'result' is "
            f"not recorded for them. Fix: pass score=<a metric column> and objective=."
        )
    if objective == "minimize":
        raise ValueError("AMLB's 'result' is compared higher-is-better (losses negated). Fix: "
                         "drop objective=, or pass score=<a loss column>.")
    per_task = frame.assign(_m=metric).groupby("task")["_m"].nunique()
    mixed = per_task[per_task > 1].index.tolist()
    if mixed:
        raise ValueError(f"tasks {mixed[:5]} hold several metrics in 'result'; one task, one "
                         f"metric. Fix: pass score=<a metric column>.")
    values = pd.to_numeric(frame["result"], errors="coerce")
    plain_loss = metric.isin(AMLB_LOWER_IS_BETTER)
    if plain_loss.any():
        return "result (losses negated)", values.where(~plain_loss, -values), "maximize"
    return "result", values, "maximize"
