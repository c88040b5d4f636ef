"""The step every HPO-tool reader shares: one run's trials to its incumbents.

An HPO tool (Optuna, SMAC3, Syne Tune, Ray Tune, NePS) records, for one run
of one optimiser on one problem with one seed, the trials it evaluated: a
position along the run (trial number, wall-clock time), the trial's value
and its state (finished, pruned, failed, ...). A reader turns each run into
an identity (algorithm, benchmark, seed) and a table of trials, and
:func:`trials_to_results` makes the :class:`~benchverdict.results.Results`:

* the trials whose state is not a finished result (pruned, failed, still
  running) are never silently dropped: each is one record in
  ``results.exclusions``, with the tool's state in the reason;
* every finished trial becomes one row whose score is the run's
  *incumbent*, the best value among its finished trials up to and including
  this one (``kind="runs"``: rank tests and the LMEM compare incumbents at a
  budget); ``incumbent=False`` keeps each trial's own value instead
  (``kind="trials"``, right only where trials are independent draws, as in
  random search).

The incumbent at budget ``b`` is ``best_{t <= b, t finished} value_t``, with
"best" taken in the run's objective direction. A trial whose value is NaN
neither becomes nor changes the incumbent; its row keeps the NaN so that
validation reports it (or drops it with ``on_invalid="drop"``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
import regex

from benchverdict.exclusions import concat_exclusions
from benchverdict.io import _plain_integers
from benchverdict.results import Objective, Results, exclusions_table

OnInvalid = Literal["raise", "drop"]
ROLES = ("algorithm", "benchmark", "seed")
#: How many offending runs an error message lists before "and N more".
SHOWN = 5
#: Seconds all run names together may take to match a name pattern. A pattern with
#: nested repetition such as ``(a+)+$`` backtracks exponentially on a name it fails to
#: match; Python's ``re`` cannot be interrupted, so patterns run on ``regex``, which can.
PATTERN_SECONDS = 2.0
_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE | re.ASCII


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(repr(i) for i in items[:SHOWN])
    more = f" and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return shown + more


def compile_name_pattern(pattern: str | re.Pattern | None) -> Any:
    """Compile a run-name pattern, refusing groups that name no role.

    The pattern's named groups (``algorithm``, ``benchmark``, ``seed``) give
    those roles from each run's name; it must match the whole name. It is
    compiled with the ``regex`` module (Python's ``re`` syntax), whose
    matching can be stopped: :func:`run_identities` gives all names together
    :data:`PATTERN_SECONDS` seconds, so a catastrophically backtracking
    pattern fails with a clear error instead of hanging.

    Examples
    --------
    >>> compile_name_pattern(r"(?P<algorithm>\\w+)-(?P<seed>\\d+)").groupindex.keys()
    dict_keys(['algorithm', 'seed'])
    """
    if pattern is None:
        return None
    source, flags = (pattern, 0) if isinstance(pattern, str) else (pattern.pattern,
                                                                     pattern.flags & _FLAGS)
    try:
        compiled = regex.compile(source, flags | regex.VERSION0)
    except regex.error as err:
        raise ValueError(f"name_pattern {source!r} is not a valid regular expression ({err}). "
                         f"Fix: check its brackets and escapes.") from None
    unknown = sorted(set(compiled.groupindex) - set(ROLES))
    if unknown:
        raise ValueError(
            f"name_pattern has group(s) {unknown} that name no role; use (?P<algorithm>...), "
            f"(?P<benchmark>...) and (?P<seed>...)."
        )
    if not compiled.groupindex:
        raise ValueError(
            f"name_pattern {compiled.pattern!r} has no named group; name the parts, e.g. "
            f"r'(?P<algorithm>[^-]+)-(?P<benchmark>[^-]+)-(?P<seed>\\d+)'."
        )
    return compiled


def run_identities(
    runs: Sequence[tuple[str, Mapping[str, object]]],
    *,
    tool: str,
    pattern: Any,
    fixes: Mapping[str, str],
) -> pd.DataFrame:
    """Each run's algorithm, benchmark and seed, checked across runs.

    Parameters
    ----------
    runs : sequence of (name, recorded)
        The run's name (a study name, a folder) and the roles the tool
        recorded for it (missing or ``None`` where it records none).
    tool : str
        The tool's name, for messages.
    pattern : compiled regex, optional
        Its named groups give roles from the run's name and take precedence
        over what the tool recorded.
    fixes : mapping
        For each role, how to give it (shown when runs lack it).

    Returns
    -------
    pandas.DataFrame
        Columns ``name, algorithm, benchmark, seed`` (``benchmark`` all
        ``None`` when no run has one: one benchmark).

    Raises
    ------
    ValueError
        If a name does not match the pattern, a run lacks its algorithm or
        seed, only some runs have a benchmark, or two runs share an identity.

    Examples
    --------
    >>> run_identities([("tpe-0", {"algorithm": "TPE"})], tool="Optuna",
    ...                pattern=compile_name_pattern(r"\\w+-(?P<seed>\\d+)"),
    ...                fixes={}).to_dict("records")
    [{'name': 'tpe-0', 'algorithm': 'TPE', 'benchmark': None, 'seed': 0}]
    """
    if not runs:
        raise ValueError(f"no {tool} run to read.")
    rows, unmatched = [], []
    deadline = time.monotonic() + PATTERN_SECONDS
    for name, recorded in runs:
        row = {"name": name, **{role: recorded.get(role) for role in ROLES}}
        if pattern is not None:
            match = _fullmatch(pattern, name, deadline, len(runs))
            if match is None:
                unmatched.append(name)
                continue
            row.update({k: v for k, v in match.groupdict().items() if v is not None})
        rows.append(row)
    if unmatched:
        raise ValueError(
            f"{len(unmatched)} {tool} run name(s) do not match name_pattern "
            f"{pattern.pattern!r}: {_listed(unmatched)}. Fix: write a pattern that matches the "
            f"whole name."
        )
    frame = pd.DataFrame(rows, columns=["name", *ROLES]).astype(object)
    for role in ("algorithm", "seed"):
        lacking = frame.loc[frame[role].isna(), "name"].tolist()
        if lacking:
            raise ValueError(
                f"{len(lacking)} {tool} run(s) do not say their {role}: {_listed(lacking)}. "
                f"Fix: {fixes.get(role, f'pass name_pattern with a (?P<{role}>...) group')}."
            )
    has_bench = frame["benchmark"].notna()
    if has_bench.any() and not has_bench.all():
        lacking = frame.loc[~has_bench, "name"].tolist()
        raise ValueError(
            f"{len(lacking)} {tool} run(s) do not say their benchmark while others do: "
            f"{_listed(lacking)}. Fix: {fixes.get('benchmark', 'pass name_pattern')}."
        )
    frame["algorithm"] = frame["algorithm"].map(str)
    if has_bench.any():
        frame["benchmark"] = frame["benchmark"].map(str)
    else:
        frame["benchmark"] = None
    frame["seed"] = _seed_labels(frame["seed"])
    key = ["algorithm", "benchmark", "seed"]
    twins = frame[frame.duplicated(key, keep=False)]
    if len(twins):
        first = twins.iloc[0]
        same = twins[(twins["algorithm"] == first["algorithm"])
                     & (twins["benchmark"].astype(str) == str(first["benchmark"]))
                     & (twins["seed"].astype(str) == str(first["seed"]))]["name"].tolist()
        bench = "" if first["benchmark"] is None else f", benchmark {first['benchmark']!r}"
        raise ValueError(
            f"{tool} runs {_listed(same)} are all algorithm {first['algorithm']!r}{bench}, seed "
            f"{first['seed']!r}: one run per (algorithm, benchmark, seed). Fix: give each run "
            f"its own identity ({fixes.get('benchmark', 'pass name_pattern')}), or read the "
            f"runs of one comparison only."
        )
    return frame


def _fullmatch(pattern: Any, name: str, deadline: float, n_names: int) -> Any:
    """``pattern.fullmatch(name)``, stopped when the names' shared time is up."""
    if isinstance(pattern, re.Pattern):  # compiled by the caller: recompile stoppably
        pattern = compile_name_pattern(pattern)
    try:
        return pattern.fullmatch(name, timeout=max(deadline - time.monotonic(), 1e-3))
    except TimeoutError:
        raise ValueError(
            f"name_pattern {pattern.pattern!r} took more than {PATTERN_SECONDS:g} s to match "
            f"{n_names} run name(s) (stopped at {name[:80]!r}): it backtracks catastrophically, "
            f"as nested repetition such as (a+)+ or (a|a)* does on a name it fails to match. "
            f"Fix: write each part without nested repetition, e.g. "
            f"r'(?P<algorithm>[^-]+)-(?P<seed>\\d+)'."
        ) from None


def _seed_labels(seeds: pd.Series) -> pd.Series:
    """Integer seeds stay integers; anything else becomes text (plain integers back to int)."""
    values = seeds.tolist()
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
           for v in values):
        return pd.Series([int(v) for v in values], index=seeds.index, dtype=object)
    text = pd.Series([str(v) for v in values], index=seeds.index, dtype=object)
    converted = _plain_integers(text)
    return pd.Series(converted.tolist(), index=seeds.index, dtype=object)


def trials_to_results(
    trials: pd.DataFrame,
    *,
    objective: Objective,
    tool: str,
    score: str,
    budget: str,
    incumbent: bool = True,
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
    kind_reason: str,
) -> Results:
    """Validate the trials of many runs into a :class:`Results`.

    Parameters
    ----------
    trials : pandas.DataFrame
        One row per trial: ``algorithm, benchmark, seed`` (the run),
        ``budget`` (its position in the run), ``value``, ``finished`` (bool:
        whether the trial has a result), ``state`` (the tool's word for it)
        and ``label`` (a unique name for the trial, shown in exclusions and
        validation messages). ``benchmark`` may be all ``None``. An optional
        ``seconds`` column (the trial's wall-clock duration, NaN where the
        tool recorded none) becomes the metafeature ``seconds``: for
        incumbents, the seconds the run had spent when the row's trial
        ended (every trial up to it, pruned and failed ones included, NaN
        durations counted as 0); for ``incumbent=False``, the trial's own.
        A leaderboard shows it as a cost (``cost="seconds"``).
    objective : {"maximize", "minimize"}
        As the tool recorded it.
    tool : str
        The tool's name, for messages.
    score, budget : str
        The names the score and budget columns get (``results.roles``).
    incumbent : bool
        Rows hold the run's incumbent (``kind="runs"``), or each trial's own
        value (``kind="trials"``).
    min_algorithms : int
        Fewer distinct algorithms is an error (default 2); ``1`` reads a
        single tool run, e.g. a leaderboard submission.
    on_invalid : {"raise", "drop"}
        As in :meth:`Results.from_frame` (a finished trial with a NaN value).
    kind_reason : str
        Why the rows are what they are (``results.kind_reason``).

    Examples
    --------
    >>> t = pd.DataFrame({"algorithm": ["a"] * 3 + ["b"] * 3, "benchmark": None,
    ...     "seed": 0, "budget": [1, 2, 3] * 2, "value": [3.0, 1.0, 2.0, 5.0, 4.0, 4.5],
    ...     "finished": [True, True, True, True, False, True], "state": "COMPLETE",
    ...     "label": list("uvwxyz")})
    >>> res = trials_to_results(t, objective="minimize", tool="demo", score="loss",
    ...                         budget="trial", kind_reason="incumbents")
    >>> res.table["score"].tolist()
    [3.0, 1.0, 1.0, 5.0, 4.5]
    >>> res.exclusions["row"].tolist()
    ['y']
    """
    trials = trials.reset_index(drop=True)
    if not trials["label"].is_unique:
        raise ValueError(f"internal: {tool} trial labels are not unique.")
    finished = trials["finished"].to_numpy(dtype=bool)
    if not finished.any():
        counts = trials["state"].value_counts().to_dict()
        raise ValueError(
            f"no finished {tool} trial to read (trial states: {counts}). Fix: read runs that "
            f"completed at least one trial."
        )
    has_bench = trials["benchmark"].notna().any()
    keys = ["algorithm", "benchmark", "seed"] if has_bench else ["algorithm", "seed"]
    kept = trials[finished].sort_values([*keys, "budget"], kind="stable")
    values = pd.to_numeric(kept["value"], errors="coerce").astype(float)
    if incumbent:
        sign = 1.0 if objective == "maximize" else -1.0
        run = kept.groupby(keys, sort=False, dropna=False).ngroup()
        scores = (values * sign).groupby(run.to_numpy()).cummax() * sign
        # A NaN trial keeps its NaN (validation reports it); cummax skips it for later rows.
        scores[values.isna()] = np.nan
    else:
        scores = values
    frame = pd.DataFrame({
        "algorithm": kept["algorithm"].to_numpy(dtype=object),
        "benchmark": kept["benchmark"].to_numpy(dtype=object),
        "seed": kept["seed"].to_numpy(dtype=object),
        budget: kept["budget"].to_numpy(dtype=float),
        score: scores.to_numpy(dtype=float),
        "trial_value": values.to_numpy(dtype=float),
    }, index=pd.Index(kept["label"].to_numpy(dtype=object), name="trial"))
    frame["seed"] = _seed_labels(frame["seed"])
    timed = "seconds" in trials.columns
    if timed:
        frame["seconds"] = _run_seconds(trials, keys, incumbent).loc[kept.index].to_numpy(
            dtype=float)
    results = Results.from_frame(
        frame,
        algorithm="algorithm",
        benchmark="benchmark" if has_bench else None,
        seed="seed",
        budget=budget,
        score=score,
        objective=objective,
        on_invalid=on_invalid, min_algorithms=min_algorithms,
        kind="runs" if incumbent else "trials",
        metafeatures=["seconds"] if timed else [],
    )
    excluded = trials[~finished]
    # Each excluded trial's run and budget: a run whose last trials failed or were pruned did
    # reach their budget (report.stopping.stopped_early_cells reads it).
    seeds = _seed_labels(pd.concat([kept["seed"], excluded["seed"]])).iloc[len(kept):]
    records = pd.DataFrame({
        "algorithm": excluded["algorithm"].astype(str).to_numpy(dtype=object),
        "benchmark": (excluded["benchmark"].astype(str).to_numpy(dtype=object) if has_bench
                      else None),
        "seed": seeds.to_numpy(dtype=object),
        "budget": pd.to_numeric(excluded["budget"], errors="coerce").to_numpy(dtype=float),
        "row": excluded["label"].to_numpy(dtype=object),
        "columns": "state",
        "reason": excluded["state"].map(lambda s: f"{tool} trial state {s}").to_numpy(
            dtype=object),
    })
    return with_exclusions(results, records, kind_reason=kind_reason)


def _run_seconds(trials: pd.DataFrame, keys: list[str], cumulative: bool) -> pd.Series:
    """Each trial's seconds, or the run's seconds so far (all its trials up to this one).

    A run's cost includes the trials that did not finish: pruned and failed trials took
    time too. A trial without a duration (still running) adds nothing.
    """
    seconds = pd.to_numeric(trials["seconds"], errors="coerce").astype(float)
    if not cumulative:
        return seconds
    order = trials.sort_values([*keys, "budget"], kind="stable").index
    run = trials.loc[order].groupby(keys, sort=False, dropna=False).ngroup()
    spent = seconds.loc[order].fillna(0.0).groupby(run.to_numpy()).cumsum()
    return pd.Series(spent.to_numpy(), index=order)


def with_exclusions(results: Results, records: pd.DataFrame, *,
                    kind_reason: str | None = None) -> Results:
    """``results`` with more exclusion records: input rows the tool did not finish.

    ``records`` has some of the columns of
    :data:`~benchverdict.exclusions.EXCLUSION_COLUMNS` (an adapter gives
    ``row``, ``columns`` and ``reason``); they are rows dropped when the data
    were read (``unit`` ``"row"``, ``analysis`` ``"validation"``).

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> extra = pd.DataFrame({"row": ["t7"], "columns": ["state"], "reason": ["failed"]})
    >>> len(with_exclusions(_example_small(), extra).exclusions)
    1
    """
    exclusions = concat_exclusions([results.exclusions, exclusions_table(records)])
    return Results(
        results._frame,
        objective=results.objective,
        kind=results.kind,
        kind_reason=results.kind_reason if kind_reason is None else kind_reason,
        roles=results.roles,
        metafeatures=results.metafeatures,
        exclusions=exclusions,
    )


def direction_word(direction: str) -> Objective:
    """``"maximize"``/``"minimize"`` from a tool's word (``max``, ``MAXIMIZE``, ...).

    Examples
    --------
    >>> direction_word("min"), direction_word("MAXIMIZE")
    ('minimize', 'maximize')
    """
    word = str(direction).strip().lower()
    if word in ("max", "maximize", "maximise", "studydirection.maximize"):
        return "maximize"
    if word in ("min", "minimize", "minimise", "studydirection.minimize"):
        return "minimize"
    raise ValueError(f"cannot read the direction {direction!r}: expected min or max.")
