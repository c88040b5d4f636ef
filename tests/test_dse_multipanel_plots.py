"""How the multi-panel results of tuning/ and dse/ meet the one result protocol (issue 14).

The protocol itself is checked for every result type by
``tests/test_result_protocol.py``; this file checks what only multi-panel
results need: the first Axes is returned, and one panel is drawn into a
given Axes (never every panel over each other).

"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from benchverdict.results import Results


def _trials() -> Results:
    rng = np.random.default_rng(0)
    rows = [(alg, task, s, float(np.clip(rng.normal(0.5 + shift, 0.15), 0.0, 1.0)))
            for task in ("p", "q") for alg, shift in (("A", 0.15), ("B", 0.0)) for s in range(40)]
    frame = pd.DataFrame(rows, columns=["alg", "task", "seed", "acc"])
    return Results.from_frame(frame, algorithm="alg", benchmark="task", seed="seed",
                              score="acc", objective="maximize", kind="trials")


def test_plots_of_several_panels_return_their_first_axes():
    from benchverdict import dse

    d = dse.distribution(_trials(), low=0, high=1, n_resamples=200, n_permutations=99)
    ax = d.plot(kind="quantile")  # two benchmarks: two panels
    assert isinstance(ax, plt.Axes) and ax is ax.figure.axes[0]
    assert len([a for a in ax.figure.axes if a.get_visible()]) == 2
    plt.close(ax.figure)
    agg = dse.aggregate(_trials(), n_resamples=200, metrics=["iqm", "mean"])
    ax = agg.plot()
    assert isinstance(ax, plt.Axes) and len(ax.figure.axes) == 2
    plt.close(ax.figure)
    # one given axes: one panel (the headline metric, or the one asked for), never overdrawn
    fig, given = plt.subplots()
    assert agg.plot(ax=given) is given and given.get_title() == "IQM"
    assert len(given.patches) == 2
    plt.close(fig)
    fig, given = plt.subplots()
    assert agg.plot(ax=given, metric="mean").get_title() == "mean"
    with pytest.raises(ValueError, match="not computed"):
        agg.plot(metric="median")
    plt.close(fig)
    fig, given = plt.subplots()
    with pytest.raises(ValueError, match="benchmark="):
        d.plot(ax=given)
    assert len(d.plot(ax=given, benchmark="q").get_lines()) == 2
    plt.close(fig)
