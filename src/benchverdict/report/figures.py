"""The report's own figures: the verdict grid and the method-agreement heat map.

Names are drawn as text (the shared theme turns mathtext off), with control
characters made visible by :func:`benchverdict._plain_text.printable`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

from benchverdict._plain_text import printable
from benchverdict.plotting import new_axes, shorten, theme
from benchverdict.report.reconcile import Reconciliation, group_label

#: Grid colours (Okabe-Ito): first algorithm better, second better, tie, no decision.
OUTCOME_COLOURS = {"a": "#0072B2", "b": "#E69F00", "tie": "#009E73", "inconclusive": "#D9D9D9"}
#: At most this many pair rows are drawn in the verdict grid.
MAX_GRID_ROWS = 40


def _text(value: object) -> str | None:
    """``None`` for a missing value (pandas may store it as NaN), else the string."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    return str(value)


def outcome_grid(reconciliation: Reconciliation, ax: plt.Axes | None = None) -> plt.Axes:
    """Draw each method's (representative) verdict on each pair as a coloured grid.

    Rows are pairs "A vs B" (with their scope when it is not all benchmarks);
    columns are methods. Each cell names the winner; blue: the row's first
    algorithm is better, orange: the second, green: a tie, grey: no decision.
    When verdicts over all benchmarks exist, only those are drawn.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from benchverdict.report.reconcile import reconcile
    >>> from benchverdict.verdict import Evidence, Scope, Verdict
    >>> v = Verdict("A", "B", "a", "ranks.nemenyi", Scope(), Evidence("p_value", 0.01, 0.05),
    ...             "maximize", "x")
    >>> outcome_grid(reconcile([v])).get_xticklabels()[0].get_text()
    'ranks.nemenyi'
    """
    reps = reconciliation.representatives
    pooled = reps[reps["benchmark"].isna() & reps["metafeature"].isna()]
    if len(pooled):
        reps = pooled
    keys = list(dict.fromkeys(
        (r.a, r.b, _text(r.benchmark), _text(r.metafeature))
        for r in reps.itertuples(index=False)
    ))
    truncated = len(keys) > MAX_GRID_ROWS
    keys = keys[:MAX_GRID_ROWS]
    methods = sorted(reps["method"].unique())
    codes = {"a": 0, "b": 1, "tie": 2, "inconclusive": 3}
    grid = np.full((len(keys), len(methods)), np.nan)
    labels = [["" for _ in methods] for _ in keys]
    index = {k: i for i, k in enumerate(keys)}
    for r in reps.itertuples(index=False):
        i = index.get((r.a, r.b, _text(r.benchmark), _text(r.metafeature)))
        if i is None:
            continue
        j = methods.index(r.method)
        grid[i, j] = codes[r.outcome]
        winner = _text(r.winner)
        labels[i][j] = shorten(winner, 12) if winner else (
            "tie" if r.outcome == "tie" else "–")
    height = max(1.6, 0.32 * len(keys) + 1.2)
    width = max(3.5, 1.1 * len(methods) + 2.5)
    ax = new_axes(ax, width=width, height=height)
    with theme():
        cmap = ListedColormap([OUTCOME_COLOURS[k] for k in codes])
        ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=-0.5, vmax=3.5, aspect="auto")
        for i in range(len(keys)):
            for j in range(len(methods)):
                if labels[i][j]:
                    colour = "white" if grid[i, j] in (0.0, 2.0) else "black"
                    ax.text(j, i, printable(labels[i][j]), ha="center", va="center",
                            fontsize=8, color=colour)
        ax.set_xticks(range(len(methods)))
        ax.set_xticklabels([printable(m) for m in methods], rotation=30, ha="right")
        ax.set_yticks(range(len(keys)))
        row_labels = []
        for a, b, bench, meta in keys:
            label = f"{shorten(a, 18)} vs {shorten(b, 18)}"
            if bench is not None or meta is not None:
                scope = group_label((bench, tuple(
                    tuple(p.split("=", 1)) for p in (meta.split(";") if meta else []))))
                label += f" ({shorten(scope, 24)})"
            row_labels.append(printable(label))
        ax.set_yticklabels(row_labels)
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        title = "Verdicts by method"
        if truncated:
            title += f" (first {MAX_GRID_ROWS} rows)"
        ax.set_title(title)
    return ax


def agreement_heatmap(reconciliation: Reconciliation, ax: plt.Axes | None = None) -> plt.Axes:
    """Draw the method x method agreement matrix as a heat map (blank: never compared).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from benchverdict.report.reconcile import reconcile
    >>> from benchverdict.verdict import Evidence, Scope, Verdict
    >>> ev = Evidence("p_value", 0.01, 0.05)
    >>> vs = [Verdict("A", "B", o, m, Scope(), ev, "maximize", "x")
    ...       for o, m in [("a", "ranks.nemenyi"), ("b", "lmem.tukey")]]
    >>> agreement_heatmap(reconcile(vs)).get_title()
    'Agreement between methods'
    """
    import seaborn as sns

    matrix = reconciliation.method_agreement
    n = max(matrix.shape[0], 1)
    ax = new_axes(ax, width=max(3.5, 0.9 * n + 2.0), height=max(2.6, 0.7 * n + 1.5))
    with theme():
        labels = [printable(shorten(m, 24)) for m in matrix.index]
        sns.heatmap(
            matrix.astype(float), ax=ax, vmin=0.0, vmax=1.0, cmap="viridis", annot=True,
            fmt=".2f", square=True, cbar_kws={"label": "agreement", "shrink": 0.8},
            xticklabels=labels, yticklabels=labels, annot_kws={"fontsize": 8},
        )
        ax.set_xlabel("")
        ax.set_ylabel("")
        ax.tick_params(axis="x", rotation=30)
        for label in ax.get_xticklabels():
            label.set_ha("right")
        ax.set_title("Agreement between methods")
    return ax
