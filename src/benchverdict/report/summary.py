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
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchverdict.families import families as all_families
from benchverdict.families import family_rank
from benchverdict.report.relations import Relation, Status, effect_decimals, effect_text
from benchverdict.verdict import metafeature_label

if TYPE_CHECKING:
    from benchverdict.report.reconcile import Reconciliation

#: One letter per family, for the cells of a wide matrix (many algorithms).
#: Cell kinds, in the order the legend lists them.
CELL_KINDS = ("better", "worse", "implied better", "implied worse", "equivalent",
              "contradicted", "power gap", "unsettled")
#: Cell colours (Okabe-Ito, colour-blind safe): background and text.
CELL_COLOURS = {
    "better": ("#0072B2", "#ffffff"),
    "worse": ("#D55E00", "#ffffff"),
    "implied better": ("#9ccbe8", "#1d1d1f"),
    "implied worse": ("#f2b58f", "#1d1d1f"),
    "equivalent": ("#009E73", "#ffffff"),
    "contradicted": ("#CC79A7", "#1d1d1f"),
    "power gap": ("#F0E442", "#1d1d1f"),
    "unsettled": ("#e6e6e6", "#1d1d1f"),
}
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
            cell.title += f"; {x} better {share:.0%} of the time"
    return cell


def _status_cell(rel: Relation, x: str, y: str) -> Cell:
    """The cell's kind, text and title from the relation's status."""
    families = family_text(list(rel.families))
    if rel.status is Status.EQUIVALENT:
        return Cell("equivalent", "≈", f"{x} vs {y}: {rel.reason}")
    if rel.status in (Status.SETTLED, Status.IMPLIED):
        wins = rel.winner == x
        if rel.status is Status.SETTLED:
            kind = "better" if wins else "worse"
            text = ("▲ " if wins else "▼ ") + families
        else:
            kind = "implied better" if wins else "implied worse"
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
    """
    out = []
    position = {a: i for i, a in enumerate(algorithms)}
    for label, rel in rec.scopes.items():
        if not rel.relations:
            continue
        names = sorted({r.a for r in rel.relations} | {r.b for r in rel.relations},
                       key=lambda a: (position.get(a, len(position)), a))
        better = {a: set(rel.better.get(a, ())) for a in names}
        settled = {(r.winner, r.loser) for r in rel.with_status(Status.SETTLED)}
        counts = {s.value: len(rel.with_status(s)) for s in Status if rel.with_status(s)}
        net = {a: len(better[a]) - sum(a in better[b] for b in names) for a in names}
        order = sorted(names, key=lambda a: (-net[a], position.get(a, len(position)), a))
        cells = {}
        # One number format for the whole matrix: from its narrowest interval.
        decimals = effect_decimals(*((r.effect.upper - r.effect.lower) / 2.0
                                     for r in rel.relations if r.effect is not None))
        for r in rel.relations:
            for x, y in ((r.a, r.b), (r.b, r.a)):
                cell = _cell(r, x, y, decimals)
                cell.short = _short(cell.text)
                cells[(x, y)] = cell
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


__all__ = [
    "CELL_COLOURS",
    "CELL_KINDS",
    "CELL_MEANING",
    "Cell",
    "ScopeSummary",
    "family_text",
    "headline_summary",
    "scope_summaries",
]
