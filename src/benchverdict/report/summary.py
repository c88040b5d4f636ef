"""The report's summary, as data: per scope its sentence, pairwise matrix and partial order.

Every format (HTML, Markdown, LaTeX, the notebook view) draws its first
screen from :func:`scope_summaries`, so they say the same thing. The input
is the reconciliation's relation tables (:mod:`benchverdict.report.relations`):
one row per pair and scope with a *status* (settled, implied, contradicted,
power gap, unsettled), the headline sentence per scope, and the family votes.

The pairwise matrix reads along rows: cell (row ``x``, column ``y``) says
how ``x`` relates to ``y``. Algorithms are ordered best first by their net
number of settled or implied wins (beats minus beaten), ties in the data's
order, so a total order shows as a triangle of "better" cells.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from benchverdict.families import families as all_families
from benchverdict.families import family_rank

if TYPE_CHECKING:
    from benchverdict.report.reconcile import Reconciliation

#: One letter per family, for the cells of a wide matrix (many algorithms).
#: Cell kinds, in the order the legend lists them.
CELL_KINDS = ("better", "worse", "implied better", "implied worse", "contradicted",
              "power gap", "unsettled")
#: Cell colours (Okabe-Ito, colour-blind safe): background and text.
CELL_COLOURS = {
    "better": ("#0072B2", "#ffffff"),
    "worse": ("#D55E00", "#ffffff"),
    "implied better": ("#9ccbe8", "#1d1d1f"),
    "implied worse": ("#f2b58f", "#1d1d1f"),
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
    "contradicted": "families decide opposite ways",
    "power gap": "one family decides alone, not after the family-wise adjustment",
    "unsettled": "no family separates them",
}
#: Above this many algorithms the matrix is not drawn (relations.csv has every pair).
MAX_MATRIX_ALGORITHMS = 30


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _families(text: Any) -> list[str]:
    if _missing(text) or not str(text).strip():
        return []
    names = [t.strip() for t in str(text).split(",") if t.strip()]
    return sorted(set(names), key=family_rank)


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


def _scope_key(row: Any) -> str:
    return str(row["scope"])


def _vote_families(votes: pd.DataFrame) -> dict[tuple[str, str, str], dict[str, list[str]]]:
    """Per (scope, a, b): families deciding at their own level, by direction."""
    out: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    if votes is None or not len(votes) or "decides" not in votes:
        return out
    decided = votes[votes["decides"].astype(bool)]
    for r in decided.to_dict("records"):
        key = (str(r["scope"]), str(r["a"]), str(r["b"]))
        out.setdefault(key, {}).setdefault(str(r["direction"]), []).append(str(r["family"]))
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


def _cell(row: dict, x: str, y: str, deciding: dict[str, list[str]]) -> Cell:
    """The cell of row algorithm ``x`` against column ``y`` from the relation ``row``."""
    status = str(row["status"])
    families = family_text(_families(row.get("families")))
    reason = "" if _missing(row.get("reason")) else str(row["reason"])
    if status in ("settled", "implied"):
        wins = row["winner"] == x
        if status == "settled":
            kind = "better" if wins else "worse"
            text = ("▲ " if wins else "▼ ") + families
        else:
            kind = "implied better" if wins else "implied worse"
            text = ("△ " if wins else "▽ ") + "implied"
        title = f"{row['winner']} > {row['loser']}: {reason}"
        return Cell(kind, text, title)
    if status == "contradicted":
        return Cell("contradicted", "✕ " + (families or "cycle"), f"{x} vs {y}: {reason}")
    if status == "power gap":
        # A vote's direction is "a"/"b" or the favoured algorithm's name.
        side = {"a": row["a"], "b": row["b"]}
        favoured = [(side.get(d, d), f) for d, fs in deciding.items() for f in fs]
        fams = family_text(_families(",".join(f for _, f in favoured)))
        leader = favoured[0][0] if favoured else None
        arrow = "" if leader is None else ("(▲) " if leader == x else "(▼) ")
        return Cell("power gap", f"{arrow}{fams or 'gap'}", f"{x} vs {y}: {reason}")
    return Cell("unsettled", "–", f"{x} vs {y}: {reason}")


def scope_summaries(rec: Reconciliation, algorithms: list[str]) -> list[ScopeSummary]:
    """One :class:`ScopeSummary` per scope of the reconciliation, all benchmarks first.

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
    relations = rec.relations
    headlines = rec.headlines
    deciding = _vote_families(rec.votes)
    out = []
    if relations is None or not len(relations):
        return out
    rows_by_scope: dict[str, list[dict]] = {}
    for r in relations.to_dict("records"):
        rows_by_scope.setdefault(_scope_key(r), []).append(r)
    sentences: dict[str, dict] = {}
    if headlines is not None and len(headlines):
        for h in headlines.to_dict("records"):
            sentences[_scope_key(h)] = h
    # The typed groups (lists of names): an algorithm named "SVM, rbf" stays one name.
    groups: dict[str, list[list[str]]] = {
        label: [list(g) for g in rel.groups] for label, rel in rec.scopes.items()}
    position = {a: i for i, a in enumerate(algorithms)}
    for scope, rows in rows_by_scope.items():
        names = sorted({r["a"] for r in rows} | {r["b"] for r in rows},
                       key=lambda a: (position.get(a, len(position)), a))
        better: dict[str, set[str]] = {a: set() for a in names}
        settled: set[tuple[str, str]] = set()
        counts: dict[str, int] = {}
        for r in rows:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
            if r["status"] in ("settled", "implied"):
                better[r["winner"]].add(r["loser"])
                if r["status"] == "settled":
                    settled.add((r["winner"], r["loser"]))
        net = {a: len(better[a]) - sum(a in better[b] for b in names) for a in names}
        order = sorted(names, key=lambda a: (-net[a], position.get(a, len(position)), a))
        cells = {}
        for r in rows:
            votes = deciding.get((scope, str(r["a"]), str(r["b"])), {})
            for x, y in ((r["a"], r["b"]), (r["b"], r["a"])):
                cell = _cell(r, x, y, votes)
                cell.short = _short(cell.text)
                cells[(x, y)] = cell
        head = sentences.get(scope, {})
        first = rows[0]
        benchmark = None if _missing(first.get("benchmark")) else str(first["benchmark"])
        meta = None if _missing(first.get("metafeature")) else str(first["metafeature"])
        out.append(ScopeSummary(
            scope=scope, benchmark=benchmark, metafeature=meta,
            sentence=str(head.get("sentence") or ""),
            single_draws="" if _missing(head.get("single_draws")) else str(
                head.get("single_draws") or ""),
            order=order, better=better, settled=settled, cells=cells,
            groups=groups.get(scope, []), counts=counts))
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
