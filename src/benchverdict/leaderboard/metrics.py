"""Other metrics and a cost beside the ranked metric, and the score-versus-cost Pareto view.

A leaderboard ranks on one metric, its ``score``: the positions, the
mean-rank intervals and the ratings all rest on it. Readers also want to
see what else an entry trades: a second metric (accuracy beside the loss
the board ranks on), and what a run cost (seconds, trials, money). This
module describes those columns per entry; it tests nothing.

**What a column holds.** Each is a numeric column of the submission's rows,
kept as a metafeature (``Results.from_frame(..., metafeatures=[...])``,
``--metafeature`` on the command line), read at the board's budget like the
score:

* a **metric** is read at each run's incumbent row (:meth:`Results.at_budget`):
  for ``kind="runs"`` rows that is the run's last row at or below the
  board's budget, so the column must, like the score, describe the run's
  incumbent at that row's budget; for ``kind="trials"`` (random search) it
  is the chosen configuration's own value.
* a **cost** is what the run spent up to the board's budget: for
  ``kind="runs"`` the column is cumulative (the value at the run's last row
  at or below the budget: seconds elapsed, trials used, money spent so
  far); for ``kind="trials"`` it is each trial's own cost and the run's
  cost is their sum over the trials at or below the budget.

**Per entry** (:func:`entry_metrics`): each run's value is averaged over
seeds within a benchmark, then summarised over benchmarks by the
``mean``, the ``median`` and the ``mean_rank`` (ranked among the board's
entries within each benchmark in the column's own direction, 1 = best,
ties share the mean rank). A mean over benchmarks mixes their scales; the
median and the mean rank do not. Benchmarks where some entry has no value
(a missing value, or an imputed run) are left out of the mean rank and
counted in ``n_benchmarks``.

**Pareto view** (:func:`pareto_front`): an entry is on the front when no
other entry has both a lower (or equal) mean rank on the score and a lower
(or equal) mean cost per run, one of them strictly. Like every number here
it is descriptive: a difference in cost is not tested, and an entry off
the front may be within noise of it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

#: The columns of :func:`entry_metrics`'s table (``Leaderboard.metrics``).
METRIC_COLUMNS = ["algorithm", "metric", "role", "objective", "mean", "median", "mean_rank",
                  "n_benchmarks", "n_runs", "n_missing", "pareto"]
ROLES = ("metric", "cost")


@dataclass(frozen=True)
class MetricSpec:
    """One column a board shows beside its score.

    Attributes
    ----------
    name : str
        The column (a metafeature of the submission).
    objective : {"maximize", "minimize"}
        Which direction is better (a cost is always ``"minimize"``).
    role : {"metric", "cost"}
        How it is read at the board's budget (see the module docstring).
    """

    name: str
    objective: str
    role: str = "metric"

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, got {self.role!r}.")
        if self.objective not in ("maximize", "minimize"):
            raise ValueError(f"metric {self.name!r}: objective must be 'maximize' or "
                             f"'minimize', got {self.objective!r}.")
        if self.role == "cost" and self.objective != "minimize":
            raise ValueError(f"cost {self.name!r}: a cost is minimized (less is better).")

    def to_dict(self) -> dict[str, str]:
        """The JSON form (kept in a leaderboard's manifest)."""
        return {"name": self.name, "objective": self.objective, "role": self.role}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MetricSpec:
        """Read :meth:`to_dict`'s form back."""
        return cls(str(data["name"]), str(data["objective"]), str(data.get("role", "metric")))


def parse_metric(text: str) -> MetricSpec:
    """A metric from ``NAME:max`` or ``NAME:min`` (the command line's ``--metric``).

    Examples
    --------
    >>> parse_metric("accuracy:max")
    MetricSpec(name='accuracy', objective='maximize', role='metric')
    """
    name, sep, direction = str(text).rpartition(":")
    words = {"max": "maximize", "maximize": "maximize", "min": "minimize",
             "minimize": "minimize"}
    if not sep or not name or direction.lower() not in words:
        raise ValueError(
            f"metric {text!r}: give the column and its direction, NAME:max or NAME:min "
            f"(e.g. accuracy:max, runtime:min).")
    return MetricSpec(name, words[direction.lower()], "metric")


def metric_specs(metrics: Mapping[str, str] | Iterable[MetricSpec | str] | None = (),
                 cost: str | None = None) -> list[MetricSpec]:
    """The specs of ``metrics`` (``{name: objective}``, specs or ``"NAME:max"``) and ``cost``.

    Raises
    ------
    ValueError
        On a direction that is neither maximize nor minimize, or a column
        named twice.

    Examples
    --------
    >>> [s.name for s in metric_specs({"acc": "maximize"}, cost="seconds")]
    ['acc', 'seconds']
    """
    specs: list[MetricSpec] = []
    if isinstance(metrics, Mapping):
        specs += [MetricSpec(str(k), str(v), "metric") for k, v in metrics.items()]
    else:
        specs += [m if isinstance(m, MetricSpec) else parse_metric(m) for m in metrics or ()]
    if cost is not None:
        specs.append(MetricSpec(str(cost), "minimize", "cost"))
    names = [s.name for s in specs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"metric {twice[0]!r} is named twice (as a metric and a cost, or "
                         f"twice). Fix: name each column once.")
    return specs


def check_columns(table: pd.DataFrame, specs: Sequence[MetricSpec], *,
                  metafeatures: Sequence[str], what: str = "the data") -> None:
    """Refuse a spec whose column ``table`` lacks, that is not kept, or is not numeric.

    Raises
    ------
    ValueError
        Naming the column, the rows (for non-numeric values) and the fix.

    Examples
    --------
    >>> t = pd.DataFrame({"algorithm": ["a"], "seconds": ["slow"]})
    >>> check_columns(t, [MetricSpec("seconds", "minimize", "cost")],  # doctest: +ELLIPSIS
    ...               metafeatures=["seconds"])
    Traceback (most recent call last):
    ...
    ValueError: cost 'seconds' of the data is not numeric (row 0: 'slow'). Fix: ...
    """
    for spec in specs:
        if spec.name in ("algorithm", "benchmark", "seed", "score", "budget"):
            raise ValueError(f"{spec.role} {spec.name!r} is a role of the schema, not a "
                             f"column beside the score. Fix: name another column.")
        if spec.name not in metafeatures or spec.name not in table.columns:
            raise ValueError(
                f"{spec.role} {spec.name!r}: {what} has no such column kept beside the "
                f"score (kept: {list(metafeatures) or 'none'}). Fix: keep it with "
                f"--metafeature {spec.name} (Results.from_frame(..., "
                f"metafeatures=[{spec.name!r}])), or drop the {spec.role}.")
        values = table[spec.name]
        numeric = pd.to_numeric(values, errors="coerce")
        bad = np.flatnonzero((numeric.isna() & values.notna()).to_numpy()
                             | np.isinf(numeric.to_numpy(dtype=float, na_value=np.nan)))
        if pd.api.types.is_bool_dtype(values):
            bad = np.arange(len(values))
        if len(bad):
            shown = ", ".join(f"row {i}: {values.iloc[i]!r}" for i in bad[:3])
            more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
            raise ValueError(
                f"{spec.role} {spec.name!r} of {what} is not numeric ({shown}{more}). Fix: "
                f"give numbers ({'seconds, trials, money' if spec.role == 'cost' else 'scores'}"
                f"), or leave the column out.")


def run_values(table: pd.DataFrame, specs: Sequence[MetricSpec], *, objective: str,
               kind: str, budget: float | None) -> pd.DataFrame:
    """Each run's value of every spec at ``budget`` (see the module docstring).

    Parameters
    ----------
    table : pandas.DataFrame
        Canonical rows (``algorithm, benchmark, seed, score[, budget]`` and the
        specs' columns).
    specs : sequence of MetricSpec
    objective : {"maximize", "minimize"}
        The score's direction (picks a trials run's incumbent).
    kind : {"runs", "trials"}
    budget : float or None
        The board's budget; ``None`` without a budget column.

    Returns
    -------
    pandas.DataFrame
        One row per run: ``algorithm, benchmark, seed`` and one column per spec.

    Examples
    --------
    >>> t = pd.DataFrame({"algorithm": "a", "benchmark": "p", "seed": 0,
    ...                   "budget": [1.0, 2.0, 3.0], "score": [0.5, 0.9, 0.7],
    ...                   "acc": [0.6, 0.8, 0.75], "s": [10.0, 12.0, 9.0]})
    >>> specs = [MetricSpec("acc", "maximize"), MetricSpec("s", "minimize", "cost")]
    >>> run_values(t, specs, objective="maximize", kind="trials", budget=2.0)
      algorithm benchmark  seed  acc     s
    0         a         p     0  0.8  22.0
    """
    keys = ["algorithm", "benchmark", "seed"]
    rows = table
    if budget is not None and "budget" in rows.columns:
        rows = rows[rows["budget"].to_numpy(dtype=float) <= budget]
    rows = rows.reset_index(drop=True)
    if "budget" in rows.columns:
        rows = rows.sort_values("budget", kind="stable")
    if kind == "trials":
        # The incumbent: the best score among the run's trials (the first such trial).
        signed = rows["score"].to_numpy(dtype=float) * (-1.0 if objective == "maximize" else 1.0)
        labels = rows.assign(_s=signed).groupby(keys, observed=True)["_s"].idxmin().to_numpy()
    else:
        labels = rows.groupby(keys, observed=True).tail(1).index.to_numpy()
    at = rows.loc[labels, keys + [s.name for s in specs]].copy()
    for spec in specs:
        at[spec.name] = pd.to_numeric(at[spec.name], errors="coerce").astype(float)
        if spec.role == "cost" and kind == "trials":
            values = pd.to_numeric(rows[spec.name], errors="coerce").astype(float)
            by = [rows[k] for k in keys]
            # NaN unless every trial of the run has a cost: a partial sum would flatter it.
            summed = values.groupby(by, observed=True).sum().where(
                values.notna().groupby(by, observed=True).all())
            at[spec.name] = summed.reindex(pd.MultiIndex.from_frame(at[keys])).to_numpy()
    at = at.sort_values(keys, kind="stable").reset_index(drop=True)
    return at


def entry_metrics(values: pd.DataFrame, specs: Sequence[MetricSpec],
                  entries: Sequence[str]) -> pd.DataFrame:
    """Summarise :func:`run_values` per entry: mean, median and mean rank over benchmarks.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`METRIC_COLUMNS`, one row per (entry, spec), in the
        order of ``entries`` then ``specs``. ``n_runs`` counts the runs with
        a value and ``n_missing`` those without; ``pareto`` is set by
        :func:`pareto_front` (``None`` here).

    Examples
    --------
    >>> v = pd.DataFrame({"algorithm": ["a", "b"] * 2, "benchmark": ["p", "p", "q", "q"],
    ...                   "seed": 0, "s": [1.0, 3.0, 5.0, 4.0]})
    >>> entry_metrics(v, [MetricSpec("s", "minimize", "cost")], ["a", "b"])[
    ...     ["algorithm", "mean", "median", "mean_rank"]]
      algorithm  mean  median  mean_rank
    0         a   3.0     3.0        1.5
    1         b   3.5     3.5        1.5
    """
    rows = []
    known = values[values["algorithm"].isin(list(entries))]
    for spec in specs:
        cells = known.groupby(["benchmark", "algorithm"], observed=True)[spec.name].mean()
        wide = cells.unstack().reindex(columns=list(entries))
        complete = wide.dropna(axis=0, how="any")
        signed = complete.to_numpy(dtype=float) * (-1.0 if spec.objective == "maximize"
                                                  else 1.0)
        ranks = (stats.rankdata(signed, axis=1, method="average").mean(axis=0)
                 if len(complete) else np.full(len(entries), np.nan))
        counts = known.groupby("algorithm", observed=True)[spec.name].agg(
            ["count", "size"]).reindex(list(entries)).fillna(0)
        for j, entry in enumerate(entries):
            column = complete[entry]  # the benchmarks every entry has a value on
            rows.append({
                "algorithm": entry, "metric": spec.name, "role": spec.role,
                "objective": spec.objective,
                "mean": float(column.mean()) if len(column) else math.nan,
                "median": float(column.median()) if len(column) else math.nan,
                "mean_rank": float(ranks[j]), "n_benchmarks": len(complete),
                "n_runs": int(counts.loc[entry, "count"]),
                "n_missing": int(counts.loc[entry, "size"] - counts.loc[entry, "count"]),
                "pareto": None})
    return pd.DataFrame(rows, columns=METRIC_COLUMNS)


def pareto_front(rank: Sequence[float], cost: Sequence[float]) -> np.ndarray:
    """Which points no other point dominates (both lower or equal, one strictly).

    Both coordinates are minimized; a point with a NaN coordinate is never
    on the front and dominates nothing.

    Examples
    --------
    >>> pareto_front([1.0, 2.0, 3.0, 2.5], [30.0, 10.0, 5.0, 12.0]).tolist()
    [True, True, True, False]
    """
    x, y = np.asarray(rank, dtype=float), np.asarray(cost, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    le = (x[:, None] <= x[None, :]) & (y[:, None] <= y[None, :])  # [i, j]: i weakly below j
    lt = (x[:, None] < x[None, :]) | (y[:, None] < y[None, :])
    dominated = ((le & lt) & ok[:, None]).any(axis=0)
    return ok & ~dominated
