"""``compare``: run every analysis that applies, collect verdicts, reconcile, render.

Which analyses apply depends on what the rows are (``Results.kind``):

* ``"trials"`` (IID random-search draws): tuning curves and DSE read the
  draws directly. With a budget column (the trial order) every seed's search
  also has an incumbent after each trial, so rank tests and the LMEM apply to
  those incumbents as well;
* ``"runs"`` (HPO-run incumbents): rank tests and the LMEM. Tuning curves and
  DSE refuse them (incumbents are running maxima, not draws).

Each family's runner lives in its own package (``benchverdict.<family>.runner``,
found through :mod:`benchverdict.families`) and calls the package's public
API. A sub-step that raises is
recorded in the report's warnings with the error, never hidden, and the other
analyses still run.
"""

from __future__ import annotations

import sys
import time
import traceback
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from benchverdict._caveats import collecting, group_messages
from benchverdict._colour import RELATION_COLOURS as _RELATION_CELLS
from benchverdict._gc import fewer_collections
from benchverdict._plain_text import file_stem
from benchverdict._threads import one_blas_thread
from benchverdict.analysis import (
    ANALYSES,
    AnalysisRun,
    Options,
    ReportFigure,
    Runner,
    final_trials,
    listening_to_steps,
)
from benchverdict.effects.equivalence import Margin

# EXCLUSION_COLUMNS was importable from here (the report's own column set); it is the
# one column set now, re-exported under its name.
from benchverdict.exclusions import EXCLUSION_COLUMNS as EXCLUSION_COLUMNS
from benchverdict.exclusions import (
    concat_exclusions,
    empty_exclusions,
    exclusions_frame,
    exclusions_table,
    summarise_steps,
)
from benchverdict.families import families, family_names, get_family
from benchverdict.replicates import declared_groups
from benchverdict.report import figures as report_figures
from benchverdict.report import html, json_format, latex, markdown, render, summary, terminal
from benchverdict.report.effect_sizes import compared_scores, scope_effects
from benchverdict.report.guidance import plan_guide, sample_size_guidance
from benchverdict.report.prose import copied_runs_caveat
from benchverdict.report.reconcile import Reconciliation, reconcile
from benchverdict.report.stopping import stopped_early, stopped_early_cells
from benchverdict.verdict import Verdict, verdicts_to_frame

if TYPE_CHECKING:
    from benchverdict.describe import Description
    from benchverdict.report.document import ReportDocument
    from benchverdict.results import Results

__all__ = ["ANALYSES", "RELATION_COLOURS", "AnalysisRun", "Comparison", "Options", "ReportFigure",
           "applicability", "compare", "note_lines", "relation_matrix", "run_analysis",
           "summarise_exclusions"]


def applicability(results: Results, name: str) -> tuple[bool, str]:
    """Whether analysis ``name`` applies to ``results``, and why.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> applicability(_example_small(), "ranks")[0]
    True
    >>> applicability(_example_small(), "tuning")[1]
    'on the random-search draws'
    """
    family = get_family(name)  # raises, naming the known families
    if family.reads == "draws":
        if results.kind == "trials":
            # One draw per algorithm and benchmark (e.g. a table of published aggregates): a
            # distribution of one value has no spread, and every test of it would be vacuous.
            sizes = results.cell_sizes()
            if len(sizes) and int(sizes.max()) < 2:
                return False, (
                    f"every algorithm has a single draw on each benchmark (one score each, as "
                    f"in a table of published results), so there is no distribution to "
                    f"compare; {family.label} need several draws per algorithm and benchmark")
            return True, "on the random-search draws"
        return False, (
            f"the rows are HPO-run incumbents (kind 'runs'), not IID random-search draws; "
            f"{family.label} need draws"
        )
    if len(results.benchmarks) < 2 and len(results.seeds) < 2:
        # One run per algorithm: a model of runs has as many means as rows and no residual.
        return False, (
            "every algorithm has a single run (one benchmark, one seed; one score each, as in "
            "a table of published results), so there is no replicate to test on (give "
            "several seeds or benchmarks)")
    if results.kind == "runs":
        return True, "on the HPO-run incumbents"
    if results.has_budget:
        return True, "on the incumbent of each seed's search (best of its trials so far)"
    return False, (
        "the rows are random-search draws without a trial order (no budget column), so "
        "there are no HPO runs to compare; give the trial number as budget to compare the "
        "searches' incumbents"
    )


def _format_warning(w: warnings.WarningMessage) -> str:
    return f"{w.category.__name__}: {w.message}"


def note_lines(notes: Sequence[str]) -> list[str]:
    r"""Notes as the document lists them: a note of several lines becomes one note per line.

    A multi-line note (Autorank's summary: a heading line, then indented
    reasons, result and ranking) reaches every format as separate items, in
    order, rather than as one item with raw line breaks (which HTML showed as
    ``\x0a`` and Markdown ran together). Blank lines are dropped.

    Examples
    --------
    >>> note_lines(["Autorank on blocks\n  Friedman: 5 algorithms\n  result: p = 0.01", "x"])
    ['Autorank on blocks', 'Friedman: 5 algorithms', 'result: p = 0.01', 'x']
    >>> note_lines(["a name with\u2028inside"])
    ['a name with\u2028inside']
    """
    # Only line feeds are layout: other separators (U+2028, form feed, ...) can be part of
    # a name and are shown as escapes by the renderers, never split on.
    return [line.strip(" \t\r") for note in notes for line in str(note).split("\n")
            if line.strip(" \t\r")]


def run_analysis(name: str, runner: Runner, results: Results, options: Options,
                 on_step: Callable[[str], None] | None = None) -> AnalysisRun:
    """Run one analysis, capturing its warnings and turning an exception into a record.

    ``on_step(step)`` is called as each sub-step starts (see
    :meth:`AnalysisRun.attempt`).
    """
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught, listening_to_steps(on_step):
        warnings.simplefilter("always")
        # Each kind of caveat said once per analysis, with its count and places
        # (benchverdict._caveats); the grouped warnings are caught here as they end.
        with collecting():
            try:
                run = runner(results, options)
            except Exception as err:
                tb = traceback.format_exception_only(type(err), err)[-1].strip()
                run = AnalysisRun(name, "error", reason=tb)
                run.warnings.append(f"{name} failed: {tb}")
    # Other libraries' warnings repeated per cell (same text but the numbers and the
    # subject) are grouped too, so no two of the analysis's warnings are of one kind.
    seen = set(run.warnings)
    run.warnings[:] = group_messages(
        [*run.warnings, *(text for text in map(_format_warning, caught) if text not in seen)])
    run.notes[:] = note_lines(run.notes)
    run.seconds = time.perf_counter() - start
    return run


class Comparison:
    """The comparison report: every analysis's verdicts, reconciled.

    Built by :func:`compare`. Render with :meth:`to_html`, :meth:`to_markdown`,
    :meth:`to_latex` and :meth:`to_json`.

    Attributes
    ----------
    runs : list of AnalysisRun
        One per analysis, including those that did not run (with the reason).
    reconciliation : Reconciliation
    description : Description
        ``results.describe()``: counts, design balance, exclusions.
    options : Options
    objective : str
    """

    def __init__(
        self,
        *,
        runs: list[AnalysisRun],
        reconciliation: Reconciliation,
        description: Description,
        options: Options,
        objective: str,
        algorithms: Sequence[str],
        benchmarks: Sequence[str],
        n_seeds: int,
        metafeatures: Sequence[str],
        requested: Sequence[str],
        runs_per_cell: tuple[int, int] | None = None,
        figures: list[ReportFigure] | None = None,
        validation_exclusions: pd.DataFrame | None = None,
        report_warnings: Sequence[str] = (),
        results: Results | None = None,
        left_out: FinalBudgetViews | None = None,
    ):
        self.runs = runs
        #: What the final-budget comparisons left out (None: built by hand, or not known).
        self.left_out = left_out
        #: The data compared (``benchverdict.paper.results_table(comparison)`` summarises
        #: them); None when built by hand.
        self.results = results
        self.reconciliation = reconciliation
        self.description = description
        self.options = options
        self.objective = objective
        self.algorithms = list(algorithms)
        self.benchmarks = list(benchmarks)
        self.n_seeds = int(n_seeds)
        #: The fewest and most runs (seeds) an algorithm has on a benchmark, among the
        #: runs compared (``None``: not known); ``n_seeds`` counts distinct seed labels.
        self.runs_per_cell = runs_per_cell
        self.metafeatures = list(metafeatures)
        self.requested = list(requested)
        self._figures = figures
        self.validation_exclusions = (
            empty_exclusions() if validation_exclusions is None else validation_exclusions)
        self.report_warnings = list(report_warnings)

    # ----------------------------------------------------------------- tables
    def verdicts(self) -> list[Verdict]:
        """Every verdict of every analysis, oriented by the algorithm order."""
        return list(self.reconciliation.verdicts)

    @property
    def verdict_table(self) -> pd.DataFrame:
        """Every verdict of every analysis, one row each (see ``verdicts_to_frame``)."""
        return verdicts_to_frame(self.reconciliation.verdicts)

    @property
    def agreement(self) -> pd.DataFrame:
        """Per pair and scope group: methods, outcomes, agreement score, consensus."""
        return self.reconciliation.agreement

    @property
    def conflicts(self) -> pd.DataFrame:
        """Every disagreement between two methods, with its explanation."""
        return self.reconciliation.conflicts

    @property
    def conflict_groups(self) -> pd.DataFrame:
        """The method-level contradictions grouped by explanation: each once, with its pairs."""
        return self.reconciliation.conflict_groups

    @property
    def rankings(self):
        """The partial ranking of each scope group (``Ranking`` records)."""
        return self.reconciliation.rankings

    @property
    def headlines(self) -> pd.DataFrame:
        """Per scope: the headline sentence, the single-draw row, counts by status.

        Columns :data:`~benchverdict.report.relations.HEADLINE_COLUMNS`.
        """
        return self.reconciliation.headlines

    @property
    def relations(self) -> pd.DataFrame:
        """Per pair and scope: settled / implied / contradicted / power gap / unsettled.

        Columns :data:`~benchverdict.report.relations.RELATION_COLUMNS`; settled
        relations have a family-wise error of at most ``alpha`` per scope type.
        """
        return self.reconciliation.relations

    @property
    def groups(self) -> pd.DataFrame:
        """Per scope: groups of mutually unsettled algorithms (as in a CD diagram)."""
        return self.reconciliation.groups

    @property
    def contradictions(self) -> pd.DataFrame:
        """Per scope and pair: families deciding opposite ways (or a cycle), explained."""
        return self.reconciliation.contradictions

    @property
    def power_gaps(self) -> pd.DataFrame:
        """Per scope and family: the settled pairs the family could not decide, and why."""
        return self.reconciliation.power_gaps

    @property
    def votes(self) -> pd.DataFrame:
        """One row per (family, pair, scope): the raw and Holm-adjusted p-values."""
        return self.reconciliation.votes

    @property
    def table(self) -> pd.DataFrame:
        """The report's main tidy table: the agreement table (one row per pair and scope)."""
        return self.agreement

    @property
    def exclusions(self) -> pd.DataFrame:
        """Every row, run, seed, cell or block an analysis (or validation) left out.

        One record per excluded thing, columns :data:`EXCLUSION_COLUMNS`:
        ``analysis`` (``"validation"`` for what the data given left out:
        rows dropped when they were read, runs a view has no incumbent
        for), ``step``, ``unit`` (row, run, seed, benchmark, cell, ...),
        ``algorithm``, ``benchmark``, ``seed``, ``budget``, ``row``,
        ``columns`` (the input columns at fault, for rows) and ``reason``.
        :attr:`exclusion_summary` counts them.
        """
        given = self.validation_exclusions
        if len(given):
            given = exclusions_table(given, analysis="validation", step="validation")
        return concat_exclusions([given, exclusions_frame(
            [record for run in self.runs for record in run.exclusions])])

    @property
    def exclusion_summary(self) -> pd.DataFrame:
        """How many things each analysis step left out, and why (one row per step and kind).

        Columns ``analysis, step, what, count, examples, reason``: the count
        of records (rows, runs, seeds, ...), up to five of them, and the most
        common reason.
        """
        return summarise_exclusions(self.exclusions)

    @property
    def warnings(self) -> list[str]:
        """Every warning and error of every analysis, prefixed by the analysis."""
        out = []
        for run in self.runs:
            if run.status == "unavailable":
                out.append(f"[{run.name}] not run: {run.reason}")
            out += [f"[{run.name}] {w}" for w in run.warnings]
        # Failed sub-steps first: they are what a reader must not miss.
        out.sort(key=lambda w: "; the rest of the analysis is kept." not in w)
        if not self.description.balanced:
            out.append(
                f"[data] the design is unbalanced: {self.description.n_missing_cells:,} "
                f"algorithm x benchmark x seed cell(s) have no data."
            )
        n_excl = int(self.description.exclusions["rows"].sum()) if len(
            self.description.exclusions) else 0
        if n_excl:
            out.append(f"[data] {n_excl:,} row(s) were excluded in validation (see the table).")
        out += [f"[report] {w}" for w in self.report_warnings]
        return out

    @property
    def errors(self) -> list[AnalysisRun]:
        """The analyses that raised, or that were requested by name but are unavailable."""
        return [
            r for r in self.runs
            if r.status == "error" or (r.status == "unavailable" and r.name in self.requested)
        ]

    @property
    def figures(self) -> list[ReportFigure]:
        """The report's own figures, then every analysis's figures (unique file names)."""
        if self._figures is None:
            self._figures = self._own_figures()
        figures = [*self._figures, *(f for r in self.runs for f in r.figures)]
        # Two figures with the same name (a module drawing one twice) still get two files.
        seen: dict[str, int] = {}
        for f in figures:
            base = file_stem(f.name)
            seen[base] = seen.get(base, 0) + 1
            f._file_name = base if seen[base] == 1 else f"{base}-{seen[base]}"
        return figures

    def _own_figures(self) -> list[ReportFigure]:
        return report_figures.report_figures(self)

    # ----------------------------------------------------------------- plots
    def methods_paragraph(self, style: str = "text") -> str:
        """The methods paragraph a paper quotes, written from this comparison's settings.

        ``style``: ``"text"``, ``"latex"`` (``\\citep`` keys of :meth:`bibtex`) or
        ``"pandoc"`` (``[@key]`` citations); see
        :func:`benchverdict.report.summary.methods_paragraph`.

        Examples
        --------
        >>> from benchverdict.report import compare
        >>> from benchverdict.results import _example_small
        >>> comp = compare(_example_small(), analyses=["ranks"], progress=False,
        ...                figures=False)
        >>> "Wilcoxon signed-rank tests" in comp.methods_paragraph()
        True
        """
        return summary.methods_paragraph(self, style)

    def results_paragraphs(self, per_benchmark: bool = False) -> list:
        """One plain-words results paragraph per scope (per benchmark too, if asked).

        Examples
        --------
        >>> from benchverdict.report import compare
        >>> from benchverdict.results import _example_small
        >>> comp = compare(_example_small(), analyses=["ranks"], progress=False,
        ...                figures=False)
        >>> comp.results_paragraphs()[0].text.startswith("Across benchmarks like these 2")
        True
        """
        return summary.results_paragraphs(self, per_benchmark)

    def bibtex(self) -> str:
        """The BibTeX entries of exactly the works :meth:`methods_paragraph` cites.

        Examples
        --------
        >>> from benchverdict.report import compare
        >>> from benchverdict.results import _example_small
        >>> comp = compare(_example_small(), analyses=["ranks"], progress=False,
        ...                figures=False)
        >>> comp.bibtex().lstrip().startswith("@")
        True
        """
        return summary.comparison_bibtex(self)

    def plot(self, kind: str = "relations", ax=None, *, scope: str | None = None):
        """Plot the answer: who beats whom, with the signed effect in each cell.

        Parameters
        ----------
        kind : {"relations", "agreement", "outcomes"}
            ``"relations"`` (default): the pairwise relation matrix of a scope
            (:func:`relation_matrix`): each cell is the row's algorithm
            against the column's, coloured by the reconciled relation
            (better, worse, equivalent, contradicted, not settled) and
            labelled with the signed effect (row minus column, positive =
            row better). ``"agreement"``: the method x method agreement
            heatmap. ``"outcomes"``: every method's verdict on every pair.
        ax : matplotlib Axes, optional
        scope : str, optional
            With ``kind="relations"``: the scope (``"all benchmarks"``, the
            default when there is one, or ``"benchmark NAME"``; see
            :attr:`relations`).

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> comp = compare(_example_small(), analyses=["ranks"], progress=False, figures=False)
        >>> comp.plot().get_title().splitlines()[0]
        'Who beats whom: all benchmarks'
        >>> import matplotlib.pyplot as plt
        >>> plt.close("all")
        """
        if kind == "relations":
            return relation_matrix(self.relations, self.algorithms, scope=scope, ax=ax)
        if scope is not None:
            raise ValueError(f"scope= applies to kind='relations', not kind={kind!r}.")
        if kind == "agreement":
            return report_figures.agreement_heatmap(self.reconciliation, ax=ax)
        if kind == "outcomes":
            return report_figures.outcome_grid(self.reconciliation, ax=ax)
        raise ValueError(f"kind must be 'relations', 'agreement' or 'outcomes', got {kind!r}.")

    # ----------------------------------------------------------------- renderers
    def document(self) -> ReportDocument:
        """The report document every format renders (:mod:`benchverdict.report.document`).

        Built on first use and kept (built again only if :attr:`reconciliation`
        is replaced); its figures are drawn when a format first shows them.

        Examples
        --------
        >>> from benchverdict.results import _example_small
        >>> comp = compare(_example_small(), analyses=["ranks"], progress=False, figures=False)
        >>> comp.document() is comp.document()
        True
        >>> comp.document().summary.status_counts  # doctest: +NORMALIZE_WHITESPACE
        '0 settled, 0 implied, 0 equivalent, 0 contradicted, 0 power gap, 1 unsettled over 1
        scope(s)'
        """
        # getattr: a Comparison pickled before the document existed has no cache attribute.
        cached = getattr(self, "_document", None)
        if cached is None or cached[0] is not self.reconciliation:
            cached = (self.reconciliation, render.build_document(self))
            self._document = cached
        return cached[1]

    def to_dict(self) -> dict[str, Any]:
        """The JSON document as a dict (see :meth:`to_json`)."""
        return json_format.report_document(self.document())

    def to_json(self, path: str | Path | None = None, *, indent: int | None = 2) -> str:
        """A versioned JSON document (schema ``benchverdict.report`` v2) for leaderboards.

        The schema is committed as ``benchverdict/report/report.schema.json``.
        """
        text = json_format.render_json(self.document(), indent=indent)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def to_html(self, path: str | Path | None = None) -> str:
        """A self-contained HTML page (figures embedded, no network access, names escaped)."""
        text = html.render_html(self.document())
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def to_markdown(self, path: str | Path | None = None) -> str:
        """The report as Markdown (tables as pipe tables, names escaped).

        With ``path``, the figures are written as SVG files into
        ``<stem>_figures/`` beside it and embedded, and the full tables as CSV
        files into ``<stem>_tables/`` and linked; without, figures are listed.
        """
        if path is None:
            return markdown.render_markdown(self.document())
        path = Path(path)
        folder, tables = f"{path.stem}_figures", f"{path.stem}_tables"
        # methods.md and references.bib beside it (the paragraphs a paper quotes).
        text = markdown.render_markdown(self.document(), figure_dir=path.parent / folder,
                                        figure_link=folder, table_dir=path.parent / tables,
                                        table_link=tables, paper_dir=path.parent)
        path.write_text(text, encoding="utf-8")
        return text

    def to_latex(self, directory: str | Path) -> Path:
        """Write ``report.tex``, booktabs tables and PDF figures into ``directory``.

        Returns the path of ``report.tex`` (a standalone document that
        ``\\input``s the tables; each table file can also be used alone).
        """
        return latex.render_latex(self.document(), Path(directory))

    def summary(self) -> str:
        """What ran, the headline of every scope and what was left out, in a few lines."""
        return terminal.comparison_summary(self.document())

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return terminal.comparison_repr(self.document())

    def _repr_html_(self) -> str:
        """The summary for notebooks: headline sentences and the pairwise matrix."""
        return html.comparison_repr_html(self.document())


#: Cell colours of :func:`relation_matrix` (Okabe-Ito, as the verdict grid's): the row's
#: algorithm better, worse, practically equivalent, contradicted, or not settled.
# The report's relation colours (benchverdict._colour), so the plot and the report's matrix
# read alike (the plot had its own orange for "worse").
RELATION_COLOURS = {**{kind: _RELATION_CELLS[kind][0]
                       for kind in ("better", "worse", "equivalent", "contradicted")},
                    "not settled": _RELATION_CELLS["unsettled"][0]}
#: Above this many algorithms the matrix's cells carry no text (the table has the values).
MAX_LABELLED_ALGORITHMS = 16


def relation_matrix(relations: pd.DataFrame, algorithms: Sequence[str], *,
                    scope: str | None = None, ax=None):
    r"""The pairwise relation matrix of one scope: who beats whom, by how much.

    Row ``i``, column ``j`` is algorithm ``i`` against algorithm ``j``: blue
    when the report settles (or implies) that ``i`` is better, orange when
    worse, green when practically equivalent, purple when the families
    contradict each other, grey when not settled (unsettled or a power
    gap). Each cell is labelled with the signed effect, row minus column in
    the report's effect unit (positive = the row is better), and the relation
    (``settled``, ``implied``, ...). Rows and columns are sorted by wins minus
    losses, so the matrix reads from the best down. Colours are the
    colour-blind-safe Okabe-Ito ones; the status is also written in the cell.

    Parameters
    ----------
    relations : pandas.DataFrame
        :attr:`Comparison.relations` (columns
        :data:`~benchverdict.report.relations.RELATION_COLUMNS`).
    algorithms : sequence of str
    scope : str, optional
        Default ``"all benchmarks"`` when present, else the first scope.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import pandas as pd
    >>> rel = pd.DataFrame({"scope": ["all benchmarks"], "a": ["A"], "b": ["B"],
    ...                     "status": ["settled"], "winner": ["B"], "loser": ["A"],
    ...                     "difference": [-0.2], "difference_unit": ["acc"]})
    >>> ax = relation_matrix(rel, ["A", "B"])
    >>> [t.get_text() for t in ax.texts][:2]
    ['+0.2\nsettled', '-0.2\nsettled']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from benchverdict._plain_text import plain_text, set_lines
    from benchverdict.plotting import new_axes, shorten, theme

    scopes = list(dict.fromkeys(relations["scope"].astype(str))) if len(relations) else []
    if scope is None:
        scope = "all benchmarks" if "all benchmarks" in scopes else (scopes[0] if scopes
                                                                     else None)
    if scope is None:
        raise ValueError("there are no relations to draw (no analysis gave verdicts on a "
                         "pair); see the report's analyses for why.")
    if scope not in scopes:
        raise ValueError(f"scope {scope!r} has no relations; the scopes are {scopes}.")
    rows = relations[relations["scope"].astype(str) == scope]
    names = [str(a) for a in algorithms]
    index = {name: i for i, name in enumerate(names)}
    k = len(names)
    codes = list(RELATION_COLOURS)
    grid = np.full((k, k), np.nan)
    labels: list[list[list[str]]] = [[[] for _ in range(k)] for _ in range(k)]
    score = np.zeros(k)
    for r in rows.to_dict("records"):
        a, b = str(r["a"]), str(r["b"])
        if a not in index or b not in index:
            continue
        status = str(r["status"])
        winner = r.get("winner")
        winner = None if winner is None or (isinstance(winner, float) and np.isnan(winner)) \
            else str(winner)
        difference = r.get("difference")
        for row, col, sign in ((a, b, 1.0), (b, a, -1.0)):
            i, j = index[row], index[col]
            if status in ("settled", "implied") and winner is not None:
                code = "better" if winner == row else "worse"
                score[i] += 1 if winner == row else -1
            elif status == "equivalent":
                code = "equivalent"
            elif status == "contradicted":
                code = "contradicted"
            else:
                code = "not settled"
            grid[i, j] = codes.index(code)
            effect = (f"{sign * float(difference):+.2g}" if difference is not None
                      and np.isfinite(float(difference)) else "n/a")
            labels[i][j] = [effect, status]
    order = sorted(range(k), key=lambda i: (-score[i], i))
    grid = grid[np.ix_(order, order)]
    labels = [[labels[i][j] for j in order] for i in order]
    shown = [names[i] for i in order]
    units = rows["difference_unit"].dropna().astype(str).unique() if (
        "difference_unit" in rows) else []
    unit = f" ({units[0]})" if len(units) == 1 else ""
    size = min(9.0, max(3.5, 0.62 * k + 2.0))
    ax = new_axes(ax, width=size + 1.6, height=size)
    with theme():
        cmap = ListedColormap(list(RELATION_COLOURS.values()))
        ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=-0.5, vmax=len(codes) - 0.5)
        if k <= MAX_LABELLED_ALGORITHMS:
            for i in range(k):
                for j in range(k):
                    if labels[i][j]:
                        white = grid[i, j] == codes.index("better")
                        set_lines(ax.text(j, i, "", ha="center", va="center",
                                          fontsize=7 if k > 8 else 8,
                                          color="white" if white else "black"), labels[i][j])
        ax.set_xticks(range(k))
        ax.set_xticklabels([shorten(n, 18) for n in shown], rotation=30, ha="right")
        ax.set_yticks(range(k))
        ax.set_yticklabels([shorten(n, 18) for n in shown])
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_xlabel("column algorithm")
        ax.set_ylabel("row algorithm")
        set_lines(ax.set_title("", fontsize=9), [
            f"Who beats whom: {scope}", f"cell: row minus column{unit}, positive = row better"])
        ax.legend([Patch(facecolor=c) for c in RELATION_COLOURS.values()],
                  [f"row {c}" if c in ("better", "worse") else c for c in RELATION_COLOURS],
                  loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False,
                  borderaxespad=0.0, fontsize=8)
    return plain_text(ax)


def _expect_cubes(results: Results, names: Sequence[str], reasons: Mapping, options: Options
                  ) -> None:
    """Tell an engine that makes a pass over every row per cube which cubes will be asked for.

    The anytime ranks read every run's incumbent on ``budget_grid(12)``, the
    LMEM's budget check (on runs) on ``budget_grid(64)``; a Dask engine then
    computes both in one pass (:meth:`DaskResults.expect_cube_budgets`). Only
    the number of passes depends on this, never a value.
    """
    expect = getattr(results, "expect_cube_budgets", None)
    if expect is None or not results.has_budget:
        return
    from benchverdict.lmem.sanity import MAX_BUDGET_GRID
    from benchverdict.ranks.runner import ANYTIME_BUDGETS

    if "ranks" in names and reasons["ranks"][0]:
        expect(results.budget_grid(ANYTIME_BUDGETS))
    if ("lmem" in names and reasons["lmem"][0] and options.sanity_checks
            and results.kind == "runs" and len(results.budgets) > 1):
        expect(results.budget_grid(MAX_BUDGET_GRID))


def _default_runners() -> dict[str, Runner]:
    """Every registered family's runner (see :mod:`benchverdict.families`)."""
    return {f.name: f.run_function() for f in families()}


def compare(
    results: Results,
    *,
    analyses: Sequence[str] | None = None,
    confidence: float = 0.8,
    alpha: float = 0.05,
    budget: float | None = None,
    formula: str | None = None,
    progress: bool = True,
    cvar_levels: Sequence[float] = (0.5, 0.95),
    runners: Mapping[str, Runner] | None = None,
    sanity_checks: bool = True,
    figures: bool = True,
    estimand: str = "benchmarks",
    draws: str = "auto",
    margin: Margin | float | str | None = None,
    per_benchmark: bool = True,
    replicate_by: str | None = None,
) -> Comparison:
    """Run every analysis that applies to ``results`` and reconcile their verdicts.

    Parameters
    ----------
    results : Results
    analyses : sequence of str, optional
        Any of ``"tuning"``, ``"dse"``, ``"ranks"``, ``"lmem"``. Default:
        every analysis that applies (see :func:`applicability`). An analysis
        asked for by name that does not apply is reported as not applicable.
    confidence : float
        Confidence level of bands and intervals (tuning curves, DSE).
        Default 0.8, as in Lourie et al.
    alpha : float
        Significance level of the tests (rank tests, LMEM).
    budget : float, optional
        Compare incumbents at this budget, in the budget column's units
        (default: each run's final one). Any finite number: fractional and
        negative budgets are fine. Runs with no observation at or below it
        are left out of the rank tests and the LMEM and listed in
        :attr:`Comparison.exclusions`. Sample-size guidance never uses the
        value: its budget ``k`` is the number of trials a search has there.
    formula : str, optional
        The LMEM's formula (role names, e.g. ``"score ~ algorithm + (1|benchmark)"``).
    progress : bool
        Show a tqdm progress bar.
    cvar_levels : sequence of float
        CVaR levels of the DSE comparison (``CVaR_a`` = mean of the best
        ``1 - a`` share of draws).
    runners : mapping, optional
        Replace the analysis runners (for testing).
    sanity_checks : bool
        Run the LMEM sanity checks (default); see :class:`Options`.
    figures : bool
        Draw the analyses' figures (default). ``False`` skips them; every
        verdict, table and relation is the same (for simulations and
        leaderboards that need only the numbers).
    estimand : {"benchmarks", "these"}
        ``"benchmarks"`` (default): a relation settled across benchmarks
        holds for benchmarks like these (the observed ones are a sample);
        ``"these"``: for exactly the observed benchmarks. See :class:`Options`.
    draws : {"auto", "iid", "clustered"}
        Whether random-search draws of one run are independent; ``"auto"``
        lets the data's structure decide. See :class:`Options`.
    margin : float or str, optional
        Margin of practical equivalence: ``0.01`` (score units) or
        ``"0.2sd"`` (SDs of a benchmark). With it a pair that no family
        separates and whose difference is shown to be within the margin is
        *equivalent* (two one-sided tests in the same Holm family as the
        votes). No default: what difference is negligible is the user's call.
    per_benchmark : bool
        Also make the LMEM's per-benchmark verdicts (default). ``False``
        leaves the per-benchmark scopes to the other families (a leaderboard,
        which ranks across benchmarks only); see :class:`Options`.
    replicate_by : str, optional
        A benchmark metafeature whose levels are the independent units
        across benchmarks (e.g. ``"task"`` for a task run under several
        variants); the tests that settle pairs across benchmarks count each
        level once. See :class:`Options` and :mod:`benchverdict.replicates`.

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        If ``analyses`` is not given and no analysis applies (e.g. one score
        per algorithm): the error gives each analysis's reason. A report of
        no verdicts would read as "cannot be separated", which the data do
        not say.

    Notes
    -----
    Every sub-step of an analysis (a post-hoc test, a per-metafeature fit, a
    figure, a sanity check) fails alone: the failure is listed in the
    report's sanity section and warnings, with the step and the message, and
    the rest is kept. Only a failure of an analysis's main fit makes the
    analysis an error. Names are text in every figure and format (no
    mathtext; control and bidi characters shown as escapes).

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> comp = compare(_example_small(), analyses=["ranks"], progress=False)
    >>> comp.runs[0].name
    'ranks'
    """
    from tqdm.auto import tqdm

    options = Options(confidence=confidence, alpha=alpha, budget=budget, formula=formula,
                      cvar_levels=tuple(cvar_levels), sanity_checks=bool(sanity_checks),
                      estimand=estimand, draws=draws, figures=bool(figures), margin=margin,
                      per_benchmark=bool(per_benchmark), replicate_by=replicate_by)
    requested = [] if analyses is None else [str(a).strip().lower() for a in analyses]
    known = family_names()
    unknown = [a for a in requested if a not in known]
    if unknown:
        raise ValueError(f"unknown analysis {unknown}; choose from {list(known)}.")
    if budget is not None and not results.has_budget:
        raise ValueError("budget= needs results with a budget column.")
    if replicate_by is not None:
        declared_groups(results, replicate_by)  # an unknown or ill-formed column fails here
    budget = options.budget
    names = [a for a in known if not requested or a in requested]
    runners = dict(_default_runners() if runners is None else runners)
    reasons = {name: applicability(results, name) for name in names}
    if names and not requested and not any(ok for ok, _ in reasons.values()):
        # A report of no verdicts would read as "nothing can be separated"; the data cannot
        # be compared at all, which is a different answer. (Analyses asked for by name are
        # reported as not applicable, as documented: the user chose them.)
        raise ValueError(
            "no analysis applies to these data, so nothing can be compared: "
            + "; ".join(f"{name}: {why}" for name, (_, why) in reasons.items()) + ".")
    runs: list[AnalysisRun] = []
    bar = tqdm(total=len(names) + 2, desc="benchverdict report", disable=not progress,
               unit="analysis", leave=False, file=sys.stderr)
    report_warnings: list[str] = []
    # The analyses and the reconciliation make millions of objects that all live on:
    # full garbage collections found nothing to free and took a sixth of the time. Their
    # linear algebra is small products: on one BLAS thread (_threads), 10% less CPU.
    with fewer_collections(), one_blas_thread(refresh=True):
        try:
            bar.set_postfix_str("describing the data")
            description = results.describe()
            copied = results.copied_runs()
            if copied:
                report_warnings.append(copied)
            bar.update()
            left_out = final_budget_views(results, options)
            complete = left_out.complete
            short, short_cells = left_out.algorithms, left_out.cells
            if len(short_cells):
                report_warnings.append(_short_cells_text(short_cells, warning=True))
            _expect_cubes(complete, names, reasons, options)
            if left_out.blocks is not complete:
                _expect_cubes(left_out.blocks, names, reasons, options)
            # Before any analysis runs: a margin in the wrong unit fails here, at once.
            scores = compared_scores(complete, options)
            effects = scope_effects(scores, options)
            for name in names:
                bar.set_postfix_str(name)
                ok, why = reasons[name]
                if not ok:
                    runs.append(AnalysisRun(name, "not applicable", reason=why))
                elif name not in runners:
                    runs.append(AnalysisRun(name, "unavailable", reason="no runner registered"))
                else:
                    # Rank tests and LMEMs compare runs at the final budget: an algorithm whose
                    # runs all stop before it would be compared on less tuning effort.
                    family = get_family(name)
                    view = left_out.blocks if family.complete_blocks else complete
                    at_final = family.reads == "incumbents" and view is not results
                    run = run_analysis(
                        name, runners[name], view if at_final else results, options,
                        on_step=lambda step, name=name: bar.set_postfix_str(
                            f"{name}: {step}"[:60], refresh=True))
                    if run.status == "ok" and not run.reason:
                        run.reason = why
                    if at_final:
                        _note_stopped_early(run, results, left_out,
                                            blocks=family.complete_blocks)
                    runs.append(run)
                bar.update()
            bar.set_postfix_str("reconciling")
            verdicts = [v for r in runs for v in r.verdicts]
            final_budget = _final_budget(results, options)
            planned = plan_guide(scores, options)
            guidance = sample_size_guidance(runs)
            reconciliation = reconcile(
                verdicts, algorithms=results.algorithms, final_budget=final_budget,
                final_trials=final_trials(results, options),
                guidance=guidance, alpha=options.alpha, benchmarks=results.benchmarks,
                estimand=options.estimand,
                scope_caveat=(_stopped_early_caveat(results, short, short_cells)
                              if short or len(short_cells) else None),
                pooled_caveat=_replicates_caveat(results, options),
                effects=effects,
                plans=planned,
            )
            report_warnings += list(getattr(guidance, "warnings", ()))
            head = reconciliation.scopes.get("all benchmarks")
            if planned is not None and head is not None:
                decided = [(r.a, r.b) for r in head.relations
                           if r.status.value in ("settled", "implied", "equivalent")]
                scope = planned.plan.scope_sentence(settled=decided)
                if scope:
                    reconciliation.notes.append(
                        f"Across benchmarks (paired t on benchmark means, each pair's observed "
                        f"difference): {scope[0].lower()}{scope[1:]}")
            bar.update()
        finally:
            bar.close()
    return Comparison(
        runs=runs,
        reconciliation=reconciliation,
        description=description,
        options=options,
        objective=results.objective,
        algorithms=results.algorithms,
        benchmarks=results.benchmarks,
        n_seeds=len(results.seeds),
        runs_per_cell=_runs_per_cell(scores),
        metafeatures=results.metafeatures,
        requested=requested,
        validation_exclusions=results.exclusions,
        report_warnings=report_warnings,
        results=results,
        left_out=left_out,
    )


@dataclass(frozen=True)
class FinalBudgetViews:
    """What the comparisons at the final budget leave out, and the data they then read.

    Attributes
    ----------
    algorithms : dict
        Algorithms none of whose runs reaches the final budget, left out
        (name -> their longest budget; :func:`~benchverdict.report.stopping
        .stopped_early`); empty when fewer than two would remain.
    cells : pandas.DataFrame
        (algorithm, benchmark) cells none of whose runs reaches the
        benchmark's final budget (:func:`~benchverdict.report.stopping
        .stopped_early_cells`), left out.
    complete : Results
        The data without those algorithms and cells (LMEMs read it).
    blocks : Results
        What a family that needs every algorithm on every benchmark reads
        (rank tests): ``complete``, whose incomplete benchmarks it drops
        itself, or, when that keeps more cells, the data without the
        algorithms that own the cells (:attr:`block_algorithms`).
    block_algorithms : tuple of str
        The algorithms left out of such families for their cells.
    """

    algorithms: dict
    cells: pd.DataFrame
    complete: Results
    blocks: Results
    block_algorithms: tuple[str, ...] = ()


def final_budget_views(results: Results, options: Options) -> FinalBudgetViews:
    """The data each final-budget comparison reads (see :class:`FinalBudgetViews`).

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> views = final_budget_views(_example_small(), Options())
    >>> views.algorithms, len(views.cells), views.complete is views.blocks
    ({}, 0, True)
    """
    short = stopped_early(results, options)
    dropped = short if short and len(results.algorithms) - len(short) >= 2 else {}
    base = (results.subset(algorithms=[a for a in results.algorithms if a not in dropped])
            if dropped else results)
    # An algorithm that reaches the end on some benchmarks and stops early on others: those
    # cells would be compared, as if at the final budget, on less tuning.
    cells = stopped_early_cells(base, options, skip=short)
    if not len(cells):
        return FinalBudgetViews(dropped, cells, base, base)
    complete = base.without_cells(zip(cells["algorithm"], cells["benchmark"]))
    # Rank tests need complete blocks: without the cells they lose those benchmarks; without
    # the cells' algorithms they keep every benchmark. Whichever keeps more cells.
    owners = sorted(set(cells["algorithm"]))
    n_alg, n_bench = len(base.algorithms), len(base.benchmarks)
    keep_algorithms = n_alg * (n_bench - cells["benchmark"].nunique())
    keep_benchmarks = (n_alg - len(owners)) * n_bench if n_alg - len(owners) >= 2 else -1
    if keep_benchmarks > keep_algorithms:
        blocks = base.subset(algorithms=[a for a in base.algorithms if a not in owners])
        return FinalBudgetViews(dropped, cells, complete, blocks, tuple(owners))
    return FinalBudgetViews(dropped, cells, complete, complete)


def _runs_per_cell(scores) -> tuple[int, int] | None:
    """The fewest and most runs an (algorithm, benchmark) cell has among those compared."""
    if scores is None or not len(scores.data):
        return None
    sizes = scores.data.table.groupby(["algorithm", "benchmark"], observed=True).size()
    return int(sizes.min()), int(sizes.max())


def _replicates_caveat(results: Results, options: Options) -> str | None:
    """The headline's caveat on what a replicate across benchmarks is (None: a benchmark)."""
    by = options.replicate_by
    # About exactly these benchmarks the LMEM's replicates are the runs: no task counts once.
    if by is None or options.estimand == "these":
        return copied_runs_caveat(results.copied_runs(), options.estimand)
    levels = int(results.table[by].astype(str).nunique())
    return copied_runs_caveat(results.copied_runs(), options.estimand, declared=(by, levels))


def _stopped_early_caveat(results: Results, short: dict[str, float],
                          short_cells: pd.DataFrame | None = None) -> str:
    parts = []
    if short:
        final = float(results.completeness()["last_budget_max"].max())
        names = [f"{a} (stops at budget {b:g})" for a, b in short.items()]
        parts.append(", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4
                                             else "")
                     + f" left out: not run to the final budget {final:g}")
    if short_cells is not None and len(short_cells):
        parts.append(_short_cells_text(short_cells, warning=False))
    return "; ".join(parts)


def _short_cells_text(cells: pd.DataFrame, *, warning: bool, bare: bool = False) -> str:
    """Which cells stop before their benchmark's final budget, per algorithm (a clause)."""
    per_alg = []
    for alg, group in cells.groupby("algorithm", sort=False):
        benches = group["benchmark"].tolist()
        shown = ", ".join(benches[:3]) + (f" and {len(benches) - 3} more" if len(benches) > 3
                                           else "")
        last = float(group["last_budget"].max())
        per_alg.append(f"{alg} on {shown}, where its runs stop at budget {last:g} or earlier")
    text = "; ".join(per_alg[:4]) + (f"; and {len(per_alg) - 4} more algorithms"
                                      if len(per_alg) > 4 else "")
    if bare:
        return text
    if not warning:
        return f"{text}, left out there: not run to the benchmark's final budget"
    return (f"{len(cells)} algorithm x benchmark cell(s) have no run that reaches the "
            f"benchmark's final budget: {text}. They are left out of the comparisons at the "
            f"final budget (rank tests, LMEM), which would otherwise compare them on less "
            f"tuning; compare at a budget every run reaches with --at-budget (budget=), or "
            f"complete the runs.")


def _note_stopped_early(run: AnalysisRun, results: Results, left_out: FinalBudgetViews, *,
                        blocks: bool = False) -> None:
    """Record the algorithms and cells left out of a final-budget comparison, one per run."""
    runs = results.incomplete_runs()
    short = left_out.algorithms
    if short:
        whole = runs[runs["algorithm"].astype(str).isin(list(short))]
        run.exclude("runs that stop before the final budget", "run", whole,
                    "the algorithm's runs all stop before the final budget")
        run.notes.append(
            "Left out of the comparison at the final budget: "
            + "; ".join(f"{a}, whose runs all stop at budget {b:g} or earlier" for a, b in
                        short.items())
            + ". Compare at a budget they reach with --at-budget (budget=) to include them.")
    cells = left_out.cells
    if not len(cells):
        return
    if blocks and left_out.block_algorithms:
        owners = list(left_out.block_algorithms)
        table = results.table
        # Every run of those algorithms, once (a run: algorithm, benchmark, seed).
        theirs = (table.loc[table["algorithm"].astype(str).isin(owners),
                            ["algorithm", "benchmark", "seed"]].drop_duplicates()
                  .reset_index(drop=True))
        run.exclude("algorithms with cells that stop before the final budget", "run", theirs,
                    "the algorithm's runs stop before the final budget on some benchmarks, "
                    "and every benchmark here is a block that needs every algorithm")
        run.notes.append(
            "Left out of these comparisons at the final budget: "
            + _and_names(owners) + ", whose runs stop before the benchmark's final budget on "
            + f"{len(cells)} cell(s) ({_short_cells_text(cells, warning=False, bare=True)}): "
            "each benchmark is a block that needs every algorithm, and leaving those "
            "benchmarks out instead would keep fewer cells.")
        return
    keys = pd.MultiIndex.from_arrays([runs["algorithm"].astype(str),
                                      runs["benchmark"].astype(str)])
    where = pd.MultiIndex.from_arrays([cells["algorithm"], cells["benchmark"]])
    run.exclude("cells whose runs stop before the benchmark's final budget", "run",
                runs[np.asarray(keys.isin(where))],
                "no run of the algorithm on this benchmark reaches its final budget")
    run.notes.append(
        "Left out of the comparison at the final budget: "
        + _short_cells_text(cells, warning=False)
        + ". Compare at a budget every run reaches with --at-budget (budget=).")


def _and_names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def summarise_exclusions(exclusions: pd.DataFrame, max_examples: int = 5) -> pd.DataFrame:
    """Count exclusion records per analysis, step and kind, with examples and their reasons.

    The summary view :func:`benchverdict.exclusions.summarise_steps` of
    :attr:`Comparison.exclusions` (``what`` is the records' ``unit``).

    Examples
    --------
    >>> import pandas as pd
    >>> ex = pd.DataFrame([{"analysis": "lmem", "step": "incumbents", "unit": "run",
    ...                     "algorithm": "a", "benchmark": "p", "seed": s, "budget": 2.0,
    ...                     "row": None, "reason": "late"} for s in (0, 1)])
    >>> summarise_exclusions(ex)[["analysis", "what", "count", "examples"]].values.tolist()
    [['lmem', 'run', 2, 'a / p / seed 0; a / p / seed 1']]
    """
    return summarise_steps(exclusions, max_examples)


def _final_budget(results: Results, options: Options) -> float | None:
    if options.budget is not None:
        return float(options.budget)
    if results.has_budget:
        return float(np.max(results.budgets))
    return None
