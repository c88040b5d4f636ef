"""Read Syne Tune experiments: each tuner folder (``metadata.json``, ``results.csv.zip``) is a run.

Only the files Syne Tune writes are read; Syne Tune itself is not needed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from benchverdict.io import check_regular
from benchverdict.io._hpo_runs import (
    OnInvalid,
    compile_name_pattern,
    direction_word,
    run_identities,
    with_exclusions,
)
from benchverdict.results import Results

_RESULTS = ("results.csv.zip", "results.csv")


def read_syne_tune(
    path: str | Path,
    *,
    metric: str | None = None,
    name_pattern: str | re.Pattern | None = None,
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
) -> Results:
    """Read Syne Tune experiments: every tuner folder under ``path``.

    A tuner folder (``~/syne-tune/<tuner_name>-<timestamp>/``) holds
    ``metadata.json`` and ``results.csv.zip`` (every result the trials
    reported). Roles, per experiment:

    * ``algorithm``: the ``algorithm`` entry of the metadata (Syne Tune's
      benchmarking scripts and ``Tuner(metadata={...})`` write it), else the
      recorded ``scheduler_name``;
    * ``seed``: the metadata's ``seed``, else the scheduler's
      ``random_seed``;
    * ``benchmark``: the metadata's ``benchmark`` (none: one benchmark);
    * ``name_pattern``: a regular expression matching the tuner folder's
      path relative to ``path``; its named groups override the above.
    * ``budget`` = ``st_tuner_time``, the tuner's wall-clock seconds, and
      ``score`` = the best value of the metric reported so far, in the
      recorded ``metric_mode``: the curve Syne Tune plots
      (``ExperimentResult.plot``: results sorted by ``st_tuner_time``, then
      ``cummin``/``cummax``). Reports at the same second of one run are one
      row (the best so far after them).

    A trial folder (``<tuner folder>/<trial_id>/``) whose trial reported no
    result (stopped before its first report, failed, or still running when
    the tuner stopped) is recorded in ``results.exclusions`` with what its
    folder says (``stop`` or no ``end`` marker).

    Parameters
    ----------
    path : str or Path
        A tuner folder, or a folder searched recursively for them.
    metric : str, optional
        The metric to compare on, for experiments that report several (else
        refused); defaults to the single recorded metric.
    name_pattern : str or compiled regex, optional
        See above.
    min_algorithms : int
        Fewer distinct algorithms is an error (default 2); ``1`` reads a
        single tool run, e.g. a leaderboard submission.
    on_invalid : {"raise", "drop"}
        As in :meth:`Results.from_frame`.

    Examples
    --------
    Random search and TPE with two seeds each (the example needs Syne Tune,
    which the test extra ``tools`` installs):

    >>> import contextlib, io, os, pytest, tempfile
    >>> syne_tune = pytest.importorskip("syne_tune")
    >>> from syne_tune.backend import PythonBackend
    >>> from syne_tune.config_space import uniform
    >>> from syne_tune.optimizer.baselines import TPE, RandomSearch
    >>> def train(x: float):
    ...     from syne_tune import Reporter
    ...     Reporter()(epoch=1, loss=(x - 1) ** 2)
    >>> space = {"x": uniform(-3, 3)}
    >>> os.environ["SYNETUNE_FOLDER"] = root = tempfile.mkdtemp()
    >>> here = os.getcwd()
    >>> os.chdir(root)  # Syne Tune writes a std.out file in the working folder
    >>> with contextlib.redirect_stdout(io.StringIO()):  # Syne Tune prints its progress
    ...     for seed in (0, 1):
    ...         for scheduler in (RandomSearch(space, metrics=["loss"], random_seed=seed),
    ...                           TPE(space, metric="loss", random_seed=seed)):
    ...             syne_tune.Tuner(
    ...                 trial_backend=PythonBackend(tune_function=train, config_space=space),
    ...                 scheduler=scheduler, n_workers=1, sleep_time=0.01, save_tuner=False,
    ...                 stop_criterion=syne_tune.StoppingCriterion(max_num_trials_finished=3),
    ...                 print_update_interval=1000).run()
    >>> del os.environ["SYNETUNE_FOLDER"]
    >>> os.chdir(here)
    >>> res = read_syne_tune(root)
    >>> res.algorithms, res.seeds, res.objective, res.roles["budget"]
    (['RandomSearch', 'TPE'], [0, 1], 'minimize', 'st_tuner_time')
    """
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(f"no such file or directory: {str(root)!r}")
    folders = ([root] if (root / "metadata.json").is_file()
               else sorted(p.parent for p in root.rglob("metadata.json")
                           if any((p.parent / r).is_file() for r in _RESULTS)))
    if not folders:
        raise ValueError(f"no Syne Tune experiment (a folder with metadata.json and "
                         f"results.csv.zip) under {str(root)!r}.")
    pattern = compile_name_pattern(name_pattern)
    runs, metas = [], []
    for folder in folders:
        meta = _json(folder / "metadata.json")
        kwargs = meta.get("scheduler_kwargs") or {}
        name = folder.name if folder == root else folder.relative_to(root).as_posix()
        runs.append((name, {
            "algorithm": meta.get("algorithm", meta.get("scheduler_name")),
            "benchmark": meta.get("benchmark"),
            "seed": meta.get("seed", kwargs.get("random_seed")),
        }))
        metas.append(meta)
    ids = run_identities(runs, tool="Syne Tune", pattern=pattern, fixes={
        "algorithm": "pass Tuner(metadata={'algorithm': NAME}), or name_pattern with a "
                     "(?P<algorithm>...) group",
        "seed": "pass Tuner(metadata={'seed': SEED}), or name_pattern with a (?P<seed>...) "
                "group",
        "benchmark": "pass Tuner(metadata={'benchmark': NAME}) for every experiment, or "
                     "name_pattern with a (?P<benchmark>...) group",
    })
    chosen = {_metric_and_mode(meta, metric, name) for meta, (name, _) in zip(metas, runs)}
    if len(chosen) > 1:
        raise ValueError(f"the experiments disagree on the metric or its mode: {sorted(chosen)}. "
                         f"Fix: read experiments of one metric together.")
    metric_name, mode = chosen.pop()
    objective = direction_word(mode)
    sign = 1.0 if objective == "maximize" else -1.0
    parts, excluded = [], []
    for folder, (name, _), (_, ident) in zip(folders, runs, ids.iterrows()):
        results = _results(folder)
        if metric_name not in results.columns or "st_tuner_time" not in results.columns:
            raise ValueError(f"{str(folder)!r}: the results lack {metric_name!r} or "
                             f"'st_tuner_time' (found {list(results.columns)}).")
        reported = set(results["trial_id"].tolist()) if "trial_id" in results.columns else set()
        for trial in sorted((p for p in folder.iterdir() if p.is_dir() and p.name.isdigit()),
                            key=lambda p: int(p.name)):
            if int(trial.name) not in reported:
                state = ("stopped before reporting" if (trial / "stop").exists() else
                         "no end marker: failed, or running when the tuner stopped"
                         if not (trial / "end").exists() else "ended without reporting")
                excluded.append((f"{name} trial {trial.name}", "trial",
                                 f"Syne Tune trial reported no result ({state})"))
        values = pd.to_numeric(results[metric_name], errors="coerce")
        frame = pd.DataFrame({"time": pd.to_numeric(results["st_tuner_time"], errors="coerce"),
                              "value": values}).sort_values("time", kind="stable")
        missing = frame["value"].isna()
        for position in frame.index[missing]:
            excluded.append((f"{name} report {position}", metric_name,
                             f"Syne Tune result row without {metric_name!r}"))
        frame = frame[~missing]
        if frame.empty:
            continue
        best = (frame["value"] * sign).cummax() * sign
        # Several reports at one time stamp: the best so far after all of them.
        curve = pd.DataFrame({"time": frame["time"], "best": best}).groupby(
            "time", sort=True)["best"].last()
        parts.append(pd.DataFrame({
            "algorithm": ident["algorithm"], "benchmark": ident["benchmark"],
            "seed": [ident["seed"]] * len(curve), "st_tuner_time": curve.index.to_numpy(),
            metric_name: curve.to_numpy(),
            # repr: the shortest text that tells distinct times apart (".6g" merged close ones).
            "label": [f"{name} at {float(t)!r} s" for t in curve.index],
        }))
    if not parts:
        raise ValueError(f"no Syne Tune experiment under {str(root)!r} reported {metric_name!r}.")
    table = pd.concat(parts, ignore_index=True).set_index("label")
    has_bench = table["benchmark"].notna().any()
    res = Results.from_frame(
        table, algorithm="algorithm", benchmark="benchmark" if has_bench else None, seed="seed",
        budget="st_tuner_time", score=metric_name, objective=objective, on_invalid=on_invalid,
        min_algorithms=min_algorithms,
        kind="runs",
    )
    records = pd.DataFrame(excluded, columns=["row", "columns", "reason"])
    return with_exclusions(res, records, kind_reason=(
        f"Syne Tune experiments: each row is the best {metric_name!r} reported so far after "
        f"`st_tuner_time` seconds (Syne Tune's best-result-over-time curve)"))


def _metric_and_mode(meta: dict, metric: str | None, name: str) -> tuple[str, str]:
    names = meta.get("metric_names")
    modes = meta.get("metric_mode")
    if not names or modes is None:
        raise ValueError(f"the metadata of {name!r} records no metric_names/metric_mode; "
                         f"Syne Tune writes them with every experiment. Fix: give the tuner "
                         f"folder Syne Tune wrote.")
    modes = [modes] * len(names) if isinstance(modes, str) else list(modes)
    if metric is None:
        if len(names) > 1:
            raise ValueError(f"experiment {name!r} reports {len(names)} metrics {names}; "
                             f"benchverdict compares one. Fix: pass metric=<one of them>.")
        metric = names[0]
    if metric not in names:
        raise ValueError(f"experiment {name!r} has no metric {metric!r}; its metrics: {names}.")
    return metric, modes[names.index(metric)]


def _json(file: Path) -> Any:
    check_regular(file, folder_ok=False)  # a planted FIFO would block the read forever
    try:
        with open(file, encoding="utf-8") as fh:
            return json.load(fh)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read {str(file)!r} as JSON ({err}).") from None


def _results(folder: Path) -> pd.DataFrame:
    for name in _RESULTS:
        file = folder / name
        if file.is_file():
            try:
                return pd.read_csv(file)
            except Exception as err:
                raise ValueError(f"cannot read {str(file)!r} ({err}). Fix: check that Syne "
                                 f"Tune finished writing it.") from None
    raise FileNotFoundError(f"{str(folder)!r} has no results.csv.zip.")


__all__ = ["read_syne_tune"]
