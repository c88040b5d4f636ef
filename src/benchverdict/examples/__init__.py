"""The built-in example benchmark, made by the project itself.

Random-search trials after Jordan, Cohen & Thomas (2018): scikit-learn's kNN,
random forest, RBF SVM, logistic regression and MLP, each tuned by random
search (20 trials, in recorded order) on twenty data sets made by
scikit-learn (four that ship with it, sixteen from its generators), for 10
seeds; the score is test accuracy (maximize). The
generator is :mod:`benchverdict.examples.jordan2018` (it needs scikit-learn);
reading the committed data needs only pandas.

Because every row is an independent random-search draw (a fresh configuration
scored on a fresh data split), the same data serve every module: tuning
curves and DSE use the trials directly (``results.draws``), rank tests and
LMEMs the incumbent after ``b`` trials (``results.at_budget(b)``,
``results.final()``, ``results.blocks()``).

Examples
--------
>>> from benchverdict.examples import load_example
>>> res = load_example()
>>> res.kind, res.objective
('trials', 'maximize')
>>> res.algorithms
['LR', 'MLP', 'RF', 'SVM', 'kNN']
>>> len(res.benchmarks), len(res.seeds), len(res.budgets)
(20, 10, 20)
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from benchverdict.results import Results

__all__ = ["EXAMPLE_METAFEATURES", "example_path", "load_example", "load_example_frame"]

#: Name of the committed trials file (``data/`` at the repository root).
EXAMPLE_FILE = "jordan2018.csv.gz"
#: Environment variable that may point at the trials file (or its folder).
EXAMPLE_ENV = "BENCHVERDICT_EXAMPLE_DATA"
#: The data-set columns that :func:`load_example` keeps as metafeatures.
EXAMPLE_METAFEATURES = ("n_samples", "n_features", "n_classes")


def _candidates() -> list[Path]:
    here = Path(__file__).resolve().parent
    found: list[Path] = []
    env = os.environ.get(EXAMPLE_ENV)
    if env:
        path = Path(env)
        found.append(path / EXAMPLE_FILE if path.is_dir() else path)
    # Installed packages ship the file next to this module; a source checkout
    # (an editable install) has it in <repository root>/data/.
    found.append(here / EXAMPLE_FILE)
    found.append(here.parents[2] / "data" / EXAMPLE_FILE)
    return found


def _is_gzip(path: Path) -> bool:
    # The packaged file is a symlink to data/ in the repository; a checkout
    # without symlink support (Windows) has a short text file there instead.
    try:
        with path.open("rb") as handle:
            return handle.read(2) == b"\x1f\x8b"
    except OSError:
        return False


def example_path() -> Path:
    """Return the path of the example benchmark's trials file.

    Looked for, in order: the file or folder named by the environment
    variable ``BENCHVERDICT_EXAMPLE_DATA``; the file shipped inside the
    package; ``data/`` at the root of a source checkout.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        Naming every place looked at and how to regenerate the file.

    Examples
    --------
    >>> example_path().name
    'jordan2018.csv.gz'
    """
    candidates = _candidates()
    for path in candidates:
        if _is_gzip(path):
            return path
    looked = "\n  ".join(str(p) for p in candidates)
    raise FileNotFoundError(
        f"the example data file {EXAMPLE_FILE} was not found; looked in:\n  {looked}\n"
        "Regenerate it (needs scikit-learn, about 20 minutes on one core) with\n"
        "  python -m benchverdict.examples.jordan2018 --out DIR\n"
        f"and set {EXAMPLE_ENV}=DIR."
    )


def load_example_frame() -> pd.DataFrame:
    """Return the example trials as a plain DataFrame, with every column.

    Besides the roles, it holds ``converged`` (no ConvergenceWarning during
    the fit), the data-set sizes and the sampled hyperparameters
    (``hp_<name>``, empty where an algorithm lacks that hyperparameter).
    ``data/README.md`` documents every column.

    Examples
    --------
    >>> frame = load_example_frame()
    >>> list(frame.columns[:5])
    ['benchmark', 'algorithm', 'seed', 'trial', 'accuracy']
    """
    return pd.read_csv(example_path())


def load_example() -> Results:
    """Load the built-in example benchmark as a :class:`~benchverdict.Results`.

    Roles: ``algorithm``; ``benchmark`` (the data set); ``seed`` (the
    replicate: data sample, split and hyperparameter draws); ``budget`` =
    ``trial``, the random-search trial order 1..B; ``score`` = test
    ``accuracy`` with ``objective="maximize"``; ``kind="trials"`` (every row
    is an independent draw). Metafeatures: ``n_samples``, ``n_features`` and
    ``n_classes`` of the data set. Use :func:`load_example_frame` for the
    hyperparameters and convergence flags.

    Returns
    -------
    Results

    Examples
    --------
    >>> res = load_example()
    >>> res
    Results(20000 rows, kind='trials', objective='maximize': 5 algorithms x 20 benchmarks x 10 seeds, 20 budgets; 0 rows excluded)
    >>> res.metafeatures
    ('n_samples', 'n_features', 'n_classes')
    """  # noqa: E501
    return Results.from_frame(
        load_example_frame(),
        algorithm="algorithm",
        benchmark="benchmark",
        seed="seed",
        budget="trial",
        score="accuracy",
        objective="maximize",
        kind="trials",
        metafeatures=EXAMPLE_METAFEATURES,
    )
