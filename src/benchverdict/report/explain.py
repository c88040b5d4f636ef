"""Why two methods disagree: small, named rules over what each method assumes and sees.

Two verdicts on the same pair of algorithms can differ for reasons that have
nothing to do with which algorithm is "really" better: one method looks at a
different budget, treats a different unit as independent, pairs observations
the other does not, summarises another part of the score distribution, has
fewer units (less power), holds a different error-rate standard, or rests on
an assumption the data violate. Each rule below checks one such reason from
the verdicts' own fields (``method``, ``scope``, ``unit``, ``n``,
``evidence``, ``details``) and returns one sentence, or ``None`` when the
reason does not apply. :func:`explain_disagreement` runs them all; when none
applies it says so instead of inventing a cause.

The rules expect both verdicts oriented to the same ``(a, b)`` pair (see
:func:`orient`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from benchverdict.verdict import Scope, Verdict

#: Region of the score distribution a method's statistic summarises.
CENTRE = "centre"
UPPER_TAIL = "upper tail"
LOWER_TAIL = "lower tail"
WHOLE = "whole distribution"
#: Statistics focused above this quantile count as "upper tail" (k >= 2.4 for the median curve).
TAIL_QUANTILE = 0.75


@dataclass(frozen=True)
class MethodTraits:
    """What a method assumes and what it looks at.

    Attributes
    ----------
    region : str
        ``"centre"``, ``"upper tail"``, ``"lower tail"`` or
        ``"whole distribution"``: which part of the score distribution the
        method's statistic summarises.
    looks_at : str
        The statistic in words.
    paired : bool or None
        Whether the test pairs the two algorithms' observations by block
        (benchmark, seed), or ``None`` if unknown.
    iid_draws : bool
        Whether the method assumes IID random-search draws.
    scale : {"raw", "ranks", "normalized"} or None
        Whether score differences enter on their own scale (means, marginal
        means), only through ranks, or after per-benchmark normalisation.
    quantile : float or None
        For tail statistics, the quantile level they focus on (``a`` for
        CVaR_a, ``0.5**(1/k)`` for the median tuning curve at ``k``).
    """

    region: str
    looks_at: str
    paired: bool | None
    iid_draws: bool = False
    scale: str | None = None
    quantile: float | None = None


@dataclass(frozen=True)
class Explanation:
    """One reason for a disagreement: the rule's name and its sentence."""

    rule: str
    text: str


def orient(verdict: Verdict, first: str) -> Verdict:
    """Return ``verdict`` with ``a == first`` (swapping if needed).

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> v = Verdict("B", "A", "a", "ranks.nemenyi", Scope(), Evidence("p_value", 0.01, 0.05),
    ...             "maximize", "B ranks better")
    >>> orient(v, "A").outcome
    'b'
    """
    if verdict.a == first:
        return verdict
    if verdict.b == first:
        return verdict.swapped()
    raise ValueError(
        f"{first!r} is not one of the verdict's algorithms ({verdict.a}, {verdict.b})."
    )


def disagreement_kind(first: str, second: str) -> str | None:
    """Classify two outcomes of the same pair.

    Returns ``None`` when they are equal, ``"contradiction"`` when they name
    different winners, ``"power"`` when one decides and the other is
    inconclusive, and ``"tie"`` when one decides and the other finds a tie
    (or a tie meets an inconclusive verdict).

    Examples
    --------
    >>> disagreement_kind("a", "b"), disagreement_kind("a", "inconclusive")
    ('contradiction', 'power')
    """
    if first == second:
        return None
    decided = {"a", "b"}
    if first in decided and second in decided:
        return "contradiction"
    if "inconclusive" in (first, second) and (first in decided or second in decided):
        return "power"
    return "tie"


def pair_agreement(first: str, second: str) -> float:
    """Agreement credit of two outcomes: 1 equal, 0 opposite winners, 0.5 otherwise.

    A decided verdict against an inconclusive one (or a tie) does not
    contradict it, so it earns half credit.

    Examples
    --------
    >>> pair_agreement("a", "a"), pair_agreement("a", "b"), pair_agreement("a", "inconclusive")
    (1.0, 0.0, 0.5)
    """
    kind = disagreement_kind(first, second)
    if kind is None:
        return 1.0
    if kind == "contradiction":
        return 0.0
    return 0.5


# ---------------------------------------------------------------------------- method traits
#: What each aspect of the registry means in a sentence, when the method does not say more.
_LOOKS_AT = {
    "ranks": "ranks of per-block aggregates",
    "centre": "a central statistic (means or medians)",
    "whole distribution": "the whole score CDF (stochastic dominance)",
    "upper tail": "the best scores",
    "lower tail": "the worst scores",
}


def method_traits(verdict: Verdict) -> MethodTraits:
    """Describe what ``verdict.method`` assumes and looks at.

    Read from the method registry (:func:`benchverdict.methods.method_info`,
    declared by the module that emits the method), refined by the verdict's
    own scope and details where the registry says the trait varies: the
    budget of a tuning curve (the ``0.5^(1/k)`` quantile: centre up to about
    ``k = 2.4``, upper tail beyond), the level and tail of a CVaR. Overrides
    in ``verdict.details``: ``paired`` (bool), ``region`` (one of the region
    constants) and ``looks_at`` (str). An unregistered method raises
    ``KeyError``.

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> v = Verdict("A", "B", "a", "dse.cvar", Scope(),
    ...             Evidence("p_value", 0.01, 0.05), "maximize", "A has the higher CVaR",
    ...             parameter=0.95)
    >>> method_traits(v).region
    'upper tail'
    >>> method_traits(Verdict("A", "B", "a", "ranks.sign_test", Scope(),
    ...                       Evidence("p_value", 0.01, 0.05), "maximize", "x")).paired
    True
    """
    from benchverdict.methods import method_info

    info = method_info(verdict.method)
    details = verdict.details
    quantile = None
    if info.family == "tuning":
        k_low, k_high = verdict.scope.trials_low, verdict.scope.trials_high
        kind = str(details.get("kind", "median"))
        what = (
            "the expected best score of k random-search draws"
            if kind == "mean"
            else "the median best score of k draws (the 0.5^(1/k) quantile)"
        )
        if k_low is not None and k_low >= 1:
            quantile = 0.5 ** (1.0 / k_low)
            if k_high is not None:
                what += f", k = {k_low:g}-{k_high:g}" if k_high != k_low else f", k = {k_low:g}"
        if quantile is not None:
            region = CENTRE if quantile < TAIL_QUANTILE else UPPER_TAIL
        else:
            region = CENTRE if (k_high is not None and k_high <= 1) else UPPER_TAIL
    elif info.method == "dse.cvar":
        level = cvar_level(verdict)
        quantile = level
        if str(details.get("tail", "")).lower() == "lower":
            region, what = LOWER_TAIL, "the mean of the worst scores (lower-tail CVaR)"
        elif level is not None:
            region = UPPER_TAIL if level >= TAIL_QUANTILE else CENTRE
            what = f"the mean of the best {1 - level:.0%} of draws (CVaR_{level:g})"
        else:
            region, what = UPPER_TAIL, "the mean of the best scores (CVaR)"
    else:
        region = CENTRE if info.aspect in ("ranks", "varies with k") else info.aspect
        if info.family == "lmem":
            what = "model-based marginal means"
        elif info.method == "ranks.sign_test":
            what = "per-benchmark wins and losses"
        else:
            what = _LOOKS_AT.get(info.aspect, info.label)
    paired = details.get("paired", info.paired)
    region = details.get("region", region)
    if region not in (CENTRE, UPPER_TAIL, LOWER_TAIL, WHOLE):
        region = CENTRE
    looks_at = details.get("looks_at", what)
    scale = details.get("scale", info.scale)
    # One spelling, the DSE functions' parameter: details["normalize"] (min-max, reference).
    if info.family == "dse" and details.get("normalize"):
        scale = "normalized"
    return MethodTraits(str(region), str(looks_at), None if paired is None else bool(paired),
                        info.iid_draws, None if scale is None else str(scale), quantile)


def undecided_reason(verdict: Verdict) -> str | None:
    """Why a verdict whose p-value is below its alpha made no decision (``None`` otherwise).

    A p-value that small with no decision needs its reason stated: the two
    one-sided dominance tests both reject (the CDFs cross), an omnibus test
    gates the post-hoc tests, or the p-value shown is not the one the
    method decides by.

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> v = Verdict("A", "B", "inconclusive", "dse.dominance", Scope(),
    ...             Evidence("p_value", 2.77e-39, 0.05), "maximize", "x",
    ...             p_one_sided=(1e-39, 1e-20))
    >>> undecided_reason(v)
    'both one-sided tests reject (p = 1e-39 and 1e-20): the CDFs cross, so neither dominates'
    """
    ev = verdict.evidence
    if verdict.outcome != "inconclusive" or ev.kind != "p_value" or ev.value is None:
        return None
    if ev.level is None or ev.value > ev.level:  # the modules decide at p <= alpha
        return None
    d = verdict.details
    if verdict.p_one_sided is not None and verdict.module == "dse":
        pa, pb = verdict.p_one_sided
        if pa < ev.level / 2 and pb < ev.level / 2:
            return (f"both one-sided tests reject (p = {pa:.3g} and {pb:.3g}): the CDFs cross, "
                    f"so neither dominates")
    tail, needed = d.get("tail_draws"), d.get("min_tail_draws")
    if isinstance(tail, (int, float)) and isinstance(needed, (int, float)) and tail < needed:
        return (f"only {tail:.1f} draws in the tail (fewer than {needed:g}): which CVaR is "
                f"higher is not established")
    if d.get("too_few_runs"):
        return (f"fewer than {d.get('min_runs')} runs per algorithm: which CVaR is higher is "
                f"not established")
    omnibus = d.get("omnibus_p_value")
    if isinstance(omnibus, (int, float)) and omnibus >= ev.level:
        return (f"the omnibus {d.get('omnibus', 'test')} p = {omnibus:.3g} >= alpha = "
                f"{ev.level:g} gates the post-hoc tests")
    return f"the method's decision rule is not met ({verdict.explanation})"


def cvar_level(verdict: Verdict) -> float | None:
    """Return the CVaR level of a CVaR verdict: its ``parameter`` (``None`` for other methods).

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> v = Verdict("A", "B", "a", "dse.cvar", Scope(), Evidence("confidence", level=0.8),
    ...             "maximize", "x", parameter=0.99)
    >>> cvar_level(v)
    0.99
    """
    return verdict.parameter if verdict.method == "dse.cvar" else None


# ---------------------------------------------------------------------------- helpers
#: Where a scope sits: its axis ("budget", in the budget column's unit, or "trials", a
#: number k of random-search draws) and its range on that axis.
Reach = tuple[str, float, float]


def budget_interval(verdict: Verdict, final_budget: float | None,
                    final_trials: float | None = None) -> Reach | None:
    """Return where the verdict sits: ``(axis, low, high)``; no budget means the final budget.

    ``axis`` is ``"budget"`` (the budget column's unit) or ``"trials"`` (a
    number ``k`` of random-search draws); see :class:`~benchverdict.verdict.Scope`.
    A scope with neither is at the final budget: ``final_budget`` (or
    ``final_trials``, the trials a search has there). Returns ``None`` when
    that is unknown.

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> v = Verdict("A", "B", "a", "ranks.nemenyi", Scope(), Evidence("p_value", 0.01, 0.05),
    ...             "maximize", "x")
    >>> budget_interval(v, 24.0)
    ('budget', 24.0, 24.0)
    """
    s = verdict.scope
    if s.budget_low is not None and s.budget_high is not None:
        return "budget", float(s.budget_low), float(s.budget_high)
    if s.trials_low is not None and s.trials_high is not None:
        return "trials", float(s.trials_low), float(s.trials_high)
    if final_budget is not None:
        return "budget", float(final_budget), float(final_budget)
    if final_trials is not None:
        return "trials", float(final_trials), float(final_trials)
    return None


def at_final(reach: Reach | None, final_budget: float | None,
             final_trials: float | None = None) -> bool:
    """Whether a reach (:func:`budget_interval`) includes the final budget.

    On the budget axis the final budget is ``final_budget``, on the trials
    axis ``final_trials`` (the trials a search has at the final budget). An
    unknown final (or reach) is included.
    """
    if reach is None:
        return True
    axis, low, high = reach
    final = final_budget if axis == "budget" else final_trials
    return final is None or low <= final <= high


def common_axis(first: Reach | None, second: Reach | None, final_budget: float | None,
                final_trials: float | None = None
                ) -> tuple[Reach | None, Reach | None]:
    """Two reaches on one axis; ``(None, None)`` when they cannot be put on one.

    A budget in the budget column's unit and a trial count ``k`` are never
    compared as numbers: a reach at the final budget moves to the other axis
    as that axis's final (``final_budget`` or ``final_trials``), and two
    reaches that are both elsewhere cannot be placed.

    Examples
    --------
    >>> common_axis(("trials", 1.0, 1.0), ("budget", 6000.0, 6000.0), 6000.0, 6.0)
    (('trials', 1.0, 1.0), ('trials', 6.0, 6.0))
    """
    if first is None or second is None or first[0] == second[0]:
        return first, second
    finals = {"budget": final_budget, "trials": final_trials}

    def moved(reach: Reach, axis: str) -> Reach | None:
        final = finals[axis]
        if final is None or finals[reach[0]] is None or not at_final(reach, final_budget,
                                                                      final_trials):
            return None
        return axis, float(final), float(final)

    if (m := moved(second, first[0])) is not None:
        return first, m
    if (m := moved(first, second[0])) is not None:
        return m, second
    return None, None


def budgets_overlap(first: Reach | None, second: Reach | None) -> bool:
    """Whether two reaches on one axis share a point (unknown overlaps everything)."""
    if first is None or second is None or first[0] != second[0]:
        return True
    return first[1] <= second[2] and second[1] <= first[2]


def error_rate(verdict: Verdict) -> float | None:
    """Return the error rate the evidence is held to (alpha, or 1 - confidence)."""
    ev = verdict.evidence
    if ev.level is None or not math.isfinite(ev.level):
        return None
    if ev.kind == "p_value":
        return float(ev.level)
    if ev.kind in ("confidence", "band"):
        return 1.0 - float(ev.level)
    return None


def _outcome_words(v: Verdict) -> str:
    return {
        "a": f"{v.a} better",
        "b": f"{v.b} better",
        "tie": "a tie",
        "inconclusive": "no decision",
    }[v.outcome]


def _interval_text(reach: Reach | None) -> str:
    if reach is None:
        return "an unstated budget"
    axis, lo, hi = reach
    if axis == "trials":
        return Scope(trials_low=lo, trials_high=hi).where() + " trials"
    return Scope(budget_low=lo, budget_high=hi).where()


def _n_text(v: Verdict) -> str:
    return "an unstated number of" if v.n is None else f"{v.n:,}"


def _flagged_assumptions(v: Verdict) -> list[str]:
    """Assumption problems the emitting module found (its ``caveats``), and descriptiveness."""
    found = list(v.caveats)
    if v.evidence.kind == "descriptive":
        found.append("it is descriptive, with no inferential guarantee")
    return found


# ---------------------------------------------------------------------------- the rules
Context = Mapping[str, object]
Rule = Callable[[Verdict, Verdict, Context], "str | None"]


def _unit_key(unit: str) -> str:
    """A unit's core words: lower case, without parenthetical remarks or punctuation."""
    core = re.sub(r"\([^)]*\)", " ", unit.lower())
    return " ".join(re.findall(r"[a-z0-9]+", core))


def explain_budget(v1: Verdict, v2: Verdict, context: Context) -> str | None:
    """Different budgets: the ranking of two algorithms can change with tuning effort."""
    final = context.get("final_budget")
    trials = context.get("final_trials")
    i1, i2 = common_axis(budget_interval(v1, final, trials),  # type: ignore[arg-type]
                         budget_interval(v2, final, trials),  # type: ignore[arg-type]
                         final, trials)  # type: ignore[arg-type]
    if i1 is None or i2 is None or budgets_overlap(i1, i2):
        return None
    return (
        f"{v1.method_label} judges at {_interval_text(i1)} and {v2.method_label}"
        f" at {_interval_text(i2)}; "
        f"which algorithm is better can change with the tuning budget (their curves may cross)."
    )


def explain_replication_unit(v1: Verdict, v2: Verdict, context: Context) -> str | None:
    """Different replication units: what is treated as an independent observation."""
    u1, u2 = v1.unit.strip(), v2.unit.strip()
    if not u1 or not u2 or _unit_key(u1) == _unit_key(u2):
        return None
    return (
        f"Different units: {v1.method_label} counts '{u1}' as independent ({_n_text(v1)}), "
        f"{v2.method_label} counts '{u2}' ({_n_text(v2)}); more units give more power, and units "
        f"that are not really independent (seeds sharing a benchmark) overstate it."
    )


def explain_score_scale(v1: Verdict, v2: Verdict, context: Context) -> str | None:
    """Raw score differences against ranks, when pooling over benchmarks."""
    if v1.scope.benchmark is not None or v2.scope.benchmark is not None:
        return None
    s1, s2 = method_traits(v1).scale, method_traits(v2).scale
    if s1 is None or s2 is None or s1 == s2:
        return None
    raw = [v.method_label for v, sc in ((v1, s1), (v2, s2)) if sc == "raw"]
    ranked = [v.method_label for v, sc in ((v1, s1), (v2, s2)) if sc == "ranks"]
    if raw and ranked:
        return (
            f"{raw[0]} averages raw score differences over benchmarks, so benchmarks with a "
            f"large score range dominate it; {ranked[0]} uses only ranks within each benchmark "
            f"and weighs every benchmark equally."
        )
    return (
        f"{v1.method_label} compares scores on a {s1} scale and {v2.method_label}"
        f" on a {s2} scale, so "
        f"benchmarks weigh differently in each."
    )


def explain_sample_size(v1: Verdict, v2: Verdict, context: Context) -> str | None:
    """Power: the undecided method saw fewer units than the decided one."""
    if disagreement_kind(v1.outcome, v2.outcome) != "power":
        return None
    if v1.unit and v2.unit and _unit_key(v1.unit) != _unit_key(v2.unit):
        return None  # the replication-unit rule already compares the counts
    decided, undecided = (v1, v2) if v2.outcome == "inconclusive" else (v2, v1)
    if decided.n is None or undecided.n is None:
        return (
            f"{undecided.method_label} reached no decision where {decided.method_label}"
            f" did; one method has "
            f"less power here (sample sizes not stated)."
        )
    if undecided.n >= decided.n:
        return None
    return (
        f"{undecided.method_label} had only {undecided.n:,} units against {decided.n:,} for "
        f"{decided.method_label}, so it has less power to separate the algorithms."
    )


def explain_pairing(v1: Verdict, v2: Verdict, context: Context) -> str | None:
    """Paired against unpaired: pairing removes the between-benchmark (or seed) variance."""
    p1, p2 = method_traits(v1).paired, method_traits(v2).paired
    if p1 is None or p2 is None or p1 == p2:
        return None
    paired, unpaired = (v1, v2) if p1 else (v2, v1)
    return (
        f"{paired.method_label} pairs the two algorithms' results on the same blocks, removing the "
        f"variation between blocks; {unpaired.method_label}"
        f" compares them as unpaired samples, which "
        f"is less powerful when blocks differ a lot."
    )


def explain_distribution_region(v1: Verdict, v2: Verdict, context: Context) -> str | None:
    """Tail against centre: the methods summarise different parts of the score distribution."""
    t1, t2 = method_traits(v1), method_traits(v2)
    if t1.region != t2.region:
        return (
            f"{v1.method_label} looks at the {t1.region} ({t1.looks_at}) and"
            f" {v2.method_label} at the "
            f"{t2.region} ({t2.looks_at}); when the score distributions cross, one algorithm "
            f"can be better in the {t1.region} and the other in the {t2.region}."
        )
    q1, q2 = t1.quantile, t2.quantile
    if q1 is not None and q2 is not None and abs(q1 - q2) >= 0.1:
        deep, shallow = (v1, v2) if q1 > q2 else (v2, v1)
        return (
            f"{deep.method_label} looks further into the upper tail (around the "
            f"{max(q1, q2):.2f} quantile) than {shallow.method_label} (around {min(q1, q2):.2f}); "
            f"the algorithm with the better best-case scores need not have the better typical "
            f"ones."
        )
    return None


def explain_violated_assumption(v1: Verdict, v2: Verdict, context: Context) -> str | None:
    """Flag a method that reported one of its assumptions failing on these data."""
    parts = []
    for v in (v1, v2):
        flags = _flagged_assumptions(v)
        if flags:
            parts.append(f"{v.method_label}: {'; '.join(flags)}")
    if not parts:
        return None
    return "Caveats reported by the method: " + " | ".join(parts) + "."


def explain_error_standard(v1: Verdict, v2: Verdict, context: Context) -> str | None:
    """Different error-rate standards (e.g. alpha 0.05 against an 80% band)."""
    e1, e2 = error_rate(v1), error_rate(v2)
    if e1 is None or e2 is None or math.isclose(e1, e2, rel_tol=1e-9, abs_tol=1e-12):
        return None
    lax, strict = (v1, v2) if e1 > e2 else (v2, v1)
    return (
        f"{lax.method_label} accepts an error rate of {max(e1, e2):.3g} and"
        f" {strict.method_label} only "
        f"{min(e1, e2):.3g}; the stricter standard needs stronger evidence to decide."
    )


def _adjustment(v: Verdict) -> str | None:
    """Return the multiple-comparison adjustment a verdict used (registry, else details)."""
    from benchverdict.methods import method_info

    adjust = v.details.get("adjust", v.details.get("correction")) or method_info(
        v.method).adjustment
    return str(adjust).lower() if adjust else None


def explain_multiplicity(v1: Verdict, v2: Verdict, context: Context) -> str | None:
    """Different multiple-comparison adjustments (Nemenyi's CD is the most conservative)."""
    a1, a2 = _adjustment(v1), _adjustment(v2)
    if a1 is None or a2 is None or a1 == a2:
        return None
    text = (f"{v1.method_label} adjusts for multiple comparisons with {a1},"
            f" {v2.method_label} with {a2}; "
            f"the adjustments differ in how conservative they are")
    if "nemenyi" in (a1, a2):
        text += " (Nemenyi's all-pairs critical difference is among the most conservative)"
    return text + "."


def explain_borderline(v1: Verdict, v2: Verdict, context: Context) -> str | None:
    """Borderline evidence: a p-value near alpha, or only weak band evidence."""
    notes = []
    for v in (v1, v2):
        ev = v.evidence
        if ev.kind == "p_value" and ev.value is not None and ev.level:
            if ev.level / 2 <= ev.value <= ev.level * 2:
                notes.append(f"{v.method_label} has p = {ev.value:.3g},"
                             f" close to alpha = {ev.level:g}")
        elif ev.kind == "band" and ev.strength == "weak" and v.outcome in ("a", "b"):
            notes.append(f"{v.method_label} has only weak band evidence")
    if not notes:
        return None
    return "The evidence is borderline: " + "; ".join(notes) + "."


#: The rules, in the order their sentences are reported.
EXPLANATION_RULES: tuple[Rule, ...] = (
    explain_budget,
    explain_replication_unit,
    explain_pairing,
    explain_distribution_region,
    explain_score_scale,
    explain_sample_size,
    explain_violated_assumption,
    explain_error_standard,
    explain_multiplicity,
    explain_borderline,
)


def explain_disagreement(
    v1: Verdict,
    v2: Verdict,
    *,
    final_budget: float | None = None,
    rules: Sequence[Rule] = EXPLANATION_RULES,
    final_trials: float | None = None,
) -> list[Explanation]:
    """Every reason the rules find for ``v1`` and ``v2`` to differ.

    Parameters
    ----------
    v1, v2 : Verdict
        Two verdicts on the same pair (either orientation).
    final_budget : float, optional
        The budget a scope without budget refers to (the largest budget), in
        the budget column's unit.
    rules : sequence of callables
        ``rule(v1, v2, context) -> str | None``.
    final_trials : float, optional
        The trials ``k`` a search has at the final budget: where a tuning
        curve's ``k`` meets the final budget.

    Returns
    -------
    list of Explanation
        Never empty for differing outcomes: when no rule applies, one
        ``"unexplained"`` entry says that the methods see the same data in
        the same way and the difference is within their sampling noise.

    Examples
    --------
    >>> from benchverdict.verdict import Evidence, Scope
    >>> med = Verdict("MLP", "LSTM", "a", "dse.aggregate_median", Scope(),
    ...               Evidence("confidence", level=0.95), "maximize", "MLP has the higher median")
    >>> tail = Verdict("MLP", "LSTM", "b", "dse.cvar", Scope(),
    ...                Evidence("confidence", level=0.95), "maximize", "LSTM has the higher CVaR",
    ...                parameter=0.99)
    >>> [e.rule for e in explain_disagreement(med, tail)]
    ['distribution_region']
    """
    v2 = orient(v2, v1.a)
    if disagreement_kind(v1.outcome, v2.outcome) is None:
        return []
    context = {"final_budget": final_budget, "final_trials": final_trials}
    found = []
    for rule in rules:
        text = rule(v1, v2, context)
        if text:
            found.append(Explanation(rule.__name__.removeprefix("explain_"), text))
    if not found:
        found.append(
            Explanation(
                "unexplained",
                f"{v1.method_label} finds {_outcome_words(v1)} and {v2.method_label} finds "
                f"{_outcome_words(v2)} on the same scope, unit and budget; no structural "
                f"difference between the methods explains it, so treat the pair as unsettled.",
            )
        )
    return found
