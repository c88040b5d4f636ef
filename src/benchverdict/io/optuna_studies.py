"""Read Optuna studies: each study is one HPO run, each trial one step of it.

Optuna (``pip install optuna``) is needed only to open a storage; studies
given as objects are read through their public API.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from benchverdict.io import check_regular
from benchverdict.io._hpo_runs import (
    OnInvalid,
    compile_name_pattern,
    direction_word,
    run_identities,
    trials_to_results,
)
from benchverdict.results import Results

_SQLITE_MAGIC = b"SQLite format 3\x00"


def read_optuna(
    studies: Any,
    *,
    study_names: Sequence[str] | None = None,
    algorithm_attr: str = "algorithm",
    benchmark_attr: str = "benchmark",
    seed_attr: str = "seed",
    name_pattern: str | re.Pattern | None = None,
    objective_index: int | None = None,
    values: Literal["incumbent", "trial"] = "incumbent",
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
    seconds: bool = False,
) -> Results:
    """Read Optuna studies: one study per (algorithm, benchmark, seed) run.

    Roles, per study:

    * ``algorithm``: the study's user attribute ``algorithm_attr``; else,
      for a :class:`optuna.study.Study` object given directly, its sampler's
      class name (``"TPESampler"``). A study opened from storage has no
      record of its sampler (``optuna.load_study`` attaches a default
      ``TPESampler``), so its algorithm must be an attribute or in its name.
    * ``benchmark``: the user attribute ``benchmark_attr`` (if no study has
      one, all are one benchmark).
    * ``seed``: the user attribute ``seed_attr`` (Optuna does not record the
      sampler's seed).
    * ``name_pattern``: a regular expression matching the whole study name,
      whose named groups ``algorithm``, ``benchmark``, ``seed`` give those
      roles (they take precedence over the attributes).
    * ``budget`` = ``trials``: ``trial.number + 1``, the number of trials
      the study had started when this one was.
    * ``score``: the trial's value (or ``values[objective_index]``), named
      after the study's metric name when it has one (else ``"value"``).
    * objective: the study's direction, as Optuna recorded it. All studies
      must share it.

    Only ``COMPLETE`` trials have results. Every other trial is recorded in
    ``results.exclusions`` with its state: ``PRUNED`` (its value, if any, is
    an intermediate value at the step it was stopped, not a result),
    ``FAIL``, ``RUNNING``, ``WAITING``. Their trial numbers still count in
    the budget: a pruned trial was spent.

    Parameters
    ----------
    studies : str, path, Study, or a sequence of these
        A storage URL (``"sqlite:///runs.db"``, ``"postgresql://..."``), a
        path to an SQLite file written by Optuna (every study in it is read,
        or those in ``study_names``), or study objects.
    study_names : sequence of str, optional
        Read only these studies from the storages.
    algorithm_attr, benchmark_attr, seed_attr : str
        The study user attributes that hold the roles
        (``study.set_user_attr("seed", 3)``).
    name_pattern : str or compiled regex, optional
        See above, e.g. ``r"(?P<algorithm>[^-]+)-(?P<benchmark>[^-]+)-(?P<seed>\\d+)"``.
    objective_index : int, optional
        Which objective of multi-objective studies to compare on. Without it
        a multi-objective study is refused: benchverdict compares one score.
    values : {"incumbent", "trial"}
        ``"incumbent"`` (default): each row is the study's best value among
        its complete trials so far (``kind="runs"``). ``"trial"``: each row
        is the trial's own value (``kind="trials"``); right only where trials
        are independent draws (``RandomSampler``, ``QMCSampler``), where it
        gives tuning curves and score distributions.
    min_algorithms : int
        Fewer distinct algorithms is an error (default 2); ``1`` reads a
        single tool run, e.g. a leaderboard submission.
    on_invalid : {"raise", "drop"}
        As in :meth:`Results.from_frame`.
    seconds : bool
        Also keep the wall-clock time Optuna recorded (``datetime_complete -
        datetime_start`` of each trial) as the metafeature ``seconds``: with
        ``values="incumbent"``, what the study had spent when the row's trial
        ended (all its trials so far, pruned and failed ones included); with
        ``values="trial"``, the trial's own. A leaderboard shows it as a cost
        (``cost="seconds"``, ``--cost seconds``). Off by default: times
        depend on the machine, which a comparison of scores must not.

    Returns
    -------
    Results

    Raises
    ------
    ValueError
        A study lacks its algorithm or seed, studies disagree on the direction
        or the metric, a study is multi-objective without
        ``objective_index``, or two studies share an identity.

    Examples
    --------
    Four tiny studies, two samplers x two seeds (the example needs Optuna,
    which the test extra ``tools`` installs):

    >>> import pytest
    >>> optuna = pytest.importorskip("optuna")
    >>> optuna.logging.set_verbosity(optuna.logging.WARNING)
    >>> made = []
    >>> for name in ("RandomSampler", "TPESampler"):
    ...     for seed in (0, 1):
    ...         study = optuna.create_study(sampler=getattr(optuna.samplers, name)(seed=seed))
    ...         study.set_user_attr("seed", seed)
    ...         study.optimize(lambda t: t.suggest_float("x", -1, 1) ** 2, n_trials=3)
    ...         made.append(study)
    >>> res = read_optuna(made)
    >>> res.algorithms, res.objective, res.kind, len(res)
    (['RandomSampler', 'TPESampler'], 'minimize', 'runs', 12)
    """
    if values not in ("incumbent", "trial"):
        raise ValueError(f"values must be 'incumbent' or 'trial', got {values!r}.")
    if objective_index is not None and (
        isinstance(objective_index, bool) or not isinstance(objective_index, int)
        or objective_index < 0
    ):
        raise ValueError(f"objective_index must be a non-negative int, got {objective_index!r}.")
    pattern = compile_name_pattern(name_pattern)
    loaded = _load_studies(studies, study_names)
    runs, infos = [], []
    for study, from_object in loaded:
        attrs = study.user_attrs
        recorded = {
            "algorithm": attrs.get(algorithm_attr),
            "benchmark": attrs.get(benchmark_attr),
            "seed": attrs.get(seed_attr),
        }
        if recorded["algorithm"] is None and from_object:
            recorded["algorithm"] = type(study.sampler).__name__
        runs.append((study.study_name, recorded))
        infos.append(_objective_of(study, objective_index))
    identities = run_identities(runs, tool="Optuna", pattern=pattern, fixes={
        "algorithm": (f"call study.set_user_attr({algorithm_attr!r}, NAME) when creating each "
                      f"study, pass the Study objects themselves (their samplers name them), "
                      f"or pass name_pattern with a (?P<algorithm>...) group"),
        "seed": (f"call study.set_user_attr({seed_attr!r}, SEED) when creating each study, or "
                 f"pass name_pattern with a (?P<seed>...) group"),
        "benchmark": (f"call study.set_user_attr({benchmark_attr!r}, NAME) on every study, or "
                      f"pass name_pattern with a (?P<benchmark>...) group"),
    })
    objective, metric = _common_objective(infos, identities["name"].tolist())
    index = objective_index or 0
    parts = []
    for (study, _), (_, ident) in zip(loaded, identities.iterrows()):
        trials = study.get_trials(deepcopy=False)
        parts.append(pd.DataFrame({
            "algorithm": ident["algorithm"],
            "benchmark": ident["benchmark"],
            "seed": [ident["seed"]] * len(trials),
            "budget": [t.number + 1 for t in trials],
            "value": [_value(t, index) for t in trials],
            "finished": [t.state.name == "COMPLETE" for t in trials],
            "state": [_state(t) for t in trials],
            "label": [f"{study.study_name} trial {t.number}" for t in trials],
            **({"seconds": [_seconds(t) for t in trials]} if seconds else {}),
        }))
    trials = pd.concat(parts, ignore_index=True)
    what = (f"objective {index} ({metric or 'unnamed'})" if objective_index is not None
            else f"value ({metric})" if metric else "value")
    reason = (
        f"Optuna studies: each row is a study's incumbent (the best {what} among its complete "
        f"trials so far) after `trials` trials"
        if values == "incumbent" else
        f"Optuna studies: each row is one complete trial's own {what}, taken as an independent "
        f"draw (values='trial')"
    )
    return trials_to_results(
        trials, objective=objective, tool="Optuna", score=metric or "value", budget="trials",
        incumbent=values == "incumbent", on_invalid=on_invalid,
        min_algorithms=min_algorithms, kind_reason=reason,
    )


def _seconds(trial: Any) -> float:
    """A trial's wall-clock duration in seconds (NaN if it has not ended)."""
    duration = trial.duration
    return float("nan") if duration is None else duration.total_seconds()


def _state(trial: Any) -> str:
    state = trial.state.name
    if state == "PRUNED":
        step = trial.last_step
        return "PRUNED" if step is None else f"PRUNED (stopped at step {step})"
    return state


def _value(trial: Any, index: int) -> float:
    values = trial.values
    if values is None or index >= len(values):
        return float("nan")
    value = values[index]
    return float("nan") if value is None else float(value)


def _objective_of(study: Any, objective_index: int | None) -> tuple[str, str | None, str]:
    """(direction, metric name or None, study name) of the objective compared."""
    directions = [d.name for d in study.directions]
    names = getattr(study, "metric_names", None)
    if len(directions) > 1 and objective_index is None:
        labels = [f"{i}: {d.lower()}" + (f" {names[i]!r}" if names else "")
                  for i, d in enumerate(directions)]
        raise ValueError(
            f"study {study.study_name!r} has {len(directions)} objectives ({', '.join(labels)}); "
            f"benchverdict compares one score. Fix: pass objective_index=<one of "
            f"{list(range(len(directions)))}> to compare on that objective."
        )
    index = objective_index or 0
    if index >= len(directions):
        raise ValueError(
            f"objective_index={index}, but study {study.study_name!r} has {len(directions)} "
            f"objective(s). Fix: pass an index below {len(directions)}."
        )
    metric = names[index] if names else None
    return direction_word(directions[index]), metric, study.study_name


def _common_objective(infos: list, names: list[str]) -> tuple[str, str | None]:
    directions = {d for d, _, _ in infos}
    if len(directions) > 1:
        by = {d: [n for dd, _, n in infos if dd == d] for d in sorted(directions)}
        shown = "; ".join(f"{d}: {v[:3]}" for d, v in by.items())
        raise ValueError(
            f"the studies do not share a direction ({shown}); their values are not the same "
            f"score. Fix: read studies of one objective together."
        )
    metrics = {m for _, m, _ in infos if m is not None}
    if len(metrics) > 1:
        raise ValueError(
            f"the studies name different metrics {sorted(metrics)}; their values are not the "
            f"same score. Fix: read studies of one metric together (or pick the objective "
            f"with objective_index)."
        )
    return directions.pop(), (metrics.pop() if metrics else None)


def _load_studies(studies: Any, study_names: Sequence[str] | None) -> list[tuple[Any, bool]]:
    """(study, given as an object) for every study to read."""
    if isinstance(studies, (str, Path)) or _is_study(studies):
        studies = [studies]
    loaded: list[tuple[Any, bool]] = []
    wanted = None if study_names is None else list(study_names)
    found_names: set[str] = set()
    for source in studies:
        if _is_study(source):
            if wanted is None or source.study_name in wanted:
                loaded.append((source, True))
                found_names.add(source.study_name)
            continue
        if not isinstance(source, (str, Path)):
            raise TypeError(
                f"cannot read {type(source).__name__} as Optuna studies; give a storage URL, "
                f"an SQLite file or optuna Study objects."
            )
        url = storage_url(source)
        import optuna

        names = optuna.get_all_study_names(storage=url)
        if not names:
            raise ValueError(f"the Optuna storage {str(source)!r} holds no study.")
        for name in names:
            if wanted is None or name in wanted:
                loaded.append((optuna.load_study(study_name=name, storage=url), False))
                found_names.add(name)
    if wanted is not None:
        missing = [n for n in wanted if n not in found_names]
        if missing:
            raise ValueError(f"no study named {missing} in the given storages or studies.")
    if not loaded:
        raise ValueError("no Optuna study to read.")
    return loaded


def _is_study(obj: Any) -> bool:
    return hasattr(obj, "study_name") and hasattr(obj, "get_trials") and hasattr(
        obj, "directions")


def storage_url(source: str | Path) -> str:
    """The storage URL for a URL or an SQLite file path, checked before Optuna opens it.

    Optuna creates its 13 tables in any SQLite file it is given (and creates
    a missing file), so an SQLite source is checked first, read-only: it must
    exist, be a regular file, be an SQLite database and already hold Optuna's
    tables (``studies`` and ``version_info``). Anything else is refused and
    left byte-identical. Other URLs (``postgresql://...``) are passed on.

    Examples
    --------
    >>> storage_url("postgresql://user@host/optuna")
    'postgresql://user@host/optuna'
    """
    text = str(source)
    if "://" in text and not text.startswith("sqlite:///"):
        return text
    path = Path(text.removeprefix("sqlite:///")) if "://" in text else Path(source)
    if not path.exists():
        raise FileNotFoundError(f"no such file or directory: {str(path)!r} (Optuna would "
                                f"create it; benchverdict only reads existing storages).")
    if path.is_dir():
        raise ValueError(f"{text!r} is a directory; give the SQLite file Optuna wrote "
                         f"(storage='sqlite:///FILE').")
    check_regular(path, folder_ok=False)  # a FIFO would block the read forever
    with open(path, "rb") as fh:
        head = fh.read(len(_SQLITE_MAGIC))
    if head != _SQLITE_MAGIC:
        empty = " (it is empty)" if not head else ""
        raise ValueError(
            f"{str(path)!r} is not an SQLite database{empty}, so it holds no Optuna study; it "
            f"was left unchanged. Fix: give the file of an Optuna storage ('sqlite:///FILE' "
            f"that optuna.create_study(storage=...) wrote), or a storage URL."
        )
    tables = _sqlite_tables(path)
    missing = sorted(_OPTUNA_TABLES - tables)
    if missing:
        found = f"its tables: {sorted(tables)[:8]}" if tables else "it has no table"
        raise ValueError(
            f"{str(path)!r} is an SQLite database but not an Optuna storage (no {missing} "
            f"table; {found}); it was left unchanged (Optuna would have added its own tables "
            f"to it). Fix: give the SQLite file of an Optuna storage, one that "
            f"optuna.create_study(storage='sqlite:///FILE') wrote."
        )
    return f"sqlite:///{path.resolve()}"


#: Tables every Optuna RDB storage has (Optuna 2 to 5).
_OPTUNA_TABLES = frozenset({"studies", "version_info"})


def _sqlite_tables(path: Path) -> set[str]:
    """The table names of an SQLite file, read without any write (``mode=ro``)."""
    import sqlite3
    from urllib.parse import quote

    try:
        connection = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)
        try:
            rows = connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        finally:
            connection.close()
    except sqlite3.DatabaseError as err:
        raise ValueError(f"cannot read {str(path)!r} as an SQLite database ({err}); it was "
                         f"left unchanged. Fix: check that the file is complete, or give "
                         f"the file of an Optuna storage.") from None
    return {name for (name,) in rows}

