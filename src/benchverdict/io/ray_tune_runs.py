"""Read Ray Tune experiments: each experiment folder (one ``Tuner.fit()``) is one HPO run.

Ray (``pip install "ray[tune]"``) is needed: the trials are loaded with Ray's
own :class:`ray.tune.ExperimentAnalysis`, and the metric, mode and search
algorithm with which the experiment ran are in ``tuner.pkl``, a pickle that
only Ray can load.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from benchverdict.io._hpo_runs import (
    OnInvalid,
    compile_name_pattern,
    direction_word,
    run_identities,
    trials_to_results,
)
from benchverdict.results import Results

#: The only Ray Tune trial status whose last result is a result.
FINISHED = "TERMINATED"


def read_ray_tune(
    experiments: Any,
    *,
    name_pattern: str | re.Pattern | None = None,
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
) -> Results:
    """Read Ray Tune experiments: one experiment per (algorithm, benchmark, seed) run.

    An experiment is what one ``Tuner.fit()`` writes to
    ``<storage_path>/<RunConfig.name>/`` (``tuner.pkl``,
    ``experiment_state-*.json`` and one folder per trial). Roles, per
    experiment:

    * ``algorithm``: the class of the search algorithm in the experiment's
      ``TuneConfig`` (``BasicVariantGenerator``, Ray's random and grid search,
      when none was given; a ``ConcurrencyLimiter`` is looked through), with
      ``+<scheduler class>`` appended when a trial scheduler other than FIFO
      ran (``OptunaSearch+AsyncHyperBandScheduler``);
    * ``seed`` and ``benchmark``: Ray Tune records neither, so they come from
      ``name_pattern``, a regular expression matching the experiment's name
      (``RunConfig(name=...)``, the folder name) whose named groups give the
      roles (``algorithm`` too, overriding the recorded one). Without a
      benchmark all experiments are one benchmark.
    * ``budget`` = ``trials``: the number of trials Ray had created when this
      one was (the counter that starts each trial's ``experiment_tag``);
    * ``score``: the trial's last reported value of the experiment's
      ``TuneConfig.metric`` (Ray's default ``scope="last"``, as in
      ``ResultGrid.get_best_result`` and ``get_dataframe``), as the
      incumbent: the best last value among the experiment's finished trials
      so far (``kind="runs"``);
    * objective: ``TuneConfig.mode`` (``"min"``/``"max"``). All experiments
      must share the metric and the mode; an experiment that recorded none
      is refused.

    Only ``TERMINATED`` trials that reported the metric have results. Every
    other trial (``ERROR``, and ``PENDING``, ``RUNNING``, ``PAUSED`` when
    the experiment was interrupted) is recorded in ``results.exclusions``
    with its Ray status; its number still counts in the budget.

    Reading unpickles ``tuner.pkl``, which can run code: read only
    experiment folders you trust.

    Parameters
    ----------
    experiments : str, Path, ResultGrid, or a sequence of these
        An experiment folder, a folder searched recursively for experiment
        folders, or the :class:`ray.tune.ResultGrid` that ``Tuner.fit()``
        returned (its ``experiment_path`` is read).
    name_pattern : str or compiled regex, optional
        See above, e.g. ``r"(?P<benchmark>[^-]+)-(?P<seed>\\d+)"``.
    min_algorithms : int
        Fewer distinct algorithms is an error (default 2); ``1`` reads a
        single tool run, e.g. a leaderboard submission.
    on_invalid : {"raise", "drop"}
        As in :meth:`Results.from_frame`.

    Returns
    -------
    Results

    Raises
    ------
    ValueError
        No experiment found, experiments disagree on the metric or the mode
        or recorded none, an experiment's name does not match
        ``name_pattern``, a run lacks its seed, or two share an identity.

    Examples
    --------
    Random search with and without ASHA early stopping, one seed (the example
    needs Ray Tune, which the test extra ``tools`` installs; starting Ray
    takes a few seconds):

    >>> import contextlib, io, pytest, tempfile
    >>> tune = pytest.importorskip("ray.tune")
    >>> import ray
    >>> from ray.tune.schedulers import ASHAScheduler
    >>> from ray.tune.search.basic_variant import BasicVariantGenerator
    >>> _ = ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
    ...              configure_logging=False)
    >>> def train(config):
    ...     for epoch in range(1, 4):
    ...         tune.report({"loss": (config["x"] - 1) ** 2 + 1 / epoch})
    >>> storage = tempfile.mkdtemp()
    >>> with contextlib.redirect_stdout(io.StringIO()):  # Ray Tune prints where it wrote
    ...     for name, scheduler in (("fifo", None), ("asha", ASHAScheduler(max_t=3))):
    ...         _ = tune.Tuner(train, param_space={"x": tune.uniform(-3, 3)},
    ...             tune_config=tune.TuneConfig(metric="loss", mode="min", num_samples=3,
    ...                 search_alg=BasicVariantGenerator(random_state=0), scheduler=scheduler),
    ...             run_config=tune.RunConfig(name=f"square-{name}-0", storage_path=storage,
    ...                                       verbose=0)).fit()
    >>> ray.shutdown()
    >>> res = read_ray_tune(storage, name_pattern=r"(?P<benchmark>\\w+)-\\w+-(?P<seed>\\d+)")
    >>> res.algorithms
    ['BasicVariantGenerator', 'BasicVariantGenerator+AsyncHyperBandScheduler']
    >>> res.seeds, res.objective, res.roles["score"], res.roles["budget"], len(res)
    ([0], 'minimize', 'loss', 'trials', 6)
    """
    try:
        from ray.tune import ExperimentAnalysis
    except ImportError:
        raise ImportError("reading Ray Tune experiments needs Ray Tune (pip install "
                          "'ray[tune]'): its tuner.pkl records the metric, mode and search "
                          "algorithm, and only Ray can load it.") from None
    pattern = compile_name_pattern(name_pattern)
    folders = _experiment_folders(experiments)
    runs, configs = [], []
    for folder in folders:
        config = _tune_config(folder)
        runs.append((folder.name, {"algorithm": _algorithm(config)}))
        configs.append(config)
    ids = run_identities(runs, tool="Ray Tune", pattern=pattern, fixes={
        "algorithm": "pass name_pattern with a (?P<algorithm>...) group",
        "seed": "Ray Tune records no seed: name each experiment RunConfig(name="
                "'<benchmark>-<seed>') and pass name_pattern with a (?P<seed>...) group",
        "benchmark": "pass name_pattern with a (?P<benchmark>...) group matching every "
                     "experiment's name",
    })
    recorded = {(getattr(c, "metric", None), getattr(c, "mode", None)) for c in configs}
    if len(recorded) > 1:
        raise ValueError(f"the Ray Tune experiments disagree on TuneConfig's (metric, mode): "
                         f"{sorted(recorded, key=str)}. Fix: read experiments of one metric "
                         f"and mode together.")
    metric, mode = recorded.pop()
    if not isinstance(metric, str) or mode is None:
        raise ValueError(f"the Ray Tune experiments record no TuneConfig metric and mode "
                         f"(metric={metric!r}, mode={mode!r}); benchverdict takes the objective "
                         f"from the experiment, never guesses it. Fix: run with "
                         f"TuneConfig(metric=..., mode='min'|'max').")
    objective = direction_word(mode)
    rows = []
    for folder, (_, ident) in zip(folders, ids.iterrows()):
        trials = ExperimentAnalysis(str(folder)).trials
        for number, trial in enumerate(sorted(trials, key=_creation_counter), start=1):
            last = trial.last_result or {}
            status = str(trial.status)
            value = last.get(metric)
            finished = status == FINISHED and value is not None
            state = (status if status != FINISHED else
                     f"{FINISHED} without reporting {metric!r}")
            if status != FINISHED and value is not None:
                state += f" (after reporting {metric}={value!r})"
            rows.append({"algorithm": ident["algorithm"], "benchmark": ident["benchmark"],
                         "seed": ident["seed"], "budget": float(number),
                         "value": value if finished else float("nan"), "finished": finished,
                         "state": state, "label": f"{folder.name} trial {trial.trial_id}"})
    if not rows:
        raise ValueError(f"the Ray Tune experiments {[f.name for f in folders]} have no trials.")
    return trials_to_results(
        pd.DataFrame(rows), objective=objective, tool="Ray Tune", score=metric,
        budget="trials", on_invalid=on_invalid, min_algorithms=min_algorithms, kind_reason=(
            f"Ray Tune experiments: each row is the best last-reported {metric!r} among the "
            f"experiment's terminated trials after `trials` trials (the incumbent)"),
    )


def _creation_counter(trial: Any) -> int:
    """Ray's trial counter, the number that starts ``experiment_tag`` (``"3_x=0.5"``).

    Ray numbers trials as it creates them; its list of trials is in the same
    order, but only the counter is documented in every trial's name.
    """
    match = re.match(r"\d+", str(getattr(trial, "experiment_tag", "")))
    if match is None:
        raise ValueError(f"Ray Tune trial {trial.trial_id} has no creation counter in its "
                         f"experiment_tag {getattr(trial, 'experiment_tag', None)!r}. Fix: "
                         f"read experiments written by Ray Tune's Tuner.")
    return int(match.group())


def _experiment_folders(experiments: Any) -> list[Path]:
    items = (list(experiments) if isinstance(experiments, Sequence)
             and not isinstance(experiments, (str, bytes)) else [experiments])
    if not items:
        raise ValueError("no Ray Tune experiment to read.")
    folders: list[Path] = []
    for item in items:
        path = getattr(item, "experiment_path", item)  # a ResultGrid gives its folder
        if not isinstance(path, (str, Path)):
            raise TypeError(f"cannot read {type(item).__name__} as a Ray Tune experiment; "
                            f"give a folder or the ResultGrid that Tuner.fit() returned.")
        root = Path(path)
        if not root.exists():
            raise FileNotFoundError(f"no such file or directory: {str(root)!r}")
        found = ([root] if (root / "tuner.pkl").is_file()
                 else sorted(p.parent for p in root.rglob("tuner.pkl")))
        if not found:
            raise ValueError(f"no Ray Tune experiment (a folder with tuner.pkl, which "
                             f"Tuner.fit() writes) under {str(root)!r}.")
        folders.extend(found)
    names = [f.name for f in folders]
    twins = sorted({n for n in names if names.count(n) > 1})
    if twins:
        raise ValueError(f"several Ray Tune experiments are named {twins}; runs are told apart "
                         f"by name. Fix: give each experiment its own RunConfig(name=...).")
    return folders


def _tune_config(folder: Path) -> Any:
    from ray import cloudpickle

    file = folder / "tuner.pkl"
    try:
        with open(file, "rb") as fh:
            state = cloudpickle.load(fh)
    except Exception as err:
        raise ValueError(f"cannot load {str(file)!r} with Ray ({type(err).__name__}: {err}). "
                         f"Fix: read it with the Ray version that wrote it.") from None
    config = state.get("_tune_config") if isinstance(state, dict) else None
    if config is None:
        raise ValueError(f"{str(file)!r} holds no TuneConfig (found "
                         f"{sorted(state) if isinstance(state, dict) else type(state).__name__}"
                         f"). Fix: give an experiment folder Ray Tune's Tuner wrote.")
    return config


def _algorithm(config: Any) -> str:
    searcher = getattr(config, "search_alg", None)
    # ConcurrencyLimiter (and Repeater) wrap the searcher that chooses the configurations.
    while searcher is not None and type(searcher).__name__ in ("ConcurrencyLimiter", "Repeater"):
        searcher = getattr(searcher, "searcher", None)
    name = "BasicVariantGenerator" if searcher is None else type(searcher).__name__
    scheduler = getattr(config, "scheduler", None)
    if scheduler is not None and type(scheduler).__name__ != "FIFOScheduler":
        name += f"+{type(scheduler).__name__}"
    return name


__all__ = ["read_ray_tune"]
