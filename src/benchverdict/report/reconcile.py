"""Reconcile verdicts from several methods into tables, conflicts and a consensus.

The input is any list of :class:`~benchverdict.verdict.Verdict` records. They
are grouped by pair of algorithms and by *scope group*: the benchmark (or all
benchmarks) and the metafeature level. Budgets are not part of the group:
a verdict at another budget is compared with the nearest one, and a budget
difference becomes an explanation (:func:`~benchverdict.report.explain.explain_budget`).

Within a group:

* **agreement score**: each method contributes its *representative* verdict
  (the one at the final budget, or the highest budget it judged), and the
  score is the mean over all pairs of methods of 1 (same outcome), 0.5 (one
  decides, the other does not) or 0 (opposite winners);
* **conflicts**: every pair of verdicts from different methods with
  overlapping (or, failing that, nearest) budgets whose outcomes differ,
  each explained by :func:`~benchverdict.report.explain.explain_disagreement`;
* **pair consensus**: only the methods whose representative covers the final
  budget vote (all of them if none does); a winner only if no voter names the
  other algorithm,
  at least one inferential (non-descriptive) verdict decides, and the
  deciding methods are at least as many as the undecided ones; otherwise
  ``"inconclusive"`` (or ``"conflict"`` when methods name different winners);
* **ranking**: a consensus ranking only when every pair is settled and the
  settled pairs are transitive; otherwise "inconclusive: more data needed",
  with sample-size guidance where a guidance function is given.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchverdict.report.explain import (
    budget_interval,
    budgets_overlap,
    disagreement_kind,
    explain_disagreement,
    pair_agreement,
)
from benchverdict.verdict import Verdict

#: A scope group: (benchmark or None, metafeature levels).
GroupKey = tuple["str | None", tuple[tuple[str, str], ...]]
#: ``guidance(a, b, group) -> str | None``: how much more data would settle a pair.
Guidance = Callable[[str, str, GroupKey], "str | None"]

INCONCLUSIVE_MESSAGE = "inconclusive: more data needed"


@dataclass(frozen=True)
class Ranking:
    """The consensus ranking of one scope group.

    Attributes
    ----------
    benchmark : str or None
        The benchmark, or ``None`` for all benchmarks.
    metafeature : tuple
        Metafeature levels of the group.
    status : {"ranked", "inconclusive"}
    tiers : list of list of str
        Best tier first (algorithms in one tier tie); empty when inconclusive.
    settled : list of (winner, loser)
        The pairs whose consensus is settled.
    unsettled : list of (str, str, str)
        ``(a, b, why)`` for every pair without a consensus.
    message : str
        One paragraph a reader can check.
    guidance : list of str
        Sample-size guidance for unsettled pairs.
    """

    benchmark: str | None
    metafeature: tuple[tuple[str, str], ...]
    status: str
    tiers: list[list[str]]
    settled: list[tuple[str, str]]
    unsettled: list[tuple[str, str, str]]
    message: str
    guidance: list[str] = field(default_factory=list)

    @property
    def scope_label(self) -> str:
        """The group in words."""
        return group_label((self.benchmark, self.metafeature))


@dataclass(frozen=True)
class Reconciliation:
    """Verdicts of several methods, reconciled.

    Attributes
    ----------
    verdicts : list of Verdict
        All verdicts, oriented so that ``a`` precedes ``b`` in the algorithm order.
    table : pandas.DataFrame
        One row per verdict: pair, scope, method, outcome, winner, evidence,
        effect, unit, n, explanation.
    agreement : pandas.DataFrame
        One row per pair and scope group: methods, outcomes, agreement score,
        consensus and its reason, and the methods that judged another budget
        and so do not vote on the consensus at the final budget.
    comparisons : pandas.DataFrame
        Every compared pair of verdicts from different methods, with its
        agreement credit.
    conflicts : pandas.DataFrame
        The compared pairs that disagree, with the kind of disagreement, the
        rules that explain it, and the explanation; worst first
        (contradictions, then same-budget clashes, then pooled scopes).
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
        The budget a scope without budget was taken to mean.
    """

    verdicts: list[Verdict]
    table: pd.DataFrame
    agreement: pd.DataFrame
    comparisons: pd.DataFrame
    conflicts: pd.DataFrame
    method_agreement: pd.DataFrame
    rankings: list[Ranking]
    coverage: pd.DataFrame
    representatives: pd.DataFrame = field(default_factory=pd.DataFrame)
    final_budget: float | None = None

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


def group_label(key: GroupKey) -> str:
    """Describe a scope group in words.

    Examples
    --------
    >>> group_label((None, ())), group_label(("moons", (("prior", "good"),)))
    ('all benchmarks', 'benchmark moons, prior=good')
    """
    bench, meta = key
    parts = ["all benchmarks" if bench is None else f"benchmark {bench}"]
    parts += [f"{k}={v}" for k, v in meta]
    return ", ".join(parts)


def _group_key(v: Verdict) -> GroupKey:
    return (v.scope.benchmark, v.scope.metafeature)


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


def representative(verdicts: Sequence[Verdict], final_budget: float | None) -> Verdict:
    """Pick the verdict a method is judged by: at the final budget, else its highest.

    Among verdicts covering the final budget (or without a budget), the first
    decided one is preferred, so that a method that decides somewhere at that
    budget is not reported as undecided.

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> ev = Evidence("band", level=0.8, strength="strong")
    >>> early = Verdict("A", "B", "b", "tuning.median", Scope(None, 1, 5), ev, "maximize", "x")
    >>> late = Verdict("A", "B", "a", "tuning.median", Scope(None, 6, 50), ev, "maximize", "y")
    >>> representative([early, late], final_budget=50).outcome
    'a'
    """
    def key(v: Verdict) -> tuple:
        interval = budget_interval(v, final_budget)
        if interval is None:
            covers, high = True, math.inf
        else:
            covers = final_budget is None or interval[0] <= final_budget <= interval[1]
            high = interval[1]
        return (covers, high, v.outcome in ("a", "b"))

    return max(verdicts, key=key)


def covers_budget(verdict: Verdict, final_budget: float | None) -> bool:
    """Whether the verdict's budget scope includes the final budget (no scope: it does).

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> v = Verdict("A", "B", "a", "dse.cvar", Scope(None, 1, 1), Evidence("descriptive"),
    ...             "maximize", "x")
    >>> covers_budget(v, 20.0), covers_budget(v, None)
    (False, True)
    """
    interval = budget_interval(verdict, final_budget)
    if interval is None or final_budget is None:
        return True
    return interval[0] <= final_budget <= interval[1]


def _budget_distance(i1: tuple[float, float] | None, i2: tuple[float, float] | None) -> float:
    if budgets_overlap(i1, i2):
        return 0.0
    assert i1 is not None and i2 is not None
    return max(i1[0] - i2[1], i2[0] - i1[1])


def _matched_pairs(
    first: Sequence[Verdict], second: Sequence[Verdict], final_budget: float | None
) -> list[tuple[Verdict, Verdict]]:
    """Pairs of verdicts to compare: those with overlapping budgets.

    When two methods share no budget at all, the nearest pair(s) are compared
    instead (and the budget rule explains any difference).
    """
    intervals1 = [budget_interval(x, final_budget) for x in first]
    intervals2 = [budget_interval(y, final_budget) for y in second]
    dist = np.array([[_budget_distance(i1, i2) for i2 in intervals2] for i1 in intervals1])
    best = dist.min()
    return [
        (first[i], second[j])
        for i in range(len(first))
        for j in range(len(second))
        if dist[i, j] == best
    ]


def pair_consensus(representatives: Sequence[Verdict]) -> tuple[str, str]:
    """Consensus outcome of one pair in one group, and why.

    Returns ``(outcome, reason)`` with outcome ``"a"``, ``"b"``, ``"tie"``,
    ``"inconclusive"`` or ``"conflict"``. Rule: a winner needs no method
    naming the other algorithm, at least one inferential (non-descriptive)
    deciding verdict, and at least as many deciding methods as undecided ones.

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> ev = Evidence("p_value", 0.01, 0.05)
    >>> vs = [Verdict("A", "B", o, f"m.{i}", Scope(), ev, "maximize", "x")
    ...       for i, o in enumerate(["a", "a", "inconclusive"])]
    >>> pair_consensus(vs)[0]
    'a'
    """
    outcomes = [v.outcome for v in representatives]
    for_a = [v for v in representatives if v.outcome == "a"]
    for_b = [v for v in representatives if v.outcome == "b"]
    undecided = len(outcomes) - len(for_a) - len(for_b)
    if not outcomes:
        return "inconclusive", "no method judged this pair"
    if for_a and for_b:
        return "conflict", (
            f"methods name different winners ({', '.join(v.method for v in for_a)} against "
            f"{', '.join(v.method for v in for_b)})"
        )
    decided = for_a or for_b
    if decided:
        inferential = [v for v in decided if v.evidence.kind != "descriptive"]
        if not inferential:
            return "inconclusive", "only descriptive statistics decide; no test supports them"
        if len(decided) < undecided:
            return "inconclusive", (
                f"{len(decided)} method(s) decide but {undecided} do not; the evidence is not "
                f"broad enough for a consensus"
            )
        return ("a" if for_a else "b"), (
            f"{len(decided)} of {len(outcomes)} method(s) decide the same way and none disagrees"
        )
    if all(o == "tie" for o in outcomes):
        return "tie", "every method finds them equivalent"
    return "inconclusive", "no method separates them"


def _ranking_from_pairs(
    algorithms: Sequence[str], pair_outcome: dict[tuple[str, str], str]
) -> list[list[str]] | None:
    """Tiers (best first) consistent with every settled pair, or None if impossible."""
    parent = {a: a for a in algorithms}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for (a, b), outcome in pair_outcome.items():
        if outcome == "tie":
            parent[find(a)] = find(b)
    tiers: dict[str, list[str]] = defaultdict(list)
    for a in algorithms:
        tiers[find(a)].append(a)
    comps = list(tiers.values())
    wins = {i: 0 for i in range(len(comps))}
    beats: dict[tuple[int, int], bool] = {}
    index = {a: i for i, comp in enumerate(comps) for a in comp}
    for (a, b), outcome in pair_outcome.items():
        if outcome not in ("a", "b"):
            continue
        w, loser = (a, b) if outcome == "a" else (b, a)
        iw, il = index[w], index[loser]
        if iw == il or beats.get((il, iw)):
            return None  # a tie group beats itself, or a cycle
        beats[(iw, il)] = True
    for (iw, _il) in beats:
        wins[iw] += 1
    order = sorted(range(len(comps)), key=lambda i: -wins[i])
    for x, y in itertools.combinations(order, 2):
        if beats.get((y, x)):
            return None
    return [sorted(comps[i]) for i in order]


#: A guidance line names at most this many pairs (1000 algorithms make 500,000 pairs).
MAX_PAIRS_NAMED = 20


def _pair_list(pairs: Sequence[str]) -> str:
    shown = ", ".join(pairs[:MAX_PAIRS_NAMED])
    more = len(pairs) - MAX_PAIRS_NAMED
    return shown + (f" and {more:,} more pair(s)" if more > 0 else "")


def _rank_group(
    key: GroupKey,
    algorithms: Sequence[str],
    consensus: dict[tuple[str, str], tuple[str, str]],
    guidance: Guidance | None,
) -> Ranking:
    settled: list[tuple[str, str]] = []
    unsettled: list[tuple[str, str, str]] = []
    outcomes: dict[tuple[str, str], str] = {}
    for a, b in itertools.combinations(algorithms, 2):
        if (a, b) not in consensus:
            unsettled.append((a, b, "no method judged this pair"))
            continue
        outcome, why = consensus[(a, b)]
        if outcome in ("a", "b"):
            settled.append((a, b) if outcome == "a" else (b, a))
            outcomes[(a, b)] = outcome
        elif outcome == "tie":
            outcomes[(a, b)] = outcome
        else:
            unsettled.append((a, b, why))
    # Pairs that get the same advice share one line.
    by_text: dict[str, list[str]] = {}
    if guidance is not None:
        for a, b, _ in unsettled:
            text = guidance(a, b, key)
            if text:
                by_text.setdefault(text, []).append(f"{a} vs {b}")
    notes = [f"{_pair_list(pairs)}: {text}" for text, pairs in by_text.items()]
    label = group_label(key)
    if not unsettled:
        tiers = _ranking_from_pairs(algorithms, outcomes)
        if tiers is not None:
            order = " > ".join(" = ".join(t) for t in tiers)
            return Ranking(key[0], key[1], "ranked", tiers, settled, [],
                           f"Consensus ranking on {label}: {order} (best first); every pair is "
                           f"settled and no method contradicts it.", notes)
        unsettled = [(a, b, "the settled pairs are cyclic") for a, b in settled]
    n_pairs = len(algorithms) * (len(algorithms) - 1) // 2
    message = (
        f"{INCONCLUSIVE_MESSAGE} on {label}: {len(unsettled)} of {n_pairs} pair(s) are not "
        f"settled, so no consensus ranking is given."
    )
    return Ranking(key[0], key[1], "inconclusive", [], settled, unsettled, message, notes)


def _verdict_row(v: Verdict) -> dict:
    e = v.effect
    return {
        "a": v.a,
        "b": v.b,
        "benchmark": v.scope.benchmark,
        "metafeature": ";".join(f"{k}={val}" for k, val in v.scope.metafeature) or None,
        "budget_low": v.scope.budget_low,
        "budget_high": v.scope.budget_high,
        "method": v.method,
        "outcome": v.outcome,
        "winner": v.winner,
        "evidence": str(v.evidence),
        "strength": v.evidence.strength,
        "effect_name": None if e is None else e.name,
        "effect": None if e is None else e.estimate,
        "effect_low": None if e is None else e.low,
        "effect_high": None if e is None else e.high,
        "unit": v.unit,
        "n": v.n,
        "explanation": v.explanation,
    }


TABLE_COLUMNS = [
    "a", "b", "benchmark", "metafeature", "budget_low", "budget_high", "method", "outcome",
    "winner", "evidence", "strength", "effect_name", "effect", "effect_low", "effect_high",
    "unit", "n", "explanation",
]
AGREEMENT_COLUMNS = [
    "a", "b", "benchmark", "metafeature", "n_methods", "methods", "outcomes", "agreement",
    "consensus", "consensus_winner", "reason", "not_voting", "n_conflicts",
]
CONFLICT_COLUMNS = [
    "a", "b", "benchmark", "metafeature", "method_1", "budget_1", "outcome_1", "method_2",
    "budget_2", "outcome_2", "kind", "rules", "explanation",
]


def _budget_text(v: Verdict, final_budget: float | None) -> str:
    s = v.scope
    if s.budget_low is None:
        return "final" if final_budget is not None else "any"
    return f"{s.budget_low:g}" if s.budget_low == s.budget_high else (
        f"{s.budget_low:g}-{s.budget_high:g}")


def reconcile(
    verdicts: Iterable[Verdict],
    *,
    algorithms: Sequence[str] | None = None,
    final_budget: float | None = None,
    guidance: Guidance | None = None,
) -> Reconciliation:
    """Reconcile verdicts from several methods.

    Parameters
    ----------
    verdicts : iterable of Verdict
        From any mix of modules and methods.
    algorithms : sequence of str, optional
        The algorithm order (defines each pair's orientation and the ranking's
        universe). Default: every algorithm named in a verdict, sorted.
    final_budget : float, optional
        The budget a scope without budget refers to (usually the largest
        budget), so that rank tests on final incumbents meet tuning-curve
        verdicts at the largest k.
    guidance : callable, optional
        ``guidance(a, b, group) -> str | None``: sample-size guidance for a
        pair that stays unsettled (the report uses the tuning-curve module's).

    Returns
    -------
    Reconciliation

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> p = Evidence("p_value", 0.01, 0.05)
    >>> vs = [Verdict("A", "B", "a", "ranks.wilcoxon_holm", Scope(), p, "maximize", "x",
    ...               unit="benchmark", n=12),
    ...       Verdict("A", "B", "inconclusive", "lmem.tukey", Scope(), p, "maximize", "y",
    ...               unit="benchmark", n=12)]
    >>> rec = reconcile(vs)
    >>> float(rec.agreement.loc[0, "agreement"]), rec.conflicts.loc[0, "kind"]
    (0.5, 'power')
    """
    verdicts = list(verdicts)
    if algorithms is None:
        algorithms = sorted({name for v in verdicts for name in (v.a, v.b)})
    else:
        algorithms = [str(a) for a in algorithms]
        known = set(algorithms)
        extra = sorted({name for v in verdicts for name in (v.a, v.b)} - known)
        algorithms = [*algorithms, *extra]
    order = {a: i for i, a in enumerate(algorithms)}
    verdicts = _orient_all(verdicts, order)

    table = pd.DataFrame([_verdict_row(v) for v in verdicts], columns=TABLE_COLUMNS)

    # pair -> group -> method -> verdicts
    nested: dict[tuple[str, str], dict[GroupKey, dict[str, list[Verdict]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    for v in verdicts:
        nested[(v.a, v.b)][_group_key(v)][v.method].append(v)

    agreement_rows, comparison_rows, rep_rows = [], [], []
    group_consensus: dict[GroupKey, dict[tuple[str, str], tuple[str, str]]] = defaultdict(dict)
    group_algorithms: dict[GroupKey, set[str]] = defaultdict(set)
    for pair in sorted(nested, key=lambda p: (order[p[0]], order[p[1]])):
        for key in sorted(nested[pair], key=_group_sort_key):
            by_method = nested[pair][key]
            methods = sorted(by_method)
            reps_all = [representative(by_method[m], final_budget) for m in methods]
            # Only methods that judged the final budget vote on the consensus there; the
            # others' disagreements are still listed (and explained by the budget).
            reps = [v for v in reps_all if covers_budget(v, final_budget)] or reps_all
            elsewhere = [v.method for v in reps_all if v not in reps]
            for v in reps_all:
                rep_rows.append({
                    "a": pair[0], "b": pair[1], "benchmark": key[0],
                    "metafeature": ";".join(f"{k}={val}" for k, val in key[1]) or None,
                    "method": v.method, "outcome": v.outcome, "winner": v.winner,
                    "budget": _budget_text(v, final_budget), "evidence": str(v.evidence),
                    "votes": v in reps,
                })
            # Agreement describes every method (voting or not); the consensus only voters.
            credits = [
                pair_agreement(x.outcome, y.outcome)
                for x, y in itertools.combinations(reps_all, 2)
            ]
            n_conflicts = 0
            for m1, m2 in itertools.combinations(methods, 2):
                for v1, v2 in _matched_pairs(by_method[m1], by_method[m2], final_budget):
                    kind = disagreement_kind(v1.outcome, v2.outcome)
                    row = {
                        "a": pair[0], "b": pair[1], "benchmark": key[0],
                        "metafeature": ";".join(f"{k}={val}" for k, val in key[1]) or None,
                        "method_1": m1, "budget_1": _budget_text(v1, final_budget),
                        "outcome_1": v1.outcome,
                        "method_2": m2, "budget_2": _budget_text(v2, final_budget),
                        "outcome_2": v2.outcome,
                        "credit": pair_agreement(v1.outcome, v2.outcome), "kind": kind,
                        "rules": "", "explanation": "",
                    }
                    if kind is not None:
                        n_conflicts += 1
                        found = explain_disagreement(v1, v2, final_budget=final_budget)
                        row["rules"] = ",".join(e.rule for e in found)
                        row["explanation"] = " ".join(e.text for e in found)
                    comparison_rows.append(row)
            outcome, why = pair_consensus(reps)

            group_consensus[key][pair] = (outcome, why)
            group_algorithms[key].update(pair)
            agreement_rows.append(
                {
                    "a": pair[0], "b": pair[1], "benchmark": key[0],
                    "metafeature": ";".join(f"{k}={val}" for k, val in key[1]) or None,
                    "n_methods": len(methods),
                    "methods": ", ".join(methods),
                    "outcomes": ", ".join(
                        f"{v.method}: {v.winner or v.outcome}" for v in reps
                    ),
                    "agreement": float(np.mean(credits)) if credits else math.nan,
                    "consensus": outcome,
                    "consensus_winner": {"a": pair[0], "b": pair[1]}.get(outcome),
                    "reason": why,
                    "not_voting": ", ".join(elsewhere),
                    "n_conflicts": n_conflicts,
                }
            )
    agreement = pd.DataFrame(agreement_rows, columns=AGREEMENT_COLUMNS)
    comparisons = pd.DataFrame(
        comparison_rows,
        columns=[*CONFLICT_COLUMNS[:10], "credit", "kind", "rules", "explanation"],
    )
    conflicts = comparisons[comparisons["kind"].notna()].drop(columns="credit")
    # Worst first: contradictions, then power, then ties; same-budget clashes before
    # those explained by a different budget; pooled scopes before single benchmarks.
    severity = conflicts["kind"].map({"contradiction": 0, "power": 1, "tie": 2})
    other_budget = conflicts["rules"].str.split(",").map(lambda r: "budget" in r)
    per_benchmark = conflicts["benchmark"].notna()
    order = np.lexsort((np.arange(len(conflicts)), per_benchmark.to_numpy(),
                        other_budget.to_numpy(), severity.to_numpy()))
    conflicts = conflicts.iloc[order].reset_index(drop=True)[CONFLICT_COLUMNS]

    methods_all = sorted({v.method for v in verdicts})
    matrix = pd.DataFrame(np.nan, index=methods_all, columns=methods_all)
    matrix.index.name, matrix.columns.name = "method", "method"
    for m in methods_all:
        if any(v.method == m for v in verdicts):
            matrix.loc[m, m] = 1.0
    if len(comparisons):
        means = comparisons.groupby(["method_1", "method_2"])["credit"].mean()
        for (m1, m2), value in means.items():
            matrix.loc[m1, m2] = value
            matrix.loc[m2, m1] = value

    rankings = []
    universe = [a for a in algorithms if any(a in (v.a, v.b) for v in verdicts)]
    for key in sorted(group_consensus, key=_group_sort_key):
        algs = [a for a in universe if a in group_algorithms[key]]
        rankings.append(_rank_group(key, algs, group_consensus[key], guidance))

    if verdicts:
        cov = pd.DataFrame(
            [{"method": v.method, "scope": group_label(_group_key(v))} for v in verdicts]
        )
        coverage = cov.groupby(["method", "scope"]).size().unstack(fill_value=0)
    else:
        coverage = pd.DataFrame()
    return Reconciliation(
        verdicts=verdicts,
        table=table,
        agreement=agreement,
        comparisons=comparisons,
        conflicts=conflicts,
        method_agreement=matrix,
        rankings=rankings,
        coverage=coverage,
        representatives=pd.DataFrame(
            rep_rows, columns=["a", "b", "benchmark", "metafeature", "method", "outcome",
                               "winner", "budget", "evidence", "votes"]),
        final_budget=final_budget,
    )
