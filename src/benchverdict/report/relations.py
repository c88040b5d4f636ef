"""Error-controlled relations between algorithms: family votes, Holm, a partial order.

How a relation "A is better than B on scope S" becomes *settled*:

1. **One vote per family of evidence.** Every verdict method belongs to a
   family (rank tests, LMEM, tuning curves, score distributions), declared
   by its module (:mod:`benchverdict.methods`). Per pair and scope each
   voting family contributes one raw (unadjusted) p-value with a direction:
   that of its primary method (else its first voting method, by name), at
   the final budget. Several tests of one family on the same data (Nemenyi,
   Wilcoxon, the sign test on the same blocks) are one piece of evidence,
   so they cannot outvote another family. Score distributions (DSE)
   describe single draws and do not vote.
2. **Family-wise error per scope type.** Holm's step-down adjustment runs
   over all (family, pair, scope) p-values of a scope type ("all
   benchmarks", "per benchmark", the levels of one metafeature). A family
   *rejects* when its adjusted p is at most ``alpha``. Holm is valid under
   any dependence between the p-values, so under the null of identical
   algorithms the probability that any relation of the scope type is
   settled is at most ``alpha``.
3. **Settled, contradicted.** A relation is settled when some family
   rejects in one direction and no family decides the other way (at its own
   per-comparison level, raw ``p <= alpha``). Two families deciding
   opposite ways is a *contradiction*; so is a cycle among settled
   relations.
4. **Implied, power gap, unsettled.** The transitive closure of settled
   relations adds *implied* ones (marked as such: the families may measure
   different things). A pair that is neither settled nor implied is a
   *power gap* when some family decides it at its own level but the
   family-wise adjustment takes it back (more data would likely settle
   it), else *unsettled*.

The result is a partial order per scope, groups of mutually unsettled
algorithms (maximal cliques, as in a critical-difference diagram) and one
headline sentence per scope.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from benchverdict.effects.pairwise import PairEffect, PairwiseEffects
from benchverdict.families import family_label, family_rank
from benchverdict.methods import MethodInfo, method_info
from benchverdict.report.numbers import decimals_for
from benchverdict.stats.multiple_testing import holm
from benchverdict.verdict import Verdict

#: A scope group: (benchmark or None, metafeature levels).
GroupKey = tuple["str | None", tuple[tuple[str, str], ...]]

class Status(str, Enum):
    """A pair's status in one scope (strongest first); compares equal to its text."""

    SETTLED = "settled"
    IMPLIED = "implied"
    EQUIVALENT = "equivalent"
    CONTRADICTED = "contradicted"
    POWER_GAP = "power gap"
    UNSETTLED = "unsettled"

    def __str__(self) -> str:
        return self.value


#: Statuses of a relation, strongest first.
STATUSES = tuple(s.value for s in Status)
VOTE_COLUMNS = [
    "scope_type", "scope", "benchmark", "metafeature", "a", "b", "family", "method",
    "p_value", "direction", "decides", "p_value_adjusted", "rejects", "n", "n_units",
]
RELATION_COLUMNS = [
    "scope_type", "scope", "benchmark", "metafeature", "a", "b", "status", "winner", "loser",
    "families", "p_value_adjusted", "p_value", "against", "lacking", "via", "leans", "reason",
    "difference", "difference_lower", "difference_upper", "difference_unit", "superiority",
    "superiority_lower", "superiority_upper", "confidence", "equivalent",
    "p_equivalence", "p_equivalence_adjusted", "margin",
]
POWER_GAP_COLUMNS = [
    "scope_type", "scope", "benchmark", "metafeature", "family", "n_pairs", "pairs",
    "settled_by", "reason",
]
CONTRADICTION_COLUMNS = [
    "scope_type", "scope", "benchmark", "metafeature", "a", "b", "for_a", "for_b", "kind",
    "explanation",
]
GROUP_COLUMNS = ["scope_type", "scope", "benchmark", "metafeature", "group", "algorithms",
                 "size"]
HEADLINE_COLUMNS = [
    "scope_type", "scope", "benchmark", "metafeature", "sentence", "single_draws",
    "n_settled", "n_implied", "n_equivalent", "n_contradicted", "n_power_gap", "n_unsettled",
]
#: What a method's statistic compares, in words (by its registered aspect).
_ASPECT_WORDS = {"centre": "mean scores", "ranks": "ranks within benchmarks",
                 "upper tail": "the best scores", "lower tail": "the worst scores",
                 "whole distribution": "whole score distributions",
                 "varies with k": "tuning curves"}
#: A sentence names at most this many relations or pairs of one kind.
MAX_NAMED = 8


def scope_type(key: GroupKey) -> str:
    """The scope type a group belongs to (the unit of family-wise error control).

    Examples
    --------
    >>> scope_type((None, ())), scope_type(("moons", ())), scope_type((None, (("prior", "good"),)))
    ('all benchmarks', 'per benchmark', 'per level of prior')
    """
    bench, meta = key
    if not meta:
        return "all benchmarks" if bench is None else "per benchmark"
    names = " x ".join(sorted({k for k, _ in meta}))
    return f"per level of {names}" + ("" if bench is None else ", per benchmark")


def _raw_p(v: Verdict) -> float | None:
    """A voting verdict's raw p-value: its ``p_value``, else a p-value evidence."""
    if v.p_value is not None and math.isfinite(v.p_value):
        return v.p_value
    if v.evidence.kind == "p_value" and v.evidence.value is not None and math.isfinite(
            v.evidence.value):
        return float(v.evidence.value)
    return None


def _direction(v: Verdict) -> str | None:
    """Which algorithm a verdict's evidence favours: its decision, lean or effect sign."""
    if v.outcome in ("a", "b"):
        return v.outcome
    if v.lean is not None:
        return v.lean
    if v.p_one_sided is not None and v.p_one_sided[0] != v.p_one_sided[1]:
        return "a" if v.p_one_sided[0] < v.p_one_sided[1] else "b"
    if v.effect is not None and math.isfinite(v.effect.estimate) and v.effect.estimate != 0:
        return "a" if v.effect.estimate > 0 else "b"
    return None


#: What a claim across benchmarks is about: the population of benchmarks like the
#: observed ones, or exactly the observed benchmarks.
ESTIMANDS = ("benchmarks", "these")


def vote_estimand(v: Verdict, family: str) -> str:
    """What population a verdict's claim across benchmarks covers.

    The verdict's ``estimand`` where the module states it (the LMEM does);
    otherwise by what the family's test treats as replicates: rank tests
    take benchmarks as blocks, so their claims generalise to benchmarks like
    these (``"benchmarks"``); tuning curves compare per benchmark (and "on
    every benchmark" by an intersection-union test), which is a claim about
    exactly these benchmarks (``"these"``), as is an LMEM that does not state
    its estimand (Geburek et al.'s ``(1|benchmark)`` model counts seeds as
    replicates of the algorithm effect).

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> v = Verdict("A", "B", "a", "ranks.nemenyi", Scope(), Evidence("p_value", 0.01, 0.05),
    ...             "maximize", "")
    >>> vote_estimand(v, "ranks")
    'benchmarks'
    """
    if v.estimand in ESTIMANDS:
        return str(v.estimand)
    return "benchmarks" if family == "ranks" else "these"


def _units(v: Verdict, family: str) -> tuple[int | None, str]:
    """How many independent units a family's vote rests on, and what they are."""
    n, what = _stated_units(v, family)
    return n, _replicate_words(v, n, what)


def _replicate_words(v: Verdict, n: int | None, what: str) -> str:
    """``what``, or "independent replicates of N benchmarks" where copies joined some (display).

    A test that counted runs copied between benchmarks (or a declared task's
    variants) once has ``n`` replicates (the verdict's typed ``n``); its details
    keep how many benchmarks or blocks they came from, for these words only.
    """
    total = v.details.get("n_blocks", v.details.get("paired_n_benchmarks"))
    if total is not None and n is not None and int(total) > n:
        return f"independent replicates of {int(total)} {what}"
    return what


def _stated_units(v: Verdict, family: str) -> tuple[int | None, str]:
    """The units a verdict states (its ``n`` and what it counts)."""
    if family == "tuning":
        if v.sizes is not None:
            return min(v.sizes), "draws per algorithm"
        return v.n, "draws"
    if family == "ranks":
        return v.n, "blocks"
    if family == "lmem":
        if v.estimand == "benchmarks":
            # The algorithm contrast is judged against the benchmark-to-benchmark variation;
            # the module counts the benchmarks as its units.
            return v.n, "benchmarks"
        if v.estimand == "benchmark":
            return v.n, "runs"
        return v.n, "rows"
    return v.n, "units"


@dataclass
class Vote:
    """One family's vote on one pair in one scope: its raw p, direction and Holm outcome.

    ``decides``: the raw p is at most alpha with a direction (the family's
    own per-comparison level); ``rejects``: the Holm-adjusted p over the
    scope type is at most alpha. ``n`` independent units of kind ``n_units``.
    """

    key: GroupKey
    a: str
    b: str
    family: str
    method: str
    p_value: float
    direction: str | None
    decides: bool
    n: int | None
    n_units: str
    verdict: Verdict
    estimand: str = "these"
    p_value_adjusted: float = math.nan
    rejects: bool = False


@dataclass
class EquivalenceTest:
    """The TOST of ``|difference| >= margin`` for one pair in one scope.

    Its raw p-value joins the Holm adjustment of the scope type's votes
    (:func:`family_votes`), so settled and equivalent claims share one
    family-wise error rate; ``equivalent`` when the adjusted p is at most
    alpha.
    """

    key: GroupKey
    a: str
    b: str
    p_value: float
    p_value_adjusted: float = math.nan
    equivalent: bool = False


def family_votes(
    verdicts: Iterable[Verdict],
    *,
    alpha: float,
    covers: Callable[[Verdict], bool],
    representative: Callable[[Sequence[Verdict]], Verdict],
    group_key: Callable[[Verdict], GroupKey],
    estimand: str = "these",
    equivalence: Sequence[EquivalenceTest] = (),
) -> list[Vote]:
    """One vote per (family, pair, scope): the primary (else first voting) method's raw p.

    ``verdicts`` must be oriented (``a`` before ``b``). Only verdicts that
    cover the final budget (``covers``) vote; among several of the chosen
    method, ``representative`` picks one. With ``estimand="benchmarks"``,
    a verdict across benchmarks whose claim covers only these benchmarks
    (:func:`vote_estimand`) does not vote there: the settled relation is to
    hold for benchmarks like these. A verdict whose ``no_vote``
    states a reason (e.g. tuning curves on draws that share a run, whose
    bands assume IID draws) does not vote either. The ``equivalence`` tests
    (TOST p-values, with a margin) are adjusted in the same Holm family as
    the votes of their scope type; their outcome is set in place.
    """
    if estimand not in ESTIMANDS:
        raise ValueError(f"estimand must be one of {ESTIMANDS}, got {estimand!r}.")
    chosen: dict[tuple, dict[str, list[Verdict]]] = defaultdict(lambda: defaultdict(list))
    infos: dict[str, MethodInfo] = {}
    for v in verdicts:
        info = infos.get(v.method) or infos.setdefault(v.method, method_info(v.method))
        if not info.votes or not covers(v) or v.no_vote:
            continue
        key = group_key(v)
        if (estimand == "benchmarks" and key[0] is None
                and vote_estimand(v, info.family) != "benchmarks"):
            continue
        chosen[(info.family, v.a, v.b, key)][v.method].append(v)
    votes = []
    for (family, a, b, key), by_method in chosen.items():
        primary = [m for m in by_method if infos[m].primary]
        method = sorted(primary)[0] if primary else sorted(by_method)[0]
        v = representative(by_method[method])
        p = _raw_p(v)
        if p is None:
            continue
        direction = _direction(v)
        n, what = _units(v, family)
        votes.append(Vote(key, a, b, family, method, p, direction,
                           bool(p <= alpha and direction is not None), n, what, v,
                           vote_estimand(v, family) if key[0] is None else "benchmark"))
    # Holm over every vote (and equivalence test) of a scope type.
    by_type: dict[str, list[Vote | EquivalenceTest]] = defaultdict(list)
    for item in [*votes, *(t for t in equivalence if math.isfinite(t.p_value))]:
        by_type[scope_type(item.key)].append(item)
    for group in by_type.values():
        adjusted = holm([x.p_value for x in group])
        for item, p_adj in zip(group, adjusted):
            item.p_value_adjusted = float(p_adj)
            if isinstance(item, EquivalenceTest):
                item.equivalent = bool(p_adj <= alpha)
            else:
                item.rejects = bool(p_adj <= alpha and item.direction is not None)
    return votes


def _family_list(families: Iterable[str]) -> str:
    names = [family_label(f) for f in sorted(set(families), key=family_rank)]
    return _and(names)




def _and(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _names(items: Sequence[str], limit: int = MAX_NAMED) -> str:
    items = list(items)
    if len(items) > limit:
        return ", ".join(items[:limit]) + f" and {len(items) - limit:,} more"
    return _and(items)


@dataclass(frozen=True)
class Relation:
    """How ``a`` and ``b`` relate in one scope, and on what evidence.

    Attributes
    ----------
    a, b : str
    status : Status
    winner, loser : str or None
        Set for a settled or implied relation.
    families : tuple of str
        The families that settle it (or that contradict each other).
    against : tuple of str
        For a contradiction: the families that find the other algorithm better.
    lacking : tuple of str
        Families that voted on a settled pair without rejecting.
    via : tuple of str
        The chain of an implied relation (winner first).
    leans : tuple of str
        Evidence below the decision bar, one text per method.
    p_value, p_value_adjusted : float
        The smallest raw p of the pair's votes; the deciding families' Holm p.
    reason : str
    votes : tuple of Vote
        The votes on the pair.
    effect : PairEffect or None
        By how much: ``a`` minus ``b`` with its simultaneous interval
        (:mod:`benchverdict.effects.pairwise`), whatever the status.
    equivalent : bool
        The pair's difference is shown to lie within the margin (TOST,
        adjusted with the votes). The status is ``equivalent`` unless the
        pair is also settled (a difference smaller than the margin) or implied.
    p_equivalence, p_equivalence_adjusted : float
        The TOST p-value, raw and Holm-adjusted (NaN without a margin).
    """

    a: str
    b: str
    status: Status
    winner: str | None = None
    loser: str | None = None
    families: tuple[str, ...] = ()
    against: tuple[str, ...] = ()
    lacking: tuple[str, ...] = ()
    via: tuple[str, ...] = ()
    leans: tuple[str, ...] = ()
    p_value: float = math.nan
    p_value_adjusted: float = math.nan
    reason: str = ""
    votes: tuple[Vote, ...] = field(default=(), repr=False, compare=False)
    effect: PairEffect | None = field(default=None, repr=False, compare=False)
    equivalent: bool = False
    p_equivalence: float = math.nan
    p_equivalence_adjusted: float = math.nan

    def row(self) -> dict:
        """The relation as a table row (lists joined into text: the edge of the model).

        The effect's columns are ``a`` minus ``b`` in the scope's unit; the
        scope adds the unit, confidence and margin.
        """
        e = self.effect
        nan = math.nan
        return {"a": self.a, "b": self.b, "status": self.status.value, "winner": self.winner,
                "loser": self.loser, "families": ", ".join(self.families),
                "p_value_adjusted": self.p_value_adjusted, "p_value": self.p_value,
                "against": ", ".join(self.against), "lacking": ", ".join(self.lacking),
                "via": " > ".join(self.via), "leans": "; ".join(self.leans),
                "reason": self.reason,
                "difference": e.difference if e else nan,
                "difference_lower": e.lower if e else nan,
                "difference_upper": e.upper if e else nan,
                "superiority": e.superiority if e else nan,
                "superiority_lower": e.superiority_lower if e else nan,
                "superiority_upper": e.superiority_upper if e else nan,
                "equivalent": self.equivalent, "p_equivalence": self.p_equivalence,
                "p_equivalence_adjusted": self.p_equivalence_adjusted}


@dataclass(frozen=True)
class PowerGap:
    """A family that voted on settled pairs of a scope without rejecting, and why."""

    family: str
    pairs: tuple[tuple[str, str], ...]
    settled_by: tuple[str, ...]
    reason: str
    n_text: str
    every_benchmark: bool = False
    other_aspect: str | None = None
    other_estimand: str | None = None

    @property
    def n_pairs(self) -> int:
        """How many settled pairs the family did not confirm."""
        return len(self.pairs)

    def row(self) -> dict:
        """The power gap as a table row (columns ``POWER_GAP_COLUMNS[4:]``)."""
        return {"family": self.family, "n_pairs": self.n_pairs,
                "pairs": ", ".join(f"{w} > {lo}" for w, lo in self.pairs),
                "settled_by": ", ".join(self.settled_by), "reason": self.reason}


@dataclass(frozen=True)
class Contradiction:
    """Families deciding a pair opposite ways, or a cycle of settled relations."""

    a: str
    b: str
    for_a: tuple[str, ...]
    for_b: tuple[str, ...]
    kind: str
    explanation: str

    def row(self) -> dict:
        """The contradiction as a table row (columns ``CONTRADICTION_COLUMNS[4:]``)."""
        return {"a": self.a, "b": self.b, "for_a": ", ".join(self.for_a),
                "for_b": ", ".join(self.for_b), "kind": self.kind,
                "explanation": self.explanation}


@dataclass
class ScopeRelations:
    """The relations of one scope: statuses, partial order, groups, headline.

    ``relations`` holds one :class:`Relation` per pair; ``better`` whom each
    algorithm beats (settled or implied) and ``tiers`` the partial order
    (:func:`tiers_of`), both computed once from them.
    """

    key: GroupKey
    label: str
    algorithms: list[str]
    relations: list[Relation] = field(default_factory=list)
    groups: list[list[str]] = field(default_factory=list)
    sentence: str = ""
    single_draws: str = ""
    power_gaps: list[PowerGap] = field(default_factory=list)
    contradictions: list[Contradiction] = field(default_factory=list)
    effects: PairwiseEffects | None = None

    @property
    def equivalent_groups(self) -> list[list[str]]:
        """Maximal groups of algorithms that are pairwise practically equivalent."""
        adjacent: dict[str, set[str]] = {x: set() for x in self.algorithms}
        for r in self.relations:
            if r.equivalent:
                adjacent[r.a].add(r.b)
                adjacent[r.b].add(r.a)
        nodes = [x for x in self.algorithms if adjacent[x]]
        cliques = maximal_cliques(nodes, adjacent) if nodes else []
        if cliques is None:
            cliques = _components(nodes, adjacent)
        return [c for c in cliques if len(c) >= 2]

    def status_of(self, a: str, b: str) -> Relation | None:
        """The relation of the pair (either orientation), or ``None``."""
        if getattr(self, "_index_size", -1) != len(self.relations):
            # Built once (and again if relations change): 200 algorithms have 19,900 pairs.
            # Both orientations as tuple keys: cheaper to look up than a frozenset made
            # per call (the reconciliation asks once per pair and scope).
            index = {(r.a, r.b): r for r in self.relations}
            index.update({(r.b, r.a): r for r in self.relations})
            self._index = index
            self._index_size = len(self.relations)
        return self._index.get((a, b))

    def with_status(self, *statuses: Status) -> list[Relation]:
        """The relations whose status is one of ``statuses``."""
        return [r for r in self.relations if r.status in statuses]

    @property
    def better(self) -> dict[str, set[str]]:
        """Whom each algorithm beats, settled or implied."""
        out: dict[str, set[str]] = {x: set() for x in self.algorithms}
        for r in self.with_status(Status.SETTLED, Status.IMPLIED):
            out[r.winner].add(r.loser)
        return out

    @property
    def tiers(self) -> list[list[str]]:
        """The partial order as consecutive tiers (:func:`tiers_of`), best first."""
        return tiers_of(self.algorithms, self.better)


def _closure(algorithms: Sequence[str], edges: set[tuple[str, str]]) -> dict[str, set[str]]:
    """Everything each algorithm beats through settled edges (winner -> loser)."""
    beats: dict[str, set[str]] = {x: set() for x in algorithms}
    for w, loser in edges:
        beats[w].add(loser)
    changed = True
    while changed:
        changed = False
        for x in algorithms:
            extra = set().union(*(beats[y] for y in beats[x])) - beats[x] if beats[x] else set()
            if extra:
                beats[x] |= extra
                changed = True
    return beats


def _path(beats_direct: dict[str, set[str]], start: str, goal: str) -> list[str]:
    """A shortest chain of settled relations from ``start`` to ``goal`` (breadth first)."""
    previous = {start: None}
    frontier = [start]
    while frontier:
        nxt = []
        for x in frontier:
            for y in sorted(beats_direct.get(x, ())):
                if y not in previous:
                    previous[y] = x
                    if y == goal:
                        out = [y]
                        while previous[out[-1]] is not None:
                            out.append(previous[out[-1]])
                        return out[::-1]
                    nxt.append(y)
        frontier = nxt
    return []


def maximal_cliques(nodes: Sequence[str], adjacent: dict[str, set[str]],
                    limit: int = 500) -> list[list[str]] | None:
    """Maximal cliques (Bron-Kerbosch with pivoting), or ``None`` beyond ``limit`` cliques.

    Examples
    --------
    >>> adj = {"A": {"B"}, "B": {"A", "C"}, "C": {"B"}}
    >>> maximal_cliques(["A", "B", "C"], adj)
    [['A', 'B'], ['B', 'C']]
    """
    out: list[list[str]] = []
    order = {x: i for i, x in enumerate(nodes)}

    def expand(r: set[str], p: set[str], x: set[str]) -> bool:
        if not p and not x:
            out.append(sorted(r, key=order.__getitem__))
            return len(out) <= limit
        pivot = max(p | x, key=lambda u: len(adjacent[u] & p))
        for v in sorted(p - adjacent[pivot], key=order.__getitem__):
            if not expand(r | {v}, p & adjacent[v], x & adjacent[v]):
                return False
            p = p - {v}
            x = x | {v}
        return True

    if not expand(set(), set(nodes), set()):
        return None
    return sorted(out, key=lambda c: [order[x] for x in c])


def relate_scope(
    key: GroupKey,
    label: str,
    algorithms: Sequence[str],
    votes: Sequence[Vote],
    leans: dict[tuple[str, str], list[str]],
    alpha: float,
    n_tests: int,
    explain: Callable[[Verdict, Verdict], str],
    effects: PairwiseEffects | None = None,
    equivalence: Iterable[EquivalenceTest] = (),
) -> ScopeRelations:
    """Statuses of every pair of one scope, its partial order, groups and contradictions.

    ``effects`` sizes every pair (the relation carries its effect);
    ``equivalence`` holds the pairs' TOST outcomes, already adjusted with
    the votes (:func:`family_votes`): a pair that no family separates but
    whose difference is shown to lie within the margin is *equivalent*.
    """
    out = ScopeRelations(key, label, list(algorithms), effects=effects)
    tost = {frozenset((t.a, t.b)): t for t in equivalence}
    by_pair: dict[tuple[str, str], list[Vote]] = defaultdict(list)
    for vote in votes:
        by_pair[(vote.a, vote.b)].append(vote)
    pairs = list(itertools.combinations(algorithms, 2))
    # Built as mutable fields per pair (cycles and transitivity revise them), frozen into
    # Relation records at the end.
    direct: dict[tuple[str, str], dict] = {}
    edges: set[tuple[str, str]] = set()
    for a, b in pairs:
        found = by_pair.get((a, b), [])
        rej = {"a": [v for v in found if v.rejects and v.direction == "a"],
               "b": [v for v in found if v.rejects and v.direction == "b"]}
        dec = {"a": [v for v in found if v.decides and v.direction == "a"],
               "b": [v for v in found if v.decides and v.direction == "b"]}
        row = {"a": a, "b": b, "status": Status.UNSETTLED,
               "p_value": min((v.p_value for v in found), default=math.nan),
               "leans": tuple(leans.get((a, b), [])), "votes": tuple(found),
               "effect": None if effects is None else effects.effect(a, b)}
        test = tost.get(frozenset((a, b)))
        if test is not None:
            row.update(equivalent=test.equivalent, p_equivalence=test.p_value,
                       p_equivalence_adjusted=test.p_value_adjusted)
        side = "a" if rej["a"] else "b" if rej["b"] else None
        other = {"a": "b", "b": "a"}.get(side or "")
        if side is not None and (rej[other] or dec[other]):
            winners = rej[side]
            losers = rej[other] or dec[other]
            row.update(status=Status.CONTRADICTED,
                       families=_family_tuple(v.family for v in winners + losers),
                       against=_family_tuple(v.family for v in losers))
            kind = "both reject" if rej[other] else "one rejects, one decides"
            text = explain(winners[0].verdict, losers[0].verdict)
            name = {"a": a, "b": b}
            row["reason"] = (
                f"{_family_list(v.family for v in winners)} find {name[side]} better, "
                f"{_family_list(v.family for v in losers)} find {name[other]} better; {text}")
            for_a, for_b = (winners, losers) if side == "a" else (losers, winners)
            out.contradictions.append(Contradiction(
                a, b, tuple(sorted({v.family for v in for_a})),
                tuple(sorted({v.family for v in for_b})), kind, text))
        elif side is not None:
            winner, loser = (a, b) if side == "a" else (b, a)
            deciders = rej[side]
            lacking = [v for v in found if not v.rejects]
            row.update(status=Status.SETTLED, winner=winner, loser=loser,
                       families=_family_tuple(v.family for v in deciders),
                       p_value_adjusted=min(v.p_value_adjusted for v in deciders),
                       lacking=_family_tuple(v.family for v in lacking))
            row["reason"] = (
                f"{_family_list(v.family for v in deciders)} "
                f"{'settle' if len(deciders) > 1 else 'settles'} it (family-wise adjusted "
                f"p = {row['p_value_adjusted']:.3g} over {n_tests} test(s) of this scope type)")
            edges.add((winner, loser))
        else:
            decided = dec["a"] + dec["b"]
            if decided:
                best = min(decided, key=lambda v: v.p_value)
                fav = a if best.direction == "a" else b
                row["status"] = Status.POWER_GAP
                row["reason"] = (
                    f"{family_label(best.family)} favour {fav} at p = "
                    f"{best.p_value:.3g} for this pair alone, but not after the family-wise "
                    f"adjustment over {n_tests} test(s) (adjusted p = {best.p_value_adjusted:.3g})")
            elif found:
                best = min(found, key=lambda v: v.p_value)
                row["reason"] = (f"no family separates them (smallest p = {best.p_value:.3g}, "
                                 f"{family_label(best.family)})")
            else:
                row["reason"] = "no family that votes judged this pair"
        direct[(a, b)] = row
    # Cycles among settled relations turn them into contradictions.
    beats = _closure(algorithms, edges)
    cyclic = {(w, lo) for w, lo in edges if w in beats[lo]}
    if cyclic:
        for w, lo in cyclic:
            row = direct[(w, lo)] if (w, lo) in direct else direct[(lo, w)]
            row.update(status=Status.CONTRADICTED, winner=None, loser=None,
                       reason=f"part of a cycle of settled relations ({w} > {lo} closes it)")
            out.contradictions.append(Contradiction(row["a"], row["b"], (), (), "cycle",
                                                    row["reason"]))
        edges -= cyclic
    # Implied: transitivity within one family only. Families answer different questions
    # (a mean difference, a rank difference, a tuning-curve quantile), so a chain that
    # needs two of them would join claims about different things.
    by_family: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for row in direct.values():
        if row["status"] is Status.SETTLED and (row["winner"], row["loser"]) in edges:
            for vote in row["votes"]:
                if vote.rejects:
                    by_family[vote.family].add((row["winner"], row["loser"]))
    closures = {f: (_closure(algorithms, e), e) for f, e in sorted(
        by_family.items(), key=lambda item: family_rank(item[0]))}
    for (a, b), row in direct.items():
        if row["status"] in (Status.SETTLED, Status.CONTRADICTED):
            continue
        for w, lo in ((a, b), (b, a)):
            family = next((f for f, (reach, _) in closures.items() if lo in reach[w]), None)
            if family is None:
                continue
            direct_beats: dict[str, set[str]] = defaultdict(set)
            for x, y in closures[family][1]:
                direct_beats[x].add(y)
            chain = _path(direct_beats, w, lo)
            label = family_label(family)
            row.update(status=Status.IMPLIED, winner=w, loser=lo, families=(family,),
                       via=tuple(chain),
                       reason=f"implied by {' > '.join(chain)}, each step settled by "
                              f"{label} (transitivity within one family)")
            break
    # Equivalent: no family separates the pair, and its difference lies within the margin.
    within = (f"within the margin of practical equivalence "
              f"(|difference| < {_margin_text(effects)}")
    for row in direct.values():
        if not row.get("equivalent"):
            continue
        p_eq = row["p_equivalence_adjusted"]
        if row["status"] in (Status.UNSETTLED, Status.POWER_GAP):
            row["status"] = Status.EQUIVALENT
            row["reason"] = (f"practically equivalent: the difference is {within}; two "
                             f"one-sided tests, family-wise adjusted p = {p_eq:.3g})")
        else:
            row["reason"] += f"; the difference is also {within}, adjusted p = {p_eq:.3g})"
    if effects is not None:
        for row in direct.values():
            e = row.get("effect")
            if (row["status"] in (Status.UNSETTLED, Status.POWER_GAP) and e is not None
                    and (e.lower > 0 or e.upper < 0)):
                # Not a contradiction: the interval is simultaneous over this scope's pairs,
                # a settled relation must pass Holm over every test of the scope type.
                row["reason"] = (row.get("reason", "") + ("; " if row.get("reason") else "")
                                 + f"the {effects.confidence:.0%} interval of the difference "
                                 f"excludes 0, but it decides nothing: a settled relation must "
                                 f"pass a family's own test (which may ask about ranks, or "
                                 f"have too few benchmarks to reach its threshold) after Holm "
                                 f"over all {n_tests} test(s) of this scope type, while the "
                                 f"interval is a paired or Welch t interval, simultaneous over "
                                 f"this scope's {len(effects.effects)} pair(s) only")
    out.relations = [Relation(**row) for row in direct.values()]
    # Groups: maximal cliques of pairs that are neither settled nor implied.
    open_pairs = {(r.a, r.b) for r in out.relations
                  if r.status not in (Status.SETTLED, Status.IMPLIED)}
    adjacent = {x: set() for x in algorithms}
    for a, b in open_pairs:
        adjacent[a].add(b)
        adjacent[b].add(a)
    cliques = maximal_cliques(list(algorithms), adjacent)
    if cliques is None:  # too many to list: fall back to connected components
        cliques = _components(list(algorithms), adjacent)
    out.groups = [c for c in cliques if len(c) >= 2]
    out.power_gaps = _power_gaps(out.relations, alpha, n_tests)
    return out


def _margin_text(effects: PairwiseEffects | None) -> str:
    """The margin in the effects' unit ("0.01 accuracy", "0.2 run-to-run SD of a benchmark")."""
    if effects is None or effects.margin is None:
        return "the margin"
    if effects.margin.standardized:
        return effects.margin.text()
    return effects.margin.text(effects.unit)


def _family_tuple(families: Iterable[str]) -> tuple[str, ...]:
    """Distinct families in the registry's order of precedence."""
    return tuple(sorted(set(families), key=family_rank))


def _components(nodes: list[str], adjacent: dict[str, set[str]]) -> list[list[str]]:
    seen, out = set(), []
    for x in nodes:
        if x in seen:
            continue
        stack, comp = [x], []
        while stack:
            y = stack.pop()
            if y in seen:
                continue
            seen.add(y)
            comp.append(y)
            stack += sorted(adjacent[y] - seen)
        out.append(sorted(comp, key=nodes.index))
    return out


def _power_gaps(relations: Sequence[Relation], alpha: float, n_tests: int) -> list[PowerGap]:
    """Per family: the settled pairs it voted on without rejecting, and why."""
    by_family: dict[str, list[tuple[Relation, Vote]]] = defaultdict(list)
    for row in relations:
        if row.status is not Status.SETTLED:
            continue
        for vote in row.votes:
            if not vote.rejects:
                by_family[vote.family].append((row, vote))
    out = []
    for family in sorted(by_family, key=family_rank):
        items = by_family[family]
        settled_by = _family_tuple(f for row, _ in items for f in row.families)
        ns = sorted({v.n for _, v in items if v.n is not None})
        unit = items[0][1].n_units
        n_text = (f"{ns[0]:,} {unit}" if len(ns) == 1 else
                  f"{ns[0]:,}-{ns[-1]:,} {unit}" if ns else f"an unstated number of {unit}")
        best = min(v.p_value for _, v in items)
        every = all(v.verdict.pooling == "intersection-union" for _, v in items)
        label = family_label(family)
        # A family whose claim covers another population than the settling families'
        # answers a different question: its silence is not a lack of power.
        deciding = {x.estimand for row, _ in items for x in row.votes if x.rejects}
        other_question = bool(deciding) and all(v.estimand not in deciding for _, v in items)
        if other_question:
            theirs = items[0][1].estimand
            about = {"benchmarks": "benchmarks like these", "these": "these benchmarks only"}
            reason = (f"{label} ask about {about.get(theirs, theirs)} and do not confirm "
                      f"these pairs (smallest p = {best:.3g}); the settling "
                      f"{'families speak' if len(settled_by) > 1 else 'family speaks'} of "
                      f"{' and '.join(sorted(about.get(e, e) for e in deciding))}: a "
                      f"different estimand, not a lack of power")
        elif every:
            # An intersection-union vote asks "better on every benchmark": it fails where
            # one benchmark shows no difference, which more draws need not change.
            reason = (f"{label} ask whether one algorithm is better on every benchmark "
                      f"(intersection-union test, {n_text}); for these pairs some benchmark "
                      f"does not separate them (smallest p = {best:.3g})")
        else:
            reason = (f"{label} with {n_text}: smallest p = {best:.3g} among these pairs, "
                      f"while the family-wise adjustment over {n_tests} test(s) asks for "
                      f"p <= {alpha / n_tests:.2g} for the first")
        # A family that summarises another aspect of the scores (ranks within a benchmark,
        # not mean scores) asks a different question; more data need not change its answer.
        theirs = {_ASPECT_WORDS.get(method_info(v.method).aspect) for _, v in items} - {None}
        settling = {_ASPECT_WORDS.get(method_info(x.method).aspect) for row, _ in items
                    for x in row.votes if x.rejects} - {None}
        aspect = (next(iter(theirs)) if len(theirs) == 1 and settling and not
                  theirs & settling and not other_question and not every else None)
        if aspect is not None:
            reason += (f"; {label} compare {aspect}, the settling "
                       f"{'families' if len(settled_by) > 1 else 'family'} "
                       f"{' and '.join(sorted(settling))}: a different question as well as "
                       f"less power")
        if family == "ranks" and len(ns) == 1 and ns[0] < 30 and not other_question:
            floor = 2.0 / 2.0 ** ns[0]
            if floor > alpha / n_tests:  # only when the blocks alone rule a decision out
                reason += (f"; with {ns[0]} blocks no two-sided signed-rank p-value can be "
                           f"below {floor:.3g}")
        out.append(PowerGap(
            family, tuple((row.winner, row.loser) for row, _ in items), settled_by, reason,
            n_text, every_benchmark=every and not other_question, other_aspect=aspect,
            other_estimand=items[0][1].estimand if other_question else None))
    return out


# ---------------------------------------------------------------------------- the headline
def tiers_of(algorithms: Sequence[str], better: dict[str, set[str]]) -> list[list[str]]:
    """The finest split into consecutive tiers where every member beats every later one.

    ``better[x]`` is the set of algorithms ``x`` beats (settled or implied).

    Examples
    --------
    >>> tiers_of(["A", "B", "C", "D"], {"A": {"D"}, "B": {"D"}, "C": {"D"}, "D": set()})
    [['A', 'B', 'C'], ['D']]
    """
    score = {x: len(better[x]) - sum(x in better[y] for y in algorithms) for x in algorithms}
    order = sorted(algorithms, key=lambda x: (-score[x], list(algorithms).index(x)))
    blocks, current = [], []
    for i, x in enumerate(order):
        current.append(x)
        rest = order[i + 1:]
        if rest and all(y in better[w] for w in order[:i + 1] for y in rest):
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _chain(blocks: Sequence[Sequence[str]]) -> str:
    return " > ".join(b[0] if len(b) == 1 else "{" + ", ".join(b) + "}" for b in blocks)


def _phrase_block(block: Sequence[str], better: dict[str, set[str]],
                  equivalent: set[frozenset[str]] | None = None) -> str:
    """What is known inside a block of algorithms none of which beats all the others."""
    inside = [(w, lo) for w in block for lo in block if lo in better[w]]
    names = _and(list(block))
    if not inside and equivalent and all(
            frozenset((x, y)) in equivalent for x, y in itertools.combinations(block, 2)):
        return f"{names} are practically equivalent"
    if not inside:
        return f"{names} cannot be separated"
    shown = ", ".join(f"{w} > {lo}" for w, lo in inside[:MAX_NAMED])
    more = f" and {len(inside) - MAX_NAMED} more" if len(inside) > MAX_NAMED else ""
    verb = "are" if len(inside) > 1 else "is"
    return f"among {names} only {shown}{more} {verb} settled"


def headline_sentence(rel: ScopeRelations, *, lead: bool | None = None) -> str:
    """One sentence a reader can quote: the partial order, who settles it, what is open.

    For the example data across benchmarks: "Across benchmarks like these 20:
    MLP > LR, RF > LR and SVM > LR (settled by LMEM; rank tests, which compare
    ranks within benchmarks, do not confirm these pairs with 20 blocks); no
    other pair is settled."
    """
    algs = rel.algorithms
    better = rel.better
    settled = rel.with_status(Status.SETTLED)
    same = {frozenset((r.a, r.b)) for r in rel.relations if r.equivalent}
    if len(algs) < 2:
        return f"{rel.label}: only one algorithm, nothing to compare."
    rest: list[str] = []
    if not any(better.values()):
        body = _phrase_block(list(algs), better, same)
        gaps = rel.with_status(Status.POWER_GAP)
        if gaps:
            body += (f" (for {len(gaps)} pair(s) the evidence of one family does not survive "
                     f"the family-wise adjustment)")
        note = ""
    else:
        blocks = rel.tiers
        top, bottom = blocks[0], blocks[-1]
        if all(len(b) == 1 for b in blocks):
            body, middle = _chain(blocks), []
        elif len(blocks) == 1:
            # No algorithm is above or below all others: name the known relations.
            known = [f"{w} > {lo}" for w in top for lo in top if lo in better[w]]
            body = _names(known)
            middle = []
            rest.append("no other pair is settled")
        elif len(top) == 1 and len(bottom) == 1:
            body, middle = f"{top[0]} is best and {bottom[0]} is worst", blocks[1:-1]
        elif len(top) == 1:
            body, middle = f"{top[0]} is best", blocks[1:]
        elif len(bottom) == 1:
            body, middle = f"{bottom[0]} is worst", blocks[:-1]
        else:
            body, middle = _chain(blocks), []
            rest += [_phrase_block(b, better, same) for b in blocks if len(b) > 1]
        if len(middle) == 1:
            rest.append(_phrase_block(middle[0], better, same))
        elif middle:
            rest.append("between them " + _chain(middle))
            rest += [_phrase_block(b, better, same) for b in middle if len(b) > 1]
        note = _evidence_note(rel, settled)
    text = f"{rel.label}: {body}{note}" + "".join(f"; {part}" for part in rest)
    text += effects_clause(rel, lead=lead) + equivalence_clause(rel)
    contradicted = rel.with_status(Status.CONTRADICTED)
    if contradicted:
        text += "; contradicted: " + _names([f"{r.a} vs {r.b}" for r in contradicted])
    return text + "."


def effect_decimals(*widths: float, values: Iterable[float] = ()) -> int:
    """Decimals that show two significant digits of the narrowest interval half-width.

    A half-width at or below :data:`~benchverdict.report.numbers.RELATIVE_NOISE`
    times the largest magnitude among ``values`` (the differences shown) is
    round-off, not a width: runs with identical scores gave HPO-B intervals
    5e-16 wide, printed with 8 decimals. Without a width, three significant
    digits of the largest value (3 decimals without values).

    Examples
    --------
    >>> effect_decimals(0.11, 0.02), effect_decimals(float("nan"))
    (3, 3)
    >>> effect_decimals(5.4e-16, values=[0.0102]), effect_decimals(0.0002, values=[0.0102])
    (4, 5)
    """
    values = list(values)
    if not any(math.isfinite(w) and w > 0 for w in widths) and not any(
            math.isfinite(v) and v != 0 for v in values):
        return 3
    # The tables' rule (report.numbers), with two more decimals allowed: effects are read
    # against their intervals, which can be narrow.
    return decimals_for(widths, values, max_decimals=8)


def _signed(x: float, decimals: int) -> str:
    """A number with its sign ("+0.086", "-0.025", "0")."""
    if not math.isfinite(x):
        return "nan"
    text = f"{x:+.{decimals}f}"
    return "0" if float(text) == 0 else text


def effect_text(effect: PairEffect | None, winner: str, decimals: int | None = None) -> str:
    """How much better ``winner`` is, with the interval ("+0.086 [+0.031, +0.141]").

    Examples
    --------
    >>> e = PairEffect("A", "B", 0.0861, 0.031, 0.141, 0.02, 19, 0.001, 0.8, 0.6, 0.9, 20)
    >>> effect_text(e, "A"), effect_text(e, "B")
    ('+0.086 [+0.031, +0.141]', '-0.086 [-0.141, -0.031]')
    """
    if effect is None or not math.isfinite(effect.difference):
        return "size unknown"
    gain, lo, hi = effect.advantage(winner)
    if decimals is None:
        decimals = effect_decimals((hi - lo) / 2.0, abs(gain) if not math.isfinite(hi - lo) else 0,
                                   values=[gain])
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return (f"{_signed(gain, decimals)} (no interval: too few replicates, or runs "
                f"without spread)")
    return f"{_signed(gain, decimals)} [{_signed(lo, decimals)}, {_signed(hi, decimals)}]"


def effects_clause(rel: ScopeRelations, *, lead: bool | None = None) -> str:
    """By how much each settled relation holds, with its interval and adjusted p.

    Empty without effects. The unit and the interval's level are stated
    once; an interval that includes 0 says so, and why where the data show
    it: the pair's difference varies across benchmarks more than a model
    with one algorithm x benchmark variance for all pairs (the LMEM's)
    assumes. With nothing settled, a scope the report leads with (``lead``;
    by default the scope across benchmarks) names its largest differences
    instead, so "cannot be separated" is not read as "equal"; a study of
    one benchmark leads with that benchmark.
    """
    eff = rel.effects
    settled = rel.with_status(Status.SETTLED)
    if eff is None or not eff.effects:
        return ""
    if not settled:
        if lead is None:
            lead = rel.key[0] is None
        return _largest_differences(rel) if lead else ""
    shown_rel = settled[:MAX_NAMED]
    decimals = effect_decimals(*((r.effect.upper - r.effect.lower) / 2.0 for r in shown_rel
                                 if r.effect is not None),
                               values=[r.effect.difference for r in shown_rel
                                       if r.effect is not None])
    shown, wide = [], []
    for r in shown_rel:
        text = f"{r.winner} over {r.loser} {effect_text(r.effect, r.winner, decimals)}"
        if r.effect is not None and math.isfinite(r.effect.lower) and not r.effect.excludes_zero:
            text += " (includes 0)"
            wide.append(r)
        if math.isfinite(r.p_value_adjusted):
            text += f", adjusted p = {r.p_value_adjusted:.2g}"
        shown.append(text)
    more = f" and {len(settled) - MAX_NAMED} more" if len(settled) > MAX_NAMED else ""
    out = (f"; by how much ({eff.measure} in {eff.unit}, positive = better; "
           f"{eff.confidence:.0%} intervals simultaneous over {len(eff.effects)} pair(s)): "
           + "; ".join(shown) + more)
    if wide:
        sds = [r.effect.se * math.sqrt(r.effect.n) for r in wide]
        if (math.isfinite(eff.pooled_sd) and min(sds) > 1.25 * eff.pooled_sd
                and all("lmem" in r.families for r in wide)):
            span = (f"{min(sds):.2g}" if f"{min(sds):.2g}" == f"{max(sds):.2g}" else
                    f"{min(sds):.2g}-{max(sds):.2g}")
            out += (f" [where an interval includes 0, the pair's difference varies across "
                    f"benchmarks more (SD {span}) than one algorithm x benchmark variance "
                    f"shared by all pairs implies ({eff.pooled_sd:.2g}), as the LMEM "
                    f"assumes; the paired interval does not assume it]")
        else:
            out += (f" [where an interval includes 0, the {eff.measure} alone does not "
                    "separate the pair; the settling family's test does]")
    return out


#: How many of the largest differences a scope with nothing settled names.
N_LARGEST = 3


def _largest_differences(rel: ScopeRelations) -> str:
    """By how much the pairs differ most when nothing is settled in the leading scope.

    "Cannot be separated" alone does not say whether the differences are small
    or merely uncertain; the largest ones with their simultaneous intervals
    say which.
    """
    eff = rel.effects
    found = [e for e in eff.effects if math.isfinite(e.difference)]
    if not found:
        return ""
    top = sorted(found, key=lambda e: (-abs(e.difference), e.a, e.b))[:N_LARGEST]
    leaders = [e.a if e.advantage(e.a)[0] >= 0 else e.b for e in top]
    widths = [(e.upper - e.lower) / 2.0 for e in top if math.isfinite(e.upper - e.lower)]
    decimals = effect_decimals(*widths, values=[e.difference for e in top]) if widths else None
    named = [f"{w} over {e.b if w == e.a else e.a} {effect_text(e, w, decimals)}"
             for e, w in zip(top, leaders)]
    return (f"; largest differences ({eff.measure} in {eff.unit}, "
            f"positive = better; {eff.confidence:.0%} simultaneous intervals over "
            f"{len(eff.effects)} pair(s)): " + "; ".join(named))


def equivalence_clause(rel: ScopeRelations) -> str:
    """Groups of practically equivalent algorithms, or that none is shown (with a margin)."""
    eff = rel.effects
    if eff is None or eff.margin is None:
        return ""
    groups = rel.equivalent_groups
    margin = _margin_text(eff)
    if not groups and eff.effects and all(math.isnan(e.p_equivalence) for e in eff.effects) \
            and "median best-of" in eff.measure:
        # Across benchmarks the tuning curves' differences have no equivalence test: "not
        # shown" would read as tested.
        return (f"; practical equivalence (|difference| < {margin}) is not tested on the "
                f"tuning curves' differences across benchmarks")
    if not groups:
        return (f"; no pair is shown to be practically equivalent (|difference| < {margin})")
    named = [_and(g) for g in groups[:MAX_NAMED]]
    text = (f"; practically equivalent (|difference| < {margin}, two one-sided tests, "
            f"family-wise): " + "; ".join(named)
            + (f" and {len(groups) - MAX_NAMED} more group(s)" if len(groups) > MAX_NAMED
               else ""))
    # Settled and equivalent at once is no contradiction, but read "A > B" beside "A and B
    # practically equivalent" without a word and it looks like one.
    both = [f"{r.winner} > {r.loser}" for r in rel.relations if r.equivalent
            and r.status in (Status.SETTLED, Status.IMPLIED)]
    if both:
        shown = _and(both[:MAX_NAMED]) + (f" and {len(both) - MAX_NAMED} more"
                                          if len(both) > MAX_NAMED else "")
        text += (f" (of these, {shown} {'is' if len(both) == 1 else 'are'} also settled: "
                 f"a real difference, but smaller than the margin)")
    return text


def _evidence_note(rel: ScopeRelations, settled: list[Relation]) -> str:
    if not settled:
        return " (implied only)"
    families = _family_tuple(f for r in settled for f in r.families)
    note = f" (settled by {_family_list(families)}"
    for g in rel.power_gaps:
        label = family_label(g.family)
        what = "these pairs" if g.n_pairs == len(settled) else f"{g.n_pairs} of them"
        if g.other_estimand:
            about = {"benchmarks": "benchmarks like these", "these": "these benchmarks only"}
            note += (f"; {label}, which ask about {about.get(g.other_estimand)}, do not "
                     f"confirm {what}")
        elif g.every_benchmark:
            note += f"; {label} do not separate {what} on every benchmark"
        elif g.other_aspect:
            note += (f"; {label}, which compare {g.other_aspect}, do not confirm {what} "
                     f"with {g.n_text}")
        elif g.n_pairs == len(settled):
            note += f"; {label} lack power with {g.n_text}"
        else:
            note += (f"; {label} cannot decide {g.n_pairs} of the {len(settled)} settled "
                     f"pair(s) with {g.n_text}")
    # A family that settles some pairs may not have judged the others at all (the rank
    # tests leave out an algorithm whose runs stop early): "settled by LMEM and rank
    # tests" alone credited it with pairs it never tested.
    for family in families:
        unjudged = [r for r in settled
                    if family not in r.families and not any(v.family == family
                                                            for v in r.votes)]
        if unjudged:
            pairs = _names_short([f"{r.winner} > {r.loser}" for r in unjudged])
            note += f"; {family_label(family)} did not judge {pairs}"
    return note + ")"


def _names_short(items: list[str], limit: int = 3) -> str:
    """At most ``limit`` items joined with commas, then "and N more"."""
    if len(items) <= limit:
        return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]
    return ", ".join(items[:limit]) + f" and {len(items) - limit} more"


def single_draw_sentence(verdicts: Sequence[Verdict], alpha: float = 0.05) -> str:
    """DSE's row: which single draws win more often, as decided by a test (no vote).

    Each ``dse.dominance`` verdict carries the probability that a single draw
    of ``a`` beats one of ``b`` and a raw p-value for "single draws of the
    two win equally often" (its :class:`~benchverdict.verdict.SingleDraw`,
    computed on whole runs when draws share a run; where it lacks the
    p-value, the dominance test's p-value). The
    p-values of the row's pairs are Holm-adjusted together, like the scope
    they stand in, and only pairs whose adjusted p-value is at most
    ``alpha`` are named: on data where no single draw wins more often, the
    row names a winner with probability at most ``alpha``. Where none is
    named and no pair's test could reach Holm's first threshold ``alpha /
    m`` (:attr:`~benchverdict.verdict.SingleDraw.min_p`: too few runs, or
    benchmarks when pooled), the row says so instead of reading as evidence.

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope, SingleDraw
    >>> def dom(a, b, p_win, p):
    ...     return Verdict(a, b, "inconclusive", "dse.dominance", Scope(),
    ...                    Evidence("p_value", p, 0.05), "maximize", "",
    ...                    single_draw=SingleDraw(p_win, p_value=p))
    >>> print(single_draw_sentence([dom("A", "B", 0.7, 0.001), dom("A", "C", 0.55, 0.06)]))
    ... # doctest: +NORMALIZE_WHITESPACE
    Single draws (k = 1 trial; score distributions, no vote): a single draw of A beats one of B
    70% of the time (Holm-adjusted p = 0.002); no other pair differs after the adjustment
    over 2 pair(s).
    """
    rows = []
    floors = []
    for v in verdicts:
        single = v.single_draw
        if v.method != "dse.dominance" or single is None:
            continue
        share, p = single.probability, single.p_value
        if p is None or not math.isfinite(p):
            p = v.evidence.value if v.evidence.kind == "p_value" else None
        if p is None or not math.isfinite(p):
            continue
        iv = ((single.lower, single.upper) if single.lower is not None
              and single.upper is not None and math.isfinite(single.lower)
              and math.isfinite(single.upper) else None)
        rows.append((float(p), float(share), v.a, v.b, iv))
        if single.min_p is not None and math.isfinite(single.min_p):
            floors.append(float(single.min_p))
    if not rows:
        return ""
    adjusted = holm([r[0] for r in rows])
    decided = []
    for (_, share, a, b, iv), p_adj in zip(rows, adjusted):
        if p_adj <= alpha and share != 0.5:
            w, lo, won = (a, b, share) if share > 0.5 else (b, a, 1.0 - share)
            if iv is not None and share < 0.5:
                iv = (1.0 - iv[1], 1.0 - iv[0])
            decided.append((won, w, lo, float(p_adj), iv))
    head = "Single draws (k = 1 trial; score distributions, no vote): "
    if not decided:
        first = alpha / len(rows)
        if len(floors) == len(rows) and min(floors) > first:
            return (head + f"no pair can be decided: the smallest p-value these data allow a "
                           f"pair, {min(floors):.2g}, is above Holm's first threshold over "
                           f"{len(rows)} pair(s), alpha / {len(rows)} = {first:.2g} (more "
                           f"runs, or benchmarks when pooled, would lower it).")
        return (head + f"no pair's single draws win more often than the other's after the "
                       f"Holm adjustment over {len(rows)} pair(s).")
    decided.sort(key=lambda t: (-t[0], t[1], t[2]))
    shown = [f"a single draw of {w} beats one of {lo} {won:.0%} of the time ("
             + (f"interval {iv[0]:.0%}-{iv[1]:.0%}; " if iv is not None else "")
             + f"Holm-adjusted p = {p:.2g})" for won, w, lo, p, iv in decided[:4]]
    more = (f", and {len(decided) - 4} more pair(s) differ" if len(decided) > 4 else "")
    rest = ("" if len(decided) == len(rows) else
            f"; no other pair differs after the adjustment over {len(rows)} pair(s)")
    return head + "; ".join(shown) + more + rest + "."


__all__ = [
    "CONTRADICTION_COLUMNS",
    "ESTIMANDS",
    "GROUP_COLUMNS",
    "HEADLINE_COLUMNS",
    "POWER_GAP_COLUMNS",
    "RELATION_COLUMNS",
    "STATUSES",
    "VOTE_COLUMNS",
    "Contradiction",
    "EquivalenceTest",
    "PowerGap",
    "Relation",
    "ScopeRelations",
    "Status",
    "Vote",
    "effect_decimals",
    "effect_text",
    "effects_clause",
    "equivalence_clause",
    "family_votes",
    "headline_sentence",
    "holm",
    "maximal_cliques",
    "relate_scope",
    "scope_type",
    "single_draw_sentence",
    "tiers_of",
    "vote_estimand",
]
