"""Read Ray Tune experiments: each experiment folder (one ``Tuner.fit()``) is one HPO run.

Nothing is unpickled unless the caller opts in: the trials, their status and
last results, and the metric come from Ray's JSON records
(``experiment_state-*.json``), read with :mod:`json` alone (Ray's own
``ExperimentAnalysis`` would unpickle parts of it). The mode and the search
algorithm are only in ``tuner.pkl``, a pickle: unpickling runs whatever code
its author put in it, so it is read only with ``trust_pickle=True``
(``--trust-pickle``); otherwise the caller gives the objective and names the
algorithm with ``name_pattern``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from benchverdict.io import check_regular
from benchverdict.io._hpo_runs import (
    OnInvalid,
    compile_name_pattern,
    direction_word,
    run_identities,
    trials_to_results,
)
from benchverdict.results import Objective, Results

#: The only Ray Tune trial status whose last result is a result.
FINISHED = "TERMINATED"
#: Why tuner.pkl is read only on request (said in every message that asks for it).
PICKLE_RISK = ("tuner.pkl is a pickle: unpickling it runs whatever code its author put in it, "
               "so opt in only for folders you or a tool you trust wrote")


def read_ray_tune(
    experiments: Any,
    *,
    name_pattern: str | re.Pattern | None = None,
    objective: Objective | None = None,
    metric: str | None = None,
    trust_pickle: bool = False,
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
) -> Results:
    """Read Ray Tune experiments: one experiment per (algorithm, benchmark, seed) run.

    An experiment is what one ``Tuner.fit()`` writes to
    ``<storage_path>/<RunConfig.name>/`` (``tuner.pkl``,
    ``experiment_state-*.json`` and one folder per trial). Roles, per
    experiment:

    * ``algorithm``: from ``name_pattern``'s ``algorithm`` group; with
      ``trust_pickle=True``, else the class of the search algorithm in the
      experiment's ``TuneConfig`` (``BasicVariantGenerator``, Ray's random and grid search,
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
    * the metric: ``metric`` if given, else the one Ray recorded in the
      experiment state (``TuneConfig.metric``); all experiments must share it;
    * objective: ``objective`` (Ray's JSON records do not hold the mode);
      with ``trust_pickle=True``, ``TuneConfig.mode`` from ``tuner.pkl``
      (a given ``objective`` must then agree with it).

    Only ``TERMINATED`` trials that reported the metric have results. Every
    other trial (``ERROR``, and ``PENDING``, ``RUNNING``, ``PAUSED`` when
    the experiment was interrupted) is recorded in ``results.exclusions``
    with its Ray status; its number still counts in the budget.

    ``tuner.pkl`` is unpickled only with ``trust_pickle=True``: unpickling
    runs whatever code the pickle's author put in it. Without it nothing is
    unpickled (trial folders' ``*.pkl`` files are never read).

    Parameters
    ----------
    experiments : str, Path, ResultGrid, or a sequence of these
        An experiment folder, a folder searched recursively for experiment
        folders, or the :class:`ray.tune.ResultGrid` that ``Tuner.fit()``
        returned (its ``experiment_path`` is read).
    name_pattern : str or compiled regex, optional
        See above, e.g. ``r"(?P<benchmark>[^-]+)-(?P<seed>\\d+)"``.
    objective : {"maximize", "minimize"}, optional
        Whether larger values of the metric are better; needed unless
        ``trust_pickle=True``.
    metric : str, optional
        The reported metric to compare (default: the experiment's
        ``TuneConfig.metric`` as Ray recorded it).
    trust_pickle : bool
        Unpickle ``tuner.pkl`` for the mode and the search algorithm (this
        can run code; see above).
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
        or recorded none, the objective or the algorithm is needed and not
        given, an experiment's name does not match
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
    >>> res = read_ray_tune(storage, name_pattern=r"(?P<benchmark>\\w+)-\\w+-(?P<seed>\\d+)",
    ...                     trust_pickle=True)  # we wrote these folders just now
    >>> res.algorithms
    ['BasicVariantGenerator', 'BasicVariantGenerator+AsyncHyperBandScheduler']
    >>> res.seeds, res.objective, res.roles["score"], res.roles["budget"], len(res)
    ([0], 'minimize', 'loss', 'trials', 6)
    """
    pattern = compile_name_pattern(name_pattern)
    folders = _experiment_folders(experiments)
    states = [_experiment_state(folder) for folder in folders]
    configs = [_tune_config(folder) for folder in folders] if trust_pickle else []
    runs = [(folder.name, {"algorithm": _algorithm(configs[i]) if trust_pickle else None})
            for i, folder in enumerate(folders)]
    ask_pickle = "" if trust_pickle else (
        f", or pass trust_pickle=True (command line: --trust-pickle) to take the search "
        f"algorithm from tuner.pkl ({PICKLE_RISK})")
    ids = run_identities(runs, tool="Ray Tune", pattern=pattern, fixes={
        "algorithm": "pass name_pattern with a (?P<algorithm>...) group" + ask_pickle,
        "seed": "Ray Tune records no seed: name each experiment RunConfig(name="
                "'<benchmark>-<seed>') and pass name_pattern with a (?P<seed>...) group",
        "benchmark": "pass name_pattern with a (?P<benchmark>...) group matching every "
                     "experiment's name",
    })
    metric, objective = _metric_and_objective(folders, states, configs, metric, objective)
    rows = []
    for folder, state, (_, ident) in zip(folders, states, ids.iterrows()):
        trials = [_Trial(folder, *entry) for entry in state["trial_data"]]
        for number, trial in enumerate(sorted(trials, key=_creation_counter), start=1):
            last = trial.last_result
            status = trial.status
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


class _Trial:
    """One trial of Ray's experiment state, read from its JSON text (nothing unpickled)."""

    def __init__(self, folder: Path, state: Any, metadata: Any):
        try:
            fields = json.loads(state) if isinstance(state, str) else state
            meta = json.loads(metadata) if isinstance(metadata, str) else metadata
        except json.JSONDecodeError as err:
            raise ValueError(f"cannot read a trial in {str(folder)!r}'s experiment state as "
                             f"JSON ({err}). Fix: check that Ray Tune finished writing it."
                             ) from None
        if not isinstance(fields, dict) or not isinstance(meta, dict):
            raise ValueError(f"a trial in {str(folder)!r}'s experiment state is not a JSON "
                             f"object. Fix: give an experiment folder Ray Tune's Tuner wrote.")
        self.trial_id = str(fields.get("trial_id"))
        self.status = str(fields.get("status"))
        self.experiment_tag = fields.get("experiment_tag", "")
        last = meta.get("last_result")
        self.last_result = last if isinstance(last, dict) else {}


def _experiment_state(folder: Path) -> dict:
    """The newest ``experiment_state-*.json`` of an experiment, as plain JSON."""
    files = sorted(folder.glob("experiment_state-*.json"))
    if not files:
        raise ValueError(f"{str(folder)!r} has no experiment_state-*.json (Ray Tune writes it "
                         f"while the experiment runs). Fix: give a complete experiment folder.")
    file = check_regular(files[-1], folder_ok=False)
    try:
        with open(file, encoding="utf-8") as fh:
            state = json.load(fh)  # no object hook: Ray's pickled fields stay hex text
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read {str(file)!r} as JSON ({err}). Fix: check that Ray "
                         f"Tune finished writing it.") from None
    if not isinstance(state, dict) or not isinstance(state.get("trial_data"), list):
        raise ValueError(f"{str(file)!r} holds no trial_data list. Fix: give an experiment "
                         f"folder Ray Tune's Tuner wrote.")
    return state


def _metric_and_objective(folders: list[Path], states: list[dict], configs: list[Any],
                          metric: str | None, objective: str | None) -> tuple[str, Objective]:
    """The metric and the objective, from the caller, Ray's JSON, or (opted in) tuner.pkl."""
    names = [f.name for f in folders]
    if configs:
        recorded = {(getattr(c, "metric", None), getattr(c, "mode", None)) for c in configs}
        if len(recorded) > 1:
            raise ValueError(f"the Ray Tune experiments disagree on TuneConfig's (metric, "
                             f"mode): {sorted(recorded, key=str)}. Fix: read experiments of "
                             f"one metric and mode together.")
        pickled_metric, mode = recorded.pop()
        if mode is not None:
            pickled = direction_word(mode)
            if objective is not None and objective != pickled:
                raise ValueError(f"objective={objective!r} contradicts TuneConfig's mode "
                                 f"{mode!r} in tuner.pkl. Fix: leave out objective, or check "
                                 f"the experiments.")
            objective = pickled
        metric = metric or pickled_metric
    if metric is None:
        json_metrics = {(s.get("runner_data") or {}).get("_metric") for s in states}
        if len(json_metrics) > 1:
            raise ValueError(f"the Ray Tune experiments {names} record different metrics "
                             f"{sorted(json_metrics, key=str)}. Fix: read experiments of one "
                             f"metric together, or pass metric=<name> (command line: --score "
                             f"NAME).")
        metric = json_metrics.pop()
    if not isinstance(metric, str):
        raise ValueError(f"the Ray Tune experiments {names} record no TuneConfig metric. Fix: "
                         f"pass metric=<the reported metric> (command line: --score NAME).")
    if objective is None:
        raise ValueError(
            f"Ray's JSON records of {names} do not say whether {metric!r} is minimised or "
            f"maximised (TuneConfig's mode is only in tuner.pkl; {PICKLE_RISK}). Fix: pass "
            f"objective='minimize' or objective='maximize', or trust_pickle=True (command "
            f"line: --trust-pickle) to read the mode from tuner.pkl.")
    if objective not in ("maximize", "minimize"):
        raise ValueError(f"objective must be 'maximize' or 'minimize', got {objective!r}.")
    return metric, objective


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
        check_regular(root)
        found = ([root] if any(root.glob("experiment_state-*.json"))
                 else sorted({p.parent for p in root.rglob("experiment_state-*.json")}))
        if not found:
            raise ValueError(f"no Ray Tune experiment (a folder with experiment_state-*.json, "
                             f"which Tuner.fit() writes) under {str(root)!r}.")
        folders.extend(found)
    names = [f.name for f in folders]
    twins = sorted({n for n in names if names.count(n) > 1})
    if twins:
        raise ValueError(f"several Ray Tune experiments are named {twins}; runs are told apart "
                         f"by name. Fix: give each experiment its own RunConfig(name=...).")
    return folders


def _tune_config(folder: Path) -> Any:
    """The TuneConfig in ``tuner.pkl`` (only called with ``trust_pickle=True``)."""
    try:
        from ray import cloudpickle
    except ImportError:
        raise ImportError("trust_pickle=True reads tuner.pkl, which only Ray can load (pip "
                          "install 'ray[tune]').") from None
    file = check_regular(folder / "tuner.pkl", folder_ok=False)
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
