"""The DSE protocol runner: Jordan et al.'s Algorithm 1, with the DSE-Tuning variant.

Algorithm 1 (DSE, "data and sampled hyperparameters evaluation") estimates
an algorithm's performance distribution by repeating ``N`` times:

1. draw a data set (or train/test split) ``D ~ psi``;
2. draw hyperparameters ``theta ~ phi``;
3. record ``f(theta, D)``, the test performance of the algorithm trained
   with ``theta`` on ``D``'s training part.

The ``N`` scores are IID draws of the performance distribution, so the
output is a :class:`~benchverdict.Results` of ``kind="trials"``.

DSE-Tuning replaces step 2 by a tuning procedure, so that the distribution
describes "the algorithm plus its tuning": an inner random search draws
``n_tuning`` configurations from ``phi``, scores each by ``k``-fold
cross-validation (``k = 3``) on ``D``'s training part only, and the best
configuration (by ``objective``) is retrained on the whole training part and
scored on the test part.

Parallel over trials with joblib; a progress bar (tqdm) shows the trials. A
trial that raises is not fatal: its score is NaN, it is dropped by
:meth:`Results.from_frame` with ``on_invalid="drop"`` and listed in
``results.exclusions``, and the error messages are returned on request
(``return_failures=True``) and summarised in a warning.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from benchverdict._caveats import caveat
from benchverdict._cli_common import stderr_is_terminal
from benchverdict.results import Objective, Results, check_objective

#: The tuning variants.
TUNING = (None, "random_search_cv3")

TrainEval = Callable[[Mapping[str, Any], Any, np.random.Generator], float]
Sampler = Callable[[np.random.Generator], Any]


def _as_mapping(value: Any, what: str, default: str) -> dict[str, Any]:
    if isinstance(value, Mapping):
        if not value:
            raise ValueError(f"{what} is an empty mapping.")
        return {str(k): v for k, v in value.items()}
    if callable(value):
        return {default: value}
    raise TypeError(f"{what} must be a callable or a mapping of names to callables.")


def kfold_splits(n: int, k: int,
                 seed: int | np.random.Generator | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Shuffled ``k``-fold (train, validation) index pairs of ``range(n)``.

    ``seed`` is an int, ``None`` or a :class:`numpy.random.Generator` (used,
    and advanced, as it is).

    Examples
    --------
    >>> folds = kfold_splits(7, 3, np.random.default_rng(0))
    >>> [len(v) for _, v in folds]
    [3, 2, 2]
    >>> sorted(np.concatenate([v for _, v in folds]).tolist()) == list(range(7))
    True
    """
    if not 2 <= k <= n:
        raise ValueError(f"need 2 <= k <= n for k-fold cross-validation, got k={k}, n={n}.")
    order = np.random.default_rng(seed).permutation(n)
    folds = np.array_split(order, k)
    return [(np.concatenate([f for j, f in enumerate(folds) if j != i]), folds[i])
            for i in range(k)]


def _subset(data: Any, idx: np.ndarray) -> Any:
    return data[idx] if not isinstance(data, pd.DataFrame) else data.iloc[idx]


def _tuned_score(
    train_eval: TrainEval,
    sample_hyperparameters: Sampler,
    data: Any,
    rng: np.random.Generator,
    *,
    sign: float,
    n_tuning: int,
    folds: int,
) -> tuple[float, dict]:
    """DSE-Tuning: inner random search with k-fold CV on the training part."""
    try:
        x_train, y_train, _, _ = data
    except (TypeError, ValueError) as err:
        raise TypeError(
            "tuning='random_search_cv3' needs sample_data to return "
            "(X_train, y_train, X_test, y_test) so that the inner cross-validation can split "
            "the training part."
        ) from err
    splits = kfold_splits(len(y_train), folds, rng)
    best, best_value = None, -np.inf
    for _ in range(n_tuning):
        params = sample_hyperparameters(rng)
        values = []
        for tr, va in splits:
            fold = (_subset(x_train, tr), _subset(y_train, tr), _subset(x_train, va),
                    _subset(y_train, va))
            values.append(float(train_eval(params, fold, rng)))
        value = sign * float(np.mean(values))
        # A configuration whose CV score is NaN (failed folds) is never picked.
        if np.isfinite(value) and value > best_value:
            best, best_value = params, value
    if best is None:
        raise RuntimeError("every configuration of the inner random search failed.")
    return float(train_eval(best, data, rng)), dict(best)


def _one_trial(
    job: tuple[str, str, int],
    train_eval: dict[str, TrainEval],
    samplers: dict[str, Sampler],
    data_samplers: dict[str, Sampler],
    seeds: tuple[int, dict[str, int], dict[str, int]],
    tuning: str | None,
    sign: float,
    n_tuning: int,
    folds: int,
) -> dict[str, Any]:
    alg, bench, trial = job
    master, alg_ids, bench_ids = seeds
    # The data draw depends only on (benchmark, trial): every algorithm sees the same data.
    data_rng = np.random.default_rng([master, 0, bench_ids[bench], trial])
    rng = np.random.default_rng([master, 1, bench_ids[bench], alg_ids[alg], trial])
    row: dict[str, Any] = {"algorithm": alg, "benchmark": bench, "trial": trial}
    try:
        data = data_samplers[bench](data_rng)
        if tuning is None:
            params = samplers[alg](rng)
            score = float(train_eval[alg](params, data, rng))
        else:
            score, params = _tuned_score(train_eval[alg], samplers[alg], data, rng, sign=sign,
                                         n_tuning=n_tuning, folds=folds)
        row.update(score=score, error=None, params=repr(dict(params)))
    except Exception as err:  # a failed trial is recorded, not fatal
        row.update(score=np.nan, params=None, error=f"{type(err).__name__}: {err}".strip())
    return row


def run_protocol(
    train_eval: TrainEval | Mapping[str, TrainEval],
    sample_hyperparameters: Sampler | Mapping[str, Sampler],
    sample_data: Sampler | Mapping[str, Sampler],
    n: int,
    *,
    tuning: str | None = None,
    n_tuning: int = 20,
    folds: int = 3,
    objective: Objective = "maximize",
    seed: int = 0,
    n_jobs: int | None = 1,
    progress: bool | None = None,
    return_failures: bool = False,
) -> Results | tuple[Results, pd.DataFrame]:
    """Run the DSE protocol (Jordan et al. 2018, Algorithm 1) and return the draws.

    Parameters
    ----------
    train_eval : callable or mapping
        ``f(params, data, rng) -> score``: train with hyperparameters
        ``params`` on the training part of ``data`` and return the test
        score. A mapping ``{algorithm: f}`` runs several algorithms (a
        :class:`Results` needs at least two).
    sample_hyperparameters : callable or mapping
        ``phi(rng) -> params``, one per algorithm (same keys as
        ``train_eval``).
    sample_data : callable or mapping
        ``psi(rng) -> data``: a fresh data set or train/test split per
        trial. A mapping ``{benchmark: psi}`` runs every benchmark. With
        tuning, ``data`` must be ``(X_train, y_train, X_test, y_test)``
        (indexable arrays or DataFrames).
    n : int
        Trials per algorithm and benchmark.
    tuning : {None, "random_search_cv3"}
        ``None``: the DSE protocol (sampled hyperparameters).
        ``"random_search_cv3"``: DSE-Tuning (inner random search of
        ``n_tuning`` configurations scored by ``folds``-fold CV).
    n_tuning : int
        Configurations tried by the inner random search.
    folds : int
        Cross-validation folds of the inner search (the paper uses 3).
    objective : {"maximize", "minimize"}
        The direction of ``train_eval``'s score (also what tuning optimises).
    seed : int
        Master seed. Trial ``t`` of benchmark ``b`` draws its data from a
        stream fixed by ``(seed, b, t)`` (all algorithms see the same data,
        so trials are paired) and its hyperparameters from ``(seed, b,
        algorithm, t)``: results do not depend on ``n_jobs`` or on the order
        of execution.
    n_jobs : int, optional
        joblib workers (``-1``: all cores).
    progress : bool, optional
        Show a tqdm progress bar (default: only when stderr is a terminal,
        never in a log file).
    return_failures : bool
        Also return a frame of failed trials (algorithm, benchmark, trial,
        error).

    Returns
    -------
    Results
        Columns ``algorithm``, ``benchmark``, ``seed`` (= trial), ``score``;
        ``kind="trials"``. Failed trials appear in ``results.exclusions``.
    failures : pandas.DataFrame
        Only with ``return_failures=True``.

    Examples
    --------
    >>> def f(params, data, rng):
    ...     return float(np.mean(data) * params["scale"])
    >>> phi = {"A": lambda rng: {"scale": rng.uniform(0.5, 1.0)},
    ...        "B": lambda rng: {"scale": rng.uniform(0.0, 0.5)}}
    >>> res = run_protocol({"A": f, "B": f}, phi, lambda rng: rng.uniform(size=10), 5,
    ...                    progress=False)
    >>> len(res), res.kind, res.algorithms
    (10, 'trials', ['A', 'B'])
    """
    sign = 1.0 if check_objective(objective) == "maximize" else -1.0
    if tuning not in TUNING:
        raise ValueError(f"tuning must be one of {TUNING}, got {tuning!r}.")
    if int(n) < 1:
        raise ValueError(f"n must be a positive number of trials, got {n}.")
    if tuning is not None and int(n_tuning) < 1:
        raise ValueError(f"n_tuning must be >= 1, got {n_tuning}.")
    fs = _as_mapping(train_eval, "train_eval", "algorithm")
    phis = _as_mapping(sample_hyperparameters, "sample_hyperparameters", "algorithm")
    if set(fs) != set(phis):
        raise ValueError(
            f"train_eval and sample_hyperparameters must name the same algorithms; got "
            f"{sorted(fs)} and {sorted(phis)}."
        )
    psis = _as_mapping(sample_data, "sample_data", "all")
    if len(fs) < 2:
        raise ValueError(
            "a Results compares at least two algorithms: pass mappings {name: function} for "
            "train_eval and sample_hyperparameters (e.g. the algorithm sampled and tuned)."
        )
    alg_ids = {a: i for i, a in enumerate(sorted(fs))}
    bench_ids = {b: i for i, b in enumerate(sorted(psis))}
    jobs = [(a, b, t) for b in psis for a in fs for t in range(int(n))]

    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    parallel = Parallel(n_jobs=n_jobs, return_as="generator")
    rows = list(
        tqdm(
            parallel(
                delayed(_one_trial)(job, fs, phis, psis, (int(seed), alg_ids, bench_ids),
                                    tuning, sign, int(n_tuning), int(folds))
                for job in jobs
            ),
            total=len(jobs),
            disable=not (stderr_is_terminal() if progress is None else progress),
            desc="DSE-Tuning trials" if tuning else "DSE trials",
        )
    )
    frame = pd.DataFrame(rows)
    failures = frame.loc[frame["error"].notna(), ["algorithm", "benchmark", "trial", "error"]]
    if len(failures):
        first = failures.iloc[0]
        caveat(
            "failed trials",
            f"{len(failures)} of {len(frame)} trial(s) failed and were recorded with a NaN "
            f"score (see results.exclusions; return_failures=True gives the messages). First: "
            f"{first['algorithm']} on {first['benchmark']}, trial {first['trial']}: "
            f"{first['error']}",
            category=RuntimeWarning,
            stacklevel=2,
        )
    results = Results.from_frame(
        frame, algorithm="algorithm", benchmark="benchmark", seed="trial", score="score",
        objective=objective, on_invalid="drop", kind="trials",
    )
    if return_failures:
        return results, failures.reset_index(drop=True)
    return results


__all__ = ["TUNING", "kfold_splits", "run_protocol"]
