"""Sentences the report's formats share, so that HTML, Markdown and LaTeX say the same thing.

Plain text, not escaped: each renderer escapes what it prints. Sentences
that only one format uses stay in that format's module.

Two of them are written for a paper to quote, from a comparison's own
settings and records (never a fixed text):

* :func:`methods_paragraph`: which analyses ran and which did not, which
  tests each family used and through which method it voted, what a
  replicate is, the multiple-comparison adjustment and its family, the
  estimand, how effects and equivalence were estimated; with citation
  marks (:mod:`benchverdict.report.citations`) written as author-year
  text, LaTeX or Pandoc.
* :func:`results_paragraphs`: per scope (across benchmarks; per benchmark
  when asked) who beats whom, by how much with the interval, what follows
  by transitivity, what is practically equivalent, where the families
  disagree, what more data may settle and what is not separated. The
  numbers are the typed relations' (:class:`~benchverdict.report.relations.Relation`)
  formatted as the summary formats them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchverdict.report.relations import Relation, ScopeRelations
    from benchverdict.report.render import ReportSource

#: Said when no two families of evidence contradict each other.
NO_CONTRADICTIONS = "No two families of evidence decide any pair in opposite directions."
#: Said when no family misses a relation another family settles.
NO_POWER_GAPS = "No family misses a relation another family settles."
#: Said when neither validation nor an analysis left anything out.
NOTHING_LEFT_OUT = "Nothing was left out."
#: Why single methods' disagreements are not contradictions (after "... occasion(s) (<file>)").
DISAGREEMENTS_WHY = ("within a family only the primary method votes, and score distributions "
                     "do not vote")


def disagreements(n: int, where: str) -> str:
    """The sentence that introduces the single methods' disagreements.

    Examples
    --------
    >>> disagreements(1234, "method_disagreements.csv")[:60]
    'Single methods name different winners on 1,234 occasion(s) ('
    """
    return (f"Single methods name different winners on {n:,} occasion(s) ({where}); "
            f"{DISAGREEMENTS_WHY}.")


def relations_left_out(n: int) -> str:
    """The note under a relations table that does not show every row ("" when it does).

    Examples
    --------
    >>> relations_left_out(1200)
    '1,200 more rows are not shown here; relations.csv has them all.'
    >>> relations_left_out(0)
    ''
    """
    return f"{n:,} more rows are not shown here; relations.csv has them all." if n > 0 else ""


def rows_left_out(n: int, what: str) -> str:
    """The note under a table of ``what`` that does not show every row ("" when it does).

    Examples
    --------
    >>> rows_left_out(3, "verdicts")
    '3 more rows are not shown here; report.json and verdicts.csv have them all.'
    """
    return (f"{n:,} more rows are not shown here; report.json and {what}.csv have them all."
            if n else "")


def warnings_count(n: int, n_distinct: int) -> str:
    """How many warnings there are, before the list ("Warnings: none." without any).

    Examples
    --------
    >>> warnings_count(7, 2)
    'Warnings: 7, 2 distinct (each one is in report.json)'
    """
    if not n_distinct:
        return "Warnings: none."
    return f"Warnings: {n}, {n_distinct} distinct (each one is in report.json)"


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


def _family_votes(comparison: ReportSource) -> dict[str, list[str]]:
    """Per family, the methods that cast its votes (most votes first)."""
    votes = comparison.reconciliation.votes
    out: dict[str, list[str]] = {}
    if votes is None or not len(votes):
        return out
    counts = votes.groupby(["family", "method"], sort=False).size().reset_index(name="n")
    for family, rows in counts.groupby("family", sort=False):
        out[str(family)] = [str(m) for m in rows.sort_values("n", ascending=False)["method"]]
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
    if "lmem.tukey" in votes:
        text += " and Tukey's adjustment for its own verdicts"
    text += "."
    if any(v.startswith("lmem.") and v != "lmem.tukey" for v in votes):
        text += (" Per benchmark, a model of that benchmark's runs (the runs are the "
                 "replicates) voted through " + _labels([v for v in votes if v != "lmem.tukey"])
                 + ".")
    if "lmem.tukey" in votes:
        text += (" Across benchmarks its claims are about "
                 + ("benchmarks like these: the algorithm contrast is judged against the "
                    "algorithm x benchmark variation." if estimand == "benchmarks" else
                    "exactly these benchmarks."))
    return text


def _tuning_sentence(run: Any, votes: list[str], confidence: float) -> str:
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
        text += (" At the final budget every pair's curves were compared by an exact "
                 "order-statistic test.")
    if votes:
        text += f" The family voted through {_labels(votes)}."
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


def methods_paragraph(comparison: ReportSource, style: str = "text") -> str:
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
    out = [f"We compared {n_alg} algorithms on {n_bench} benchmark{'s' if n_bench != 1 else ''}"
           f" with {c.n_seeds:,} seed{'s' if c.n_seeds != 1 else ''} each ({rows}; {better} "
           f"scores are better), {budget}."]
    ran = [r for r in c.runs if r.status == "ok"]
    for r in ran:
        v = votes.get(r.name, [])
        if r.name == "ranks":
            out.append(_ranks_sentence(r, v))
        elif r.name == "lmem":
            out.append(_lmem_sentence(r, v, o.estimand))
        elif r.name == "tuning":
            out.append(_tuning_sentence(r, v, o.confidence))
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
        rel = rec.relations
        eq = (rel[rel["p_equivalence"].notna()]["scope_type"].value_counts()
              if len(rel) and "p_equivalence" in rel else {})
        families = ", ".join(
            f"{_SCOPE_TYPE_WORDS.get(str(t), str(t))}: {int(n) + int(eq.get(t, 0)):,} tests"
            for t, n in types.items())
        out.append(
            "Each family of evidence cast one vote per pair and scope, its method's unadjusted "
            "p-value at the final budget; the votes of each scope type (" + families + ") were "
            "adjusted together by Holm's step-down procedure {cite:holm1979}, so that within "
            f"a scope type the probability that any relation called settled is wrong is at "
            f"most alpha = {o.alpha:g} (family-wise). A relation is settled when some family "
            "rejects after the adjustment and no family decides the other way; relations "
            "that follow from settled ones by transitivity are reported as implied, pairs a "
            "family decides only before the adjustment as power gaps.")
    claims = ("benchmarks like these: the observed benchmarks are treated as a sample, and a "
              "benchmark is the replicate" if o.estimand == "benchmarks" else
              "exactly these benchmarks (no claim beyond them): only the seeds are random")
    out.append(f"Claims across benchmarks are about {claims}; on a single benchmark its runs "
               f"(seeds) are the replicates.")
    pooled = next((s for s in rec.scopes.values() if s.key == (None, ())), None)
    eff = pooled.effects if pooled is not None else None
    unit = f" in {eff.unit}" if eff is not None else ""
    out.append(f"Effects are mean score differences{unit} with {1 - o.alpha:.0%} intervals "
               f"simultaneous over each scope's pairs (Bonferroni): a paired t interval over "
               f"benchmarks across benchmarks, Welch's interval over runs on one benchmark.")
    if o.margin is None:
        out.append("No margin of practical equivalence was set, so no pair was declared "
                   "equivalent.")
    else:
        margin = o.margin.text(eff.unit if eff is not None and not o.margin.standardized
                               else "")
        out.append(f"Practical equivalence (|difference| < {margin}) was tested by two "
                   f"one-sided tests (TOST) {{cite:schuirmann1987}}, adjusted in the same Holm "
                   f"family as the votes.")
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


def _scope_paragraph(rel: ScopeRelations, alpha: float) -> str:
    from benchverdict.report.relations import Status, effect_decimals

    relations = rel.relations
    eff = rel.effects
    k = len(relations)
    decimals = effect_decimals(*((r.effect.upper - r.effect.lower) / 2.0 for r in relations
                                 if r.effect is not None))
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
        what = (f" (mean difference in {eff.unit}, positive = better, with {eff.confidence:.0%} "
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
        out.append("The data do not separate "
                   + _names([f"{r.a} and {r.b}" for r in unsettled]) + ".")
    return " ".join(out)


def results_paragraphs(comparison: ReportSource, per_benchmark: bool = False
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
    0.05. The data do not separate a and b.
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


__all__ = [
    "DISAGREEMENTS_WHY",
    "NOTHING_LEFT_OUT",
    "NO_CONTRADICTIONS",
    "NO_POWER_GAPS",
    "ScopeParagraph",
    "disagreements",
    "methods_paragraph",
    "relations_left_out",
    "results_paragraphs",
    "rows_left_out",
    "warnings_count",
]
