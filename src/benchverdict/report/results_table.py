"""The results table a benchmark paper prints, decided by the report's relations.

Algorithms x benchmarks (or the transpose): one cell statistic per
algorithm and benchmark at a budget, the best per benchmark in bold, markers
where a difference is significant, compact letters on request, an
average-rank row and a line on what is settled across benchmarks.

Nothing in the table is decided by a test of its own. The bold cells, the
markers and the letters read the comparison's per-benchmark relations
(:attr:`Comparison.reconciliation.scopes <benchverdict.report.Reconciliation>`):
one vote per family of evidence, Holm over every pair of every benchmark
(the "per benchmark" scope type), settled or implied by a chain of settled
relations (:mod:`benchverdict.report.relations`). So:

* **bold**: no other algorithm is settled (or implied) better on the
  benchmark. Algorithms no family separates are bold together; on a
  benchmark where nothing is settled every algorithm is bold;
* **dagger** (``†``): every bold algorithm of the benchmark is settled (or
  implied) better than this one: significantly worse than the best;
* with a ``baseline``, instead: ``+`` / ``-`` where the algorithm is settled
  (or implied) better / worse than the baseline;
* **letters**: two algorithms share a letter iff neither is settled (or
  implied) better than the other
  (:func:`~benchverdict.critical_difference.compact_letter_display`);
* the **average rank** row ranks the cells' centres per benchmark (1 =
  best, ties averaged) and is bold and marked by the relations across all
  benchmarks, whose settled pairs the legend states.

The numbers are the incumbents the report's families compare: every run's
incumbent at the final budget (or ``budget``), summarised per algorithm and
benchmark over the runs (seeds). Precision and scale follow
:mod:`benchverdict.report.numbers`.

The table lives in the report package so that the report can show it (its
"Results table" section: :func:`build_results_table`); the public entry
points are :func:`benchverdict.paper.results_table` and ``benchverdict
table``, which also compute the comparison when none is given.
"""

from __future__ import annotations

import html as html_lib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from benchverdict._plain_text import printable
from benchverdict.report.numbers import decimals_for, fixed, scale_exponent
from benchverdict.stats.round_off import snap_round_off

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from benchverdict.results import Results

class Compared(Protocol):
    """What the table reads of a comparison: a :class:`benchverdict.report.Comparison`.

    A structural type, so that this module need not import the runner (the
    report document, which the runner builds, shows the table).
    """

    reconciliation: Any
    options: Any
    objective: str
    algorithms: Sequence[str]
    benchmarks: Sequence[str]


__all__ = [
    "CELL_COLUMNS",
    "MAX_REPORT_COLUMNS",
    "MAX_REPORT_ROWS",
    "ORIENTATIONS",
    "STATISTICS",
    "SUMMARY_COLUMNS",
    "Compared",
    "ResultsTable",
    "build_results_table",
    "check_options",
    "decide_cells",
    "relation_letters",
    "report_view",
]

#: The cell statistics: mean +- SD, median [first quartile, third quartile], mean [t CI].
STATISTICS = ("mean_sd", "median_iqr", "mean_ci")
#: What goes along the rows: benchmarks (algorithms as columns) or algorithms.
ORIENTATIONS = ("benchmarks", "algorithms")
#: Columns of :meth:`ResultsTable.to_frame`: one row per benchmark and algorithm.
CELL_COLUMNS = [
    "benchmark", "algorithm", "statistic", "n", "centre", "lower", "upper", "spread",
    "scale_exponent", "decimals", "text", "rank", "decided", "bold", "worse_than_best",
    "versus_baseline", "letters",
]
#: Columns of :attr:`ResultsTable.summary`: one row per algorithm.
SUMMARY_COLUMNS = ["algorithm", "average_rank", "n_benchmarks", "decided", "bold",
                   "worse_than_best", "versus_baseline"]

_STATISTIC_WORDS = {
    "mean_sd": "mean {pm} SD",
    "median_iqr": "median [first quartile, third quartile]",
    "mean_ci": "mean [{conf} t confidence interval]",
}


# ----------------------------------------------------------------------------- decisions
def decide_cells(algorithms: Sequence[str], better: Mapping[str, set[str] | frozenset[str]],
                 *, baseline: str | None = None) -> pd.DataFrame:
    """Bold, "worse than the best" and baseline markers from one scope's relations.

    Parameters
    ----------
    algorithms : sequence of str
        The algorithms compared in the scope.
    better : mapping of str to set of str
        Whom each algorithm beats, settled or implied (what
        :attr:`ScopeRelations.better <benchverdict.report.relations.ScopeRelations.better>`
        holds). Names outside ``algorithms`` are ignored.
    baseline : str, optional
        Mark each algorithm against this one instead of against the best.

    Returns
    -------
    pandas.DataFrame
        One row per algorithm: ``bold`` (no algorithm beats it),
        ``worse_than_best`` (every bold algorithm beats it) and
        ``versus_baseline`` (``"better"``, ``"worse"``, ``""`` when
        unsettled, ``"baseline"`` for the baseline itself, ``""`` without a
        baseline).

    Examples
    --------
    >>> better = {"A": {"C"}, "B": {"C"}, "C": set(), "D": set()}
    >>> decide_cells(["A", "B", "C", "D"], better)[["algorithm", "bold"]].values.tolist()
    [['A', True], ['B', True], ['C', False], ['D', True]]
    >>> decide_cells(["A", "B", "C"], {"A": {"B", "C"}, "B": {"C"}, "C": set()}, baseline="B")[
    ...     ["algorithm", "worse_than_best", "versus_baseline"]].values.tolist()
    [['A', False, 'better'], ['B', True, 'baseline'], ['C', True, 'worse']]
    """
    names = [str(a) for a in algorithms]
    if len(set(names)) != len(names):
        raise ValueError(f"algorithms must be distinct, got {names}.")
    if baseline is not None and baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not one of the algorithms {names}.")
    known = set(names)
    beats = {a: set(better.get(a, ())) & known - {a} for a in names}
    beaten_by = {a: {w for w in names if a in beats[w]} for a in names}
    bold = {a: not beaten_by[a] for a in names}
    best = [a for a in names if bold[a]]
    rows = []
    for a in names:
        worse = bool(best) and not bold[a] and all(a in beats[w] for w in best)
        versus = ""
        if baseline is not None:
            versus = ("baseline" if a == baseline else "better" if baseline in beats[a]
                      else "worse" if a in beats[baseline] else "")
        rows.append({"algorithm": a, "bold": bold[a], "worse_than_best": worse,
                     "versus_baseline": versus})
    return pd.DataFrame(rows, columns=["algorithm", "bold", "worse_than_best",
                                       "versus_baseline"])


def relation_letters(centres: pd.Series, better: Mapping[str, set[str] | frozenset[str]], *,
                     lower_is_better: bool) -> pd.Series:
    """Compact letters: two algorithms share a letter iff neither beats the other.

    ``centres`` (the cells' centres, indexed by algorithm) order the letters
    (``"a"`` goes with the best centre); which algorithms share a letter is
    decided by ``better`` alone (settled or implied relations), through
    :func:`~benchverdict.critical_difference.compact_letter_display`.

    Examples
    --------
    >>> c = pd.Series({"A": 0.9, "B": 0.8, "C": 0.3})
    >>> relation_letters(c, {"A": {"C"}, "B": set(), "C": set()},
    ...                  lower_is_better=False).to_dict()
    {'A': 'a', 'B': 'ab', 'C': 'b'}
    """
    from benchverdict.critical_difference import compact_letter_display

    names = [str(a) for a in centres.index]
    if not names:
        return pd.Series(dtype=object)
    nd = pd.DataFrame(True, index=names, columns=names)
    for a in names:
        for b in better.get(a, ()):
            if b in nd.index and b != a:
                nd.loc[a, b] = nd.loc[b, a] = False
    out = compact_letter_display(pd.Series(centres.to_numpy(float), index=names), nd,
                                 lower_is_better=lower_is_better)
    return out.reindex(names)


# ----------------------------------------------------------------------------- statistics
def _cell_statistics(frame: pd.DataFrame, statistic: str, confidence: float) -> pd.DataFrame:
    """Per (benchmark, algorithm): n, centre, lower, upper, spread of the scores."""
    from scipy import stats

    rows = []
    for (bench, alg), group in frame.groupby(["benchmark", "algorithm"], observed=True,
                                              sort=False):
        x = group["score"].to_numpy(float)
        x = x[np.isfinite(x)]
        n = len(x)
        if n == 0:
            continue
        if statistic == "median_iqr":
            centre = float(np.median(x))
            lower, upper = (float(q) for q in np.quantile(x, [0.25, 0.75]))
            spread = upper - lower if n > 1 else math.nan
        else:
            centre = float(np.mean(x))
            sd = float(np.std(x, ddof=1)) if n > 1 else math.nan
            if statistic == "mean_sd":
                lower, upper, spread = centre - sd, centre + sd, sd
            else:
                half = (float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
                        if n > 1 else math.nan)
                lower, upper, spread = centre - half, centre + half, half
        rows.append({"benchmark": str(bench), "algorithm": str(alg), "n": n, "centre": centre,
                     "lower": lower, "upper": upper, "spread": spread})
    return pd.DataFrame(rows, columns=["benchmark", "algorithm", "n", "centre", "lower",
                                       "upper", "spread"])


def _cell_text(statistic: str, centre: float, lower: float, upper: float, spread: float,
               scale: int, decimals: int) -> str:
    """The cell's numbers as plain text, in units of 10**scale."""
    from types import SimpleNamespace

    return _plain_numbers(_parts(statistic, SimpleNamespace(
        centre=centre, lower=lower, upper=upper, spread=spread, scale_exponent=scale,
        decimals=decimals)))


# ----------------------------------------------------------------------------- the result
#: Markers in plain text (Markdown and HTML put them in superscript).
_MARK_TEXT = {"worse": "†", "better": "+", "worse_baseline": "−"}
_MARK_LATEX = {"worse": r"\dag{}", "better": "+", "worse_baseline": "$-$"}


@dataclass(frozen=True)
class ResultsTable:
    """A paper's results table: cells, their decisions, the average ranks, the legend.

    Built by :func:`results_table`. ``to_latex``, ``to_markdown``,
    ``to_html`` and ``to_csv`` render it; :meth:`to_frame` is the tidy table.

    Attributes
    ----------
    cells : pandas.DataFrame
        One row per benchmark and algorithm (columns :data:`CELL_COLUMNS`):
        the statistic's centre, lower and upper values (SD band, quartiles
        or interval), ``spread`` (SD, IQR or half-width), the printed
        ``text`` (in units of ``10**scale_exponent``), the cell's ``rank`` on
        its benchmark, whether the benchmark's relations ``decided`` it,
        ``bold``, ``worse_than_best``, ``versus_baseline`` and ``letters``.
    summary : pandas.DataFrame
        One row per algorithm (columns :data:`SUMMARY_COLUMNS`): average
        rank over its benchmarks, and its bold / markers by the relations
        across benchmarks (``decided`` False without them).
    algorithms, benchmarks : tuple of str
    statistic : str
        One of :data:`STATISTICS`.
    objective : str
        ``"maximize"`` or ``"minimize"``.
    budget : float or None
        The budget compared (``None``: each run's final incumbent).
    alpha : float
        Family-wise error rate of the relations, per scope type.
    confidence : float
        Level of the cells' intervals (``statistic="mean_ci"``).
    baseline : str or None
    letters : bool
        Whether cells show compact letters.
    orientation : str
        What goes along the rows: ``"benchmarks"`` (algorithms as columns) or
        ``"algorithms"``.
    across : str
        What the relations across benchmarks settle, in a sentence (empty
        when the comparison has no such scope).
    undecided : tuple of str
        Benchmarks on which the comparison has no relations (no cell bold).
    not_compared : tuple of (str, str)
        (benchmark, algorithm) cells whose algorithm the benchmark's
        relations leave out (e.g. runs that stop before the final budget).
    trials : str
        For random-search draws without a trial order (no final budget): the
        trial counts the relations compare the tuning curves at (``"k = 22
        trials"``), which the caption and legend name; ``""`` otherwise.
    stopped_early : tuple of (str, float)
        Algorithms whose runs all stop before the final budget, with their
        last budget: the report compares the others at the final budget
        without them, and their cells hold their own final incumbents.
    """

    cells: pd.DataFrame
    summary: pd.DataFrame
    algorithms: tuple[str, ...]
    benchmarks: tuple[str, ...]
    statistic: str
    objective: str
    budget: float | None
    alpha: float
    confidence: float
    baseline: str | None = None
    letters: bool = False
    orientation: str = "benchmarks"
    across: str = ""
    undecided: tuple[str, ...] = ()
    not_compared: tuple[tuple[str, str], ...] = field(default=())
    stopped_early: tuple[tuple[str, float], ...] = field(default=())
    trials: str = ""

    # ------------------------------------------------------------------- tidy
    def to_frame(self) -> pd.DataFrame:
        """The tidy table: one row per benchmark and algorithm (columns :data:`CELL_COLUMNS`).

        Examples
        --------
        >>> from benchverdict.paper import results_table
        >>> from benchverdict.results import _example_small
        >>> t = results_table(_example_small(), analyses=["lmem"])
        >>> t.to_frame()[["benchmark", "algorithm", "text", "bold"]].values.tolist()
        ... # doctest: +NORMALIZE_WHITESPACE
        [['p', 'a', '0.550 ± 0.071', True], ['p', 'b', '0.350 ± 0.071', True],
         ['q', 'a', '0.850 ± 0.071', True], ['q', 'b', '0.750 ± 0.071', True]]
        """
        return self.cells.copy()

    def transposed(self) -> ResultsTable:
        """The same table with rows and columns swapped."""
        other = "algorithms" if self.orientation == "benchmarks" else "benchmarks"
        return _replace(self, orientation=other)

    def subset(self, *, benchmarks: Sequence[str] | None = None,
               algorithms: Sequence[str] | None = None) -> ResultsTable:
        """The same table showing only these benchmarks and algorithms (in the table's order).

        Nothing is decided again: a cell is bold or marked as in the whole
        table (among every algorithm), and the average ranks stay those over
        every benchmark. For a page that cannot show a large table whole
        (the report's "Results table" section, :func:`report_view`).

        Examples
        --------
        >>> from benchverdict.paper import results_table
        >>> from benchverdict.results import _example_small
        >>> t = results_table(_example_small(), analyses=["lmem"]).subset(benchmarks=["q"])
        >>> t.benchmarks, t.cells["benchmark"].unique().tolist()
        (('q',), ['q'])
        """
        keep_b = set(self.benchmarks if benchmarks is None else map(str, benchmarks))
        keep_a = set(self.algorithms if algorithms is None else map(str, algorithms))
        unknown = (keep_b - set(self.benchmarks)) | (keep_a - set(self.algorithms))
        if unknown:
            raise ValueError(f"not in the table: {sorted(unknown)}.")
        cells = self.cells[self.cells["benchmark"].isin(keep_b)
                           & self.cells["algorithm"].isin(keep_a)].reset_index(drop=True)
        return _replace(
            self, cells=cells,
            summary=self.summary[self.summary["algorithm"].isin(keep_a)].reset_index(drop=True),
            benchmarks=tuple(b for b in self.benchmarks if b in keep_b),
            algorithms=tuple(a for a in self.algorithms if a in keep_a),
            undecided=tuple(b for b in self.undecided if b in keep_b),
            not_compared=tuple((b, a) for b, a in self.not_compared
                               if b in keep_b and a in keep_a),
            stopped_early=tuple((a, x) for a, x in self.stopped_early if a in keep_a))

    # ------------------------------------------------------------------- legend
    def legend(self, *, marks: Mapping[str, str] | None = None, pm: str = "±",
               alpha_text: str | None = None) -> str:
        """The sentence that explains the cells, bold, markers, letters and ranks.

        ``marks`` are the markers as the format prints them (default: plain text).

        Examples
        --------
        >>> from benchverdict.paper import results_table
        >>> from benchverdict.results import _example_small
        >>> t = results_table(_example_small(), analyses=["lmem"])
        >>> print(t.legend().split(". ")[0])  # doctest: +NORMALIZE_WHITESPACE
        Cells: mean ± SD over the runs (seeds) of each algorithm on each benchmark, final
        incumbent of each run (higher is better)
        """
        marks = dict(_MARK_TEXT if marks is None else marks)
        alpha_text = alpha_text or f"{self.alpha:g}"
        words = _STATISTIC_WORDS[self.statistic].format(pm=pm, conf=f"{self.confidence:.0%}")
        when = ("final incumbent of each run" if self.budget is None
                else f"incumbent of each run at budget {self.budget:g}")
        direction = "higher" if self.objective == "maximize" else "lower"
        bold = ("Bold: no other algorithm is better on that benchmark by the comparison's "
                "relations (settled by a family of evidence, or implied by a chain of settled "
                f"relations; Holm family-wise error at most {alpha_text} over every pair of "
                "every benchmark); algorithms not separated are bold together")
        if self.trials:
            # The cells summarise single draws; the relations compare best-of-k curves.
            cells = (f"Cells: {words} over the random-search draws of each algorithm on each "
                     f"benchmark, without a trial order ({direction} is better)")
            bold += (f"; the relations compare the median tuning curves at {self.trials} "
                     f"(the median best score of that many draws), not the single draws the cells "
                     f"summarise")
        else:
            cells = (f"Cells: {words} over the runs (seeds) of each algorithm on each "
                     f"benchmark, {when} ({direction} is better)")
        parts = [cells, bold]
        if self.baseline is None:
            parts.append(f"{marks['worse']}: worse than every bold algorithm on that "
                         f"benchmark, by the same relations")
        else:
            parts.append(f"{marks['better']} / {marks['worse_baseline']}: better / worse than "
                         f"the baseline {self.baseline}, by the same relations")
        if self.letters:
            parts.append("Letters: two algorithms share a letter when neither is settled "
                         "better than the other on that benchmark")
        if any(self.cells["scale_exponent"] != 0):
            parts.append("A benchmark marked x 10^k shows its numbers in units of 10^k")
        if len(self.benchmarks) > 1:  # one benchmark: no average-rank row
            rank_line = ("Average rank: mean over benchmarks of each algorithm's rank by the "
                         "cells' centres (1 = best, ties averaged)")
            if self.across:
                rank_line += "; bold and markers by the relations across benchmarks"
            parts.append(rank_line)
            if self.across:
                parts.append(self.across)
        if self.undecided:
            parts.append(f"No relation is decided per benchmark on {_and(self.undecided)} "
                         f"(no analysis run tests pairs on it alone, or none could: the "
                         f"report's exclusions say why), so no cell of it is bold or marked")
        if self.not_compared:
            shown = [f"{a} on {b}" for b, a in self.not_compared[:6]]
            more = (f" and {len(self.not_compared) - 6} more"
                    if len(self.not_compared) > 6 else "")
            parts.append(f"Not compared by the relations (shown, never bold or marked): "
                         f"{', '.join(shown)}{more}")
        if self.stopped_early:
            parts.append("Runs that stop before the final budget (their cells are their own "
                         "final incumbents, left out of the comparison at the final budget): "
                         + ", ".join(f"{a} (last budget {b:g})" for a, b in self.stopped_early))
        return ". ".join(parts) + "."

    # ------------------------------------------------------------------- grid
    def _grid(self) -> tuple[list[str], list[list[dict]], list[list[dict]]]:
        """Header labels, body rows and footer rows of cell records (format-neutral).

        A record: ``{"kind": "label", "text", "scale"}`` or ``{"kind": "cell", ...}``
        with the numbers' text parts, bold, marks and letters.
        """
        cells = {(r.benchmark, r.algorithm): r for r in self.cells.itertuples(index=False)}
        summary = {r.algorithm: r for r in self.summary.itertuples(index=False)}
        scales = {b: (int(self.cells.loc[self.cells["benchmark"] == b,
                                           "scale_exponent"].iloc[0])
                      if (self.cells["benchmark"] == b).any() else 0)
                  for b in self.benchmarks}

        def cell(b: str, a: str) -> dict:
            r = cells.get((b, a))
            if r is None:
                return {"kind": "empty"}
            return {"kind": "cell", "parts": _parts(self.statistic, r), "bold": bool(r.bold),
                    "marks": self._marks(r.worse_than_best, r.versus_baseline),
                    "letters": r.letters if self.letters else ""}

        def rank(a: str) -> dict:
            s = summary.get(a)
            if s is None or not math.isfinite(s.average_rank):
                return {"kind": "empty"}
            return {"kind": "cell", "parts": (f"{s.average_rank:.2f}",), "bold": bool(s.bold),
                    "marks": self._marks(s.worse_than_best, s.versus_baseline), "letters": ""}

        ranked = len(self.benchmarks) > 1  # one benchmark: no average-rank row

        def alg_label(a: str) -> str:
            return a + (" (baseline)" if a == self.baseline else "")

        if self.orientation == "benchmarks":
            header = ["Benchmark", *(alg_label(a) for a in self.algorithms)]
            body = [[{"kind": "label", "text": b, "scale": scales[b]},
                     *(cell(b, a) for a in self.algorithms)] for b in self.benchmarks]
            footer = [[{"kind": "label", "text": "Average rank", "scale": 0},
                       *(rank(a) for a in self.algorithms)]]
            return header, body, footer if ranked else []
        header = ["Algorithm", *self.benchmarks, *(["Average rank"] if ranked else [])]
        body = [[{"kind": "label", "text": alg_label(a), "scale": 0},
                 *(cell(b, a) for b in self.benchmarks), *([rank(a)] if ranked else [])]
                for a in self.algorithms]
        return header, body, []

    def _marks(self, worse_than_best: bool, versus_baseline: str) -> tuple[str, ...]:
        """The markers a cell shows: against the baseline when there is one, else the dagger."""
        if self.baseline is not None:
            return _marks(False, versus_baseline)
        return _marks(worse_than_best, "")

    def _header_scales(self) -> dict[int, int]:
        """Column index -> scale exponent, for benchmark columns (transposed tables)."""
        if self.orientation == "benchmarks":
            return {}
        out = {}
        for i, b in enumerate(self.benchmarks, start=1):
            sub = self.cells.loc[self.cells["benchmark"] == b, "scale_exponent"]
            if len(sub) and int(sub.iloc[0]):
                out[i] = int(sub.iloc[0])
        return out

    def _repr_html_(self) -> str:
        """The HTML table, for notebooks."""
        return self.to_html()

    # ------------------------------------------------------------------- LaTeX
    def to_latex(self, path: str | Path | None = None, *, standalone: bool = False,
                 caption: str | None = None, label: str = "tab:results") -> str:
        r"""The table as LaTeX (booktabs): a ``table`` float, or a whole document.

        The fragment (``standalone=False``) can be ``\input`` into a document
        that loads ``booktabs``; the legend sentence follows the table.
        Names are escaped by :func:`benchverdict.report.latex.latex_escape`.

        Parameters
        ----------
        path : str or Path, optional
            Also write the text there (UTF-8).
        standalone : bool
            A complete ``article`` document (pdflatex, lualatex or xelatex).
        caption : str, optional
            Default: "Results" with the statistic and budget.
        label : str

        Examples
        --------
        >>> from benchverdict.paper import results_table
        >>> from benchverdict.results import _example_small
        >>> tex = results_table(_example_small(), analyses=["lmem"]).to_latex()
        >>> tex.splitlines()[3], r"\toprule" in tex
        ('\\begin{table}[htbp]', True)
        """
        from benchverdict._latex_text import BVU_FALLBACK, UNICODE_PREAMBLE, latex_escape

        header, body, footer = self._grid()
        scales = self._header_scales()
        n_cols = len(header)
        spec = "l" + "r" * (n_cols - 1)

        def head_cell(i: int, h: str) -> str:
            text = latex_escape(h)
            if i in scales:
                text += rf" ($\times 10^{{{scales[i]}}}$)"
            return text

        def render(c: dict) -> str:
            if c["kind"] == "label":
                text = latex_escape(c["text"])
                if c.get("scale"):
                    text += rf" ($\times 10^{{{c['scale']}}}$)"
                return text
            if c["kind"] == "empty":
                return "--"
            parts = c["parts"]
            if len(parts) == 1:
                math_text = parts[0]
            elif len(parts) == 2:
                math_text = rf"{parts[0]} \pm {parts[1]}"
            else:
                math_text = rf"{parts[0]}\ [{parts[1]}, {parts[2]}]"
            text = rf"${math_text}$"
            if c["bold"]:
                text = rf"{{\boldmath{text}}}"
            sup = "".join(_MARK_LATEX[m] for m in c["marks"]) + c["letters"]
            if sup:
                text += rf"\textsuperscript{{{sup}}}"
            return text

        def line(row: list[dict]) -> str:
            return " & ".join(render(c) for c in row) + r" \\"

        marks = {"worse": r"\textsuperscript{\dag}", "better": r"\textsuperscript{+}",
                 "worse_baseline": r"\textsuperscript{$-$}"}
        legend = _latex_legend(self, marks)
        caption_text = latex_escape(caption if caption is not None else self.caption)
        lines = [
            "% benchverdict results table: needs booktabs (\\usepackage{booktabs}).",
            BVU_FALLBACK,
            "% Cells in bold math: \\boldmath; markers and letters in superscript.",
            r"\begin{table}[htbp]", r"\centering", r"\small",
            rf"\caption{{{caption_text}}}\label{{{label}}}",
            "% The tabular is measured (box 0) so that the legend below is as wide as it.",
            r"\sbox0{%",
            rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
            " & ".join(head_cell(i, h) for i, h in enumerate(header)) + r" \\",
            r"\midrule",
            *(line(r) for r in body),
            *([r"\midrule", *(line(r) for r in footer)] if footer else []),
            r"\bottomrule", r"\end{tabular}}%",
            r"\usebox0",
            r"\par\smallskip",
            r"\ifdim\wd0<0.6\linewidth\setbox0\hbox to 0.6\linewidth{}\fi",
            rf"\parbox{{\wd0}}{{\footnotesize {legend}}}",
            r"\end{table}", ""]
        text = "\n".join(lines)
        if standalone:
            text = "\n".join([
                "% benchverdict results table. Compile with pdflatex, lualatex or xelatex.",
                r"\documentclass[10pt]{article}",
                r"\usepackage[margin=1.5cm,landscape]{geometry}",
                *UNICODE_PREAMBLE,
                r"\usepackage{booktabs}",
                r"\pagestyle{empty}",
                r"\begin{document}",
                text,
                r"\end{document}", ""])
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    @property
    def caption(self) -> str:
        """What the cells are, in a line: the LaTeX caption's default and the figure's title.

        Examples
        --------
        >>> from benchverdict.paper import results_table
        >>> from benchverdict.results import _example_small
        >>> results_table(_example_small(), analyses=["lmem"]).caption
        'Results (mean and SD over seeds, final budget).'
        """
        words = {"mean_sd": "mean and SD", "median_iqr": "median and quartiles",
                 "mean_ci": f"mean and {self.confidence:.0%} confidence interval"}
        if self.trials:
            return (f"Results ({words[self.statistic]} of single random-search draws; bold by "
                    f"the tuning curves at {self.trials}).")
        when = "final budget" if self.budget is None else f"budget {self.budget:g}"
        return f"Results ({words[self.statistic]} over seeds, {when})."

    # ------------------------------------------------------------------- Markdown
    def to_markdown(self, path: str | Path | None = None) -> str:
        """The table as a GitHub-flavoured Markdown pipe table, then the legend.

        Bold cells are ``**bold**``; markers and letters are ``<sup>``; names
        are escaped by :func:`benchverdict.report.markdown.md_escape`.

        Examples
        --------
        >>> from benchverdict.paper import results_table
        >>> from benchverdict.results import _example_small
        >>> md = results_table(_example_small(), analyses=["lmem"]).to_markdown()
        >>> md.splitlines()[0]
        '| Benchmark | a | b |'
        """
        from benchverdict.report.markdown import md_escape

        header, body, footer = self._grid()
        scales = self._header_scales()

        def render(c: dict) -> str:
            if c["kind"] == "label":
                return md_escape(c["text"]) + (f" (×10<sup>{c['scale']}</sup>)"
                                               if c.get("scale") else "")
            if c["kind"] == "empty":
                return "–"
            text = _plain_numbers(c["parts"])
            if c["bold"]:
                text = f"**{text}**"
            sup = "".join(_MARK_TEXT[m] for m in c["marks"]) + c["letters"]
            # Markers and letters are our own symbols and a-z: nothing to escape.
            return text + (f"<sup>{sup}</sup>" if sup else "")

        head = [md_escape(h) + (f" (×10<sup>{scales[i]}</sup>)" if i in scales else "")
                for i, h in enumerate(header)]
        lines = ["| " + " | ".join(head) + " |",
                 "|" + "|".join([":---", *["---:"] * (len(header) - 1)]) + "|"]
        lines += ["| " + " | ".join(render(c) for c in row) + " |" for row in body + footer]
        lines += ["", md_escape(self.legend()).replace("x 10^k", "×10<sup>k</sup>"), ""]
        text = "\n".join(lines)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    # ------------------------------------------------------------------- HTML
    def to_html(self, path: str | Path | None = None) -> str:
        """The table as an HTML ``<table class="bv-results-table">`` (names escaped).

        Bold cells have class ``bv-best`` and ``<strong>``; cells worse than the
        best ``bv-worse``; the average ranks are in ``<tfoot>``; the legend is
        the ``<caption>``.

        Examples
        --------
        >>> from benchverdict.paper import results_table
        >>> from benchverdict.results import _example_small
        >>> page = results_table(_example_small(), analyses=["lmem"]).to_html()
        >>> page.count("bv-best")  # two per benchmark; both ranks (2 benchmarks settle nothing)
        6
        """
        header, body, footer = self._grid()
        scales = self._header_scales()

        def esc(x: Any) -> str:
            return html_lib.escape(printable(str(x)))

        def render(c: dict, tag: str = "td") -> str:
            if c["kind"] == "label":
                scale = f" (×10<sup>{c['scale']}</sup>)" if c.get("scale") else ""
                return f'<th scope="row">{esc(c["text"])}{scale}</th>'
            if c["kind"] == "empty":
                return f'<{tag} class="bv-empty">–</{tag}>'
            classes = ["bv-cell"]
            text = esc(_plain_numbers(c["parts"]))
            if c["bold"]:
                classes.append("bv-best")
                text = f"<strong>{text}</strong>"
            if "worse" in c["marks"]:
                classes.append("bv-worse")
            sup = "".join(_MARK_TEXT[m] for m in c["marks"]) + c["letters"]
            if sup:
                text += f"<sup>{esc(sup)}</sup>"
            return f'<{tag} class="{" ".join(classes)}">{text}</{tag}>'

        head = "".join(
            f'<th scope="col">{esc(h)}'
            + (f" (×10<sup>{scales[i]}</sup>)" if i in scales else "") + "</th>"
            for i, h in enumerate(header))
        parts = ['<table class="bv-results-table">',
                 f'<caption>{esc(self.legend())}</caption>',
                 f"<thead><tr>{head}</tr></thead>", "<tbody>"]
        parts += ["<tr>" + "".join(render(c) for c in row) + "</tr>" for row in body]
        parts.append("</tbody>")
        if footer:
            parts += ["<tfoot>", *("<tr>" + "".join(render(c) for c in row) + "</tr>"
                                  for row in footer), "</tfoot>"]
        parts.append("</table>")
        text = "\n".join(parts) + "\n"
        text = text.replace("x 10^k", "×10<sup>k</sup>")
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    # ------------------------------------------------------------------- CSV
    def to_csv(self, path: str | Path) -> Path:
        """Write the tidy table (:meth:`to_frame`) as CSV, formula-like names neutralised.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from benchverdict.paper import results_table
        >>> from benchverdict.results import _example_small
        >>> with tempfile.TemporaryDirectory() as d:
        ...     p = results_table(_example_small(), analyses=["lmem"]).to_csv(
        ...         pathlib.Path(d) / "t.csv")
        ...     print(p.read_text().splitlines()[0][:40])
        benchmark,algorithm,statistic,n,centre,l
        """
        from benchverdict._safe_output import write_csv

        return write_csv(self.to_frame(), path)

    # ------------------------------------------------------------------- plot
    def plot(self, ax: Axes | None = None) -> Axes:
        """The table as a figure: cells shaded by their rank on the benchmark, text as printed.

        Darker is better (rank 1 darkest); bold cells in bold type; markers
        and letters after the numbers. The average ranks and the legend are
        in the text formats (:meth:`legend`). A single blue ramp of the project's
        palette (light enough for black text), readable under colour-vision
        deficiency.

        Examples
        --------
        >>> from benchverdict.paper import results_table
        >>> from benchverdict.results import _example_small
        >>> ax = results_table(_example_small(), analyses=["lmem"]).plot()
        >>> [t.get_text() for t in ax.get_xticklabels()]
        ['a', 'b']
        """
        import matplotlib.pyplot as plt
        from matplotlib.colors import LinearSegmentedColormap, to_rgb

        from benchverdict.plotting import ALGORITHM_PALETTE, new_axes, theme

        rows_are_benchmarks = self.orientation == "benchmarks"
        row_names = list(self.benchmarks if rows_are_benchmarks else self.algorithms)
        col_names = list(self.algorithms if rows_are_benchmarks else self.benchmarks)
        ranks = np.full((len(row_names), len(col_names)), np.nan)
        texts = [["–"] * len(col_names) for _ in row_names]
        bold = np.zeros(ranks.shape, bool)
        row_at = {name: i for i, name in enumerate(row_names)}
        col_at = {name: j for j, name in enumerate(col_names)}
        n_cells = self.cells["benchmark"].value_counts()
        for r in self.cells.itertuples(index=False):
            i = row_at[r.benchmark if rows_are_benchmarks else r.algorithm]
            j = col_at[r.algorithm if rows_are_benchmarks else r.benchmark]
            ranks[i, j] = (r.rank - 1) / max(int(n_cells[r.benchmark]) - 1, 1)
            sup = "".join(_MARK_TEXT[m] for m in self._marks(r.worse_than_best,
                                                               r.versus_baseline))
            texts[i][j] = r.text + sup + (f" {r.letters}" if self.letters and r.letters else "")
            bold[i, j] = bool(r.bold)
        base = np.array(to_rgb(ALGORITHM_PALETTE[0]))
        dark = 0.55 * np.ones(3) + 0.45 * base  # light enough for black text
        cmap = LinearSegmentedColormap.from_list("bv_rank", [tuple(dark), (1.0, 1.0, 1.0)])
        with theme():
            width = min(1.2 + 1.35 * len(col_names), 14.0)
            height = min(0.8 + 0.32 * len(row_names), 20.0)
            ax = new_axes(ax, width=width, height=height)
            ax.imshow(np.ma.masked_invalid(ranks), cmap=cmap, vmin=0, vmax=1, aspect="auto")
            for i in range(len(row_names)):
                for j in range(len(col_names)):
                    ax.text(j, i, texts[i][j], ha="center", va="center", fontsize=8,
                            fontweight="bold" if bold[i, j] else "normal")
            ax.set_xticks(range(len(col_names)), col_names)
            ax.set_yticks(range(len(row_names)), row_names)
            ax.xaxis.tick_top()
            ax.tick_params(length=0)
            for side in ax.spines.values():
                side.set_visible(False)
            ax.set_title(self.caption, fontsize=9, pad=18)
        plt.setp(ax.get_xticklabels(), rotation=30 if len(col_names) > 6 else 0, ha="left")
        return ax


# ----------------------------------------------------------------------------- helpers
def _replace(table: ResultsTable, **changes: Any) -> ResultsTable:
    from dataclasses import replace

    return replace(table, **changes)


def _and(items: Sequence[str]) -> str:
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _marks(worse_than_best: bool, versus_baseline: str) -> tuple[str, ...]:
    out = []
    if worse_than_best:
        out.append("worse")
    if versus_baseline == "better":
        out.append("better")
    elif versus_baseline == "worse":
        out.append("worse_baseline")
    return tuple(out)


def _parts(statistic: str, r: Any) -> tuple[str, ...]:
    """The printed numbers of a cell: (centre,), (centre, SD) or (centre, lower, upper)."""
    f = 10.0 ** -int(r.scale_exponent)
    d = int(r.decimals)
    centre = fixed(r.centre * f, d)
    if not math.isfinite(r.spread):
        return (centre,)
    if statistic == "mean_sd":
        return (centre, fixed(r.spread * f, d))
    return (centre, fixed(r.lower * f, d), fixed(r.upper * f, d))


def _plain_numbers(parts: Sequence[str]) -> str:
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        return f"{parts[0]} ± {parts[1]}"
    return f"{parts[0]} [{parts[1]}, {parts[2]}]"


def _latex_legend(table: ResultsTable, marks: Mapping[str, str]) -> str:
    """The legend with each marker as LaTeX and the rest escaped."""
    from benchverdict.report.latex import latex_escape

    tokens = {f"\x00{i}\x00": v for i, v in enumerate(
        [marks["worse"], marks["better"], marks["worse_baseline"], r"$\pm$",
         r"$\times 10^k$", r"$10^k$", r"$\alpha$"])}
    keys = list(tokens)
    text = table.legend(marks={"worse": keys[0], "better": keys[1],
                               "worse_baseline": keys[2]}, pm=keys[3])
    text = text.replace("x 10^k", keys[4]).replace("10^k", keys[5])
    escaped = latex_escape(text)
    for k, v in tokens.items():
        escaped = escaped.replace(latex_escape(k), v)
    return escaped


def _scope_better(scope: Any, names: Sequence[str]) -> dict[str, set[str]]:
    better = scope.better
    return {a: set(better.get(a, ())) for a in names}


def _scopes(comparison: Compared) -> tuple[dict[str, Any], Any]:
    """Per-benchmark scopes (by benchmark) and the all-benchmarks scope (or None)."""
    per: dict[str, Any] = {}
    across = None
    for scope in comparison.reconciliation.scopes.values():
        bench, meta = scope.key
        if meta:
            continue
        if bench is None:
            across = scope
        else:
            per[str(bench)] = scope
    return per, across


def _across_sentence(scope: Any, estimand: str, alpha: float) -> str:
    from benchverdict.report.relations import Status

    where = ("benchmarks like these" if estimand == "benchmarks" else "these benchmarks")
    settled = [f"{r.winner} > {r.loser}" for r in scope.with_status(Status.SETTLED)]
    implied = [f"{r.winner} > {r.loser}" for r in scope.with_status(Status.IMPLIED)]
    head = f"Across {where} (family-wise error at most {alpha:g})"
    if not settled and not implied:
        return f"{head}: no pair is settled"
    text = f"{head}: {_and(settled)} settled"
    if implied:
        text += f"; {_and(implied)} implied"
    return text


def _check_budget(comparison: Compared, budget: float | None) -> float | None:
    compared = comparison.options.budget
    if budget is None:
        return None if compared is None else float(compared)
    if compared is None or not math.isclose(float(compared), float(budget)):
        raise ValueError(
            f"budget={budget:g}, but the comparison's relations were decided at "
            + ("the final budget" if compared is None else f"budget {float(compared):g}")
            + "; the table's bold cells and markers read those relations, so compare at "
              f"the table's budget: compare(results, budget={budget:g}), or leave budget unset.")
    return float(budget)


def _check_matches(results: Results, comparison: Compared) -> None:
    problems = []
    if sorted(map(str, comparison.algorithms)) != sorted(results.algorithms):
        problems.append(f"algorithms {comparison.algorithms} vs {results.algorithms}")
    if sorted(map(str, comparison.benchmarks)) != sorted(results.benchmarks):
        problems.append(f"benchmarks {comparison.benchmarks} vs {results.benchmarks}")
    if comparison.objective != results.objective:
        problems.append(f"objective {comparison.objective!r} vs {results.objective!r}")
    if problems:
        raise ValueError("the comparison was not computed from these results: "
                         + "; ".join(problems)
                         + ". Pass the Results the comparison was built from.")


# ----------------------------------------------------------------------------- the report's view
#: The report's "Results table" section shows at most this many rows ...
MAX_REPORT_ROWS = 40
#: ... and this many columns of cells (results_table.csv and .tex hold the whole table).
MAX_REPORT_COLUMNS = 10


def report_view(table: ResultsTable, *, max_rows: int | None = None,
                max_columns: int | None = None) -> tuple[ResultsTable, str]:
    """The table as a page can show it, and a sentence saying what it leaves out ("" if nothing).

    ``max_rows`` and ``max_columns`` default to :data:`MAX_REPORT_ROWS` and
    :data:`MAX_REPORT_COLUMNS`. One row per benchmark (algorithms as
    columns), unless there are more algorithms than ``max_columns`` and than
    benchmarks: then one row per algorithm. Beyond ``max_rows`` rows or
    ``max_columns`` columns, the page shows the first benchmarks (in the
    data's order) and the algorithms with the best average rank, and the
    sentence names what is left out. Bold cells, markers and average ranks
    are those of the whole table.

    Examples
    --------
    >>> from benchverdict.paper import results_table
    >>> from benchverdict.results import _example_small
    >>> t = results_table(_example_small(), analyses=["lmem"])
    >>> view, note = report_view(t)
    >>> view.orientation, note
    ('benchmarks', '')
    >>> view, note = report_view(t, max_rows=1)
    >>> view.benchmarks
    ('p',)
    >>> print(note.split(";")[0])
    Shown: 1 of 2 benchmarks (the first 1 in the data's order)
    """
    max_rows = MAX_REPORT_ROWS if max_rows is None else int(max_rows)
    max_columns = MAX_REPORT_COLUMNS if max_columns is None else int(max_columns)
    n_b, n_a = len(table.benchmarks), len(table.algorithms)
    orientation = ("algorithms" if n_a > max_columns and n_a > n_b else "benchmarks")
    table = _replace(table, orientation=orientation)
    limits = ({"benchmarks": max_rows, "algorithms": max_columns}
              if orientation == "benchmarks"
              else {"algorithms": max_rows, "benchmarks": max_columns})
    ranks = table.summary.set_index("algorithm")["average_rank"]

    def by_rank(a: str) -> tuple[float, int]:  # best average rank first, then the table's order
        r = float(ranks.get(a, math.nan))
        return (r if math.isfinite(r) else math.inf, table.algorithms.index(a))

    keep_b = list(table.benchmarks[:limits["benchmarks"]])
    keep_a = set(sorted(table.algorithms, key=by_rank)[:limits["algorithms"]])
    if len(keep_b) == n_b and len(keep_a) == n_a:
        return table, ""
    shown = []
    if len(keep_b) < n_b:
        shown.append(f"{len(keep_b)} of {n_b} benchmarks (the first {len(keep_b)} in the "
                     f"data's order)")
    if len(keep_a) < n_a:
        shown.append(f"{len(keep_a)} of {n_a} algorithms (those with the best average rank)")
    left = [*table.benchmarks[len(keep_b):], *(a for a in table.algorithms if a not in keep_a)]
    named = ", ".join(left[:8]) + (f" and {len(left) - 8} more" if len(left) > 8 else "")
    note = (f"Shown: {_and(shown)}; left out here: {named}. Bold cells, markers and average "
            f"ranks are those of the whole table (every algorithm, every benchmark); every "
            f"cell is in results_table.csv and the whole table in results_table.tex (written "
            f"with the report by benchverdict report, or by benchverdict table)")
    return table.subset(benchmarks=keep_b, algorithms=keep_a), note


# ----------------------------------------------------------------------------- entry point
def check_options(results: Results, *, statistic: str = "mean_sd",
                  orientation: str = "benchmarks", confidence: float = 0.95,
                  baseline: str | None = None, budget: float | None = None) -> None:
    """Raise a ValueError for a table option ``results`` cannot take (before any computing).

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> check_options(_example_small(), statistic="mode")
    Traceback (most recent call last):
    ...
    ValueError: statistic must be one of ('mean_sd', 'median_iqr', 'mean_ci'), got 'mode'.
    """
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, got {statistic!r}.")
    if orientation not in ORIENTATIONS:
        raise ValueError(f"orientation must be one of {ORIENTATIONS}, got {orientation!r}.")
    if not 0 < float(confidence) < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    if baseline is not None and str(baseline) not in results.algorithms:
        raise ValueError(f"baseline {baseline!r} is not an algorithm of the results; choose "
                         f"one of {results.algorithms}.")
    if budget is not None and not results.has_budget:
        raise ValueError("budget= needs results with a budget column.")


def build_results_table(
    results: Results,
    comparison: Compared,
    *,
    statistic: str = "mean_sd",
    budget: float | None = None,
    orientation: str = "benchmarks",
    baseline: str | None = None,
    letters: bool = False,
    confidence: float = 0.95,
) -> ResultsTable:
    """The results table of ``results`` with bold and markers from ``comparison``'s relations.

    The core of :func:`benchverdict.paper.results_table` (the public entry
    point, which also takes a :class:`~benchverdict.report.Comparison` alone
    or computes one) and of the report's "Results table" section. The
    options are those of :func:`benchverdict.paper.results_table`.

    Raises
    ------
    ValueError
        An unknown ``statistic`` or ``orientation``, a ``baseline`` that is not an
        algorithm, a comparison of other data, or a budget other than the
        comparison's.

    Examples
    --------
    >>> from benchverdict.report.runner import compare
    >>> from benchverdict.results import _example_small
    >>> small = _example_small()
    >>> comp = compare(small, analyses=["lmem"], progress=False, figures=False)
    >>> build_results_table(small, comp).cells[["benchmark", "algorithm", "bold"]].values.tolist()
    [['p', 'a', True], ['p', 'b', True], ['q', 'a', True], ['q', 'b', True]]
    """
    from benchverdict.report.reconcile import trials_text
    from benchverdict.report.stopping import stopped_early

    check_options(results, statistic=statistic, orientation=orientation,
                  confidence=confidence, baseline=baseline, budget=budget)
    _check_matches(results, comparison)
    budget = _check_budget(comparison, budget)
    alpha_used = float(comparison.reconciliation.alpha)
    vote_trials = comparison.reconciliation.vote_trials
    view = results.incumbents(budget)
    stats_frame = _cell_statistics(view.table, statistic, float(confidence))
    lower_is_better = results.objective == "minimize"
    per, across_scope = _scopes(comparison)
    algorithms = tuple(results.algorithms)
    benchmarks = tuple(results.benchmarks)
    if not per and across_scope is not None and len(benchmarks) == 1:
        per = {benchmarks[0]: across_scope}  # one benchmark: its relations are the headline
        across_scope = None

    out_rows: list[dict] = []
    undecided: list[str] = []
    not_compared: list[tuple[str, str]] = []
    for bench in benchmarks:
        here = stats_frame[stats_frame["benchmark"] == bench]
        if here.empty:
            continue
        scale = scale_exponent([*here["centre"], *here["lower"], *here["upper"]])
        decimals = decimals_for(here["spread"] / 10.0 ** scale, here["centre"] / 10.0 ** scale)
        # Centres equal but for round-off tie (as the rank tests' blocks do).
        centres = pd.Series(snap_round_off(here["centre"].to_numpy(dtype=float)),
                            index=here["algorithm"])
        ranks = centres.rank(ascending=lower_is_better, method="average")
        scope = per.get(bench)
        compared = [a for a in here["algorithm"] if scope is not None
                    and a in scope.algorithms]
        if scope is None:
            undecided.append(bench)
            decisions = pd.DataFrame(columns=["algorithm", "bold", "worse_than_best",
                                              "versus_baseline"])
            letters_of = pd.Series(dtype=object)
        else:
            better = _scope_better(scope, compared)
            base = baseline if baseline in compared else None
            decisions = decide_cells(compared, better, baseline=base)
            letters_of = (relation_letters(here.set_index("algorithm").loc[compared, "centre"],
                                           better, lower_is_better=lower_is_better)
                          if letters and compared else pd.Series(dtype=object))
            not_compared += [(bench, a) for a in here["algorithm"] if a not in compared]
        decided = decisions.set_index("algorithm")
        for r in here.itertuples(index=False):
            d = decided.loc[r.algorithm] if r.algorithm in decided.index else None
            out_rows.append({
                "benchmark": bench, "algorithm": r.algorithm, "statistic": statistic,
                "n": int(r.n), "centre": r.centre, "lower": r.lower, "upper": r.upper,
                "spread": r.spread, "scale_exponent": scale, "decimals": decimals,
                "text": _cell_text(statistic, r.centre, r.lower, r.upper, r.spread, scale,
                                   decimals),
                "rank": float(ranks[r.algorithm]), "decided": d is not None,
                "bold": bool(d["bold"]) if d is not None else False,
                "worse_than_best": bool(d["worse_than_best"]) if d is not None else False,
                "versus_baseline": str(d["versus_baseline"]) if d is not None else "",
                "letters": str(letters_of.get(r.algorithm, "")),
            })
    cells = pd.DataFrame(out_rows, columns=CELL_COLUMNS)
    order = {a: i for i, a in enumerate(algorithms)}
    cells = cells.sort_values(["benchmark", "algorithm"],
                              key=lambda s: s.map(order) if s.name == "algorithm" else s.map(
                                  {b: i for i, b in enumerate(benchmarks)}),
                              kind="stable").reset_index(drop=True)

    mean_rank = cells.groupby("algorithm", sort=False)["rank"].agg(["mean", "count"])
    if across_scope is not None:
        compared = [a for a in algorithms if a in across_scope.algorithms]
        base = baseline if baseline in compared else None
        across_dec = decide_cells(compared, _scope_better(across_scope, compared),
                                  baseline=base).set_index("algorithm")
    else:
        across_dec = pd.DataFrame(columns=["bold", "worse_than_best", "versus_baseline"])
    summary_rows = []
    for a in algorithms:
        d = across_dec.loc[a] if a in across_dec.index else None
        summary_rows.append({
            "algorithm": a,
            "average_rank": float(mean_rank.loc[a, "mean"]) if a in mean_rank.index
            else math.nan,
            "n_benchmarks": int(mean_rank.loc[a, "count"]) if a in mean_rank.index else 0,
            "decided": d is not None,
            "bold": bool(d["bold"]) if d is not None else False,
            "worse_than_best": bool(d["worse_than_best"]) if d is not None else False,
            "versus_baseline": str(d["versus_baseline"]) if d is not None else "",
        })
    summary = pd.DataFrame(summary_rows, columns=SUMMARY_COLUMNS)
    across = ("" if across_scope is None else
              _across_sentence(across_scope, comparison.reconciliation.estimand, alpha_used))
    return ResultsTable(
        cells=cells, summary=summary, algorithms=algorithms, benchmarks=benchmarks,
        statistic=statistic, objective=results.objective, budget=budget, alpha=alpha_used,
        confidence=float(confidence), baseline=None if baseline is None else str(baseline),
        letters=bool(letters), orientation=orientation, across=across, undecided=tuple(undecided),
        not_compared=tuple(not_compared),
        stopped_early=tuple(stopped_early(results, comparison.options).items()),
        trials=("" if budget is not None or vote_trials is None else trials_text(vote_trials)))
