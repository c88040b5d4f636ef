"""The report as typed data: everything a format shows, decided once.

:func:`benchverdict.report.render.build_document` reads a
:class:`~benchverdict.report.runner.Comparison` and returns a
:class:`ReportDocument`; every format (HTML, Markdown, LaTeX, JSON, the
terminal) is rendered from it and only formats it. Texts are final
(statuses, labels, sentences, the order of rows); long lists are capped
where every format caps them, with the number of rows left out. What a
single format does with its page (40 rows of a Markdown table, 12 scope
sentences) is that format's choice, with the limits below.

Two parts are costly and needed by some formats only, so they are computed
on first use (:class:`Lazy`): the figures (drawn and rendered to SVG) and
the full JSON records (every verdict, agreement row and conflict).

This module imports nothing from the rest of the package, so a renderer
that reads only it cannot depend on how the comparison was computed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

#: At most this many rows of a table are shown inline in HTML, Markdown and LaTeX.
MAX_TABLE_ROWS = 40
#: At most this many scope sentences, explanations or guidance lines in Markdown and LaTeX.
MAX_SCOPE_LINES = 12
#: At most this many notes per analysis (and warnings) in Markdown and LaTeX.
MAX_NOTES = 5
#: Above this many algorithms the matrix names families by one letter (L, R, T, D).
WIDE_MATRIX = 7

T = TypeVar("T")


class Lazy(Generic[T]):
    """A value computed on first use, then kept.

    Examples
    --------
    >>> calls = []
    >>> value = Lazy(lambda: calls.append(1) or "drawn")
    >>> value.get(), value.get(), len(calls)
    ('drawn', 'drawn', 1)
    """

    __slots__ = ("_compute", "_done", "_value")

    def __init__(self, compute: Callable[[], T]) -> None:
        self._compute = compute
        self._value: T | None = None
        self._done = False

    def get(self) -> T:
        """The value (computed on the first call)."""
        if not self._done:
            self._value = self._compute()
            self._done = True
            self._compute = None  # release what the computation closed over
        return self._value  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"Lazy({'computed' if self._done else 'not computed'})"


@dataclass(frozen=True)
class Table:
    """A table as text: header, formatted rows (``body``) and how many rows were left out.

    Examples
    --------
    >>> t = Table(("a", "b"), (("1", "x"),), n_left_out=2)
    >>> t.total, bool(t)
    (3, True)
    """

    header: tuple[str, ...]
    body: tuple[tuple[str, ...], ...]
    n_left_out: int = 0

    @property
    def total(self) -> int:
        """Rows shown plus rows left out."""
        return len(self.body) + self.n_left_out

    def __bool__(self) -> bool:
        return bool(self.body)


@dataclass(frozen=True)
class MatrixCell:
    """How the row algorithm relates to the column one (see ``report.summary.Cell``)."""

    kind: str
    text: str
    short: str
    title: str
    background: str
    foreground: str
    #: How much better the row is than the column ("+0.086"), or "".
    effect: str = ""

    @property
    def colours(self) -> tuple[str, str]:
        """(background, text) colour."""
        return (self.background, self.foreground)


@dataclass(frozen=True)
class LegendEntry:
    """One kind of matrix cell: its name, meaning and background colour."""

    kind: str
    meaning: str
    colour: str


@dataclass(frozen=True)
class Matrix:
    """The headline scope's pairwise matrix; ``cells[i][j]`` is ``order[i]`` vs ``order[j]``.

    The diagonal is ``None``. ``wide`` says whether cells name families by
    one letter (more than :data:`WIDE_MATRIX` algorithms); ``letters`` pairs
    each registered family's letter with its name, for the legend.
    """

    scope: str
    order: tuple[str, ...]
    cells: tuple[tuple[MatrixCell | None, ...], ...]
    legend: tuple[LegendEntry, ...]
    wide: bool
    letters: tuple[tuple[str, str], ...] = ()

    @property
    def letters_legend(self) -> str:
        """The families' letters in words ("families: L LMEM, R rank tests, ...").

        Examples
        --------
        >>> Matrix("all", (), (), (), True, (("L", "LMEM"), ("R", "rank tests"))).letters_legend
        'families: L LMEM, R rank tests'
        """
        return "families: " + ", ".join(f"{letter} {name}" for letter, name in self.letters)

    def plain_rows(self) -> tuple[list[str], list[list[str]]]:
        """Header and rows as plain text (one letter per family when wide, "·" on the diagonal).

        Examples
        --------
        >>> cell = MatrixCell("better", "▲ LMEM", "▲ L", "A > B", "#000", "#fff")
        >>> Matrix("all", ("A", "B"), ((None, cell), (None, None)), (), False).plain_rows()
        (['', 'A', 'B'], [['A', '·', '▲ LMEM'], ['B', '·', '·']])
        """
        header = ["", *self.order]
        rows = [[x, *("·" if cell is None else (cell.short if self.wide else cell.text)
                      + ("" if self.wide or not cell.effect else f" {cell.effect}")
                      for cell in row)]
                for x, row in zip(self.order, self.cells)]
        return header, rows


@dataclass(frozen=True)
class ScopeLine:
    """One scope's headline: the scope in words, its sentence, its single-draw row ("")."""

    scope: str
    sentence: str
    single_draws: str = ""


@dataclass(frozen=True)
class Summary:
    """The first screen of every format.

    Attributes
    ----------
    head : ScopeLine or None
        The scope the summary leads with (all benchmarks when judged).
    headline : str
        The head's sentence, or what stands in for it when there is no head.
    others : tuple of ScopeLine
        Every other scope (all of them when there is no head).
    matrix : Matrix or None
        The head's pairwise matrix (none without a head or with too many algorithms).
    notes : tuple of str
        The reconciliation's notes.
    single_draws : tuple of str
        The single-draw rows of the scopes that have one.
    n_contradicted : int
        Relations whose families contradict each other.
    status_counts : str
        Relations per status ("3 settled, 0 implied, ... over 5 scope(s)").
    """

    head: ScopeLine | None
    headline: str
    others: tuple[ScopeLine, ...]
    matrix: Matrix | None
    notes: tuple[str, ...]
    single_draws: tuple[str, ...]
    n_contradicted: int
    status_counts: str


@dataclass(frozen=True)
class Guidance:
    """One sample-size advice, with the scopes it applies to (in words)."""

    scopes: str
    advice: str


@dataclass(frozen=True)
class Figure:
    """A figure: what it is called and shows, and how to get its picture.

    ``svg()`` and ``save()`` render the figure (the first SVG is kept by its
    source), so a format that does not show it costs nothing.
    """

    name: str
    file_name: str
    title: str
    caption: str
    width_inches: float
    render_svg: Callable[[], bytes] = field(repr=False, compare=False)
    write: Callable[[Path, tuple[str, ...]], list[Path]] = field(repr=False, compare=False)
    #: After a save: the file's width and height in points (``None`` where not known), and
    #: the heights that pass between its rows of panels (see ReportFigure.row_cuts).
    page_size: Callable[[], tuple[float, float] | None] = field(
        default=lambda: None, repr=False, compare=False)
    row_cuts: Callable[[], tuple[float, ...]] = field(default=tuple, repr=False, compare=False)

    def svg(self) -> bytes:
        """The figure as SVG bytes."""
        return self.render_svg()

    def save(self, directory: Path, formats: tuple[str, ...] = ("pdf",)) -> list[Path]:
        """Write ``<file_name>.<format>`` files into ``directory``."""
        return self.write(Path(directory), tuple(formats))


@dataclass(frozen=True)
class AnalysisTable:
    """One of an analysis's tables: its title, CSV name and first rows."""

    title: str
    csv_name: str
    table: Table


@dataclass(frozen=True)
class AnalysisSection:
    """What one analysis produced, or why it did not run.

    ``figures`` are all of its figures; :attr:`Drawings.analyses` has the
    ones with distinct pictures, the ones the formats show.
    """

    name: str
    title: str
    status: str
    reason: str
    n_verdicts: int
    seconds: float
    notes: tuple[str, ...]
    warnings: tuple[str, ...]
    distinct_warnings: tuple[str, ...]
    figures: tuple[Figure, ...]
    tables: tuple[AnalysisTable, ...]


@dataclass(frozen=True)
class Drawings:
    """The figures the formats show, drawn on first use (see :attr:`ReportDocument.drawings`).

    ``analyses`` holds, per analysis in the order of
    :attr:`ReportDocument.analyses`, its figures with distinct pictures.
    """

    ranking: Figure | None
    ranking_scopes: Figure | None
    agreement: Figure | None
    analyses: tuple[tuple[Figure, ...], ...]


@dataclass(frozen=True)
class SanityCheck:
    """One sanity check of an analysis; ``record`` holds every field of it, JSON-safe."""

    analysis: str
    name: str
    status: str
    conclusion: str
    record: Mapping[str, Any]


@dataclass(frozen=True)
class ExclusionStep:
    """How many things one analysis step left out, examples, and its reasons."""

    analysis: str
    step: str
    what: str
    count: int
    examples: str
    reason: str


@dataclass(frozen=True)
class ValidationExclusion:
    """Rows dropped when the data were read, per column and reason."""

    column: str
    reason: str
    n_rows: int


@dataclass(frozen=True)
class Budgets:
    """The budget range of the data (``None`` for a non-finite end)."""

    min: float | None
    max: float | None
    distinct: int | None


@dataclass(frozen=True)
class DataFacts:
    """The data the comparison read."""

    n_rows: int
    kind: str
    kind_reason: str
    algorithms: tuple[str, ...]
    benchmarks: tuple[str, ...]
    n_seeds: int
    metafeatures: tuple[str, ...]
    budgets: Budgets | None
    balanced: bool
    n_missing_cells: int
    seeds_per_cell: tuple[int, int]
    n_excluded_rows: int
    validation_exclusions: tuple[ValidationExclusion, ...]


@dataclass(frozen=True)
class Settings:
    """The options the comparison ran with, and the sentence that states them."""

    analyses: tuple[str, ...]
    confidence: float
    alpha: float
    budget: float | None
    formula: str | None
    final_budget: float | None
    estimand: str
    draws: str
    text: str
    #: The margin of practical equivalence: (value, in SDs of a benchmark?), or None.
    margin: tuple[float, bool] | None = None


class Rows(Sequence):
    """A full table's JSON records, made a chunk of rows at a time on each pass.

    A 200-algorithm report has 280,000 verdicts and 220,000 agreement rows:
    kept as dicts they took gigabytes, so a writer streams them instead
    (``tuple(rows)`` still gives every record).

    Examples
    --------
    >>> rows = Rows(3, lambda: iter([[{"i": 0}, {"i": 1}], [{"i": 2}]]))
    >>> len(rows), [r["i"] for r in rows], rows[2]
    (3, [0, 1, 2], {'i': 2})
    """

    __slots__ = ("_chunks", "_n")

    def __init__(self, n: int, chunks: Callable[[], Iterable[list[dict[str, Any]]]]) -> None:
        self._n = int(n)
        self._chunks = chunks

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for chunk in self._chunks():
            yield from chunk

    def chunks(self) -> Iterator[list[dict[str, Any]]]:
        """The records in lists of a few thousand (each list made when it is reached)."""
        return iter(self._chunks())

    def __getitem__(self, index):  # type: ignore[override]
        # Rare (the writers iterate): every record is made to answer it.
        return list(self)[index]

    def __repr__(self) -> str:
        return f"Rows({self._n})"


@dataclass(frozen=True)
class Records:
    """The full tables as JSON-ready records (only the JSON document holds them all).

    The long tables are :class:`Rows` (made on each pass, never all kept) or tuples.
    """

    verdicts: Sequence[dict[str, Any]]
    agreement: Sequence[dict[str, Any]]
    conflicts: Sequence[dict[str, Any]]
    method_agreement: dict[str, Any]
    rankings: tuple[dict[str, Any], ...]
    #: Every pair of every scope: status, evidence, effect and equivalence (relations.csv).
    relations: Sequence[dict[str, Any]] = ()


@dataclass(frozen=True)
class CsvTable:
    """A full table of the report, written as ``<name>.csv`` (the formats link to it)."""

    name: str
    frame: Any = field(repr=False, compare=False)
    with_index: bool = False

    @property
    def file_name(self) -> str:
        """The table's CSV file name.

        The renderers write it with :func:`benchverdict._safe_output.write_csv`
        (``index=with_index``), which no spreadsheet can run as formulas; the
        model itself imports nothing of the package.
        """
        return f"{self.name}.csv"


@dataclass(frozen=True)
class GlossaryEntry:
    """One technical term: its headword, a plain definition and the spellings it appears under.

    Examples
    --------
    >>> GlossaryEntry("Kendall's W", "Agreement of rankings.").anchor
    'g-kendall-s-w'
    """

    term: str
    definition: str
    aliases: tuple[str, ...] = ()

    @property
    def spellings(self) -> tuple[str, ...]:
        """The headword and its aliases."""
        return (self.term, *self.aliases)

    @property
    def anchor(self) -> str:
        """The HTML id of the entry ("g-power-gap")."""
        import re

        return "g-" + re.sub(r"[^a-z0-9]+", "-", self.term.lower()).strip("-")


@dataclass(frozen=True)
class PaperParagraph:
    """The results paragraph of one scope ("all benchmarks", "benchmark moons")."""

    scope: str
    text: str


@dataclass(frozen=True)
class Paper:
    """The sentences a paper can quote (:mod:`benchverdict.report.prose`) and what they cite.

    Attributes
    ----------
    methods : str
        The methods paragraph, citations as author-year text.
    methods_latex, methods_pandoc : str
        The same with ``\\citep{key}`` / ``[@key]`` citations (keys of :attr:`bibtex`).
    results : tuple of PaperParagraph
        One paragraph per scope across benchmarks (the only scope with one benchmark).
    results_per_benchmark : tuple of PaperParagraph
        One paragraph per benchmark.
    references : tuple of str
        The works cited, in words.
    bibtex : str
        The BibTeX entries of exactly the works cited (``references.bib``).
    """

    methods: str
    methods_latex: str
    methods_pandoc: str
    results: tuple[PaperParagraph, ...]
    results_per_benchmark: tuple[PaperParagraph, ...]
    references: tuple[str, ...]
    bibtex: str


@dataclass(frozen=True)
class ResultsTableSection:
    """The report's results table (:mod:`benchverdict.report.results_table`), ready for each format.

    The page shows at most
    :data:`~benchverdict.report.results_table.MAX_REPORT_ROWS` rows and
    :data:`~benchverdict.report.results_table.MAX_REPORT_COLUMNS` columns
    (one row per algorithm when there are many algorithms and few
    benchmarks); :attr:`note` says what it leaves out. The LaTeX, the CSV
    and the JSON record hold the whole table.

    Attributes
    ----------
    caption : str
        What the cells are, in a line ("Results (mean and SD over seeds, final budget).").
    markdown : str
        The shown table as a Markdown pipe table, then its legend.
    html : str
        The shown table as ``<table class="bv-results-table">``, the legend its
        caption; every name escaped.
    latex : str
        The whole table as a booktabs ``table`` float (``results_table.tex``).
    note : str
        What the shown table leaves out and where it is ("" when it is whole),
        or why there is no table.
    frame : pandas.DataFrame or None
        The tidy table, one row per benchmark and algorithm
        (``results_table.csv``); None when the data give no table (then the
        other texts are empty and :attr:`note` says why).
    record : mapping
        The JSON form (``paper.results_table`` of ``report.json``; empty
        without a table).
    """

    caption: str
    markdown: str
    html: str
    latex: str
    note: str
    frame: Any = field(repr=False, compare=False)
    record: Mapping[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class ReportDocument:
    """Everything the report shows, in every format.

    Built by :func:`benchverdict.report.render.build_document` (once per
    comparison: :meth:`Comparison.document
    <benchverdict.report.runner.Comparison.document>`).

    Attributes
    ----------
    title, objective, version : str
    settings : Settings
    summary : Summary
    contradictions, method_disagreements, power_gaps : Table
        The relations families decide in opposite ways; the disagreements of
        single methods grouped by explanation; the power gaps.
    n_conflicts : int
        Disagreements between single methods.
    guidance : tuple of Guidance
    relations, head_relations : Table
        Every scope's relations; the headline scope's (``None`` without a head).
    agreement, verdicts : Table
        Each method's verdict per pair and scope; every verdict.
    analyses : tuple of AnalysisSection
    data : DataFacts
    data_rows : tuple of (str, str)
        The data in words.
    description : str
        The full description of the data.
    balance, validation_exclusions, exclusion_table : Table
        Seeds per algorithm x benchmark; rows dropped in validation (``None``
        when none); what each analysis step left out (``None`` when nothing).
    exclusions : tuple of ExclusionStep
    n_excluded_records : int
        Rows, runs, seeds or cells left out by validation or the analyses.
    sanity : tuple of SanityCheck
    warnings, distinct_warnings : tuple of str
        Every warning; the same with similar ones stated once.
    csv_tables : tuple of CsvTable
    drawings : Lazy of Drawings
    records : Lazy of Records
    paper : Paper or None
        The methods and results paragraphs and their references (``None``
        for a document built without them).
    glossary : tuple of GlossaryEntry
        Every technical term the formats may print; each format defines
        those its text uses.
    results_table : Lazy of ResultsTableSection or None
        The results table a paper prints, built on first use (``None`` for a
        comparison that does not keep its data).
    power_gap_sentence : str
        How many pairs are power gaps (status "power gap": one family decides
        them alone, not after the adjustment), or "" when none is.
    """

    title: str
    objective: str
    version: str
    settings: Settings
    summary: Summary
    contradictions: Table
    method_disagreements: Table
    n_conflicts: int
    power_gaps: Table
    guidance: tuple[Guidance, ...]
    relations: Table
    head_relations: Table | None
    agreement: Table
    verdicts: Table
    analyses: tuple[AnalysisSection, ...]
    data: DataFacts
    data_rows: tuple[tuple[str, str], ...]
    description: str
    balance: Table
    validation_exclusions: Table | None
    exclusions: tuple[ExclusionStep, ...]
    exclusion_table: Table | None
    n_excluded_records: int
    sanity: tuple[SanityCheck, ...]
    warnings: tuple[str, ...]
    distinct_warnings: tuple[str, ...]
    csv_tables: tuple[CsvTable, ...]
    drawings: Lazy[Drawings] = field(repr=False, compare=False)
    records: Lazy[Records] = field(repr=False, compare=False)
    paper: Paper | None = field(default=None, repr=False, compare=False)
    glossary: tuple[GlossaryEntry, ...] = field(default=(), repr=False, compare=False)
    results_table: Lazy[ResultsTableSection | None] = field(
        default_factory=lambda: Lazy(lambda: None), repr=False, compare=False)
    power_gap_sentence: str = ""

    @property
    def n_verdicts(self) -> int:
        """Every verdict of every analysis (shown or not)."""
        return self.verdicts.total


__all__ = [
    "MAX_NOTES",
    "MAX_SCOPE_LINES",
    "MAX_TABLE_ROWS",
    "WIDE_MATRIX",
    "AnalysisSection",
    "AnalysisTable",
    "Budgets",
    "CsvTable",
    "DataFacts",
    "Drawings",
    "ExclusionStep",
    "Figure",
    "GlossaryEntry",
    "Guidance",
    "Lazy",
    "LegendEntry",
    "Matrix",
    "MatrixCell",
    "Paper",
    "PaperParagraph",
    "Records",
    "ReportDocument",
    "ResultsTableSection",
    "Rows",
    "SanityCheck",
    "ScopeLine",
    "Settings",
    "Summary",
    "Table",
    "ValidationExclusion",
]
