"""One analysis family's run: the settings it runs with and what it produces.

Every family's runner (``run(results, options) -> AnalysisRun``, in its own
package: :mod:`benchverdict.ranks.runner`, :mod:`benchverdict.lmem.runner`,
:mod:`benchverdict.tuning.runner`, :mod:`benchverdict.dse.runner`) takes an
:class:`Options` and returns an :class:`AnalysisRun`: its final verdicts,
tables, figures (:class:`ReportFigure`), notes, warnings, sanity checks and
exclusion records. This module lives below the analysis packages and the
report (beside :mod:`benchverdict.verdict`), so the packages own their
runners and the report only reads the runs. The helpers at the end are what
several runners share: the budget scope, figures drawn as their own
sub-step, the incumbents a budget leaves out, how random-search draws are
read (IID or clustered by run) and the trials a search has at the final
budget.
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import io
import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from benchverdict._plain_text import file_stem, plain_text
from benchverdict.effects.equivalence import Margin
from benchverdict.exclusions import EXCLUSION_COLUMNS, Exclusion
from benchverdict.families import BUILTIN_FAMILIES, get_family
from benchverdict.results import NO_INCUMBENT, Results
from benchverdict.verdict import Scope, Verdict

if TYPE_CHECKING:
    import matplotlib.figure

#: The built-in analyses, in the order they run and appear in the report. The report
#: runs every *registered* family (:func:`benchverdict.families.family_names`), these
#: and any added with :func:`benchverdict.families.register_family`.
ANALYSES = BUILTIN_FAMILIES
#: What a claim across benchmarks is about (see :class:`Options`).
ESTIMANDS = ("benchmarks", "these")
#: How random-search draws of one run relate (see :class:`Options`).
DRAWS = ("auto", "iid", "clustered")
#: Status values of an analysis run.
STATUSES = ("ok", "not applicable", "unavailable", "error")


@dataclass(frozen=True)
class Options:
    """The settings every analysis receives.

    Attributes
    ----------
    confidence : float
        Confidence level of bands and intervals (tuning curves, DSE).
    alpha : float
        Significance level of tests (rank tests, LMEM).
    budget : float or None
        The budget at which incumbents are compared (rank tests, LMEM), in
        the budget column's units (any finite number: fractional and
        negative budgets are fine); ``None``: each run's final budget.
    formula : str or None
        The LMEM's formula; ``None``: the module's default.
    cvar_levels : tuple of float
        The DSE's CVaR levels: Jordan et al.'s 0.5 and a tail level.
    sanity_checks : bool
        Run the LMEM sanity checks (Geburek et al.). They refit the model per
        algorithm and benchmark, which dominates the time with many
        algorithms; a leaderboard skips them and says so.
    estimand : {"benchmarks", "these"}
        What a claim across benchmarks is about. ``"benchmarks"`` (default):
        the benchmarks are a sample of benchmarks like them, and a settled
        relation holds on that population (the LMEM judges the algorithm
        contrast against the algorithm x benchmark variation; the rank tests
        take benchmarks as blocks; tuning curves' "on every benchmark" test
        does not vote there, being about these benchmarks only). ``"these"``:
        claims about exactly the observed benchmarks, worded "on these N
        benchmarks".
    draws : {"auto", "iid", "clustered"}
        How random-search draws relate within a run (a seed's search).
        ``"auto"`` (default): the data's structure decides; draws are IID
        only where every run holds one draw, else clustered by run.
        ``"iid"``: the user states that each draw is independent of the
        other draws of its run (e.g. fresh configuration, data split and
        model seed per trial, as the built-in example's generator does).
        ``"clustered"``: draws of one run share it. Clustered draws do not
        let tuning curves vote (their bands assume IID draws), and score
        distributions resample whole runs.
    figures : bool
        Whether the analyses draw their figures (``compare(...,
        figures=False)`` skips them: the verdicts, tables and reconciliation
        are the same, much faster, e.g. in simulations).
    margin : Margin, float or str, optional
        The margin of practical equivalence (:mod:`benchverdict.effects.equivalence`):
        ``0.01`` in score units, ``"0.2sd"`` in SDs of a benchmark. ``None``
        (default): no pair is declared equivalent, and the report says no
        margin was given (there is no universal one).
    per_benchmark : bool
        Whether the LMEM also makes per-benchmark verdicts (runs as the
        replicates on one benchmark; default). A leaderboard ranks across
        benchmarks only and skips them: with 100 algorithms on 100 benchmarks
        they are 495,000 verdicts about scopes it never shows. Relations
        across benchmarks do not change (each scope type is its own Holm
        family).
    replicate_by : str, optional
        A benchmark metafeature whose levels are the independent units
        across benchmarks, e.g. ``"task"`` when each task is run under
        several variants (PriorBand's prior qualities, several splits of one
        data set). The tests that settle pairs across benchmarks (the LMEM's
        paired test, Wilcoxon-Holm) and the effect sizes count each level
        once (the mean of the pair's differences on its benchmarks;
        :mod:`benchverdict.replicates`). Runs copied between benchmarks are
        joined that way whether or not it is given.
    """

    confidence: float = 0.8
    alpha: float = 0.05
    budget: float | None = None
    formula: str | None = None
    cvar_levels: tuple[float, ...] = (0.5, 0.95)
    sanity_checks: bool = True
    estimand: str = "benchmarks"
    draws: str = "auto"
    figures: bool = True
    margin: Margin | None = None
    per_benchmark: bool = True
    replicate_by: str | None = None

    def __post_init__(self) -> None:
        if self.margin is not None:
            object.__setattr__(self, "margin", Margin.parse(self.margin))
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence!r}.")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha!r}.")
        if self.budget is not None and not (
            isinstance(self.budget, (int, float, np.integer, np.floating))
            and not isinstance(self.budget, bool) and math.isfinite(self.budget)
        ):
            raise ValueError(f"budget must be a finite number, got {self.budget!r}.")
        if self.budget is not None:
            object.__setattr__(self, "budget", float(self.budget))
        levels = tuple(float(a) for a in self.cvar_levels)
        if not levels or not all(0 <= a < 1 for a in levels):
            raise ValueError(f"cvar_levels must be in [0, 1), got {self.cvar_levels!r}.")
        object.__setattr__(self, "cvar_levels", levels)
        if self.estimand not in ESTIMANDS:
            raise ValueError(
                f"estimand must be one of {ESTIMANDS}, got {self.estimand!r}: 'benchmarks' "
                f"for claims about benchmarks like these (the default), 'these' for claims "
                f"about exactly the observed benchmarks.")
        if self.draws not in DRAWS:
            raise ValueError(
                f"draws must be one of {DRAWS}, got {self.draws!r}: 'auto' lets the data's "
                f"structure decide, 'iid' states that every draw is independent of the "
                f"other draws of its run, 'clustered' that draws of one run share it.")


@dataclass
class ReportFigure:
    """A figure of the report, kept as a matplotlib figure until rendered.

    Attributes
    ----------
    name : str
        A file-name-safe identifier (``analysis-what``).
    title : str
        The caption's first sentence.
    figure : matplotlib.figure.Figure
    caption : str
        What the figure shows and how to read it.
    """

    name: str
    title: str
    figure: matplotlib.figure.Figure
    caption: str = ""
    _svg: bytes | None = field(default=None, repr=False)
    _file_name: str | None = field(default=None, repr=False)
    #: The tight box (inches) the SVG was cropped to; later vector files reuse it.
    _bbox: Any = field(default=None, repr=False, compare=False)

    def svg(self) -> bytes:
        """The figure as SVG bytes (rendered once, then cached).

        Every text is drawn literally (no mathtext; control characters shown
        as escapes, see :func:`benchverdict._plain_text.plain_text`).
        """
        if self._svg is None:
            import matplotlib.pyplot as plt

            from benchverdict.plotting import RC, freeze_layout, save_tight

            buffer = io.BytesIO()
            plain_text(self.figure)
            with plt.rc_context(RC):
                self._bbox = save_tight(self.figure, buffer, "svg")
            self._svg = buffer.getvalue()
            # The layout is now computed: later files of the figure (the PDF) keep it
            # and its tight box rather than drawing the figure once more to find them
            # (a vector backend measures text as the SVG one does: the same result).
            freeze_layout(self.figure)
        return self._svg

    def data_uri(self) -> str:
        """A ``data:`` URI of the SVG, for an ``<img>`` in a self-contained page.

        An SVG loaded through ``<img>`` cannot run scripts, so whatever text
        it contains stays inert.
        """
        return "data:image/svg+xml;base64," + base64.b64encode(self.svg()).decode("ascii")

    @property
    def file_name(self) -> str:
        """A file name and LaTeX label for the figure: unique per name and stable.

        See :func:`benchverdict._plain_text.file_stem`.
        """
        return self._file_name or file_stem(self.name)

    def page_size(self) -> tuple[float, float] | None:
        """The saved file's width and height in points (``None`` before it is saved)."""
        if self._bbox is None:
            return None
        return 72.0 * float(self._bbox.width), 72.0 * float(self._bbox.height)

    def row_cuts(self) -> tuple[float, ...]:
        """Heights that pass between rows of panels, in points above the saved file's bottom.

        Each cut lies midway in a gap that no panel crosses, tick labels, axis
        labels and titles included (their tight boxes), nor a figure legend or
        text; panels whose boxes overlap vertically (a colour bar beside its
        heat map, a row of panels) stay on one side. Top cut first; empty
        before the figure is saved, or when nothing can be cut.
        """
        if self._bbox is None:
            return ()
        fig = self.figure
        renderer = fig._get_renderer()  # the canvas's own, or one a dry print makes
        spans = []
        for artist in [*fig.axes, *fig.legends, *fig.texts]:
            if not artist.get_visible():
                continue
            box = artist.get_tightbbox(renderer)
            if box is not None and np.isfinite([box.y0, box.y1]).all():
                spans.append((box.y0 / fig.dpi, box.y1 / fig.dpi))  # inches
        groups: list[list[float]] = []
        for low, high in sorted(spans):
            if groups and low <= groups[-1][1]:
                groups[-1][1] = max(groups[-1][1], high)
            else:
                groups.append([low, high])
        bottom, height = float(self._bbox.y0), float(self._bbox.height)
        cuts = (72.0 * ((lower[1] + upper[0]) / 2 - bottom)
                for lower, upper in itertools.pairwise(groups))
        return tuple(sorted((c for c in cuts if 0.0 < c < 72.0 * height), reverse=True))

    def save(self, directory: Path, formats: Sequence[str] = ("pdf",)) -> list[Path]:
        """Write the figure into ``directory`` as ``<file_name>.<format>`` files."""
        return self.save_as(Path(directory) / self.file_name, formats)

    def save_as(self, path: Path, formats: Sequence[str] = ("pdf",)) -> list[Path]:
        """Write ``<path>.<format>`` files; after :meth:`svg`, with the SVG's layout and box."""
        from benchverdict.plotting import save_figure

        return save_figure(self.figure, path, formats=formats, bbox_inches=self._bbox)


class SampleSizeGuide(Protocol):
    """A family's advice for a pair it could not settle: what more data would settle it.

    ``guide(a, b, (benchmark, metafeature_levels))`` returns one clause (no
    leading capital) or ``None``; ``benchmark`` is ``None`` for the scope
    across benchmarks. ``scope`` says what the advice is about:
    ``"across benchmarks"`` (e.g. the rank tests' independent units) or
    ``"per benchmark"`` (e.g. a tuning curve's band); the report puts the
    first before the second.
    """

    scope: str

    def __call__(self, a: str, b: str, key: tuple) -> str | None:
        """One clause of advice for ``a`` vs ``b`` in scope ``key``, or ``None``."""


@dataclass
class AnalysisRun:
    """What one analysis module produced (or why it did not run).

    Attributes
    ----------
    name : str
        ``"tuning"``, ``"dse"``, ``"ranks"`` or ``"lmem"``.
    status : {"ok", "not applicable", "unavailable", "error"}
    reason : str
        Why it did not run, or which view of the data it ran on.
    verdicts : list of Verdict
    figures : list of ReportFigure
    tables : dict of str to DataFrame
        Tidy tables, by title.
    notes : list of str
        Statements the module makes about the data (replication unit, test
        chosen, sanity checks).
    warnings : list of str
        Warnings raised while it ran, and errors.
    seconds : float
        Wall-clock time.
    guide : SampleSizeGuide, optional
        The family's advice on how much more data would settle a pair it
        could not (``None``: it gives none).
    """

    name: str
    status: str
    reason: str = ""
    verdicts: list[Verdict] = field(default_factory=list)
    figures: list[ReportFigure] = field(default_factory=list)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    sanity: list[dict[str, Any]] = field(default_factory=list)
    exclusions: list[dict[str, Any]] = field(default_factory=list)
    on_step: Callable[[str], None] | None = field(default=None, repr=False, compare=False)
    guide: SampleSizeGuide | None = field(default=None, repr=False, compare=False)

    @property
    def title(self) -> str:
        """The analysis's heading."""
        try:
            return get_family(self.name).title
        except ValueError:  # a run of an analysis that is no longer registered
            return self.name

    @property
    def failed_steps(self) -> list[dict[str, Any]]:
        """The sanity entries of sub-steps that raised (``status`` ``"failed"``)."""
        return [c for c in self.sanity if c.get("status") == "failed"]

    def step(self, step: str) -> None:
        """Say that the analysis starts ``step`` (shown in the report's progress bar)."""
        listener = self.on_step or _STEP_LISTENER.get()
        if listener is not None:
            listener(step)

    def attempt(self, step: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run one sub-step of the analysis; if it raises, record that and return None.

        A sub-step (a post-hoc test, a per-metafeature fit, a figure, a
        sanity check) that fails must not take the rest of the analysis with
        it: the exception becomes a warning and an entry of the report's
        sanity section naming the step and the message (see :meth:`fail`).
        ``KeyboardInterrupt`` is not caught.

        Examples
        --------
        >>> run = AnalysisRun("ranks", "ok")
        >>> run.attempt("Autorank", lambda: 1 / 0) is None
        True
        >>> run.sanity[0]["name"], run.sanity[0]["status"]
        ('Autorank', 'failed')
        >>> run.warnings[0]
        'Autorank failed (ZeroDivisionError: division by zero); the rest of the analysis is kept.'
        """
        self.step(step)
        try:
            return fn(*args, **kwargs)
        except Exception as err:  # recorded in the report, never hidden
            self.fail(step, err)
            return None

    def fail(self, step: str, error: BaseException | str) -> None:
        """Record that sub-step ``step`` raised ``error`` (a warning and a sanity entry).

        A plain ``ValueError`` is a module refusing its input (e.g. too few
        benchmarks for Autorank): the step is recorded as ``"not run"``.
        Anything else (including subclasses such as numpy's ``LinAlgError``)
        is recorded as ``"failed"``.
        """
        if type(error) is ValueError:  # a subclass (LinAlgError, ...) is a numerical failure
            message, status = " ".join(str(error).split()), "not run"
        elif isinstance(error, BaseException):
            message, status = " ".join(f"{type(error).__name__}: {error}".split()), "failed"
        else:
            message, status = " ".join(str(error).split()), "failed"
        if status == "failed":
            self.warnings.append(f"{step} failed ({message}); the rest of the analysis is kept.")
        else:
            self.warnings.append(f"{step} was not run: {message}")
        self.sanity.append({"name": step, "status": status,
                            "conclusion": f"{status.upper()}: {message}"})

    def exclude(self, step: str, what: str, records: Any, reason: str | None = None) -> int:
        """Record what sub-step ``step`` left out: one record per run, seed, cell or row.

        ``records`` is a DataFrame or an iterable of mappings with any of the
        columns of :data:`EXCLUSION_COLUMNS` (others are ignored); each
        becomes an :class:`~benchverdict.exclusions.Exclusion` of this
        analysis, sub-step ``step`` and unit ``what``. ``reason`` fills
        records without one. Returns the number of records added.

        Examples
        --------
        >>> run = AnalysisRun("lmem", "ok")
        >>> run.exclude("incumbents at budget 2", "run",
        ...             [{"algorithm": "a", "benchmark": "p", "seed": 0}], "no trial yet")
        1
        >>> run.exclusions[0]["analysis"], run.exclusions[0]["unit"], run.exclusions[0]["reason"]
        ('lmem', 'run', 'no trial yet')
        """
        if isinstance(records, pd.DataFrame):
            records = records.to_dict("records")
        # Who left it out and what it is are the caller's to say, whatever a record holds.
        located = [c for c in EXCLUSION_COLUMNS if c not in ("analysis", "step", "unit")]
        added = [
            Exclusion.from_mapping({k: record[k] for k in located if k in record},
                                   analysis=self.name, step=step, unit=what,
                                   reason=reason or "").as_dict()
            for record in records
        ]
        self.exclusions += added
        return len(added)


#: ``runner(results, options) -> AnalysisRun``: each family's runner (see
#: :mod:`benchverdict.families`).
Runner = Callable[[Results, Options], AnalysisRun]



#: Called with the name of every sub-step an analysis starts (the report's progress bar).
#: A context variable, so that runners need not pass a progress callback through every
#: function they call, and concurrent reports (threads, tasks) keep their own bars.
_STEP_LISTENER: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "benchverdict_report_step", default=None)


@contextlib.contextmanager
def listening_to_steps(listener: Callable[[str], None] | None) -> Iterator[None]:
    """Call ``listener(step)`` whenever a run in this context starts a sub-step.

    :meth:`AnalysisRun.step` reports to it (a run's own ``on_step`` wins).

    Examples
    --------
    >>> seen = []
    >>> with listening_to_steps(seen.append):
    ...     AnalysisRun("ranks", "ok").step("Friedman")
    >>> seen
    ['Friedman']
    """
    token = _STEP_LISTENER.set(listener)
    try:
        yield
    finally:
        _STEP_LISTENER.reset(token)


# ----------------------------------------------------------------------------- shared by runners
#: At most this many per-benchmark figures per analysis (the rest are in the tables).
MAX_FIGURES_PER_ANALYSIS = 8
#: Figures with one label per algorithm are drawn up to this many algorithms, and figures
#: with one row per pair up to this many pairs; beyond, they cannot be read (and take
#: minutes to draw), so the report says so and the tables carry the numbers.
MAX_FIGURE_ALGORITHMS = 60
MAX_FIGURE_PAIRS = 120


def _report_figure(name: str, title: str, obj: Any, caption: str = "") -> ReportFigure:
    """Wrap the Axes/Figure a ``.plot()`` returned; close it in pyplot (it stays renderable)."""
    import matplotlib.pyplot as plt  # only where a figure is drawn: plotting is optional work

    fig = obj if isinstance(obj, plt.Figure) else obj.figure
    plt.close(fig)
    return ReportFigure(name, title, fig, caption)


#: Metafeatures with at most this many levels get their own scope (e.g. prior quality).
MAX_METAFEATURE_LEVELS = 6


def level_metafeatures(results: Results) -> dict[str, list[str]]:
    """Metafeatures that split the benchmarks into a few groups, with their levels.

    A metafeature qualifies when it is constant within every benchmark, has
    2 to ``MAX_METAFEATURE_LEVELS`` levels, and every level holds at least 2
    benchmarks (e.g. PriorBand's prior quality). Each level becomes a scope
    of its own in the rank and LMEM analyses.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> level_metafeatures(_example_small())
    {}
    """
    out: dict[str, list[str]] = {}
    if not results.metafeatures:
        return out
    desc = results.describe().metafeatures
    for name in results.metafeatures:
        if not bool(desc.loc[name, "constant_within_benchmark"]):
            continue
        per_bench = results.first_per_benchmark(name).dropna()
        counts = per_bench.astype(str).value_counts()
        if 2 <= len(counts) <= MAX_METAFEATURE_LEVELS and (counts >= 2).all():
            out[name] = sorted(counts.index)
    return out


def benchmarks_at(results: Results, name: str, value: str) -> list[str]:
    """The benchmarks whose metafeature ``name`` has the value ``value`` (sorted names).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict.results import Results
    >>> frame = pd.DataFrame({"algorithm": ["a", "b"] * 3, "benchmark": list("ppqqrr"),
    ...                       "seed": 0, "score": range(6), "prior": list("ggggbb")})
    >>> res = Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
    ...                          seed="seed", score="score", objective="maximize",
    ...                          kind="runs", metafeatures=["prior"])
    >>> benchmarks_at(res, "prior", "g")
    ['p', 'q']
    """
    per_bench = results.first_per_benchmark(name).astype(str)
    return sorted(per_bench.index[per_bench == value].astype(str))


def budget_scope(budget: float | None) -> Scope:
    """The scope of a verdict at ``budget`` (in the budget column's unit; ``None``: final).

    Examples
    --------
    >>> budget_scope(None) == Scope(), budget_scope(8.0).budget_high
    (True, 8.0)
    """
    return Scope() if budget is None else Scope(budget_low=budget, budget_high=budget)


def add_figure(run: AnalysisRun, options: Options, name: str, title: str,
               make: Callable[[], Any], caption: str = "", *, n_algorithms: int = 0,
               n_pairs: int = 0) -> None:
    """Draw a figure as its own sub-step: a figure that fails costs only itself.

    A figure with more than :data:`MAX_FIGURE_ALGORITHMS` algorithms (or
    :data:`MAX_FIGURE_PAIRS` pair rows) is not drawn; a note says so. With
    ``compare(..., figures=False)`` (``options.figures``) no figure is drawn.

    Examples
    --------
    >>> run = AnalysisRun("ranks", "ok")
    >>> add_figure(run, Options(), "x", "Too many", lambda: None, n_algorithms=99)
    >>> run.figures, run.notes[0][:28]
    ([], "Figure 'Too many' is not dra")
    """
    if not options.figures:
        return
    if n_algorithms > MAX_FIGURE_ALGORITHMS or n_pairs > MAX_FIGURE_PAIRS:
        what = (f"{n_algorithms:,} algorithms" if n_algorithms > MAX_FIGURE_ALGORITHMS
                else f"{n_pairs:,} pairs")
        run.notes.append(f"Figure '{title}' is not drawn: with {what} it could not be read; "
                         f"the tables have every value.")
        return
    figure = run.attempt(f"figure '{title}'", lambda: _report_figure(name, title, make(), caption))
    if figure is not None:
        run.figures.append(figure)


def with_verdicts(make: Callable[[], Any]) -> tuple[Any, list[Verdict]]:
    """A module result and its verdicts, made in one sub-step (either may raise).

    Examples
    --------
    >>> class Result:
    ...     def verdicts(self):
    ...         return iter([])
    >>> with_verdicts(Result)[1]
    []
    """
    result = make()
    return result, list(result.verdicts())


def note_exclusions(run: AnalysisRun, n: int, what: str, where: str) -> None:
    """Add a note that ``n`` things were left out ``where`` (nothing when ``n`` is 0).

    Examples
    --------
    >>> run = AnalysisRun("lmem", "ok")
    >>> note_exclusions(run, 3, "run(s)", "of the model")
    >>> run.notes
    ["3 run(s) left out of the model (listed in the report's exclusions)."]
    """
    if n:
        run.notes.append(f"{n:,} {what} left out {where} (listed in the report's exclusions).")


def runs_without_incumbent(results: Results, budget: float | None) -> pd.DataFrame:
    """Runs with no observation at or below ``budget`` (none for the final budget).

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> len(runs_without_incumbent(_example_small(), None))
    0
    """
    if budget is None:
        return pd.DataFrame(columns=["algorithm", "benchmark", "seed", "budget", "reason"])
    late = results.runs_without_incumbent(budget)
    frame = late[["algorithm", "benchmark", "seed"]].copy()
    frame["budget"] = budget
    frame["reason"] = [f"{NO_INCUMBENT} {budget:g} (the run starts at {first:g})"
                       for first in late["first_budget"]]
    return frame


def view_left_out(view: Results) -> pd.DataFrame:
    """The runs a view of the incumbents left out, as the report's exclusion records.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> list(view_left_out(_example_small().final()).columns)
    ['algorithm', 'benchmark', 'seed', 'reason']
    """
    ex = view.exclusions
    runs = ex[ex["unit"] == "run"]
    return pd.DataFrame({"algorithm": runs["algorithm"], "benchmark": runs["benchmark"],
                         "seed": runs["seed"], "reason": runs["reason"]})




def draws_reading(results: Results, options: Options) -> tuple[str, str]:
    """Whether random-search draws are IID or clustered by run, and why (for the output).

    ``options.draws`` decides when the user stated it; with ``"auto"`` the
    data's structure does: draws are IID only where every run (algorithm x
    benchmark x seed) holds one draw. A run of several trials may share
    whatever its seed fixes (a data split, an initialisation), which the
    data cannot rule out.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> draws_reading(_example_small(), Options(draws="iid"))[0]
    'iid'
    """
    if options.draws == "iid":
        return "iid", "stated IID (draws='iid'): every draw is taken as its own replicate"
    sizes = results.run_sizes() if results.kind == "trials" else None
    if options.draws == "clustered":
        return "clustered", "stated clustered (draws='clustered'): draws of one run share it"
    if sizes is None or not len(sizes) or int(sizes.max()) <= 1:
        return "iid", "every run holds one draw, so the draws are IID by the data's structure"
    lo, hi = int(sizes.min()), int(sizes.max())
    return "clustered", (
        f"runs hold {lo if lo == hi else f'{lo}-{hi}'} draws each; draws of one run "
        f"(seed) may share it, so the run is the unit of replication")


def draws_reason(reading: str, results: Results) -> str:
    """The analysis status line's "on what": the draws and how they were read.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> draws_reason("iid", _example_small())
    'on the random-search draws, read as IID (one replicate each)'
    """
    if reading == "iid":
        return "on the random-search draws, read as IID (one replicate each)"
    sizes = results.run_sizes()
    lo, hi = int(sizes.min()), int(sizes.max())
    return (f"on the random-search draws, clustered by run ({len(sizes):,} runs of "
            f"{lo if lo == hi else f'{lo}-{hi}'} draws; the run is the replicate)")


def final_trials(results: Results, options: Options) -> float | None:
    """The trials ``k`` a search has at the final budget: where a tuning curve meets it.

    The one conversion between the two axes of a :class:`~benchverdict.verdict.Scope`:
    the budget column's unit (rank tests, LMEM) and the number of random-search
    draws (tuning curves, DSE). ``None`` without a trial order.

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> final_trials(_example_small(), Options()) is None or True
    True
    """
    trials = trials_per_run(results, options.budget)
    return float(trials.max()) if trials is not None and len(trials) else None


def trials_per_run(results: Results, budget: float | None) -> pd.Series | None:
    """Trials per run (algorithm, benchmark, seed) at ``budget`` (default: all of them).

    ``None`` without a trial order (no budget column): then the rows of a
    cell are draws with no search they belong to.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchverdict.results import Results
    >>> frame = pd.DataFrame({"algorithm": list("aaabbb"), "benchmark": "p",
    ...                       "seed": [0, 0, 1] * 2, "budget": [1, 2, 1] * 2,
    ...                       "score": [0.1, 0.2, 0.3] * 2})
    >>> res = Results.from_frame(frame, algorithm="algorithm", benchmark="benchmark",
    ...                          seed="seed", budget="budget", score="score",
    ...                          objective="maximize", kind="trials")
    >>> trials_per_run(res, None).tolist()
    [2, 1, 2, 1]
    """
    if not results.has_budget:
        return None
    return results.run_sizes(budget)


def attempt_levels(run: AnalysisRun, results: Results) -> list[tuple[str, list[str]]]:
    """:func:`level_metafeatures` as a sub-step of ``run`` (none if it fails).

    Examples
    --------
    >>> from benchverdict.results import _example_small
    >>> attempt_levels(AnalysisRun("ranks", "ok"), _example_small())
    []
    """
    levels = run.attempt("metafeature levels", level_metafeatures, results)
    return list((levels or {}).items())
