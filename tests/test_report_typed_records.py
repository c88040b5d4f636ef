"""The report's summaries read typed records, not text split back into structure (issue 21)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from benchverdict import Results
from benchverdict.report import compare
from benchverdict.report.summary import scope_summaries


def test_an_algorithm_named_with_a_comma_stays_one_algorithm_in_the_groups():
    rng = np.random.default_rng(0)
    rows = []
    for b in range(10):
        offset = rng.normal(0, 1)
        for alg, gap in (("SVM, rbf", 0.0), ("LR", 0.0), ("MLP", 3.0)):
            rows += [(alg, f"d{b}", s, 1, offset + gap + rng.normal(0, 0.3)) for s in range(3)]
    frame = pd.DataFrame(rows, columns=["alg", "bench", "seed", "budget", "score"])
    res = Results.from_frame(frame, algorithm="alg", benchmark="bench", seed="seed",
                             budget="budget", score="score", objective="maximize")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = compare(res, analyses=["ranks"], progress=False, figures=False)
    rec = comp.reconciliation
    overall = scope_summaries(rec, list(res.algorithms))[0]
    names = {a for group in overall.groups for a in group}
    assert "SVM, rbf" in names and not {"SVM", "rbf"} & names
    assert names <= set(res.algorithms)
    # The typed scope records are what the tables are built from.
    assert set(rec.scopes) == set(rec.relations["scope"])
