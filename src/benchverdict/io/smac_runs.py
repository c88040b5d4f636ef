"""Read SMAC3 (2.x) output folders: each ``<output>/<name>/<seed>/`` is one run.

Only the JSON files SMAC writes are read (``scenario.json``,
``runhistory.json``, ``intensifier.json``); SMAC itself is not needed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from benchverdict.io._hpo_runs import (
    OnInvalid,
    compile_name_pattern,
    run_identities,
    with_exclusions,
)
from benchverdict.results import Results

#: SMAC's ``StatusType`` (smac.runhistory.enumerations); only SUCCESS is a result.
SMAC_STATUS = {0: "RUNNING", 1: "SUCCESS", 2: "CRASHED", 3: "TIMEOUT", 4: "MEMORYOUT"}


def read_smac(
    path: str | Path,
    *,
    name_pattern: str | re.Pattern | None = None,
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
) -> Results:
    """Read SMAC3 runs: every folder under ``path`` holding SMAC's ``runhistory.json``.

    SMAC writes one folder per run, ``<output_directory>/<name>/<seed>/``
    (so runs of two facades need two scenario names, or the second
    overwrites the first). Roles, per run:

    * ``algorithm``: the facade SMAC recorded in ``scenario.json``
      (``HyperparameterOptimizationFacade``, ``RandomFacade``, ...);
    * ``seed``: the scenario's ``seed``;
    * ``benchmark``: not recorded by SMAC: give it with ``name_pattern``, a
      regular expression matching the run folder's path relative to ``path``
      (``<name>/<seed>``) whose named groups ``benchmark`` (and, to override
      SMAC's record, ``algorithm``, ``seed``) give the roles, e.g.
      ``r"(?P<benchmark>[^/]+)-(?P<algorithm>[^/]+)/\\d+"``. Without a
      benchmark all runs are one benchmark.
    * ``score`` = ``cost``: SMAC's incumbent cost as SMAC recorded it in its
      trajectory (``intensifier.json``), after ``budget`` = ``trials``
      trials. SMAC minimizes cost: objective ``minimize``. Each incumbent
      change is a row, plus one at the run's last trial.

    Trials that did not succeed (``CRASHED``, ``TIMEOUT``, ``MEMORYOUT``,
    ``RUNNING``) are recorded in ``results.exclusions`` with SMAC's status.
    An incumbent whose configuration has no successful trial (SMAC can rank
    a crashed configuration's ``crash_cost``) is excluded too, never read as
    a result. Multi-objective runs are refused: their incumbent is a Pareto
    front, not one score.

    Parameters
    ----------
    path : str or Path
        A run folder, or a folder searched recursively for run folders.
    name_pattern : str or compiled regex, optional
        See above.
    min_algorithms : int
        Fewer distinct algorithms is an error (default 2); ``1`` reads a
        single tool run, e.g. a leaderboard submission.
    on_invalid : {"raise", "drop"}
        As in :meth:`Results.from_frame`.

    Examples
    --------
    Two seeds of two facades on one problem (the example needs SMAC3,
    which the test extra ``tools`` installs):

    >>> import pytest, tempfile
    >>> smac = pytest.importorskip("smac")
    >>> from ConfigSpace import ConfigurationSpace, Float
    >>> space = ConfigurationSpace(seed=0)
    >>> _ = space.add(Float("x", (-5, 5)))
    >>> out = tempfile.mkdtemp()
    >>> for facade in (smac.RandomFacade, smac.HyperparameterOptimizationFacade):
    ...     for seed in (0, 1):
    ...         scenario = smac.Scenario(space, deterministic=True, n_trials=6, seed=seed,
    ...                                  name=f"square-{facade.__name__}",
    ...                                  output_directory=out)
    ...         _ = facade(scenario, lambda config, seed=0: config["x"] ** 2,
    ...                    overwrite=True, logging_level=40).optimize()
    >>> res = read_smac(out)
    >>> res.algorithms, res.seeds, res.objective
    (['HyperparameterOptimizationFacade', 'RandomFacade'], [0, 1], 'minimize')
    """
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(f"no such file or directory: {str(root)!r}")
    folders = ([root] if (root / "runhistory.json").is_file()
               else sorted(p.parent for p in root.rglob("runhistory.json")))
    if not folders:
        raise ValueError(f"no SMAC run (a folder with runhistory.json) under {str(root)!r}.")
    pattern = compile_name_pattern(name_pattern)
    runs, loaded = [], []
    for folder in folders:
        scenario = _json(folder / "scenario.json")
        objectives = scenario.get("objectives", "cost")
        if isinstance(objectives, list) and len(objectives) > 1:
            raise ValueError(
                f"the SMAC run {str(folder)!r} has {len(objectives)} objectives {objectives}: "
                f"its incumbent is a Pareto front, not one score. Fix: read single-objective "
                f"runs."
            )
        name = folder.name if folder == root else folder.relative_to(root).as_posix()
        facade = (scenario.get("_meta") or {}).get("facade", {}).get("name")
        runs.append((name, {"algorithm": facade, "seed": scenario.get("seed")}))
        loaded.append((name, folder))
    ids = run_identities(runs, tool="SMAC", pattern=pattern, fixes={
        "algorithm": "pass name_pattern with a (?P<algorithm>...) group (scenario.json "
                     "records no facade)",
        "seed": "pass name_pattern with a (?P<seed>...) group",
        "benchmark": "pass name_pattern with a (?P<benchmark>...) group matching the run "
                     "folders' paths (<name>/<seed>)",
    })
    rows, excluded = [], []
    for (name, folder), (_, ident) in zip(loaded, ids.iterrows()):
        trials = _trials(folder / "runhistory.json")
        succeeded = {t["config_id"] for t in trials if t["status"] == 1}
        for position, t in enumerate(trials, start=1):
            if t["status"] != 1:
                state = SMAC_STATUS.get(t["status"], f"status {t['status']}")
                excluded.append((f"{name} trial {position} (config {t['config_id']})", "status",
                                 f"SMAC trial status {state}"))
        trajectory = _json(folder / "intensifier.json").get("trajectory", [])
        last = None
        for step in trajectory:
            configs, costs = step.get("config_ids", []), step.get("costs", [])
            label = f"{name} incumbent at trial {step['trial']}"
            if len(costs) != 1 or isinstance(costs[0], list):
                raise ValueError(f"{label}: {len(costs)} incumbents or a vector cost; read "
                                 f"single-objective runs.")
            if not set(configs) & succeeded:
                excluded.append((label, "cost", f"SMAC incumbent config {configs} has no "
                                 f"successful trial"))
                continue
            last = costs[0]
            rows.append({**ident[["algorithm", "benchmark", "seed"]].to_dict(),
                         "trials": float(step["trial"]), "cost": float(costs[0]),
                         "label": label})
        end = len(trials)
        if last is not None and (not rows or rows[-1]["trials"] < end):
            rows.append({**ident[["algorithm", "benchmark", "seed"]].to_dict(),
                         "trials": float(end), "cost": float(last),
                         "label": f"{name} run end at trial {end}"})
    if not rows:
        raise ValueError(f"no SMAC run under {str(root)!r} has an incumbent with a successful "
                         f"trial.")
    frame = pd.DataFrame(rows).set_index("label")
    has_bench = frame["benchmark"].notna().any()
    results = Results.from_frame(
        frame, algorithm="algorithm", benchmark="benchmark" if has_bench else None, seed="seed",
        budget="trials", score="cost", objective="minimize", on_invalid=on_invalid,
        min_algorithms=min_algorithms, kind="runs",
    )
    records = pd.DataFrame(excluded, columns=["row", "columns", "reason"])
    return with_exclusions(results, records, kind_reason=(
        "SMAC3 runs: each row is the incumbent cost SMAC recorded in its trajectory, after "
        "`trials` trials"))


def _json(file: Path) -> Any:
    if not file.is_file():
        raise FileNotFoundError(f"SMAC run folder {str(file.parent)!r} lacks {file.name}. Fix: "
                                f"give complete SMAC output folders (SMAC writes it at the end "
                                f"of optimize()).")
    try:
        with open(file, encoding="utf-8") as fh:
            return json.load(fh)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read {str(file)!r} as JSON ({err}). Fix: check that SMAC "
                         f"finished writing it.") from None


def _trials(file: Path) -> list[dict]:
    """The run history's trials, in SMAC's order, as dicts (SMAC 2.x's layout)."""
    data = _json(file).get("data", [])
    trials = []
    for number, entry in enumerate(data, start=1):
        if not isinstance(entry, dict) or not {"config_id", "status", "cost"} <= set(entry):
            raise ValueError(
                f"{str(file)!r}: trial {number} is not a SMAC 2.x record (a JSON object with "
                f"config_id, status, cost). Fix: read output of SMAC 2.x (this reader knows "
                f"its runhistory.json layout only)."
            )
        trials.append({"config_id": entry["config_id"], "status": int(entry["status"]),
                       "cost": entry["cost"]})
    return trials
