"""Read NePS (neural-pipeline-search) root directories: each ``neps.run`` root is one HPO run.

NePS (``pip install neural-pipeline-search``) is needed: the trials are loaded
with NePS's own ``neps.status`` and the optimizer with ``neps.load_optimizer_info``,
so the reader follows NePS's layout rather than imitating it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchverdict.io._hpo_runs import (
    OnInvalid,
    compile_name_pattern,
    run_identities,
    trials_to_results,
)
from benchverdict.results import Results

#: The NePS trial state whose report is a result (``neps.state.trial.State.SUCCESS``).
SUCCESS = "success"
#: The files by which a folder is known as a NePS root directory.
_MARKERS = ("optimizer_info.yaml", "optimizer_state.pkl")


def read_neps(
    path: str | Path | Sequence[str | Path],
    *,
    name_pattern: str | re.Pattern | None = None,
    on_invalid: OnInvalid = "raise",
    min_algorithms: int = 2,
    trust_pickle: bool = False,
) -> Results:
    """Read NePS runs: every ``root_directory`` that ``neps.run`` wrote under ``path``.

    Roles, per root directory:

    * ``algorithm``: the optimizer NePS recorded (``neps.load_optimizer_info``:
      ``random_search``, ``bayesian_optimization``, ``priorband``, ...);
    * ``seed`` and ``benchmark``: NePS records neither, so they come from
      ``name_pattern``, a regular expression matching the root directory's
      path relative to ``path`` (its name when ``path`` is the root itself)
      whose named groups give the roles (``algorithm`` too, overriding the
      recorded one). Without a benchmark all runs are one benchmark.
    * ``budget`` = ``evaluations``: the number of trials NePS had sampled
      when it sampled this one (NePS's ``time_sampled`` order, as in
      ``neps.status``);
    * ``score`` = ``objective_to_minimize``, as the incumbent: the least
      value among the run's successful trials so far (``kind="runs"``).
      NePS minimizes this objective by definition: objective ``minimize``.
      For multi-fidelity optimizers (``hyperband``, ``priorband``) the
      trials are evaluations at several fidelities, and the incumbent is
      the least objective at any fidelity, as in NePS's own
      ``best_config_trajectory``.

    Only ``success`` trials have results. Every other trial (``crashed``,
    ``failed``, ``corrupted``, and ``pending``, ``submitted``,
    ``evaluating`` when the run was interrupted) is recorded in
    ``results.exclusions`` with its NePS state and error; its number still
    counts in the budget. Multi-objective runs are refused.

    Parameters
    ----------
    path : str, Path or a sequence of these
        A NePS root directory, or folders searched recursively for them.
    name_pattern : str or compiled regex, optional
        See above, e.g. ``r"(?P<benchmark>[^/]+)/(?P<seed>\\d+)"``.
    min_algorithms : int
        Fewer distinct algorithms is an error (default 2); ``1`` reads a
        single tool run, e.g. a leaderboard submission.
    on_invalid : {"raise", "drop"}
        As in :meth:`Results.from_frame`.
    trust_pickle : bool
        Must be ``True``: NePS keeps its trials and its optimizer's state as
        Python pickles (``.trial_cache.pkl``, ``optimizer_state.pkl``), which
        its loaders unpickle, and unpickling a file can run any code in it.
        Say ``True`` (``--trust-pickle``) only for folders you, or someone
        you trust, wrote.

    Returns
    -------
    Results

    Raises
    ------
    ValueError
        ``trust_pickle`` not given, no NePS run found, a run is multi-objective, a root's path does
        not match ``name_pattern``, a run lacks its seed, or two share an
        identity.

    Examples
    --------
    Random search and Bayesian optimization, one seed each (the example
    needs NePS, which the test extra ``tools`` installs):

    >>> import logging, pytest, tempfile
    >>> neps = pytest.importorskip("neps")
    >>> logging.getLogger("neps").setLevel(logging.ERROR)
    >>> class Space(neps.PipelineSpace):
    ...     x = neps.Float(lower=-3.0, upper=3.0)
    >>> root = tempfile.mkdtemp()
    >>> for optimizer in ("random_search", "bayesian_optimization"):
    ...     neps.run(lambda x: (x - 1) ** 2, Space(), optimizer=optimizer,
    ...              root_directory=f"{root}/{optimizer}-0", total_evaluations_to_spend=3)
    >>> res = read_neps(root, name_pattern=r"\\w+-(?P<seed>\\d+)",
    ...                 trust_pickle=True)  # we wrote these folders just now
    >>> res.algorithms, res.objective, res.roles["budget"], len(res)
    (['bayesian_optimization', 'random_search'], 'minimize', 'evaluations', 6)
    """
    if not trust_pickle:
        raise ValueError(
            "NePS keeps its trials and optimizer state as Python pickles, which its loaders "
            "unpickle, and unpickling a file can run any code in it. Fix: pass "
            "trust_pickle=True (--trust-pickle) if you, or someone you trust, wrote these "
            "folders.")
    try:
        import neps
    except ImportError:
        raise ImportError("reading NePS runs needs NePS (pip install "
                          "neural-pipeline-search): its own loaders read the trials and the "
                          "optimizer from the root directory.") from None
    pattern = compile_name_pattern(name_pattern)
    roots = _roots(path)
    runs, frames = [], []
    for name, root in roots:
        try:
            info = neps.load_optimizer_info(root)
        except FileNotFoundError:
            info = {}
        runs.append((name, {"algorithm": (info or {}).get("name")}))
        frames.append(neps.status(root, print_summary=False)[0])
    ids = run_identities(runs, tool="NePS", pattern=pattern, fixes={
        "algorithm": "pass name_pattern with a (?P<algorithm>...) group (this NePS version "
                     "records no optimizer_info.yaml)",
        "seed": "NePS records no seed: put it in each root_directory's path and pass "
                "name_pattern with a (?P<seed>...) group",
        "benchmark": "pass name_pattern with a (?P<benchmark>...) group matching every root "
                     "directory's path",
    })
    rows = []
    for (name, _), frame, (_, ident) in zip(roots, frames, ids.iterrows()):
        if len(frame) == 0:
            continue
        if "objective_to_minimize" not in frame.columns:
            raise ValueError(f"the NePS run {name!r} records no objective_to_minimize "
                             f"(columns {list(frame.columns)}). Fix: read runs whose "
                             f"evaluate_pipeline returned an objective.")
        if "time_sampled" in frame.columns:  # neps.status sorts so; made explicit here
            frame = frame.sort_values("time_sampled", kind="stable")
        for number, (trial_id, trial) in enumerate(frame.iterrows(), start=1):
            state = str(trial["state"]).removeprefix("State.").lower()
            value = trial["objective_to_minimize"]
            if isinstance(value, (list, tuple, np.ndarray)):
                raise ValueError(f"the NePS run {name!r} is multi-objective (trial {trial_id} "
                                 f"has objective {list(value)}): benchverdict compares one "
                                 f"score. Fix: read single-objective runs.")
            finished = state == SUCCESS and pd.notna(value)
            reason = state if finished or state != SUCCESS else f"{state} without an objective"
            err = trial.get("err")  # the exception NePS caught, or its text
            if not finished and isinstance(err, BaseException):
                reason += f": {type(err).__name__}: {err}"
            elif not finished and isinstance(err, str) and err:
                reason += f": {err}"
            rows.append({"algorithm": ident["algorithm"], "benchmark": ident["benchmark"],
                         "seed": ident["seed"], "budget": float(number),
                         "value": float(value) if finished else np.nan,
                         "finished": finished, "state": reason,
                         "label": f"{name} trial {trial_id}"})
    if not rows:
        raise ValueError(f"the NePS runs {[n for n, _ in roots]} have no trials.")
    return trials_to_results(
        pd.DataFrame(rows), objective="minimize", tool="NePS", score="objective_to_minimize",
        budget="evaluations", on_invalid=on_invalid, min_algorithms=min_algorithms, kind_reason=(
            "NePS runs: each row is the least objective_to_minimize among the run's successful "
            "trials after `evaluations` sampled trials (the incumbent)"),
    )


def _roots(path: str | Path | Sequence[str | Path]) -> list[tuple[str, Path]]:
    """``(name, root directory)`` of every NePS run under ``path``, in path order."""
    tops = [path] if isinstance(path, (str, Path)) else list(path)
    found: list[tuple[str, Path]] = []
    for top in map(Path, tops):
        if not top.exists():
            raise FileNotFoundError(f"no such file or directory: {str(top)!r}")
        if _is_root(top):
            found.append((top.name, top))
            continue
        roots = sorted({p.parent for m in _MARKERS for p in top.rglob(m)
                        if _is_root(p.parent)})
        found.extend((r.relative_to(top).as_posix(), r) for r in roots)
    if not found:
        raise ValueError(f"no NePS run (a root directory with configs/ and "
                         f"optimizer_info.yaml) under {[str(t) for t in tops]}.")
    names = [n for n, _ in found]
    twins = sorted({n for n in names if names.count(n) > 1})
    if twins:
        raise ValueError(f"several NePS runs are named {twins}. Fix: read them from one "
                         f"parent folder, or give distinct root directories.")
    return found


def _is_root(folder: Path) -> bool:
    return (folder / "configs").is_dir() and any((folder / m).is_file() for m in _MARKERS)


__all__ = ["read_neps"]
