"""Reconcile verdicts from several methods: error-controlled relations, a partial ranking.

The input is any list of :class:`~benchverdict.verdict.Verdict` records. They
are grouped by pair of algorithms and by *scope group*: the benchmark (or all
benchmarks) and the metafeature level. Budgets are not part of the group:
verdicts that do not cover the final budget do not vote, and a budget
difference becomes an explanation (:func:`~benchverdict.report.explain.explain_budget`).

What is decided (:mod:`benchverdict.report.relations`):

* **one vote per family of evidence** (rank tests, LMEM, tuning curves; the
  score distributions describe single draws and do not vote), through the
  family's primary method's raw p-value at the final budget;
* **Holm over every vote of a scope type**, so that the relations called
  *settled* in "all benchmarks", "per benchmark" or the levels of a
  metafeature have a family-wise error of at most ``alpha``;
* per pair: **settled**, **implied** (transitive closure), **contradicted**
  (two families decide opposite ways, or a cycle), **power gap** (a family
  decides at its own level but not after the adjustment) or **unsettled**;
* per scope: the partial order, **groups** of mutually unsettled algorithms,
  one **headline** sentence, the families that lack power (once, with the
  pairs), the contradictions with their explanations, and a row for single
  draws.

What is described: every method's verdicts (``table``), their agreement
per pair (``agreement``, ``method_agreement``) and the method-level
contradictions with their explanations (``conflicts``; each explanation
shared by several pairs once in ``conflict_groups``).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchverdict.effects.pairwise import PairwiseEffects
from benchverdict.families import family_label
from benchverdict.methods import method_info
from benchverdict.report.explain import (
    at_final,
    budget_interval,
    budgets_overlap,
    common_axis,
    disagreement_kind,
    explain_disagreement,
    pair_agreement,
    undecided_reason,
)
from benchverdict.report.plan_guidance import PlanGuide
from benchverdict.report.relations import (
    CONTRADICTION_COLUMNS,
    GROUP_COLUMNS,
    HEADLINE_COLUMNS,
    POWER_GAP_COLUMNS,
    RELATION_COLUMNS,
    VOTE_COLUMNS,
    EquivalenceTest,
    GroupKey,
    ScopeRelations,
    Status,
    family_votes,
    headline_sentence,
    relate_scope,
    scope_type,
    single_draw_sentence,
)
from benchverdict.verdict import Scope, Verdict, metafeature_label, verdicts_to_frame

#: ``guidance(a, b, group) -> str | None``: how much more data would settle a pair.
Guidance = Callable[[str, str, GroupKey], "str | None"]
#: ``effects(key, algorithms) -> PairwiseEffects | None``: the effect sizes of a scope.
EffectsSource = Callable[[GroupKey, list[str]], "PairwiseEffects | None"]

INCONCLUSIVE_MESSAGE = "inconclusive: more data needed"


@dataclass(frozen=True)
class Ranking:
    """The partial ranking of one scope group.

    Attributes
    ----------
    benchmark : str or None
        The benchmark, or ``None`` for all benchmarks.
    metafeature : tuple
        Metafeature levels of the group.
    status : {"ranked", "partial", "inconclusive"}
        ``"ranked"``: every pair is settled or implied (a total order);
        ``"partial"``: some are; ``"inconclusive"``: none is.
    tiers : list of list of str
        Best tier first: every member of a tier beats every member of each
        later tier (settled or implied); inside a tier not every pair is
        settled. Singletons when ranked; empty when inconclusive.
    settled : list of (winner, loser)
        The relations settled directly (error-controlled).
    unsettled : list of (str, str, str)
        ``(a, b, why)`` for every pair neither settled nor implied.
    message : str
        The headline sentence of the scope.
    guidance : list of str
        Sample-size guidance, once per distinct advice, with its pairs.
    implied : list of (winner, loser)
        Relations that follow from settled ones by transitivity.
    groups : list of list of str
        Groups of mutually unsettled algorithms (maximal cliques).
    contradicted : list of (str, str)
        Pairs on which families decide opposite ways (or a cycle).
    single_draws : str
        The score distributions' row: how often single draws win (no vote).
    """

    benchmark: str | None
    metafeature: tuple[tuple[str, str], ...]
    status: str
    tiers: list[list[str]]
    settled: list[tuple[str, str]]
    unsettled: list[tuple[str, str, str]]
    message: str
    guidance: list[str] = field(default_factory=list)
    implied: list[tuple[str, str]] = field(default_factory=list)
    groups: list[list[str]] = field(default_factory=list)
    contradicted: list[tuple[str, str]] = field(default_factory=list)
    single_draws: str = ""

    @property
    def scope_label(self) -> str:
        """The group in words."""
        return group_label((self.benchmark, self.metafeature))

    @property
    def scope_type(self) -> str:
        """The scope type whose family-wise error covers this group."""
        return scope_type((self.benchmark, self.metafeature))


@dataclass(frozen=True)
class Reconciliation:
    """Verdicts of several methods, reconciled.

    Attributes
    ----------
    verdicts : list of Verdict
        All verdicts, oriented so that ``a`` precedes ``b`` in the algorithm order.
    verdict_table : pandas.DataFrame
        One row per verdict: pair, scope, method, family, outcome, winner,
        lean, evidence (with the reason when a p-value below alpha gave no
        decision), effect, unit, n, explanation.
    agreement : pandas.DataFrame
        One row per pair and scope group: methods, outcomes, agreement score,
        the relation's status as ``consensus`` (``"a"``/``"b"`` when settled
        or implied, ``"conflict"`` when contradicted) and its reason, and the
        methods that judged another budget and so do not vote.
    comparisons : pandas.DataFrame
        Every compared pair of verdicts from different methods, with its
        agreement credit.
    conflicts : pandas.DataFrame
        Method-level contradictions (two methods name different winners),
        with the rules that explain them; same-budget and pooled first.
        Power gaps (one decides, the other does not) are not listed per
        pair: see ``power_gaps``.
    method_agreement : pandas.DataFrame
        Method x method mean agreement credit (NaN where never compared).
    rankings : list of Ranking
        One per scope group.
    coverage : pandas.DataFrame
        Method x scope group: how many verdicts each method gave.
    representatives : pandas.DataFrame
        Per pair, scope group and method: the representative verdict's
        outcome and winner (what the agreement score compares).
    final_budget : float or None
        The budget a scope without budget was taken to mean (in the budget
        column's unit).
    final_trials : float or None
        The trials ``k`` a search has at the final budget: a verdict about
        ``k`` random-search draws (tuning curves, DSE) covers the final budget
        when its ``k`` range includes it.
    votes : pandas.DataFrame
        One row per (family, pair, scope): the voting method, its raw p,
        direction, whether it decides at its own level, the Holm-adjusted p
        over the scope type and whether it rejects (columns
        :data:`~benchverdict.report.relations.VOTE_COLUMNS`).
    relations : pandas.DataFrame
        One row per pair and scope: ``status`` (settled, implied,
        contradicted, power gap, unsettled), ``winner``, the deciding
        ``families``, the adjusted p, the families deciding the other way
        (``against``), those that voted without deciding (``lacking``), the
        chain of an implied relation (``via``), leans, and the reason.
    power_gaps : pandas.DataFrame
        Per scope and family: the settled pairs the family voted on but
        could not decide, with the reason (its units, the adjusted
        threshold), stated once for all of them.
    contradictions : pandas.DataFrame
        Per scope and pair: families deciding opposite ways (or a cycle),
        with the explanation.
    groups : pandas.DataFrame
        Per scope: groups of mutually unsettled algorithms.
    headlines : pandas.DataFrame
        Per scope: the headline sentence, the single-draw row and counts of
        relations by status.
    conflict_groups : pandas.DataFrame
        The method-level contradictions grouped by explanation: each
        explanation once, with its pairs.
    alpha : float
        The family-wise error rate of settled relations per scope type.
    estimand : str
        What relations across benchmarks are about (``"benchmarks"``: benchmarks
        like these; ``"these"``: exactly the observed ones).
    notes : list of str
        What the data can and cannot settle, per scope type, stated up front:
        e.g. that no vote of a scope type can survive Holm's first threshold.
    scopes : dict of str to ScopeRelations
        The typed relations of each scope, by its label (the tables' ``scope``
        column): rows, groups as lists of names (an algorithm named ``"SVM,
        rbf"`` stays one name), sentence. The DataFrames above are built from
        these.
    vote_trials : (float, float) or None
        Without a final budget (draws with no trial order): the smallest and
        largest number of trials ``k`` the votes were cast at (:func:`voting_trials`),
        which the headlines name. ``None`` when there is a final budget or no vote
        names a ``k``.
    """

    verdicts: list[Verdict]
    verdict_table: pd.DataFrame
    agreement: pd.DataFrame
    comparisons: pd.DataFrame
    conflicts: pd.DataFrame
    method_agreement: pd.DataFrame
    rankings: list[Ranking]
    coverage: pd.DataFrame
    representatives: pd.DataFrame = field(default_factory=pd.DataFrame)
    final_budget: float | None = None
    final_trials: float | None = None
    votes: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=VOTE_COLUMNS))
    relations: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=RELATION_COLUMNS))
    power_gaps: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=POWER_GAP_COLUMNS))
    contradictions: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=CONTRADICTION_COLUMNS))
    groups: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=GROUP_COLUMNS))
    headlines: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=HEADLINE_COLUMNS))
    conflict_groups: pd.DataFrame = field(default_factory=pd.DataFrame)
    alpha: float = 0.05
    estimand: str = "benchmarks"
    notes: list[str] = field(default_factory=list)
    scopes: dict[str, ScopeRelations] = field(default_factory=dict)
    vote_trials: tuple[float, float] | None = None

    @property
    def headline(self) -> Ranking | None:
        """The ranking over all benchmarks (no metafeature restriction), if any method gave one.

        When every verdict is about one and the same benchmark (data with a
        single benchmark), that benchmark's ranking is the headline.
        """
        for r in self.rankings:
            if r.benchmark is None and not r.metafeature:
                return r
        plain = [r for r in self.rankings if not r.metafeature]
        if len(plain) == 1 and len({r.benchmark for r in self.rankings}) == 1:
            return plain[0]
        return None


@functools.lru_cache(maxsize=4096)  # asked once per vote: 238,800 for 200 algorithms
def group_label(key: GroupKey) -> str:
    """Describe a scope group in words (:meth:`Scope.label <benchverdict.verdict.Scope.label>`).

    Examples
    --------
    >>> group_label((None, ())), group_label(("moons", (("prior", "good"),)))
    ('all benchmarks', 'benchmark moons, prior=good')
    """
    bench, meta = key
    return Scope(benchmark=bench, metafeature=meta).label(budget=False)


def _group_key(v: Verdict) -> GroupKey:
    return v.scope.key


def _group_sort_key(key: GroupKey) -> tuple:
    bench, meta = key
    return (bench is not None, "" if bench is None else bench, len(meta), meta)


def _orient_all(verdicts: Iterable[Verdict], order: dict[str, int]) -> list[Verdict]:
    out = []
    for v in verdicts:
        ra, rb = order.get(v.a, math.inf), order.get(v.b, math.inf)
        if (ra, v.a) > (rb, v.b):
            v = v.swapped()
        out.append(v)
    return out


def representative(verdicts: Sequence[Verdict], final_budget: float | None,
                   final_trials: float | None = None) -> Verdict:
    """Pick the verdict a method is judged by: at the final budget, else its highest.

    Among verdicts covering the final budget (or without a budget), the first
    decided one is preferred, so that a method that decides somewhere at that
    budget is not reported as undecided. Budgets are compared in the budget
    column's unit and trial counts ``k`` against ``final_trials``
    (:func:`covers_budget`), never one against the other.

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> ev = Evidence("band", level=0.8, strength="strong")
    >>> early = Verdict("A", "B", "b", "tuning.median", Scope(trials_low=1, trials_high=5), ev,
    ...                 "maximize", "x")
    >>> late = Verdict("A", "B", "a", "tuning.median", Scope(trials_low=6, trials_high=50), ev,
    ...                "maximize", "y")
    >>> representative([early, late], final_budget=5000.0, final_trials=50).outcome
    'a'
    """
    if len(verdicts) == 1:  # most pairs: one verdict per method and scope
        return verdicts[0]

    def key(v: Verdict) -> tuple:
        reach = budget_interval(v, final_budget, final_trials)
        high = math.inf if reach is None else reach[2]
        return (at_final(reach, final_budget, final_trials), high, v.outcome in ("a", "b"))

    return max(verdicts, key=key)


def covers_budget(verdict: Verdict, final_budget: float | None,
                  final_trials: float | None = None) -> bool:
    """Whether the verdict's scope includes the final budget (no budget in it: it does).

    A budget range (the budget column's unit) must include ``final_budget``;
    a range of trial counts ``k`` must include ``final_trials``, the trials a
    search has at the final budget. An unknown final is included.

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> v = Verdict("A", "B", "a", "dse.cvar", Scope(trials_low=1, trials_high=1),
    ...             Evidence("descriptive"), "maximize", "x")
    >>> covers_budget(v, 20000.0, 20), covers_budget(v, None)
    (False, True)
    """
    return at_final(budget_interval(verdict, final_budget, final_trials), final_budget,
                    final_trials)


def _budget_distance(i1, i2) -> float:
    if budgets_overlap(i1, i2):
        return 0.0
    assert i1 is not None and i2 is not None
    return max(i1[1] - i2[2], i2[1] - i1[2])


def _matched_pairs(
    first: Sequence[Verdict], second: Sequence[Verdict], final_budget: float | None,
    final_trials: float | None = None,
) -> list[tuple[Verdict, Verdict]]:
    """Pairs of verdicts to compare: those with overlapping budgets.

    When two methods share no budget at all, the nearest pair(s) are compared
    instead (and the budget rule explains any difference). A budget and a
    trial count are compared on one axis (:func:`~benchverdict.report.explain.common_axis`).
    """
    reach1 = [budget_interval(x, final_budget, final_trials) for x in first]
    reach2 = [budget_interval(y, final_budget, final_trials) for y in second]
    dist = np.array([[_budget_distance(*common_axis(i1, i2, final_budget, final_trials))
                      for i2 in reach2] for i1 in reach1])
    best = dist.min()
    return [
        (first[i], second[j])
        for i in range(len(first))
        for j in range(len(second))
        if dist[i, j] == best
    ]


#: A guidance line names at most this many pairs (1000 algorithms make 500,000 pairs).
MAX_PAIRS_NAMED = 20


def _pair_list(pairs: Sequence[str]) -> str:
    shown = ", ".join(pairs[:MAX_PAIRS_NAMED])
    more = len(pairs) - MAX_PAIRS_NAMED
    return shown + (f" and {more:,} more pair(s)" if more > 0 else "")


def verdict_table(verdicts: Sequence[Verdict]) -> pd.DataFrame:
    """The verdicts as the report's table.

    :func:`~benchverdict.verdict.verdicts_to_frame` (the one flattening of a
    verdict) plus each method's family and the evidence in words (with why an
    undecided verdict has no decision).

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope, Verdict
    >>> v = Verdict("A", "B", "a", "ranks.nemenyi", Scope(),
    ...             Evidence("p_value", value=0.01, level=0.05), "maximize", "")
    >>> verdict_table([v])[["a", "family", "evidence"]].values.tolist()
    [['A', 'ranks', 'p = 0.01 (alpha = 0.05)']]
    """
    table = verdicts_to_frame(verdicts)
    table["family"] = [method_info(v.method).family for v in verdicts]
    evidence = []
    for v in verdicts:
        why = undecided_reason(v)
        evidence.append(str(v.evidence) + (f"; no decision: {why}" if why else ""))
    table["evidence"] = evidence
    return table[TABLE_COLUMNS]


TABLE_COLUMNS = [
    "a", "b", "benchmark", "metafeature", "budget_low", "budget_high", "trials_low",
    "trials_high", "method", "family",
    "outcome", "winner", "lean", "evidence", "strength", "effect_name", "effect", "effect_lower",
    "effect_upper", "unit", "n", "explanation",
]
AGREEMENT_COLUMNS = [
    "a", "b", "benchmark", "metafeature", "n_methods", "methods", "outcomes", "agreement",
    "consensus", "consensus_winner", "reason", "not_voting", "n_conflicts", "status",
]
CONFLICT_COLUMNS = [
    "a", "b", "benchmark", "metafeature", "method_1", "budget_1", "outcome_1", "method_2",
    "budget_2", "outcome_2", "kind", "rules", "explanation",
]
CONFLICT_GROUP_COLUMNS = ["kind", "method_1", "method_2", "rules", "explanation", "n_pairs",
                          "pairs"]


def _budget_text(v: Verdict, final_budget: float | None) -> str:
    return v.scope.where(final_budget)


def scope_sentence_label(key: GroupKey, n_benchmarks: int | None,
                         estimand: str = "benchmarks") -> str:
    """How a headline names its scope ("Across benchmarks like these 6", "On moons").

    A claim across benchmarks is an average over them, never "on all" (which
    reads as "on each"). With ``estimand="benchmarks"`` it generalises to
    benchmarks like the observed ones; with ``"these"`` it covers exactly the
    observed benchmarks, and the label says so.

    Examples
    --------
    >>> scope_sentence_label((None, ()), 6), scope_sentence_label(("moons", ()), 6)
    ('Across benchmarks like these 6', 'On moons')
    >>> scope_sentence_label((None, ()), 6, "these")
    'On these 6 benchmarks (no claim beyond them)'
    """
    bench, meta = key
    levels = " and ".join(f"{k} = {v}" for k, v in meta)
    n = f" {n_benchmarks}" if n_benchmarks else ""
    if bench is None:
        if estimand == "these":
            if not meta:
                return f"On these{n} benchmarks (no claim beyond them)"
            return f"On these benchmarks with {levels} (no claim beyond them)"
        if not meta:
            return f"Across benchmarks like these{n}"
        return f"Across benchmarks like these with {levels}"
    return f"On {bench}" + (f" with {levels}" if meta else "")


def _default_alpha(verdicts: Sequence[Verdict]) -> float:
    """The significance level the voting verdicts state (the most common one), else 0.05."""
    levels = [v.evidence.level for v in verdicts
              if v.evidence.kind == "p_value" and v.evidence.level is not None
              and 0 < v.evidence.level < 1]
    if not levels:
        return 0.05
    values, counts = np.unique(np.asarray(levels, dtype=float), return_counts=True)
    return float(values[np.argmax(counts)])


def reconcile(
    verdicts: Iterable[Verdict],
    *,
    algorithms: Sequence[str] | None = None,
    final_budget: float | None = None,
    guidance: Guidance | None = None,
    alpha: float | None = None,
    benchmarks: Sequence[str] | None = None,
    estimand: str = "benchmarks",
    scope_caveat: str | None = None,
    pooled_caveat: str | None = None,
    final_trials: float | None = None,
    effects: EffectsSource | None = None,
    plans: Guidance | None = None,
) -> Reconciliation:
    """Reconcile verdicts from several methods into error-controlled relations.

    Parameters
    ----------
    verdicts : iterable of Verdict
        From any mix of modules and methods. Every method must be
        registered (:func:`benchverdict.methods.register_method`); an
        unregistered one raises ``KeyError``.
    algorithms : sequence of str, optional
        The algorithm order (defines each pair's orientation and the ranking's
        universe). Default: every algorithm named in a verdict, sorted.
    final_budget : float, optional
        The budget a scope without budget refers to (usually the largest
        budget), in the budget column's unit; only verdicts covering it vote.
    guidance : callable, optional
        ``guidance(a, b, group) -> str | None``: sample-size guidance for a
        pair that stays open (the report uses the tuning-curve module's).
    alpha : float, optional
        The family-wise error rate of settled relations per scope type;
        default the level the voting verdicts state.
    benchmarks : sequence of str, optional
        The benchmarks (only their number is used, in the headlines).
    estimand : {"benchmarks", "these"}
        What a relation settled across benchmarks is about. ``"benchmarks"``
        (default): benchmarks like these; only votes whose claim generalises
        beyond the observed benchmarks (:func:`~benchverdict.report.relations.vote_estimand`)
        vote there. ``"these"``: exactly the observed benchmarks; every
        family votes, and the headline says "on these N benchmarks".
    scope_caveat : str, optional
        Appended to the label of scopes across benchmarks (e.g. which
        algorithms the final-budget comparison leaves out and why).
    pooled_caveat : str, optional
        Appended to the label of the scope across all benchmarks only (e.g.
        runs copied between benchmarks: within a metafeature level, such as
        PriorBand's prior, the copies are not both present).
    final_trials : float, optional
        The trials ``k`` a search has at the final budget. Tuning curves and
        score distributions state their scope as trial counts
        (:class:`~benchverdict.verdict.Scope`), so with a budget column in
        any other unit than the trial index a verdict about ``k`` draws
        covers the final budget only through this number. Unknown: every
        trial count covers it.
    effects : callable, optional
        ``effects(key, algorithms) -> PairwiseEffects | None``: the effect
        sizes of a scope's pairs (the report computes them from the data,
        :mod:`benchverdict.report.effect_sizes`). Every relation then
        carries its effect, the headline says by how much, and with a margin
        the TOST p-values join each scope type's Holm family, so a pair may
        be *equivalent*.
    plans : callable, optional
        ``plans(a, b, group) -> str | None``: what would settle an open pair
        (the report's :class:`~benchverdict.report.plan_guidance.PlanGuide`); a
        scope's guidance names at most
        :data:`~benchverdict.report.guidance.MAX_PLANNED_SHOWN` of them, the
        pairs closest to settled (its ``priority``) first.

    Returns
    -------
    Reconciliation

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> lmem = [Verdict("A", b, "a", "lmem.tukey", Scope(), Evidence("p_value", 1e-6, 0.05),
    ...                 "maximize", "A is better", unit="run", n=600,
    ...                 estimand="benchmarks") for b in ("B", "C")]
    >>> ranks = [Verdict("A", b, "inconclusive", "ranks.wilcoxon_holm", Scope(),
    ...                  Evidence("p_value", 0.09, 0.05), "maximize", "too few blocks",
    ...                  unit="benchmark", n=6, p_value=0.03)
    ...          for b in ("B", "C")]
    >>> rec = reconcile([*lmem, *ranks], algorithms=["A", "B", "C"], benchmarks=range(6))
    >>> for row in rec.relations[["a", "b", "status", "winner", "families"]].values.tolist():
    ...     print(row)
    ['A', 'B', 'settled', 'A', 'lmem']
    ['A', 'C', 'settled', 'A', 'lmem']
    ['B', 'C', 'unsettled', None, '']
    >>> print(rec.headline.message)  # doctest: +NORMALIZE_WHITESPACE
    Across benchmarks like these 6: A is best (settled by LMEM; rank tests, which compare
    ranks within benchmarks, do not confirm these pairs with 6 blocks); B and C cannot be
    separated.
    """
    verdicts, algorithms, order, alpha, n_benchmarks = _prepared(verdicts, algorithms, alpha,
                                                                  benchmarks)
    votes, scoped, n_tests = _relate_scopes(
        verdicts, algorithms, final_budget, alpha, n_benchmarks, estimand, scope_caveat,
        final_trials, effects, pooled_caveat)
    agreement, comparisons, representatives = _compare_methods(verdicts, votes, scoped, order,
                                                               final_budget, final_trials)
    conflicts = _ordered_conflicts(comparisons)
    if isinstance(plans, PlanGuide):
        # What would settle a pair: planned at the level of the Holm family across
        # benchmarks (its votes and equivalence tests), not for the pairs alone.
        plans.for_tests(n_tests["all benchmarks"])
    return Reconciliation(
        verdicts=verdicts,
        verdict_table=verdict_table(verdicts),
        agreement=agreement,
        comparisons=comparisons,
        conflicts=conflicts,
        method_agreement=_method_agreement(verdicts, comparisons),
        rankings=[_ranking(rel, guidance, plans) for rel in scoped.values()],
        coverage=_coverage(verdicts),
        representatives=representatives,
        final_budget=final_budget,
        final_trials=final_trials,
        conflict_groups=_group_conflicts(conflicts),
        alpha=float(alpha),
        estimand=estimand,
        notes=scope_type_notes(votes, scoped, alpha),
        scopes={group_label(rel.key): rel for rel in scoped.values()},
        vote_trials=(voting_trials([v.verdict for v in votes])
                     if final_budget is None and final_trials is None else None),
        **_relation_tables(scoped, votes),
    )


def voting_trials(verdicts: Iterable[Verdict]) -> tuple[float, float] | None:
    """The smallest and largest trial count ``k`` of verdicts that name no budget, else None.

    Random-search draws without a trial order have no final budget: the
    tuning curves' tests vote at half the most trials the draws can bound, a
    ``k`` per benchmark. A relation they settle (or leave open) holds at that
    ``k``, and the sentence that states it must say so.

    Examples
    --------
    >>> from benchverdict.verdict import Evidence
    >>> def test(k):
    ...     return Verdict("A", "B", "a", "tuning.median_test", Scope(trials_low=k, trials_high=k),
    ...                    Evidence("p_value", 0.01, 0.05), "maximize", "x")
    >>> voting_trials([test(22), test(40)]), voting_trials([])
    ((22.0, 40.0), None)
    >>> trials_text((22.0, 22.0)), trials_text((22.0, 40.0))
    ('k = 22 trials', 'k = 22 to 40 trials')
    """
    ks = [float(k) for v in verdicts if v.scope.budget_low is None
          and v.scope.trials_low is not None and v.scope.trials_high is not None
          for k in (v.scope.trials_low, v.scope.trials_high)]
    return (min(ks), max(ks)) if ks else None


def trials_text(trials: tuple[float, float]) -> str:
    """``"k = 22 trials"`` or ``"k = 22 to 40 trials"`` for a range of :func:`voting_trials`."""
    low, high = trials
    if low == high:
        return f"k = {low:g} trial{'' if low == 1 else 's'}"
    return f"k = {low:g} to {high:g} trials"


def scope_type_notes(votes: Sequence, scoped: dict, alpha: float) -> list[str]:
    """Per scope type that settles nothing: whether any vote could have, and why not.

    Holm's first step asks the smallest p-value of a scope type to be at most
    ``alpha / m`` (``m`` votes). When every vote's raw p-value is above that
    while some vote would decide alone (raw p at most ``alpha``), or a rank
    test on ``n`` blocks cannot reach it at all (its smallest p-value is
    ``2 / 2^n``), no relation of the scope type can be settled with these
    data: the note says so, with the numbers.

    Examples
    --------
    >>> scope_type_notes([], {}, 0.05)
    []
    """
    by_type: dict[str, list] = defaultdict(list)
    for vote in votes:
        by_type[scope_type(vote.key)].append(vote)
    settled_types = {scope_type(key) for key, rel in scoped.items()
                     if rel.with_status(Status.SETTLED)}
    notes = []
    for st, group in by_type.items():
        if st in settled_types or not group:
            continue
        m = len(group)
        first = alpha / m
        best = min(group, key=lambda v: v.p_value)
        if best.p_value <= first:
            continue
        where = "" if best.key[0] is None else f" on {best.key[0]}"
        text = (f"{st[0].upper()}{st[1:]}, no relation can be settled with these data: the "
                f"smallest p-value of the {m:,} votes, {best.p_value:.2g} ("
                f"{family_label(best.family)}, {best.a} vs {best.b}{where}), "
                f"is above Holm's first threshold alpha / m = {first:.2g}")
        floors = [f"{family_label(v.family)} on {v.n} blocks cannot go below "
                  f"{2.0 / 2.0 ** v.n:.2g}" for v in group[:1]
                  if v.family == "ranks" and v.n is not None and v.n < 30
                  and 2.0 / 2.0 ** v.n > first]
        if best.p_value > alpha and not floors:
            continue  # nothing is significant even alone: the data, not the adjustment
        if floors:
            text += "; " + "; ".join(floors)
        if st == "all benchmarks" and any(v.estimand == "benchmarks" for v in group):
            # About benchmarks like these the benchmark is the replicate: runs add little.
            need = ("more benchmarks (across benchmarks the benchmark is the replicate, so "
                    "more runs per cell alone cannot do it)")
        else:
            need = "more runs per cell"
        notes.append(text + f". A decision needs p <= {first:.2g}: {need} (or fewer "
                            f"algorithms or benchmarks compared at once).")
    return notes


def _prepared(verdicts: Iterable[Verdict], algorithms: Sequence[str] | None,
              alpha: float | None, benchmarks: Sequence[str] | None):
    """The verdicts oriented by the algorithm order, the order, alpha and the benchmark count."""
    verdicts = list(verdicts)
    for method in sorted({v.method for v in verdicts}):
        method_info(method)  # an unregistered method fails here, loudly
    if algorithms is None:
        algorithms = sorted({name for v in verdicts for name in (v.a, v.b)})
    else:
        algorithms = [str(a) for a in algorithms]
        known = set(algorithms)
        extra = sorted({name for v in verdicts for name in (v.a, v.b)} - known)
        algorithms = [*algorithms, *extra]
    if alpha is None:
        alpha = _default_alpha(verdicts)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha!r}.")
    order = {a: i for i, a in enumerate(algorithms)}
    verdicts = _orient_all(verdicts, order)
    if benchmarks is not None:
        n_benchmarks: int | None = len(list(benchmarks))
    else:
        n_benchmarks = len({v.scope.benchmark for v in verdicts
                            if v.scope.benchmark is not None}) or None
    return verdicts, algorithms, order, float(alpha), n_benchmarks


def _relate_scopes(verdicts: list[Verdict], algorithms: list[str], final_budget: float | None,
                   alpha: float, n_benchmarks: int | None, estimand: str = "benchmarks",
                   scope_caveat: str | None = None, final_trials: float | None = None,
                   effects: EffectsSource | None = None, pooled_caveat: str | None = None):
    """The error-controlled part: one vote per family and pair, Holm per scope type.

    Returns the votes, the relations of each scope (with the leans and
    single-draw statements beside them) and the tests of each scope type's Holm
    family (votes and equivalence tests). With ``effects`` each scope's
    pairs are sized, and their equivalence tests (with a margin) are
    adjusted together with the votes.
    """
    universe = [a for a in algorithms if any(a in (v.a, v.b) for v in verdicts)]
    keys: dict[GroupKey, set[str]] = defaultdict(set)
    for v in verdicts:
        keys[_group_key(v)].update((v.a, v.b))
    sized: dict[GroupKey, PairwiseEffects | None] = {}
    tests: list[EquivalenceTest] = []
    if effects is not None:
        for key in sorted(keys, key=_group_sort_key):
            sized[key] = eff = effects(key, [a for a in universe if a in keys[key]])
            if eff is not None and eff.margin is not None:
                tests += [EquivalenceTest(key, e.a, e.b, e.p_equivalence) for e in eff.effects
                          if math.isfinite(e.p_equivalence)]
    votes = family_votes(
        verdicts, alpha=alpha, covers=lambda v: covers_budget(v, final_budget, final_trials),
        representative=lambda vs: representative(vs, final_budget, final_trials),
        group_key=_group_key,
        estimand=estimand, equivalence=tests)
    n_tests = defaultdict(int)
    for item in [*votes, *tests]:
        n_tests[scope_type(item.key)] += 1
    tests_by_key: dict[GroupKey, list[EquivalenceTest]] = defaultdict(list)
    for t in tests:
        tests_by_key[t.key].append(t)
    votes_by_key: dict[GroupKey, list] = defaultdict(list)
    for vote in votes:
        votes_by_key[vote.key].append(vote)
    leans: dict[GroupKey, dict[tuple[str, str], list[str]]] = defaultdict(
        lambda: defaultdict(list))
    dse_by_key: dict[GroupKey, list[Verdict]] = defaultdict(list)
    group_algorithms: dict[GroupKey, set[str]] = defaultdict(set)
    for v in verdicts:
        key = _group_key(v)
        group_algorithms[key].update((v.a, v.b))
        family = method_info(v.method).family
        if family == "dse":
            dse_by_key[key].append(v)
        elif v.lean is not None and covers_budget(v, final_budget, final_trials):
            strength = f", {v.evidence.strength}" if v.evidence.strength else ""
            text = f"{v.method_label} leans {v.leans_to}{strength}"
            if text not in leans[key][(v.a, v.b)]:
                leans[key][(v.a, v.b)].append(text)

    def explain(v1: Verdict, v2: Verdict) -> str:
        return " ".join(e.text for e in explain_disagreement(
            v1, v2, final_budget=final_budget, final_trials=final_trials))

    scoped = {}
    for key in sorted(group_algorithms, key=_group_sort_key):
        if (n_benchmarks == 1 and key == (None, ()) and not votes_by_key.get(key)
                and any(k[0] is not None and not k[1] for k in group_algorithms)):
            # One benchmark: nothing can vote "across benchmarks like these 1", and a scope
            # of such pairs led the headline with "cannot be separated" while the
            # benchmark's own scope settled them. That scope says what the data support.
            continue
        algs = [a for a in universe if a in group_algorithms[key]]
        label = scope_sentence_label(key, n_benchmarks, estimand)
        if final_budget is None and final_trials is None:
            # Draws without a trial order: the votes are at a k of their own; say which.
            trials = voting_trials([v.verdict for v in votes_by_key.get(key, [])])
            label += f" at {trials_text(trials)}" if trials is not None else ""
        caveats = [c for c in (scope_caveat if key[0] is None else None,
                               pooled_caveat if key == (None, ()) else None) if c]
        if caveats:
            label += f" ({'; '.join(caveats)})"
        rel = relate_scope(key, label, algs,
                           votes_by_key.get(key, []), leans[key], alpha,
                           max(n_tests[scope_type(key)], 1), explain,
                           effects=sized.get(key), equivalence=tests_by_key.get(key, ()))
        # A study of one benchmark leads with that benchmark's scope: it too names its
        # largest differences when nothing is settled.
        rel.sentence = headline_sentence(
            rel, lead=key[0] is None or (n_benchmarks == 1 and not key[1]))
        rel.single_draws = single_draw_sentence(dse_by_key.get(key, []), alpha)
        scoped[key] = rel
    pooled = scoped.get((None, ()))
    if pooled is not None:
        reversal = _reversal_clause(pooled, scoped)
        if reversal:
            pooled.sentence = pooled.sentence[:-1] + reversal + "."

    return votes, scoped, n_tests


#: The reversal clause names at most this many pairs.
MAX_REVERSALS_NAMED = 3


def _reversal_clause(pooled, scoped: dict) -> str:
    """"; per benchmark, A vs B goes both ways (A better on 6, B on 6)" for such pairs.

    A pair settled in opposite directions on different benchmarks has a difference
    that changes sign across benchmarks: across benchmarks it may be unsettled, or
    settled by its average, and a reader of that alone would take the algorithms for
    interchangeable, or one for better everywhere.
    """
    wins: dict[frozenset, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for key, rel in scoped.items():
        if key[0] is None or key[1]:
            continue
        for r in rel.with_status(Status.SETTLED):
            wins[frozenset((r.a, r.b))][r.winner] += 1
    both = []
    for r in pooled.relations:
        count = wins.get(frozenset((r.a, r.b)), {})
        if count.get(r.a, 0) and count.get(r.b, 0):
            both.append(f"{r.a} vs {r.b} ({r.a} better on {count[r.a]}, {r.b} on "
                        f"{count[r.b]})")
    if not both:
        return ""
    named = "; ".join(both[:MAX_REVERSALS_NAMED]) + (
        f"; and {len(both) - MAX_REVERSALS_NAMED} more" if len(both) > MAX_REVERSALS_NAMED
        else "")
    return (f"; the settled relations per benchmark go both ways for {named}: the "
            f"difference changes sign across benchmarks")


#: Why the agreement rows of the scope across benchmarks have no relation in a study of
#: one benchmark (that scope is left out of the relations; see :func:`_relate_scopes`).
_ONE_BENCHMARK = ("one benchmark: no family votes across benchmarks; the benchmark's own "
                  "scope holds the relation")


def _compare_methods(verdicts: list[Verdict], votes: list, scoped: dict,
                     order: dict[str, int], final_budget: float | None,
                     final_trials: float | None = None):
    """The descriptive part: every method's verdicts compared pair by pair.

    Returns the agreement table, every matched comparison of two methods
    (with its agreement credit) and each method's representative verdict.
    """
    # pair -> group -> method -> verdicts
    nested: dict[tuple[str, str], dict[GroupKey, dict[str, list[Verdict]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    for v in verdicts:
        nested[(v.a, v.b)][_group_key(v)][v.method_label].append(v)

    voters_of: dict[tuple, set[str]] = defaultdict(set)
    for vote in votes:
        voters_of[(vote.key, (vote.a, vote.b))].add(vote.method)
    # The three tables are gathered column by column (a list per column, not a dict per
    # row): 200 algorithms make 218,900 agreement rows and 278,600 representatives.
    agreement_cols: dict[str, list] = {c: [] for c in AGREEMENT_COLUMNS}
    comparison_names = [*CONFLICT_COLUMNS[:10], "credit", "kind", "rules", "explanation"]
    comparison_rows: list[tuple] = []
    rep_names = ["a", "b", "benchmark", "metafeature", "method", "outcome", "winner",
                 "budget", "evidence", "votes"]
    rep_rows: list[tuple] = []
    add_agreement = [agreement_cols[c].append for c in AGREEMENT_COLUMNS]
    where: dict[Scope, str] = {}

    def budget_text(v: Verdict) -> str:
        # One text per scope (verdicts of a benchmark share theirs).
        text = where.get(v.scope)
        if text is None:
            text = where[v.scope] = _budget_text(v, final_budget)
        return text

    # Every scope's place in the scope order, found once (sorting each pair's scopes by
    # _group_sort_key, which is one-to-one, gives the same order).
    place = {key: i for i, key in enumerate(sorted(
        {key for groups in nested.values() for key in groups}, key=_group_sort_key))}
    meta_of = {key: metafeature_label(key[1]) for key in place}
    for pair in sorted(nested, key=lambda p: (order[p[0]], order[p[1]])):
        a, b = pair
        for key in sorted(nested[pair], key=place.__getitem__):
            by_method = nested[pair][key]
            methods = sorted(by_method)
            reps_all = [representative(by_method[m], final_budget, final_trials)
                        for m in methods]
            voters = voters_of.get((key, pair), set())
            elsewhere = [v.method_label for v in reps_all
                         if not covers_budget(v, final_budget, final_trials)]
            meta = meta_of[key]
            bench = key[0]
            for v in reps_all:
                label = v.method_label
                rep_rows.append((a, b, bench, meta, label, v.outcome, v.winner,
                                 budget_text(v), str(v.evidence), label in voters))
            credits = [
                pair_agreement(x.outcome, y.outcome)
                for x, y in itertools.combinations(reps_all, 2)
            ]
            n_conflicts = 0
            for m1, m2 in itertools.combinations(methods, 2):
                for v1, v2 in _matched_pairs(by_method[m1], by_method[m2], final_budget,
                                             final_trials):
                    kind = disagreement_kind(v1.outcome, v2.outcome)
                    rules = explanation = ""
                    if kind == "contradiction":
                        n_conflicts += 1
                        found = explain_disagreement(v1, v2, final_budget=final_budget,
                                                     final_trials=final_trials)
                        rules = ",".join(e.rule for e in found)
                        explanation = " ".join(e.text for e in found)
                    comparison_rows.append((
                        a, b, bench, meta, m1, budget_text(v1), v1.outcome, m2,
                        budget_text(v2), v2.outcome, pair_agreement(v1.outcome, v2.outcome),
                        kind, rules, explanation))
            rel_row = scoped[key].status_of(a, b) if key in scoped else None
            status = rel_row.status.value if rel_row else "unsettled"
            winner = rel_row.winner if rel_row else None
            consensus = ("conflict" if status == "contradicted" else
                         ("a" if winner == a else "b") if winner else "inconclusive")
            values = (
                a, b, bench, meta, len(methods), ", ".join(methods),
                ", ".join(f"{v.method_label}: {v.winner or v.outcome}" for v in reps_all),
                float(np.mean(credits)) if credits else math.nan, consensus, winner,
                rel_row.reason if rel_row else "" if key in scoped else _ONE_BENCHMARK,
                ", ".join(elsewhere), n_conflicts, status)
            for add, value in zip(add_agreement, values):
                add(value)
    agreement = pd.DataFrame(agreement_cols, columns=AGREEMENT_COLUMNS)
    comparisons = pd.DataFrame(comparison_rows, columns=comparison_names)
    representatives = pd.DataFrame(rep_rows, columns=rep_names)
    return agreement, comparisons, representatives


def _ordered_conflicts(comparisons: pd.DataFrame) -> pd.DataFrame:
    """The contradictions among the comparisons, most telling first."""
    conflicts = comparisons[comparisons["kind"] == "contradiction"].drop(columns="credit")
    # Same-budget clashes before those explained by a different budget; pooled scopes
    # before single benchmarks.
    other_budget = conflicts["rules"].str.split(",").map(lambda r: "budget" in r)
    per_benchmark = conflicts["benchmark"].notna()
    order_idx = np.lexsort((np.arange(len(conflicts)), per_benchmark.to_numpy(),
                            other_budget.to_numpy()))
    conflicts = conflicts.iloc[order_idx].reset_index(drop=True)[CONFLICT_COLUMNS]
    return conflicts


def _method_agreement(verdicts: list[Verdict], comparisons: pd.DataFrame) -> pd.DataFrame:
    """Method x method mean agreement credit over the pairs both decided."""
    methods_all = sorted({v.method_label for v in verdicts})
    matrix = pd.DataFrame(np.nan, index=methods_all, columns=methods_all)
    matrix.index.name, matrix.columns.name = "method", "method"
    for m in methods_all:
        matrix.loc[m, m] = 1.0
    if len(comparisons):
        means = comparisons.groupby(["method_1", "method_2"])["credit"].mean()
        for (m1, m2), value in means.items():
            matrix.loc[m1, m2] = value
            matrix.loc[m2, m1] = value
    return matrix


def _coverage(verdicts: list[Verdict]) -> pd.DataFrame:
    """How many verdicts each method gave per scope."""
    if verdicts:
        # One label per scope group, not per verdict (a Scope is built for each label),
        # and two columns rather than a dict per verdict: 280,000 verdicts for 200
        # algorithms.
        labels: dict[GroupKey, str] = {}
        scopes = []
        for v in verdicts:
            key = _group_key(v)
            label = labels.get(key)
            if label is None:
                label = labels[key] = group_label(key)
            scopes.append(label)
        cov = pd.DataFrame({"method": [v.method_label for v in verdicts], "scope": scopes})
        return cov.groupby(["method", "scope"]).size().unstack(fill_value=0)
    else:
        return pd.DataFrame()


def _group_conflicts(conflicts: pd.DataFrame) -> pd.DataFrame:
    """Method-level contradictions with the same explanation, stated once with their pairs."""
    rows = []
    if len(conflicts):
        keys = ["kind", "method_1", "method_2", "rules", "explanation"]
        for key, group in conflicts.groupby(keys, sort=False):
            pairs = [
                f"{r.a} vs {r.b}" + (f" ({r.benchmark})" if r.benchmark is not None else "")
                for r in group.itertuples(index=False)
            ]
            rows.append({**dict(zip(keys, key)), "n_pairs": len(pairs),
                         "pairs": _pair_list(pairs)})
    return pd.DataFrame(rows, columns=CONFLICT_GROUP_COLUMNS)


def _scope_columns(rel) -> dict:
    return {"scope_type": scope_type(rel.key), "scope": group_label(rel.key),
            "benchmark": rel.key[0], "metafeature": metafeature_label(rel.key[1])}


def _relation_tables(scoped: dict, votes: list) -> dict[str, pd.DataFrame]:
    gaps, contradictions, groups, headlines = [], [], [], []
    # The scope columns once per scope (group_label builds a Scope).
    located = [(rel, _scope_columns(rel)) for rel in scoped.values()]

    def relation_rows():
        # Made as read: held all at once, the rows of 218,900 relations took 0.27 GB.
        for rel, where in located:
            eff = rel.effects
            sized = ({"difference_unit": eff.unit, "confidence": eff.confidence,
                      # In the difference's unit (a margin in SDs, per benchmark, in its
                      # units: the pair's own run SD, below).
                      "margin": None if eff.margin is None else eff.margin_value}
                     if eff is not None else {})
            for r in rel.relations:
                row = {**where, **r.row(), **sized}
                if (eff is not None and eff.margin is not None and r.effect is not None
                        and math.isfinite(r.effect.margin_value)):
                    row["margin"] = r.effect.margin_value
                yield row

    for rel, where in located:
        gaps += [{**where, **g.row()} for g in rel.power_gaps]
        contradictions += [{**where, **c.row()} for c in rel.contradictions]
        groups += [{**where, "group": i + 1, "algorithms": ", ".join(g), "size": len(g)}
                   for i, g in enumerate(rel.groups)]
        headlines.append({
            **where, "sentence": rel.sentence, "single_draws": rel.single_draws,
            **{f"n_{s.value.replace(' ', '_')}": len(rel.with_status(s)) for s in Status},
        })
    # The scope columns once per scope, not per vote (group_label builds a Scope).
    scope_of = {v.key: (scope_type(v.key), group_label(v.key), metafeature_label(v.key[1]))
                for v in votes}
    vote_rows = ({
        "scope_type": scope_of[v.key][0], "scope": scope_of[v.key][1], "benchmark": v.key[0],
        "metafeature": scope_of[v.key][2], "a": v.a, "b": v.b, "family": v.family,
        "method": v.method, "p_value": v.p_value,
        "direction": {"a": v.a, "b": v.b}.get(v.direction or ""), "decides": v.decides,
        "p_value_adjusted": v.p_value_adjusted, "rejects": v.rejects, "n": v.n,
        "n_units": v.n_units,
    } for v in votes)
    return {
        "votes": records_frame(vote_rows, VOTE_COLUMNS),
        "relations": records_frame(relation_rows(), RELATION_COLUMNS),
        "power_gaps": records_frame(gaps, POWER_GAP_COLUMNS),
        "contradictions": records_frame(contradictions, CONTRADICTION_COLUMNS),
        "groups": records_frame(groups, GROUP_COLUMNS),
        "headlines": records_frame(headlines, HEADLINE_COLUMNS),
    }


def records_frame(records: Iterable[Mapping], columns: Sequence[str]) -> pd.DataFrame:
    """``pd.DataFrame(records, columns=columns)`` with its text columns as ``object`` and ``None``.

    A column holding text keeps the rows' own string objects; the others are
    inferred by pandas as usual. ``records`` may be an iterator: its records
    are read a part at a time (:data:`RECORDS_PART_ROWS`). The result equals
    :func:`_text_none` of the plain frame, but without it: pandas 3 first
    copies text into Arrow strings, and turning them back into objects made
    a new Python string per cell (5.4 million, 0.23 GB held for the
    report's lifetime, for the votes and relations of 200 algorithms).

    Examples
    --------
    >>> f = records_frame([{"a": "x", "p": 0.5}, {"a": None}], ["a", "p"])
    >>> f.dtypes.astype(str).tolist(), f["a"].tolist(), f["p"].isna().tolist()
    (['object', 'float64'], ['x', None], [False, True])
    """
    columns = list(columns)
    table: list[list] = [[] for _ in columns]
    records = iter(records)
    # A few thousand records at a time, so that an iterator's records need not all exist
    # at once. A missing key is a missing value, as in pd.DataFrame(records).
    while part := list(itertools.islice(records, RECORDS_PART_ROWS)):
        for values, col in zip(table, columns, strict=True):
            values.extend([r.get(col) for r in part])
    data = {}
    for col, values in zip(columns, table, strict=True):
        if any(type(x) is str for x in values):
            # fromiter: a tuple cell stays one object (slice assignment would unpack it).
            cells = np.fromiter(values, dtype=object, count=len(values))
            cells[pd.isna(cells)] = None
            data[col] = pd.Series(cells, dtype=object, copy=False)
        else:
            data[col] = _text_none(pd.Series(values).to_frame())[0]
    return pd.DataFrame(data, columns=columns)


#: :func:`records_frame` reads this many rows of an iterator at a time.
RECORDS_PART_ROWS = 4096


def _text_none(frame: pd.DataFrame) -> pd.DataFrame:
    """Missing values of text columns as ``None`` (pandas turns some into NaN)."""
    for col in frame.columns:
        if (frame[col].dtype == object or pd.api.types.is_string_dtype(frame[col])
                or frame[col].isna().all()):
            missing = frame[col].isna().to_numpy()
            values = frame[col].astype(object).to_numpy(copy=True)
            values[missing] = None
            frame[col] = pd.Series(values, index=frame.index, dtype=object)
    return frame


#: A scope's guidance names the plans of at most this many pairs.
MAX_PLANNED_SHOWN = 6


def _plans_line(rows, plans: Guidance | None, key) -> str | None:
    """One guidance line: what would settle the open pairs closest to settled."""
    if plans is None:
        return None
    priority = getattr(plans, "priority", lambda a, b: 0.0)
    rows = sorted((r for r in rows if r.status not in (Status.CONTRADICTED,
                                                        Status.EQUIVALENT)),
                  key=lambda r: -priority(r.a, r.b))
    texts = [(r, plans(r.a, r.b, key)) for r in rows]
    texts = [(r, t) for r, t in texts if t]
    if not texts:
        return None
    shown = "; ".join(f"{r.a} vs {r.b}: {t}" for r, t in texts[:MAX_PLANNED_SHOWN])
    more = (f"; and {len(texts) - MAX_PLANNED_SHOWN} more pair(s) (benchverdict plan)"
            if len(texts) > MAX_PLANNED_SHOWN else "")
    correction = getattr(plans, "correction", "Bonferroni over the pairs")
    return ("What would settle them across benchmarks (80% power for each pair's observed "
            f"difference, paired t on benchmark means, {correction}; the report settles a "
            f"pair when a family rejects after Holm over every vote): {shown}{more}.")


def _ranking(rel, guidance: Guidance | None, plans: Guidance | None = None) -> Ranking:
    """The Ranking record of one scope (with guidance once per distinct advice)."""
    settled = [(r.winner, r.loser) for r in rel.with_status(Status.SETTLED)]
    implied = [(r.winner, r.loser) for r in rel.with_status(Status.IMPLIED)]
    # Equivalent pairs are not ordered either (a total order needs every pair decided by
    # a difference), but they need no more data: no guidance for them.
    open_rows = rel.with_status(Status.EQUIVALENT, Status.CONTRADICTED, Status.POWER_GAP,
                                Status.UNSETTLED)
    unsettled = [(r.a, r.b, r.reason) for r in open_rows]
    by_text: dict[str, list[str]] = {}
    if guidance is not None:
        for r in open_rows:
            if r.status in (Status.CONTRADICTED, Status.EQUIVALENT):
                continue
            text = guidance(r.a, r.b, rel.key)
            if text:
                by_text.setdefault(text, []).append(f"{r.a} vs {r.b}")
    notes = [f"{_pair_list(pairs)}: {text}" for text, pairs in by_text.items()]
    planned = _plans_line(open_rows, plans, rel.key)
    if planned:
        notes.append(planned)
    if not settled and not implied:
        status, tiers = "inconclusive", []
    else:
        tiers = rel.tiers
        status = "ranked" if not open_rows else "partial"
    return Ranking(
        rel.key[0], rel.key[1], status, tiers, settled, unsettled, rel.sentence, notes,
        implied=implied, groups=[list(g) for g in rel.groups],
        contradicted=[(r.a, r.b) for r in rel.with_status(Status.CONTRADICTED)],
        single_draws=rel.single_draws,
    )
