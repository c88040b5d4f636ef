"""Regenerate the built-in example benchmark in data/ (needs scikit-learn).

Usage, from the repository root::

    python analyses/make_example_data.py            # writes data/jordan2018.csv.gz
    python analyses/make_example_data.py --n-jobs 2

Every option of ``python -m benchverdict.examples.jordan2018`` is accepted; the
default output folder is this repository's data/. The generator itself, with
the algorithms, their hyperparameter ranges and the data sets, lives in
src/benchverdict/examples/jordan2018.py; data/README.md says how the committed
file was made and what each column means.
"""

from __future__ import annotations

import sys
from pathlib import Path

from benchverdict.examples.jordan2018 import main

DATA = Path(__file__).resolve().parents[1] / "data"

if __name__ == "__main__":
    argv = sys.argv[1:]
    if "--out" not in argv:
        argv = ["--out", str(DATA), *argv]
    sys.exit(main(argv))
