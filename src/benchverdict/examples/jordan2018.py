"""The built-in example benchmark: random-search trials after Jordan et al. (2018).

Jordan, Cohen & Thomas (2018), "Using cumulative distribution based
performance analysis to benchmark models", compare classifiers by the
distribution of their test performance over every source of variation: the
hyperparameters (drawn at random from a fixed distribution per algorithm)
and the data (a fresh sample or split per run). This module makes such a
benchmark with scikit-learn, so that every analysis in benchverdict has real
data to run on:

* five algorithms (:data:`ALGORITHMS`): ``"kNN"``, ``"RF"``, ``"SVM"`` (RBF
  kernel), ``"LR"`` and ``"MLP"``, each with a hyperparameter space whose
  sampler draws one configuration (``spec.sample(rng)``) and a builder that
  turns it into an estimator (``spec.build(params, seed)``);
* twenty data sets, all made by scikit-learn without a network
  (:data:`DATASETS`): the three two-dimensional toy problems of
  scikit-learn's classifier comparison that the paper uses (``moons``,
  ``circles``, ``linear``); the four real data sets that ship with
  scikit-learn (``digits``, the image task in place of the paper's LFW
  faces, ``breast_cancer``, ``wine`` and ``iris``); and thirteen synthetic
  problems from scikit-learn's generators that vary the shape of the class
  boundary (moons, circles, Gaussian quantiles, blobs, XOR-like clusters,
  Hastie's 10-dimensional problem, linear-ish ``make_classification``), the
  dimension (2 to 50, with and without irrelevant features), the number of
  classes (2 to 6) and the noise. Replicating a comparison over benchmarks
  needs many of them: a claim "across benchmarks" (an LMEM with a
  benchmark x algorithm random effect, or rank tests on benchmark means)
  has as many units of replication as there are benchmarks;
* for every benchmark x algorithm x seed, a random search of ``n_trials``
  configurations in a recorded order (``trial`` = 1..B). Each trial draws
  its own data (:func:`split`): a fresh stratified train/test split, and for
  the synthetic problems a fresh sample; the configuration is trained on
  that trial's training split and scored by accuracy on its test split.

Sources of variation, as in the paper's protocol (its Algorithm 1 samples
the hyperparameters *and* the data afresh for every run): every trial is an
independent draw of (configuration, data), so every row of the output is an
IID draw from the algorithm's performance distribution, and pooling the
trials of all seeds (as tuning curves and DSE do) pools IID draws, not draws
clustered by a seed's shared split. The data stream is keyed by (benchmark,
seed, trial) and not by algorithm, so trial ``t`` of seed ``s`` shows every
algorithm the same split: the design stays paired by (seed, trial). A
seed's incumbent (best so far after ``b`` trials) is therefore the result of
a random search whose trials are scored on fresh splits, i.e. random search
with a noisy objective.

Hyperparameter ranges: we could not retrieve the paper's table of
hyperparameter distributions while building this module, so the ranges in
:data:`ALGORITHMS` are ours: standard, wide ranges (log-uniform for scale
parameters) of the kind the paper describes, fixed here and documented in
``data/README.md``. Change them only together with the committed data.

Every random number derives from ``master_seed`` and stable ids through
:class:`numpy.random.SeedSequence`: a trial's data from (benchmark, seed,
trial), a search's configurations from (benchmark, algorithm, seed), a
model's ``random_state`` from (benchmark, algorithm, seed, trial). So a
cell's trials do not depend on which other cells are run, in which order,
or on how many workers run them; a run with fewer trials gives a prefix of
a longer one.

Regenerate the committed data (about 19 minutes of CPU time)::

    python -m benchverdict.examples.jordan2018 --out data/

Examples
--------
>>> import numpy as np
>>> from benchverdict.examples.jordan2018 import ALGORITHMS
>>> sorted(ALGORITHMS)
['LR', 'MLP', 'RF', 'SVM', 'kNN']
>>> params = ALGORITHMS["SVM"].sample(np.random.default_rng(0))
>>> sorted(params)
['C', 'gamma']
>>> ALGORITHMS["SVM"].contains(params)
True
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: The master seed of the committed example data.
MASTER_SEED = 2018
#: Random-search trials per benchmark x algorithm x seed in the committed data.
N_TRIALS = 20
#: Seeds (replicates) per benchmark x algorithm in the committed data.
N_SEEDS = 10
#: Fraction of every data set held out for testing (stratified).
TEST_SIZE = 1 / 3
#: File name of the committed trials (in ``data/``).
TRIALS_FILE = "jordan2018.csv.gz"
#: File name of the failed fits (written only when a fit fails).
FAILURES_FILE = "jordan2018_failures.csv"

# Stable integer ids for seeding: appending new entries never changes old streams.
_STREAM_DATA, _STREAM_PARAMS, _STREAM_MODEL = 0, 1, 2


# ---------------------------------------------------------------------------- hyperparameters
@dataclass(frozen=True)
class Hyperparameter:
    """One hyperparameter's sampling distribution.

    Attributes
    ----------
    name : str
        The name used in sampled configurations (and, prefixed with ``hp_``,
        as a column of the example data).
    kind : {"int", "float", "choice"}
        Integer, real or categorical.
    low, high : float
        Inclusive bounds for ``"int"`` and ``"float"``.
    log : bool
        Sample uniformly on the log scale (log-uniform) instead of uniformly.
    choices : tuple
        The values of a ``"choice"``, drawn with equal probability.

    Examples
    --------
    >>> import numpy as np
    >>> c = Hyperparameter("C", "float", 1e-3, 1e3, log=True)
    >>> value = c.sample(np.random.default_rng(1))
    >>> c.contains(value)
    True
    >>> c.describe()
    'log-uniform on [0.001, 1000]'
    """

    name: str
    kind: str
    low: float = math.nan
    high: float = math.nan
    log: bool = False
    choices: tuple = ()

    def __post_init__(self) -> None:
        if self.kind == "choice":
            if not self.choices:
                raise ValueError(f"{self.name}: a choice needs at least one value.")
        elif self.kind in ("int", "float"):
            if not self.low <= self.high:
                raise ValueError(f"{self.name}: need low <= high, got {self.low}, {self.high}.")
            if self.log and self.low <= 0:
                raise ValueError(f"{self.name}: a log-uniform range needs low > 0.")
        else:
            raise ValueError(f"{self.name}: kind must be int, float or choice, not {self.kind!r}.")

    def sample(self, rng: np.random.Generator) -> Any:
        """Draw one value.

        ``"float"``: uniform (or log-uniform) on [low, high]. ``"int"``: a
        uniform integer in {low, ..., high}, or with ``log=True`` the floor of
        a log-uniform draw on [low, high + 1), so that every integer in range
        can occur and small values are favoured. ``"choice"``: uniform over
        ``choices``.
        """
        if self.kind == "choice":
            return self.choices[int(rng.integers(len(self.choices)))]
        if self.kind == "float":
            if self.log:
                return float(math.exp(rng.uniform(math.log(self.low), math.log(self.high))))
            return float(rng.uniform(self.low, self.high))
        if self.log:
            draw = math.exp(rng.uniform(math.log(self.low), math.log(self.high + 1)))
            return int(min(math.floor(draw), self.high))
        return int(rng.integers(int(self.low), int(self.high) + 1))

    def contains(self, value: Any) -> bool:
        """Whether ``value`` lies in this hyperparameter's support."""
        if self.kind == "choice":
            return value in self.choices
        if self.kind == "int" and (isinstance(value, bool) or int(value) != value):
            return False
        return bool(self.low <= value <= self.high)

    def describe(self) -> str:
        """Return a short human-readable statement of the distribution."""
        if self.kind == "choice":
            return "uniform over {" + ", ".join(map(str, self.choices)) + "}"
        scale = "log-uniform" if self.log else "uniform"
        if self.kind == "int":
            return f"{scale} integer in [{self.low:g}, {self.high:g}]"
        return f"{scale} on [{self.low:g}, {self.high:g}]"


@dataclass(frozen=True)
class AlgorithmSpec:
    """An algorithm of the example benchmark: its search space and its builder.

    Attributes
    ----------
    name : str
        The stable algorithm label (``"kNN"``, ``"RF"``, ...).
    description : str
        What is built, in one line.
    space : tuple of Hyperparameter
        The independent hyperparameter distributions.
    builder : callable
        ``builder(params, seed) -> estimator`` (scikit-learn is
        imported only when it is called).
    standardize : bool
        Whether the builder puts a ``StandardScaler`` before the model in a
        ``Pipeline`` (distance- and gradient-based models).
    """

    name: str
    description: str
    space: tuple[Hyperparameter, ...]
    builder: Callable[[Mapping[str, Any], int], Any] = field(repr=False)
    standardize: bool = False

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """Draw one configuration: a dict with one value per hyperparameter."""
        return {hp.name: hp.sample(rng) for hp in self.space}

    def build(self, params: Mapping[str, Any], seed: int) -> Any:
        """An unfitted scikit-learn estimator for the configuration ``params``.

        ``seed`` becomes the estimator's ``random_state`` (scikit-learn's name).
        """
        missing = [hp.name for hp in self.space if hp.name not in params]
        if missing:
            raise KeyError(f"{self.name}: configuration lacks {missing}.")
        return self.builder(params, int(seed))

    def contains(self, params: Mapping[str, Any]) -> bool:
        """Whether every value of ``params`` lies in the space (and no name is extra)."""
        names = {hp.name for hp in self.space}
        if set(params) != names:
            return False
        return all(hp.contains(params[hp.name]) for hp in self.space)

    def describe(self) -> pd.DataFrame:
        """Return the search space as a table (hyperparameter, distribution)."""
        return pd.DataFrame(
            {
                "algorithm": self.name,
                "hyperparameter": [hp.name for hp in self.space],
                "distribution": [hp.describe() for hp in self.space],
            }
        )


def _scaled(model: Any) -> Any:
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    return Pipeline([("scale", StandardScaler()), ("model", model)])


def _build_knn(p: Mapping[str, Any], random_state: int) -> Any:
    from sklearn.neighbors import KNeighborsClassifier

    return _scaled(
        KNeighborsClassifier(n_neighbors=int(p["n_neighbors"]), weights=p["weights"], p=int(p["p"]))
    )


def _build_rf(p: Mapping[str, Any], random_state: int) -> Any:
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(
        n_estimators=int(p["n_estimators"]),
        max_depth=int(p["max_depth"]),
        max_features=float(p["max_features"]),
        min_samples_leaf=int(p["min_samples_leaf"]),
        criterion=p["criterion"],
        random_state=random_state,
        n_jobs=1,
    )


def _build_svm(p: Mapping[str, Any], random_state: int) -> Any:
    from sklearn.svm import SVC

    # max_iter bounds libsvm's work for extreme C; hitting it is recorded as non-convergence.
    return _scaled(SVC(kernel="rbf", C=float(p["C"]), gamma=float(p["gamma"]), max_iter=1_000_000))


def _build_lr(p: Mapping[str, Any], random_state: int) -> Any:
    from sklearn.linear_model import LogisticRegression

    return _scaled(LogisticRegression(C=float(p["C"]), max_iter=500, random_state=random_state))


def _build_mlp(p: Mapping[str, Any], random_state: int) -> Any:
    from sklearn.neural_network import MLPClassifier

    return _scaled(
        MLPClassifier(
            hidden_layer_sizes=(int(p["hidden_units"]),) * int(p["hidden_layers"]),
            activation=p["activation"],
            alpha=float(p["alpha"]),
            learning_rate_init=float(p["learning_rate_init"]),
            max_iter=MLP_MAX_ITER,
            random_state=random_state,
        )
    )


#: Adam epochs of the MLP (a compute limit; stopping early is recorded as non-convergence).
MLP_MAX_ITER = 50

#: The algorithms, by stable name. Ranges are ours (see the module docstring).
ALGORITHMS: dict[str, AlgorithmSpec] = {
    "kNN": AlgorithmSpec(
        "kNN",
        "k-nearest neighbours on standardised features",
        (
            Hyperparameter("n_neighbors", "int", 1, 50, log=True),
            Hyperparameter("weights", "choice", choices=("uniform", "distance")),
            Hyperparameter("p", "choice", choices=(1, 2)),
        ),
        _build_knn,
        standardize=True,
    ),
    "RF": AlgorithmSpec(
        "RF",
        "random forest (no scaling: trees are invariant to it)",
        (
            Hyperparameter("n_estimators", "int", 10, 50),
            Hyperparameter("max_depth", "int", 1, 20),
            Hyperparameter("max_features", "float", 0.1, 1.0),
            Hyperparameter("min_samples_leaf", "int", 1, 10),
            Hyperparameter("criterion", "choice", choices=("gini", "entropy")),
        ),
        _build_rf,
    ),
    "SVM": AlgorithmSpec(
        "SVM",
        "support vector machine, RBF kernel, on standardised features",
        (
            Hyperparameter("C", "float", 1e-3, 1e3, log=True),
            Hyperparameter("gamma", "float", 1e-4, 1e1, log=True),
        ),
        _build_svm,
        standardize=True,
    ),
    "LR": AlgorithmSpec(
        "LR",
        "L2-regularised (multinomial) logistic regression on standardised features",
        (Hyperparameter("C", "float", 1e-4, 1e4, log=True),),
        _build_lr,
        standardize=True,
    ),
    "MLP": AlgorithmSpec(
        "MLP",
        f"multilayer perceptron (Adam, {MLP_MAX_ITER} epochs) on standardised features",
        (
            Hyperparameter("hidden_layers", "int", 1, 2),
            Hyperparameter("hidden_units", "int", 8, 128, log=True),
            Hyperparameter("activation", "choice", choices=("relu", "tanh")),
            Hyperparameter("alpha", "float", 1e-6, 1e-1, log=True),
            Hyperparameter("learning_rate_init", "float", 1e-4, 1e-1, log=True),
        ),
        _build_mlp,
        standardize=True,
    ),
}


# ---------------------------------------------------------------------------- data sets
#: Samples drawn per trial for every synthetic problem.
N_SYNTHETIC = 300


def _moons(seed: int) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import make_moons

    return make_moons(n_samples=N_SYNTHETIC, noise=0.3, random_state=seed)


def _circles(seed: int) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import make_circles

    return make_circles(n_samples=N_SYNTHETIC, noise=0.2, factor=0.5, random_state=seed)


def _linear(seed: int) -> tuple[np.ndarray, np.ndarray]:
    # As in scikit-learn's classifier comparison: two informative features,
    # one cluster per class, then uniform jitter so the classes overlap a little.
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=N_SYNTHETIC,
        n_features=2,
        n_redundant=0,
        n_informative=2,
        n_clusters_per_class=1,
        random_state=seed,
    )
    X = X + 2 * np.random.default_rng(seed).uniform(size=X.shape)
    return X, y


@functools.cache
def _load_fixed(name: str) -> tuple[np.ndarray, np.ndarray]:
    # Loaded once per process (every trial splits it afresh); read-only, so shared safely.
    from sklearn import datasets

    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def _digits(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return _load_fixed("digits")


def _breast_cancer(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return _load_fixed("breast_cancer")


def _wine(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return _load_fixed("wine")


def _iris(seed: int) -> tuple[np.ndarray, np.ndarray]:
    return _load_fixed("iris")


def _sampled(generator: str, seed: int, **options: Any) -> tuple[np.ndarray, np.ndarray]:
    """A fresh sample of ``N_SYNTHETIC`` points from ``sklearn.datasets.<generator>``."""
    from sklearn import datasets

    return getattr(datasets, generator)(n_samples=N_SYNTHETIC, random_state=seed, **options)


def _moons_noise_dims(seed: int) -> tuple[np.ndarray, np.ndarray]:
    # The moons problem (noise 0.2) hidden among 8 irrelevant standard-normal features.
    from sklearn.datasets import make_moons

    X, y = make_moons(n_samples=N_SYNTHETIC, noise=0.2, random_state=seed)
    noise = np.random.default_rng(seed).standard_normal((N_SYNTHETIC, 8))
    return np.hstack([X, noise]), y


#: The data sets, by stable name: ``DATASETS[name](seed) -> (X, y)``. The
#: synthetic ones are a fresh sample per call (:func:`split` passes each
#: trial's data seed); the others are fixed (read-only arrays) and only their
#: train/test split varies. New entries are appended: a benchmark's position
#: is part of its random streams, so appending keeps every earlier stream.
DATASETS: dict[str, Callable[[int], tuple[np.ndarray, np.ndarray]]] = {
    "moons": _moons,
    "circles": _circles,
    "linear": _linear,
    "digits": _digits,
    "breast_cancer": _breast_cancer,
    "wine": _wine,
    "iris": _iris,
    "moons_clean": functools.partial(_sampled, "make_moons", noise=0.1),
    "circles_close": functools.partial(_sampled, "make_circles", noise=0.1, factor=0.8),
    "moons_noise_dims": _moons_noise_dims,
    "quantiles_2d": functools.partial(
        _sampled, "make_gaussian_quantiles", n_features=2, n_classes=2
    ),
    "quantiles_6d_3c": functools.partial(
        _sampled, "make_gaussian_quantiles", n_features=6, n_classes=3
    ),
    "blobs_2d_3c": functools.partial(
        _sampled, "make_blobs", n_features=2, centers=3, cluster_std=2.5
    ),
    "blobs_10d_6c": functools.partial(
        _sampled, "make_blobs", n_features=10, centers=6, cluster_std=5.0
    ),
    "hastie_10d": functools.partial(_sampled, "make_hastie_10_2"),
    "xor_2d": functools.partial(
        _sampled,
        "make_classification",
        n_features=2,
        n_informative=2,
        n_redundant=0,
        n_clusters_per_class=2,
        class_sep=1.5,
    ),
    "clf_10d": functools.partial(
        _sampled,
        "make_classification",
        n_features=10,
        n_informative=4,
        n_redundant=2,
        flip_y=0.05,
    ),
    "clf_20d_4c": functools.partial(
        _sampled,
        "make_classification",
        n_features=20,
        n_informative=6,
        n_redundant=2,
        n_classes=4,
        n_clusters_per_class=2,
    ),
    "clf_50d_sparse": functools.partial(
        _sampled,
        "make_classification",
        n_features=50,
        n_informative=3,
        n_redundant=0,
        n_clusters_per_class=1,
    ),
    "clf_8d_3c_hard": functools.partial(
        _sampled,
        "make_classification",
        n_features=8,
        n_informative=5,
        n_redundant=1,
        n_classes=3,
        class_sep=0.5,
    ),
}


def _seed_sequence(master_seed: int, *ids: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(master_seed), *map(int, ids)])


def _int_seed(seq: np.random.SeedSequence) -> int:
    return int(seq.generate_state(1, dtype=np.uint32)[0] & 0x7FFFFFFF)


def _ids(benchmark: str, algorithm: str | None = None) -> list[int]:
    if benchmark not in DATASETS:
        raise KeyError(f"unknown benchmark {benchmark!r}; known: {list(DATASETS)}.")
    ids = [list(DATASETS).index(benchmark)]
    if algorithm is not None:
        if algorithm not in ALGORITHMS:
            raise KeyError(f"unknown algorithm {algorithm!r}; known: {list(ALGORITHMS)}.")
        ids.append(list(ALGORITHMS).index(algorithm))
    return ids


def data_seed(benchmark: str, seed: int, trial: int, master_seed: int = MASTER_SEED) -> int:
    """Return the integer seed that draws the data of one trial.

    Derived from (``master_seed``, benchmark, ``seed``, ``trial``) only: the
    algorithm is deliberately not part of the key, so every algorithm's
    trial ``trial`` of seed ``seed`` gets the same data.

    Examples
    --------
    >>> data_seed("wine", 0, 1) == data_seed("wine", 0, 1)
    True
    >>> data_seed("wine", 0, 1) == data_seed("wine", 0, 2)
    False
    """
    (b_id,) = _ids(benchmark)
    if int(trial) < 1:
        raise ValueError(f"trial numbers start at 1, got {trial}.")
    return _int_seed(_seed_sequence(master_seed, _STREAM_DATA, b_id, seed, trial))


def split(
    benchmark: str, seed: int, trial: int, master_seed: int = MASTER_SEED
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the data of one trial, split into train and test.

    The trial's :func:`data_seed` draws the synthetic data (a fresh sample
    of every benchmark not shipped with scikit-learn) and the stratified split, so
    every trial of a search sees new data, while all algorithms see the same
    data for the same benchmark, seed and trial (a paired design).

    Returns
    -------
    X_train, X_test, y_train, y_test : numpy.ndarray

    Examples
    --------
    >>> X_train, X_test, y_train, y_test = split("wine", seed=0, trial=1)
    >>> X_train.shape, X_test.shape
    ((118, 13), (60, 13))
    >>> bool((split("wine", 0, 2)[1] != X_test).any())  # the next trial: a new split
    True
    """
    from sklearn.model_selection import train_test_split

    trial_seed = data_seed(benchmark, seed, trial, master_seed)
    X, y = DATASETS[benchmark](trial_seed)
    return train_test_split(X, y, test_size=TEST_SIZE, stratify=y, random_state=trial_seed)


def sample_configs(
    benchmark: str, algorithm: str, seed: int, n_trials: int, master_seed: int = MASTER_SEED
) -> list[dict[str, Any]]:
    """Return the hyperparameter configurations of one random search, in trial order.

    Examples
    --------
    >>> configs = sample_configs("moons", "kNN", seed=0, n_trials=3)
    >>> len(configs), sorted(configs[0])
    (3, ['n_neighbors', 'p', 'weights'])
    """
    rng = np.random.default_rng(
        _seed_sequence(master_seed, _STREAM_PARAMS, *_ids(benchmark, algorithm), seed)
    )
    spec = ALGORITHMS[algorithm]
    return [spec.sample(rng) for _ in range(n_trials)]


def _model_seed(benchmark: str, algorithm: str, seed: int, trial: int, master_seed: int) -> int:
    ids = _ids(benchmark, algorithm)
    return _int_seed(_seed_sequence(master_seed, _STREAM_MODEL, *ids, seed, trial))


def run_search(
    benchmark: str,
    algorithm: str,
    seed: int,
    n_trials: int,
    master_seed: int = MASTER_SEED,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One random search: ``n_trials`` configurations trained and scored in order.

    Trial ``t`` trains on and is scored on its own data, ``split(benchmark,
    seed, t)``: a random search with a noisy objective.

    Returns
    -------
    rows : list of dict
        One per successful trial: ``algorithm``, ``benchmark``, ``seed``,
        ``trial`` (1-based order), ``accuracy`` (test accuracy),
        ``converged`` (no ConvergenceWarning during the fit), the data-set
        sizes and the hyperparameters (``hp_<name>``).
    failures : list of dict
        One per fit that raised: the cell, ``trial``, the configuration and
        the error. Failed trials get no score (scores must be finite).
    """
    from sklearn.exceptions import ConvergenceWarning
    from threadpoolctl import threadpool_limits

    spec = ALGORITHMS[algorithm]
    rows: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    configs = sample_configs(benchmark, algorithm, seed, n_trials, master_seed)
    # One BLAS thread: reproducible sums and a fair share of the machine.
    with threadpool_limits(limits=1):
        for trial, params in enumerate(configs, start=1):
            cell = {"algorithm": algorithm, "benchmark": benchmark, "seed": seed, "trial": trial}
            # Fresh data for every trial, the same for every algorithm (keyed without it).
            X_train, X_test, y_train, y_test = split(benchmark, seed, trial, master_seed)
            sizes = {
                "n_samples": len(y_train) + len(y_test),
                "n_features": X_train.shape[1],
                "n_classes": len(np.unique(np.concatenate([y_train, y_test]))),
                "n_train": len(y_train),
                "n_test": len(y_test),
            }
            model = spec.build(params, _model_seed(benchmark, algorithm, seed, trial, master_seed))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                try:
                    model.fit(X_train, y_train)
                    accuracy = float(np.mean(model.predict(X_test) == y_test))
                except Exception as error:  # a failed fit is recorded, never fatal
                    failures.append({**cell, "params": repr(params), "error": repr(error)})
                    continue
            converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
            hps = {f"hp_{name}": value for name, value in params.items()}
            rows.append({**cell, "accuracy": accuracy, "converged": converged, **sizes, **hps})
    return rows, failures


def generate(
    benchmarks: Iterable[str] | None = None,
    algorithms: Iterable[str] | None = None,
    n_seeds: int = N_SEEDS,
    n_trials: int = N_TRIALS,
    master_seed: int = MASTER_SEED,
    n_jobs: int = 1,
    progress: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run every random search of the benchmark and collect the trials.

    Parameters
    ----------
    benchmarks, algorithms : iterable of str, optional
        Subsets of :data:`DATASETS` and :data:`ALGORITHMS` (default: all).
        A cell's trials are the same whatever else is run.
    n_seeds : int
        Seeds ``0 .. n_seeds - 1`` per benchmark x algorithm.
    n_trials : int
        Random-search trials per seed (the budget B).
    master_seed : int
        The root of every random stream.
    n_jobs : int
        joblib workers over (benchmark, algorithm, seed) cells; the output
        does not depend on it.
    progress : bool
        Show a tqdm progress bar over the cells.

    Returns
    -------
    trials : pandas.DataFrame
        One row per successful trial (see :func:`run_search`), sorted by
        benchmark, algorithm, seed and trial.
    failures : pandas.DataFrame
        One row per failed fit (usually empty).

    Examples
    --------
    >>> trials, failures = generate(["wine"], ["kNN", "LR"], n_seeds=2, n_trials=3,
    ...                             progress=False)
    >>> trials.shape[0], len(failures)
    (12, 0)
    """
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    benchmarks = list(DATASETS) if benchmarks is None else list(benchmarks)
    algorithms = list(ALGORITHMS) if algorithms is None else list(algorithms)
    unknown = [b for b in benchmarks if b not in DATASETS]
    unknown += [a for a in algorithms if a not in ALGORITHMS]
    if unknown or not benchmarks or not algorithms:
        raise KeyError(
            f"need known, non-empty benchmarks and algorithms; unknown: {unknown}. "
            f"Known benchmarks: {list(DATASETS)}; algorithms: {list(ALGORITHMS)}."
        )
    if n_seeds < 1 or n_trials < 1:
        raise ValueError(f"n_seeds and n_trials must be >= 1, got {n_seeds}, {n_trials}.")
    cells = [(b, a, s) for b in benchmarks for a in algorithms for s in range(n_seeds)]
    jobs = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(run_search)(b, a, s, n_trials, master_seed) for b, a, s in cells
    )
    rows: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    for cell_rows, cell_failures in tqdm(
        jobs, total=len(cells), desc="random searches", unit="search", disable=not progress
    ):
        rows.extend(cell_rows)
        failures.extend(cell_failures)
    return _tidy(rows, algorithms), pd.DataFrame(
        failures, columns=["algorithm", "benchmark", "seed", "trial", "params", "error"]
    )


def _hp_columns(algorithms: Sequence[str]) -> list[str]:
    names: list[str] = []
    for a in algorithms:
        for hp in ALGORITHMS[a].space:
            if f"hp_{hp.name}" not in names:
                names.append(f"hp_{hp.name}")
    return names


#: The columns of the trials file, in order (hyperparameter columns follow).
BASE_COLUMNS = (
    "benchmark",
    "algorithm",
    "seed",
    "trial",
    "accuracy",
    "converged",
    "n_samples",
    "n_features",
    "n_classes",
    "n_train",
    "n_test",
)


def _tidy(rows: list[dict[str, Any]], algorithms: Sequence[str]) -> pd.DataFrame:
    columns = [*BASE_COLUMNS, *_hp_columns(algorithms)]
    frame = pd.DataFrame(rows, columns=columns)
    frame = frame.sort_values(["benchmark", "algorithm", "seed", "trial"], kind="stable")
    return frame.reset_index(drop=True)


def write(
    out_dir: str | Path,
    n_seeds: int = N_SEEDS,
    n_trials: int = N_TRIALS,
    master_seed: int = MASTER_SEED,
    n_jobs: int = 1,
    progress: bool = True,
    benchmarks: Iterable[str] | None = None,
    algorithms: Iterable[str] | None = None,
) -> dict[str, Any]:
    """Generate the benchmark and write it to ``out_dir``.

    Writes ``jordan2018.csv.gz`` (the trials) and, only if some fit failed,
    ``jordan2018_failures.csv``; a stale failures file is removed.

    Returns
    -------
    dict
        ``path``, ``rows``, ``failures``, ``non_converged``, ``seconds``
        (wall clock) and ``bytes`` (size of the trials file).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    trials, failures = generate(
        benchmarks, algorithms, n_seeds, n_trials, master_seed, n_jobs, progress
    )
    seconds = time.perf_counter() - start
    path = out / TRIALS_FILE
    # mtime=0 in the gzip header: the same data give byte-identical files.
    trials.to_csv(
        path,
        index=False,
        float_format="%.10g",
        compression={"method": "gzip", "compresslevel": 9, "mtime": 0},
    )
    failures_path = out / FAILURES_FILE
    if len(failures):
        failures.to_csv(failures_path, index=False)
    elif failures_path.exists():
        failures_path.unlink()
    return {
        "path": str(path),
        "rows": len(trials),
        "failures": len(failures),
        "non_converged": int((~trials["converged"]).sum()),
        "seconds": seconds,
        "bytes": path.stat().st_size,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m benchverdict.examples.jordan2018 --out data/``."""
    parser = argparse.ArgumentParser(
        prog="python -m benchverdict.examples.jordan2018",
        description="Generate the built-in example benchmark (random-search trials after "
        "Jordan et al. 2018) with scikit-learn.",
    )
    parser.add_argument("--out", default="data", help="output directory (default: data)")
    parser.add_argument("--seeds", type=int, default=N_SEEDS, help="seeds per cell")
    parser.add_argument("--trials", type=int, default=N_TRIALS, help="trials per search (B)")
    parser.add_argument("--master-seed", type=int, default=MASTER_SEED)
    parser.add_argument("--n-jobs", type=int, default=1, help="joblib workers (default 1)")
    parser.add_argument("--benchmarks", nargs="+", choices=list(DATASETS), default=None)
    parser.add_argument("--algorithms", nargs="+", choices=list(ALGORITHMS), default=None)
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    summary = write(
        args.out,
        n_seeds=args.seeds,
        n_trials=args.trials,
        master_seed=args.master_seed,
        n_jobs=args.n_jobs,
        progress=not args.no_progress,
        benchmarks=args.benchmarks,
        algorithms=args.algorithms,
    )
    print(
        f"wrote {summary['rows']} trials to {summary['path']} ({summary['bytes'] / 1e6:.2f} MB) "
        f"in {summary['seconds']:.0f} s; {summary['non_converged']} fits did not converge; "
        f"{summary['failures']} fits failed."
    )
    return 0


if __name__ == "__main__":
    # Run the importable module's main, not this __main__ copy: joblib's workers
    # then unpickle the cells' functions by reference to benchverdict.examples.jordan2018.
    from benchverdict.examples.jordan2018 import main as _importable_main

    sys.exit(_importable_main())
