"""The report's summary, as data: per scope its sentence, pairwise matrix and partial order.

Every format (HTML, Markdown, LaTeX, the notebook view) draws its first
screen from :func:`scope_summaries`, so they say the same thing. The input
is the reconciliation's typed relations (:mod:`benchverdict.report.relations`):
per scope one :class:`~benchverdict.report.relations.Relation` per pair with
a *status* (settled, implied, contradicted, power gap, unsettled) and the
family votes behind it, the partial order, the groups and the headline.

The pairwise matrix reads along rows: cell (row ``x``, column ``y``) says
how ``x`` relates to ``y``. Algorithms are ordered best first by their net
number of settled or implied wins (beats minus beaten), ties in the data's
order, so a total order shows as a triangle of "better" cells.

For a paper (issue 23), :func:`methods_paragraph` says what was run and
how it was decided, from the comparison's options and analyses (which tests
each family used and through which method it voted, what a replicate is,
the adjustment and its family, the estimand, effects and equivalence), with
citation marks of :mod:`benchverdict.report.citations`;
:func:`results_paragraphs` says per scope who beats whom and by how much
(the typed relations' effects, formatted as the matrix formats them), what
is implied, equivalent, contradicted, a power gap or not separated.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from benchverdict._colour import RELATION_COLOURS
from benchverdict.families import families as all_families
from benchverdict.families import family_rank
from benchverdict.report.prose import copied_runs_caveat
from benchverdict.report.relations import Relation, Status, effect_decimals, effect_text
from benchverdict.verdict import metafeature_label

if TYPE_CHECKING:
    from benchverdict.report.reconcile import Reconciliation

#: One letter per family, for the cells of a wide matrix (many algorithms).
#: Cell kinds, in the order the legend lists them.
CELL_KINDS = ("better", "worse", "implied better", "implied worse", "equivalent",
              "contradicted", "power gap", "unsettled")
#: Cell colours (Okabe-Ito, colour-blind safe): background and text.
CELL_COLOURS = RELATION_COLOURS
#: What each cell kind means (legend text).
CELL_MEANING = {
    "better": "row beats column: settled (family-wise error controlled)",
    "worse": "row loses to column: settled",
    "implied better": "row beats column by transitivity of settled relations",
    "implied worse": "row loses to column by transitivity",
    "equivalent": "practically equivalent: the difference is within the margin (TOST)",
    "contradicted": "families decide opposite ways",
    "power gap": "one family decides alone, not after the family-wise adjustment",
    "unsettled": "no family separates them",
}
#: Above this many algorithms the matrix is not drawn (relations.csv has every pair).
MAX_MATRIX_ALGORITHMS = 30


def family_text(families: list[str]) -> str:
    """Families in short form, joined ("LMEM + tuning").

    Examples
    --------
    >>> family_text(["lmem", "tuning"])
    'LMEM + tuning'
    """
    short = {f.name: f.short for f in all_families()}
    return " + ".join(short.get(f, f) for f in families)


@dataclass
class Cell:
    """One cell of the pairwise matrix: how the row algorithm relates to the column one."""

    kind: str
    text: str
    title: str
    short: str = ""
    #: How much better the row is than the column ("+0.086"; positive = better), or "".
    effect: str = ""

    @property
    def colours(self) -> tuple[str, str]:
        """(background, text) colour."""
        return CELL_COLOURS[self.kind]


@dataclass
class ScopeSummary:
    """The summary of one scope: sentence, order, matrix cells and groups.

    Attributes
    ----------
    scope : str
        The scope in words ("all benchmarks", "benchmark moons").
    benchmark : str or None
    metafeature : str or None
        ``name=level;...``.
    sentence : str
        The quotable headline sentence.
    single_draws : str
        The score distributions' row (no vote), or "".
    order : list of str
        Algorithms best first (net settled or implied wins).
    better : dict of str to set of str
        Whom each algorithm beats (settled or implied).
    settled : set of (winner, loser)
        The relations settled directly.
    cells : dict of (str, str) to Cell
        Matrix cell of (row, column), both orders.
    groups : list of list of str
        Groups of mutually unsettled algorithms.
    counts : dict of str to int
        Pairs per status.
    """

    scope: str
    benchmark: str | None
    metafeature: str | None
    sentence: str
    single_draws: str
    order: list[str]
    better: dict[str, set[str]]
    settled: set[tuple[str, str]]
    cells: dict[tuple[str, str], Cell]
    groups: list[list[str]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def is_pooled(self) -> bool:
        """Whether the scope is all benchmarks (no benchmark, no metafeature level)."""
        return self.benchmark is None and self.metafeature is None

    @property
    def short_label(self) -> str:
        """The scope without the word "benchmark" (for panel titles)."""
        return self.scope.removeprefix("benchmark ")

    def levels(self) -> dict[str, int]:
        """Layer of each algorithm in the partial order: 0 when nobody beats it.

        The layer is the length of the longest chain of algorithms above it.
        """
        level: dict[str, int] = {}

        def depth(x: str, seen: frozenset[str]) -> int:
            if x in level:
                return level[x]
            above = [y for y in self.order if x in self.better[y] and y not in seen]
            value = 0 if not above else 1 + max(depth(y, seen | {x}) for y in above)
            level[x] = value
            return value

        for x in self.order:
            depth(x, frozenset())
        return level

    def cover_edges(self) -> list[tuple[str, str, bool]]:
        """The Hasse diagram's edges: (winner, loser, settled directly?).

        An edge w > l is kept when no algorithm m has w > m > l (transitive
        reduction of the settled and implied relations).
        """
        out = []
        for w in self.order:
            for lo in self.order:
                if lo not in self.better[w]:
                    continue
                if any(m in self.better[w] and lo in self.better[m] for m in self.order):
                    continue
                out.append((w, lo, (w, lo) in self.settled))
        return out


def _short(text: str) -> str:
    """A cell's text with one letter per family ("▲ L+R" for "▲ LMEM + ranks").

    Examples
    --------
    >>> _short("▲ LMEM + ranks"), _short("(▼) tuning"), _short("–")
    ('▲ L+R', '(▼) T', '–')
    """
    for family in all_families():
        text = text.replace(family.short, family.letter)
    return text.replace(" + ", "+").replace("implied", "impl.")


def _cell(rel: Relation, x: str, y: str, decimals: int | None = None) -> Cell:
    """The cell of row algorithm ``x`` against column ``y``, with the effect of ``x``."""
    cell = _status_cell(rel, x, y)
    if rel.effect is not None and math.isfinite(rel.effect.difference):
        size = effect_text(rel.effect, x, decimals)
        cell.effect = size.split(" [")[0]
        cell.title += f" | {x} minus {y}: {size} (simultaneous interval)"
        if math.isfinite(rel.effect.superiority):
            share = rel.effect.superiority if x == rel.effect.a else 1 - rel.effect.superiority
            cell.title += (f"; {x} better in {share:.0%} of comparisons (of benchmark means "
                           f"over these runs, or of single runs within a benchmark)")
    return cell


#: A cell's kind by its relation's status and whether the row algorithm is the winner.
_CELL_KINDS = {
    **{(s, w): s.value for s in Status for w in (True, False)},
    (Status.SETTLED, True): "better", (Status.SETTLED, False): "worse",
    (Status.IMPLIED, True): "implied better", (Status.IMPLIED, False): "implied worse",
}


def _cell_kind(rel: Relation, x: str) -> str:
    """The kind of row ``x``'s cell (what :func:`_status_cell` gives, without its texts).

    One dict look-up (a 200-algorithm report asks 437,800 times).

    Examples
    --------
    >>> r = Relation("A", "B", Status.SETTLED, winner="A", loser="B")
    >>> _cell_kind(r, "A"), _cell_kind(r, "B"), _cell_kind(Relation("A", "B", "unsettled"), "A")
    ('better', 'worse', 'unsettled')
    """
    return _CELL_KINDS[(rel.status, rel.winner == x)]


#: The texts of a cell that :class:`_LazyCell` makes when first read.
_CELL_TEXTS = ("text", "title", "short", "effect")


def _lazy_text(name: str) -> property:
    i = _CELL_TEXTS.index(name)

    def get(self: _LazyCell) -> str:
        return self._texts()[i]

    def put(self: _LazyCell, value: str) -> None:
        texts = list(self._texts())
        texts[i] = value
        self._done = tuple(texts)

    return property(get, put)


class _LazyCell(Cell):
    """A :class:`Cell` whose kind is known at once and whose texts are made when first read.

    The figures and the relations read only the kind; the texts (the effect
    with its interval, the families, the tooltip) are for the matrix, drawn
    for at most :data:`MAX_MATRIX_ALGORITHMS` algorithms. A 200-algorithm
    report has 437,800 cells: making their texts took a quarter of its
    writing time. It reads, compares and pickles as the :class:`Cell` it stands for.
    """

    # Slots, and the relation and viewpoint kept instead of a partial: about 80 bytes a
    # cell, not 300 (a dict per cell and a partial with its tuple), 0.1 GB less for the
    # 437,800 cells of 200 algorithms. No __dict__ is made while only slots are set.
    __slots__ = ("_decimals", "_done", "_rel", "_x", "_y", "kind")

    def __init__(self, kind: str, rel: Relation, x: str, y: str,
                 decimals: int | None) -> None:
        self.kind = kind
        self._rel, self._x, self._y, self._decimals = rel, x, y, decimals
        self._done: tuple[str, str, str, str] | None = None

    def _texts(self) -> tuple[str, str, str, str]:
        if self._done is None:
            cell = _full_cell(self._rel, self._x, self._y, self._decimals)
            self._rel = None
            self._done = (cell.text, cell.title, cell.short, cell.effect)
        return self._done

    text = _lazy_text("text")
    title = _lazy_text("title")
    short = _lazy_text("short")
    effect = _lazy_text("effect")

    def _cell(self) -> Cell:
        return Cell(self.kind, *self._texts())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Cell):
            theirs = other._cell() if isinstance(other, _LazyCell) else other
            return Cell.__eq__(self._cell(), theirs)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # as Cell's (a mutable dataclass)

    def __repr__(self) -> str:
        return repr(self._cell())

    def __reduce__(self):
        return (Cell, (self.kind, *self._texts()))


def _full_cell(rel: Relation, x: str, y: str, decimals: int | None) -> Cell:
    cell = _cell(rel, x, y, decimals)
    cell.short = _short(cell.text)
    return cell


def _status_cell(rel: Relation, x: str, y: str) -> Cell:
    """The cell's kind, text and title from the relation's status."""
    families = family_text(list(rel.families))
    kind = _cell_kind(rel, x)
    if rel.status is Status.EQUIVALENT:
        return Cell(kind, "≈", f"{x} vs {y}: {rel.reason}")
    if rel.status in (Status.SETTLED, Status.IMPLIED):
        wins = rel.winner == x
        if rel.status is Status.SETTLED:
            text = ("▲ " if wins else "▼ ") + families
        else:
            text = ("△ " if wins else "▽ ") + "implied"
        return Cell(kind, text, f"{rel.winner} > {rel.loser}: {rel.reason}")
    if rel.status is Status.CONTRADICTED:
        return Cell("contradicted", "✕ " + (families or "cycle"), f"{x} vs {y}: {rel.reason}")
    if rel.status is Status.POWER_GAP:
        # The families deciding the pair at their own level, and whom they favour.
        side = {"a": rel.a, "b": rel.b}
        favoured = [(side[v.direction], v.family) for v in rel.votes
                    if v.decides and v.direction in side]
        fams = family_text(sorted({f for _, f in favoured}, key=family_rank))
        leader = favoured[0][0] if favoured else None
        arrow = "" if leader is None else ("(▲) " if leader == x else "(▼) ")
        return Cell("power gap", f"{arrow}{fams or 'gap'}", f"{x} vs {y}: {rel.reason}")
    return Cell("unsettled", "–", f"{x} vs {y}: {rel.reason}")


def scope_summaries(rec: Reconciliation, algorithms: list[str]) -> list[ScopeSummary]:
    """One :class:`ScopeSummary` per scope of the reconciliation, all benchmarks first.

    Read from the typed relations of each scope (:attr:`Reconciliation.scopes`):
    its statuses, partial order (``better``) and groups, as the relations
    step computed them.

    Examples
    --------
    >>> from benchverdict.report.reconcile import reconcile
    >>> from benchverdict.verdict import Evidence, Scope, Verdict
    >>> v = Verdict("A", "B", "a", "lmem.tukey", Scope(), Evidence("p_value", 1e-6, 0.05),
    ...             "maximize", "x", n=60, estimand="benchmarks")
    >>> s = scope_summaries(reconcile([v]), ["A", "B"])[0]
    >>> s.order, s.cells[("A", "B")].kind, s.cells[("B", "A")].text
    (['A', 'B'], 'better', '▼ LMEM')
    >>> rec = reconcile([v])
    >>> scope_summaries(rec, ["A", "B"])[0] is scope_summaries(rec, ["A", "B"])[0]
    True
    """
    # The document and the report's figures both ask (a 200-algorithm report spent
    # half a minute on the second call): the summaries are kept on the reconciliation,
    # which is frozen once made, for the algorithm order they were made with.
    key = tuple(algorithms)
    cache = rec.__dict__.get("_scope_summaries")
    if cache is not None and cache[0] == key:
        return list(cache[1])
    out = _scope_summaries(rec, algorithms)
    rec.__dict__["_scope_summaries"] = (key, tuple(out))
    return list(out)


def _scope_summaries(rec: Reconciliation, algorithms: list[str]) -> list[ScopeSummary]:
    out = []
    position = {a: i for i, a in enumerate(algorithms)}
    for label, rel in rec.scopes.items():
        if not rel.relations:
            continue
        names = sorted({r.a for r in rel.relations} | {r.b for r in rel.relations},
                       key=lambda a: (position.get(a, len(position)), a))
        # rel.better is a property that scans every relation: read it once, not per name
        # (per name it was 4,400 scans of 19,900 relations for 200 algorithms).
        beats = rel.better
        better = {a: set(beats.get(a, ())) for a in names}
        settled = {(r.winner, r.loser) for r in rel.with_status(Status.SETTLED)}
        n_status = Counter(r.status for r in rel.relations)
        counts = {s.value: n_status[s] for s in Status if n_status[s]}
        net = {a: len(better[a]) - sum(a in better[b] for b in names) for a in names}
        order = sorted(names, key=lambda a: (-net[a], position.get(a, len(position)), a))
        cells = {}
        # One number format for the whole matrix: from its narrowest interval.
        decimals = effect_decimals(*((r.effect.upper - r.effect.lower) / 2.0
                                     for r in rel.relations if r.effect is not None),
                                   values=[r.effect.difference for r in rel.relations
                                           if r.effect is not None])
        for r in rel.relations:
            a, b, status, winner = r.a, r.b, r.status, r.winner
            cells[(a, b)] = _LazyCell(_CELL_KINDS[(status, winner == a)], r, a, b, decimals)
            cells[(b, a)] = _LazyCell(_CELL_KINDS[(status, winner == b)], r, b, a, decimals)
        out.append(ScopeSummary(
            scope=label, benchmark=rel.key[0], metafeature=metafeature_label(rel.key[1]),
            sentence=rel.sentence, single_draws=rel.single_draws,
            order=order, better=better, settled=settled, cells=cells,
            groups=[list(g) for g in rel.groups], counts=counts))
    out.sort(key=lambda s: (not s.is_pooled, s.metafeature is not None,
                            s.benchmark is not None, s.metafeature or "", s.benchmark or ""))
    return out


def headline_summary(summaries: list[ScopeSummary]) -> ScopeSummary | None:
    """The scope the summary leads with: all benchmarks, else the only scope, else none."""
    for s in summaries:
        if s.is_pooled:
            return s
    return summaries[0] if len(summaries) == 1 else None


# ----------------------------------------------------------------------------- for a paper
#: At most this many pairs are named in one sentence of a results paragraph.
MAX_PAIRS_NAMED = 8
#: The scope types in words, as the methods paragraph names Holm's families.
_SCOPE_TYPE_WORDS = {"all benchmarks": "across benchmarks", "per benchmark": "per benchmark"}


def _and(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _names(items: Sequence[str], limit: int = MAX_PAIRS_NAMED) -> str:
    items = list(items)
    if len(items) > limit:
        return ", ".join(items[:limit]) + f" and {len(items) - limit:,} more"
    return _and(items)


def _base_methods(run: Any) -> list[str]:
    """The registered (base) names of the methods a run's verdicts use, sorted."""
    from benchverdict.methods import method_info

    return sorted({method_info(v.method).method for v in run.verdicts})


def _family_votes(comparison: Any) -> dict[str, list[str]]:
    """Per family, the methods that cast its votes (across benchmarks first)."""
    votes = comparison.reconciliation.votes
    out: dict[str, list[str]] = {}
    if votes is None or not len(votes):
        return out
    # In the votes' order: the scope across benchmarks first.
    for family, method in votes[["family", "method"]].drop_duplicates().itertuples(index=False):
        out.setdefault(str(family), []).append(str(method))
    return out


def _labels(methods: Sequence[str]) -> str:
    from benchverdict.methods import method_info

    return _and([f"{method_info(m).label} ({m})" for m in methods])


def _note_matching(run: Any, prefix: str) -> str | None:
    for note in run.notes:
        if str(note).startswith(prefix):
            return str(note)
    return None


def _ranks_sentence(run: Any, votes: list[str]) -> str:
    from benchverdict.methods import method_info

    used = _base_methods(run)
    tests = []
    if "ranks.nemenyi" in used or "ranks.conover" in used:
        post = [name for m, name in (("ranks.nemenyi",
                                      "Nemenyi's post-hoc test {cite:nemenyi1963}"),
                                     ("ranks.conover", "Conover's post-hoc test"))
                if m in used]
        tests.append("a Friedman test {cite:friedman1937} with " + _and(post))
    if "ranks.wilcoxon_holm" in used:
        tests.append("pairwise Wilcoxon signed-rank tests {cite:wilcoxon1945} with Holm's "
                     "adjustment {cite:holm1979}")
    if "ranks.sign_test" in used:
        tests.append("win/tie/loss sign tests")
    if any(m.startswith("ranks.autorank") for m in used):
        tests.append("Autorank's decision path {cite:herbold2020}")
    note = _note_matching(run, "Friedman") or ""
    if "unit: benchmark_seed" in note:
        unit = "each benchmark x seed run as a block"
    elif "unit: benchmark" in note:
        unit = "each benchmark as a block, its scores averaged over seeds"
    else:
        unit = f"as blocks: {method_info(votes[0] if votes else used[0]).unit}"
    text = (f"Rank tests {{cite:demsar2006}} took {unit}, and used "
            + (_and(tests) or _labels(used)) + ".")
    if votes:
        text += f" The rank-test family voted through {_labels(votes)}"
        if "ranks.nemenyi" in used and "ranks.nemenyi" not in votes:
            text += (", a test of the pair alone; Nemenyi's test, whose answer for a pair "
                     "depends on the other algorithms {cite:benavoli2016}, is reported but "
                     "does not vote")
        text += "."
    return text


def _lmem_sentence(run: Any, votes: list[str], estimand: str) -> str:
    note = _note_matching(run, "Model ")
    model = note.split(" fitted by ")[0].removeprefix("Model ") if note else None
    method = ("REML" if note and "fitted by REML" in note else "maximum likelihood")
    text = ("A linear mixed-effects model (LMEM) of the incumbents"
            + (f", {model}," if model else "") + f" was fitted by {method} "
            "{cite:bates2015}, as Geburek et al. propose for HPO benchmarks {cite:geburek2024}; "
            "pairs were compared by contrasts of estimated marginal means "
            "{cite:lenth_emmeans} with Satterthwaite degrees of freedom {cite:kuznetsova2017}")
    if "lmem.tukey" in _base_methods(run):
        text += " (Tukey's adjustment for its own verdicts)"
    text += "."
    if _note_matching(run, "Scores are on different scales across benchmarks"):
        text += (" Since the benchmarks' scores are on different scales, the model across "
                 "benchmarks was fitted to scores standardised per benchmark (divided by the "
                 "benchmark's standard deviation, not centred, so that the benchmark "
                 "intercept stays in the model); the models per benchmark to the raw "
                 "scores.")
    if votes:
        text += f" The LMEM family voted through {_labels(votes)}"
        if any(v != "lmem.tukey" for v in votes):
            text += ("; per benchmark, a model of that benchmark's runs was fitted (the runs are "
                     "the replicates), and a pair counted only when Welch's test of its two "
                     "algorithms' runs agreed {cite:welch1947}, on Hsu's conservative "
                     "min(n_a, n_b) - 1 degrees of freedom {cite:hsu1938}")
        text += "."
    if "lmem.tukey" in votes:
        text += (" Across benchmarks its claims are about "
                 + ("benchmarks like these: the algorithm contrast is judged against the "
                    "algorithm x benchmark variation, and a pair counts only when the pair's "
                    "own paired t test on its per-benchmark differences (Bonferroni over the "
                    "pairs) rejects too, since the model assumes that every algorithm varies "
                    "equally across benchmarks (an intersection-union rule)."
                    if estimand == "benchmarks" else
                    "exactly these benchmarks: the runs are the replicates, and a pair counts "
                    "only when the pair's own Welch t test over the runs of these benchmarks "
                    "{cite:welch1947} (each algorithm's own spread, runs copied onto several "
                    "benchmarks counted once; Bonferroni over the pairs) rejects too, since "
                    "the model gives every algorithm one residual variance (an "
                    "intersection-union rule)."))
    return text


def _tuning_sentence(run: Any, votes: list[str], confidence: float,
                     across_benchmarks: bool = False, at_k: str | None = None) -> str:
    """The tuning curves' sentences of the Methods paragraph.

    ``at_k`` (e.g. ``"k = 22 trials"``) is where draws without a trial order
    were tested: they have no final budget.
    """
    from benchverdict.methods import method_info

    used = _base_methods(run)
    kinds = [method_info(m).label for m in used if m.endswith("_band")]
    text = ("Tuning curves {cite:dodge2019,tang2020} (" + (_and(kinds) or "tuning curves")
            + f") were drawn with {confidence:g} simultaneous confidence bands "
            "{cite:lourie2024}")
    note = _note_matching(run, "Median tuning curves with") or ""
    if "LD" in note or any("LD" in str(n) for n in run.notes):
        text += " built from Learned-Miller-DeStefano bands {cite:learnedmiller2008}"
    if any("DKW" in str(n) for n in run.notes):
        text += " and DKW bands {cite:dvoretzky1956,massart1990}"
    text += "."
    if any(m.endswith("_test") for m in used):
        where = ("At the final budget" if at_k is None else
                 f"At {at_k}, half the most trials the draws can bound for the tests together "
                 f"(they have no trial order),")
        text += f" {where} every pair's curves were compared by an exact order-statistic test."
    if votes:
        text += f" The family voted through {_labels(votes)}."
        if across_benchmarks:
            text += (" Across benchmarks its claim is 'better on every benchmark', an "
                     "intersection-union test of the per-benchmark tests (about these "
                     "benchmarks only).")
    else:
        reasons = sorted({str(v.no_vote) for v in run.verdicts if v.no_vote})
        text += (" They did not vote" + (f": {reasons[0].rstrip('.')}" if reasons else "")
                 + ".")
    return text


def _dse_sentence(run: Any, cvar_levels: Sequence[float]) -> str:
    used = _base_methods(run)
    parts = []
    if "dse.cvar" in used:
        parts.append("CVaR at levels " + ", ".join(f"{a:g}" for a in cvar_levels)
                     + " by label-permutation tests")
    if "dse.dominance" in used:
        parts.append("first-order stochastic dominance by two one-sided Kolmogorov-Smirnov "
                     "tests")
    text = ("Score distributions {cite:jordan2018}" + (f" were compared: {_and(parts)}"
                                                     if parts else " were described"))
    return text + ("; they describe single random-search draws and do not vote on the "
                   "ranking.")


def _count_tests(n: int) -> str:
    return f"{n:,} test" + ("" if n == 1 else "s")


def _runs_each(c) -> str:
    """How many runs each algorithm has on each benchmark, as the Methods paragraph says it.

    ``"10 seeds each"`` when every (algorithm, benchmark) cell has a run per
    seed; otherwise the range, which a count of distinct seed labels would
    overstate (145 and 152 draws labelled by 297 distinct seeds).
    """
    low, high = getattr(c, "runs_per_cell", None) or (c.n_seeds, c.n_seeds)
    if low == high == c.n_seeds:
        text = f"{c.n_seeds:,} seed{'s' if c.n_seeds != 1 else ''} each"
    elif low == high:
        text = f"{low:,} run{'s' if low != 1 else ''} (seeds) each"
    else:
        text = f"{low:,} to {high:,} runs (seeds) per algorithm and benchmark"
    return text


#: The empty cells the Methods paragraph names before it counts the rest.
MAX_EMPTY_CELLS_NAMED = 4


def _empty_cells(c) -> str:
    """The Methods sentence on cells without runs ("" when every cell has some).

    "3 of 40 algorithm x benchmark cells have no runs: D has no runs on bm0, bm1 and
    bm2." ("" too when the balance is unknown).

    Without it the paragraph described a complete design ("4 algorithms on 10 benchmarks
    with 5 seeds each") where one algorithm missed 3 benchmarks.
    """
    import pandas as pd

    balance = getattr(getattr(c, "description", None), "balance", None)
    if not isinstance(balance, pd.DataFrame) or not len(balance):
        return ""
    counts = balance.stack()
    empty = counts[counts == 0]
    if not len(empty):
        return ""
    by_algorithm: dict[str, list[str]] = {}
    for (algorithm, benchmark), _ in empty.items():
        by_algorithm.setdefault(str(algorithm), []).append(str(benchmark))
    parts = [f"{a} has no runs on {_names(b, limit=MAX_EMPTY_CELLS_NAMED)}"
             for a, b in by_algorithm.items()]
    return (f"{len(empty):,} of {counts.size:,} algorithm x benchmark cells have no runs: "
            f"{_names(parts, limit=MAX_EMPTY_CELLS_NAMED)}.")


def _stopped_early(c: Any) -> dict[str, float]:
    """The algorithms a comparison left out of its final-budget analyses (none if unknown)."""
    left_out = getattr(c, "left_out", None)
    return {} if left_out is None else dict(left_out.algorithms)


def _stopped_early_cells(c: Any):
    """The cells a comparison left out of its final-budget analyses (None if none or unknown)."""
    left_out = getattr(c, "left_out", None)
    return None if left_out is None or not len(left_out.cells) else left_out


def methods_paragraph(comparison: Any, style: str = "text") -> str:
    """The methods paragraph of ``comparison``: what was run, how it was decided, and on what.

    Generated from the comparison's options and analyses (a different
    alpha, budget, margin, estimand or set of analyses changes it).

    Parameters
    ----------
    comparison : Comparison
    style : {"text", "latex", "pandoc", "marks"}
        How citations are written: author-year text, ``\\citep{key}``,
        ``[@key]``, or the raw ``{cite:key}`` marks
        (:func:`benchverdict.report.citations.render_citations`).

    Examples
    --------
    >>> from benchverdict.report.runner import compare
    >>> from benchverdict.results import _example_small
    >>> comp = compare(_example_small(), analyses=["ranks"], progress=False, figures=False)
    >>> text = methods_paragraph(comp)
    >>> "Wilcoxon signed-rank tests (Wilcoxon 1945)" in text, "alpha = 0.05" in text
    (True, True)
    """
    from benchverdict.families import family_label
    from benchverdict.report.citations import render_citations
    from benchverdict.report.reconcile import trials_text

    c = comparison
    o = c.options
    rec = c.reconciliation
    votes = _family_votes(c)
    n_alg, n_bench = len(c.algorithms), len(c.benchmarks)
    better = "higher" if str(c.objective) == "maximize" else "lower"
    if o.budget is not None:
        budget = f"at budget {o.budget:g}"
    elif rec.final_budget is not None:
        budget = f"at the final budget ({rec.final_budget:g})"
    else:
        budget = "on each run's final score"
    kind = getattr(c.description, "kind", "")
    rows = {"runs": "HPO-run incumbents", "trials": "random-search draws"}.get(kind, "results")
    # Draws without a trial order: no final budget; the tuning curves vote at a k of their own.
    at_k = None if rec.vote_trials is None else trials_text(rec.vote_trials)
    if at_k is not None and o.budget is None and rec.final_budget is None:
        rows += " without a trial order"
        budget = "on each draw's score"
    out = [f"We compared {n_alg} algorithms on {n_bench} benchmark{'s' if n_bench != 1 else ''}"
           f" with {_runs_each(c)} ({rows}; {better} scores are better), {budget}."]
    empty = _empty_cells(c)
    if empty:
        out.append(empty)
    results = getattr(c, "results", None)
    copied = None if results is None else copied_runs_caveat(results.copied_runs(),
                                                             o.estimand)
    if copied:
        out.append(f"Caveat: {copied}, since a benchmark where an algorithm's runs repeat "
                   f"another's is not an independent replicate"
                   + ("; the LMEM's model and Autorank's decision path count every "
                      "benchmark, so their own p-values about those pairs overstate the "
                      "evidence (the LMEM's verdicts also need the pair's paired test, which "
                      "counts each group once; Autorank's do not vote)."
                      if o.estimand == "benchmarks" else
                      " (the LMEM's verdicts also need the pair's own Welch test over the "
                      "runs, which counts each copy's noise once)."))
    by = getattr(o, "replicate_by", None)
    if by is not None and results is not None and o.estimand == "benchmarks":
        levels = int(results.table[by].astype(str).nunique())
        out.append(f"Benchmarks with the same {by} were taken as one replicate ({levels} of "
                   f"them) in the tests across benchmarks (the rank tests, the LMEM's paired "
                   f"test) and in the effect sizes, which use the mean of a pair's differences "
                   f"(or ranks) on its benchmarks; the LMEM's model and Autorank's decision "
                   f"path count every benchmark.")
    short = _stopped_early(c)
    if short:
        # The rank tests and LMEMs compared the others only (the headline says so too).
        names = _and([f"{a} (its runs stop at budget {b:g})" for a, b in short.items()])
        out.append(f"{names} {'was' if len(short) == 1 else 'were'} left out of the "
                   f"comparisons at the final budget, so those compare "
                   f"{n_alg - len(short)} algorithms.")
    left_out = _stopped_early_cells(c)
    if left_out is not None:
        per_alg = left_out.cells.groupby("algorithm", sort=False)["benchmark"].size()
        names = _and([f"{a} on {n} benchmark{'s' if n != 1 else ''}"
                      for a, n in per_alg.items()])
        out.append(f"Cells none of whose runs reaches the benchmark's final budget ({names}) "
                   f"were left out of the comparisons at the final budget"
                   + (f"; the rank tests, which need every algorithm on every benchmark, "
                      f"left out {_and(list(left_out.block_algorithms))} instead"
                      if left_out.block_algorithms else "") + ".")
    ran = [r for r in c.runs if r.status == "ok"]
    for r in ran:
        v = votes.get(r.name, [])
        if not r.verdicts:
            out.append(f"{r.title} ran but gave no verdicts.")
        elif r.name == "ranks":
            out.append(_ranks_sentence(r, v))
        elif r.name == "lmem":
            out.append(_lmem_sentence(r, v, o.estimand))
        elif r.name == "tuning":
            tv = rec.votes
            across = bool(len(tv) and ((tv["family"] == "tuning")
                                       & (tv["scope_type"] == "all benchmarks")).any())
            out.append(_tuning_sentence(r, v, o.confidence, across, at_k))
        elif r.name == "dse":
            out.append(_dse_sentence(r, o.cvar_levels))
        else:
            out.append(f"{r.title}: {_labels(_base_methods(r))}"
                       + (f", voting through {_labels(v)}." if v else "."))
    skipped = [r for r in c.runs if r.status != "ok"]
    if skipped:
        out.append("Not run: " + "; ".join(f"{family_label(r.name)} ({r.status}: "
                                            f"{str(r.reason).rstrip('.')})" for r in skipped)
                   + ".")
    if votes:
        types = rec.votes["scope_type"].value_counts(sort=False)
        types = types.reindex(sorted(types.index, key=lambda t: (t != "all benchmarks",
                                                                 t != "per benchmark", t)))
        rel = rec.relations
        eq = (rel[rel["p_equivalence"].notna()]["scope_type"].value_counts()
              if len(rel) and "p_equivalence" in rel else {})
        families = ", ".join(
            f"{_SCOPE_TYPE_WORDS.get(str(t), str(t))}: {_count_tests(int(n) + int(eq.get(t, 0)))}"
            for t, n in types.items())
        out.append(
            "Each family of evidence cast one vote per pair and scope, its method's unadjusted "
            "p-value " + (f"at budget {o.budget:g}" if o.budget is not None else
                          "at the final budget" if at_k is None else f"at {at_k}")
            + "; the votes of each scope type (" + families + ") were "
            "adjusted together by Holm's step-down procedure {cite:holm1979}, so that within "
            f"a scope type the probability that any relation called settled is wrong is at "
            f"most alpha = {o.alpha:g} (family-wise). A relation is settled when some family "
            "rejects after the adjustment and no family decides the other way; relations "
            "that follow from settled ones by transitivity are reported as implied, pairs a "
            "family decides only before the adjustment as power gaps.")
    joined = results is not None and (bool(results.copied_runs())
                                      or getattr(o, "replicate_by", None) is not None)
    claims = ("benchmarks like these: the observed benchmarks are treated as a sample, and a "
              "benchmark is the replicate" + (" (benchmarks joined by copied runs"
                                              + (f" or a shared {o.replicate_by}"
                                                 if o.replicate_by is not None else "")
                                              + " count once)" if joined else "")
              if o.estimand == "benchmarks" else
              "exactly these benchmarks (no claim beyond them): only the seeds are random")
    out.append(f"Claims across benchmarks are about {claims}; on a single benchmark its runs "
               f"(seeds) are the replicates.")
    pooled = next((s for s in rec.scopes.values() if s.key == (None, ())), None)
    # A study of one benchmark has no scope across benchmarks: its benchmark's effects
    # carry the unit.
    eff = (pooled.effects if pooled is not None else
           next((s.effects for s in rec.scopes.values() if s.effects is not None), None))
    unit = f" in {eff.unit}" if eff is not None else ""
    across = ("a paired t interval over benchmarks" if o.estimand == "benchmarks" else
              "the mean of the per-benchmark differences with only the seeds' noise "
              "(Welch-Satterthwaite degrees of freedom)")
    within = ("Welch's interval over its runs (Hsu's degrees of freedom)" if eff is None
              or not eff.standardized else "Welch's interval over its runs (Hsu's degrees of "
              "freedom), in the score's own units")
    curves = any(x.effects is not None and x.effects.measure.startswith("median best-of")
                 for x in rec.scopes.values())
    if curves:
        # Draws without a trial order: the tuning curves vote, so per benchmark the effect
        # is their difference at the vote's k (report.effect_sizes).
        within = ("the difference of the median tuning curves at the vote's k, with a "
                  "distribution-free order-statistic interval (a union bound over the two "
                  "curves' quantile bounds)")
        if o.estimand == "these":
            across = "the mean of those per-benchmark differences (Bonferroni over benchmarks)"
        else:
            across += " on single draws' means"
    out.append(f"Effects are {'score differences' if curves else 'mean score differences'}"
               f"{unit} with {1 - o.alpha:.0%} intervals simultaneous over each scope's pairs "
               f"(Bonferroni): across benchmarks {across}, on one benchmark {within}.")
    if o.margin is None:
        out.append("No margin of practical equivalence was set, so no pair was declared "
                   "equivalent.")
    else:
        margin = o.margin.text(eff.unit if eff is not None and not o.margin.standardized
                               else "")
        out.append(f"Practical equivalence (|difference| < {margin}) was tested by two "
                   f"one-sided tests (TOST) {{cite:schuirmann1987}}, adjusted in the same Holm "
                   f"family as the votes"
                   + ("; on one benchmark's tuning curves, by whether their distribution-free "
                      "interval at 1 - 2 alpha lies within the margin (not across benchmarks)."
                      if curves else "."))
    text = " ".join(out)
    return text if style == "marks" else render_citations(text, style)


@dataclass(frozen=True)
class ScopeParagraph:
    """The results paragraph of one scope.

    Attributes
    ----------
    scope : str
        The scope as the tables name it ("all benchmarks", "benchmark moons").
    benchmark : str or None
        ``None`` across benchmarks.
    text : str
    """

    scope: str
    benchmark: str | None
    text: str


def _effect(r: Relation, winner: str, decimals: int) -> str:
    from benchverdict.report.relations import effect_text

    return effect_text(r.effect, winner, decimals)


def _scope_paragraph(rel: Any, alpha: float) -> str:
    from benchverdict.report.relations import Status, effect_decimals

    relations = rel.relations
    eff = rel.effects
    k = len(relations)
    decimals = effect_decimals(*((r.effect.upper - r.effect.lower) / 2.0 for r in relations
                                 if r.effect is not None),
                               values=[r.effect.difference for r in relations
                                       if r.effect is not None])
    settled = rel.with_status(Status.SETTLED)
    implied = rel.with_status(Status.IMPLIED)
    out = []
    if settled:
        items = []
        for r in settled[:MAX_PAIRS_NAMED]:
            text = f"{r.winner} is better than {r.loser}"
            if r.effect is not None and math.isfinite(r.effect.difference):
                text += f" by {_effect(r, str(r.winner), decimals)}"
                if math.isfinite(r.effect.lower) and not r.effect.excludes_zero:
                    text += " (the interval includes 0)"
            items.append(text)
        more = (f"; and {len(settled) - MAX_PAIRS_NAMED} more"
                if len(settled) > MAX_PAIRS_NAMED else "")
        what = (f" ({eff.measure} in {eff.unit}, positive = better, with {eff.confidence:.0%} "
                f"intervals simultaneous over the {len(eff.effects)} pairs)"
                if eff is not None and eff.effects else "")
        out.append(f"{rel.label}, {len(settled)} of {k} pairs are settled with a family-wise "
                   f"error of at most {alpha:g}{what}: " + "; ".join(items) + more + ".")
    else:
        out.append(f"{rel.label}, no pair of {k} is settled with a family-wise error of at most "
                   f"{alpha:g}.")
    if implied:
        items = [f"{r.winner} is better than {r.loser}" + (
            f" by {_effect(r, str(r.winner), decimals)}" if r.effect is not None
            and math.isfinite(r.effect.difference) else "")
            + (f" (via {' > '.join(r.via)})" if r.via else "") for r in implied]
        out.append("By transitivity of the settled relations, " + _names(items) + ".")
    equivalent = [r for r in relations if r.equivalent]
    if eff is not None and eff.margin is not None:
        if equivalent:
            margin = eff.margin.text(eff.unit if not eff.margin.standardized else "")
            items = [f"{r.a} and {r.b}" + (f" (difference {_effect(r, r.a, decimals)})"
                                           if r.effect is not None else "")
                     for r in equivalent]
            out.append(f"Practically equivalent (|difference| < {margin}, two one-sided tests): "
                       + _names(items, limit=MAX_PAIRS_NAMED) + ".")
        else:
            out.append("No pair is shown to be practically equivalent.")
    contradicted = rel.with_status(Status.CONTRADICTED)
    if contradicted:
        out.append("The families of evidence disagree on "
                   + _names([f"{r.a} vs {r.b}" for r in contradicted])
                   + ", so those pairs are left undecided.")
    gaps = rel.with_status(Status.POWER_GAP)
    if gaps:
        out.append("For " + _names([f"{r.a} vs {r.b}" for r in gaps])
                   + " a family finds a difference that does not survive the family-wise "
                     "adjustment: more data may settle "
                   + ("it." if len(gaps) == 1 else "them."))
    unsettled = rel.with_status(Status.UNSETTLED)
    if unsettled:
        out.append(f"The data do not separate {len(unsettled)} pair(s): "
                   + _names([f"{r.a} vs {r.b}" for r in unsettled]) + ".")
    return " ".join(out)


def results_paragraphs(comparison: Any, per_benchmark: bool = False
                       ) -> list[ScopeParagraph]:
    """One results paragraph per scope across benchmarks (and per benchmark when asked).

    Each says which relations are settled and by how much (the summary's
    effect and interval, positive = better), what is implied by
    transitivity, what is practically equivalent (with a margin), where the
    families disagree, which pairs more data may settle (power gaps) and
    which the data do not separate. With only one benchmark, its scope is
    the paragraph.

    Examples
    --------
    >>> from benchverdict.report.runner import compare
    >>> from benchverdict.results import _example_small
    >>> comp = compare(_example_small(), analyses=["ranks"], progress=False, figures=False)
    >>> [p.scope for p in results_paragraphs(comp)]
    ['all benchmarks']
    >>> print(results_paragraphs(comp)[0].text)  # doctest: +NORMALIZE_WHITESPACE
    Across benchmarks like these 2, no pair of 1 is settled with a family-wise error of at most
    0.05. The data do not separate 1 pair(s): a vs b.
    """
    rec = comparison.reconciliation
    alpha = comparison.options.alpha
    scopes = [(label, rel) for label, rel in rec.scopes.items() if rel.relations]
    pooled = [(label, rel) for label, rel in scopes if rel.key[0] is None]
    chosen = scopes if per_benchmark or not pooled else pooled
    chosen = sorted(chosen, key=lambda x: (x[1].key[0] is not None, bool(x[1].key[1]),
                                           str(x[1].key[0] or ""), str(x[1].key[1])))
    return [ScopeParagraph(str(label), rel.key[0], _scope_paragraph(rel, alpha))
            for label, rel in chosen]


def comparison_bibtex(comparison: Any) -> str:
    """The BibTeX of every work the comparison's methods paragraph cites (and no other).

    Examples
    --------
    >>> from benchverdict.report.citations import parse_bibtex
    >>> from benchverdict.report.runner import compare
    >>> from benchverdict.results import _example_small
    >>> comp = compare(_example_small(), analyses=["ranks"], progress=False, figures=False)
    >>> [e.key for e in parse_bibtex(comparison_bibtex(comp))][:2]
    ['demsar2006', 'wilcoxon1945']
    """
    from benchverdict.report.citations import bibtex, cited_keys

    return bibtex(cited_keys(methods_paragraph(comparison, style="marks")))


__all__ = [
    "CELL_COLOURS",
    "CELL_KINDS",
    "CELL_MEANING",
    "Cell",
    "ScopeParagraph",
    "ScopeSummary",
    "comparison_bibtex",
    "family_text",
    "headline_summary",
    "methods_paragraph",
    "results_paragraphs",
    "scope_summaries",
]
