"""The report's own figures: the verdict grid and the method-agreement heat map.

Names are drawn as text (the shared theme turns mathtext off), with control
characters made visible by :func:`benchverdict._plain_text.printable`.
"""

from __future__ import annotations

import math
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap

from benchverdict._plain_text import printable
from benchverdict.analysis import ReportFigure
from benchverdict.effects.matrix_figure import PairwiseMatrix, pairwise_matrix
from benchverdict.plotting import REPORT_MAX_WIDTH, new_axes, shorten, theme
from benchverdict.report.reconcile import Reconciliation, group_label
from benchverdict.report.summary import headline_summary, scope_summaries

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
    width = min(REPORT_MAX_WIDTH, max(3.5, 1.1 * len(methods) + 2.5))
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
    # cells shrink before the figure outgrows the report's width (its text would shrink)
    cell = min(0.9, (REPORT_MAX_WIDTH - 2.0) / n)
    ax = new_axes(ax, width=max(3.5, cell * n + 2.0), height=max(2.6, 0.78 * cell * n + 1.5))
    with theme():
        labels = [printable(shorten(m, 24)) for m in matrix.index]
        sns.heatmap(
            matrix.astype(float), ax=ax, vmin=0.0, vmax=1.0, cmap="viridis",
            annot=cell >= 0.5,  # too small cells for 8 pt numbers: colours (the table has them)
            fmt=".2f", square=True, cbar_kws={"label": "agreement", "shrink": 0.8},
            xticklabels=labels, yticklabels=labels,
            annot_kws={"fontsize": 8},
        )
        ax.set_xlabel("")
        ax.set_ylabel("")
        ax.tick_params(axis="x", rotation=30)
        for label in ax.get_xticklabels():
            label.set_ha("right")
        ax.set_title("Agreement between methods")
    return ax


# ----------------------------------------------------------------------------- partial ranking
#: A layer of the ranking diagram wraps onto a new row beyond this many algorithms.
MAX_PER_ROW = 7
#: Above this many algorithms no ranking diagram is drawn (the relations table has them).
MAX_DIAGRAM_ALGORITHMS = 30
#: Above this many scopes the per-scope diagram shows the first ones only.
MAX_DIAGRAM_PANELS = 24
#: Diagram colours (Okabe-Ito): settled edge, implied edge, contradiction, group band.
DIAGRAM_COLOURS = {"settled": "#0072B2", "implied": "#7f7f7f", "contradicted": "#CC79A7",
                   "equivalent": "#009E73", "group": "#e4ecf2"}


def _layout(summary) -> tuple[dict[str, tuple[float, float]], list[list[str]], int]:
    """Node positions of a Hasse diagram: best layer on top, each layer centred.

    Returns positions, the rows (lists of algorithms, top first) and the widest row.
    """
    levels = summary.levels()
    rows: list[list[str]] = []
    for level in sorted(set(levels.values())):
        layer = [a for a in summary.order if levels[a] == level]
        rows += [layer[i:i + MAX_PER_ROW] for i in range(0, len(layer), MAX_PER_ROW)]
    widest = max((len(r) for r in rows), default=1)
    pos = {}
    for i, row in enumerate(rows):
        for j, name in enumerate(row):
            pos[name] = (j - (len(row) - 1) / 2.0, -float(i))
    return pos, rows, widest


def ranking_diagram(summary, ax: plt.Axes | None = None, *, title: str | None = None
                    ) -> plt.Axes:
    """Draw one scope's partial ranking as a Hasse diagram (best on top).

    A line joins two algorithms when the upper one beats the lower one and
    no third algorithm lies between them: solid blue when settled directly
    (family-wise error controlled), dashed grey when implied by transitivity.
    Algorithms with no chain of lines between them are not separated; a
    grey band marks a row of algorithms that are mutually unsettled. A
    dotted purple line marks a contradicted pair.

    Parameters
    ----------
    summary : benchverdict.report.summary.ScopeSummary
    ax : matplotlib Axes, optional
    title : str, optional
        Defaults to the scope.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from benchverdict.report.reconcile import reconcile
    >>> from benchverdict.report.summary import scope_summaries
    >>> from benchverdict.verdict import Evidence, Scope, Verdict
    >>> v = Verdict("A", "B", "a", "lmem.tukey", Scope(), Evidence("p_value", 1e-6, 0.05),
    ...             "maximize", "x", n=60)
    >>> ax = ranking_diagram(scope_summaries(reconcile([v]), ["A", "B"])[0])
    >>> sorted(t.get_text() for t in ax.texts)
    ['A', 'B']
    """
    pos, rows, widest = _layout(summary)
    width = max(2.6, 1.25 * widest + 0.6)
    height = max(1.5, 0.75 * len(rows) + 0.7)
    ax = new_axes(ax, width=width, height=height)
    with theme():
        # Bands behind rows whose algorithms are all mutually unsettled.
        open_pairs = {(c.kind, x, y) for (x, y), c in summary.cells.items()}
        separated = {(x, y) for kind, x, y in open_pairs
                     if kind not in ("unsettled", "power gap", "equivalent")}
        for row in rows:
            if len(row) >= 2 and not any((x, y) in separated for x in row for y in row):
                x0, y0 = pos[row[0]]
                x1, _ = pos[row[-1]]
                ax.add_patch(plt.Rectangle((x0 - 0.48, y0 - 0.3), x1 - x0 + 0.96, 0.6,
                                           facecolor=DIAGRAM_COLOURS["group"], edgecolor="none",
                                           zorder=0))
        for w, lo, direct in summary.cover_edges():
            (xw, yw), (xl, yl) = pos[w], pos[lo]
            ax.plot([xw, xl], [yw, yl], zorder=1, linewidth=1.6 if direct else 1.1,
                    linestyle="-" if direct else (0, (4, 3)),
                    color=DIAGRAM_COLOURS["settled" if direct else "implied"])
        for (x, y), cell in summary.cells.items():
            if cell.kind == "equivalent" and summary.order.index(x) < summary.order.index(y):
                # Practically equivalent: a double green line (two parallel strokes).
                (x0, y0), (x1, y1) = pos[x], pos[y]
                for shift in (-0.045, 0.045):
                    ax.plot([x0, x1], [y0 + shift, y1 + shift], zorder=1, linewidth=1.2,
                            color=DIAGRAM_COLOURS["equivalent"])
            if cell.kind == "contradicted" and summary.order.index(x) < summary.order.index(y):
                (x0, y0), (x1, y1) = pos[x], pos[y]
                ax.plot([x0, x1], [y0, y1], zorder=1, linewidth=1.4, linestyle=":",
                        color=DIAGRAM_COLOURS["contradicted"])
        for name, (x, y) in pos.items():
            ax.text(x, y, printable(shorten(name, 16)), ha="center", va="center", zorder=3,
                    fontsize=10, bbox={"boxstyle": "round,pad=0.35", "facecolor": "white",
                                       "edgecolor": "#1d1d1f", "linewidth": 1.0})
        ax.set_xlim(-(widest - 1) / 2.0 - 0.6, (widest - 1) / 2.0 + 0.6)
        ax.set_ylim(-(len(rows) - 1) - 0.5, 0.5)
        ax.set_axis_off()
        # No ticks either: an axis that is off draws none, but matplotlib still places
        # and measures them at every layout and title placement (most of the time of
        # drawing a grid of 20 diagrams).
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(printable(title if title is not None else summary.scope), fontsize=10)
    return ax


def ranking_panels(summaries, *, columns: int = 3) -> plt.Figure:
    """One small Hasse diagram per scope (see :func:`ranking_diagram`), in a grid.

    Examples
    --------
    >>> from benchverdict.report.reconcile import reconcile
    >>> from benchverdict.report.summary import scope_summaries
    >>> from benchverdict.verdict import Evidence, Scope, Verdict
    >>> vs = [Verdict("A", "B", "a", "lmem.tukey", Scope(b), Evidence("p_value", 1e-6, 0.05),
    ...               "maximize", "x", n=60) for b in ("t1", "t2")]
    >>> fig = ranking_panels(scope_summaries(reconcile(vs), ["A", "B"]))
    >>> [ax.get_title() for ax in fig.axes]
    ['t1', 't2']
    """
    shown = list(summaries)[:MAX_DIAGRAM_PANELS]
    layouts = [_layout(s) for s in shown]
    widest = max((w for _, _, w in layouts), default=1)
    deepest = max((len(r) for _, r, _ in layouts), default=1)
    # a node per name, as wide as the longest (shortened) name at 10 pt, boxed
    longest = max((len(shorten(a, 16)) for _, rows, _ in layouts for row in rows for a in row),
                  default=4)
    spacing = max(0.8, 0.55 * longest * 10 / 72 + 0.3)
    panel_w = max(2.2, spacing * widest + 0.3)
    panel_h = max(1.2, 0.55 * deepest + 0.55)
    # no wider than the report shows at full size: wider, its text would shrink below 9 pt
    fit = max(1, int(REPORT_MAX_WIDTH // panel_w))
    columns = max(1, min(columns, len(shown), fit))
    n_rows = math.ceil(len(shown) / columns) if shown else 1
    with theme():
        fig, axes = plt.subplots(n_rows, columns, figsize=(panel_w * columns, panel_h * n_rows),
                                 squeeze=False)
    for ax, s in zip(axes.flat, shown):
        ranking_diagram(s, ax=ax, title=s.short_label)
    for ax in list(axes.flat)[len(shown):]:
        fig.delaxes(ax)
    return fig


def report_figures(comparison) -> list:
    """The report's own figures: partial rankings (headline scope, every scope), agreement.

    The ranking of the headline scope, one small diagram per other scope,
    and the method-agreement heat map.

    Returns a list of :class:`~benchverdict.report.runner.ReportFigure`.
    """
    from benchverdict.report.summary import headline_summary, scope_summaries

    rec = comparison.reconciliation
    summaries = scope_summaries(rec, comparison.algorithms)
    head = headline_summary(summaries)
    out = []
    caption = ("Best on top. A line joins two algorithms when the upper one is better and no "
               "third lies between them: solid blue when settled directly (family-wise error "
               "controlled over the scope type), dashed grey when implied by transitivity. "
               "Algorithms not joined by a downward chain of lines are not separated; a grey "
               "band marks a row of mutually unsettled algorithms; a double green line two "
               "practically equivalent algorithms (difference within the margin); a dotted "
               "purple line a contradiction.")
    too_many = len(comparison.algorithms) > MAX_DIAGRAM_ALGORITHMS
    if head is not None and not too_many:
        ax = ranking_diagram(head, title=f"Partial ranking, {head.scope}")
        out.append(ReportFigure("report-ranking", f"Partial ranking on {head.scope}",
                                ax.figure, caption))
    others = [s for s in summaries if s is not head]
    if others and not too_many:
        fig = ranking_panels(others)
        more = (f" The first {MAX_DIAGRAM_PANELS} of {len(others)} scopes are drawn; "
                f"relations.csv has every one." if len(others) > MAX_DIAGRAM_PANELS else "")
        out.append(ReportFigure("report-ranking-scopes", "Partial ranking per scope", fig,
                                caption + more))
    if rec.method_agreement.shape[0] >= 2:
        ax = agreement_heatmap(rec)
        out.append(ReportFigure(
            "report-agreement", "How often the methods agree", ax.figure,
            "Mean agreement credit over the pairs and scopes both methods judged: 1 same "
            "outcome, 0.5 one decides and the other does not, 0 opposite winners. Blank: "
            "the methods never judged the same pair and scope."))
    for f in out:
        plt.close(f.figure)  # kept for rendering, released from pyplot's registry
    return out


def comparison_matrix(comparison: Any, scope: str | None = None) -> PairwiseMatrix:
    """The matrix of one scope of a report: its effects and the relations it settled.

    Parameters
    ----------
    comparison : benchverdict.report.Comparison
    scope : str, optional
        The scope's label (e.g. ``"all benchmarks"``, ``"benchmark moons"``);
        default the report's headline scope.

    Returns
    -------
    PairwiseMatrix
        Ordered as the report orders the scope.

    Examples
    --------
    >>> from benchverdict.report import compare
    >>> from benchverdict.results import _example_small
    >>> comp = compare(_example_small(), analyses=["ranks"], progress=False, figures=False)
    >>> comparison_matrix(comp).order
    ['a', 'b']
    """
    rec = comparison.reconciliation
    summaries = scope_summaries(rec, comparison.algorithms)
    if scope is None:
        chosen = headline_summary(summaries)
        if chosen is None:
            raise ValueError(f"the report has no headline scope; name one of "
                             f"{[s.scope for s in summaries]}.")
    else:
        found = [s for s in summaries if s.scope == scope]
        if not found:
            raise ValueError(f"no scope {scope!r}; the report's scopes are "
                             f"{[s.scope for s in summaries]}.")
        chosen = found[0]
    effects = rec.scopes[chosen.scope].effects
    if effects is None:
        raise ValueError(f"the report computed no effect sizes for {chosen.scope!r} (no "
                         f"incumbents at the budget compared).")
    relations = {pair: cell.kind for pair, cell in chosen.cells.items()}
    out = pairwise_matrix(effects, relations, order=[a for a in chosen.order
                                                     if a in {e.a for e in effects.effects}
                                                     | {e.b for e in effects.effects}])
    return PairwiseMatrix(out.table, out.order, out.unit, out.confidence,
                          f"settled by the report ({chosen.scope})")
