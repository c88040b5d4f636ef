"""Names are text in every figure of the analysis modules (no mathtext, no abort on "$").

Before the fix a name like ``a$\\frac{$b`` was parsed as mathtext and the drawing aborted
with a ParseSyntaxException; ``$x$`` silently rendered as an italic x.
"""

from __future__ import annotations

import io

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from benchverdict import dse, ranks, tuning
from benchverdict.results import Results

NAMES = [r"a$\frac{$b", "$5 model", "x$y$z"]


def _literal(drawn) -> None:
    fig = drawn if isinstance(drawn, Figure) else drawn.figure
    fig.savefig(io.BytesIO(), format="svg")  # would raise on unparsable mathtext
    # (numeric tick labels made while saving keep the default; names never reach them)
    texts = [t for t in fig.findobj(Text) if "$" in t.get_text()]
    assert texts and all(not t.get_parse_math() for t in texts)
    shown = " ".join(t.get_text() for t in texts)
    assert any(name in shown for name in NAMES)
    plt.close(fig)


def _trials() -> Results:
    rng = np.random.default_rng(0)
    rows = [(alg, bench, s, float(rng.uniform(0.1 * i, 0.6 + 0.1 * i)))
            for bench in ("p$q$", "r") for i, alg in enumerate(NAMES) for s in range(30)]
    frame = pd.DataFrame(rows, columns=["alg", "task", "seed", "acc"])
    return Results.from_frame(frame, algorithm="alg", benchmark="task", seed="seed",
                              score="acc", objective="maximize", kind="trials")


def _runs() -> Results:
    rng = np.random.default_rng(1)
    rows = [(alg, f"t{t}$", s, b, float(rng.normal(i) - 0.01 * b))
            for t in range(6) for i, alg in enumerate(NAMES) for s in range(3) for b in (1, 2)]
    frame = pd.DataFrame(rows, columns=["alg", "task", "seed", "budget", "score"])
    return Results.from_frame(frame, algorithm="alg", benchmark="task", seed="seed",
                              budget="budget", score="score", objective="maximize", kind="runs")


@pytest.mark.parametrize("what", ["curves", "curve_cdf", "comparison"])
def test_tuning_figures(what):
    curves = tuning.from_results(_trials(), band="ks", low=0, high=1.5)
    if what == "curves":
        _literal(curves.plot())
    elif what == "curve_cdf":
        _literal(curves[(NAMES[0], "r")].plot(cdf=True, label=NAMES[0]))
    else:
        _literal(curves.comparisons()[0].plot())


@pytest.mark.parametrize("kind", ["cdf", "quantile"])
def test_dse_figures(kind):
    _literal(dse.distribution(_trials(), n_resamples=200).plot(kind=kind))


def test_dse_aggregate_figure():
    _literal(dse.aggregate(_trials(), n_resamples=200).plot())


@pytest.mark.parametrize("what", ["friedman", "win_tie_loss", "anytime"])
def test_rank_figures(what):
    res = _runs()
    drawn = {"friedman": lambda: ranks.friedman(res, n_resamples=0).plot(),
             "win_tie_loss": lambda: ranks.win_tie_loss(res).plot(),
             "anytime": lambda: ranks.anytime_ranks(res, n_resamples=20).plot()}[what]()
    _literal(drawn)
