"""What an analysis run of the report produces, and the settings it runs with.

The types shared by the runner (:mod:`~benchverdict.report.runner`), the
analyses (:mod:`~benchverdict.report._analyses`) and the figures
(:mod:`~benchverdict.report.figures`): :class:`Options`,
:class:`ReportFigure`, :class:`AnalysisRun` and the exclusion records. They
live below all three so that none imports another in a circle.
"""

from __future__ import annotations

import base64
import contextvars
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from benchverdict._plain_text import file_stem, plain_text
from benchverdict.exclusions import EXCLUSION_COLUMNS, Exclusion, is_missing
from benchverdict.families import BUILTIN_FAMILIES, get_family
from benchverdict.verdict import Verdict

if TYPE_CHECKING:
    import matplotlib.figure

    from benchverdict.results import Results

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

    def __post_init__(self) -> None:
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

    def svg(self) -> bytes:
        """The figure as SVG bytes (rendered once, then cached).

        Every text is drawn literally (no mathtext; control characters shown
        as escapes, see :func:`benchverdict._plain_text.plain_text`).
        """
        if self._svg is None:
            import matplotlib.pyplot as plt

            from benchverdict.plotting import RC

            buffer = io.BytesIO()
            plain_text(self.figure)
            with plt.rc_context(RC):
                self.figure.savefig(buffer, format="svg", bbox_inches="tight")
            self._svg = buffer.getvalue()
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

    def save(self, directory: Path, formats: Sequence[str] = ("pdf",)) -> list[Path]:
        """Write the figure into ``directory`` as ``<file_name>.<format>`` files."""
        from benchverdict.plotting import save_figure

        return save_figure(self.figure, Path(directory) / self.file_name, formats=formats)


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


def _missing(value: Any) -> bool:
    return is_missing(value)


#: ``runner(results, options) -> AnalysisRun`` for each analysis (filled in _analyses).
Runner = Callable[["Results", Options], AnalysisRun]



#: Called with the name of every sub-step an analysis starts (the report's progress bar).
_STEP_LISTENER: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "benchverdict_report_step", default=None)


